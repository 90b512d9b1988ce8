// Vectorized int8 convolutions (INT8x4, INT8x32) for the H100 description: a forward convolution
// of vectorized int8 tensors into an int8 result has engines (the GPU tier checks the values);
// anything else with vectorized tensors is refused at build, naming why.
#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

class VectorizedConvSupport : public Deviceless {
  protected:
    static fe_tensor *vectorized(fe_graph *g, const char *name, int64_t n, int64_t channels, int64_t h, int64_t w,
                                 int32_t count) {
        return cudnnfe_test::make_vectorized_int8(g, name, n, channels, h, w, count);
    }
    fe_tensor *conv(fe_graph *g, int32_t count, fe_data_type math = FE_DATA_INT32) {
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        o.compute_data_type = math;
        const int64_t pad[] = {1, 1};
        fe_conv_options_set_padding(&o, 2, pad);
        fe_tensor *y = nullptr;
        EXPECT_FE_OK(fe_graph_conv_fprop(g, vectorized(g, "x", 2, 64, 8, 8, count),
                                         vectorized(g, "w", 32, 64, 3, 3, count), &o, &y));
        return y;
    }
};

TEST_F(VectorizedConvSupport, Int8x4AndInt8x32ConvolutionsAreSupported) {
    for (int32_t count : {4, 32}) {
        fe_graph *g = graph(count == 4 ? "int8x4" : "int8x32", FE_DATA_INT8);
        ASSERT_FE_OK(fe_tensor_set_output(conv(g, count), 1));
        expect_supported(g);
    }
}

TEST_F(VectorizedConvSupport, FloatMathHasNoEngineAndTheBuildSaysWhatToSet) {
    fe_graph *g = graph("int8x32_float_math", FE_DATA_INT8);
    ASSERT_FE_OK(fe_tensor_set_output(conv(g, 32, FE_DATA_FLOAT), 1));
    EXPECT_FE_STATUS(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("set fe_conv_options.compute_data_type to FE_DATA_INT32")) << fe_last_error_message();
}

TEST_F(VectorizedConvSupport, AnythingButTheConvolutionAloneIsRefused) {
    fe_graph *g = graph("int8x32_relu", FE_DATA_INT8);
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_relu(g, conv(g, 32), nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    EXPECT_FE_STATUS(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("vectorized tensors (fe_tensor_set_vectorization) belong to a forward convolution "
                                  "alone"))
        << fe_last_error_message();
}

TEST_F(VectorizedConvSupport, AReorderedFilterIsSupportedAndAReorderedImageRefused) {
    for (int image = 0; image < 2; ++image) {
        fe_graph *g = graph(image ? "reordered_image" : "reordered_filter", FE_DATA_INT8);
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        o.compute_data_type = FE_DATA_INT32;
        fe_tensor *x = vectorized(g, "x", 2, 64, 8, 8, 32), *w = vectorized(g, "w", 32, 64, 3, 3, 32), *y = nullptr;
        ASSERT_FE_OK(fe_tensor_set_reordering(image ? x : w, FE_TENSOR_REORDERING_INT8X32));
        ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        if (!image) {
            expect_supported(g);
            continue;
        }
        EXPECT_FE_STATUS(build(g), FE_STATUS_NOT_SUPPORTED);
        EXPECT_TRUE(LastErrorContains("'x' is in the INT8x32 order, which is a filter's")) << fe_last_error_message();
    }
}

TEST_F(VectorizedConvSupport, AFloatResultIsRefused) {
    fe_graph *g = graph("int8x32_float", FE_DATA_INT8);
    fe_tensor *y = conv(g, 32);
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    ASSERT_FE_OK(fe_tensor_set_data_type(y, FE_DATA_FLOAT));
    EXPECT_FE_STATUS(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("is float; a vectorized convolution takes an int8 image and filter into an int8 "
                                  "result"))
        << fe_last_error_message();
}

}  // namespace
