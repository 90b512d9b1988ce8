// Matmul and convolution configurations the conformance runs found cuDNN 9.19 computing wrongly
// (or faulting on) are refused at build with the capability table's reason, before cuDNN sees
// them; the same graphs without the offending option still lower to an operation graph.
#include "known_bad_support.hpp"

using cudnnfe_test::channels_last_strides;
using cudnnfe_test::packed_strides;
using cudnnfe_test::strided;

namespace {

using MatmulConvKnownBad = cudnnfe_test::KnownBadRefusal;

// e4m3 A [1, 32, K] times half B: K = 151 (rows of 151 bytes) is refused; K = 160 lowers.
TEST_F(MatmulConvKnownBad, MixedMatmulWithAnUnalignedFp8Operand) {
    for (int64_t k : {151, 160}) {
        SCOPED_TRACE(k);
        fe_graph *g = graph("mixed_fp8", FE_DATA_NOT_SET);
        const std::vector<int64_t> da = {1, 32, k}, db = {1, k, 64};
        fe_tensor *a = strided(g, "a", da, packed_strides(da), FE_DATA_FP8_E4M3);
        fe_tensor *b = strided(g, "b", db, packed_strides(db), FE_DATA_HALF);
        fe_tensor *c = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
        ASSERT_FE_OK(fe_tensor_set_output(c, 1));
        expect_refused_or_lowered(g, k == 151, "an operand widened in the graph");
    }
}

// The caller's cast (an identity pointwise into half) of the same e4m3 operand is refused too.
TEST_F(MatmulConvKnownBad, MixedMatmulWithTheCallersCastOfAnUnalignedFp8Operand) {
    fe_graph *g = graph("mixed_fp8_cast", FE_DATA_NOT_SET);
    const std::vector<int64_t> da = {1, 32, 151}, db = {1, 151, 64};
    fe_tensor *a = strided(g, "a", da, packed_strides(da), FE_DATA_FP8_E4M3);
    fe_tensor *b = strided(g, "b", db, packed_strides(db), FE_DATA_HALF);
    fe_tensor *wide = nullptr, *c = nullptr;
    ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_IDENTITY, a, nullptr, nullptr, nullptr, &wide));
    ASSERT_FE_OK(fe_tensor_set_data_type(wide, FE_DATA_HALF));
    ASSERT_FE_OK(fe_graph_matmul(g, wide, b, nullptr, &c));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    expect_refused(g, "an operand widened in the graph");
}

// An e4m3 vector B [1, 320, 1] times half A: 320 is a multiple of 16, and such a B was wrong
// on an H200 all the same, and so was one of 35; vectors of 64 are refused too, one of 32 lowers.
TEST_F(MatmulConvKnownBad, MixedMatmulWithAnFp8VectorOperand) {
    for (int64_t k : {320, 64, 32}) {
        SCOPED_TRACE(k);
        fe_graph *g = graph("mixed_fp8_vector", FE_DATA_NOT_SET);
        const std::vector<int64_t> da = {1, 57, k}, db = {1, k, 1};
        fe_tensor *a = strided(g, "a", da, packed_strides(da), FE_DATA_HALF);
        fe_tensor *b = strided(g, "b", db, packed_strides(db), FE_DATA_FP8_E4M3);
        fe_tensor *c = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
        ASSERT_FE_OK(fe_tensor_set_output(c, 1));
        ASSERT_FE_OK(fe_tensor_set_data_type(c, FE_DATA_FLOAT));
        expect_refused_or_lowered(g, k > 32, "an FP8 vector: more than 32 elements");
    }
}

// An int8 convolution into a float result with NCHW x and w is refused; channels-last lowers.
TEST_F(MatmulConvKnownBad, Int8ConvolutionIntoFloatNotChannelsLast) {
    for (bool channels_last : {false, true}) {
        SCOPED_TRACE(channels_last);
        fe_graph *g = graph("int8_conv", FE_DATA_INT8);
        const std::vector<int64_t> dx = {1, 24, 6, 9}, dw = {16, 24, 3, 3};
        auto layout = [&](const std::vector<int64_t> &d) {
            return channels_last ? channels_last_strides(d) : packed_strides(d);
        };
        fe_tensor *x = strided(g, "x", dx, layout(dx), FE_DATA_INT8), *w = strided(g, "w", dw, layout(dw), FE_DATA_INT8);
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        o.compute_data_type = FE_DATA_INT32;
        o.pre_padding[0] = o.pre_padding[1] = o.post_padding[0] = o.post_padding[1] = 1;
        fe_tensor *y = nullptr;
        ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        ASSERT_FE_OK(fe_tensor_set_data_type(y, FE_DATA_FLOAT));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, !channels_last, "an int8 convolution into a float result with x or w not channels-last");
    }
}

// Float B [7, 192, 102] with K outermost and the batch between K and N is taken: 10 such cases
// ran right on an H200 with cuDNN 9.19 (the faults once put down to it followed an earlier fault
// in the same process).
TEST_F(MatmulConvKnownBad, FloatBWithTheBatchBetweenKAndNIsTaken) {
    fe_graph *g = graph("matmul_kbn", FE_DATA_FLOAT);
    const std::vector<int64_t> da = {7, 31, 192}, db = {7, 192, 102}, sb = {102, 7 * 102, 1};
    fe_tensor *a = strided(g, "a", da, packed_strides(da)), *b = strided(g, "b", db, sb), *c = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    expect_lowered(g);
}

// A leaky relu straight on the matmul's result; a plain relu lowers.
TEST_F(MatmulConvKnownBad, LeakyReluStraightOnAMatmul) {
    for (double slope : {0.185, 0.0}) {
        SCOPED_TRACE(slope);
        fe_graph *g = graph("matmul_leaky_relu", FE_DATA_BFLOAT16);
        const std::vector<int64_t> da = {1, 114, 48}, db = {1, 48, 22};
        fe_tensor *a = strided(g, "a", da, packed_strides(da)), *b = strided(g, "b", db, packed_strides(db));
        fe_tensor *c = nullptr, *y = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
        fe_pointwise_options po = FE_POINTWISE_OPTIONS_INIT;
        po.relu_lower_clip_slope = slope;
        ASSERT_FE_OK(fe_graph_relu(g, c, &po, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, slope != 0.0, "leaky relu");
    }
}

// A row bias [1, 44] whose N has stride 33; a contiguous one lowers.
TEST_F(MatmulConvKnownBad, RowBiasWithAStridedN) {
    for (bool gap : {true, false}) {
        SCOPED_TRACE(gap ? "N stride 33" : "N contiguous");
        fe_graph *g = graph("matmul_bias", FE_DATA_FLOAT);
        const std::vector<int64_t> da = {4, 438}, db = {438, 44}, dbias = {1, 44};
        fe_tensor *a = strided(g, "a", da, packed_strides(da)), *b = strided(g, "b", db, packed_strides(db));
        fe_tensor *bias = strided(g, "bias", dbias, gap ? std::vector<int64_t>{1, 33} : packed_strides(dbias));
        fe_tensor *c = nullptr, *y = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
        ASSERT_FE_OK(fe_graph_bias(g, c, bias, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, gap, "not contiguous along N");
    }
}

// bfloat16 1-D dy into a float dx: refused from an NCHW dy, into a channels-last or an NCHW dx;
// channels-last dy into channels-last dx lowers.
TEST_F(MatmulConvKnownBad, DgradFloatDxNotChannelsLast) {
    struct Form {
        const char *name;
        bool dy_channels_last, dx_channels_last, refused;
    };
    for (const Form &f : {Form{"NCW dy, NWC dx", false, true, true}, Form{"NCW dy, NCW dx", false, false, true},
                          Form{"NWC dy, NWC dx", true, true, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("dgrad_float_dx", FE_DATA_BFLOAT16);
        const std::vector<int64_t> ddy = {2, 48, 11}, dw = {48, 80, 7}, ddx = {2, 80, 11};
        auto layout = [](bool channels_last, const std::vector<int64_t> &d) {
            return channels_last ? channels_last_strides(d) : packed_strides(d);
        };
        fe_tensor *dy = strided(g, "dy", ddy, layout(f.dy_channels_last, ddy));
        fe_tensor *w = strided(g, "w", dw, layout(f.dy_channels_last, dw));
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        const int64_t pad[1] = {3};
        ASSERT_FE_OK(fe_conv_options_set_padding(&o, 1, pad));
        fe_tensor *dx = nullptr;
        ASSERT_FE_OK(fe_graph_conv_dgrad(g, dy, w, ddx.size(), ddx.data(), &o, &dx));
        ASSERT_FE_OK(fe_tensor_set_data_type(dx, FE_DATA_FLOAT));
        std::vector<int64_t> sx = layout(f.dx_channels_last, ddx);
        ASSERT_FE_OK(fe_tensor_set_strides(dx, sx.size(), sx.data()));
        ASSERT_FE_OK(fe_tensor_set_output(dx, 1));
        expect_refused_or_lowered(g, f.refused, "float dx");
    }
}

// Float wgrad with padding (3, 2) over an image of height 2, NCHW or channels-last: refused as
// asymmetric padding (conv_wgrad_float_asymmetric_padding).
TEST_F(MatmulConvKnownBad, FloatWgradWithPaddingPastTheImage) {
    for (bool nchw : {true, false}) {
        SCOPED_TRACE(nchw ? "NCHW" : "channels-last");
        fe_graph *g = graph("wgrad_overhang", FE_DATA_FLOAT);
        fe_tensor *x = tensor(g, "x", {2, 3, 2, 5}, !nchw), *dy = tensor(g, "dy", {2, 104, 3, 1}, !nchw);
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        const int64_t pre[2] = {3, 0}, post[2] = {2, 0}, dw_dims[4] = {104, 3, 5, 5};
        ASSERT_FE_OK(fe_conv_options_set_pre_padding(&o, 2, pre));
        ASSERT_FE_OK(fe_conv_options_set_post_padding(&o, 2, post));
        fe_tensor *dw = nullptr;
        ASSERT_FE_OK(fe_graph_conv_wgrad(g, x, dy, 4, dw_dims, &o, &dw));
        ASSERT_FE_OK(fe_tensor_set_output(dw, 1));
        expect_refused(g, "a float weight gradient (dw) of a convolution with asymmetric padding");
    }
}

// A half NCHW image with padding (0, 4) / (1, 4) over 6x2: a float dw is refused (asymmetric
// padding), a half one lowers.
TEST_F(MatmulConvKnownBad, HalfWgradIntoAFloatDwWithPaddingPastTheImage) {
    for (bool float_dw : {true, false}) {
        SCOPED_TRACE(float_dw ? "float dw" : "half dw");
        fe_graph *g = graph("wgrad_overhang_half", FE_DATA_HALF);
        fe_tensor *x = tensor(g, "x", {1, 24, 6, 2}, false), *dy = tensor(g, "dy", {1, 24, 1, 2}, false);
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        const int64_t pre[2] = {0, 4}, post[2] = {1, 4}, stride[2] = {3, 3}, dw_dims[4] = {24, 24, 5, 7};
        ASSERT_FE_OK(fe_conv_options_set_pre_padding(&o, 2, pre));
        ASSERT_FE_OK(fe_conv_options_set_post_padding(&o, 2, post));
        ASSERT_FE_OK(fe_conv_options_set_stride(&o, 2, stride));
        fe_tensor *dw = nullptr;
        ASSERT_FE_OK(fe_graph_conv_wgrad(g, x, dy, 4, dw_dims, &o, &dw));
        if (float_dw) {
            ASSERT_FE_OK(fe_tensor_set_data_type(dw, FE_DATA_FLOAT));
        }
        ASSERT_FE_OK(fe_tensor_set_output(dw, 1));
        expect_refused_or_lowered(g, float_dw, "a float weight gradient (dw) of a convolution with asymmetric padding");
    }
}

// C [3, 88, 206] laid out N, M, batch (the batch innermost): refused; batch outermost lowers.
TEST_F(MatmulConvKnownBad, BatchInnermostResult) {
    for (bool innermost : {true, false}) {
        SCOPED_TRACE(innermost ? "nmb" : "bmn");
        fe_graph *g = graph("matmul_nmb", FE_DATA_FLOAT);
        const std::vector<int64_t> da = {3, 88, 54}, db = {3, 54, 206};
        fe_tensor *a = strided(g, "a", da, packed_strides(da)), *b = strided(g, "b", db, packed_strides(db));
        fe_tensor *c = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
        if (innermost) {
            const int64_t cs[3] = {1, 3, 3 * 88};
            ASSERT_FE_OK(fe_tensor_set_strides(c, 3, cs));
        }
        ASSERT_FE_OK(fe_tensor_set_output(c, 1));
        expect_refused_or_lowered(g, innermost, "neither M nor N contiguous");
    }
}

}  // namespace
