// Adaptive layer normalization (AdaLN), forward and backward: layer normalization whose scale and
// bias may differ per sample. The build refuses it on a cuDNN without the mode (Feature::adalayernorm).
#include "common/error.hpp"
#include "ops/norm.hpp"

namespace fe {

namespace {
std::vector<int64_t> stats_dims(const fe_tensor *x, const fe_tensor *scale) { return layer_stats_dims(x, scale, true); }

// cuDNN refuses (1 + scale) fused into AdaLN, so zero-centred gamma is not offered
// (Feature::adalayernorm_zero_centered_gamma).
const NormFamily kAdaLayerNorm = {"adalayernorm", CUDNN_ADA_LAYER_NORM, true, true, false, Feature::adalayernorm, stats_dims};
}  // namespace

std::unique_ptr<Node> make_adalayernorm(fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                        const fe_norm_options &options) {
    return make_norm_forward(kAdaLayerNorm, x, scale, bias, options);
}

std::unique_ptr<Node> make_adalayernorm_backward(fe_tensor *dy, fe_tensor *x, fe_tensor *scale, fe_tensor *mean,
                                                 fe_tensor *inv_variance, const fe_norm_backward_options &options) {
    return make_norm_backward(kAdaLayerNorm, dy, x, scale, mean, inv_variance, options);
}

}  // namespace fe
