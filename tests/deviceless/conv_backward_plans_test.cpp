// Convolution data and weight gradients, grouped and depthwise convolutions and the transposed
// convolution build whole plans with no GPU (precompiled engines). A few cases per direction:
// ranks 1 to 3, strides, groups, the three io types.
#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

enum class Direction { Fprop, Dgrad, Wgrad };

struct Case {
    const char *name;
    Direction direction;
    fe_data_type type;
    std::vector<int64_t> image, weight;  // of the forward convolution
    int64_t pad, stride, groups;
    bool channels_last;
    std::vector<int64_t> dy;  // the forward result
};

class ConvDirectionPlans : public Deviceless, public ::testing::WithParamInterface<Case> {};

TEST_P(ConvDirectionPlans, BuildsAWholePlan) {
    const Case &c = GetParam();
    fe_graph *g = graph(c.name, c.type);
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    size_t spatial = c.image.size() - 2;
    for (size_t i = 0; i < spatial; ++i) {
        o.pre_padding[i] = o.post_padding[i] = c.pad;
        o.stride[i] = c.stride;
    }
    o.groups = c.groups;
    fe_tensor *out = nullptr;
    std::vector<int64_t> expected;
    switch (c.direction) {
        case Direction::Fprop: {
            fe_tensor *x = tensor(g, "x", c.image, c.channels_last), *w = tensor(g, "w", c.weight, c.channels_last);
            ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &out));
            expected = c.dy;
            break;
        }
        case Direction::Dgrad: {
            fe_tensor *dy = tensor(g, "dy", c.dy, c.channels_last), *w = tensor(g, "w", c.weight, c.channels_last);
            ASSERT_FE_OK(fe_graph_conv_dgrad(g, dy, w, c.image.size(), c.image.data(), &o, &out));
            expected = c.image;
            break;
        }
        case Direction::Wgrad: {
            fe_tensor *x = tensor(g, "x", c.image, c.channels_last), *dy = tensor(g, "dy", c.dy, c.channels_last);
            // Stride 1 leaves one filter size: dw's dims are inferred.
            const int64_t *dims = c.stride == 1 ? nullptr : c.weight.data();
            ASSERT_FE_OK(fe_graph_conv_wgrad(g, x, dy, c.weight.size(), dims, &o, &out));
            expected = c.weight;
            break;
        }
    }
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
    std::vector<int64_t> dims(expected.size());
    ASSERT_FE_OK(fe_tensor_get_dims(out, dims.data(), dims.size()));
    EXPECT_EQ(dims, expected);
    expect_full_plan(g);
}

Case dgrad(const char *name, fe_data_type t, std::vector<int64_t> x, std::vector<int64_t> w, int64_t pad,
           int64_t stride, int64_t groups, std::vector<int64_t> dy, bool nhwc = true) {
    return Case{name, Direction::Dgrad, t, x, w, pad, stride, groups, nhwc, dy};
}
Case wgrad(const char *name, fe_data_type t, std::vector<int64_t> x, std::vector<int64_t> w, int64_t pad,
           int64_t stride, int64_t groups, std::vector<int64_t> dy, bool nhwc = true) {
    return Case{name, Direction::Wgrad, t, x, w, pad, stride, groups, nhwc, dy};
}
Case fprop(const char *name, fe_data_type t, std::vector<int64_t> x, std::vector<int64_t> w, int64_t pad,
           int64_t stride, int64_t groups, std::vector<int64_t> dy, bool nhwc = true) {
    return Case{name, Direction::Fprop, t, x, w, pad, stride, groups, nhwc, dy};
}

INSTANTIATE_TEST_SUITE_P(
    Deviceless, ConvDirectionPlans,
    ::testing::Values(
        dgrad("dgrad_seed_fp16", FE_DATA_HALF, {16, 64, 56, 56}, {128, 64, 3, 3}, 1, 1, 1, {16, 128, 56, 56}),
        dgrad("dgrad_bf16_stride2", FE_DATA_BFLOAT16, {8, 64, 56, 56}, {128, 64, 3, 3}, 1, 2, 1, {8, 128, 28, 28}),
        dgrad("dgrad_fp32_nchw", FE_DATA_FLOAT, {4, 32, 28, 28}, {64, 32, 3, 3}, 1, 1, 1, {4, 64, 28, 28}, false),
        dgrad("dgrad_fp16_conv1d", FE_DATA_HALF, {8, 64, 128}, {64, 64, 3}, 1, 1, 1, {8, 64, 128}),
        dgrad("dgrad_fp16_conv3d", FE_DATA_HALF, {2, 32, 8, 16, 16}, {32, 32, 3, 3, 3}, 1, 1, 1, {2, 32, 8, 16, 16}),
        dgrad("dgrad_fp16_grouped", FE_DATA_HALF, {8, 64, 28, 28}, {64, 16, 3, 3}, 1, 1, 4, {8, 64, 28, 28}),
        wgrad("wgrad_seed_fp16", FE_DATA_HALF, {16, 64, 56, 56}, {128, 64, 3, 3}, 1, 1, 1, {16, 128, 56, 56}),
        wgrad("wgrad_bf16_stride2", FE_DATA_BFLOAT16, {8, 64, 56, 56}, {128, 64, 3, 3}, 1, 2, 1, {8, 128, 28, 28}),
        wgrad("wgrad_fp32_nchw", FE_DATA_FLOAT, {4, 32, 28, 28}, {64, 32, 3, 3}, 1, 1, 1, {4, 64, 28, 28}, false),
        wgrad("wgrad_fp16_conv1d", FE_DATA_HALF, {8, 64, 128}, {64, 64, 3}, 1, 1, 1, {8, 64, 128}),
        wgrad("wgrad_fp16_conv3d", FE_DATA_HALF, {2, 32, 8, 16, 16}, {32, 32, 3, 3, 3}, 1, 1, 1, {2, 32, 8, 16, 16}),
        wgrad("wgrad_fp16_grouped", FE_DATA_HALF, {8, 64, 28, 28}, {64, 16, 3, 3}, 1, 1, 4, {8, 64, 28, 28}),
        fprop("fprop_fp16_grouped", FE_DATA_HALF, {8, 64, 28, 28}, {128, 16, 3, 3}, 1, 1, 4, {8, 128, 28, 28}),
        fprop("fprop_fp16_depthwise", FE_DATA_HALF, {16, 64, 56, 56}, {64, 1, 3, 3}, 1, 1, 64, {16, 64, 56, 56}),
        dgrad("dgrad_fp16_depthwise", FE_DATA_HALF, {16, 64, 56, 56}, {64, 1, 3, 3}, 1, 1, 64, {16, 64, 56, 56}),
        wgrad("wgrad_fp16_depthwise", FE_DATA_HALF, {16, 64, 56, 56}, {64, 1, 3, 3}, 1, 1, 64, {16, 64, 56, 56})),
    [](const ::testing::TestParamInfo<Case> &info) { return std::string(info.param.name); });

TEST_F(Deviceless, TransposedConvolutionOfTheSeedIsADgradPlan) {
    // The tutorial's upsampling: [16, 128, 14, 14] with a [128, 64, 4, 4] weight, stride 2,
    // padding 1 -> [16, 64, 28, 28].
    fe_graph *g = graph("conv_transpose", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {16, 128, 14, 14}, true), *w = tensor(g, "w", {128, 64, 4, 4}, true);
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    int64_t pad[2] = {1, 1}, stride[2] = {2, 2};
    ASSERT_FE_OK(fe_conv_options_set_padding(&o, 2, pad));
    ASSERT_FE_OK(fe_conv_options_set_stride(&o, 2, stride));
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_transpose(g, x, w, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    int64_t dims[4];
    ASSERT_FE_OK(fe_tensor_get_dims(y, dims, 4));
    EXPECT_EQ(std::vector<int64_t>(dims, dims + 4), (std::vector<int64_t>{16, 64, 28, 28}));
    EXPECT_STREQ(name_of(y), "conv_transpose_0::Y");
    expect_full_plan(g);
    EXPECT_NE(describe(g).find("conv_transpose 'conv_transpose_0' (image=x, weight=w)"), std::string::npos);
}

}  // namespace
