// Instance normalization, forward and backward: statistics per image and channel over space.
#include "common/error.hpp"
#include "ops/norm.hpp"

namespace fe {

namespace {
std::vector<int64_t> stats_dims(const fe_tensor *x, const fe_tensor *scale) {
    return channel_stats_dims(x, scale, true);
}

const NormFamily kInstanceNorm = {"instancenorm", CUDNN_INSTANCE_NORM, true, false, false, Feature::cudnn_9, stats_dims};
}  // namespace

std::unique_ptr<Node> make_instancenorm(fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                        const fe_norm_options &options) {
    return make_norm_forward(kInstanceNorm, x, scale, bias, options);
}

std::unique_ptr<Node> make_instancenorm_backward(fe_tensor *dy, fe_tensor *x, fe_tensor *scale, fe_tensor *mean,
                                                 fe_tensor *inv_variance, const fe_norm_backward_options &options) {
    return make_norm_backward(kInstanceNorm, dy, x, scale, mean, inv_variance, options);
}

}  // namespace fe
