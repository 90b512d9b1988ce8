// The normalizations' descriptions (lib/schema/schema.hpp): layernorm, rmsnorm, instancenorm,
// adalayernorm and their backward passes, batchnorm (training, inference, backward), with
// fe_norm_options, fe_norm_backward_options, fe_batchnorm_options and
// fe_batchnorm_inference_options.
#include "ops/graph_ops.hpp"
#include "schema/schema.hpp"

namespace fe::schema {

namespace {

const fe_norm_options kNormDefaults = FE_NORM_OPTIONS_INIT;
const fe_norm_backward_options kBackwardDefaults = FE_NORM_BACKWARD_OPTIONS_INIT;
const fe_batchnorm_options kBatchnormDefaults = FE_BATCHNORM_OPTIONS_INIT;
const fe_batchnorm_inference_options kInferenceDefaults = FE_BATCHNORM_INFERENCE_OPTIONS_INIT;

const Enum kPhase{"fe_norm_phase",
                  {{"FE_NORM_PHASE_INFERENCE", "inference", FE_NORM_PHASE_INFERENCE},
                   {"FE_NORM_PHASE_TRAINING", "training", FE_NORM_PHASE_TRAINING}},
                  "Inference (y only) or training (y and the statistics the backward pass reads)."};

const Struct kNormOptions{
    "fe_norm_options",
    sizeof(fe_norm_options),
    &kNormDefaults,
    {
        FE_SCHEMA_FIELD(fe_norm_options, name, name, "The op's name; automatic when absent."),
        FE_SCHEMA_ENUM(fe_norm_options, phase, kPhase, "Inference or training."),
        FE_SCHEMA_RANGE(fe_norm_options, epsilon, number, 0, 1e308, "Added to the variance."),
        FE_SCHEMA_TENSOR(fe_norm_options, epsilon_tensor, "epsilon", "Epsilon as a one-element float scalar."),
        FE_SCHEMA_FIELD(fe_norm_options, zero_centered_gamma, flag, "Multiply by (1 + scale) instead of scale."),
    },
    "A normalization's phase and epsilon."};

const Struct kBackwardOptions{
    "fe_norm_backward_options",
    sizeof(fe_norm_backward_options),
    &kBackwardDefaults,
    {
        FE_SCHEMA_FIELD(fe_norm_backward_options, name, name, "The op's name; automatic when absent."),
        FE_SCHEMA_FIELD(fe_norm_backward_options, zero_centered_gamma, flag, "The forward pass used (1 + scale)."),
        FE_SCHEMA_RANGE(fe_norm_backward_options, peer_stats_count, tensor_count, 0, FE_MAX_PEER_STATS,
                        "How many peer statistics buffers are set."),
        FE_SCHEMA_FIELD(fe_norm_backward_options, peer_stats, tensor_array,
                        "Synchronized batchnorm: one statistics exchange buffer per GPU of the group, float [2, 4 * C, 1, 1]."),
    },
    "A normalization backward pass's options."};

const Struct kBatchnormOptions{
    "fe_batchnorm_options",
    sizeof(fe_batchnorm_options),
    &kBatchnormDefaults,
    {
        FE_SCHEMA_FIELD(fe_batchnorm_options, name, name, "The op's name; automatic when absent."),
        FE_SCHEMA_RANGE(fe_batchnorm_options, epsilon, number, 0, 1e308, "Added to the variance."),
        FE_SCHEMA_TENSOR(fe_batchnorm_options, epsilon_tensor, "epsilon", "Epsilon as a one-element float scalar."),
        FE_SCHEMA_TENSOR(fe_batchnorm_options, running_mean, nullptr, "The running mean, [1, C, 1, ...]."),
        FE_SCHEMA_TENSOR(fe_batchnorm_options, running_var, nullptr, "The running variance, [1, C, 1, ...]."),
        FE_SCHEMA_RANGE(fe_batchnorm_options, momentum, number, 0, 1, "Weight of the batch statistic in the update."),
        FE_SCHEMA_TENSOR(fe_batchnorm_options, momentum_tensor, "momentum", "Momentum as a one-element float scalar."),
        FE_SCHEMA_RANGE(fe_batchnorm_options, peer_stats_count, tensor_count, 0, FE_MAX_PEER_STATS,
                        "How many peer statistics buffers are set."),
        FE_SCHEMA_FIELD(fe_batchnorm_options, peer_stats, tensor_array,
                        "Synchronized batchnorm: one statistics exchange buffer per GPU of the group, float [2, 4 * C, 1, 1]."),
    },
    "Batch normalization's epsilon and running statistics."};

const Struct kInferenceOptions{
    "fe_batchnorm_inference_options",
    sizeof(fe_batchnorm_inference_options),
    &kInferenceDefaults,
    {FE_SCHEMA_FIELD(fe_batchnorm_inference_options, name, name, "The op's name; automatic when absent.")},
    "Batch normalization inference's name."};

const std::vector<Port> kForwardOutputs = {{"Y", nullptr, "like x"},
                                           {"Mean", "phase", "training: the mean over the normalized dims"},
                                           {"InvVariance", "phase", "training: 1 / sqrt(var + epsilon)"}};
const std::vector<Port> kBackwardOutputs = {{"DX", nullptr, "x's gradient"},
                                            {"DScale", nullptr, "scale's gradient"},
                                            {"DBias", nullptr, "bias's gradient"}};
const std::vector<Port> kBackwardOptionalBiasOutputs = {{"DX", nullptr, "x's gradient"},
                                                        {"DScale", nullptr, "scale's gradient"},
                                                        {"DBias", "output_dbias", "bias's gradient"}};
const std::vector<Port> kBackwardInputs = {{"dY", nullptr, "y's gradient"},
                                           {"X", nullptr, "the forward input"},
                                           {"scale", nullptr, "the forward scale"},
                                           {"mean", nullptr, "the forward mean"},
                                           {"inv_variance", nullptr, "the forward inverse standard deviation"}};
const Param kOutputDbias{"output_dbias", Type::flag, nullptr, false,
                         "Compute the bias's gradient (false when the forward had no bias); default true.", 1};

const Op kLayernorm{"layernorm", "fe_graph_layernorm", "Normalizations",
                    {{"X", nullptr, "[batch, ...]", {4, 16}}, {"scale", nullptr, "[1, normalized dims...]", {1, 16}},
                     {"bias", nullptr, "scale's dims", {1, 16}}},
                    kForwardOutputs, {}, &kNormOptions, {}, false, "Layer normalization."};
const Op kRmsnorm{"rmsnorm", "fe_graph_rmsnorm", "Normalizations",
                  {{"X", nullptr, "[batch, ...]"}, {"scale", nullptr, "[1, normalized dims...]"},
                   {"bias", "optional", "scale's dims"}},
                  {{"Y", nullptr, "like x"}, {"InvRms", "phase", "training: 1 / sqrt(mean(x^2) + epsilon)"}},
                  {}, &kNormOptions, {}, false, "RMS normalization."};
const Op kInstancenorm{"instancenorm", "fe_graph_instancenorm", "Normalizations",
                       {{"X", nullptr, "[N, C, spatial...]"}, {"scale", nullptr, "[1, C, 1, ...]"},
                        {"bias", nullptr, "[1, C, 1, ...]"}},
                       kForwardOutputs, {}, &kNormOptions, {"name", "phase", "epsilon", "epsilon_tensor"}, false,
                       "Instance normalization."};
const Op kAdalayernorm{"adalayernorm", "fe_graph_adalayernorm", "Normalizations",
                       {{"X", nullptr, "[batch, ...]"}, {"scale", nullptr, "per sample or [1, ...]"},
                        {"bias", "optional", "scale's dims"}},
                       kForwardOutputs, {}, &kNormOptions, {"name", "phase", "epsilon", "epsilon_tensor"}, false,
                       "Adaptive layer normalization (per-sample scale and shift)."};
const Op kLayernormBackward{"layernorm_backward", "fe_graph_layernorm_backward", "Normalizations", kBackwardInputs,
                            kBackwardOutputs, {}, &kBackwardOptions, {"name", "zero_centered_gamma"}, false,
                            "Layer normalization backward."};
const Op kRmsnormBackward{"rmsnorm_backward", "fe_graph_rmsnorm_backward", "Normalizations",
                          {{"dY", nullptr, "y's gradient"}, {"X", nullptr, "the forward input"},
                           {"scale", nullptr, "the forward scale"}, {"inv_rms", nullptr, "the forward inverse RMS"}},
                          kBackwardOptionalBiasOutputs, {kOutputDbias}, &kBackwardOptions,
                          {"name", "zero_centered_gamma"}, false, "RMS normalization backward."};
const Op kInstancenormBackward{"instancenorm_backward", "fe_graph_instancenorm_backward", "Normalizations",
                               kBackwardInputs, kBackwardOutputs, {}, &kBackwardOptions, {"name"}, false,
                               "Instance normalization backward."};
const Op kAdalayernormBackward{"adalayernorm_backward", "fe_graph_adalayernorm_backward", "Normalizations",
                               kBackwardInputs, kBackwardOptionalBiasOutputs, {kOutputDbias}, &kBackwardOptions,
                               {"name"}, false, "Adaptive layer normalization backward."};
const Op kBatchnorm{"batchnorm", "fe_graph_batchnorm", "Normalizations",
                    {{"X", nullptr, "[N, C, spatial...]"}, {"scale", nullptr, "[1, C, 1, ...]"},
                     {"bias", nullptr, "[1, C, 1, ...]"}},
                    {{"Y", nullptr, "like x"}, {"Mean", nullptr, "the batch mean"},
                     {"InvVariance", nullptr, "the batch's 1 / sqrt(var + epsilon)"},
                     {"NextRunningMean", "running_mean", "the updated running mean"},
                     {"NextRunningVar", "running_var", "the updated running variance"}},
                    {}, &kBatchnormOptions, {}, false, "Batch normalization, training."};
const Op kBatchnormInference{"batchnorm_inference", "fe_graph_batchnorm_inference", "Normalizations",
                             {{"X", nullptr, "[N, C, spatial...]"}, {"mean", nullptr, "[1, C, 1, ...]"},
                              {"inv_variance", nullptr, "[1, C, 1, ...]"}, {"scale", nullptr, "[1, C, 1, ...]"},
                              {"bias", nullptr, "[1, C, 1, ...]"}},
                             {{"Y", nullptr, "like x"}}, {}, &kInferenceOptions, {}, false,
                             "Batch normalization, inference, from given statistics."};
const Op kBatchnormBackward{"batchnorm_backward", "fe_graph_batchnorm_backward", "Normalizations", kBackwardInputs,
                            kBackwardOutputs, {}, &kBackwardOptions, {"name", "peer_stats_count", "peer_stats"}, false,
                            "Batch normalization backward."};

// How a call adds each normalization: the forward norms and the backward ones share a function
// that takes the kind; rmsnorm_backward has no mean input.
const std::vector<fe_tensor *> &add_forward(fe_graph &g, const Call &c, const char *kind) {
    return add_norm(g, kind, c.inputs[0], c.inputs[1], c.inputs[2], c.options_as<fe_norm_options>());
}
template <const Op &op>
const std::vector<fe_tensor *> &add_forward_of(fe_graph &g, const Call &c) {
    return add_forward(g, c, op.kind);
}
template <const Op &op>
const std::vector<fe_tensor *> &add_backward_of(fe_graph &g, const Call &c) {
    bool rms = c.inputs.size() == 4;
    bool with_dbias = op.params.empty() || c.params[0].value != 0;
    return add_norm_backward(g, op.kind, c.inputs[0], c.inputs[1], c.inputs[2], rms ? nullptr : c.inputs[3],
                             c.inputs[rms ? 3 : 4], c.options_as<fe_norm_backward_options>(), with_dbias);
}
const std::vector<fe_tensor *> &add_batchnorm_call(fe_graph &g, const Call &c) {
    return add_batchnorm(g, c.inputs[0], c.inputs[1], c.inputs[2], c.options_as<fe_batchnorm_options>());
}
const std::vector<fe_tensor *> &add_batchnorm_inference_call(fe_graph &g, const Call &c) {
    return add_batchnorm_inference(g, c.inputs[0], c.inputs[1], c.inputs[2], c.inputs[3], c.inputs[4],
                                   c.options_as<fe_batchnorm_inference_options>());
}

const Registration kRegistered[] = {
    Registration(kLayernorm, add_forward_of<kLayernorm>),         Registration(kRmsnorm, add_forward_of<kRmsnorm>),           Registration(kInstancenorm, add_forward_of<kInstancenorm>),
    Registration(kAdalayernorm, add_forward_of<kAdalayernorm>),      Registration(kLayernormBackward, add_backward_of<kLayernormBackward>), Registration(kRmsnormBackward, add_backward_of<kRmsnormBackward>),
    Registration(kInstancenormBackward, add_backward_of<kInstancenormBackward>), Registration(kAdalayernormBackward, add_backward_of<kAdalayernormBackward>), Registration(kBatchnorm, add_batchnorm_call),
    Registration(kBatchnormInference, add_batchnorm_inference_call), Registration(kBatchnormBackward, add_backward_of<kBatchnormBackward>)};

}  // namespace

}  // namespace fe::schema
