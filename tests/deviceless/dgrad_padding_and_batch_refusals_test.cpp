// Refusals made from the conformance runs of seeds 46 to 49 and the sweeps beside them on an H200:
// a float 2-D data gradient padded asymmetrically from the edge of a wide filter, batchnorm
// inference of a batch of one given stride 1, an int8 operand whose batches are not 16-element
// aligned, and a grouped float convolution fused into a single pixel. Each refused graph names the
// capability table's reason; the nearest graphs the runs found right still lower.
#include <string>

#include "known_bad_support.hpp"

using cudnnfe_test::channels_last_strides;
using cudnnfe_test::layout_strides;
using cudnnfe_test::matmul_output;
using cudnnfe_test::packed_strides;
using cudnnfe_test::strided;

namespace {

using DgradPaddingAndBatchRefusals = cudnnfe_test::KnownBadRefusal;

// dx [1, 8, 8, 8] = dgrad(dy, w [4, 8, 7, 7]) padded (5, 1) before and (5, 6) after (seed 46
// case 243): refused NCHW; padded 2 before along the width, symmetric, channels-last, or with a
// 3-wide filter, taken.
TEST_F(DgradPaddingAndBatchRefusals, FloatDgradOfAWideFilterPaddedAsymmetricallyFromTheEdge) {
    struct Form {
        const char *name;
        int64_t pre_w, post_w, filter_w;
        bool channels_last;
        bool refused;
    };
    for (const Form &f : {Form{"NCHW, 1 / 6", 1, 6, 7, false, true}, Form{"NCHW, 0 / 2", 0, 2, 7, false, true},
                          Form{"NCHW, 2 / 6", 2, 6, 7, false, false}, Form{"NCHW, 1 / 1", 1, 1, 7, false, false},
                          Form{"NHWC, 1 / 6", 1, 6, 7, true, false}, Form{"NCHW, 3-wide, 1 / 2", 1, 2, 3, false, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("dgrad_edge_padding", FE_DATA_FLOAT);
        const int64_t out_w = 8 + f.pre_w + f.post_w - f.filter_w + 1;
        const std::vector<int64_t> ddy = {1, 4, 12, out_w}, dw = {4, 8, 7, f.filter_w}, ddx = {1, 8, 8, 8};
        auto layout = [&](const std::vector<int64_t> &d) { return layout_strides(f.channels_last, d); };
        fe_tensor *dy = strided(g, "dy", ddy, layout(ddy)), *w = strided(g, "w", dw, layout(dw)), *dx = nullptr;
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        const int64_t pre[2] = {5, f.pre_w}, post[2] = {5, f.post_w};
        ASSERT_FE_OK(fe_conv_options_set_pre_padding(&o, 2, pre));
        ASSERT_FE_OK(fe_conv_options_set_post_padding(&o, 2, post));
        ASSERT_FE_OK(fe_graph_conv_dgrad(g, dy, w, 4, ddx.data(), &o, &dx));
        ASSERT_FE_OK(fe_tensor_set_strides(dx, 4, layout(ddx).data()));
        ASSERT_FE_OK(fe_tensor_set_output(dx, 1));
        expect_refused_or_lowered(g, f.refused, "padded asymmetrically along the width with 0 or 1 before");
    }
}

// Batchnorm inference of x [1, 112, 4] given strides [1, 4, 1] (seed 48 case 81): refused; the
// same batch of one given the largest stride, taken.
TEST_F(DgradPaddingAndBatchRefusals, BatchnormInferenceOfABatchOfOneGivenStrideOne) {
    for (int64_t batch_stride : {int64_t{1}, int64_t{448}}) {
        SCOPED_TRACE("batch stride " + std::to_string(batch_stride));
        fe_graph *g = graph("batchnorm_inference_batch_of_one", FE_DATA_BFLOAT16);
        const std::vector<int64_t> dx = {1, 112, 4}, sx = {batch_stride, 4, 1}, dp = {1, 112, 1};
        fe_tensor *x = strided(g, "x", dx, sx);
        auto param = [&](const char *name) { return strided(g, name, dp, packed_strides(dp), FE_DATA_FLOAT); };
        fe_tensor *y = nullptr;
        ASSERT_FE_OK(fe_graph_batchnorm_inference(g, x, param("mean"), param("inv_variance"), param("scale"),
                                                  param("bias"), nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_strides(y, 3, sx.data()));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, batch_stride == 1, "whose batch dim is not outermost");
    }
}

// int8 A [2, 1, 832] whose two rows lie 838 elements apart, widened for a half B [2, 832, 401]
// (seed 47 case 131): refused; 832 apart, taken.
TEST_F(DgradPaddingAndBatchRefusals, MatmulWideningInt8WithUnalignedBatches) {
    for (int64_t batch_stride : {int64_t{838}, int64_t{832}}) {
        SCOPED_TRACE("batches " + std::to_string(batch_stride) + " apart");
        fe_graph *g = graph("matmul_int8_batches", FE_DATA_NOT_SET);
        const std::vector<int64_t> da = {2, 1, 832}, db = {2, 832, 401};
        fe_tensor *a = strided(g, "a", da, {batch_stride, 832, 1}, FE_DATA_INT8);
        fe_tensor *b = strided(g, "b", db, packed_strides(db), FE_DATA_HALF);
        matmul_output(g, a, b, FE_DATA_HALF);
        expect_refused_or_lowered(g, batch_stride % 16 != 0, "widens an int8 operand");
    }
}

// relu(conv(x [1, 48, 1, 2], w) + bias) into a single pixel, a 5x5 filter padded 2 at stride 3
// (seed 49 case 406, in 3 groups): refused grouped NCHW in float; ungrouped, or channels-last, taken.
TEST_F(DgradPaddingAndBatchRefusals, GroupedFloatConvolutionFusedIntoASinglePixel) {
    struct Form {
        const char *name;
        int64_t groups;
        bool channels_last;
        bool refused;
    };
    for (const Form &f : {Form{"3 groups, NCHW", 3, false, true}, Form{"ungrouped, NCHW", 1, false, false},
                          Form{"3 groups, NHWC", 3, true, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("conv_grouped_pixel", FE_DATA_FLOAT);
        const std::vector<int64_t> dx = {1, 48, 1, 2}, dw = {96, 48 / f.groups, 5, 5}, db = {1, 96, 1, 1};
        auto layout = [&](const std::vector<int64_t> &d) { return layout_strides(f.channels_last, d); };
        fe_tensor *x = strided(g, "x", dx, layout(dx)), *w = strided(g, "w", dw, layout(dw));
        fe_tensor *bias = strided(g, "bias", db, packed_strides(db));
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        const int64_t pad[2] = {2, 2}, stride[2] = {3, 3};
        ASSERT_FE_OK(fe_conv_options_set_padding(&o, 2, pad));
        ASSERT_FE_OK(fe_conv_options_set_stride(&o, 2, stride));
        o.groups = f.groups;
        fe_tensor *y = nullptr, *biased = nullptr, *out = nullptr;
        ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        ASSERT_FE_OK(fe_graph_bias(g, y, bias, nullptr, &biased));
        ASSERT_FE_OK(fe_graph_relu(g, biased, nullptr, &out));
        ASSERT_FE_OK(fe_tensor_set_output(out, 1));
        expect_refused_or_lowered(g, f.refused, "whose result is a single pixel");
    }
}

}  // namespace
