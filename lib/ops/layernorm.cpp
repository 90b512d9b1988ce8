// Layer normalization, forward and backward: statistics per sample over the dims scale spans.
#include "common/error.hpp"
#include "ops/norm.hpp"

namespace fe {

namespace {
std::vector<int64_t> stats_dims(const fe_tensor *x, const fe_tensor *scale) { return layer_stats_dims(x, scale, false); }

const NormFamily kLayerNorm = {"layernorm", CUDNN_LAYER_NORM, true, false, true, Feature::cudnn_9, stats_dims};
}  // namespace

std::unique_ptr<Node> make_layernorm(fe_tensor *x, fe_tensor *scale, fe_tensor *bias, const fe_norm_options &options) {
    return make_norm_forward(kLayerNorm, x, scale, bias, options);
}

std::unique_ptr<Node> make_layernorm_backward(fe_tensor *dy, fe_tensor *x, fe_tensor *scale, fe_tensor *mean,
                                              fe_tensor *inv_variance, const fe_norm_backward_options &options) {
    return make_norm_backward(kLayerNorm, dy, x, scale, mean, inv_variance, options);
}

}  // namespace fe
