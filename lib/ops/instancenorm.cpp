// Instance normalization, forward and backward: statistics per image and channel over space.
#include "common/error.hpp"
#include "ops/norm.hpp"
#include "schema/schema.hpp"
#include "ops/graph_ops.hpp"

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

// The ops' descriptions (lib/schema/schema.hpp) and how a call adds them.
namespace fe {

namespace {

const schema::Op kInstancenorm{"instancenorm", "fe_graph_instancenorm", "Normalizations",
                       {{"X", nullptr, "[N, C, spatial...]"}, {"scale", nullptr, "[1, C, 1, ...]"},
                        {"bias", nullptr, "[1, C, 1, ...]"}},
                       norm_forward_output_ports(), {}, &norm_options_description(), {"name", "phase", "epsilon", "epsilon_tensor"}, false,
                       "Instance normalization."};

const schema::Op kInstancenormBackward{"instancenorm_backward", "fe_graph_instancenorm_backward", "Normalizations",
                               norm_backward_input_ports(), norm_backward_output_ports(false), {}, &norm_backward_options_description(), {"name"}, false,
                               "Instance normalization backward."};

const std::vector<fe_tensor *> &add_instancenorm_call(fe_graph &g, const schema::Call &c) {
    return add_norm_call(g, c, "instancenorm");
}
const std::vector<fe_tensor *> &add_instancenorm_backward_call(fe_graph &g, const schema::Call &c) {
    return add_norm_backward_call(g, c, "instancenorm_backward", false);
}

const schema::Registration kRegistered[] = {schema::Registration(kInstancenorm, add_instancenorm_call), schema::Registration(kInstancenormBackward, add_instancenorm_backward_call)};

}  // namespace

}  // namespace fe
