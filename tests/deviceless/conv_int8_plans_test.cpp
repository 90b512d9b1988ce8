// INT8 convolution through fe_graph_conv_fprop: int8 image and weight, int32 math, channels-last
// (int8 or float result), builds a whole plan with no GPU; an int32 result, which cuDNN's engines
// accept but compute wrongly, is refused at build.
#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

class ConvInt8Plans : public Deviceless, public ::testing::WithParamInterface<fe_data_type> {};

TEST_P(ConvInt8Plans, BuildsAWholePlan) {
    fe_graph *g = graph("conv_int8", FE_DATA_INT8, FE_DATA_INT32, FE_DATA_INT32);
    fe_tensor *x = tensor(g, "x", {4, 32, 28, 28}, true, FE_DATA_INT8);
    fe_tensor *w = tensor(g, "w", {64, 32, 3, 3}, true, FE_DATA_INT8);
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    for (int i = 0; i < 2; ++i) o.pre_padding[i] = o.post_padding[i] = 1;
    o.compute_data_type = FE_DATA_INT32;
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_data_type(y, GetParam()));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    expect_full_plan(g);
}

INSTANTIATE_TEST_SUITE_P(Deviceless, ConvInt8Plans, ::testing::Values(FE_DATA_FLOAT, FE_DATA_INT8));

TEST_F(Deviceless, Int8ConvolutionWithAnInt32ResultIsRefused) {
    fe_graph *g = graph("conv_int8_int32", FE_DATA_INT8, FE_DATA_INT32, FE_DATA_INT32);
    fe_tensor *x = tensor(g, "x", {4, 32, 28, 28}, true, FE_DATA_INT8);
    fe_tensor *w = tensor(g, "w", {64, 32, 3, 3}, true, FE_DATA_INT8);
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    o.compute_data_type = FE_DATA_INT32;
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_data_type(y, FE_DATA_INT32));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    EXPECT_EQ(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_NE(std::string(fe_last_error_message()).find("an int8 convolution gives an int8 or float result, not int32"),
              std::string::npos)
        << fe_last_error_message();
}

}  // namespace
