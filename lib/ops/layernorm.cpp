// Layer normalization, forward and backward: statistics per sample over the dims scale spans.

// include/cudnnfe.h, section "Normalizations" (copied there by scripts/schema/generate_header.py):
// /** Layer normalization: y = (x - mean) / sqrt(var + epsilon) * scale + bias, mean and var over
//  *  the normalized dims. scale and bias (same dims) are required. With phase TRAINING,
//  *  out_mean and out_inv_variance receive the float statistics (both required); with INFERENCE
//  *  they are nullable and set to NULL. options nullable (defaults: FE_NORM_OPTIONS_INIT). */
// FE_API fe_status fe_graph_layernorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
//                                     const fe_norm_options *options, fe_tensor **out_y,
//                                     fe_tensor **out_mean, fe_tensor **out_inv_variance);
//
// /** Layer normalization backward, from the forward's mean and inverse variance. */
// FE_API fe_status fe_graph_layernorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x,
//                                              fe_tensor *scale, fe_tensor *mean,
//                                              fe_tensor *inv_variance,
//                                              const fe_norm_backward_options *options,
//                                              fe_tensor **out_dx, fe_tensor **out_dscale,
//                                              fe_tensor **out_dbias);

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
