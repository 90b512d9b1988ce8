// Convolution forward and its classic fusion build whole plans with no GPU.
#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

struct ConvCase {
    const char *name;
    fe_data_type type;
    std::vector<int64_t> image, weight;
    int64_t pad, stride, dilation;
    bool channels_last;
    std::vector<int64_t> expected;
};

class ConvPlans : public Deviceless, public ::testing::WithParamInterface<ConvCase> {};

TEST_P(ConvPlans, BuildsAWholePlan) {
    const ConvCase &c = GetParam();
    fe_graph *g = graph(c.name, c.type);
    fe_tensor *x = tensor(g, "x", c.image, c.channels_last);
    fe_tensor *w = tensor(g, "w", c.weight, c.channels_last);
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    size_t spatial = c.image.size() - 2;
    for (size_t i = 0; i < spatial; ++i) {
        o.pre_padding[i] = o.post_padding[i] = c.pad;
        o.stride[i] = c.stride;
        o.dilation[i] = c.dilation;
    }
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    expect_full_plan(g);
    std::vector<int64_t> dims(c.expected.size());
    ASSERT_FE_OK(fe_tensor_get_dims(y, dims.data(), dims.size()));
    EXPECT_EQ(dims, c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Deviceless, ConvPlans,
    ::testing::Values(
        ConvCase{"seed_fp16_nhwc_3x3", FE_DATA_HALF, {8, 64, 56, 56}, {32, 64, 3, 3}, 1, 1, 1, true, {8, 32, 56, 56}},
        ConvCase{"bf16_nhwc_3x3", FE_DATA_BFLOAT16, {8, 64, 56, 56}, {32, 64, 3, 3}, 1, 1, 1, true, {8, 32, 56, 56}},
        ConvCase{"fp32_nhwc_3x3", FE_DATA_FLOAT, {4, 32, 28, 28}, {64, 32, 3, 3}, 1, 1, 1, true, {4, 64, 28, 28}},
        ConvCase{"fp32_nchw_3x3", FE_DATA_FLOAT, {4, 32, 28, 28}, {64, 32, 3, 3}, 1, 1, 1, false, {4, 64, 28, 28}},
        ConvCase{"fp16_strided", FE_DATA_HALF, {8, 64, 56, 56}, {128, 64, 3, 3}, 1, 2, 1, true, {8, 128, 28, 28}},
        ConvCase{"fp16_dilated", FE_DATA_HALF, {8, 64, 56, 56}, {64, 64, 3, 3}, 2, 1, 2, true, {8, 64, 56, 56}},
        ConvCase{"fp16_1x1", FE_DATA_HALF, {8, 256, 56, 56}, {64, 256, 1, 1}, 0, 1, 1, true, {8, 64, 56, 56}},
        ConvCase{"fp16_7x7_stride2", FE_DATA_HALF, {8, 3, 224, 224}, {64, 3, 7, 7}, 3, 2, 1, true, {8, 64, 112, 112}},
        ConvCase{"fp16_conv1d", FE_DATA_HALF, {8, 64, 128}, {64, 64, 3}, 1, 1, 1, true, {8, 64, 128}},
        ConvCase{"fp16_conv3d", FE_DATA_HALF, {2, 32, 8, 16, 16}, {32, 32, 3, 3, 3}, 1, 1, 1, true,
                 {2, 32, 8, 16, 16}}),
    [](const ::testing::TestParamInfo<ConvCase> &info) { return std::string(info.param.name); });

TEST_F(Deviceless, ConvBiasReluIsOneOperationGraphAndOnePlan) {
    fe_graph *g = graph("conv_bias_relu", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {8, 64, 56, 56}, true);
    fe_tensor *w = tensor(g, "w", {32, 64, 3, 3}, true);
    fe_tensor *b = tensor(g, "b", {1, 32, 1, 1});
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    int64_t pad[2] = {1, 1};
    ASSERT_FE_OK(fe_conv_options_set_padding(&o, 2, pad));
    fe_tensor *conv = nullptr, *biased = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &conv));
    ASSERT_FE_OK(fe_graph_bias(g, conv, b, nullptr, &biased));
    ASSERT_FE_OK(fe_graph_relu(g, biased, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    expect_full_plan(g);
    std::string text = describe(g);
    EXPECT_NE(text.find("cuDNN: 3 operation(s)"), std::string::npos) << text;
    EXPECT_NE(text.find("plan: eng"), std::string::npos) << text;
    int32_t is_virtual = 0;
    ASSERT_FE_OK(fe_tensor_is_virtual(conv, &is_virtual));
    EXPECT_EQ(is_virtual, 1);
}

TEST_F(Deviceless, BuildPolicyAllBuildsSeveralPlans) {
    fe_graph *g = graph("all_plans", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {8, 64, 56, 56}, true);
    fe_tensor *w = tensor(g, "w", {32, 64, 3, 3}, true);
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    int64_t pad[2] = {1, 1};
    fe_conv_options_set_padding(&o, 2, pad);
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    ASSERT_FE_OK(build(g, FE_BUILD_POLICY_ALL));
    size_t plans = 0, candidates = 0;
    ASSERT_FE_OK(fe_graph_plan_count(g, &plans));
    ASSERT_FE_OK(fe_graph_candidate_count(g, &candidates));
    EXPECT_GT(plans, 1);
    EXPECT_LE(plans, candidates);
}

}  // namespace

// With no captured description, the one the library carries for sm 90 builds the seed's
// convolution as the captured H100's does: the same plan.
TEST_F(Deviceless, TheCarriedSm90DescriptionBuildsWhatTheCapturedOneBuilds) {
    size_t length = 0;
    EXPECT_FE_STATUS(fe_device_properties_for_sm(90, nullptr, 0, &length), FE_STATUS_BUFFER_TOO_SMALL);
    std::string carried(length + 1, '\0');
    ASSERT_FE_OK(fe_device_properties_for_sm(90, &carried[0], carried.size(), &length));
    carried.resize(length);
    std::string tags[2];
    for (int i = 0; i < 2; ++i) {
        fe_graph *g = graph("seed", FE_DATA_HALF);
        fe_tensor *x = tensor(g, "x", {8, 64, 56, 56}, true), *w = tensor(g, "w", {32, 64, 3, 3}, true), *y = nullptr;
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        o.pre_padding[0] = o.pre_padding[1] = o.post_padding[0] = o.post_padding[1] = 1;
        ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        fe_build_options b = FE_BUILD_OPTIONS_INIT;
        b.device_properties_json = i == 0 ? carried.c_str() : json_.c_str();
        ASSERT_FE_OK(fe_graph_build(g, nullptr, &b));
        tags[i] = engine_tag_of(g);
    }
    EXPECT_EQ(tags[0], tags[1]);
}
