// The normalization fusions both tiers build: the deviceless tier checks that cuDNN has engines
// for them (tests/deviceless/norm_fusion_support_test.cpp), the GPU tier their values
// (tests/gpu/norm_fusion_test.cpp). Each adds its operations after the given tensors and marks
// every result the test reads as an output.
#pragma once

#include "test_support.hpp"

namespace cudnnfe_test {

struct NormForwardOutputs {
    fe_tensor *y = nullptr, *mean = nullptr, *inv_variance = nullptr;
};

struct NormGradients {
    fe_tensor *dx = nullptr, *dscale = nullptr, *dbias = nullptr;
};

// sum = x + residual, written in `sum_type` and an output, then its layernorm in training.
struct ResidualLayernorm {
    fe_tensor *sum = nullptr;
    NormForwardOutputs norm;
};
inline ResidualLayernorm residual_layernorm(fe_graph *g, fe_tensor *x, fe_tensor *residual, fe_tensor *scale,
                                            fe_tensor *bias, fe_data_type sum_type) {
    ResidualLayernorm r;
    EXPECT_FE_OK(fe_graph_add(g, x, residual, nullptr, &r.sum));
    EXPECT_FE_OK(fe_tensor_set_data_type(r.sum, sum_type));
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    o.phase = FE_NORM_PHASE_TRAINING;
    EXPECT_FE_OK(fe_graph_layernorm(g, r.sum, scale, bias, &o, &r.norm.y, &r.norm.mean, &r.norm.inv_variance));
    for (fe_tensor *t : {r.norm.y, r.norm.mean, r.norm.inv_variance, r.sum}) EXPECT_FE_OK(fe_tensor_set_output(t, 1));
    return r;
}

// y = clamp(layernorm(x), 0, 6) in training and its bitmask 0 < y < 6, as the reference frontend's
// sample writes it: two comparisons with by-value bounds joined by a logical and, all boolean.
struct ClampedReluBitmask {
    NormForwardOutputs norm;  // y is the clamped one
    fe_tensor *mask = nullptr;
};
inline ClampedReluBitmask layernorm_clamped_relu_bitmask(fe_graph *g, fe_tensor *x, fe_tensor *scale, fe_tensor *bias) {
    ClampedReluBitmask r;
    fe_tensor *normed = nullptr;
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    o.phase = FE_NORM_PHASE_TRAINING;
    EXPECT_FE_OK(fe_graph_layernorm(g, x, scale, bias, &o, &normed, &r.norm.mean, &r.norm.inv_variance));
    fe_pointwise_options clamp = FE_POINTWISE_OPTIONS_INIT;
    clamp.relu_lower_clip = 0;
    clamp.relu_upper_clip = 6;
    EXPECT_FE_OK(fe_graph_relu(g, normed, &clamp, &r.norm.y));
    fe_tensor *lower = nullptr, *upper = nullptr, *above = nullptr, *below = nullptr;
    EXPECT_FE_OK(fe_graph_scalar(g, "lower", 0.0, FE_DATA_FLOAT, &lower));
    EXPECT_FE_OK(fe_graph_scalar(g, "upper", 6.0, FE_DATA_FLOAT, &upper));
    EXPECT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_CMP_GT, r.norm.y, lower, nullptr, nullptr, &above));
    EXPECT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_CMP_LT, r.norm.y, upper, nullptr, nullptr, &below));
    EXPECT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_LOGICAL_AND, above, below, nullptr, nullptr, &r.mask));
    for (fe_tensor *t : {above, below, r.mask}) EXPECT_FE_OK(fe_tensor_set_data_type(t, FE_DATA_BOOLEAN));
    for (fe_tensor *t : {r.norm.y, r.norm.mean, r.norm.inv_variance, r.mask}) EXPECT_FE_OK(fe_tensor_set_output(t, 1));
    return r;
}

// The layernorm backward of dy * mask (a boolean input: the forward's ReLU bitmask).
inline NormGradients bitmasked_layernorm_backward(fe_graph *g, fe_tensor *dy, fe_tensor *mask, fe_tensor *x,
                                                  fe_tensor *scale, fe_tensor *mean, fe_tensor *inv_variance) {
    NormGradients r;
    fe_tensor *masked = nullptr;
    EXPECT_FE_OK(fe_graph_mul(g, dy, mask, nullptr, &masked));
    EXPECT_FE_OK(fe_graph_layernorm_backward(g, masked, x, scale, mean, inv_variance, nullptr, &r.dx, &r.dscale, &r.dbias));
    for (fe_tensor *t : {r.dx, r.dscale, r.dbias}) EXPECT_FE_OK(fe_tensor_set_output(t, 1));
    return r;
}

// relu(instancenorm(x) + a); the statistics are outputs too in training.
struct InstancenormAddRelu {
    fe_tensor *out = nullptr;
    NormForwardOutputs norm;
};
inline InstancenormAddRelu instancenorm_add_relu(fe_graph *g, fe_tensor *x, fe_tensor *a, fe_tensor *scale,
                                                 fe_tensor *bias, bool training) {
    InstancenormAddRelu r;
    fe_tensor *sum = nullptr;
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    o.phase = training ? FE_NORM_PHASE_TRAINING : FE_NORM_PHASE_INFERENCE;
    EXPECT_FE_OK(fe_graph_instancenorm(g, x, scale, bias, &o, &r.norm.y, &r.norm.mean, &r.norm.inv_variance));
    EXPECT_FE_OK(fe_graph_add(g, r.norm.y, a, nullptr, &sum));
    EXPECT_FE_OK(fe_graph_relu(g, sum, nullptr, &r.out));
    EXPECT_FE_OK(fe_tensor_set_output(r.out, 1));
    if (training) {
        for (fe_tensor *t : {r.norm.mean, r.norm.inv_variance}) EXPECT_FE_OK(fe_tensor_set_output(t, 1));
    }
    return r;
}

// The batchnorm backward of dy * mask (the forward's ReLU as a boolean input); the masked dy in
// half and an output too when `masked_output` (the gradient a residual branch takes).
struct MaskedBatchnormBackward {
    fe_tensor *masked = nullptr;
    NormGradients grads;
};
inline MaskedBatchnormBackward masked_batchnorm_backward(fe_graph *g, fe_tensor *dy, fe_tensor *mask, fe_tensor *x,
                                                         fe_tensor *scale, fe_tensor *mean, fe_tensor *inv_variance,
                                                         bool masked_output) {
    MaskedBatchnormBackward r;
    EXPECT_FE_OK(fe_graph_mul(g, dy, mask, nullptr, &r.masked));
    EXPECT_FE_OK(fe_graph_batchnorm_backward(g, r.masked, x, scale, mean, inv_variance, nullptr, &r.grads.dx,
                                             &r.grads.dscale, &r.grads.dbias));
    for (fe_tensor *t : {r.grads.dx, r.grads.dscale, r.grads.dbias}) EXPECT_FE_OK(fe_tensor_set_output(t, 1));
    if (masked_output) {
        EXPECT_FE_OK(fe_tensor_set_data_type(r.masked, FE_DATA_HALF));
        EXPECT_FE_OK(fe_tensor_set_output(r.masked, 1));
    }
    return r;
}

// dx, dscale, dbias through relu(batchnorm_inference(x)): the ReLU backward of dy against the
// inference's y, its result in `drelu_type`, into the batchnorm backward.
inline NormGradients batchnorm_inference_relu_backward(fe_graph *g, fe_tensor *x, fe_tensor *dy, fe_tensor *scale,
                                                       fe_tensor *bias, fe_tensor *mean, fe_tensor *inv_variance,
                                                       fe_data_type drelu_type) {
    NormGradients r;
    fe_tensor *y = nullptr, *drelu = nullptr;
    EXPECT_FE_OK(fe_graph_batchnorm_inference(g, x, mean, inv_variance, scale, bias, nullptr, &y));
    EXPECT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_RELU_BWD, dy, y, nullptr, nullptr, &drelu));
    EXPECT_FE_OK(fe_tensor_set_data_type(drelu, drelu_type));
    EXPECT_FE_OK(fe_graph_batchnorm_backward(g, drelu, x, scale, mean, inv_variance, nullptr, &r.dx, &r.dscale, &r.dbias));
    for (fe_tensor *t : {r.dx, r.dscale, r.dbias}) EXPECT_FE_OK(fe_tensor_set_output(t, 1));
    return r;
}

}  // namespace cudnnfe_test
