// RMS normalization, forward and backward: no mean, only the inverse root mean square; the bias
// is optional.
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
