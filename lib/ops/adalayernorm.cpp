// Adaptive layer normalization (AdaLN), forward and backward: layer normalization whose scale and
// bias may differ per sample. The build refuses it on a cuDNN without the mode (Feature::adalayernorm).
#include "ops/norm.hpp"
#include "schema/schema.hpp"

namespace fe {

namespace {

std::vector<int64_t> stats_dims(const fe_tensor *x, const fe_tensor *scale) { return layer_stats_dims(x, scale, true); }

// cuDNN refuses (1 + scale) fused into AdaLN, so zero-centred gamma is not offered
// (Feature::adalayernorm_zero_centered_gamma).
const NormFamily kAdaLayerNorm = {"adalayernorm", CUDNN_ADA_LAYER_NORM, true, true, false, Feature::adalayernorm, stats_dims};

// The ops' descriptions (lib/schema/schema.hpp); the family adds them.
const schema::Op kAdalayernorm{"adalayernorm", "fe_graph_adalayernorm", "Normalizations",
                               {{"X", nullptr, "[batch, ...]"}, {"scale", nullptr, "per sample or [1, ...]"},
                                {"bias", "optional", "scale's dims"}},
                               norm_forward_output_ports(), {}, &norm_options_description(), {"name", "phase", "epsilon", "epsilon_tensor"}, false,
                               "Adaptive layer normalization (per-sample scale and shift)."};

const schema::Op kAdalayernormBackward{"adalayernorm_backward", "fe_graph_adalayernorm_backward", "Normalizations",
                                       norm_backward_input_ports(), norm_backward_output_ports(true), {norm_output_dbias_param()}, &norm_backward_options_description(),
                                       {"name"}, false, "Adaptive layer normalization backward."};

const schema::Registration kRegistered[] = {
    schema::Registration(kAdalayernorm, add_norm_forward_call<kAdaLayerNorm>),
    schema::Registration(kAdalayernormBackward, add_norm_backward_call<kAdaLayerNorm, true>)};

}  // namespace

}  // namespace fe
