// Adaptive layer normalization (AdaLN), forward and backward: layer normalization whose scale and
// bias may differ per sample. The build refuses it on a cuDNN without the mode (Feature::adalayernorm).

// include/cudnnfe.h, section "Normalizations" (copied there by scripts/schema/generate_header.py):
// /** Adaptive layer normalization (AdaLN, as in diffusion transformers): layer normalization
//  *  whose scale and (nullable) bias may differ per sample, e.g. x [b, s, d], scale [b, 1, d].
//  *  Outputs as fe_graph_layernorm; zero_centered_gamma is refused. Needs cuDNN >= 9.9
//  *  (docs/capabilities.md): with an older cuDNN the build fails with FE_STATUS_NOT_SUPPORTED
//  *  saying so. */
// FE_API fe_status fe_graph_adalayernorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale,
//                                        fe_tensor *bias, const fe_norm_options *options,
//                                        fe_tensor **out_y, fe_tensor **out_mean,
//                                        fe_tensor **out_inv_variance);
// /** AdaLN backward (cuDNN >= 9.9); dscale and dbias are per sample like scale. out_dbias is
//  *  nullable: NULL when the forward had no bias. */
// FE_API fe_status fe_graph_adalayernorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x,
//                                                 fe_tensor *scale, fe_tensor *mean,
//                                                 fe_tensor *inv_variance,
//                                                 const fe_norm_backward_options *options,
//                                                 fe_tensor **out_dx, fe_tensor **out_dscale,
//                                                 fe_tensor **out_dbias);

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
