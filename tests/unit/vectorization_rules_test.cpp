// Vectorized int8 layouts (fe_tensor_set_vectorization) without cuDNN: the counts and dims cuDNN
// takes, on graph inputs only; a convolution of vectorized tensors infers a result vectorized
// alike; buffers count every value; the graph JSON keeps the layout. The build's refusals (other
// graphs, other types) are checked for the H100 description by the deviceless tier.
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

class Vectorization : public cudnnfe_test::GraphTest {
  protected:
    Vectorization() : GraphTest("g", FE_DATA_INT8) {}
    fe_tensor *vectorized(const char *name, int64_t n, int64_t channels, int64_t h, int64_t w, int32_t count) {
        return cudnnfe_test::make_vectorized_int8(g, name, n, channels, h, w, count);
    }
    fe_tensor *conv(fe_tensor *x, fe_tensor *w) {
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        const int64_t pad[] = {1, 1};
        fe_conv_options_set_padding(&o, 2, pad);
        fe_tensor *y = nullptr;
        EXPECT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        return y;
    }
};

TEST_F(Vectorization, OnlyTheCountsAndDimCudnnTakesOnAGraphInput) {
    fe_tensor *x = cudnnfe_test::make_tensor(g, "x", {2, 2, 8, 8}, false, FE_DATA_INT8);
    for (int32_t bad : {0, 2, 8, 16, 64}) {
        EXPECT_FE_REFUSED(fe_tensor_set_vectorization(x, bad, 1), FE_STATUS_INVALID_ARGUMENT,
                          "fe_tensor_set_vectorization: vectors of " + std::to_string(bad) + " values for 'x'");
    }
    EXPECT_FE_REFUSED(fe_tensor_set_vectorization(x, 32, 0), FE_STATUS_INVALID_ARGUMENT,
                      "'x' (rank 4) vectorized along dim 0: cuDNN vectorizes the channels (dim 1)");
    fe_tensor *row = cudnnfe_test::make_tensor(g, "row", {4, 32, 8}, false, FE_DATA_INT8);
    EXPECT_FE_REFUSED(fe_tensor_set_vectorization(row, 4, 1), FE_STATUS_INVALID_ARGUMENT,
                      "'row' (rank 3) vectorized along dim 1");
    fe_tensor *s = nullptr;
    ASSERT_FE_OK(fe_graph_scalar(g, "alpha", 2.0, FE_DATA_FLOAT, &s));
    EXPECT_FE_REFUSED(fe_tensor_set_vectorization(s, 4, 1), FE_STATUS_INVALID_ARGUMENT,
                      "'alpha' is a scalar passed by value: only a graph input is vectorized");
    ASSERT_FE_OK(fe_tensor_set_vectorization(x, 32, 1));
    int32_t count = 0, dim = 0;
    ASSERT_FE_OK(fe_tensor_get_vector_count(x, &count));
    ASSERT_FE_OK(fe_tensor_get_vector_dim(x, &dim));
    EXPECT_EQ(count, 32);
    EXPECT_EQ(dim, 1);
    int64_t bytes = 0;
    ASSERT_FE_OK(fe_tensor_size_bytes(x, &bytes));
    EXPECT_EQ(bytes, 2 * 64 * 8 * 8) << "a buffer holds every value of every vector";
    ASSERT_FE_OK(fe_tensor_set_vectorization(x, 1, 7));  // 1 removes it, whatever the dim
    ASSERT_FE_OK(fe_tensor_get_vector_dim(x, &dim));
    EXPECT_EQ(dim, -1);
}

TEST_F(Vectorization, AConvolutionOfVectorizedTensorsGivesAVectorizedResult) {
    fe_tensor *x = vectorized("x", 2, 64, 8, 8, 32), *w = vectorized("w", 64, 64, 3, 3, 32);
    fe_tensor *y = conv(x, w);
    EXPECT_EQ(dims(y), (std::vector<int64_t>{2, 2, 8, 8})) << "64 output channels in 2 vectors of 32";
    EXPECT_FE_REFUSED(fe_tensor_set_vectorization(y, 32, 1), FE_STATUS_INVALID_ARGUMENT,
                      "is an operation's result: only a graph input is vectorized");
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    ASSERT_FE_OK(fe_graph_validate(g));
    int32_t count = 0;
    ASSERT_FE_OK(fe_tensor_get_vector_count(y, &count));
    EXPECT_EQ(count, 32);
    int64_t bytes = 0;
    ASSERT_FE_OK(fe_tensor_size_bytes(y, &bytes));
    EXPECT_EQ(bytes, 2 * 64 * 8 * 8);
}

TEST_F(Vectorization, MismatchedOrIndivisibleVectorsAreRefused) {
    fe_tensor *x = vectorized("x", 2, 64, 8, 8, 32), *w4 = vectorized("w4", 32, 64, 3, 3, 4);
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    fe_tensor *y = nullptr;
    // x has 2 vectors of channels, w4 16: the channel check speaks first when the counts differ.
    EXPECT_FE_STATUS(fe_graph_conv_fprop(g, x, w4, &o, &y), FE_STATUS_INVALID_ARGUMENT);
    fe_tensor *x4 = vectorized("x4", 2, 64, 8, 8, 4), *w = vectorized("w", 32, 64, 3, 3, 32);
    (void)w;
    fe_tensor *plain = cudnnfe_test::make_tensor(g, "plain", {8, 16, 3, 3}, false, FE_DATA_INT8);
    EXPECT_FE_REFUSED(fe_graph_conv_fprop(g, x4, plain, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "image 'x4' is in vectors of 4 values and filter 'plain' in vectors of 1: vectorize both alike");
    fe_tensor *w6 = vectorized("w6", 6 * 4, 64, 3, 3, 4);
    ASSERT_FE_OK(fe_tensor_set_dims(w6, 4, std::vector<int64_t>{6, 16, 3, 3}.data()));
    EXPECT_FE_REFUSED(fe_graph_conv_fprop(g, x4, w6, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "filter 'w6' has 6 output channels, which vectors of 4 values do not divide");
}

TEST_F(Vectorization, TheInt8x32OrderIsAFilterVectorizedIn32s) {
    fe_tensor *w4 = vectorized("w4", 8, 64, 3, 3, 4), *w = vectorized("w", 32, 64, 3, 3, 32);
    EXPECT_FE_REFUSED(fe_tensor_set_reordering(w4, FE_TENSOR_REORDERING_INT8X32), FE_STATUS_INVALID_ARGUMENT,
                      "fe_tensor_set_reordering: 'w4' is in vectors of 4 values: the INT8x32 order is that of a filter "
                      "vectorized in 32");
    EXPECT_FE_REFUSED(fe_tensor_set_reordering(w, static_cast<fe_tensor_reordering>(7)), FE_STATUS_INVALID_ARGUMENT,
                      "reordering 7 for 'w'");
    ASSERT_FE_OK(fe_tensor_set_reordering(w, FE_TENSOR_REORDERING_INT8X32));
    fe_tensor_reordering order = FE_TENSOR_REORDERING_NONE;
    ASSERT_FE_OK(fe_tensor_get_reordering(w, &order));
    EXPECT_EQ(order, FE_TENSOR_REORDERING_INT8X32);
    fe_tensor *y = conv(vectorized("x", 2, 64, 8, 8, 32), w);
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    std::string json(1 << 14, '\0');
    size_t length = 0;
    ASSERT_FE_OK(fe_graph_to_json(g, &json[0], json.size(), &length));
    json.resize(length);
    EXPECT_NE(json.find("\"vector_dim\":1,\"reordering\":\"int8x32\""), std::string::npos) << json;
    fe_graph *back = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(json.data(), json.size(), &back));
    fe_tensor *w_back = nullptr;
    ASSERT_FE_OK(fe_graph_tensor_by_name(back, "w", &w_back));
    ASSERT_FE_OK(fe_tensor_get_reordering(w_back, &order));
    EXPECT_EQ(order, FE_TENSOR_REORDERING_INT8X32);
    fe_graph_destroy(back);
    ASSERT_FE_OK(fe_tensor_set_vectorization(w4, 1, -1));
    ASSERT_FE_OK(fe_tensor_set_vectorization(w, 4, 1));  // vectors of 4: the INT8x32 order goes with them
    ASSERT_FE_OK(fe_tensor_get_reordering(w, &order));
    EXPECT_EQ(order, FE_TENSOR_REORDERING_NONE);
}

TEST_F(Vectorization, TheGraphJsonKeepsTheLayout) {
    fe_tensor *y = conv(vectorized("x", 2, 64, 8, 8, 4), vectorized("w", 8, 64, 3, 3, 4));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    std::string json(1 << 14, '\0');
    size_t length = 0;
    ASSERT_FE_OK(fe_graph_to_json(g, &json[0], json.size(), &length));
    json.resize(length);
    EXPECT_NE(json.find("\"vector_count\":4,\"vector_dim\":1"), std::string::npos) << json;
    fe_graph *back = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(json.data(), json.size(), &back));
    fe_tensor *w_back = nullptr;
    ASSERT_FE_OK(fe_graph_tensor_by_name(back, "w", &w_back));
    int32_t count = 0;
    ASSERT_FE_OK(fe_tensor_get_vector_count(w_back, &count));
    EXPECT_EQ(count, 4);
    std::string again(1 << 14, '\0');
    ASSERT_FE_OK(fe_graph_to_json(back, &again[0], again.size(), &length));
    again.resize(length);
    EXPECT_EQ(again, json);
    fe_graph_destroy(back);
    const std::string half = "{\"format\":\"cudnnfe.graph\",\"version\":1,\"name\":\"g\",\"io_data_type\":\"int8\","
                             "\"tensors\":[{\"name\":\"x\",\"dims\":[1,1,2,2],\"vector_count\":4}],\"ops\":[]}";
    EXPECT_FE_STATUS(fe_graph_from_json(half.data(), half.size(), &back), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("vector_dim")) << fe_last_error_message();
}

}  // namespace
