// Weight-only INT4 matmuls for the H100 description: 4-bit weights stored K-contiguous are taken
// as-is, scaled per column or dequantized per group of rows (the GPU tier checks the values);
// weights stored N-contiguous have no engine, and the build says what to do; uint4 weights are
// refused (their kernels fault on the GPU).
#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

constexpr int64_t M = 64, K = 256, N = 128;

class Int4Support : public Deviceless {
  protected:
    fe_tensor *weights(fe_graph *g, fe_data_type type, bool k_contiguous = true) {
        const int64_t dims[] = {1, K, N}, by_k[] = {K * N, 1, K}, by_n[] = {K * N, N, 1};
        fe_tensor *b = nullptr;
        EXPECT_FE_OK(fe_graph_tensor(g, "b", 3, dims, k_contiguous ? by_k : by_n, type, &b));
        return b;
    }
    void matmul(fe_graph *g, fe_tensor *b) {
        fe_tensor *c = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g, tensor(g, "a", {1, M, K}), b, nullptr, &c));
        ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    }
};

TEST_F(Int4Support, Int4WeightsAsTheyAreAreSupported) {
    fe_graph *g = graph("int4_as_is", FE_DATA_HALF);
    matmul(g, weights(g, FE_DATA_INT4));
    expect_supported(g);
    EXPECT_NE(describe(g).find("b                        int4"), std::string::npos) << describe(g);
}

TEST_F(Int4Support, PerColumnScalesAreSupported) {
    fe_graph *g = graph("int4_per_column", FE_DATA_HALF);
    fe_tensor *scaled = nullptr;
    ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_MUL, weights(g, FE_DATA_INT4),
                                    tensor(g, "scale", {1, 1, N}, false, FE_DATA_HALF), nullptr, nullptr, &scaled));
    ASSERT_FE_OK(fe_tensor_set_data_type(scaled, FE_DATA_HALF));
    matmul(g, scaled);
    expect_supported(g);
}

// uint4 weights are refused at build with the capability table's reason (their kernels fault).
TEST_F(Int4Support, PerGroupBlockScalesAreSupportedAndUint4IsRefused) {
    for (fe_data_type type : {FE_DATA_INT4, FE_DATA_UINT4}) {
        fe_graph *g = graph(type == FE_DATA_INT4 ? "int4_groups" : "uint4_groups", FE_DATA_HALF);
        fe_block_scale_options o = FE_BLOCK_SCALE_OPTIONS_INIT;
        o.block_rows = 32;
        o.block_size = 1;
        fe_tensor *dequantized = nullptr;
        ASSERT_FE_OK(fe_graph_block_scale_dequantize(g, weights(g, type), tensor(g, "scale", {1, K / 32, N}, false,
                                                                                   FE_DATA_FLOAT),
                                                     &o, &dequantized));
        ASSERT_FE_OK(fe_tensor_set_data_type(dequantized, FE_DATA_HALF));
        matmul(g, dequantized);
        if (type == FE_DATA_INT4) {
            expect_supported(g);
            continue;
        }
        EXPECT_FE_STATUS(build(g), FE_STATUS_NOT_SUPPORTED);
        EXPECT_TRUE(LastErrorContains("uint4 tensors: refused with cuDNN")) << fe_last_error_message();
    }
}

TEST_F(Int4Support, RowMajorWeightsHaveNoEngineAndTheBuildSaysWhy) {
    fe_graph *g = graph("int4_row_major", FE_DATA_HALF);
    matmul(g, weights(g, FE_DATA_INT4, false));
    EXPECT_FE_STATUS(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("store them K-contiguous")) << fe_last_error_message();
}

TEST_F(Int4Support, Int4TensorsAreSizedInHalfBytesAndHaveNoHostConversion) {
    EXPECT_EQ(fe_data_type_bits(FE_DATA_INT4), 4u);
    EXPECT_EQ(fe_data_type_bits(FE_DATA_UINT4), 4u);
    EXPECT_EQ(fe_data_type_size(FE_DATA_INT4), 0u);
    EXPECT_EQ(fe_data_type_bits(FE_DATA_HALF), 16u);
    EXPECT_STREQ(fe_data_type_string(FE_DATA_UINT4), "uint4");
}

}  // namespace
