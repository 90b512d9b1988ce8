// Layer normalization, forward and backward: statistics per sample over the dims scale spans.
#include "ops/norm.hpp"
#include "schema/schema.hpp"

namespace fe {

namespace {

std::vector<int64_t> stats_dims(const fe_tensor *x, const fe_tensor *scale) { return layer_stats_dims(x, scale, false); }

const NormFamily kLayerNorm = {"layernorm", CUDNN_LAYER_NORM, true, false, true, Feature::cudnn_9, stats_dims};

// The ops' descriptions (lib/schema/schema.hpp); the family adds them.
const schema::Op kLayernorm{"layernorm", "fe_graph_layernorm", "Normalizations",
                            {{"X", nullptr, "[batch, ...]", {4, 16}}, {"scale", nullptr, "[1, normalized dims...]", {1, 16}},
                             {"bias", nullptr, "scale's dims", {1, 16}}},
                            norm_forward_output_ports(), {}, &norm_options_description(), {}, false, "Layer normalization."};

const schema::Op kLayernormBackward{"layernorm_backward", "fe_graph_layernorm_backward", "Normalizations", norm_backward_input_ports(),
                                    norm_backward_output_ports(false), {}, &norm_backward_options_description(), {"name", "zero_centered_gamma"}, false,
                                    "Layer normalization backward."};

const schema::Registration kRegistered[] = {
    schema::Registration(kLayernorm, add_norm_forward_call<kLayerNorm>),
    schema::Registration(kLayernormBackward, add_norm_backward_call<kLayerNorm, false>)};

}  // namespace

}  // namespace fe
