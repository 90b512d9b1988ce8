// Batch normalization: training (batch statistics, optionally updating running statistics with
// a momentum), inference (from given statistics) and backward. Statistics are per channel.

// include/cudnnfe.h, section "Normalizations" (copied there by scripts/schema/generate_header.py):
// typedef struct fe_batchnorm_options {
//     uint32_t struct_size;
//     const char *name;
//     double epsilon;            /* as in fe_norm_options */
//     fe_tensor *epsilon_tensor; /* nullable; a scalar, as in fe_norm_options */
//     /* Running statistics (nullable, both or neither): float [1, C, 1, ...] inputs. With them,
//      * the call also returns the updated running statistics:
//      *   next = (1 - momentum) * running + momentum * batch statistic,
//      * the batch variance taken unbiased (divided by count - 1), as PyTorch does. Bind the same
//      * memory to a running input and its next output to update it in place. */
//     fe_tensor *running_mean;
//     fe_tensor *running_var;
//     double momentum;           /* in [0, 1]; default 0.1 */
//     /* nullable: momentum as a float scalar made with fe_graph_scalar (cuDNN reads it only by
//      * value); it then replaces `momentum`. */
//     fe_tensor *momentum_tensor;
//     /* Synchronized batchnorm: the statistics exchange buffers of the GPUs that share one
//      * batch, set with fe_batchnorm_options_set_peer_stats. See FE_MAX_PEER_STATS. */
//     size_t peer_stats_count;
//     fe_tensor *peer_stats[FE_MAX_PEER_STATS];
// } fe_batchnorm_options;
// #define FE_BATCHNORM_OPTIONS_INIT
//     { (uint32_t)sizeof(fe_batchnorm_options), NULL, 1e-5, NULL, NULL, NULL, 0.1, NULL, 0, { NULL } }
//
// /** Set the peer statistics buffers of a synchronized batchnorm (count 0 clears them). */
// FE_API fe_status fe_batchnorm_options_set_peer_stats(fe_batchnorm_options *options, size_t count,
//                                                      fe_tensor *const *peer_stats);
//
// /** Batch normalization, training: per-channel statistics over the batch and spatial dims.
//  *  x [N, C, spatial...] (rank 3 to 5; channels-last is usual), scale and bias [1, C, 1, ...].
//  *  out_y, out_mean and out_inv_variance (float [1, C, 1, ...]) are required. With running
//  *  statistics in the options, out_next_running_mean and out_next_running_var receive the
//  *  updated ones (both required); without, they are nullable and set to NULL. options nullable. */
// FE_API fe_status fe_graph_batchnorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale,
//                                     fe_tensor *bias, const fe_batchnorm_options *options,
//                                     fe_tensor **out_y, fe_tensor **out_mean,
//                                     fe_tensor **out_inv_variance,
//                                     fe_tensor **out_next_running_mean,
//                                     fe_tensor **out_next_running_var);
//
// typedef struct fe_batchnorm_inference_options {
//     uint32_t struct_size;
//     const char *name;
// } fe_batchnorm_inference_options;
// #define FE_BATCHNORM_INFERENCE_OPTIONS_INIT { (uint32_t)sizeof(fe_batchnorm_inference_options), NULL }
//
// /** Batch normalization, inference: y = (x - mean) * inv_variance * scale + bias, with the
//  *  statistics given (float [1, C, 1, ...]; inv_variance = 1 / sqrt(running_var + epsilon),
//  *  computed once by the caller). Shapes as fe_graph_batchnorm. cuDNN 9.19 runs its native
//  *  inference batchnorm only inside a backward fusion, so this lowers to four broadcast pointwise
//  *  operations, which cuDNN's fusion engines take for a channels-last x (NHWC, NDHWC) and fuse
//  *  with a convolution before them; a packed NCHW x of rank 4 or 5 finds no engine.
//  *  options nullable. */
// FE_API fe_status fe_graph_batchnorm_inference(fe_graph *graph, fe_tensor *x, fe_tensor *mean,
//                                               fe_tensor *inv_variance, fe_tensor *scale,
//                                               fe_tensor *bias,
//                                               const fe_batchnorm_inference_options *options,
//                                               fe_tensor **out_y);
// /** Batch normalization backward, from the forward's batch statistics (not the running ones). */
// FE_API fe_status fe_graph_batchnorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x,
//                                              fe_tensor *scale, fe_tensor *mean,
//                                              fe_tensor *inv_variance,
//                                              const fe_norm_backward_options *options,
//                                              fe_tensor **out_dx, fe_tensor **out_dscale,
//                                              fe_tensor **out_dbias);

#include <cmath>

#include <cstring>

#include "backend/loader.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "ops/no_engine_causes.hpp"
#include "ops/norm.hpp"
#include "schema/option_fields.hpp"
#include "ops/graph_ops.hpp"
#include "schema/schema.hpp"

namespace fe {

namespace {
std::vector<int64_t> stats_dims(const fe_tensor *x, const fe_tensor *scale) {
    return channel_stats_dims(x, scale, false);
}

const NormFamily kBatchNorm = {"batchnorm", CUDNN_BATCH_NORM, true, false, false, Feature::cudnn_9, stats_dims};

class BatchNormTraining : public NormNode {
  public:
    BatchNormTraining(fe_tensor *x, fe_tensor *scale, fe_tensor *bias, const fe_batchnorm_options &o)
        : NormNode(kBatchNorm), options_(o) {
        x_ = add_input(x, "X");
        scale_ = add_input(scale, "scale");
        bias_ = add_input(bias, "bias");
        epsilon_ = add_input(o.epsilon_tensor, "epsilon");
        running_mean_ = add_input(o.running_mean, "running_mean");
        running_var_ = add_input(o.running_var, "running_var");
        momentum_ = add_input(o.momentum_tensor, "momentum");
        add_peer_stats(o.peer_stats_count, o.peer_stats);
    }
    const char *kind() const override { return "batchnorm"; }
    bool updates_running_stats() const { return running_mean_ >= 0; }

    void infer() override {
        const fe_tensor *x = input(x_), *s = input(scale_);
        std::vector<int64_t> stats = stats_dims(x, s);
        check_same_dims(input(bias_), s->dims, "bias");
        check_data_type(x, "x", false);
        check_data_type(s, "scale", false);
        check_data_type(input(bias_), "bias", false);
        // epsilon is in the schema's range (schema::check_ranges); its tensor is checked here.
        if (epsilon_ >= 0) check_scalar_tensor(input(epsilon_), "epsilon_tensor", x->dims.size());
        FE_CHECK((running_mean_ >= 0) == (running_var_ >= 0), FE_STATUS_INVALID_ARGUMENT,
                 "give both running_mean and running_var, or neither");
        if (updates_running_stats()) {
            for (int index : {running_mean_, running_var_}) {
                check_same_dims(input(index), stats, ports_[static_cast<size_t>(index)]);
                check_data_type(input(index), ports_[static_cast<size_t>(index)], true);
            }
            // momentum is in the schema's range (schema::check_ranges); its tensor is checked here.
            if (momentum_ >= 0) check_scalar_tensor(input(momentum_), "momentum_tensor", x->dims.size());
        } else {
            FE_CHECK(momentum_ < 0, FE_STATUS_INVALID_ARGUMENT,
                     "momentum_tensor is given without running statistics to update");
        }
        check_peer_stats(x);
        assign_inferred_shape(outputs[0], x->dims, x->strides);
        for (size_t i = 1; i < outputs.size(); ++i) assign_inferred_shape(outputs[i], stats, x->strides);
    }

    void write_attributes(AttributeWriter &out) const override {
        write_option_attributes(out, op_schema(kind()), &options_, 0);
    }

    // Documented: the same memory may hold a running statistic and its next value.
    std::vector<std::pair<size_t, size_t>> in_place_ports() const override {
        if (!updates_running_stats()) return {};
        return {{static_cast<size_t>(running_mean_), 3}, {static_cast<size_t>(running_var_), 4}};
    }

    std::string attributes() const override {
        std::string a = epsilon_ >= 0 ? "epsilon=<tensor>" : format("epsilon=%g", options_.epsilon);
        if (updates_running_stats())
            a += momentum_ >= 0 ? " momentum=<tensor>" : format(" momentum=%g", options_.momentum);
        if (options_.peer_stats_count) a += format(" peers=%zu", options_.peer_stats_count);
        return a;
    }

    // Batchnorm's engines were seen to take channels a multiple of 8.
    std::string unsupported_hint() const override {
        return explanation(batchnorm_no_engine_cause(input(x_), false), cudnn().cudnnGetVersion());
    }

    void lower(Lowering &lowering) const override {
        const fe_tensor *x = input(x_);
        refuse_unlike_x(lowering, x, outputs[0]);
        NormForwardTensors t;
        t.x = &lowering.tensor(x);
        t.scale = &lowering.tensor(input(scale_));
        t.bias = &lowering.tensor(input(bias_));
        t.epsilon = &scalar(lowering, epsilon_, options_.epsilon, x);
        t.y = &lowering.tensor(outputs[0]);
        t.mean = &lowering.tensor(outputs[1]);
        t.inv_variance = &lowering.tensor(outputs[2]);
        if (updates_running_stats()) {
            t.momentum = &scalar(lowering, momentum_, options_.momentum, x);
            t.running_mean = &lowering.tensor(input(running_mean_));
            t.running_var = &lowering.tensor(input(running_var_));
            t.next_running_mean = &lowering.tensor(outputs[3]);
            t.next_running_var = &lowering.tensor(outputs[4]);
        }
        t.peer_stats = peer_stat_descriptors(lowering);
        if (!t.peer_stats.empty()) lowering.require(Feature::batchnorm_peer_stats);
        emit_norm_forward(lowering, CUDNN_BATCH_NORM, FE_NORM_PHASE_TRAINING, t, label());
    }

  private:
    fe_batchnorm_options options_;
    int x_ = -1, scale_ = -1, bias_ = -1, epsilon_ = -1, running_mean_ = -1, running_var_ = -1, momentum_ = -1;
};

class BatchNormInference : public NormNode {
  public:
    BatchNormInference(fe_tensor *x, fe_tensor *mean, fe_tensor *inv_variance, fe_tensor *scale, fe_tensor *bias)
        : NormNode(kBatchNorm) {
        add_input(x, "X");
        add_input(mean, "mean");
        add_input(inv_variance, "inv_variance");
        add_input(scale, "scale");
        add_input(bias, "bias");
    }
    const char *kind() const override { return "batchnorm_inference"; }
    void write_attributes(AttributeWriter &) const override {}  // no attributes
    // Lowered as pointwise operations (see lower()), which keep the usual padding of small ranks.
    bool wants_trailing_unit_dims() const override { return false; }
    // A rank-3 x ([N, C, W]) is lowered as [N, C, 1, W]: cuDNN 9.19's rank-3 pointwise plans with
    // the [1, C, 1] operands read the statistics and parameters wrongly from the second batch
    // element on; at rank 4 the engines either compute it right (channels-last) or take none.
    bool wants_rank3_lift() const override { return inputs[0]->dims.size() == 3; }

    void infer() override {
        const fe_tensor *x = inputs[0], *s = inputs[3];
        std::vector<int64_t> stats = stats_dims(x, s);
        check_same_dims(inputs[1], stats, "mean");
        check_same_dims(inputs[2], stats, "inv_variance");
        check_same_dims(inputs[4], s->dims, "bias");
        check_data_type(x, "x", false);
        check_data_type(inputs[1], "mean", true);
        check_data_type(inputs[2], "inv_variance", true);
        check_data_type(s, "scale", false);
        check_data_type(inputs[4], "bias", false);
        assign_inferred_shape(outputs[0], x->dims, x->strides);
    }

    // The pointwise chain this lowers to (its own operations, not graph nodes, so no pointwise
    // hook speaks) was seen to run for channels-last x with channels a multiple of 8.
    std::string unsupported_hint() const override {
        return explanation(batchnorm_no_engine_cause(inputs[0], true), cudnn().cudnnGetVersion());
    }

    // cuDNN's native inference-phase batchnorm is matched only inside its backward fusion
    // (BN inference -> dReLU -> dBN), where it is lowered so; standalone, no engine takes it
    // (Feature::standalone_batchnorm_inference). Elsewhere the same arithmetic as a chain of
    // broadcast pointwise operations runs on the runtime-fusion engines and fuses with a preceding
    // convolution: y = ((x - mean) * inv_variance) * scale + bias.
    void lower(Lowering &lowering) const override {
        const fe_tensor *x = inputs[0];
        if (feeds_relu_backward_into_batchnorm_backward(lowering.graph())) {
            NormForwardTensors t;
            t.x = &lowering.tensor(x);
            t.mean = &lowering.tensor(inputs[1]);
            t.inv_variance = &lowering.tensor(inputs[2]);
            t.scale = &lowering.tensor(inputs[3]);
            t.bias = &lowering.tensor(inputs[4]);
            t.y = &lowering.tensor(outputs[0]);
            emit_norm_forward(lowering, CUDNN_BATCH_NORM, FE_NORM_PHASE_INFERENCE, t, label());
            return;
        }
        // An x whose batch dim lies inside another (a smaller stride): the plan's kernel faults,
        // or with a batch of one reads past x.
        for (size_t d = 1; d < x->dims.size(); ++d)
            if (x->dims[d] > 1 && x->strides[d] > x->strides[0])
                lowering.require(Feature::batchnorm_inference_batch_inside);
        std::vector<int64_t> dims, strides;
        lowering.lowered_shape(x, &dims, &strides);
        fe_data_type compute = lowering.compute_type(*this);
        const fe_pointwise_options pw = FE_POINTWISE_OPTIONS_INIT;
        const Descriptor &centered = lowering.internal_tensor(dims, strides, FE_DATA_FLOAT);
        const Descriptor &normalized = lowering.internal_tensor(dims, strides, FE_DATA_FLOAT);
        const Descriptor &scaled = lowering.internal_tensor(dims, strides, FE_DATA_FLOAT);
        emit_pointwise(lowering, FE_POINTWISE_SUB, lowering.tensor(x), &lowering.tensor(inputs[1]), nullptr, centered,
                       compute, pw, 0, label() + " x - mean");
        emit_pointwise(lowering, FE_POINTWISE_MUL, centered, &lowering.tensor(inputs[2]), nullptr, normalized, compute,
                       pw, 0, label() + " * inv_variance");
        emit_pointwise(lowering, FE_POINTWISE_MUL, normalized, &lowering.tensor(inputs[3]), nullptr, scaled, compute,
                       pw, 0, label() + " * scale");
        emit_pointwise(lowering, FE_POINTWISE_ADD, scaled, &lowering.tensor(inputs[4]), nullptr,
                       lowering.tensor(outputs[0]), compute, pw, 0, label() + " + bias");
    }

  private:
    // Whether y is the forward input of a ReLU backward whose result a batchnorm backward takes.
    bool feeds_relu_backward_into_batchnorm_backward(const fe_graph &graph) const {
        const fe_tensor *y = outputs[0];
        for (const auto &relu : graph.nodes) {
            if (std::strcmp(relu->kind(), "relu_backward") != 0 || relu->inputs.size() < 2 || relu->inputs[1] != y)
                continue;
            for (const auto &dbn : graph.nodes)
                if (std::strcmp(dbn->kind(), "batchnorm_backward") == 0 && dbn->inputs[0] == relu->outputs[0])
                    return true;
        }
        return false;
    }
};

}  // namespace

static std::unique_ptr<Node> make_batchnorm(fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                     const fe_batchnorm_options &options) {
    return std::make_unique<BatchNormTraining>(x, scale, bias, options);
}

static std::unique_ptr<Node> make_batchnorm_inference(fe_tensor *x, fe_tensor *mean, fe_tensor *inv_variance,
                                               fe_tensor *scale, fe_tensor *bias) {
    return std::make_unique<BatchNormInference>(x, mean, inv_variance, scale, bias);
}

Results add_batchnorm(fe_graph &g, fe_tensor *x, fe_tensor *scale, fe_tensor *bias, const fe_batchnorm_options &o) {
    bool running = o.running_mean || o.running_var;
    std::vector<const char *> ports = {"Y", "Mean", "InvVariance"};
    if (running) ports.insert(ports.end(), {"NextRunningMean", "NextRunningVar"});
    Results outputs = g.add_op(make_batchnorm(x, scale, bias, o), o.name, "batchnorm", ports);
    for (size_t i = 1; i < outputs.size(); ++i) keep_float(outputs[i]);
    return outputs;
}

Results add_batchnorm_inference(fe_graph &g, fe_tensor *x, fe_tensor *mean, fe_tensor *inv_variance,
                                fe_tensor *scale, fe_tensor *bias, const fe_batchnorm_inference_options &o) {
    return g.add_op(make_batchnorm_inference(x, mean, inv_variance, scale, bias), o.name, "batchnorm_inference",
                    {"Y"});
}

}  // namespace fe

// The ops' descriptions (lib/schema/schema.hpp) and how a call adds them.
namespace fe {

namespace {

const fe_batchnorm_inference_options kInferenceDefaults = FE_BATCHNORM_INFERENCE_OPTIONS_INIT;

const schema::Struct kBatchnormOptions = FE_SCHEMA_OPTIONS(fe_batchnorm_options, FE_BATCHNORM_OPTIONS_INIT,
    "Batch normalization's epsilon and running statistics.",
    FE_SCHEMA_NAME_FIELD(fe_batchnorm_options),
    FE_SCHEMA_RANGE(fe_batchnorm_options, epsilon, number, 0, 1e308, "Added to the variance."),
    FE_SCHEMA_TENSOR(fe_batchnorm_options, epsilon_tensor, "epsilon", "Epsilon as a one-element float scalar."),
    FE_SCHEMA_TENSOR(fe_batchnorm_options, running_mean, nullptr, "The running mean, [1, C, 1, ...]."),
    FE_SCHEMA_TENSOR(fe_batchnorm_options, running_var, nullptr, "The running variance, [1, C, 1, ...]."),
    FE_SCHEMA_RANGE(fe_batchnorm_options, momentum, number, 0, 1, "Weight of the batch statistic in the update."),
    FE_SCHEMA_TENSOR(fe_batchnorm_options, momentum_tensor, "momentum", "Momentum as a one-element float scalar."),
    FE_SCHEMA_RANGE(fe_batchnorm_options, peer_stats_count, tensor_count, 0, FE_MAX_PEER_STATS,
        "How many peer statistics buffers are set."),
    FE_SCHEMA_FIELD(fe_batchnorm_options, peer_stats, tensor_array,
        "Synchronized batchnorm: one statistics exchange buffer per GPU of the group, float [2, 4 * C, 1, 1]."));

const schema::Struct kInferenceOptions{
            "fe_batchnorm_inference_options",
            sizeof(fe_batchnorm_inference_options),
            &kInferenceDefaults,
            {FE_SCHEMA_NAME_FIELD(fe_batchnorm_inference_options)},
            "Batch normalization inference's name."};

const schema::Op kBatchnorm{"batchnorm", "fe_graph_batchnorm", "Normalizations",
                            {{"X", nullptr, "[N, C, spatial...]"}, {"scale", nullptr, "[1, C, 1, ...]"},
                             {"bias", nullptr, "[1, C, 1, ...]"}},
                            {{"Y", nullptr, "like x"}, {"Mean", nullptr, "the batch mean"},
                             {"InvVariance", nullptr, "the batch's 1 / sqrt(var + epsilon)"},
                             {"NextRunningMean", "running_mean", "the updated running mean"},
                             {"NextRunningVar", "running_var", "the updated running variance"}},
                            {}, &kBatchnormOptions, {}, false, "Batch normalization, training."};
const schema::Op kBatchnormInference{"batchnorm_inference", "fe_graph_batchnorm_inference", "Normalizations",
                                     {{"X", nullptr, "[N, C, spatial...]"}, {"mean", nullptr, "[1, C, 1, ...]"},
                                      {"inv_variance", nullptr, "[1, C, 1, ...]"}, {"scale", nullptr, "[1, C, 1, ...]"},
                                      {"bias", nullptr, "[1, C, 1, ...]"}},
                                     {{"Y", nullptr, "like x"}}, {}, &kInferenceOptions, {}, false,
                                     "Batch normalization, inference, from given statistics."};
const schema::Op kBatchnormBackward{"batchnorm_backward", "fe_graph_batchnorm_backward", "Normalizations", norm_backward_input_ports(),
                                    norm_backward_output_ports(false), {}, &norm_backward_options_description(), {"name", "peer_stats_count", "peer_stats"}, false,
                                    "Batch normalization backward."};

const std::vector<fe_tensor *> &add_batchnorm_call(fe_graph &g, const schema::Call &c) {
    return add_batchnorm(g, c.inputs[0], c.inputs[1], c.inputs[2], c.options_as<fe_batchnorm_options>());
}
const std::vector<fe_tensor *> &add_batchnorm_inference_call(fe_graph &g, const schema::Call &c) {
    return add_batchnorm_inference(g, c.inputs[0], c.inputs[1], c.inputs[2], c.inputs[3], c.inputs[4],
                                   c.options_as<fe_batchnorm_inference_options>());
}

const schema::Registration kRegistered[] = {schema::Registration(kBatchnorm, add_batchnorm_call),
                                            schema::Registration(kBatchnormInference, add_batchnorm_inference_call),
                                            schema::Registration(kBatchnormBackward, add_norm_backward_call<kBatchNorm, false>)};

}  // namespace

}  // namespace fe
