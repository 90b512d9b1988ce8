// FP8 attention forward: lowered to the pattern cuDNN's FP8 flash attention engines take on
// Hopper (runtime-compiled: checked up to support here, executed on the GPU tier).
#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

struct Fp8Case {
    const char *name;
    int64_t b, h_q, h_k, s_q, s_kv, d;
    fe_causal_mask causal;
    bool stats;
};

class SdpaFp8Support : public Deviceless, public ::testing::WithParamInterface<Fp8Case> {
  protected:
    fe_sdpa_fp8_scales scales(fe_graph *g) {
        fe_sdpa_fp8_scales s = FE_SDPA_FP8_SCALES_INIT;
        fe_tensor **fields[] = {&s.descale_q, &s.descale_k, &s.descale_v, &s.descale_s, &s.scale_s, &s.scale_o};
        const char *names[] = {"descale_q", "descale_k", "descale_v", "descale_s", "scale_s", "scale_o"};
        for (int i = 0; i < 6; ++i) *fields[i] = tensor(g, names[i], {1, 1, 1, 1}, false, FE_DATA_FLOAT);
        return s;
    }
};

TEST_P(SdpaFp8Support, IsSupported) {
    const Fp8Case &c = GetParam();
    fe_graph *g = graph(c.name, FE_DATA_FP8_E4M3);
    fe_tensor *q = tensor(g, "q", {c.b, c.h_q, c.s_q, c.d}), *k = tensor(g, "k", {c.b, c.h_k, c.s_kv, c.d});
    fe_tensor *v = tensor(g, "v", {c.b, c.h_k, c.s_kv, c.d});
    fe_sdpa_fp8_scales s = scales(g);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.causal_mask = c.causal;
    o.generate_stats = c.stats;
    fe_tensor *out, *stats = nullptr, *amax_s, *amax_o;
    ASSERT_FE_OK(fe_graph_sdpa_fp8(g, q, k, v, &s, &o, &out, &stats, &amax_s, &amax_o));
    for (fe_tensor *t : {out, amax_s, amax_o}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    if (stats) {
        ASSERT_FE_OK(fe_tensor_set_output(stats, 1));
    }
    expect_supported(g);
    fe_data_type type;
    ASSERT_FE_OK(fe_tensor_get_data_type(out, &type));
    EXPECT_EQ(type, FE_DATA_FP8_E4M3);
    ASSERT_FE_OK(fe_tensor_get_data_type(amax_o, &type));
    EXPECT_EQ(type, FE_DATA_FLOAT);
}

INSTANTIATE_TEST_SUITE_P(
    Deviceless, SdpaFp8Support,
    ::testing::Values(Fp8Case{"fp8_d128_causal_stats", 2, 8, 8, 512, 512, 128, FE_CAUSAL_MASK_TOP_LEFT, true},
                      Fp8Case{"fp8_gqa_8to1_inference", 1, 64, 8, 1024, 1024, 128, FE_CAUSAL_MASK_NONE, false}),
    [](const ::testing::TestParamInfo<Fp8Case> &info) { return std::string(info.param.name); });

// FP8 attention with a bias or with dropout: cuDNN 9.19 builds plans for both that fail on the
// GPU (wrong values, an illegal memory access), so the capability table refuses them at build.
TEST_F(SdpaFp8Support, BiasAndDropoutAreRefusedAsKnownBad) {
    for (bool dropout : {false, true}) {
        SCOPED_TRACE(dropout ? "dropout" : "bias");
        fe_graph *g = graph(dropout ? "fp8_dropout" : "fp8_bias", FE_DATA_FP8_E4M3);
        fe_tensor *q = tensor(g, "q", {2, 2, 128, 128}), *k = tensor(g, "k", {2, 2, 256, 128});
        fe_tensor *v = tensor(g, "v", {2, 2, 256, 128});
        fe_sdpa_fp8_scales s = scales(g);
        fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
        if (dropout) {
            o.dropout_probability = 0.2;
            o.dropout_seed = tensor(g, "seed", {1, 1, 1, 1}, false, FE_DATA_INT64);
            o.dropout_offset = tensor(g, "offset", {1, 1, 1, 1}, false, FE_DATA_INT64);
        } else {
            o.bias = tensor(g, "bias", {1, 2, 128, 256}, false, FE_DATA_BFLOAT16);
        }
        fe_tensor *out, *amax_s, *amax_o;
        ASSERT_FE_OK(fe_graph_sdpa_fp8(g, q, k, v, &s, &o, &out, nullptr, &amax_s, &amax_o));
        for (fe_tensor *t : {out, amax_s, amax_o}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        fe_build_options bo = FE_BUILD_OPTIONS_INIT;
        bo.device_properties_json = json_.c_str();
        EXPECT_FE_STATUS(fe_graph_build(g, nullptr, &bo), FE_STATUS_NOT_SUPPORTED);
        EXPECT_TRUE(LastErrorContains(dropout ? "FP8 attention with dropout" : "FP8 attention with a bias"))
            << fe_last_error_message();
        EXPECT_TRUE(LastErrorContains("known bad through")) << fe_last_error_message();
    }
}

// Sinks, soft-capping and Max/SumExp: cuDNN 9.19 fails to compile the first and computes the
// others wrongly (conformance run 39 on an H200), so the capability table refuses them at build;
// stats and the band's right bound in either alignment, right there, are supported.
TEST_F(SdpaFp8Support, SinksSoftCappingAndMaxSumExpAreRefusedAsKnownBad) {
    struct Form {
        const char *name, *reason;
        void (*set)(fe_sdpa_options &, fe_tensor *sink);
    };
    const Form forms[] = {
        {"sinks", "FP8 attention forward with attention sinks", [](fe_sdpa_options &o, fe_tensor *sink) { o.sink_token = sink; }},
        {"softcap", "with soft-capping or a score modifier", [](fe_sdpa_options &o, fe_tensor *) { o.softcap = 25; }},
        {"max_sum_exp", "outputs the rows' Max and SumExp", [](fe_sdpa_options &o, fe_tensor *) { o.output_max_sum_exp = 1; }},
        {"right_bound", nullptr,
         [](fe_sdpa_options &o, fe_tensor *) {
             o.right_bound = 16;
             o.diagonal_alignment = FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT;
             o.generate_stats = 1;
         }},
    };
    for (const Form &f : forms) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph(f.name, FE_DATA_FP8_E4M3);
        fe_tensor *q = tensor(g, "q", {2, 4, 128, 128}), *k = tensor(g, "k", {2, 4, 256, 128});
        fe_tensor *v = tensor(g, "v", {2, 4, 256, 128});
        fe_sdpa_fp8_scales s = scales(g);
        fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
        o.attn_scale = 0.125;
        const bool sinks = std::string(f.name) == "sinks";
        f.set(o, sinks ? tensor(g, "sink", {1, 4, 1, 1}, false, FE_DATA_FLOAT) : nullptr);
        fe_tensor *out, *stats = nullptr, *amax_s, *amax_o;
        ASSERT_FE_OK(fe_graph_sdpa_fp8(g, q, k, v, &s, &o, &out, &stats, &amax_s, &amax_o));
        for (fe_tensor *t : {out, stats, amax_s, amax_o})
            if (t) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        if (o.output_max_sum_exp) {
            fe_tensor *max = nullptr, *sum_exp = nullptr;
            ASSERT_FE_OK(fe_graph_tensor_by_name(g, "sdpa_fp8_0::Max", &max));
            ASSERT_FE_OK(fe_graph_tensor_by_name(g, "sdpa_fp8_0::SumExp", &sum_exp));
            ASSERT_FE_OK(fe_tensor_set_output(max, 1));
            ASSERT_FE_OK(fe_tensor_set_output(sum_exp, 1));
        }
        if (!f.reason) {
            expect_supported(g);
            continue;
        }
        fe_build_options bo = FE_BUILD_OPTIONS_INIT;
        bo.device_properties_json = json_.c_str();
        EXPECT_FE_STATUS(fe_graph_build(g, nullptr, &bo), FE_STATUS_NOT_SUPPORTED);
        EXPECT_TRUE(LastErrorContains(f.reason)) << fe_last_error_message();
        EXPECT_TRUE(LastErrorContains("known bad through")) << fe_last_error_message();
    }
}

TEST_F(SdpaFp8Support, PagedKvCachesAreSupported) {
    const int64_t B = 2, PAGES = 8, PAGE = 16;
    fe_graph *g = graph("fp8_paged", FE_DATA_FP8_E4M3);
    fe_tensor *q = tensor(g, "q", {B, 4, 4, 64}), *kc = tensor(g, "k_pages", {B * PAGES, 2, PAGE, 64});
    fe_tensor *vc = tensor(g, "v_pages", {B * PAGES, 2, PAGE, 64});
    fe_sdpa_fp8_scales s = scales(g);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.page_table_k = tensor(g, "page_table_k", {B, 1, PAGES, 1}, false, FE_DATA_INT32);
    o.page_table_v = tensor(g, "page_table_v", {B, 1, PAGES, 1}, false, FE_DATA_INT32);
    o.max_seq_len_kv = PAGES * PAGE;
    o.seq_len_q = tensor(g, "len_q", {B, 1, 1, 1}, false, FE_DATA_INT32);
    o.seq_len_kv = tensor(g, "len_kv", {B, 1, 1, 1}, false, FE_DATA_INT32);
    fe_tensor *out, *amax_s, *amax_o;
    ASSERT_FE_OK(fe_graph_sdpa_fp8(g, q, kc, vc, &s, &o, &out, nullptr, &amax_s, &amax_o));
    for (fe_tensor *t : {out, amax_s, amax_o}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    expect_supported(g);
}

TEST_F(SdpaFp8Support, EveryScaleIsRequired) {
    fe_graph *g = graph("fp8_missing_scale", FE_DATA_FP8_E4M3);
    fe_tensor *q = tensor(g, "q", {1, 2, 64, 64}), *k = tensor(g, "k", {1, 2, 64, 64}), *v = tensor(g, "v", {1, 2, 64, 64});
    fe_sdpa_fp8_scales s = scales(g);
    fe_tensor *scale_s = s.scale_s;
    s.scale_s = nullptr;
    fe_tensor *out, *amax_s, *amax_o;
    EXPECT_EQ(fe_graph_sdpa_fp8(g, q, k, v, &s, nullptr, &out, nullptr, &amax_s, &amax_o), FE_STATUS_NULL_POINTER);
    EXPECT_NE(std::string(fe_last_error_message()).find("scales->scale_s is NULL"), std::string::npos)
        << fe_last_error_message();
    EXPECT_EQ(fe_graph_sdpa_fp8(g, q, k, v, nullptr, nullptr, &out, nullptr, &amax_s, &amax_o), FE_STATUS_NULL_POINTER);
    s.scale_s = scale_s;
    EXPECT_EQ(fe_graph_sdpa_fp8(g, q, k, v, &s, nullptr, &out, nullptr, nullptr, &amax_o), FE_STATUS_NULL_POINTER);
}

TEST_F(SdpaFp8Support, HalfInputsAreRefusedAtBuildWithTheReason) {
    fe_graph *g = graph("fp8_with_half", FE_DATA_HALF);
    fe_tensor *q = tensor(g, "q", {1, 2, 64, 64}), *k = tensor(g, "k", {1, 2, 64, 64}), *v = tensor(g, "v", {1, 2, 64, 64});
    fe_sdpa_fp8_scales s = scales(g);
    fe_tensor *out, *amax_s, *amax_o;
    ASSERT_FE_OK(fe_graph_sdpa_fp8(g, q, k, v, &s, nullptr, &out, nullptr, &amax_s, &amax_o));
    for (fe_tensor *t : {out, amax_s, amax_o}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    EXPECT_EQ(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_NE(std::string(fe_last_error_message()).find("FP8 attention takes fp8_e4m3 or fp8_e5m2"), std::string::npos)
        << fe_last_error_message();
}

// FP8 backward: every scale, and the FP8 gradients with their amax outputs.
class SdpaFp8BackwardSupport : public SdpaFp8Support {
  protected:
    fe_status backward(fe_graph *g, int64_t h_q, int64_t h_k, fe_causal_mask causal, fe_tensor *out[7],
                       bool drop_a_scale = false, int32_t deterministic = 0) {
        const int64_t b = 2, s = 512, d = 128;
        fe_tensor *q = tensor(g, "q", {b, h_q, s, d}), *k = tensor(g, "k", {b, h_k, s, d});
        fe_tensor *v = tensor(g, "v", {b, h_k, s, d}), *o = tensor(g, "o", {b, h_q, s, d});
        fe_tensor *d_o = tensor(g, "dO", {b, h_q, s, d});
        fe_tensor *stats = tensor(g, "stats", {b, h_q, s, 1}, false, FE_DATA_FLOAT);
        fe_sdpa_fp8_backward_scales sc = FE_SDPA_FP8_BACKWARD_SCALES_INIT;
        fe_tensor **fields[] = {&sc.descale_q, &sc.descale_k,  &sc.descale_v, &sc.descale_o,
                                &sc.descale_do, &sc.descale_s, &sc.descale_dp, &sc.scale_s,
                                &sc.scale_dp,  &sc.scale_dq,  &sc.scale_dk,  &sc.scale_dv};
        for (int i = 0; i < 12; ++i) {
            std::string name = "scale_" + std::to_string(i);
            *fields[i] = tensor(g, name.c_str(), {1, 1, 1, 1}, false, FE_DATA_FLOAT);
        }
        if (drop_a_scale) sc.scale_dp = nullptr;
        fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
        opts.attn_scale = 0.088;
        opts.causal_mask = causal;
        opts.deterministic = deterministic;
        return fe_graph_sdpa_fp8_backward(g, q, k, v, o, d_o, stats, &sc, &opts, &out[0], &out[1], &out[2], &out[3],
                                          &out[4], &out[5], &out[6]);
    }
};

TEST_F(SdpaFp8BackwardSupport, CausalIsSupported) {
    fe_graph *g = graph("fp8_backward_causal", FE_DATA_FP8_E4M3);
    fe_tensor *out[7];
    ASSERT_FE_OK(backward(g, 8, 8, FE_CAUSAL_MASK_TOP_LEFT, out));
    for (fe_tensor *t : out) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    expect_supported(g);
}

TEST_F(SdpaFp8BackwardSupport, GqaIsSupported) {
    fe_graph *g = graph("fp8_backward_gqa", FE_DATA_FP8_E4M3);
    fe_tensor *out[7];
    ASSERT_FE_OK(backward(g, 8, 2, FE_CAUSAL_MASK_NONE, out));
    for (fe_tensor *t : out) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    expect_supported(g);
}

TEST_F(SdpaFp8BackwardSupport, ByValueScalesAreRefused) {
    fe_graph *g = graph("fp8_backward_by_value", FE_DATA_FP8_E4M3);
    fe_tensor *q = tensor(g, "q", {1, 2, 64, 128}), *k = tensor(g, "k", {1, 2, 64, 128});
    fe_tensor *v = tensor(g, "v", {1, 2, 64, 128}), *o = tensor(g, "o", {1, 2, 64, 128});
    fe_tensor *d_o = tensor(g, "dO", {1, 2, 64, 128}), *stats = tensor(g, "stats", {1, 2, 64, 1}, false, FE_DATA_FLOAT);
    fe_sdpa_fp8_backward_scales sc = FE_SDPA_FP8_BACKWARD_SCALES_INIT;
    fe_tensor **fields[] = {&sc.descale_q,  &sc.descale_k, &sc.descale_v,  &sc.descale_o, &sc.descale_do, &sc.descale_s,
                            &sc.descale_dp, &sc.scale_s,   &sc.scale_dp,   &sc.scale_dq,  &sc.scale_dk,   &sc.scale_dv};
    for (int i = 0; i < 12; ++i) ASSERT_FE_OK(fe_graph_scalar(g, ("s" + std::to_string(i)).c_str(), 1.0, FE_DATA_FLOAT, fields[i]));
    fe_tensor *out[7];
    EXPECT_EQ(fe_graph_sdpa_fp8_backward(g, q, k, v, o, d_o, stats, &sc, nullptr, &out[0], &out[1], &out[2], &out[3],
                                         &out[4], &out[5], &out[6]),
              FE_STATUS_NOT_SUPPORTED);
    EXPECT_NE(std::string(fe_last_error_message()).find("reads its scales from device tensors"), std::string::npos)
        << fe_last_error_message();
}

TEST_F(SdpaFp8BackwardSupport, NoMaskIsSupported) {
    fe_graph *g = graph("fp8_backward_no_mask", FE_DATA_FP8_E4M3);
    fe_tensor *out[7];
    ASSERT_FE_OK(backward(g, 4, 4, FE_CAUSAL_MASK_NONE, out));
    for (fe_tensor *t : out) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    expect_supported(g);
}

TEST_F(SdpaFp8BackwardSupport, RejectsMissingScalesAndUnsupportedOptions) {
    fe_tensor *out[7];
    EXPECT_EQ(backward(graph("missing", FE_DATA_FP8_E4M3), 2, 2, FE_CAUSAL_MASK_NONE, out, true), FE_STATUS_NULL_POINTER);
    EXPECT_NE(std::string(fe_last_error_message()).find("scales->scale_dp is NULL"), std::string::npos)
        << fe_last_error_message();
}

// Deterministic mode and dropout are taken, and refused at build with the capability table's
// reason on the cuDNN versions and GPUs that have no engine for them.
TEST_F(SdpaFp8BackwardSupport, DeterministicModeIsRefusedAtBuildWithTheReason) {
    fe_graph *g = graph("deterministic", FE_DATA_FP8_E4M3);
    fe_tensor *out[7];
    ASSERT_FE_OK(backward(g, 2, 2, FE_CAUSAL_MASK_NONE, out, false, 1));
    for (fe_tensor *t : out) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    EXPECT_NE(describe(g).find("deterministic"), std::string::npos);
    EXPECT_EQ(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("FP8 attention backward's deterministic mode: refused with cuDNN"));
    EXPECT_TRUE(LastErrorContains("runs one on Blackwell only"));
}

TEST_F(SdpaFp8BackwardSupport, DropoutIsRefusedAtBuildWithTheReason) {
    fe_graph *g = graph("dropout", FE_DATA_FP8_E4M3);
    const int64_t b = 1, h = 2, s = 128, d = 128;
    fe_tensor *q = tensor(g, "q", {b, h, s, d}), *k = tensor(g, "k", {b, h, s, d}), *v = tensor(g, "v", {b, h, s, d});
    fe_tensor *o = tensor(g, "o", {b, h, s, d}), *d_o = tensor(g, "dO", {b, h, s, d});
    fe_tensor *stats = tensor(g, "stats", {b, h, s, 1}, false, FE_DATA_FLOAT);
    fe_sdpa_fp8_backward_scales sc = FE_SDPA_FP8_BACKWARD_SCALES_INIT;
    fe_tensor **fields[] = {&sc.descale_q,  &sc.descale_k, &sc.descale_v, &sc.descale_o, &sc.descale_do, &sc.descale_s,
                            &sc.descale_dp, &sc.scale_s,   &sc.scale_dp,  &sc.scale_dq,  &sc.scale_dk,   &sc.scale_dv};
    for (int i = 0; i < 12; ++i)
        *fields[i] = tensor(g, ("scale_" + std::to_string(i)).c_str(), {1, 1, 1, 1}, false, FE_DATA_FLOAT);
    fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
    opts.dropout_probability = 0.1;
    opts.dropout_seed = tensor(g, "seed", {1, 1, 1, 1}, false, FE_DATA_INT64);
    opts.dropout_offset = tensor(g, "offset", {1, 1, 1, 1}, false, FE_DATA_INT64);
    fe_tensor *out[7];
    ASSERT_FE_OK(fe_graph_sdpa_fp8_backward(g, q, k, v, o, d_o, stats, &sc, &opts, &out[0], &out[1], &out[2], &out[3],
                                            &out[4], &out[5], &out[6]));
    for (fe_tensor *t : out) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    EXPECT_EQ(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("FP8 attention with dropout: refused with cuDNN"));
}

// With no engine for a combination, the build names it: here FP8 backward at head dim 64,
// which cuDNN 9.19 has no Hopper kernel for.
TEST_F(SdpaFp8Support, UnsupportedCombinationIsNamedAtBuild) {
    fe_graph *g = graph("fp8_backward_d64", FE_DATA_FP8_E4M3);
    fe_tensor *q = tensor(g, "q", {2, 4, 128, 64}), *k = tensor(g, "k", {2, 4, 128, 64});
    fe_tensor *v = tensor(g, "v", {2, 4, 128, 64}), *o = tensor(g, "o", {2, 4, 128, 64});
    fe_tensor *d_o = tensor(g, "dO", {2, 4, 128, 64}), *stats = tensor(g, "stats", {2, 4, 128, 1}, false, FE_DATA_FLOAT);
    fe_sdpa_fp8_backward_scales sc = FE_SDPA_FP8_BACKWARD_SCALES_INIT;
    fe_tensor **fields[] = {&sc.descale_q,  &sc.descale_k, &sc.descale_v,  &sc.descale_o, &sc.descale_do, &sc.descale_s,
                            &sc.descale_dp, &sc.scale_s,   &sc.scale_dp,   &sc.scale_dq,  &sc.scale_dk,   &sc.scale_dv};
    for (int i = 0; i < 12; ++i) *fields[i] = tensor(g, ("s" + std::to_string(i)).c_str(), {1, 1, 1, 1}, false, FE_DATA_FLOAT);
    fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
    opts.attn_scale = 0.125;
    fe_tensor *out[7];
    ASSERT_FE_OK(fe_graph_sdpa_fp8_backward(g, q, k, v, o, d_o, stats, &sc, &opts, &out[0], &out[1], &out[2], &out[3],
                                            &out[4], &out[5], &out[6]));
    for (fe_tensor *t : out) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    fe_status s = build(g);
    if (s == FE_OK) GTEST_SKIP() << "this cuDNN has an FP8 backward engine for head dim 64";
    EXPECT_EQ(s, FE_STATUS_NOT_SUPPORTED);
    std::string message = fe_last_error_message();
    EXPECT_NE(message.find("no viable engine config"), std::string::npos) << message;
    EXPECT_NE(message.find("sdpa_fp8_backward 'sdpa_fp8_backward_0': fp8_e4m3, b=2 h_q=4 h_k=4 s_q=128 s_kv=128 d=64"),
              std::string::npos)
        << message;
    std::printf("%s\n", message.c_str());
}

}  // namespace
