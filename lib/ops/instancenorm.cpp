// Instance normalization, forward and backward: statistics per image and channel over space.
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
