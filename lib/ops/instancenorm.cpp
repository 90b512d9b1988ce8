// Instance normalization, forward and backward: statistics per image and channel over space.

// include/cudnnfe.h, section "Normalizations" (copied there by scripts/schema/generate_header.py):
// /** Instance normalization: layer normalization per image and channel over the spatial dims.
//  *  x [N, C, spatial...] (rank 3 to 5; channels-last is usual), scale and bias [1, C, 1, ...],
//  *  statistics [N, C, 1, ...]. Outputs as fe_graph_layernorm. zero_centered_gamma is refused. */
// FE_API fe_status fe_graph_instancenorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale,
//                                        fe_tensor *bias, const fe_norm_options *options,
//                                        fe_tensor **out_y, fe_tensor **out_mean,
//                                        fe_tensor **out_inv_variance);
// FE_API fe_status fe_graph_instancenorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x,
//                                                 fe_tensor *scale, fe_tensor *mean,
//                                                 fe_tensor *inv_variance,
//                                                 const fe_norm_backward_options *options,
//                                                 fe_tensor **out_dx, fe_tensor **out_dscale,
//                                                 fe_tensor **out_dbias);

#include "ops/norm.hpp"
#include "schema/schema.hpp"

namespace fe {

namespace {

std::vector<int64_t> stats_dims(const fe_tensor *x, const fe_tensor *scale) {
    return channel_stats_dims(x, scale, true);
}

const NormFamily kInstanceNorm = {"instancenorm", CUDNN_INSTANCE_NORM, true, false, false, Feature::cudnn_9, stats_dims};

// The ops' descriptions (lib/schema/schema.hpp); the family adds them.
const schema::Op kInstancenorm{"instancenorm", "fe_graph_instancenorm", "Normalizations",
                               {{"X", nullptr, "[N, C, spatial...]"}, {"scale", nullptr, "[1, C, 1, ...]"},
                                {"bias", nullptr, "[1, C, 1, ...]"}},
                               norm_forward_output_ports(), {}, &norm_options_description(), {"name", "phase", "epsilon", "epsilon_tensor"}, false,
                               "Instance normalization."};

const schema::Op kInstancenormBackward{"instancenorm_backward", "fe_graph_instancenorm_backward", "Normalizations",
                                       norm_backward_input_ports(), norm_backward_output_ports(false), {}, &norm_backward_options_description(), {"name"}, false,
                                       "Instance normalization backward."};

const schema::Registration kRegistered[] = {
    schema::Registration(kInstancenorm, add_norm_forward_call<kInstanceNorm>),
    schema::Registration(kInstancenormBackward, add_norm_backward_call<kInstanceNorm, false>)};

}  // namespace

}  // namespace fe
