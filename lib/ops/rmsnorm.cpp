// RMS normalization, forward and backward: no mean, only the inverse root mean square; the bias
// is optional.
#include "common/error.hpp"
#include "ops/norm.hpp"

namespace fe {

namespace {
std::vector<int64_t> stats_dims(const fe_tensor *x, const fe_tensor *scale) { return layer_stats_dims(x, scale, false); }

const NormFamily kRmsNorm = {"rmsnorm", CUDNN_RMS_NORM, false, true, true, Feature::cudnn_9, stats_dims};
}  // namespace

std::unique_ptr<Node> make_rmsnorm(fe_tensor *x, fe_tensor *scale, fe_tensor *bias, const fe_norm_options &options) {
    return make_norm_forward(kRmsNorm, x, scale, bias, options);
}

std::unique_ptr<Node> make_rmsnorm_backward(fe_tensor *dy, fe_tensor *x, fe_tensor *scale, fe_tensor *inv_rms,
                                            const fe_norm_backward_options &options) {
    return make_norm_backward(kRmsNorm, dy, x, scale, nullptr, inv_rms, options);
}

}  // namespace fe
