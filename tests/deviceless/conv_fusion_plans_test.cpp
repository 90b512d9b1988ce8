// Convolution fusions lower to ONE cuDNN operation graph: the ResNet epilogue (folded batchnorm
// scale and bias, residual add, relu), dgrad with the relu backward, and the folded batchnorm +
// relu applied to wgrad's image. Patterns that cuDNN's precompiled engines take build their one
// plan here; the others run on runtime-compiled engines, so here they are taken through
// heuristics and the support check (their kernels are compiled, and the plan built, on the GPU).
#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

class ConvFusion : public Deviceless {
  protected:
    // One plan for all `operations` of the graph.
    void expect_one_plan(fe_graph *g, int operations) {
        expect_full_plan(g);
        std::string text = describe(g);
        EXPECT_NE(text.find("cuDNN: " + std::to_string(operations) + " operation(s)"), std::string::npos) << text;
        size_t plans = 0;
        EXPECT_FE_OK(fe_graph_plan_count(g, &plans));
        EXPECT_EQ(plans, 1);
    }
    // A runtime-compiled fusion: one operation graph of `operations`, viable engine configs for
    // it, and no plan build (that needs a CUDA driver; it fails slowly with the stub).
    void expect_one_graph_supported(fe_graph *g, int operations) {
        ASSERT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
        ASSERT_FE_OK(fe_graph_validate(g));
        expect_viable_configs(g);
        std::string text = describe(g);
        EXPECT_NE(text.find("cuDNN: " + std::to_string(operations) + " operation(s)"), std::string::npos) << text;
    }
    static fe_conv_options padded(int64_t pad) {
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        int64_t p[2] = {pad, pad};
        fe_conv_options_set_padding(&o, 2, p);
        return o;
    }
};

class ResNetEpilogue : public ConvFusion, public ::testing::WithParamInterface<fe_data_type> {};

TEST_P(ResNetEpilogue, ConvScaleBiasAddReluIsOneOperationGraph) {
    // relu(conv(x, w) * scale + bias + residual): batchnorm inference folded into a per-channel
    // scale and bias, as in the ResNet block. The per-channel scale takes it to the runtime
    // fusion engines.
    fe_graph *g = graph("conv_scale_bias_add_relu", GetParam());
    fe_tensor *x = tensor(g, "x", {8, 64, 56, 56}, true), *w = tensor(g, "w", {64, 64, 3, 3}, true);
    fe_tensor *scale = tensor(g, "scale", {1, 64, 1, 1}), *bias = tensor(g, "bias", {1, 64, 1, 1});
    fe_tensor *residual = tensor(g, "residual", {8, 64, 56, 56}, true);
    fe_conv_options o = padded(1);
    fe_tensor *conv = nullptr, *scaled = nullptr, *biased = nullptr, *sum = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &conv));
    ASSERT_FE_OK(fe_graph_scale(g, conv, scale, nullptr, &scaled));
    ASSERT_FE_OK(fe_graph_bias(g, scaled, bias, nullptr, &biased));
    ASSERT_FE_OK(fe_graph_add(g, biased, residual, nullptr, &sum));
    ASSERT_FE_OK(fe_graph_relu(g, sum, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    expect_one_graph_supported(g, 5);
}

INSTANTIATE_TEST_SUITE_P(Deviceless, ResNetEpilogue, ::testing::Values(FE_DATA_HALF, FE_DATA_BFLOAT16),
                         [](const ::testing::TestParamInfo<fe_data_type> &info) {
                             return std::string(fe_data_type_string(info.param));
                         });

TEST_F(ConvFusion, ConvResidualBiasReluIsOneWholePlan) {
    // The same epilogue with the batchnorm scale folded into the weights: relu(conv + residual +
    // bias) is a pattern of cuDNN's precompiled engines, so its one plan builds with no GPU.
    fe_graph *g = graph("conv_add_bias_relu", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {8, 64, 56, 56}, true), *w = tensor(g, "w", {64, 64, 3, 3}, true);
    fe_tensor *residual = tensor(g, "residual", {8, 64, 56, 56}, true), *bias = tensor(g, "bias", {1, 64, 1, 1});
    fe_conv_options o = padded(1);
    fe_tensor *conv = nullptr, *sum = nullptr, *biased = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &conv));
    ASSERT_FE_OK(fe_graph_add(g, conv, residual, nullptr, &sum));
    ASSERT_FE_OK(fe_graph_bias(g, sum, bias, nullptr, &biased));
    ASSERT_FE_OK(fe_graph_relu(g, biased, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    expect_one_plan(g, 4);
}

TEST_F(ConvFusion, DgradWithReluBackwardIsOneOperationGraph) {
    // dx = dgrad(dy, w) masked where the forward image was not positive (relu backward).
    fe_graph *g = graph("dgrad_drelu", FE_DATA_HALF);
    fe_tensor *dy = tensor(g, "dy", {4, 64, 16, 16}, true), *w = tensor(g, "w", {64, 32, 3, 3}, true);
    fe_tensor *x = tensor(g, "x", {4, 32, 16, 16}, true);
    fe_conv_options o = padded(1);
    int64_t dx_dims[4] = {4, 32, 16, 16};
    fe_tensor *grad = nullptr, *dx = nullptr;
    ASSERT_FE_OK(fe_graph_conv_dgrad(g, dy, w, 4, dx_dims, &o, &grad));
    ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_RELU_BWD, grad, x, nullptr, nullptr, &dx));
    ASSERT_FE_OK(fe_tensor_set_output(dx, 1));
    expect_one_graph_supported(g, 2);
}

TEST_F(ConvFusion, ScaleBiasReluIntoWgradIsOnePlan) {
    // dw = wgrad(relu(x * scale + bias), dy): the previous layer's folded batchnorm and relu are
    // applied to the image as wgrad reads it (cuDNN's engines for it take fp16).
    fe_graph *g = graph("scale_bias_relu_wgrad", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {4, 64, 16, 16}, true), *dy = tensor(g, "dy", {4, 64, 16, 16}, true);
    fe_tensor *scale = tensor(g, "scale", {1, 64, 1, 1}, true), *bias = tensor(g, "bias", {1, 64, 1, 1}, true);
    fe_conv_options o = padded(1);
    fe_tensor *scaled = nullptr, *biased = nullptr, *act = nullptr, *dw = nullptr;
    ASSERT_FE_OK(fe_graph_scale(g, x, scale, nullptr, &scaled));
    ASSERT_FE_OK(fe_graph_bias(g, scaled, bias, nullptr, &biased));
    ASSERT_FE_OK(fe_graph_relu(g, biased, nullptr, &act));
    ASSERT_FE_OK(fe_graph_conv_wgrad(g, act, dy, 0, nullptr, &o, &dw));
    ASSERT_FE_OK(fe_tensor_set_output(dw, 1));
    int64_t dims[4];
    ASSERT_FE_OK(fe_tensor_get_dims(dw, dims, 4));
    EXPECT_EQ(std::vector<int64_t>(dims, dims + 4), (std::vector<int64_t>{64, 64, 3, 3}));
    expect_one_plan(g, 4);
}

}  // namespace
