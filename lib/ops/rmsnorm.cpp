// RMS normalization, forward and backward: no mean, only the inverse root mean square; the bias
// is optional.

// include/cudnnfe.h, section "Normalizations" (copied there by scripts/schema/generate_header.py):
// /** RMS normalization: y = x / sqrt(mean(x^2) + epsilon) * scale (+ bias). bias is nullable.
//  *  With phase TRAINING out_inv_rms receives 1 / sqrt(mean(x^2) + epsilon) (float; required);
//  *  with INFERENCE it is nullable and set to NULL. options nullable. */
// FE_API fe_status fe_graph_rmsnorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
//                                   const fe_norm_options *options, fe_tensor **out_y,
//                                   fe_tensor **out_inv_rms);
// /** RMS normalization backward, from the forward's inverse RMS. out_dbias is nullable: NULL
//  *  when the forward had no bias (no bias gradient is computed). */
// FE_API fe_status fe_graph_rmsnorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x,
//                                            fe_tensor *scale, fe_tensor *inv_rms,
//                                            const fe_norm_backward_options *options,
//                                            fe_tensor **out_dx, fe_tensor **out_dscale,
//                                            fe_tensor **out_dbias);

#include "ops/norm.hpp"
#include "schema/schema.hpp"

namespace fe {

namespace {

std::vector<int64_t> stats_dims(const fe_tensor *x, const fe_tensor *scale) { return layer_stats_dims(x, scale, false); }

const NormFamily kRmsNorm = {"rmsnorm", CUDNN_RMS_NORM, false, true, true, Feature::cudnn_9, stats_dims};

// The ops' descriptions (lib/schema/schema.hpp); the family adds them.
const schema::Op kRmsnorm{"rmsnorm", "fe_graph_rmsnorm", "Normalizations",
                          {{"X", nullptr, "[batch, ...]"}, {"scale", nullptr, "[1, normalized dims...]"},
                           {"bias", "optional", "scale's dims"}},
                          {{"Y", nullptr, "like x"}, {"InvRms", "phase", "training: 1 / sqrt(mean(x^2) + epsilon)"}},
                          {}, &norm_options_description(), {}, false, "RMS normalization."};

const schema::Op kRmsnormBackward{"rmsnorm_backward", "fe_graph_rmsnorm_backward", "Normalizations",
                                  {{"dY", nullptr, "y's gradient"}, {"X", nullptr, "the forward input"},
                                   {"scale", nullptr, "the forward scale"}, {"inv_rms", nullptr, "the forward inverse RMS"}},
                                  norm_backward_output_ports(true), {norm_output_dbias_param()}, &norm_backward_options_description(),
                                  {"name", "zero_centered_gamma"}, false, "RMS normalization backward."};

const schema::Registration kRegistered[] = {
    schema::Registration(kRmsnorm, add_norm_forward_call<kRmsNorm>),
    schema::Registration(kRmsnormBackward, add_norm_backward_call<kRmsNorm, true>)};

}  // namespace

}  // namespace fe
