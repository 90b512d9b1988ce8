// Slices of one packed buffer feed a matmul as views: a whole plan builds with no GPU, the
// bindings leave the sliced input out of cuDNN's variant pack, and serialization keeps the
// views. Concatenation and a reshape on its own have no cuDNN 9.19 engine: the build says so.
#include "plans_that_last.hpp"

using cudnnfe_test::Deviceless;
using cudnnfe_test::PlansThatLast;

namespace {

// S = A.B with A [2, 64, 32] and B [2, 32, 32] both cut from one buffer [2, 64, 64].
fe_graph *sliced_matmul(fe_graph *g, fe_tensor *packed, fe_tensor **s) {
    const int64_t a_start[3] = {0, 0, 0}, a_end[3] = {2, 64, 32};
    const int64_t b_start[3] = {0, 0, 32}, b_end[3] = {2, 32, 64};
    fe_tensor *a = nullptr, *b = nullptr;
    fe_slice_options a_options = FE_SLICE_OPTIONS_INIT;
    a_options.name = "a";
    EXPECT_FE_OK(fe_graph_slice(g, packed, 3, a_start, a_end, &a_options, &a));
    fe_slice_options b_options = FE_SLICE_OPTIONS_INIT;
    b_options.name = "b";
    EXPECT_FE_OK(fe_graph_slice(g, packed, 3, b_start, b_end, &b_options, &b));
    fe_matmul_options mo = FE_MATMUL_OPTIONS_INIT;
    EXPECT_FE_OK(fe_graph_matmul(g, a, b, &mo, s));
    EXPECT_FE_OK(fe_tensor_set_output(*s, 1));
    return g;
}

TEST_F(Deviceless, SlicesOfOneBufferFeedAMatmul) {
    fe_graph *g = graph("sliced_matmul", FE_DATA_HALF);
    fe_tensor *packed = tensor(g, "packed", {2, 64, 64});
    fe_tensor *s = nullptr;
    sliced_matmul(g, packed, &s);
    expect_supported(g);  // strided operands: runtime-compiled engines
    std::vector<int64_t> dims(3);
    ASSERT_FE_OK(fe_tensor_get_dims(s, dims.data(), 3));
    EXPECT_EQ(dims, (std::vector<int64_t>{2, 64, 32}));
    // The user binds the packed buffer and the result; the slices are views, not bindings.
    size_t inputs = 0;
    ASSERT_FE_OK(fe_graph_input_count(g, &inputs));
    EXPECT_EQ(inputs, 1u);
    EXPECT_NE(describe(g).find("slice 'a'"), std::string::npos) << describe(g);
}

TEST_F(Deviceless, ConcatenateOnItsOwnFailsSayingSo) {
    fe_graph *g = graph("concatenate", FE_DATA_HALF);
    fe_tensor *a = tensor(g, "a", {2, 8, 60, 16}), *b = tensor(g, "b", {2, 8, 4, 16});
    fe_tensor *xs[2] = {a, b};
    fe_tensor *y = nullptr;
    fe_concatenate_options y_options = FE_CONCATENATE_OPTIONS_INIT;
    y_options.name = "kv";
    ASSERT_FE_OK(fe_graph_concatenate(g, 2, xs, 2, &y_options, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    EXPECT_EQ(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_NE(std::string(fe_last_error_message()).find("no engine for a concatenation on its own"), std::string::npos)
        << fe_last_error_message();
}

TEST_F(Deviceless, ReshapeOnItsOwnFailsSayingSo) {
    fe_graph *g = graph("reshape", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {128, 32});
    const int64_t to[3] = {2, 64, 32};
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_reshape(g, x, 3, to, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    fe_status s = build(g);
    if (s == FE_OK) GTEST_SKIP() << "this cuDNN runs a reshape on its own";
    EXPECT_EQ(s, FE_STATUS_NOT_SUPPORTED);
    EXPECT_NE(std::string(fe_last_error_message()).find("reshape"), std::string::npos) << fe_last_error_message();
}

TEST_F(PlansThatLast, SlicesSurviveSerialization) {
    // The seed's convolution on the second half of a batch of 16 held in one buffer.
    fe_graph *g = graph("sliced_blob", FE_DATA_HALF);
    fe_tensor *batch = tensor(g, "batch", {16, 64, 56, 56}, true);
    const int64_t start[4] = {8, 0, 0, 0}, end[4] = {16, 64, 56, 56};
    fe_tensor *x = nullptr, *y = nullptr;
    fe_slice_options x_options = FE_SLICE_OPTIONS_INIT;
    x_options.name = "second_half";
    ASSERT_FE_OK(fe_graph_slice(g, batch, 4, start, end, &x_options, &x));
    fe_tensor *w = tensor(g, "W", {32, 64, 3, 3}, true);
    fe_conv_options co = FE_CONV_OPTIONS_INIT;
    co.pre_padding[0] = co.pre_padding[1] = co.post_padding[0] = co.post_padding[1] = 1;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &co, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    fe_build_options o = options();
    o.use_plan_cache = 0;
    ASSERT_FE_OK(fe_graph_build(g, nullptr, &o));
    std::vector<unsigned char> bytes = serialize(g);
    fe_graph *back = nullptr;
    ASSERT_FE_OK(deserialize(bytes, &back));
    EXPECT_STREQ(engine_tag_of(back), engine_tag_of(g));
    EXPECT_EQ(serialize(back), bytes) << "the views, offsets and pack came back different";
    // The plan cache hands the views over too.
    fe_graph *again = graph("sliced_blob", FE_DATA_HALF);
    fe_tensor *batch2 = tensor(again, "batch", {16, 64, 56, 56}, true);
    fe_tensor *x2 = nullptr, *y2 = nullptr;
    fe_slice_options x2_options = FE_SLICE_OPTIONS_INIT;
    x2_options.name = "second_half";
    ASSERT_FE_OK(fe_graph_slice(again, batch2, 4, start, end, &x2_options, &x2));
    fe_tensor *w2 = tensor(again, "W", {32, 64, 3, 3}, true);
    ASSERT_FE_OK(fe_graph_conv_fprop(again, x2, w2, &co, &y2));
    ASSERT_FE_OK(fe_tensor_set_output(y2, 1));
    fe_build_options cached = options();
    ASSERT_FE_OK(fe_graph_build(again, nullptr, &cached));
    EXPECT_EQ(serialize(again).size(), bytes.size());
}

}  // namespace
