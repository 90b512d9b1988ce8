// Layer normalization, forward and backward: statistics per sample over the dims scale spans.
#include "common/error.hpp"
#include "ops/norm.hpp"
#include "schema/schema.hpp"
#include "ops/graph_ops.hpp"

namespace fe {

namespace {
std::vector<int64_t> stats_dims(const fe_tensor *x, const fe_tensor *scale) { return layer_stats_dims(x, scale, false); }

const NormFamily kLayerNorm = {"layernorm", CUDNN_LAYER_NORM, true, false, true, Feature::cudnn_9, stats_dims};
}  // namespace



}  // namespace fe

// The ops' descriptions (lib/schema/schema.hpp) and how a call adds them.
namespace fe {

namespace {

const schema::Op kLayernorm{"layernorm", "fe_graph_layernorm", "Normalizations",
                            {{"X", nullptr, "[batch, ...]", {4, 16}}, {"scale", nullptr, "[1, normalized dims...]", {1, 16}},
                             {"bias", nullptr, "scale's dims", {1, 16}}},
                            norm_forward_output_ports(), {}, &norm_options_description(), {}, false, "Layer normalization."};

const schema::Op kLayernormBackward{"layernorm_backward", "fe_graph_layernorm_backward", "Normalizations", norm_backward_input_ports(),
                                    norm_backward_output_ports(false), {}, &norm_backward_options_description(), {"name", "zero_centered_gamma"}, false,
                                    "Layer normalization backward."};

const std::vector<fe_tensor *> &add_layernorm_call(fe_graph &g, const schema::Call &c) {
    return add_norm_forward(g, kLayerNorm, c);
}
const std::vector<fe_tensor *> &add_layernorm_backward_call(fe_graph &g, const schema::Call &c) {
    return add_norm_backward(g, kLayerNorm, "layernorm_backward", c, false);
}

const schema::Registration kRegistered[] = {schema::Registration(kLayernorm, add_layernorm_call), schema::Registration(kLayernormBackward, add_layernorm_backward_call)};

}  // namespace

}  // namespace fe
