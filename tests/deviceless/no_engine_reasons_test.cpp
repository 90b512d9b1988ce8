// When cuDNN has no engine for a graph, the report names the observed capability entry that
// likely explains it (Gate::observed entries: they never refuse a graph). Each family's predicate
// is checked on the caller-side tensors it judges, both the case it names and a neighbouring one
// it must not name; where cuDNN's heuristics refuse the graph without a GPU, the whole report is
// checked too.
#include <optional>

#include "deviceless_support.hpp"
#include "ops/no_engine_causes.hpp"

using cudnnfe_test::Deviceless;
using fe::Feature;

namespace {

std::vector<int64_t> packed(const std::vector<int64_t> &dims) {
    std::vector<int64_t> s(dims.size());
    EXPECT_FE_OK(fe_strides_packed(dims.size(), dims.data(), s.data()));
    return s;
}

std::vector<int64_t> channels_last(const std::vector<int64_t> &dims) {
    std::vector<int64_t> s(dims.size());
    EXPECT_FE_OK(fe_strides_channels_last(dims.size(), dims.data(), s.data()));
    return s;
}

// A caller-side tensor as the hooks see it: a graph input unless marked as an output.
fe_tensor make(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides,
               fe_data_type type = FE_DATA_HALF, bool output = false) {
    fe_tensor t;
    t.dims = dims;
    t.strides = strides;
    t.data_type = type;
    t.is_output = output;
    return t;
}

// ---- Pointwise ----

TEST(NoEngineCauses, PointwiseRank4OneChannel) {
    const std::vector<int64_t> dims = {8, 1, 12, 10};
    fe_tensor x = make(dims, channels_last(dims)), y = make(dims, channels_last(dims), FE_DATA_HALF, true);
    EXPECT_EQ(fe::pointwise_no_engine_cause({&x, &y}), Feature::pointwise_rank4_one_channel);
    // More than one channel, every operand packed channels-last: nothing named but the envelope.
    const std::vector<int64_t> four = {8, 4, 12, 10};
    fe_tensor x4 = make(four, channels_last(four)), y4 = make(four, channels_last(four), FE_DATA_HALF, true);
    EXPECT_EQ(fe::pointwise_no_engine_cause({&x4, &y4}), Feature::pointwise_engine_envelope);
}

TEST(NoEngineCauses, PointwiseRank4Layout) {
    const std::vector<int64_t> dims = {4, 8, 6, 6};
    fe_tensor x = make(dims, packed(dims)), y = make(dims, channels_last(dims), FE_DATA_HALF, true);
    EXPECT_EQ(fe::pointwise_no_engine_cause({&x, &y}), Feature::pointwise_rank4_layout);
    // An odd stride on a unit dim is not packed channels-last either.
    const std::vector<int64_t> unit = {4, 8, 1, 6};
    std::vector<int64_t> odd = channels_last(unit);
    odd[2] = 7;
    fe_tensor u = make(unit, odd), v = make(unit, channels_last(unit), FE_DATA_HALF, true);
    EXPECT_EQ(fe::pointwise_no_engine_cause({&u, &v}), Feature::pointwise_rank4_layout);
    // A broadcast scalar says nothing about a layout.
    fe_tensor s = make({1, 1, 1, 1}, {5, 3, 2, 1}), x2 = make(dims, channels_last(dims));
    EXPECT_EQ(fe::pointwise_no_engine_cause({&s, &x2, &y}), Feature::pointwise_engine_envelope);
}

TEST(NoEngineCauses, PointwiseRank3Layout) {
    fe_tensor x = make({16, 24}, {1, 16}, FE_DATA_FLOAT), y = make({16, 24}, {24, 1}, FE_DATA_FLOAT, true);
    EXPECT_EQ(fe::pointwise_no_engine_cause({&x, &y}), Feature::pointwise_rank3_layout);
    // Padded rows keep the row-major order.
    fe_tensor padded = make({16, 24}, {32, 1}, FE_DATA_FLOAT);
    EXPECT_EQ(fe::pointwise_no_engine_cause({&padded, &y}), Feature::pointwise_engine_envelope);
}

// ---- Convolution ----

TEST(NoEngineCauses, ConvHalfFloatResult) {
    const fe_conv_options o = FE_CONV_OPTIONS_INIT;
    const std::vector<int64_t> xd = {2, 27, 60, 60}, dyd = {2, 28, 58, 58}, wd = {28, 27, 3, 3};
    fe_tensor x = make(xd, channels_last(xd)), dy = make(dyd, channels_last(dyd));
    fe_tensor dw = make(wd, channels_last(wd), FE_DATA_FLOAT, true);
    EXPECT_EQ(fe::conv_no_engine_cause(&x, &dy, &dw, o, 2, false, true, {&x, &dy, &dw}, false, false),
              Feature::conv_half_float_result);
    fe_tensor dw_half = make(wd, channels_last(wd), FE_DATA_HALF, true);
    EXPECT_EQ(fe::conv_no_engine_cause(&x, &dy, &dw_half, o, 2, false, true, {&x, &dy, &dw_half}, false, false),
              std::nullopt);
}

TEST(NoEngineCauses, ConvDgradDreluLayout) {
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    const std::vector<int64_t> dyd = {1, 96, 10, 10}, xd = {1, 56, 12, 12}, wd = {96, 56, 3, 3};
    for (bool nhwc : {false, true}) {
        SCOPED_TRACE(nhwc);
        auto layout = [&](const std::vector<int64_t> &d) { return nhwc ? channels_last(d) : packed(d); };
        fe_tensor dy = make(dyd, layout(dyd), FE_DATA_BFLOAT16), w = make(wd, layout(wd), FE_DATA_BFLOAT16);
        fe_tensor x = make(xd, layout(xd), FE_DATA_BFLOAT16);  // ReLU backward's x
        fe_tensor dx = make(xd, layout(xd), FE_DATA_BFLOAT16, true);
        o.mode = FE_CONV_MODE_CROSS_CORRELATION;
        EXPECT_EQ(fe::conv_no_engine_cause(&dx, &dy, &dx, o, 2, true, false, {&dy, &w, &x, &dx}, true, true),
                  nhwc ? Feature::conv_engine_envelope : Feature::conv_dgrad_drelu_layout);
        o.mode = FE_CONV_MODE_CONVOLUTION;
        EXPECT_EQ(fe::conv_no_engine_cause(&dx, &dy, &dx, o, 2, true, false, {&dy, &w, &x, &dx}, true, true),
                  Feature::conv_dgrad_drelu_layout);
    }
}

TEST(NoEngineCauses, ConvWgradImagePrologue) {
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    o.pre_padding[0] = o.pre_padding[1] = o.post_padding[0] = o.post_padding[1] = 1;
    const std::vector<int64_t> xd = {2, 24, 10, 10}, wd = {24, 24, 3, 3}, cd = {1, 24, 1, 1};
    for (fe_data_type type : {FE_DATA_HALF, FE_DATA_BFLOAT16}) {
        SCOPED_TRACE(type);
        fe_tensor x = make(xd, channels_last(xd), type), dy = make(xd, channels_last(xd), type);
        fe_tensor scale = make(cd, packed(cd), type), bias = make(cd, packed(cd), type);
        fe_tensor dw = make(wd, channels_last(wd), type, true);
        fe_tensor relu = make(xd, channels_last(xd), type);  // the image the graph computes
        EXPECT_EQ(fe::conv_no_engine_cause(&relu, &dy, &dw, o, 2, false, true, {&x, &dy, &scale, &bias, &dw}, true,
                                           true),
                  type == FE_DATA_HALF ? Feature::conv_engine_envelope : Feature::conv_wgrad_image_prologue);
    }
}

TEST(NoEngineCauses, ConvFusedNchwFloatBias) {
    const fe_conv_options o = FE_CONV_OPTIONS_INIT;
    const std::vector<int64_t> xd = {2, 16, 9, 9}, wd = {32, 16, 3, 3}, yd = {2, 32, 7, 7}, bd = {1, 32, 1, 1};
    for (bool nhwc : {false, true}) {
        SCOPED_TRACE(nhwc);
        auto layout = [&](const std::vector<int64_t> &d) { return nhwc ? channels_last(d) : packed(d); };
        fe_tensor x = make(xd, layout(xd)), w = make(wd, layout(wd)), bias = make(bd, packed(bd), FE_DATA_FLOAT);
        fe_tensor y = make(yd, layout(yd), FE_DATA_HALF, true);
        EXPECT_EQ(fe::conv_no_engine_cause(&x, &w, &y, o, 2, false, false, {&x, &w, &bias, &y}, true, false),
                  nhwc ? Feature::conv_engine_envelope : Feature::conv_fused_nchw_float_bias);
    }
}

// ---- Reduction ----

TEST(NoEngineCauses, Reduction) {
    const std::vector<int64_t> r3 = {16, 21, 10}, r4 = {2, 8, 4, 4};
    fe_tensor x3 = make(r3, packed(r3), FE_DATA_FLOAT);
    EXPECT_EQ(fe::reduction_no_engine_cause(&x3), Feature::reduction_rank);
    fe_tensor nchw = make(r4, packed(r4), FE_DATA_FLOAT), nhwc = make(r4, channels_last(r4), FE_DATA_FLOAT);
    EXPECT_EQ(fe::reduction_no_engine_cause(&nchw), Feature::reduction_layout);
    EXPECT_EQ(fe::reduction_no_engine_cause(&nhwc), Feature::reduction_engine_envelope);
}

// ---- Normalization ----

TEST(NoEngineCauses, NormBackwardSingleRowWidenedToAdaptiveLayerNorm) {
    using fe::NormKind;
    fe_tensor x1 = make({1, 1024}, packed({1, 1024})), s1 = make({1, 1024}, packed({1, 1024}));
    EXPECT_EQ(fe::norm_backward_no_engine_cause(NormKind::layer_or_rms, &x1, &s1), Feature::norm_backward_single_row);
    EXPECT_EQ(fe::norm_backward_no_engine_cause(NormKind::adaptive_layer, &x1, &s1),
              Feature::norm_backward_single_row);
    // Adaptive layernorm's scale is per sample: two samples are two rows though scale's dim 0 is 2.
    fe_tensor x2 = make({2, 1024}, packed({2, 1024})), s2 = make({2, 1024}, packed({2, 1024}));
    EXPECT_EQ(fe::norm_backward_no_engine_cause(NormKind::adaptive_layer, &x2, &s2), Feature::norm_engine_envelope);
}

TEST(NoEngineCauses, NormBackwardLayout) {
    using fe::NormKind;
    fe_tensor x = make({4, 6, 10}, {60, 1, 6}, FE_DATA_FLOAT), s = make({1, 6, 10}, {60, 10, 1}, FE_DATA_FLOAT);
    EXPECT_EQ(fe::norm_backward_no_engine_cause(NormKind::layer_or_rms, &x, &s), Feature::norm_backward_layout);
    fe_tensor row_major = make({4, 6, 10}, packed({4, 6, 10}), FE_DATA_FLOAT);
    EXPECT_EQ(fe::norm_backward_no_engine_cause(NormKind::layer_or_rms, &row_major, &s),
              Feature::norm_engine_envelope);
}

TEST(NoEngineCauses, Batchnorm) {
    using fe::NormKind;
    const std::vector<int64_t> c10 = {7, 10, 3, 4}, c16 = {7, 16, 3, 4}, s10 = {1, 10, 1, 1}, s16 = {1, 16, 1, 1};
    fe_tensor x10 = make(c10, channels_last(c10), FE_DATA_FLOAT), x16 = make(c16, channels_last(c16), FE_DATA_FLOAT);
    fe_tensor sc10 = make(s10, packed(s10), FE_DATA_FLOAT), sc16 = make(s16, packed(s16), FE_DATA_FLOAT);
    EXPECT_EQ(fe::batchnorm_no_engine_cause(&x10, false), Feature::batchnorm_unaligned_channels);
    EXPECT_EQ(fe::batchnorm_no_engine_cause(&x16, false), Feature::norm_engine_envelope);
    EXPECT_EQ(fe::norm_backward_no_engine_cause(NormKind::batch, &x10, &sc10), Feature::batchnorm_unaligned_channels);
    EXPECT_EQ(fe::norm_backward_no_engine_cause(NormKind::batch, &x16, &sc16), Feature::norm_engine_envelope);
    EXPECT_EQ(fe::norm_backward_no_engine_cause(NormKind::instance, &x10, &sc10), Feature::norm_engine_envelope);
    // The inference op's pointwise chain: channels-last x only.
    const std::vector<int64_t> inf = {4, 16, 5, 5};
    fe_tensor nchw = make(inf, packed(inf)), nhwc = make(inf, channels_last(inf));
    EXPECT_EQ(fe::batchnorm_no_engine_cause(&nchw, true), Feature::batchnorm_inference_layout);
    EXPECT_EQ(fe::batchnorm_no_engine_cause(&nhwc, true), Feature::norm_engine_envelope);
}

// ---- Matmul, pooling, MoE ----

TEST(NoEngineCauses, MatmulTwoBatchDims) {
    const std::vector<int64_t> a4 = {3, 4, 26, 8}, b4 = {3, 4, 8, 16}, a3 = {12, 26, 8}, b3 = {12, 8, 16};
    fe_tensor a = make(a4, packed(a4), FE_DATA_BFLOAT16), b = make(b4, packed(b4), FE_DATA_BFLOAT16);
    EXPECT_EQ(fe::matmul_no_engine_cause(&a, &b), Feature::matmul_two_batch_dims);
    fe_tensor a_3 = make(a3, packed(a3), FE_DATA_BFLOAT16), b_3 = make(b3, packed(b3), FE_DATA_BFLOAT16);
    EXPECT_EQ(fe::matmul_no_engine_cause(&a_3, &b_3), Feature::matmul_engine_envelope);
}

TEST(NoEngineCauses, PoolingEdgePadding) {
    fe_resample_options o = FE_RESAMPLE_OPTIONS_INIT;
    o.padding_mode = FE_RESAMPLE_PADDING_EDGE;
    EXPECT_EQ(fe::pooling_no_engine_cause(o), Feature::resample_edge_padding);
    o.padding_mode = FE_RESAMPLE_PADDING_AUTO;
    EXPECT_EQ(fe::pooling_no_engine_cause(o), Feature::pooling_engine_envelope);
}

TEST(NoEngineCauses, MoeWeightNContiguous) {
    const int64_t k = 64, n = 32;
    fe_tensor n_contiguous = make({3, k, n}, {k * n, n, 1}), k_contiguous = make({3, k, n}, {k * n, 1, k});
    EXPECT_EQ(fe::moe_weight_no_engine_cause(&n_contiguous), Feature::moe_weight_n_contiguous);
    EXPECT_EQ(fe::moe_weight_no_engine_cause(&k_contiguous), std::nullopt);
}

// ---- Whole reports, where the heuristics refuse without a GPU ----

// Builds g for the H100 description and returns the status of the first step that fails.
fe_status build_to_support(fe_graph *g, const std::string &json) {
    fe_status s = fe_graph_set_device_properties(g, json.c_str());
    if (s == FE_OK) s = fe_graph_build_operation_graph(g, nullptr);
    if (s == FE_OK) s = fe_graph_create_execution_plans(g, nullptr, 0);
    if (s == FE_OK) s = fe_graph_check_support(g);
    return s;
}

// An adaptive layernorm backward over one sample has no engine: the report says so with the
// widened single-row entry.
TEST_F(Deviceless, AdaLayerNormBackwardOverOneRowSaysWhy) {
    fe_graph *g = graph("ada_one_row_backward", FE_DATA_BFLOAT16);
    fe_tensor *x = tensor(g, "x", {1, 1024}), *dy = tensor(g, "dy", {1, 1024});
    fe_tensor *s = tensor(g, "s", {1, 1024}, false, FE_DATA_FLOAT);
    fe_tensor *mean = tensor(g, "mean", {1, 1}, false, FE_DATA_FLOAT);
    fe_tensor *inv = tensor(g, "inv", {1, 1}, false, FE_DATA_FLOAT);
    fe_tensor *dx = nullptr, *ds = nullptr, *db = nullptr;
    ASSERT_FE_OK(fe_graph_adalayernorm_backward(g, dy, x, s, mean, inv, nullptr, &dx, &ds, &db));
    for (fe_tensor *t : {dx, ds, db}) {
        if (!t) continue;
        ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    }
    const fe_status status = build_to_support(g, json_);
    if (status == FE_OK) GTEST_SKIP() << "cuDNN's heuristics list an engine for it without a GPU";
    ASSERT_EQ(status, FE_STATUS_NOT_SUPPORTED) << fe_last_error_message();
    EXPECT_TRUE(LastErrorContains("adaptive layernorm backward")) << fe_last_error_message();
    EXPECT_TRUE(LastErrorContains("take the first row of dx")) << fe_last_error_message();
}

class NoEngineReport : public Deviceless {
  protected:
    // FP8 attention's scales, as device tensors of one element.
    std::vector<fe_tensor *> fp8_scales(fe_graph *g, int count) {
        std::vector<fe_tensor *> scales;
        for (int i = 0; i < count; ++i)
            scales.push_back(tensor(g, ("scale_" + std::to_string(i)).c_str(), {1, 1, 1, 1}, false, FE_DATA_FLOAT));
        return scales;
    }
};

// One query row (a decoding step) has no FP8 forward engine on Hopper; two rows have one.
TEST_F(NoEngineReport, Fp8AttentionOverOneQueryRowSaysWhy) {
    for (int64_t s_q : {1, 2}) {
        SCOPED_TRACE(s_q);
        fe_graph *g = graph(s_q == 1 ? "fp8_decode" : "fp8_two_rows", FE_DATA_FP8_E4M3);
        fe_tensor *q = tensor(g, "q", {2, 4, s_q, 128}), *k = tensor(g, "k", {2, 4, 64, 128});
        fe_tensor *v = tensor(g, "v", {2, 4, 64, 128});
        std::vector<fe_tensor *> sc = fp8_scales(g, 6);
        fe_sdpa_fp8_scales s = FE_SDPA_FP8_SCALES_INIT;
        s.descale_q = sc[0], s.descale_k = sc[1], s.descale_v = sc[2], s.descale_s = sc[3], s.scale_s = sc[4],
        s.scale_o = sc[5];
        fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
        o.attn_scale = 0.088;
        fe_tensor *out, *amax_s, *amax_o;
        ASSERT_FE_OK(fe_graph_sdpa_fp8(g, q, k, v, &s, &o, &out, nullptr, &amax_s, &amax_o));
        for (fe_tensor *t : {out, amax_s, amax_o}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        const fe_status status = build_to_support(g, json_);
        if (s_q == 2) {
            EXPECT_FE_OK(status);
            continue;
        }
        if (status == FE_OK) GTEST_SKIP() << "cuDNN's heuristics list an engine for it without a GPU";
        ASSERT_EQ(status, FE_STATUS_NOT_SUPPORTED) << fe_last_error_message();
        EXPECT_TRUE(LastErrorContains("single query row (s_q = 1)")) << fe_last_error_message();
        EXPECT_TRUE(LastErrorContains("decode in half or bfloat16")) << fe_last_error_message();
    }
}

// The FP8 backward has engines for head dims of 128 only.
TEST_F(NoEngineReport, Fp8AttentionBackwardHeadDimSaysWhy) {
    for (int64_t d : {64, 128}) {
        SCOPED_TRACE(d);
        fe_graph *g = graph(d == 64 ? "fp8_backward_d64" : "fp8_backward_d128", FE_DATA_FP8_E4M3);
        const std::vector<int64_t> dims = {2, 4, 128, d};
        fe_tensor *q = tensor(g, "q", dims), *k = tensor(g, "k", dims), *v = tensor(g, "v", dims);
        fe_tensor *o = tensor(g, "o", dims), *d_o = tensor(g, "do", dims);
        fe_tensor *stats = tensor(g, "stats", {2, 4, 128, 1}, false, FE_DATA_FLOAT);
        std::vector<fe_tensor *> sc = fp8_scales(g, 12);
        fe_sdpa_fp8_backward_scales s = FE_SDPA_FP8_BACKWARD_SCALES_INIT;
        fe_tensor **fields[12] = {&s.descale_q, &s.descale_k, &s.descale_v, &s.descale_o, &s.descale_do, &s.descale_s,
                                  &s.descale_dp, &s.scale_s, &s.scale_dp, &s.scale_dq, &s.scale_dk, &s.scale_dv};
        for (int i = 0; i < 12; ++i) *fields[i] = sc[static_cast<size_t>(i)];
        fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
        opts.attn_scale = 0.125;
        fe_tensor *out[7];
        ASSERT_FE_OK(fe_graph_sdpa_fp8_backward(g, q, k, v, o, d_o, stats, &s, &opts, &out[0], &out[1], &out[2],
                                                &out[3], &out[4], &out[5], &out[6]));
        for (fe_tensor *t : out) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        const fe_status status = build_to_support(g, json_);
        if (d == 128) {
            EXPECT_FE_OK(status);
            continue;
        }
        if (status == FE_OK) GTEST_SKIP() << "cuDNN's heuristics list an engine for it without a GPU";
        ASSERT_EQ(status, FE_STATUS_NOT_SUPPORTED) << fe_last_error_message();
        EXPECT_TRUE(LastErrorContains("head dims of 128 only")) << fe_last_error_message();
    }
}

// A float layernorm with a pointwise epilogue that cuDNN refuses names the epilogue's entry,
// whichever step refuses it (the heuristics or the operation graph's finalization).
TEST_F(NoEngineReport, FloatNormEpilogueSaysWhy) {
    fe_graph *g = graph("rmsnorm_gate_residual", FE_DATA_FLOAT);
    fe_tensor *x = tensor(g, "x", {5, 166, 131}), *scale = tensor(g, "scale", {1, 1, 131});
    fe_tensor *gate = tensor(g, "gate", {5, 166, 131}), *residual = tensor(g, "residual", {5, 166, 131});
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    o.phase = FE_NORM_PHASE_INFERENCE;
    fe_tensor *y = nullptr, *inv = nullptr;
    ASSERT_FE_OK(fe_graph_rmsnorm(g, x, scale, nullptr, &o, &y, &inv));
    fe_tensor *gated = nullptr, *sum = nullptr;
    ASSERT_FE_OK(fe_graph_mul(g, y, gate, nullptr, &gated));
    ASSERT_FE_OK(fe_graph_add(g, gated, residual, nullptr, &sum));
    ASSERT_FE_OK(fe_tensor_set_output(sum, 1));
    const fe_status status = build_to_support(g, json_);
    if (status == FE_OK) GTEST_SKIP() << "cuDNN's heuristics list an engine for it without a GPU";
    ASSERT_EQ(status, FE_STATUS_NOT_SUPPORTED) << fe_last_error_message();
    EXPECT_TRUE(LastErrorContains("run the pointwise operations in a graph of their own")) << fe_last_error_message();
}

}  // namespace
