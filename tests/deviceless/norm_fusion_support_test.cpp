// Normalization fusions, built for the described H100 (tests/support/norm_fusion_graphs.hpp): a
// residual add before a layernorm with the sum an output too, a layernorm training forward whose
// clamped ReLU also writes its bitmask, that bitmask applied to dy before the layernorm backward,
// an fp16 channels-last instancenorm followed by an add and a ReLU, the batchnorm backward of a
// ReLU-masked dy, and batchnorm inference -> ReLU backward -> batchnorm backward (the inference
// lowered as cuDNN's own there). cuDNN 9.19 has a normalization engine for each in the form the
// reference frontend's samples run them (float for the layernorms); the residual add also when x,
// the residual, scale, bias and the sum share bfloat16 or half, and none when the sum or the scale
// is of another type than a 16-bit x.
#include "deviceless_support.hpp"
#include "norm_fusion_graphs.hpp"

using namespace cudnnfe_test;

namespace {

struct ResidualForm {
    const char *name;
    fe_data_type io, scale, sum;
    bool engine;
};

class NormFusionSupport : public Deviceless {
  protected:
    // The image-shaped tensors of the batchnorm forms: fp16 channels-last, per-channel float.
    const std::vector<int64_t> image_ = {4, 32, 16, 16}, channel_ = {1, 32, 1, 1};
    fe_tensor *image(fe_graph *g, const char *name) { return tensor(g, name, image_, true); }
    fe_tensor *per_channel(fe_graph *g, const char *name) { return tensor(g, name, channel_, true, FE_DATA_FLOAT); }
};

TEST_F(NormFusionSupport, ResidualAddBeforeLayernormWithTheSumAnOutput) {
    const ResidualForm forms[] = {
        {"float_sum_bf16", FE_DATA_FLOAT, FE_DATA_FLOAT, FE_DATA_BFLOAT16, true},
        {"float", FE_DATA_FLOAT, FE_DATA_FLOAT, FE_DATA_FLOAT, true},
        {"bf16", FE_DATA_BFLOAT16, FE_DATA_BFLOAT16, FE_DATA_BFLOAT16, true},
        {"half", FE_DATA_HALF, FE_DATA_HALF, FE_DATA_HALF, true},
        {"bf16_float_scale", FE_DATA_BFLOAT16, FE_DATA_FLOAT, FE_DATA_BFLOAT16, false},
        {"bf16_float_sum", FE_DATA_BFLOAT16, FE_DATA_BFLOAT16, FE_DATA_FLOAT, false},
    };
    for (const ResidualForm &f : forms) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph(f.name, f.io);
        residual_layernorm(g, tensor(g, "x", {256, 768}), tensor(g, "residual", {256, 768}),
                           tensor(g, "scale", {1, 768}, false, f.scale), tensor(g, "bias", {1, 768}, false, f.scale),
                           f.sum);
        if (f.engine) {
            expect_supported(g);
        } else {
            EXPECT_FE_STATUS(support_status(g), FE_STATUS_NOT_SUPPORTED);
        }
    }
}

TEST_F(NormFusionSupport, LayernormForwardWithAClampedReluBitmask) {
    fe_graph *g = graph("layernorm_relu_bitmask", FE_DATA_FLOAT);
    layernorm_clamped_relu_bitmask(g, tensor(g, "x", {4096, 128}), tensor(g, "scale", {1, 128}),
                                   tensor(g, "bias", {1, 128}));
    expect_supported(g);
}

TEST_F(NormFusionSupport, BitmaskedDyIntoTheLayernormBackward) {
    fe_graph *g = graph("drelu_bitmask_layernorm_backward", FE_DATA_FLOAT);
    bitmasked_layernorm_backward(g, tensor(g, "dy", {4096, 128}), tensor(g, "mask", {4096, 128}, false, FE_DATA_BOOLEAN),
                                 tensor(g, "x", {4096, 128}), tensor(g, "scale", {1, 128}), tensor(g, "mean", {4096, 1}),
                                 tensor(g, "inv_variance", {4096, 1}));
    expect_supported(g);
}

TEST_F(NormFusionSupport, HalfInstancenormAddRelu) {
    for (bool training : {false, true}) {
        SCOPED_TRACE(training ? "training" : "inference");
        fe_graph *g = graph("instancenorm_add_relu", FE_DATA_HALF);
        const std::vector<int64_t> dims = {16, 32, 64, 64};
        instancenorm_add_relu(g, tensor(g, "x", dims, true), tensor(g, "a", dims, true),
                              per_channel(g, "scale"), per_channel(g, "bias"), training);
        expect_supported(g);
    }
}

// As the reference's "DBN Add Relu" sample: with the masked dy an output too, and with it virtual,
// which cuDNN 9.19 has no engine for.
TEST_F(NormFusionSupport, BatchnormBackwardOfAReluMaskedDy) {
    for (bool masked_output : {true, false}) {
        SCOPED_TRACE(masked_output ? "masked dy an output" : "masked dy virtual");
        fe_graph *g = graph("batchnorm_backward_add_relu", FE_DATA_HALF);
        masked_batchnorm_backward(g, image(g, "dy"), tensor(g, "mask", image_, true, FE_DATA_BOOLEAN), image(g, "x"),
                                  per_channel(g, "scale"), per_channel(g, "mean"), per_channel(g, "inv_variance"),
                                  masked_output);
        // 36 engine configs for the first: building them all would take long.
        EXPECT_FE_STATUS(support_status(g), masked_output ? FE_OK : FE_STATUS_NOT_SUPPORTED);
    }
}

// As the reference's "BN_inference DRelu DBN" sample: cuDNN matches it only with the inference as
// its own normalization operation (lowered so in this pattern alone) and the ReLU backward's
// result in x's type; with that result float it has no engine.
TEST_F(NormFusionSupport, BatchnormInferenceReluBackwardBatchnormBackward) {
    for (fe_data_type drelu_type : {FE_DATA_HALF, FE_DATA_FLOAT}) {
        SCOPED_TRACE(drelu_type == FE_DATA_HALF ? "dReLU half" : "dReLU float");
        fe_graph *g = graph("batchnorm_inference_drelu_dbn", FE_DATA_HALF);
        batchnorm_inference_relu_backward(g, image(g, "x"), image(g, "dy"), per_channel(g, "scale"),
                                          per_channel(g, "bias"), per_channel(g, "mean"),
                                          per_channel(g, "inv_variance"), drelu_type);
        EXPECT_FE_STATUS(support_status(g), drelu_type == FE_DATA_HALF ? FE_OK : FE_STATUS_NOT_SUPPORTED);
    }
}

}  // namespace
