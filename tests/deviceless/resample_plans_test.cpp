// Resampling (pooling) lowers to cuDNN's resample operations and builds plans with no GPU;
// upsampling, which cuDNN 9.19 has no engine for, fails at build saying so.
#include "known_bad_support.hpp"

using cudnnfe_test::channels_last_strides;
using cudnnfe_test::Deviceless;

using cudnnfe_test::pool_options;

namespace {

struct PoolCase {
    const char *name;
    fe_data_type type;
    fe_resample_mode mode;
    bool channels_last;
    std::vector<int64_t> x;
    int64_t window, stride, pad;
    bool index;
    std::vector<int64_t> expected;
};

class ResamplePlans : public Deviceless, public ::testing::WithParamInterface<PoolCase> {};

TEST_P(ResamplePlans, ForwardBuilds) {
    const PoolCase &c = GetParam();
    fe_graph *g = graph(c.name, c.type);
    fe_tensor *x = tensor(g, "x", c.x, c.channels_last);
    fe_resample_options o = pool_options(c.mode, c.x.size() - 2, c.window, c.stride, c.pad);
    o.generate_index = c.index;
    fe_tensor *y = nullptr, *index = nullptr;
    ASSERT_FE_OK(fe_graph_resample(g, x, &o, &y, &index));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    if (c.index) ASSERT_FE_OK(fe_tensor_set_output(index, 1));
    std::vector<int64_t> dims(c.expected.size());
    ASSERT_FE_OK(fe_tensor_get_dims(y, dims.data(), dims.size()));
    EXPECT_EQ(dims, c.expected);
    if (c.channels_last)
        expect_supported(g);
    else
        expect_full_plan(g);
}

TEST_P(ResamplePlans, BackwardBuilds) {
    const PoolCase &c = GetParam();
    fe_graph *g = graph(c.name, c.type);
    fe_tensor *dy = tensor(g, "dy", c.expected, c.channels_last);
    fe_tensor *index = nullptr;
    if (c.mode == FE_RESAMPLE_MAXPOOL) index = tensor(g, "index", c.expected, c.channels_last, FE_DATA_INT8);
    fe_resample_options o = pool_options(c.mode, c.x.size() - 2, c.window, c.stride, c.pad);
    fe_tensor *dx = nullptr;
    ASSERT_FE_OK(fe_graph_resample_backward(g, dy, nullptr, nullptr, index, c.x.size(), c.x.data(), &o, &dx));
    ASSERT_FE_OK(fe_tensor_set_output(dx, 1));
    std::vector<int64_t> dims(c.x.size());
    ASSERT_FE_OK(fe_tensor_get_dims(dx, dims.data(), dims.size()));
    EXPECT_EQ(dims, c.x);
    if (c.mode == FE_RESAMPLE_MAXPOOL && !c.channels_last) {  // no engine; the message says so
        EXPECT_EQ(build(g), FE_STATUS_NOT_SUPPORTED);
        EXPECT_NE(std::string(fe_last_error_message()).find("only channels-last"), std::string::npos)
            << fe_last_error_message();
    } else if (c.channels_last)
        expect_supported(g);
    else
        expect_full_plan(g);
}

INSTANTIATE_TEST_SUITE_P(
    Deviceless, ResamplePlans,
    ::testing::Values(
        PoolCase{"max_fp16_nchw", FE_DATA_HALF, FE_RESAMPLE_MAXPOOL, false, {2, 16, 32, 32}, 2, 2, 0, false,
                 {2, 16, 16, 16}},
        PoolCase{"max_fp32_nhwc_index", FE_DATA_FLOAT, FE_RESAMPLE_MAXPOOL, true, {2, 16, 32, 32}, 3, 2, 1, true,
                 {2, 16, 16, 16}},
        PoolCase{"avg_incl_bf16_nchw", FE_DATA_BFLOAT16, FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING, false, {2, 8, 15, 15},
                 3, 2, 1, false, {2, 8, 8, 8}},
        PoolCase{"avg_excl_fp16_nchw", FE_DATA_HALF, FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING, false, {2, 8, 15, 15}, 3,
                 2, 1, false, {2, 8, 8, 8}},
        PoolCase{"max_fp16_nhwc", FE_DATA_HALF, FE_RESAMPLE_MAXPOOL, true, {2, 16, 32, 32}, 2, 2, 0, true,
                 {2, 16, 16, 16}},
        PoolCase{"avg_fp16_nhwc", FE_DATA_HALF, FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING, true, {2, 16, 32, 32}, 2, 2, 0,
                 false, {2, 16, 16, 16}}),
    [](const ::testing::TestParamInfo<PoolCase> &info) { return std::string(info.param.name); });

TEST_F(Deviceless, UpsamplingFailsAtBuildNamingConvTranspose) {
    for (fe_resample_mode mode : {FE_RESAMPLE_NEAREST, FE_RESAMPLE_BILINEAR}) {
        fe_graph *g = graph("upsample", FE_DATA_HALF);
        fe_tensor *x = tensor(g, "x", {1, 8, 8, 8});
        fe_resample_options o = FE_RESAMPLE_OPTIONS_INIT;
        o.mode = mode;
        o.stride[0] = o.stride[1] = 2;
        fe_tensor *y = nullptr;
        ASSERT_FE_OK(fe_graph_resample(g, x, &o, &y, nullptr));
        std::vector<int64_t> dims(4);
        ASSERT_FE_OK(fe_tensor_get_dims(y, dims.data(), 4));
        EXPECT_EQ(dims, (std::vector<int64_t>{1, 8, 16, 16}));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        EXPECT_EQ(build(g), FE_STATUS_NOT_SUPPORTED);
        EXPECT_NE(std::string(fe_last_error_message()).find("fe_graph_conv_transpose"), std::string::npos)
            << fe_last_error_message();
    }
}

// Refused at build on the cuDNN versions that crash on it (the capability table's
// max_pool_backward_from_x_and_y_channels_last), before cuDNN sees it: a channels-last dy, and a
// single channel whose stride is 1 (channels-last to cuDNN, which crashed choosing an engine for
// that graph of a randomized run).
TEST_F(Deviceless, MaxPoolBackwardFromXAndYChannelsLastIsRefusedAtBuild) {
    int64_t version = 0;
    ASSERT_FE_OK(fe_cudnn_version(&version));
    if (version >= 92000) GTEST_SKIP() << "cuDNN " << version << " is newer than the last version verified bad";
    struct Form {
        const char *name;
        std::vector<int64_t> x_dims, x_strides, y_dims, y_strides;
        fe_resample_options options;
    };
    const Form forms[] = {
        {"16 channels", {2, 16, 8, 8}, channels_last_strides({2, 16, 8, 8}), {2, 16, 4, 4},
         channels_last_strides({2, 16, 4, 4}), pool_options(FE_RESAMPLE_MAXPOOL, 2, 2, 2, 0)},
        {"one channel of stride 1", {4, 1, 7, 1}, {1, 43, 4, 4}, {4, 1, 8, 2}, {16, 1, 2, 1},
         pool_options(FE_RESAMPLE_MAXPOOL, 2, 4, 1, 2)},
    };
    for (const Form &f : forms) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("maxpool_bwd", FE_DATA_HALF);
        fe_tensor *x = tensor(g, "x", f.x_dims), *y = tensor(g, "y", f.y_dims), *dy = tensor(g, "dy", f.y_dims);
        ASSERT_FE_OK(fe_tensor_set_strides(x, f.x_strides.size(), f.x_strides.data()));
        ASSERT_FE_OK(fe_tensor_set_strides(y, f.y_strides.size(), f.y_strides.data()));
        ASSERT_FE_OK(fe_tensor_set_strides(dy, f.y_strides.size(), f.y_strides.data()));
        fe_tensor *dx = nullptr;
        ASSERT_FE_OK(fe_graph_resample_backward(g, dy, x, y, nullptr, 0, nullptr, &f.options, &dx));
        ASSERT_FE_OK(fe_tensor_set_output(dx, 1));
        EXPECT_EQ(build(g), FE_STATUS_NOT_SUPPORTED);
        EXPECT_NE(std::string(fe_last_error_message()).find("pass the forward's index"), std::string::npos)
            << fe_last_error_message();
    }
}

}  // namespace

namespace {

// Transpose is a pointwise identity through a permuted view, which cuDNN 9.19 has no engine for
// on its own: the build fails saying so.
TEST_F(Deviceless, TransposeOnItsOwnFailsSayingSo) {
    fe_graph *g = graph("transpose", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {4, 64, 32});
    const int64_t perm[3] = {0, 2, 1};
    fe_tensor *y = nullptr;
    fe_transpose_options y_options = FE_TRANSPOSE_OPTIONS_INIT;
    y_options.name = "t";
    ASSERT_FE_OK(fe_graph_transpose(g, x, 3, perm, &y_options, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    EXPECT_EQ(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_NE(std::string(fe_last_error_message()).find("permuted view on its own"), std::string::npos)
        << fe_last_error_message();
}

}  // namespace

namespace {

// Pooling that cuDNN 9.19 computes wrongly is refused with the capability table's reason: the
// index in NCHW, bfloat16 channels-last with channels not a multiple of 8, and average pooling
// counting padding with more after than before in NCHW (forward and backward).
TEST_F(Deviceless, KnownBadPoolingIsRefusedWithItsReason) {
    struct Bad {
        const char *name;
        fe_data_type type;
        bool channels_last, index;
        std::vector<int64_t> x;
        fe_resample_mode mode;
        int64_t pre, post;
        const char *reason;
    };
    const Bad cases[] = {
        {"index_nchw", FE_DATA_FLOAT, false, true, {2, 16, 32, 32}, FE_RESAMPLE_MAXPOOL, 1, 1, "never write the index"},
        {"bf16_nhwc_c3", FE_DATA_BFLOAT16, true, false, {2, 3, 32, 32}, FE_RESAMPLE_MAXPOOL, 1, 1, "write garbage"},
        {"avg_post_nchw", FE_DATA_HALF, false, false, {2, 8, 15, 15}, FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING, 0, 2,
         "leaves out the padding past the image's end"},
    };
    for (const Bad &c : cases) {
        SCOPED_TRACE(c.name);
        fe_graph *g = graph(c.name, c.type);
        fe_tensor *x = tensor(g, "x", c.x, c.channels_last);
        fe_resample_options o = pool_options(c.mode, 2, 3, 2, c.pre);
        o.post_padding[0] = o.post_padding[1] = c.post;
        o.generate_index = c.index;
        fe_tensor *y = nullptr, *index = nullptr;
        ASSERT_FE_OK(fe_graph_resample(g, x, &o, &y, &index));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        if (index) ASSERT_FE_OK(fe_tensor_set_output(index, 1));
        EXPECT_EQ(build(g), FE_STATUS_NOT_SUPPORTED);
        EXPECT_TRUE(LastErrorContains(c.reason)) << fe_last_error_message();
        EXPECT_TRUE(LastErrorContains("known bad through 9.19")) << fe_last_error_message();
    }
}

}  // namespace
