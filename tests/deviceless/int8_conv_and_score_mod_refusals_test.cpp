// Refusals made from the conformance runs of seeds 26, 27, 41 and 57 on an H200: int8 convolutions
// of three shapes, dBias under a caller's score modifier, and paged decoding's stats
// under a score modifier that reads a tensor. Each refused graph names the capability table's
// reason; the nearest graphs the runs found right still lower.
#include <string>

#include "known_bad_support.hpp"

using cudnnfe_test::channels_last_strides;
using cudnnfe_test::packed_strides;
using cudnnfe_test::set_output_by_name;
using cudnnfe_test::strided;

namespace {

struct ConvForm {
    const char *name;
    int64_t c, h, w, f_h, f_w, stride_h, stride_w, pad;
    fe_conv_mode mode;
    fe_data_type result;
    bool refused;
};

class Refusals : public cudnnfe_test::KnownBadRefusal {
  protected:
    // A channels-last int8 convolution of x [3, c, h, w] by w [32, c, f_h, f_w] into `result`:
    // refused naming `reason`, or lowered.
    void expect_int8_conv(const ConvForm &f, const char *reason);
};

void Refusals::expect_int8_conv(const ConvForm &f, const char *reason) {
    SCOPED_TRACE(f.name);
    fe_graph *g = graph("conv_int8", FE_DATA_NOT_SET);
    const std::vector<int64_t> dx = {3, f.c, f.h, f.w}, dw = {32, f.c, f.f_h, f.f_w};
    fe_tensor *x = strided(g, "x", dx, channels_last_strides(dx), FE_DATA_INT8);
    fe_tensor *w = strided(g, "w", dw, channels_last_strides(dw), FE_DATA_INT8);
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    o.mode = f.mode;
    o.stride[0] = f.stride_h, o.stride[1] = f.stride_w;
    o.pre_padding[0] = o.pre_padding[1] = o.post_padding[0] = o.post_padding[1] = f.pad;
    o.compute_data_type = FE_DATA_INT32;
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_data_type(y, f.result));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    expect_refused_or_lowered(g, f.refused, reason);
}

// One input channel into a float result 26 x 1 (seed 27 case 42): refused; two pixels wide, or
// with four channels, taken.
TEST_F(Refusals, Int8ConvolutionOfOneChannelIntoAFloatColumn) {
    const auto xc = FE_CONV_MODE_CROSS_CORRELATION;
    for (const ConvForm &f : {ConvForm{"one channel, 26 x 1", 1, 82, 7, 7, 7, 3, 2, 0, xc, FE_DATA_FLOAT, true},
                              ConvForm{"one channel, 26 x 2", 1, 82, 9, 7, 7, 3, 2, 0, xc, FE_DATA_FLOAT, false},
                              ConvForm{"four channels, 26 x 1", 4, 82, 7, 7, 7, 3, 2, 0, xc, FE_DATA_FLOAT, false}})
        expect_int8_conv(f, "of one input channel into a float result one pixel wide");
}

// Convolution mode, a 7 x 7 filter over a 7 x 7 image into float (seed 41 case 85): refused; in
// cross-correlation mode, into int8, or over a padded image, taken.
TEST_F(Refusals, Int8ConvolutionModeWithAFilterTheSizeOfTheImage) {
    const auto conv = FE_CONV_MODE_CONVOLUTION, xc = FE_CONV_MODE_CROSS_CORRELATION;
    for (const ConvForm &f : {ConvForm{"convolution mode, float", 8, 7, 7, 7, 7, 1, 1, 0, conv, FE_DATA_FLOAT, true},
                              ConvForm{"cross-correlation", 8, 7, 7, 7, 7, 1, 1, 0, xc, FE_DATA_FLOAT, false},
                              ConvForm{"int8 result", 8, 7, 7, 7, 7, 1, 1, 0, conv, FE_DATA_INT8, false},
                              ConvForm{"padded image", 8, 3, 3, 5, 5, 4, 4, 2, conv, FE_DATA_FLOAT, false}})
        expect_int8_conv(f, "in convolution mode (the filter flipped)");
}

// A 1-D int8 convolution, an 11-wide filter over an 11-wide image of 40 channels in convolution
// mode (seed 57 case 11): refused into float and into int8; in cross-correlation mode, or over an
// image one wider, taken.
TEST_F(Refusals, Int8OneDimensionalConvolutionModeWithAFilterTheWidthOfTheImage) {
    struct Form {
        const char *name;
        int64_t in;
        fe_conv_mode mode;
        fe_data_type result;
        bool refused;
    };
    const auto conv = FE_CONV_MODE_CONVOLUTION, xc = FE_CONV_MODE_CROSS_CORRELATION;
    for (const Form &f : {Form{"convolution mode, float", 11, conv, FE_DATA_FLOAT, true},
                          Form{"convolution mode, int8", 11, conv, FE_DATA_INT8, true},
                          Form{"cross-correlation", 11, xc, FE_DATA_FLOAT, false},
                          Form{"an image one wider", 12, conv, FE_DATA_FLOAT, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("conv_int8_1d", FE_DATA_NOT_SET);
        const std::vector<int64_t> dx = {2, 40, f.in}, dw = {64, 40, 11};
        fe_tensor *x = strided(g, "x", dx, {40 * f.in, 1, 40}, FE_DATA_INT8);
        fe_tensor *w = strided(g, "w", dw, {440, 1, 40}, FE_DATA_INT8);
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        o.mode = f.mode;
        o.compute_data_type = FE_DATA_INT32;
        fe_tensor *y = nullptr;
        ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        ASSERT_FE_OK(fe_tensor_set_data_type(y, f.result));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, f.refused, "in convolution mode (the filter flipped)");
    }
}

fe_tensor *multiply(fe_graph *g, fe_tensor *a, fe_tensor *b) {
    fe_tensor *y = nullptr;
    EXPECT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_MUL, a, b, nullptr, nullptr, &y));
    return y;
}

fe_tensor *scalar(fe_graph *g, const char *name, double value) {
    fe_tensor *t = nullptr;
    EXPECT_FE_OK(fe_graph_scalar(g, name, value, FE_DATA_FLOAT, &t));
    return t;
}

// dBias under a caller's score modifier (scores times 1.12, its gradient likewise; seed 26 case
// 99): refused; the modifier without dBias, and dBias without the modifier, taken.
TEST_F(Refusals, AttentionBackwardDbiasUnderAScoreModifier) {
    for (int form = 0; form < 3; ++form) {
        const bool modifier = form != 2, dbias = form != 1;
        SCOPED_TRACE(std::string(modifier ? "modifier" : "") + (dbias ? " dBias" : ""));
        fe_graph *g = graph("dbias_score_mod", FE_DATA_HALF);
        const int64_t h = 8, s_q = 35, s_kv = 16, d = 128;
        auto make = [g](const char *name, const std::vector<int64_t> &dims, fe_data_type type = FE_DATA_NOT_SET) {
            return strided(g, name, dims, packed_strides(dims), type);
        };
        fe_tensor *q = make("q", {2, h, s_q, d}), *k = make("k", {2, h, s_kv, d}), *v = make("v", {2, h, s_kv, d});
        fe_tensor *o = make("o", {2, h, s_q, d}), *d_o = make("dO", {2, h, s_q, d});
        fe_tensor *stats = make("stats", {2, h, s_q, 1}, FE_DATA_FLOAT);
        fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
        opts.attn_scale = 0.0884;
        opts.bias = make("bias", {1, h, s_q, s_kv});
        opts.output_dbias = dbias;
        if (modifier) {
            fe_tensor *factor = scalar(g, "factor", 1.12);
            opts.score_mod_input = make("scores", {2, h, s_q, s_kv}, FE_DATA_FLOAT);
            opts.score_mod_output = multiply(g, opts.score_mod_input, factor);
            opts.score_mod_grad_input = make("d_scores", {2, h, s_q, s_kv}, FE_DATA_FLOAT);
            opts.score_mod_grad_output = multiply(g, opts.score_mod_grad_input, factor);
        }
        fe_tensor *dq = nullptr, *dk = nullptr, *dv = nullptr;
        ASSERT_FE_OK(fe_graph_sdpa_backward(g, q, k, v, o, d_o, stats, &opts, &dq, &dk, &dv));
        for (fe_tensor *t : {dq, dk, dv}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        if (dbias) set_output_by_name(g, "sdpa_backward_0::dBias");
        expect_refused_or_lowered(g, modifier && dbias, "the dBias output and soft-capping or a score modifier");
    }
}

// Paged decoding of 2 query heads over 1 with the stats and a score modifier adding a per-head
// term (seed 27 case 21), or with Max and SumExp instead (seed 44 case 1 of attention_mod_fwd):
// refused; the modifier's scalar alone, or neither output, taken.
TEST_F(Refusals, PagedDecodeStatsUnderAScoreModifierReadingATensor) {
    struct Form {
        const char *name;
        bool per_head, stats, max_sum_exp, refused;
    };
    for (const Form &f : {Form{"per-head term, stats", true, true, false, true},
                          Form{"per-head term, Max and SumExp", true, false, true, true},
                          Form{"scalar only, stats", false, true, false, false},
                          Form{"per-head term, no stats", true, false, false, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("paged_decode_score_mod", FE_DATA_BFLOAT16);
        const int64_t b = 1, h_q = 2, s_kv = 112, page = 8, pages = s_kv / page;
        auto make = [g](const char *name, const std::vector<int64_t> &dims, fe_data_type type = FE_DATA_NOT_SET) {
            return strided(g, name, dims, packed_strides(dims), type);
        };
        fe_tensor *q = make("q", {b, h_q, 1, 96});
        fe_tensor *kc = make("k_pages", {pages, 1, page, 96}), *vc = make("v_pages", {pages, 1, page, 128});
        fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
        o.attn_scale = 0.1021;
        o.generate_stats = f.stats;
        o.output_max_sum_exp = f.max_sum_exp;
        o.page_table_k = make("ptk", {b, 1, pages, 1}, FE_DATA_INT32);
        o.page_table_v = make("ptv", {b, 1, pages, 1}, FE_DATA_INT32);
        o.max_seq_len_kv = s_kv;
        o.seq_len_q = make("lq", {b, 1, 1, 1}, FE_DATA_INT32);
        o.seq_len_kv = make("lkv", {b, 1, 1, 1}, FE_DATA_INT32);
        o.score_mod_input = make("scores", {b, h_q, 1, s_kv}, FE_DATA_FLOAT);
        fe_tensor *scaled = multiply(g, o.score_mod_input, scalar(g, "factor", 1.28));
        if (f.per_head) {
            fe_tensor *term = make("per_head", {1, h_q, 1, 1}, FE_DATA_FLOAT), *sum = nullptr;
            ASSERT_FE_OK(fe_graph_add(g, scaled, term, nullptr, &sum));
            o.score_mod_output = sum;
        } else {
            o.score_mod_output = scaled;
        }
        fe_tensor *out = nullptr, *stats = nullptr;
        ASSERT_FE_OK(fe_graph_sdpa(g, q, kc, vc, &o, &out, f.stats ? &stats : nullptr));
        ASSERT_FE_OK(fe_tensor_set_output(out, 1));
        if (stats) ASSERT_FE_OK(fe_tensor_set_output(stats, 1));
        for (const char *name : {"sdpa_0::Max", "sdpa_0::SumExp"}) {
            fe_tensor *t = nullptr;
            if (f.max_sum_exp && fe_graph_tensor_by_name(g, name, &t) == FE_OK) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        }
        expect_refused_or_lowered(g, f.refused, "output and a score modifier of the caller's that reads a tensor");
    }
}

}  // namespace
