// Attention forward: lowered to one operation graph that cuDNN's fused attention engines take
// (runtime-compiled: checked up to support here, executed on the GPU tier).
#include <cmath>

#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

struct SdpaCase {
    const char *name;
    fe_data_type type;
    int64_t b, h_q, h_k, s_q, s_kv, d;
    fe_causal_mask causal;
    bool stats;
    bool bshd;  // [b, s, h, d] memory order (the seed's layout) instead of [b, h, s, d]
};

class SdpaSupport : public Deviceless, public ::testing::WithParamInterface<SdpaCase> {};

std::vector<int64_t> strides_for(const SdpaCase &c, int64_t h, int64_t s) {
    if (c.bshd) return {s * h * c.d, c.d, h * c.d, 1};
    return {h * s * c.d, s * c.d, c.d, 1};
}

TEST_P(SdpaSupport, IsSupported) {
    const SdpaCase &c = GetParam();
    fe_graph *g = graph(c.name, c.type);
    int64_t qd[4] = {c.b, c.h_q, c.s_q, c.d}, kd[4] = {c.b, c.h_k, c.s_kv, c.d};
    std::vector<int64_t> qs = strides_for(c, c.h_q, c.s_q), ks = strides_for(c, c.h_k, c.s_kv);
    fe_tensor *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr, *stats = nullptr;
    ASSERT_FE_OK(fe_graph_tensor(g, "q", 4, qd, qs.data(), FE_DATA_NOT_SET, &q));
    ASSERT_FE_OK(fe_graph_tensor(g, "k", 4, kd, ks.data(), FE_DATA_NOT_SET, &k));
    ASSERT_FE_OK(fe_graph_tensor(g, "v", 4, kd, ks.data(), FE_DATA_NOT_SET, &v));
    fe_sdpa_options o_opts = FE_SDPA_OPTIONS_INIT;
    o_opts.attn_scale = 1.0 / 8.0;
    o_opts.causal_mask = c.causal;
    o_opts.generate_stats = c.stats;
    ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &o_opts, &o, &stats));
    ASSERT_FE_OK(fe_tensor_set_output(o, 1));
    if (c.stats) {
        ASSERT_NE(stats, nullptr);
        ASSERT_FE_OK(fe_tensor_set_output(stats, 1));
    } else {
        EXPECT_EQ(stats, nullptr);
    }
    expect_supported(g);
    int64_t od[4];
    ASSERT_FE_OK(fe_tensor_get_dims(o, od, 4));
    EXPECT_EQ(od[1], c.h_q);
    EXPECT_EQ(od[2], c.s_q);
}

INSTANTIATE_TEST_SUITE_P(
    Deviceless, SdpaSupport,
    ::testing::Values(SdpaCase{"seed_bf16_causal_stats_bshd", FE_DATA_BFLOAT16, 2, 6, 6, 1024, 1024, 64,
                               FE_CAUSAL_MASK_TOP_LEFT, true, true},
                      SdpaCase{"fp16_inference_d128", FE_DATA_HALF, 2, 8, 8, 512, 512, 128, FE_CAUSAL_MASK_NONE,
                               false, false},
                      SdpaCase{"gqa_8to1_bottom_right", FE_DATA_BFLOAT16, 1, 64, 8, 256, 1024, 128,
                               FE_CAUSAL_MASK_BOTTOM_RIGHT, false, false},
                      SdpaCase{"fp16_d128_stats_no_mask", FE_DATA_HALF, 2, 8, 8, 512, 512, 128, FE_CAUSAL_MASK_NONE,
                               true, false},
                      SdpaCase{"decode_one_query", FE_DATA_HALF, 4, 16, 16, 1, 2048, 64, FE_CAUSAL_MASK_NONE,
                               false, true}),
    [](const ::testing::TestParamInfo<SdpaCase> &info) { return std::string(info.param.name); });

TEST_F(Deviceless, SdpaWithBiasWindowAndPaddingIsSupported) {
    fe_graph *g = graph("sdpa_masks", FE_DATA_BFLOAT16);
    fe_tensor *q = tensor(g, "q", {2, 8, 256, 128});
    fe_tensor *k = tensor(g, "k", {2, 8, 256, 128});
    fe_tensor *v = tensor(g, "v", {2, 8, 256, 128});
    fe_tensor *bias = tensor(g, "bias", {1, 8, 256, 256});
    fe_tensor *len_q = tensor(g, "len_q", {2, 1, 1, 1}, false, FE_DATA_INT32);
    fe_tensor *len_kv = tensor(g, "len_kv", {2, 1, 1, 1}, false, FE_DATA_INT32);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    o.sliding_window = 64;
    o.bias = bias;
    o.seq_len_q = len_q;
    o.seq_len_kv = len_kv;
    o.generate_stats = 1;
    fe_tensor *out = nullptr, *stats = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &o, &out, &stats));
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
    ASSERT_FE_OK(fe_tensor_set_output(stats, 1));
    expect_supported(g);
    EXPECT_NE(describe(g).find("window=64"), std::string::npos);
}

TEST_F(Deviceless, SdpaWithAlibiIsSupported) {
    fe_graph *g = graph("sdpa_alibi", FE_DATA_BFLOAT16);
    fe_tensor *q = tensor(g, "q", {2, 8, 256, 64}), *k = tensor(g, "k", {2, 8, 256, 64});
    fe_tensor *v = tensor(g, "v", {2, 8, 256, 64});
    fe_tensor *slopes = tensor(g, "slopes", {1, 8, 1, 1}, false, FE_DATA_FLOAT);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    o.alibi_slopes = slopes;
    fe_tensor *out = nullptr;
    EXPECT_FE_REFUSED(fe_graph_sdpa(g, q, q, q, &o, &out, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "'q' is given as both Q and K");
    EXPECT_FE_REFUSED(fe_graph_sdpa(g, q, k, q, &o, &out, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "'q' is given as both Q and V");
    ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &o, &out, nullptr));
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
    expect_supported(g);
    float values[8];
    ASSERT_FE_OK(fe_alibi_slopes(8, values));
    EXPECT_FLOAT_EQ(values[0], 0.5f);
    EXPECT_FLOAT_EQ(values[7], 1.0f / 256.0f);
    float six[6];
    ASSERT_FE_OK(fe_alibi_slopes(6, six));  // 4 geometric slopes, then 2 interleaved ones
    EXPECT_FLOAT_EQ(six[0], 0.25f);
    EXPECT_FLOAT_EQ(six[4], std::pow(2.0f, -1.0f));
    EXPECT_FE_STATUS(fe_alibi_slopes(0, six), FE_STATUS_INVALID_ARGUMENT);
}

TEST_F(Deviceless, SdpaWithCallersDropoutMaskIsSupported) {
    fe_graph *g = graph("sdpa_dropout", FE_DATA_BFLOAT16);
    fe_tensor *q = tensor(g, "q", {2, 4, 128, 64}), *k = tensor(g, "k", {2, 4, 128, 64});
    fe_tensor *v = tensor(g, "v", {2, 4, 128, 64}), *mask = tensor(g, "mask", {2, 4, 128, 128});
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.generate_stats = 1;
    o.dropout_mask = mask;
    o.dropout_scale = 0;
    fe_tensor *out = nullptr, *stats = nullptr;
    EXPECT_FE_REFUSED(fe_graph_sdpa(g, q, k, v, &o, &out, &stats), FE_STATUS_INVALID_ARGUMENT, "dropout_scale is 0");
    o.dropout_scale = 1.0 / 0.9;
    ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &o, &out, &stats));
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
    ASSERT_FE_OK(fe_tensor_set_output(stats, 1));
    expect_supported(g);
}

TEST_F(Deviceless, SdpaWithDrawnDropoutIsSupported) {
    fe_graph *g = graph("sdpa_philox", FE_DATA_BFLOAT16);
    fe_tensor *q = tensor(g, "q", {2, 4, 128, 64}), *k = tensor(g, "k", {2, 4, 128, 64});
    fe_tensor *v = tensor(g, "v", {2, 4, 128, 64});
    fe_tensor *seed = tensor(g, "seed", {1, 1, 1, 1}, false, FE_DATA_INT64);
    fe_tensor *offset = nullptr;
    ASSERT_FE_OK(fe_graph_scalar(g, "offset", 3, FE_DATA_INT64, &offset));
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.generate_stats = 1;
    o.dropout_probability = 0.1;
    o.dropout_seed = seed;
    fe_tensor *out = nullptr, *stats = nullptr;
    EXPECT_FE_REFUSED(fe_graph_sdpa(g, q, k, v, &o, &out, &stats), FE_STATUS_INVALID_ARGUMENT,
                      "needs dropout_seed and dropout_offset");
    o.dropout_offset = offset;
    o.dropout_probability = 1.0;
    EXPECT_FE_REFUSED(fe_graph_sdpa(g, q, k, v, &o, &out, &stats), FE_STATUS_INVALID_ARGUMENT,
                      "dropout_probability is 1; it must be in (0, 1)");
    o.dropout_probability = 0.1;
    o.output_dropout_mask = 1;
    ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &o, &out, &stats));
    fe_tensor *mask = nullptr;
    ASSERT_FE_OK(fe_graph_tensor_by_name(g, "sdpa_0::DropoutMask", &mask));
    for (fe_tensor *t : {out, stats, mask}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    expect_supported(g);
}

TEST_F(Deviceless, RaggedSdpaIsSupportedAndNeedsAPaddingMask) {
    int64_t dims[4] = {3, 4, 128, 64}, strides[4] = {128 * 4 * 64, 64, 4 * 64, 1};
    {
        fe_graph *bad = graph("ragged_offsets_checked", FE_DATA_BFLOAT16);
        fe_tensor *q = nullptr;
        ASSERT_FE_OK(fe_graph_tensor(bad, "q", 4, dims, strides, FE_DATA_NOT_SET, &q));
        fe_tensor *wrong = tensor(bad, "wrong", {3, 1, 1, 1}, false, FE_DATA_INT64);
        EXPECT_FE_REFUSED(fe_tensor_set_ragged_offset(q, wrong), FE_STATUS_INVALID_ARGUMENT,
                          "offsets 'wrong' is [3,1,1,1]; for 'q' it must be [4, 1, 1, 1]");
    }
    fe_graph *g = graph("sdpa_ragged", FE_DATA_BFLOAT16);
    fe_tensor *q, *k, *v;
    ASSERT_FE_OK(fe_graph_tensor(g, "q", 4, dims, strides, FE_DATA_NOT_SET, &q));
    ASSERT_FE_OK(fe_graph_tensor(g, "k", 4, dims, strides, FE_DATA_NOT_SET, &k));
    ASSERT_FE_OK(fe_graph_tensor(g, "v", 4, dims, strides, FE_DATA_NOT_SET, &v));
    fe_tensor *offsets = tensor(g, "offsets", {4, 1, 1, 1}, false, FE_DATA_INT64);
    for (fe_tensor *t : {q, k, v}) ASSERT_FE_OK(fe_tensor_set_ragged_offset(t, offsets));
    fe_tensor *out = nullptr;
    EXPECT_FE_REFUSED(fe_graph_sdpa(g, q, k, v, nullptr, &out, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "needs a padding mask");
    fe_tensor *lq = tensor(g, "lq", {3, 1, 1, 1}, false, FE_DATA_INT32);
    fe_tensor *lkv = tensor(g, "lkv", {3, 1, 1, 1}, false, FE_DATA_INT32);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.seq_len_q = lq;
    o.seq_len_kv = lkv;
    ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &o, &out, nullptr));
    ASSERT_FE_OK(fe_tensor_set_ragged_offset(out, offsets));
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
    expect_supported(g);
    EXPECT_NE(describe(g).find("ragged_offset=offsets"), std::string::npos);
}

TEST_F(Deviceless, PagedKvCacheSdpaIsSupported) {
    fe_graph *g = graph("sdpa_paged", FE_DATA_BFLOAT16);
    fe_tensor *q = tensor(g, "q", {2, 4, 1, 128}), *kc = tensor(g, "k_pages", {64, 4, 64, 128});
    fe_tensor *vc = tensor(g, "v_pages", {64, 4, 64, 128});
    fe_tensor *ptk = tensor(g, "ptk", {2, 1, 32, 1}, false, FE_DATA_INT32);
    fe_tensor *ptv = tensor(g, "ptv", {2, 1, 32, 1}, false, FE_DATA_INT32);
    fe_tensor *lq = tensor(g, "lq", {2, 1, 1, 1}, false, FE_DATA_INT32);
    fe_tensor *lkv = tensor(g, "lkv", {2, 1, 1, 1}, false, FE_DATA_INT32);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.088;
    o.page_table_k = ptk;
    o.page_table_v = ptv;
    fe_tensor *out = nullptr;
    EXPECT_FE_REFUSED(fe_graph_sdpa(g, q, kc, vc, &o, &out, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "need max_seq_len_kv");
    o.max_seq_len_kv = 4096;
    EXPECT_FE_REFUSED(fe_graph_sdpa(g, q, kc, vc, &o, &out, nullptr), FE_STATUS_INVALID_ARGUMENT, "pages * 64 >= 4096");
    o.max_seq_len_kv = 2048;
    EXPECT_FE_REFUSED(fe_graph_sdpa(g, q, kc, vc, &o, &out, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "need a padding mask");
    o.seq_len_q = lq;
    o.seq_len_kv = lkv;
    ASSERT_FE_OK(fe_graph_sdpa(g, q, kc, vc, &o, &out, nullptr));
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
    expect_supported(g);
}

TEST_F(Deviceless, SdpaRejectsBadMaskInputs) {
    fe_graph *g = graph("bad_masks", FE_DATA_HALF);
    fe_tensor *q = tensor(g, "q", {2, 4, 64, 64}), *k = tensor(g, "k", {2, 4, 64, 64}), *v = tensor(g, "v", {2, 4, 64, 64});
    fe_tensor *bias = tensor(g, "bias", {1, 4, 64, 32});
    fe_tensor *len = tensor(g, "len", {2, 1, 1, 1}, false, FE_DATA_INT32);
    fe_tensor *out = nullptr;
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.bias = bias;
    EXPECT_FE_REFUSED(fe_graph_sdpa(g, q, k, v, &o, &out, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "bias 'bias' is [1,4,64,32]; it must be [1 or 2, 1 or 4, 64, 64]");
    o = FE_SDPA_OPTIONS_INIT;
    o.seq_len_q = len;
    EXPECT_FE_REFUSED(fe_graph_sdpa(g, q, k, v, &o, &out, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "needs both seq_len_q and seq_len_kv");
    o = FE_SDPA_OPTIONS_INIT;
    o.sliding_window = -3;
    EXPECT_FE_STATUS(fe_graph_sdpa(g, q, k, v, &o, &out, nullptr), FE_STATUS_INVALID_ARGUMENT);
    o = FE_SDPA_OPTIONS_INIT;
    o.bias = tensor(g, "fp8_bias", {1, 4, 64, 64}, false, FE_DATA_FP8_E4M3);
    EXPECT_FE_STATUS(fe_graph_sdpa(g, q, k, v, &o, &out, nullptr), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("bias 'fp8_bias' is fp8_e4m3; attention adds a float, half or bfloat16 bias"))
        << fe_last_error_message();
}

TEST_F(Deviceless, SdpaRejectsMismatchedShapes) {
    fe_graph *g = graph("bad_sdpa", FE_DATA_HALF);
    fe_tensor *q = tensor(g, "q", {2, 8, 64, 64});
    fe_tensor *k = tensor(g, "k", {2, 3, 64, 64});
    fe_tensor *v = tensor(g, "v", {2, 3, 64, 64});
    fe_tensor *o = nullptr;
    EXPECT_FE_REFUSED(fe_graph_sdpa(g, q, k, v, nullptr, &o, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_sdpa: Q has 8 heads, not a multiple of K's 3");
    fe_tensor *k2 = tensor(g, "k2", {2, 8, 64, 32});
    EXPECT_FE_REFUSED(fe_graph_sdpa(g, q, k2, v, nullptr, &o, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "Q has head dim 64 but K has 32");
    fe_sdpa_options opts = FE_SDPA_OPTIONS_INIT;
    opts.generate_stats = 1;
    EXPECT_FE_STATUS(fe_graph_sdpa(g, q, q, q, &opts, &o, nullptr), FE_STATUS_NULL_POINTER);
}

TEST_F(Deviceless, SdpaInFloatIsRefusedAtBuildWithTheReason) {
    fe_graph *g = graph("fp32_sdpa", FE_DATA_FLOAT);
    fe_tensor *q = tensor(g, "q", {1, 2, 64, 64});
    fe_tensor *k = tensor(g, "k", {1, 2, 64, 64});
    fe_tensor *v = tensor(g, "v", {1, 2, 64, 64});
    fe_tensor *o = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, nullptr, &o, nullptr));
    ASSERT_FE_OK(fe_tensor_set_output(o, 1));
    EXPECT_FE_REFUSED(build(g), FE_STATUS_NOT_SUPPORTED, "attention takes half or bfloat16 tensors; 'q' is float");
}

}  // namespace
