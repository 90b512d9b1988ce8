// Refusals made from the conformance runs of seeds 14 to 22 on an H200: each refused graph names
// the capability table's reason, and the nearest graph the runs found right still lowers. (The
// changes of those runs that are not refusals, single-pixel convolution results described
// channels-last, FP8 matmuls kept off cuBLASLt's engines and adaptive layernorm inference with a
// shared scale lowered as layernorm, are tested on the GPU: ConvFusion.SinglePixelResultGivenNchwStrides,
// MatmulFp8Numerics' fp8_tn cases and the conformance suite's norm family.)
#include <string>

#include "known_bad_support.hpp"

using cudnnfe_test::channels_last_strides;
using cudnnfe_test::layout_strides;
using cudnnfe_test::matmul_output;
using cudnnfe_test::packed_strides;
using cudnnfe_test::set_output_by_name;
using cudnnfe_test::strided;

namespace {

using ConformanceRefusals = cudnnfe_test::KnownBadRefusal;

// The epilogue of a fused convolution result y: + residual, + bias, ReLU, marked as the output.
void add_bias_relu(fe_graph *g, fe_tensor *y, fe_tensor *residual, fe_tensor *bias) {
    fe_tensor *sum = nullptr, *biased = nullptr, *out = nullptr;
    ASSERT_FE_OK(fe_graph_add(g, y, residual, nullptr, &sum));
    ASSERT_FE_OK(fe_graph_bias(g, sum, bias, nullptr, &biased));
    ASSERT_FE_OK(fe_graph_relu(g, biased, nullptr, &out));
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
}

// conv + bias + residual + relu of a 3x3x3 NCHW image into a single pixel: refused in half, taken
// in float and with a channels-last half image.
TEST_F(ConformanceRefusals, Fused3dNchwConvolutionIntoASinglePixel) {
    struct Form {
        const char *name;
        fe_data_type type;
        bool channels_last;
        bool refused;
    };
    for (const Form &f : {Form{"half NCHW", FE_DATA_HALF, false, true}, Form{"float NCHW", FE_DATA_FLOAT, false, false},
                          Form{"half NDHWC", FE_DATA_HALF, true, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("conv3d_pixel", f.type);
        const std::vector<int64_t> dx = {2, 40, 3, 3, 3}, dw = {16, 40, 3, 3, 3}, dy = {2, 16, 1, 1, 1};
        auto layout = [&](const std::vector<int64_t> &d) { return layout_strides(f.channels_last, d); };
        fe_tensor *x = strided(g, "x", dx, layout(dx)), *w = strided(g, "w", dw, layout(dw));
        fe_tensor *residual = strided(g, "residual", dy, layout(dy));
        fe_tensor *bias = strided(g, "bias", {1, 16, 1, 1, 1}, packed_strides({1, 16, 1, 1, 1}));
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        const int64_t stride[3] = {2, 2, 2};
        ASSERT_FE_OK(fe_conv_options_set_stride(&o, 3, stride));
        fe_tensor *y = nullptr;
        ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        add_bias_relu(g, y, residual, bias);
        expect_refused_or_lowered(g, f.refused, "whose result is a single pixel");
    }
}

// int8 B [5, K, 544] stored N-major (rows K elements apart) widened for a bfloat16 A: refused
// with K 414 or 35, into a bfloat16 or a float result alike; K = 32 is taken.
TEST_F(ConformanceRefusals, MatmulWideningInt8WithUnalignedRowsAndALongK) {
    struct Form {
        int64_t k;
        fe_data_type c;
        bool refused;
    };
    for (const Form &f : {Form{414, FE_DATA_BFLOAT16, true}, Form{35, FE_DATA_FLOAT, true},
                          Form{32 - 2, FE_DATA_BFLOAT16, false}}) {
        SCOPED_TRACE(std::to_string(f.k) + (f.c == FE_DATA_FLOAT ? " float C" : " bfloat16 C"));
        fe_graph *g = graph("matmul_int8", FE_DATA_NOT_SET);
        const std::vector<int64_t> da = {5, 10, f.k}, db = {5, f.k, 544};
        const std::vector<int64_t> sb = {f.k * 544, 1, f.k};  // N outer of K: rows K elements apart
        fe_tensor *a = strided(g, "a", da, packed_strides(da), FE_DATA_BFLOAT16);
        fe_tensor *b = strided(g, "b", db, sb, FE_DATA_INT8);
        matmul_output(g, a, b, f.c);
        expect_refused_or_lowered(g, f.refused, "widens an int8 operand");
    }
}

// A pointwise result [32, 1, 2] with strides [34, 2, 1]: refused; [34, 34, 1] and packed taken.
TEST_F(ConformanceRefusals, Rank3PointwiseResultWithAGapAfterItsUnitDim) {
    for (int64_t unit_stride : {2, 34, 0}) {
        SCOPED_TRACE(unit_stride);
        fe_graph *g = graph("pointwise_unit_gap", FE_DATA_FLOAT);
        fe_tensor *x = strided(g, "x", {32, 1, 2}, packed_strides({32, 1, 2})), *y = nullptr;
        ASSERT_FE_OK(fe_graph_relu(g, x, nullptr, &y));
        const int64_t strides[3] = {unit_stride ? 34 : 2, unit_stride ? unit_stride : 2, 1};
        ASSERT_FE_OK(fe_tensor_set_strides(y, 3, strides));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, unit_stride == 2, "with a gap after its unit dim");
    }
}

struct Backward {
    fe_tensor *q, *k, *v, *o, *d_o, *stats;
};

// Attention backward inputs: b 1, h_q heads over h_k, s_q queries over s_kv keys, d_qk over d_v.
Backward backward_inputs(fe_graph *g, int64_t h_q, int64_t h_k, int64_t d_qk, int64_t d_v, int64_t s_q = 2,
                         int64_t s_kv = 64) {
    auto make = [g](const char *name, const std::vector<int64_t> &d, fe_data_type type) {
        return strided(g, name, d, packed_strides(d), type);
    };
    return {make("q", {1, h_q, s_q, d_qk}, FE_DATA_NOT_SET), make("k", {1, h_k, s_kv, d_qk}, FE_DATA_NOT_SET),
            make("v", {1, h_k, s_kv, d_v}, FE_DATA_NOT_SET),    make("o", {1, h_q, s_q, d_v}, FE_DATA_NOT_SET),
            make("dO", {1, h_q, s_q, d_v}, FE_DATA_NOT_SET),    make("stats", {1, h_q, s_q, 1}, FE_DATA_FLOAT)};
}

// dSink with dropout drawn by cuDNN: refused; dSink alone and dropout alone are taken.
TEST_F(ConformanceRefusals, AttentionBackwardWithDsinkAndDropout) {
    for (int form = 0; form < 3; ++form) {
        const bool dsink = form != 2, dropout = form != 1;
        SCOPED_TRACE(std::string(dsink ? "dSink" : "") + (dropout ? " dropout" : ""));
        fe_graph *g = graph("dsink_dropout", FE_DATA_HALF);
        Backward in = backward_inputs(g, 4, 4, 64, 64);
        fe_sdpa_backward_options o = FE_SDPA_BACKWARD_OPTIONS_INIT;
        o.attn_scale = 0.125;
        if (dsink) {
            o.sink_token = strided(g, "sink", {1, 4, 1, 1}, packed_strides({1, 4, 1, 1}), FE_DATA_FLOAT);
            o.output_dsink = 1;
        }
        if (dropout) {
            o.dropout_probability = 0.3;
            o.dropout_seed = strided(g, "seed", {1, 1, 1, 1}, packed_strides({1, 1, 1, 1}), FE_DATA_INT64);
            o.dropout_offset = strided(g, "offset", {1, 1, 1, 1}, packed_strides({1, 1, 1, 1}), FE_DATA_INT64);
        }
        fe_tensor *dq, *dk, *dv;
        ASSERT_FE_OK(fe_graph_sdpa_backward(g, in.q, in.k, in.v, in.o, in.d_o, in.stats, &o, &dq, &dk, &dv));
        for (fe_tensor *t : {dq, dk, dv}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        if (dsink) set_output_by_name(g, "sdpa_backward_0::dSink");
        expect_refused_or_lowered(g, dsink && dropout, "dSink scaled by the keep rate");
    }
}

// The deterministic backward of 8 query heads over 4 or 8, d_qk 144 over d_v 128: refused; d_qk =
// d_v and the backward that is not deterministic are taken.
TEST_F(ConformanceRefusals, DeterministicGroupedBackwardWithWiderKeys) {
    struct Form {
        const char *name;
        int64_t h_k, d_qk;
        bool deterministic, refused;
    };
    for (const Form &f : {Form{"GQA d 144/128", 4, 144, true, true}, Form{"GQA d 128/128", 4, 128, true, false},
                          Form{"MHA d 144/128", 8, 144, true, true},
                          Form{"GQA d 144/128, not deterministic", 4, 144, false, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("deterministic_gqa", FE_DATA_HALF);
        Backward in = backward_inputs(g, 8, f.h_k, f.d_qk, 128);
        fe_sdpa_backward_options o = FE_SDPA_BACKWARD_OPTIONS_INIT;
        o.attn_scale = 0.1;
        o.deterministic = f.deterministic ? 1 : 0;
        fe_tensor *dq, *dk, *dv;
        ASSERT_FE_OK(fe_graph_sdpa_backward(g, in.q, in.k, in.v, in.o, in.d_o, in.stats, &o, &dq, &dk, &dv));
        for (fe_tensor *t : {dq, dk, dv}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        expect_refused_or_lowered(g, f.refused, "whose dQ is wrong in some runs");
    }
}

// A half matmul with a column bias [5, 2, 1] and GELU whose result [5, 2, 16] is stored M-innermost:
// refused; stored N-innermost, taken.
TEST_F(ConformanceRefusals, ColumnOperandWithATransposedResult) {
    for (bool transposed : {true, false}) {
        SCOPED_TRACE(transposed ? "M innermost" : "N innermost");
        fe_graph *g = graph("matmul_column_transposed", FE_DATA_HALF);
        const std::vector<int64_t> da = {5, 2, 486}, db = {5, 486, 16}, dc = {5, 2, 16}, dbias = {5, 2, 1};
        fe_tensor *a = strided(g, "a", da, packed_strides(da)), *b = strided(g, "b", db, packed_strides(db));
        fe_tensor *bias = strided(g, "bias", dbias, packed_strides(dbias));
        fe_tensor *c = nullptr, *biased = nullptr, *y = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
        ASSERT_FE_OK(fe_graph_bias(g, c, bias, nullptr, &biased));
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_GELU_FWD, biased, nullptr, nullptr, nullptr, &y));
        const std::vector<int64_t> sy = transposed ? std::vector<int64_t>{32, 1, 2} : packed_strides(dc);
        ASSERT_FE_OK(fe_tensor_set_strides(y, 3, sy.data()));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, transposed, "column operand");
    }
}

// A float matmul with a scale and relu whose stored result [3, 10, 41] has its batch innermost: the
// matmul's own result is virtual, the stored one is refused as the matmul's would be.
TEST_F(ConformanceRefusals, EpilogueResultWithTheBatchInnermost) {
    for (bool batch_inside : {true, false}) {
        SCOPED_TRACE(batch_inside ? "m, n, b" : "packed");
        fe_graph *g = graph("matmul_epilogue_batch_inside", FE_DATA_FLOAT);
        const std::vector<int64_t> da = {3, 10, 443}, db = {3, 443, 41}, dc = {3, 10, 41};
        fe_tensor *a = strided(g, "a", da, packed_strides(da)), *b = strided(g, "b", db, packed_strides(db));
        fe_tensor *c = nullptr, *y = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
        ASSERT_FE_OK(fe_graph_relu(g, c, nullptr, &y));
        const std::vector<int64_t> sy = batch_inside ? std::vector<int64_t>{1, 123, 3} : packed_strides(dc);
        ASSERT_FE_OK(fe_tensor_set_strides(y, 3, sy.data()));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, batch_inside, "neither M nor N contiguous");
    }
}

// Decoding (one query row) 16 query heads over 4 K/V heads of a paged cache with sinks: refused;
// without sinks, and with 4 query heads over 4, taken.
TEST_F(ConformanceRefusals, PagedGroupedDecodeWithSinks) {
    struct Form {
        const char *name;
        int64_t h_q;
        bool sinks, refused;
    };
    for (const Form &f : {Form{"GQA with sinks", 16, true, true}, Form{"GQA", 16, false, false},
                          Form{"MHA with sinks", 4, true, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("paged_decode_sinks", FE_DATA_BFLOAT16);
        fe_tensor *q = strided(g, "q", {2, f.h_q, 1, 128}, packed_strides({2, f.h_q, 1, 128}));
        fe_tensor *kc = strided(g, "k_pages", {64, 4, 64, 128}, packed_strides({64, 4, 64, 128}));
        fe_tensor *vc = strided(g, "v_pages", {64, 4, 64, 128}, packed_strides({64, 4, 64, 128}));
        auto ints = [&](const char *name, const std::vector<int64_t> &d) {
            return strided(g, name, d, packed_strides(d), FE_DATA_INT32);
        };
        fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
        o.attn_scale = 0.088;
        o.page_table_k = ints("ptk", {2, 1, 32, 1});
        o.page_table_v = ints("ptv", {2, 1, 32, 1});
        o.max_seq_len_kv = 2048;
        o.seq_len_q = ints("lq", {2, 1, 1, 1});
        o.seq_len_kv = ints("lkv", {2, 1, 1, 1});
        if (f.sinks) o.sink_token = strided(g, "sink", {1, f.h_q, 1, 1}, packed_strides({1, f.h_q, 1, 1}), FE_DATA_FLOAT);
        fe_tensor *out = nullptr;
        ASSERT_FE_OK(fe_graph_sdpa(g, q, kc, vc, &o, &out, nullptr));
        ASSERT_FE_OK(fe_tensor_set_output(out, 1));
        expect_refused_or_lowered(g, f.refused, "with attention sinks");
    }
}

// The float weight gradient of a 1-D NCHW convolution (dilation 2, filter 5) padded 5 / 6: refused
// (as at every rank); padded 6 / 6, and channels-last, taken.
TEST_F(ConformanceRefusals, FloatWgradOf1dConvolutionWithAsymmetricPadding) {
    struct Form {
        const char *name;
        int64_t post;
        bool channels_last, refused;
    };
    for (const Form &f : {Form{"NCHW 5 / 6", 6, false, true}, Form{"NCHW 6 / 6", 6, false, false},
                          Form{"channels-last 5 / 6", 6, true, true}}) {
        SCOPED_TRACE(f.name);
        const int64_t pre = f.refused ? 5 : 6;
        const int64_t out = 91 + pre + f.post - 9 + 1;
        fe_graph *g = graph("wgrad_1d", FE_DATA_FLOAT);
        const std::vector<int64_t> dx = {5, 112, 91}, ddy = {5, 16, out};
        auto layout = [&](const std::vector<int64_t> &d) { return layout_strides(f.channels_last, d); };
        fe_tensor *x = strided(g, "x", dx, layout(dx)), *dy = strided(g, "dy", ddy, layout(ddy)), *dw = nullptr;
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        const int64_t pre_padding[1] = {pre}, post_padding[1] = {f.post}, dilation[1] = {2};
        ASSERT_FE_OK(fe_conv_options_set_pre_padding(&o, 1, pre_padding));
        ASSERT_FE_OK(fe_conv_options_set_post_padding(&o, 1, post_padding));
        ASSERT_FE_OK(fe_conv_options_set_dilation(&o, 1, dilation));
        const int64_t dw_dims[3] = {16, 112, 5};
        ASSERT_FE_OK(fe_graph_conv_wgrad(g, x, dy, 3, dw_dims, &o, &dw));
        ASSERT_FE_OK(fe_tensor_set_output(dw, 1));
        expect_refused_or_lowered(g, f.refused, "a convolution with asymmetric padding");
    }
}

// Batchnorm inference of x [6, 12, 28, 12] laid out with the batch innermost: refused;
// channels-last, taken.
TEST_F(ConformanceRefusals, BatchnormInferenceWithTheBatchInnermost) {
    for (bool batch_inside : {true, false}) {
        SCOPED_TRACE(batch_inside ? "batch innermost" : "channels-last");
        fe_graph *g = graph("batchnorm_inference_batch_inside", FE_DATA_HALF);
        const std::vector<int64_t> dx = {6, 12, 28, 12}, dp = {1, 12, 1, 1};
        const std::vector<int64_t> sx = batch_inside ? std::vector<int64_t>{1, 2016, 72, 6} : channels_last_strides(dx);
        fe_tensor *x = strided(g, "x", dx, sx);
        auto param = [&](const char *name) { return strided(g, name, dp, packed_strides(dp), FE_DATA_FLOAT); };
        fe_tensor *y = nullptr;
        ASSERT_FE_OK(fe_graph_batchnorm_inference(g, x, param("mean"), param("inv_variance"), param("scale"),
                                                  param("bias"), nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_strides(y, 4, sx.data()));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, batch_inside, "whose batch dim is not outermost");
    }
}

// A float matmul of the caller's cast of bfloat16 B [5, 101, 281] (rows 281 apart): refused; rows 288
// apart, taken.
TEST_F(ConformanceRefusals, CallersCastOfBfloat16IntoAFloatMatmulWithUnalignedRows) {
    for (int64_t row : {281, 288}) {
        SCOPED_TRACE(row);
        fe_graph *g = graph("matmul_bf16_cast", FE_DATA_FLOAT);
        const std::vector<int64_t> da = {5, 16, 101}, db = {5, 101, 281}, sb = {101 * row, row, 1};
        fe_tensor *a = strided(g, "a", da, packed_strides(da)), *b = strided(g, "b", db, sb, FE_DATA_BFLOAT16);
        fe_tensor *wide = nullptr, *c = nullptr;
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_IDENTITY, b, nullptr, nullptr, nullptr, &wide));
        ASSERT_FE_OK(fe_tensor_set_data_type(wide, FE_DATA_FLOAT));
        ASSERT_FE_OK(fe_graph_matmul(g, a, wide, nullptr, &c));
        ASSERT_FE_OK(fe_tensor_set_output(c, 1));
        expect_refused_or_lowered(g, row == 281, "an operand widened in the graph");
    }
}

// A half matmul times an E4M3 vector B [4, 179, 1], [4, 176, 1] or [4, 35, 1]: refused (a
// 16-aligned vector of 320 was wrong too); a vector of 32, taken.
TEST_F(ConformanceRefusals, MatmulWideningAnFp8VectorOfUnalignedLength) {
    for (int64_t k : {179, 176, 35, 32}) {
        SCOPED_TRACE(k);
        fe_graph *g = graph("matmul_fp8_vector", FE_DATA_NOT_SET);
        const std::vector<int64_t> da = {4, 63, k}, db = {4, k, 1};
        fe_tensor *a = strided(g, "a", da, packed_strides(da), FE_DATA_HALF);
        fe_tensor *b = strided(g, "b", db, packed_strides(db), FE_DATA_FP8_E4M3);
        matmul_output(g, a, b, FE_DATA_FLOAT);
        expect_refused_or_lowered(g, k > 32, "an operand widened in the graph");
    }
}

// A column bias [1, 160, 1] with M's stride 9 after a matmul: refused; contiguous, taken.
TEST_F(ConformanceRefusals, StridedColumnOperand) {
    for (int64_t stride : {9, 1}) {
        SCOPED_TRACE(stride);
        fe_graph *g = graph("matmul_strided_column", FE_DATA_HALF);
        const std::vector<int64_t> da = {1, 160, 47}, db = {1, 47, 3}, dbias = {1, 160, 1};
        fe_tensor *a = strided(g, "a", da, packed_strides(da)), *b = strided(g, "b", db, packed_strides(db));
        fe_tensor *bias = strided(g, "bias", dbias, {160 * stride, stride, 1});
        fe_tensor *c = nullptr, *y = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
        ASSERT_FE_OK(fe_graph_bias(g, c, bias, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, stride == 9, "not contiguous along N (or M)");
    }
}

// A rank-5 channels-last max with a per-pixel operand [3, 1, 5, 8, 46] laid out with a gap: refused;
// packed, taken.
TEST_F(ConformanceRefusals, Rank5BroadcastOperandWithAGap) {
    for (bool gap : {true, false}) {
        SCOPED_TRACE(gap ? "gap" : "packed");
        fe_graph *g = graph("pointwise_rank5_gap", FE_DATA_BFLOAT16);
        const std::vector<int64_t> dx = {3, 13, 5, 8, 46}, dp = {3, 1, 5, 8, 46};
        fe_tensor *x = strided(g, "x", dx, channels_last_strides(dx));
        const std::vector<int64_t> sp = gap ? std::vector<int64_t>{5 * 16 * 46, 1, 16 * 46, 46, 1} : channels_last_strides(dp);
        fe_tensor *p = strided(g, "p", dp, sp), *y = nullptr;
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_MAX, x, p, nullptr, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, gap, "laid out with a gap");
    }
}

// The attention backward (b 1, 8 heads, d 64) of s_q queries over s_kv keys with dropout of
// probability p drawn by cuDNN, its gradients marked as outputs.
void dropout_backward(fe_graph *g, int64_t s_q, int64_t s_kv, double p, bool deterministic) {
    Backward in = backward_inputs(g, 8, 8, 64, 64, s_q, s_kv);
    auto scalar = [g](const char *name) {
        return strided(g, name, {1, 1, 1, 1}, packed_strides({1, 1, 1, 1}), FE_DATA_INT64);
    };
    fe_sdpa_backward_options opt = FE_SDPA_BACKWARD_OPTIONS_INIT;
    opt.attn_scale = 0.125;
    opt.dropout_probability = p;
    opt.dropout_seed = scalar("seed");
    opt.dropout_offset = scalar("offset");
    opt.deterministic = deterministic ? 1 : 0;
    fe_tensor *dq, *dk, *dv;
    ASSERT_FE_OK(fe_graph_sdpa_backward(g, in.q, in.k, in.v, in.o, in.d_o, in.stats, &opt, &dq, &dk, &dv));
    for (fe_tensor *t : {dq, dk, dv}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
}
// The backward with dropout drawn by cuDNN over 177 keys: refused, deterministic or not; over 128
// keys, taken.
TEST_F(ConformanceRefusals, BackwardWithDropoutOverMoreThan128Keys) {
    struct Form {
        const char *name;
        int64_t s_kv;
        bool deterministic, refused;
    };
    for (const Form &f : {Form{"177 keys", 177, false, true}, Form{"128 keys", 128, false, false},
                          Form{"177 keys, deterministic", 177, true, true},
                          Form{"128 keys, deterministic", 128, true, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("dropout_long_keys", FE_DATA_HALF);
        dropout_backward(g, 54, f.s_kv, 0.3, f.deterministic);
        expect_refused_or_lowered(g, f.refused, "over more than 128 keys");
    }
}

// A bfloat16 result [1, 488, 550] laid out M, N, batch with a gap of 3 after the batch of one
// (N's stride 4, M's 2200): refused; the same order without the gap is taken.
TEST_F(ConformanceRefusals, MatmulResultWithNeitherMNorNContiguous) {
    for (int64_t gap : {3, 0}) {
        SCOPED_TRACE("gap " + std::to_string(gap));
        fe_graph *g = graph("matmul_strided_result", FE_DATA_BFLOAT16);
        const std::vector<int64_t> da = {1, 488, 16}, db = {1, 16, 550};
        fe_tensor *a = strided(g, "a", da, packed_strides(da)), *b = strided(g, "b", db, packed_strides(db));
        fe_tensor *c = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
        const std::vector<int64_t> sc = {1, 550 * (1 + gap), 1 + gap};
        ASSERT_FE_OK(fe_tensor_set_strides(c, 3, sc.data()));
        ASSERT_FE_OK(fe_tensor_set_output(c, 1));
        expect_refused_or_lowered(g, gap, "neither M nor N contiguous");
    }
}

// A 1-D conv + bias + residual + relu of an NCHW half image of 3 into a single pixel: refused;
// channels-last, taken.
TEST_F(ConformanceRefusals, Fused1dNchwConvolutionIntoASinglePixel) {
    for (bool channels_last : {false, true}) {
        SCOPED_TRACE(channels_last ? "NWC" : "NCW");
        fe_graph *g = graph("conv1d_pixel", FE_DATA_HALF);
        const std::vector<int64_t> dx = {4, 128, 3}, dw = {128, 16, 5}, dy = {4, 128, 1};
        auto layout = [&](const std::vector<int64_t> &d) { return layout_strides(channels_last, d); };
        fe_tensor *x = strided(g, "x", dx, layout(dx)), *w = strided(g, "w", dw, layout(dw));
        fe_tensor *residual = strided(g, "residual", dy, layout(dy));
        fe_tensor *bias = strided(g, "bias", {1, 128, 1}, packed_strides({1, 128, 1}), FE_DATA_FLOAT);
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        o.groups = 8;
        const int64_t pre[1] = {8}, post[1] = {2}, dilation[1] = {3};
        ASSERT_FE_OK(fe_conv_options_set_pre_padding(&o, 1, pre));
        ASSERT_FE_OK(fe_conv_options_set_post_padding(&o, 1, post));
        ASSERT_FE_OK(fe_conv_options_set_dilation(&o, 1, dilation));
        fe_tensor *y = nullptr;
        ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        add_bias_relu(g, y, residual, bias);
        expect_refused_or_lowered(g, !channels_last, "whose result is a single pixel");
    }
}

// A 1-D conv of an NCHW half image of 32 channels, 4 wide, by an 8-wide filter at stride 2 into
// one channel of one pixel, with genstats after it (conformance seed 107, case 10: every value
// wrong): refused; channels-last, taken.
TEST_F(ConformanceRefusals, FusedNchwConvolutionIntoOneChannelOfOnePixel) {
    for (bool channels_last : {false, true}) {
        SCOPED_TRACE(channels_last ? "NWC" : "NCW");
        fe_graph *g = graph("conv1d_one_channel_pixel", FE_DATA_HALF);
        const std::vector<int64_t> dx = {2, 32, 4}, dw = {1, 32, 8};
        auto layout = [&](const std::vector<int64_t> &d) { return layout_strides(channels_last, d); };
        fe_tensor *x = strided(g, "x", dx, layout(dx)), *w = strided(g, "w", dw, layout(dw));
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        const int64_t post[1] = {4}, stride[1] = {2};
        ASSERT_FE_OK(fe_conv_options_set_post_padding(&o, 1, post));
        ASSERT_FE_OK(fe_conv_options_set_stride(&o, 1, stride));
        fe_tensor *y = nullptr, *sum = nullptr, *sq_sum = nullptr;
        ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        ASSERT_FE_OK(fe_graph_genstats(g, y, nullptr, &sum, &sq_sum));
        ASSERT_FE_OK(fe_tensor_set_output(sum, 1));
        ASSERT_FE_OK(fe_tensor_set_output(sq_sum, 1));
        expect_refused_or_lowered(g, !channels_last, "whose result is a single pixel");
    }
}

// A weight gradient of half NCHW x and dy into a float dw: refused; channels-last, and NCHW into
// a half dw, taken.
TEST_F(ConformanceRefusals, HalfWgradIntoAFloatDwNchw) {
    struct Form {
        const char *name;
        bool channels_last;
        fe_data_type dw_type;
        bool refused;
    };
    for (const Form &f : {Form{"NCHW, float dw", false, FE_DATA_FLOAT, true},
                          Form{"NHWC, float dw", true, FE_DATA_FLOAT, false},
                          Form{"NCHW, half dw", false, FE_DATA_HALF, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("wgrad_half_float", FE_DATA_HALF);
        const std::vector<int64_t> dx = {6, 72, 13, 13}, ddy = {6, 8, 5, 5};
        auto layout = [&](const std::vector<int64_t> &d) { return layout_strides(f.channels_last, d); };
        fe_tensor *x = strided(g, "x", dx, layout(dx)), *dy = strided(g, "dy", ddy, layout(ddy)), *dw = nullptr;
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        const int64_t pad[2] = {3, 3}, stride[2] = {3, 3};
        ASSERT_FE_OK(fe_conv_options_set_padding(&o, 2, pad));
        ASSERT_FE_OK(fe_conv_options_set_stride(&o, 2, stride));
        const int64_t dw_dims[4] = {8, 72, 7, 7};
        ASSERT_FE_OK(fe_graph_conv_wgrad(g, x, dy, 4, dw_dims, &o, &dw));
        ASSERT_FE_OK(fe_tensor_set_data_type(dw, f.dw_type));
        ASSERT_FE_OK(fe_tensor_set_output(dw, 1));
        expect_refused_or_lowered(g, f.refused, "into a float dw, with x or dy not channels-last");
    }
}

// A transposed convolution of a half NCHW 5x3 image into a float single pixel: refused (the
// pixel counts as channels-last); into a half pixel, taken.
TEST_F(ConformanceRefusals, HalfTransposedConvolutionIntoAFloatSinglePixel) {
    for (fe_data_type result : {FE_DATA_FLOAT, FE_DATA_HALF}) {
        SCOPED_TRACE(result == FE_DATA_FLOAT ? "float result" : "half result");
        fe_graph *g = graph("transpose_pixel", FE_DATA_HALF);
        const std::vector<int64_t> dx = {1, 24, 5, 3}, dw = {24, 24, 5, 5};
        fe_tensor *x = strided(g, "x", dx, packed_strides(dx)), *w = strided(g, "w", dw, packed_strides(dw));
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        const int64_t pad[2] = {4, 3};
        ASSERT_FE_OK(fe_conv_options_set_padding(&o, 2, pad));
        fe_tensor *y = nullptr;
        ASSERT_FE_OK(fe_graph_conv_transpose(g, x, w, &o, &y));
        ASSERT_FE_OK(fe_tensor_set_data_type(y, result));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, result == FE_DATA_FLOAT, "a single pixel counts as channels-last");
    }
}

// The backward with cuDNN's dropout over a single query row and 71 keys: refused, deterministic or
// not; over 64 keys, taken.
TEST_F(ConformanceRefusals, BackwardWithDropoutOverASingleQueryRow) {
    struct Form {
        const char *name;
        int64_t s_kv;
        bool deterministic, refused;
    };
    for (const Form &f : {Form{"71 keys, deterministic", 71, true, true}, Form{"71 keys", 71, false, true},
                          Form{"64 keys, deterministic", 64, true, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("dropout_single_query", FE_DATA_BFLOAT16);
        dropout_backward(g, 1, f.s_kv, 0.38, f.deterministic);
        expect_refused_or_lowered(g, f.refused, "over a single query row");
    }
}

// Max over dims 0 and 2 of a channels-last [4, 26, 5, 1, 4] (keeping dim 4): refused; over the
// channels, and over every spatial dim, taken.
TEST_F(ConformanceRefusals, ReductionOverPartOfTheSpatialDims) {
    for (uint32_t axes : {0x5u, 0x2u, 0x1du}) {
        SCOPED_TRACE("axes " + std::to_string(axes));
        fe_graph *g = graph("reduction_partial_spatial", FE_DATA_FLOAT);
        const std::vector<int64_t> dx = {4, 26, 5, 1, 4};
        fe_tensor *x = strided(g, "x", dx, channels_last_strides(dx)), *y = nullptr;
        fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
        o.reduce_axes = axes;
        ASSERT_FE_OK(fe_graph_reduction(g, x, FE_REDUCTION_MAX, &o, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, axes == 0x5u, "over some of its spatial dims");
    }
}

// Amax over dim 0 of a [193, 1] laid out dim 0 innermost, and min over dims 1 and 2 of a
// channels-last [68, 56, 1]: refused; the same tensors row-major, taken.
TEST_F(ConformanceRefusals, ReductionOfARank2Or3InputNotRowMajor) {
    struct Form {
        std::vector<int64_t> dims, strides;
        uint32_t axes;
        bool refused;
    };
    for (const Form &f : {Form{{193, 1}, {1, 193}, 0x1u, true}, Form{{193, 1}, {1, 1}, 0x1u, false},
                          Form{{68, 56, 1}, {56, 1, 56}, 0x6u, true}, Form{{68, 56, 1}, {56, 1, 1}, 0x6u, false}}) {
        SCOPED_TRACE(testing::PrintToString(f.dims) + " strides " + testing::PrintToString(f.strides));
        fe_graph *g = graph("reduction_permuted_input", FE_DATA_HALF);
        fe_tensor *x = strided(g, "x", f.dims, f.strides), *y = nullptr;
        fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
        o.reduce_axes = f.axes;
        ASSERT_FE_OK(fe_graph_reduction(g, x, FE_REDUCTION_AMAX, &o, &y));
        ASSERT_FE_OK(fe_tensor_set_data_type(y, FE_DATA_FLOAT));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        if (f.refused)
            expect_refused(g, "dim 0 outermost and the last dim innermost");
        else
            expect_lowered(g);
    }
}

// Layernorm of a packed x [4, 96, 256] into y with a gap after each row (rows 264 apart): refused
// before cuDNN, with the reason; a packed y, taken.
TEST_F(ConformanceRefusals, NormalizationWhoseResultIsNotLaidOutAsX) {
    for (bool like_x : {false, true}) {
        SCOPED_TRACE(like_x ? "packed y" : "gapped y");
        fe_graph *g = graph("norm_output_layout", FE_DATA_HALF);
        const std::vector<int64_t> dx = {4, 96, 256}, dp = {1, 1, 256};
        fe_tensor *x = strided(g, "x", dx, packed_strides(dx));
        fe_tensor *scale = strided(g, "scale", dp, packed_strides(dp), FE_DATA_FLOAT);
        fe_tensor *bias = strided(g, "bias", dp, packed_strides(dp), FE_DATA_FLOAT);
        fe_norm_options o = FE_NORM_OPTIONS_INIT;
        fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr;
        ASSERT_FE_OK(fe_graph_layernorm(g, x, scale, bias, &o, &y, &mean, &inv));
        const std::vector<int64_t> sy = like_x ? packed_strides(dx) : std::vector<int64_t>{96 * 264, 264, 1};
        ASSERT_FE_OK(fe_tensor_set_strides(y, 3, sy.data()));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, !like_x, "not laid out as x");
    }
}

// Layernorm over the last two dims of x [2, 17, 64, 64] laid out with dim 1 inside them: refused
// with the reason; packed row-major, taken.
TEST_F(ConformanceRefusals, LayernormOfRowsThatAreNotPacked) {
    for (bool packed_rows : {false, true}) {
        SCOPED_TRACE(packed_rows ? "packed rows" : "a dim inside the rows");
        fe_graph *g = graph("norm_unpacked_rows", FE_DATA_HALF);
        const std::vector<int64_t> dx = {2, 17, 64, 64}, dp = {1, 1, 64, 64};
        const std::vector<int64_t> sx = packed_rows ? packed_strides(dx) : std::vector<int64_t>{17 * 4096, 64, 17 * 64, 1};
        fe_tensor *x = strided(g, "x", dx, sx);
        fe_tensor *scale = strided(g, "scale", dp, packed_strides(dp), FE_DATA_FLOAT);
        fe_tensor *bias = strided(g, "bias", dp, packed_strides(dp), FE_DATA_FLOAT);
        fe_norm_options o = FE_NORM_OPTIONS_INIT;
        fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr;
        ASSERT_FE_OK(fe_graph_layernorm(g, x, scale, bias, &o, &y, &mean, &inv));
        ASSERT_FE_OK(fe_tensor_set_strides(y, 4, sx.data()));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, !packed_rows, "not packed with its normalized dims innermost");
    }
}


// A 2-D conv + bias + residual + relu of an NCHW half 3x3 image into a single pixel: refused;
// channels-last, and an NCHW result of 2x2 pixels (its bias a single pixel), taken.
TEST_F(ConformanceRefusals, Fused2dNchwConvolutionIntoASinglePixel) {
    struct Form {
        const char *name;
        bool channels_last;
        int64_t image;
        bool refused;
    };
    for (const Form &f : {Form{"NCHW, 1x1 result", false, 3, true}, Form{"NHWC, 1x1 result", true, 3, false},
                          Form{"NCHW, 2x2 result", false, 4, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("conv2d_pixel", FE_DATA_BFLOAT16);
        const int64_t out = f.image - 2;
        const std::vector<int64_t> dx = {2, 40, f.image, f.image}, dw = {48, 40, 3, 3}, dy = {2, 48, out, out};
        auto layout = [&](const std::vector<int64_t> &d) { return layout_strides(f.channels_last, d); };
        fe_tensor *x = strided(g, "x", dx, layout(dx)), *w = strided(g, "w", dw, layout(dw));
        fe_tensor *residual = strided(g, "residual", dy, layout(dy));
        fe_tensor *bias = strided(g, "bias", {1, 48, 1, 1}, packed_strides({1, 48, 1, 1}), FE_DATA_FLOAT);
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        fe_tensor *y = nullptr;
        ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        add_bias_relu(g, y, residual, bias);
        expect_refused_or_lowered(g, f.refused, "whose result is a single pixel");
    }
}

// The data gradient of a half 1-D NCW dy of 32 channels into a float NCW dx: refused; both
// channels-last, and a half dx, taken.
TEST_F(ConformanceRefusals, HalfDgradIntoAFloatDxNchw) {
    struct Form {
        const char *name;
        bool channels_last;
        fe_data_type dx_type;
        bool refused;
    };
    for (const Form &f : {Form{"NCW, float dx", false, FE_DATA_FLOAT, true},
                          Form{"NWC, float dx", true, FE_DATA_FLOAT, false},
                          Form{"NCW, half dx", false, FE_DATA_HALF, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("dgrad_half_float", FE_DATA_HALF);
        const std::vector<int64_t> ddy = {1, 32, 433}, dw = {32, 32, 3};
        auto layout = [&](const std::vector<int64_t> &d) { return layout_strides(f.channels_last, d); };
        fe_tensor *dy = strided(g, "dy", ddy, layout(ddy)), *w = strided(g, "w", dw, layout(dw)), *dx = nullptr;
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        const int64_t pad[1] = {1};
        ASSERT_FE_OK(fe_conv_options_set_padding(&o, 1, pad));
        const int64_t dx_dims[3] = {1, 32, 433};
        ASSERT_FE_OK(fe_graph_conv_dgrad(g, dy, w, 3, dx_dims, &o, &dx));
        ASSERT_FE_OK(fe_tensor_set_data_type(dx, f.dx_type));
        ASSERT_FE_OK(fe_tensor_set_strides(dx, 3, layout({1, 32, 433}).data()));
        ASSERT_FE_OK(fe_tensor_set_output(dx, 1));
        expect_refused_or_lowered(g, f.refused, "unless dy and dx are both channels-last");
    }
}

// Attention (bf16, 4 heads, d 40) with dropout drawn by cuDNN over one query row and 274 keys:
// refused; over 256 keys, over two query rows, and with the caller's mask, taken.
TEST_F(ConformanceRefusals, DropoutOverASingleQueryRowAndLongKeys) {
    struct Form {
        const char *name;
        int64_t s_q, s_kv;
        bool own_mask, refused;
    };
    for (const Form &f : {Form{"1 x 274, drawn", 1, 274, false, true}, Form{"1 x 256, drawn", 1, 256, false, false},
                          Form{"2 x 274, drawn", 2, 274, false, false}, Form{"1 x 274, own mask", 1, 274, true, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("dropout_decode", FE_DATA_BFLOAT16);
        const std::vector<int64_t> dq = {1, 4, f.s_q, 40}, dk = {1, 4, f.s_kv, 40};
        fe_tensor *q = strided(g, "q", dq, packed_strides(dq)), *k = strided(g, "k", dk, packed_strides(dk));
        fe_tensor *v = strided(g, "v", dk, packed_strides(dk));
        fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
        o.attn_scale = 0.158;
        if (f.own_mask) {
            const std::vector<int64_t> dm = {1, 4, f.s_q, f.s_kv};
            o.dropout_mask = strided(g, "mask", dm, packed_strides(dm));
            o.dropout_scale = 1.0 / 0.79;
        } else {
            o.dropout_probability = 0.21;
            o.dropout_seed = strided(g, "seed", {1, 1, 1, 1}, packed_strides({1, 1, 1, 1}), FE_DATA_INT64);
            o.dropout_offset = strided(g, "offset", {1, 1, 1, 1}, packed_strides({1, 1, 1, 1}), FE_DATA_INT64);
        }
        fe_tensor *out = nullptr;
        ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &o, &out, nullptr));
        ASSERT_FE_OK(fe_tensor_set_output(out, 1));
        expect_refused_or_lowered(g, f.refused, "over a single query row (s_q = 1) and more than 256 keys");
    }
}

}  // namespace
