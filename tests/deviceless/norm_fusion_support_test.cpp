// Normalization fusions, built for the described H100: a residual add before a layernorm with the
// sum an output too, a layernorm training forward whose clamped ReLU also writes its bitmask, that
// bitmask applied to dy before the layernorm backward, an fp16 channels-last instancenorm
// followed by an add and a ReLU, the batchnorm backward of a ReLU-masked dy, and batchnorm
// inference -> ReLU backward -> batchnorm backward (the inference lowered as cuDNN's own there). cuDNN 9.19 has a normalization engine for each in the form the
// reference frontend's samples run them (float for the layernorms); the
// residual add also when x, the residual, scale, bias and the sum share bfloat16 or half, and none
// when the sum or the scale is of another type than a 16-bit x.
#include "deviceless_support.hpp"

using namespace cudnnfe_test;

namespace {

struct ResidualForm {
    const char *name;
    fe_data_type io, scale, sum;
    bool engine;
};

class NormFusionSupport : public Deviceless {
  protected:
    // sum = x + residual, then layernorm(sum) in training; y, mean, inv_variance and sum outputs.
    fe_graph *residual_layernorm(const ResidualForm &f) {
        fe_graph *g = graph(f.name, f.io);
        fe_tensor *x = tensor(g, "x", {256, 768}), *r = tensor(g, "residual", {256, 768});
        fe_tensor *s = tensor(g, "scale", {1, 768}, false, f.scale), *b = tensor(g, "bias", {1, 768}, false, f.scale);
        fe_tensor *sum = nullptr, *y = nullptr, *mean = nullptr, *inv = nullptr;
        EXPECT_FE_OK(fe_graph_add(g, x, r, nullptr, &sum));
        EXPECT_FE_OK(fe_tensor_set_data_type(sum, f.sum));
        fe_norm_options o = FE_NORM_OPTIONS_INIT;
        o.phase = FE_NORM_PHASE_TRAINING;
        EXPECT_FE_OK(fe_graph_layernorm(g, sum, s, b, &o, &y, &mean, &inv));
        for (fe_tensor *t : {y, mean, inv, sum}) EXPECT_FE_OK(fe_tensor_set_output(t, 1));
        return g;
    }
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
        fe_graph *g = residual_layernorm(f);
        if (f.engine) {
            expect_supported(g);
            continue;
        }
        EXPECT_FE_STATUS(support_status(g), FE_STATUS_NOT_SUPPORTED);
    }
}

// y = clamp(layernorm(x), 0, 6) and its bitmask (0 < y < 6), as the reference's sample writes it:
// two comparisons with by-value bounds joined by a logical and, every mask boolean.
TEST_F(NormFusionSupport, LayernormForwardWithAClampedReluBitmask) {
    fe_graph *g = graph("layernorm_relu_bitmask", FE_DATA_FLOAT);
    fe_tensor *x = tensor(g, "x", {4096, 128}), *s = tensor(g, "scale", {1, 128}), *b = tensor(g, "bias", {1, 128});
    fe_tensor *normed = nullptr, *mean = nullptr, *inv = nullptr, *y = nullptr;
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    o.phase = FE_NORM_PHASE_TRAINING;
    ASSERT_FE_OK(fe_graph_layernorm(g, x, s, b, &o, &normed, &mean, &inv));
    fe_pointwise_options clamp = FE_POINTWISE_OPTIONS_INIT;
    clamp.relu_lower_clip = 0;
    clamp.relu_upper_clip = 6;
    ASSERT_FE_OK(fe_graph_relu(g, normed, &clamp, &y));
    fe_tensor *lower = nullptr, *upper = nullptr, *above = nullptr, *below = nullptr, *mask = nullptr;
    ASSERT_FE_OK(fe_graph_scalar(g, "lower", 0.0, FE_DATA_FLOAT, &lower));
    ASSERT_FE_OK(fe_graph_scalar(g, "upper", 6.0, FE_DATA_FLOAT, &upper));
    ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_CMP_GT, y, lower, nullptr, nullptr, &above));
    ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_CMP_LT, y, upper, nullptr, nullptr, &below));
    ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_LOGICAL_AND, above, below, nullptr, nullptr, &mask));
    for (fe_tensor *t : {above, below, mask}) ASSERT_FE_OK(fe_tensor_set_data_type(t, FE_DATA_BOOLEAN));
    for (fe_tensor *t : {y, mean, inv, mask}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    expect_supported(g);
}

// dx, dscale, dbias of a layernorm from dy masked by the forward's ReLU bitmask (a boolean input).
TEST_F(NormFusionSupport, BitmaskedDyIntoTheLayernormBackward) {
    fe_graph *g = graph("drelu_bitmask_layernorm_backward", FE_DATA_FLOAT);
    fe_tensor *dy = tensor(g, "dy", {4096, 128}), *mask = tensor(g, "mask", {4096, 128}, false, FE_DATA_BOOLEAN);
    fe_tensor *x = tensor(g, "x", {4096, 128}), *s = tensor(g, "scale", {1, 128});
    fe_tensor *mean = tensor(g, "mean", {4096, 1}), *inv = tensor(g, "inv_variance", {4096, 1});
    fe_tensor *masked = nullptr, *dx = nullptr, *ds = nullptr, *db = nullptr;
    ASSERT_FE_OK(fe_graph_mul(g, dy, mask, nullptr, &masked));
    ASSERT_FE_OK(fe_graph_layernorm_backward(g, masked, x, s, mean, inv, nullptr, &dx, &ds, &db));
    for (fe_tensor *t : {dx, ds, db}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    expect_supported(g);
}

// relu(instancenorm(x) + a), fp16 channels-last, in inference and training.
TEST_F(NormFusionSupport, HalfInstancenormAddRelu) {
    for (fe_norm_phase phase : {FE_NORM_PHASE_INFERENCE, FE_NORM_PHASE_TRAINING}) {
        SCOPED_TRACE(phase == FE_NORM_PHASE_TRAINING ? "training" : "inference");
        fe_graph *g = graph("instancenorm_add_relu", FE_DATA_HALF);
        fe_tensor *x = tensor(g, "x", {16, 32, 64, 64}, true), *a = tensor(g, "a", {16, 32, 64, 64}, true);
        fe_tensor *s = tensor(g, "scale", {1, 32, 1, 1}, true, FE_DATA_FLOAT);
        fe_tensor *b = tensor(g, "bias", {1, 32, 1, 1}, true, FE_DATA_FLOAT);
        fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr, *sum = nullptr, *out = nullptr;
        fe_norm_options o = FE_NORM_OPTIONS_INIT;
        o.phase = phase;
        ASSERT_FE_OK(fe_graph_instancenorm(g, x, s, b, &o, &y, &mean, &inv));
        ASSERT_FE_OK(fe_graph_add(g, y, a, nullptr, &sum));
        ASSERT_FE_OK(fe_graph_relu(g, sum, nullptr, &out));
        ASSERT_FE_OK(fe_tensor_set_output(out, 1));
        if (phase == FE_NORM_PHASE_TRAINING) {
            ASSERT_FE_OK(fe_tensor_set_output(mean, 1));
            ASSERT_FE_OK(fe_tensor_set_output(inv, 1));
        }
        expect_supported(g);
    }
}

// dx, dscale, dbias of a batchnorm from dy masked by the forward's ReLU (a boolean input), fp16
// channels-last, as the reference's "DBN Add Relu" sample: with the masked dy an output too (the
// gradient the residual branch takes), and with it virtual, which cuDNN 9.19 has no engine for.
TEST_F(NormFusionSupport, BatchnormBackwardOfAReluMaskedDy) {
    for (bool masked_out : {true, false}) {
        SCOPED_TRACE(masked_out ? "masked dy an output" : "masked dy virtual");
        fe_graph *g = graph("batchnorm_backward_add_relu", FE_DATA_HALF);
        const std::vector<int64_t> image = {4, 32, 16, 16}, channel = {1, 32, 1, 1};
        fe_tensor *dy = tensor(g, "dy", image, true), *mask = tensor(g, "mask", image, true, FE_DATA_BOOLEAN);
        fe_tensor *x = tensor(g, "x", image, true), *s = tensor(g, "scale", channel, true, FE_DATA_FLOAT);
        fe_tensor *mean = tensor(g, "mean", channel, true, FE_DATA_FLOAT);
        fe_tensor *inv = tensor(g, "inv_variance", channel, true, FE_DATA_FLOAT);
        fe_tensor *masked = nullptr, *dx = nullptr, *ds = nullptr, *db = nullptr;
        ASSERT_FE_OK(fe_graph_mul(g, dy, mask, nullptr, &masked));
        ASSERT_FE_OK(fe_graph_batchnorm_backward(g, masked, x, s, mean, inv, nullptr, &dx, &ds, &db));
        for (fe_tensor *t : {dx, ds, db}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        if (masked_out) {
            ASSERT_FE_OK(fe_tensor_set_data_type(masked, FE_DATA_HALF));
            ASSERT_FE_OK(fe_tensor_set_output(masked, 1));
            EXPECT_FE_OK(support_status(g));  // 36 engine configs: building them all would take long
        } else {
            EXPECT_FE_STATUS(support_status(g), FE_STATUS_NOT_SUPPORTED);
        }
    }
}

// dx of relu(batchnorm_inference(x)) through the batchnorm backward, fp16 channels-last, as the
// reference's "BN_inference DRelu DBN" sample: cuDNN matches it only with the inference as its own
// normalization operation (lowered so in this pattern alone) and the ReLU backward's result in x's
// type; with that result float it has no engine.
TEST_F(NormFusionSupport, BatchnormInferenceReluBackwardBatchnormBackward) {
    for (fe_data_type drelu_type : {FE_DATA_HALF, FE_DATA_FLOAT}) {
        SCOPED_TRACE(drelu_type == FE_DATA_HALF ? "dReLU half" : "dReLU float");
        fe_graph *g = graph("batchnorm_inference_drelu_dbn", FE_DATA_HALF);
        const std::vector<int64_t> image = {4, 32, 16, 16}, channel = {1, 32, 1, 1};
        fe_tensor *x = tensor(g, "x", image, true), *dy = tensor(g, "dy", image, true);
        fe_tensor *s = tensor(g, "scale", channel, true, FE_DATA_FLOAT), *b = tensor(g, "bias", channel, true, FE_DATA_FLOAT);
        fe_tensor *mean = tensor(g, "mean", channel, true, FE_DATA_FLOAT);
        fe_tensor *inv = tensor(g, "inv_variance", channel, true, FE_DATA_FLOAT);
        fe_tensor *y = nullptr, *drelu = nullptr, *dx = nullptr, *ds = nullptr, *db = nullptr;
        ASSERT_FE_OK(fe_graph_batchnorm_inference(g, x, mean, inv, s, b, nullptr, &y));
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_RELU_BWD, dy, y, nullptr, nullptr, &drelu));
        ASSERT_FE_OK(fe_tensor_set_data_type(drelu, drelu_type));
        ASSERT_FE_OK(fe_graph_batchnorm_backward(g, drelu, x, s, mean, inv, nullptr, &dx, &ds, &db));
        for (fe_tensor *t : {dx, ds, db}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        EXPECT_FE_STATUS(support_status(g), drelu_type == FE_DATA_HALF ? FE_OK : FE_STATUS_NOT_SUPPORTED);
    }
}

}  // namespace
