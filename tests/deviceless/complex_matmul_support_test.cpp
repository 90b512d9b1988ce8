// Complex fp32 matmuls: complex A and B give a complex C (cuDNN runs them on its cuBLASLt-backed
// engine, which needs a GPU: the GPU tier builds them and checks the values); anything else with a
// complex tensor is refused at build, for the H100 description, naming why: a complex operand beside a real one, a complex tensor outside a matmul, math other
// than float, overrides. Complex numbers are 8 bytes and have no host conversion.
#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

class ComplexMatmulSupport : public Deviceless {
  protected:
    fe_tensor *complex_tensor(fe_graph *g, const char *name, int64_t rows, int64_t cols) {
        const int64_t dims[] = {2, rows, cols}, strides[] = {rows * cols, cols, 1};
        fe_tensor *t = nullptr;
        EXPECT_FE_OK(fe_graph_tensor(g, name, 3, dims, strides, FE_DATA_COMPLEX_FP32, &t));
        return t;
    }
    fe_tensor *product(fe_graph *g, fe_tensor *b, const fe_matmul_options *o = nullptr) {
        fe_tensor *c = nullptr;
        EXPECT_FE_OK(fe_graph_matmul(g, complex_tensor(g, "a", 32, 64), b, o, &c));
        return c;
    }
};

TEST_F(ComplexMatmulSupport, ComplexOperandsGiveAComplexResult) {
    fe_graph *g = graph("complex", FE_DATA_FLOAT);
    fe_tensor *c = product(g, complex_tensor(g, "b", 64, 16));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    ASSERT_FE_OK(fe_graph_validate(g));
    fe_data_type type = FE_DATA_NOT_SET;
    ASSERT_FE_OK(fe_tensor_get_data_type(c, &type));
    EXPECT_EQ(type, FE_DATA_COMPLEX_FP32) << "a product of complex operands is complex";
    // cuDNN 9.19's one engine for it calls cuBLASLt, which a build without a GPU cannot use.
    EXPECT_FE_STATUS(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("backed by cuBLASLt")) << fe_last_error_message();
}

TEST_F(ComplexMatmulSupport, AComplexOperandBesideARealOneIsRefused) {
    fe_graph *g = graph("complex_and_real", FE_DATA_FLOAT);
    fe_tensor *c = product(g, tensor(g, "b", {2, 64, 16}));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    EXPECT_FE_STATUS(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("a complex matmul takes complex_fp32 A and B into a complex_fp32 C"))
        << fe_last_error_message();
}

TEST_F(ComplexMatmulSupport, AComplexTensorOutsideAMatmulIsRefused) {
    fe_graph *g = graph("complex_relu", FE_DATA_FLOAT);
    fe_tensor *c = product(g, complex_tensor(g, "b", 64, 16)), *y = nullptr;
    ASSERT_FE_OK(fe_graph_relu(g, c, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    EXPECT_FE_STATUS(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("is complex_fp32, which only a matmul takes")) << fe_last_error_message();
}

TEST_F(ComplexMatmulSupport, HalfMathIsRefused) {
    fe_graph *g = graph("complex_half_math", FE_DATA_FLOAT);
    fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
    o.compute_data_type = FE_DATA_HALF;
    fe_tensor *c = product(g, complex_tensor(g, "b", 64, 16), &o);
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    EXPECT_FE_STATUS(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("a complex matmul computes in float")) << fe_last_error_message();
}

TEST_F(ComplexMatmulSupport, ComplexNumbersAreEightBytesWithNoHostConversion) {
    EXPECT_EQ(fe_data_type_size(FE_DATA_COMPLEX_FP32), 8u);
    EXPECT_EQ(fe_data_type_bits(FE_DATA_COMPLEX_FP32), 64u);
    EXPECT_STREQ(fe_data_type_string(FE_DATA_COMPLEX_FP32), "complex_fp32");
}

}  // namespace
