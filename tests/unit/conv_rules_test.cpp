// Convolution directions without cuDNN: dgrad, wgrad, transposed and grouped convolutions infer
// their results, and every inconsistent call fails with a message that names the cause.
#include <cstddef>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

class Conv : public cudnnfe_test::GraphTest {
  protected:
    Conv() : GraphTest("g", FE_DATA_HALF) {}
    fe_tensor *tensor(const char *name, std::vector<int64_t> dims, bool channels_last = true) {
        return cudnnfe_test::make_tensor(g, name, dims, channels_last, FE_DATA_NOT_SET);
    }
    static fe_conv_options padded(int64_t pad, int64_t stride = 1, size_t spatial = 2) {
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        std::vector<int64_t> p(spatial, pad), s(spatial, stride);
        fe_conv_options_set_padding(&o, spatial, p.data());
        fe_conv_options_set_stride(&o, spatial, s.data());
        return o;
    }
};

// ---- inference ----------------------------------------------------------------------------

TEST_F(Conv, DgradTakesTheGivenDimsLaidOutLikeDy) {
    fe_tensor *dy = tensor("dy", {16, 128, 56, 56}), *w = tensor("w", {128, 64, 3, 3}), *dx = nullptr;
    fe_conv_options o = padded(1);
    int64_t dx_dims[4] = {16, 64, 56, 56};
    ASSERT_FE_OK(fe_graph_conv_dgrad(g, dy, w, 4, dx_dims, &o, &dx));
    EXPECT_EQ(dims(dx), (std::vector<int64_t>{16, 64, 56, 56}));
    EXPECT_EQ(strides(dx), (std::vector<int64_t>{200704, 1, 3584, 64}));  // channels-last like dy
    EXPECT_STREQ(name_of(dx), "conv_dgrad_0::DX");
}

TEST_F(Conv, DgradWithAStrideAcceptsEitherImageSizeThatFits) {
    // 55 and 56 both give 28 with a 3x3 filter, padding 1, stride 2: only the caller knows which.
    fe_tensor *dy = tensor("dy", {8, 128, 28, 28}), *w = tensor("w", {128, 64, 3, 3}), *a = nullptr, *b = nullptr;
    fe_conv_options o = padded(1, 2);
    int64_t even[4] = {8, 64, 56, 56}, odd[4] = {8, 64, 55, 55};
    ASSERT_FE_OK(fe_graph_conv_dgrad(g, dy, w, 4, even, &o, &a));
    ASSERT_FE_OK(fe_graph_conv_dgrad(g, dy, w, 4, odd, &o, &b));
    EXPECT_EQ(dims(b), (std::vector<int64_t>{8, 64, 55, 55}));
}

TEST_F(Conv, DgradDimsSetOnTheResultReplaceTheGivenOnes) {
    fe_tensor *dy = tensor("dy", {8, 128, 28, 28}), *w = tensor("w", {128, 64, 3, 3}), *dx = nullptr;
    fe_conv_options o = padded(1, 2);
    int64_t even[4] = {8, 64, 56, 56}, odd[4] = {8, 64, 55, 55}, wrong[4] = {8, 64, 60, 60};
    ASSERT_FE_OK(fe_graph_conv_dgrad(g, dy, w, 4, even, &o, &dx));
    ASSERT_FE_OK(fe_tensor_set_dims(dx, 4, odd));
    ASSERT_FE_OK(fe_tensor_set_output(dx, 1));
    ASSERT_FE_OK(fe_graph_validate(g));
    EXPECT_EQ(dims(dx), (std::vector<int64_t>{8, 64, 55, 55}));
    ASSERT_FE_OK(fe_tensor_set_dims(dx, 4, wrong));
    EXPECT_FE_REFUSED(fe_graph_validate(g), FE_STATUS_INVALID_ARGUMENT,
                      "dy has dims [8,128,28,28], but dx [8,64,60,60] convolved with weight");
}

TEST_F(Conv, WgradInfersTheFilterWithStrideOne) {
    fe_tensor *x = tensor("x", {16, 64, 56, 56}), *dy = tensor("dy", {16, 128, 56, 56}), *dw = nullptr;
    fe_conv_options o = padded(1);
    ASSERT_FE_OK(fe_graph_conv_wgrad(g, x, dy, 0, nullptr, &o, &dw));
    EXPECT_EQ(dims(dw), (std::vector<int64_t>{128, 64, 3, 3}));
    EXPECT_EQ(strides(dw), (std::vector<int64_t>{576, 1, 192, 64}));  // channels-last like the image
    EXPECT_STREQ(name_of(dw), "conv_wgrad_0::DW");
    // 1-D and 3-D, dilated.
    fe_tensor *x1 = tensor("x1", {4, 8, 100}), *dy1 = tensor("dy1", {4, 16, 92}), *dw1 = nullptr;
    fe_conv_options o1 = FE_CONV_OPTIONS_INIT;
    o1.dilation[0] = 2;
    ASSERT_FE_OK(fe_graph_conv_wgrad(g, x1, dy1, 0, nullptr, &o1, &dw1));
    EXPECT_EQ(dims(dw1), (std::vector<int64_t>{16, 8, 5}));
    fe_tensor *x3 = tensor("x3", {2, 32, 8, 16, 16}), *dy3 = tensor("dy3", {2, 32, 8, 16, 16}), *dw3 = nullptr;
    fe_conv_options o3 = padded(1, 1, 3);
    ASSERT_FE_OK(fe_graph_conv_wgrad(g, x3, dy3, 0, nullptr, &o3, &dw3));
    EXPECT_EQ(dims(dw3), (std::vector<int64_t>{32, 32, 3, 3, 3}));
}

TEST_F(Conv, GroupedAndDepthwiseShapes) {
    fe_tensor *x = tensor("x", {16, 64, 56, 56}), *w = tensor("w", {64, 1, 3, 3}), *y = nullptr;
    fe_conv_options o = padded(1);
    o.groups = 64;  // depthwise
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    EXPECT_EQ(dims(y), (std::vector<int64_t>{16, 64, 56, 56}));
    fe_tensor *dy = tensor("dy", {16, 64, 56, 56}), *dw = nullptr;
    ASSERT_FE_OK(fe_graph_conv_wgrad(g, x, dy, 0, nullptr, &o, &dw));
    EXPECT_EQ(dims(dw), (std::vector<int64_t>{64, 1, 3, 3}));
    fe_tensor *w4 = tensor("w4", {128, 16, 3, 3}), *y4 = nullptr, *dx4 = nullptr;
    o.groups = 4;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w4, &o, &y4));
    EXPECT_EQ(dims(y4), (std::vector<int64_t>{16, 128, 56, 56}));
    int64_t dx_dims[4] = {16, 64, 56, 56};
    ASSERT_FE_OK(fe_graph_conv_dgrad(g, y4, w4, 4, dx_dims, &o, &dx4));
    char text[4096];
    size_t n = 0;
    ASSERT_FE_OK(fe_graph_describe(g, text, sizeof text, &n));
    EXPECT_NE(std::string(text).find("groups=4"), std::string::npos) << text;
}

TEST_F(Conv, TransposedConvolutionUpsamples) {
    fe_tensor *x = tensor("x", {16, 128, 14, 14}), *w = tensor("w", {128, 64, 4, 4}), *y = nullptr;
    fe_conv_options o = padded(1, 2);
    ASSERT_FE_OK(fe_graph_conv_transpose(g, x, w, &o, &y));
    EXPECT_EQ(dims(y), (std::vector<int64_t>{16, 64, 28, 28}));
    EXPECT_EQ(strides(y), (std::vector<int64_t>{50176, 1, 1792, 64}));
    // Output padding picks the larger image of the same stride class; groups scale C_out.
    fe_tensor *w3 = tensor("w3", {128, 16, 3, 3}), *y3 = nullptr;
    fe_conv_options o3 = padded(1, 2);
    o3.output_padding[0] = o3.output_padding[1] = 1;
    o3.groups = 2;
    ASSERT_FE_OK(fe_graph_conv_transpose(g, x, w3, &o3, &y3));
    EXPECT_EQ(dims(y3), (std::vector<int64_t>{16, 32, 28, 28}));  // (14-1)*2 - 2 + 2 + 1 + 1
}

// ---- errors ---------------------------------------------------------------------------------

TEST_F(Conv, GroupsMustDivideTheChannels) {
    fe_tensor *x = tensor("x", {8, 64, 28, 28}), *w = tensor("w", {96, 21, 3, 3}), *y = nullptr;
    fe_conv_options o = padded(1);
    o.groups = 3;
    EXPECT_FE_REFUSED(fe_graph_conv_fprop(g, x, w, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_conv_fprop: groups (3) do not divide the 64 channels of image");
    EXPECT_EQ(y, nullptr);
    fe_tensor *x96 = tensor("x96", {8, 96, 28, 28}), *w2 = tensor("w2", {64, 32, 3, 3});
    EXPECT_FE_REFUSED(fe_graph_conv_fprop(g, x96, w2, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "groups (3) do not divide the 64 output channels of weight");
    fe_tensor *dy = tensor("dy", {8, 96, 28, 28});
    EXPECT_FE_REFUSED(fe_graph_conv_wgrad(g, x, dy, 0, nullptr, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_conv_wgrad: groups (3) do not divide the 64 channels of image");
    int64_t dx_dims[4] = {8, 64, 28, 28};
    EXPECT_FE_REFUSED(fe_graph_conv_dgrad(g, dy, w, 4, dx_dims, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_conv_dgrad: groups (3) do not divide the 64 channels of dx");
    fe_tensor *xt = tensor("xt", {8, 64, 14, 14}), *wt = tensor("wt", {64, 8, 4, 4});
    EXPECT_FE_REFUSED(fe_graph_conv_transpose(g, xt, wt, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_conv_transpose: groups (3) do not divide the 64 channels of image");
    o.groups = 0;
    EXPECT_FE_REFUSED(fe_graph_conv_fprop(g, x, w, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "options.groups is 0; it must be 1 to 2147483647");
}

TEST_F(Conv, WeightChannelsMustMatch) {
    fe_tensor *x = tensor("x", {8, 64, 28, 28}), *w = tensor("w", {128, 8, 3, 3}), *y = nullptr;
    fe_conv_options o = padded(1);
    o.groups = 4;
    EXPECT_FE_STATUS(fe_graph_conv_fprop(g, x, w, &o, &y), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains(
        "weight has 8 input channels per group, so 4 groups take 32 channels, but image has 64"));
    // dgrad: dy's channels are the weight's output channels; dx's are its input channels.
    fe_tensor *dy = tensor("dy", {8, 64, 28, 28}), *w2 = tensor("w2", {128, 64, 3, 3});
    fe_conv_options o1 = padded(1);
    int64_t dx_dims[4] = {8, 64, 28, 28}, dx32[4] = {8, 32, 28, 28};
    EXPECT_FE_REFUSED(fe_graph_conv_dgrad(g, dy, w2, 4, dx_dims, &o1, &y), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_conv_dgrad: dy has 64 channels but weight has 128 output channels");
    fe_tensor *dy128 = tensor("dy128", {8, 128, 28, 28});
    EXPECT_FE_REFUSED(fe_graph_conv_dgrad(g, dy128, w2, 4, dx32, &o1, &y), FE_STATUS_INVALID_ARGUMENT,
                      "weight has 64 input channels, dx has 32");
    // wgrad with given dims: dw's output channels are dy's.
    int64_t dw_dims[4] = {64, 64, 3, 3};
    EXPECT_FE_REFUSED(fe_graph_conv_wgrad(g, x, dy128, 4, dw_dims, &o1, &y), FE_STATUS_INVALID_ARGUMENT,
                      "dw has 64 output channels (its dim 0), dy has 128 channels");
    // transposed: the weight's dim 0 is the image's channels.
    EXPECT_FE_REFUSED(fe_graph_conv_transpose(g, dy, w2, &o1, &y), FE_STATUS_INVALID_ARGUMENT,
                      "weight has 128 input channels, image has 64");
}

TEST_F(Conv, RanksMustMatch) {
    fe_tensor *x = tensor("x", {8, 64, 28, 28}), *w3 = tensor("w3", {64, 64, 3, 3, 3}), *y = nullptr;
    EXPECT_FE_REFUSED(fe_graph_conv_fprop(g, x, w3, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "weight has rank 5, image has rank 4; they must match");
    fe_tensor *x2 = tensor("x2", {8, 64}, false);
    EXPECT_FE_REFUSED(fe_graph_conv_fprop(g, x2, w3, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "image has rank 2; a convolution takes [N, C, spatial...]");
    fe_tensor *dy5 = tensor("dy5", {8, 64, 4, 28, 28});
    EXPECT_FE_REFUSED(fe_graph_conv_wgrad(g, x, dy5, 0, nullptr, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "dy has rank 5, image has rank 4; they must match");
    fe_tensor *w = tensor("w", {64, 64, 3, 3});
    int64_t dx3[3] = {8, 64, 28};
    EXPECT_FE_REFUSED(fe_graph_conv_dgrad(g, x, w, 3, dx3, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "dx is given 3 dims but dy has rank 4; they must match");
    int64_t dx6[6] = {8, 64, 1, 1, 28, 28};
    EXPECT_FE_REFUSED(fe_graph_conv_dgrad(g, x, w, 6, dx6, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "dx_dims has 6 dims; a convolution's tensors have 3 to 5");
    int64_t bad[4] = {8, 0, 28, 28};
    EXPECT_FE_REFUSED(fe_graph_conv_dgrad(g, x, w, 4, bad, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "dx_dims[1] is 0; dims must be positive");
}

TEST_F(Conv, DgradWithoutOutputDimsSaysWhyTheyAreNeeded) {
    fe_tensor *dy = tensor("dy", {8, 128, 28, 28}), *w = tensor("w", {128, 64, 3, 3}), *dx = nullptr;
    fe_conv_options o = padded(1, 2);
    EXPECT_FE_REFUSED(fe_graph_conv_dgrad(g, dy, w, 0, nullptr, &o, &dx), FE_STATUS_NULL_POINTER,
                      "fe_graph_conv_dgrad: argument 'dx_dims' is NULL: the forward image's dims (3 to 5), which dy cannot "
                      "give");
    EXPECT_EQ(dx, nullptr);
    // Dims that do not give dy are refused with both sizes.
    int64_t wrong[4] = {8, 64, 60, 56};
    EXPECT_FE_REFUSED(fe_graph_conv_dgrad(g, dy, w, 4, wrong, &o, &dx), FE_STATUS_INVALID_ARGUMENT,
                      "dy has dims [8,128,28,28], but dx [8,64,60,56] convolved with weight "
                      "[128,64,3,3] gives [8,128,30,28]");
    // Nothing was added by the failed calls, not even a used-up automatic name.
    fe_tensor *none = nullptr;
    EXPECT_FE_STATUS(fe_graph_tensor_by_name(g, "conv_dgrad_0::DX", &none), FE_STATUS_NOT_FOUND);
}

TEST_F(Conv, WgradAsksForDimsWhenTheFilterSizeIsAmbiguous) {
    fe_tensor *x = tensor("x", {8, 64, 56, 56}), *dy = tensor("dy", {8, 128, 28, 28}), *dw = nullptr;
    fe_conv_options o = padded(1, 2);
    EXPECT_FE_REFUSED(fe_graph_conv_wgrad(g, x, dy, 0, nullptr, &o, &dw), FE_STATUS_INVALID_ARGUMENT,
                      "spatial dim 0: filter sizes 3 and 4 all turn the image's 56 into dy's 28 with "
                      "stride 2; pass dw_dims to say which");
    int64_t dw_dims[4] = {128, 64, 3, 3};
    ASSERT_FE_OK(fe_graph_conv_wgrad(g, x, dy, 4, dw_dims, &o, &dw));
    EXPECT_EQ(dims(dw), (std::vector<int64_t>{128, 64, 3, 3}));
    fe_tensor *big = tensor("big", {8, 128, 60, 60});
    EXPECT_FE_REFUSED(fe_graph_conv_wgrad(g, x, big, 0, nullptr, &o, &dw), FE_STATUS_INVALID_ARGUMENT,
                      "spatial dim 0: no filter size turns the image's 56 into dy's 60");
}

TEST_F(Conv, PaddingArityIsChecked) {
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    int64_t values[4] = {1, 1, 1, 1};
    EXPECT_FE_STATUS(fe_conv_options_set_padding(&o, 0, values), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains(
        "fe_conv_options_set_padding: 0 padding values; give 1 (every spatial dim) or one per spatial dim (2 or 3)"));
    EXPECT_FE_STATUS(fe_conv_options_set_padding(&o, 4, values), FE_STATUS_INVALID_ARGUMENT);
    ASSERT_FE_OK(fe_conv_options_set_padding(&o, 2, values));
    EXPECT_EQ(o.spatial_dims, 2u);
    EXPECT_FE_REFUSED(fe_conv_options_set_stride(&o, 3, values), FE_STATUS_INVALID_ARGUMENT,
                      "fe_conv_options_set_stride: stride is given for 3 spatial dims but the options "
                      "already have 2");
    EXPECT_EQ(o.stride[0], 1);  // untouched by the failure
    EXPECT_FE_STATUS(fe_conv_options_set_pre_padding(&o, 3, values), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_FE_STATUS(fe_conv_options_set_post_padding(&o, 3, values), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_FE_REFUSED(fe_conv_options_set_output_padding(&o, 3, values), FE_STATUS_INVALID_ARGUMENT,
                      "fe_conv_options_set_output_padding: output_padding is given for 3 spatial dims");
    // 2-D padding with a 3-D image is refused, not completed with zeros.
    fe_tensor *x = tensor("x", {2, 8, 4, 16, 16}), *w = tensor("w", {8, 8, 3, 3, 3}), *y = nullptr;
    EXPECT_FE_REFUSED(fe_graph_conv_fprop(g, x, w, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "options give 2 spatial dims (padding, stride, dilation) but image has 3");
    fe_tensor *dy = tensor("dy", {2, 8, 4, 16, 16});
    EXPECT_FE_REFUSED(fe_graph_conv_wgrad(g, x, dy, 0, nullptr, &o, &y), FE_STATUS_INVALID_ARGUMENT, "but image has 3");
}

// One value applies to every spatial dim, as in PyTorch: padding 1, stride 2 on a 56x56 image
// with a 3x3 filter gives 28x28 in both dims (not 28x54).
TEST_F(Conv, OneValueAppliesToEverySpatialDim) {
    fe_tensor *x = tensor("x", {8, 64, 56, 56}), *w = tensor("w", {32, 64, 3, 3}), *y = nullptr;
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    int64_t one = 1, two = 2;
    ASSERT_FE_OK(fe_conv_options_set_padding(&o, 1, &one));
    ASSERT_FE_OK(fe_conv_options_set_stride(&o, 1, &two));
    EXPECT_EQ(o.spatial_dims, 0u);  // the image's rank decides
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    EXPECT_EQ(dims(y), (std::vector<int64_t>{8, 32, 28, 28}));
    // The same options on a 3-D image pad and stride all three dims.
    fe_tensor *x3 = tensor("x3", {2, 8, 16, 16, 16}), *w3 = tensor("w3", {8, 8, 3, 3, 3}), *y3 = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x3, w3, &o, &y3));
    EXPECT_EQ(dims(y3), (std::vector<int64_t>{2, 8, 8, 8, 8}));
    // One value after per-dim values fills every dim and keeps the count.
    int64_t per_dim[2] = {0, 3};
    ASSERT_FE_OK(fe_conv_options_set_dilation(&o, 2, per_dim));
    ASSERT_FE_OK(fe_conv_options_set_dilation(&o, 1, &one));
    EXPECT_EQ(o.spatial_dims, 2u);
    EXPECT_EQ(o.dilation[1], 1);
    // Pre and post padding on their own.
    fe_conv_options asym = FE_CONV_OPTIONS_INIT;
    int64_t pre[2] = {1, 0}, post[2] = {0, 1};
    ASSERT_FE_OK(fe_conv_options_set_pre_padding(&asym, 2, pre));
    ASSERT_FE_OK(fe_conv_options_set_post_padding(&asym, 2, post));
    EXPECT_EQ(asym.pre_padding[0], 1);
    EXPECT_EQ(asym.post_padding[0], 0);
    EXPECT_EQ(asym.post_padding[1], 1);
}

TEST_F(Conv, OutputPaddingBelongsToTheTransposedConvolution) {
    fe_tensor *x = tensor("x", {8, 64, 14, 14}), *w = tensor("w", {64, 32, 4, 4}), *y = nullptr;
    fe_conv_options o = padded(1, 2);
    o.output_padding[1] = 2;
    EXPECT_FE_REFUSED(fe_graph_conv_transpose(g, x, w, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "output_padding of spatial dim 1 is 2; it must be at least 0 and below the stride (2)");
    o.output_padding[1] = 1;
    fe_tensor *wf = tensor("wf", {32, 64, 3, 3});
    EXPECT_FE_REFUSED(fe_graph_conv_fprop(g, x, wf, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "options.output_padding is not taken by conv_fprop");
    fe_conv_options big = padded(9, 1);
    fe_tensor *w1 = tensor("w1", {64, 32, 1, 1});
    EXPECT_FE_REFUSED(fe_graph_conv_transpose(g, x, w1, &big, &y), FE_STATUS_INVALID_ARGUMENT,
                      "the padding (9, 9) removes more than the 14 elements");
}

TEST_F(Conv, OptionsFromAnOlderHeaderGetDefaultsForAppendedFields) {
    // A caller compiled before groups existed passes a shorter struct: groups reads as 1.
    fe_tensor *x = tensor("x", {8, 64, 28, 28}), *w = tensor("w", {32, 64, 3, 3}), *y = nullptr;
    fe_conv_options o = padded(1);
    o.groups = 99;  // beyond the old struct_size: must be ignored
    o.struct_size = static_cast<uint32_t>(offsetof(fe_conv_options, groups));
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    EXPECT_EQ(dims(y), (std::vector<int64_t>{8, 32, 28, 28}));
}

}  // namespace
