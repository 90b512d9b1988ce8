// include/cudnnfe.h, section "Normalizations" (copied there by scripts/schema/generate_header.py):
// /* Values match cuDNN's cudnnBackendNormFwdPhase_t. */
// typedef enum fe_norm_phase FE_ENUM_BASE {
//     FE_NORM_PHASE_INFERENCE = 0, /* y only */
//     FE_NORM_PHASE_TRAINING = 1   /* y and the statistics the backward pass reads */
// } fe_norm_phase;
//
// typedef struct fe_norm_options {
//     uint32_t struct_size;
//     const char *name;             /* nullable: "<kind>_<n>" */
//     fe_norm_phase phase;          /* default inference */
//     double epsilon;               /* added to the variance; finite and >= 0; default 1e-5 */
//     /* nullable: epsilon as a one-element float scalar made with fe_graph_scalar (cuDNN reads
//      * epsilon only by value, never from device memory); it then replaces `epsilon`. */
//     fe_tensor *epsilon_tensor;
//     /* Zero-centred gamma: the norm multiplies by (1 + scale) instead of scale, so that a scale
//      * initialised to 0 is the identity (layernorm and rmsnorm; cuDNN >= 9.7). cuDNN fuses the
//      * (1 + scale) only when every dim after the first is normalized: view x [b, s, d] as
//      * [b * s, d]. The gradient of scale is the same either way. */
//     int32_t zero_centered_gamma;
// } fe_norm_options;
// #define FE_NORM_OPTIONS_INIT
//     { (uint32_t)sizeof(fe_norm_options), NULL, FE_NORM_PHASE_INFERENCE, 1e-5, NULL, 0 }
//
// /* Synchronized batchnorm: GPUs that each hold part of a batch exchange per-channel partial
//  * statistics through buffers that every GPU of the group can read and write
//  * (fe_device_enable_peer_access between each pair). One buffer per GPU of the group, allocated
//  * on that GPU: a float tensor [2, 4 * C, 1, 1] (strides [4 * C, 1, 4 * C, 4 * C]), listed in
//  * the same order (the GPUs') in every GPU's graph. Each buffer is zero when the group starts an
//  * execution: zero them all once the group's previous execution has finished on every GPU
//  * (cuDNN's kernels mark what they wrote as ready and leave it so). cuDNN's kernels wait for the
//  * peers' contributions, so every GPU of the group executes its graph at about the same time.
//  * The forward's Mean and InvVariance (and the running statistics) are the whole batch's; the
//  * backward's DX uses the whole batch's sums, and its DScale and DBias are those sums divided by
//  * the number of GPUs, the same on every GPU (adding them across the group, as data-parallel
//  * training adds weight gradients, gives the whole batch's). At most FE_MAX_PEER_STATS GPUs. */
// #define FE_MAX_PEER_STATS 8
//
// typedef struct fe_norm_backward_options {
//     uint32_t struct_size;
//     const char *name;
//     /* The forward pass used (1 + scale): pass the same scale and set this too. */
//     int32_t zero_centered_gamma;
//     /* Batchnorm only: the peer statistics buffers of a synchronized batchnorm, as the
//      * forward's (fe_batchnorm_options), set with fe_norm_backward_options_set_peer_stats. */
//     size_t peer_stats_count;
//     fe_tensor *peer_stats[FE_MAX_PEER_STATS];
// } fe_norm_backward_options;
// #define FE_NORM_BACKWARD_OPTIONS_INIT { (uint32_t)sizeof(fe_norm_backward_options), NULL, 0, 0, { NULL } }
//
// /** Set the peer statistics buffers of a synchronized batchnorm's backward (count 0 clears them). */
// FE_API fe_status fe_norm_backward_options_set_peer_stats(fe_norm_backward_options *options, size_t count,
//                                                          fe_tensor *const *peer_stats);
//
// /* The norms' backward passes (fe_graph_<norm>_backward). dy is the gradient of y (x's dims); x,
//  * scale and the forward's statistics are what the forward pass read and returned in training.
//  * out_dx receives the gradient of x (x's dims and layout), out_dscale and out_dbias those of scale
//  * and bias (scale's dims), summed over the batch. All outputs are required except where a comment
//  * says otherwise. options nullable (defaults: FE_NORM_BACKWARD_OPTIONS_INIT). */

#include "ops/norm.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "backend/loader.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "ops/no_engine_causes.hpp"
#include "schema/schema.hpp"
#include "schema/option_fields.hpp"
#include "ops/graph_ops.hpp"

namespace fe {

namespace {

NormKind norm_kind(cudnnBackendNormMode_t mode) {
    switch (mode) {
        case CUDNN_ADA_LAYER_NORM: return NormKind::adaptive_layer;
        case CUDNN_BATCH_NORM: return NormKind::batch;
        case CUDNN_INSTANCE_NORM: return NormKind::instance;
        default: return NormKind::layer_or_rms;
    }
}

void check_scale_rank(const fe_tensor *x, const fe_tensor *scale) {
    FE_CHECK(x->dims.size() >= 2, FE_STATUS_INVALID_ARGUMENT,
             "x '%s' has rank %zu; a normalization takes [batch, ...] with at least 2 dims", x->name.c_str(),
             x->dims.size());
    FE_CHECK(scale->dims.size() == x->dims.size(), FE_STATUS_INVALID_ARGUMENT,
             "scale '%s' is %s but x is %s; scale needs x's rank (1 in the dims it does not vary over)",
             scale->name.c_str(), dims_string(scale->dims).c_str(), dims_string(x->dims).c_str());
}

// Whether t is laid out row-major over `dims` (strides decreasing in dim order).
bool row_major_over(const fe_tensor *t, const std::vector<size_t> &dims) {
    for (size_t i = 1; i < dims.size(); ++i)
        if (t->strides[dims[i - 1]] <= t->strides[dims[i]]) return false;
    return true;
}

}  // namespace

std::vector<int64_t> layer_stats_dims(const fe_tensor *x, const fe_tensor *scale, bool per_sample) {
    check_scale_rank(x, scale);
    const std::vector<int64_t> &xd = x->dims, &sd = scale->dims;
    FE_CHECK(sd[0] == 1 || (per_sample && sd[0] == xd[0]), FE_STATUS_INVALID_ARGUMENT,
             "scale '%s' is %s for x %s: its dim 0 must be 1%s", scale->name.c_str(), dims_string(sd).c_str(),
             dims_string(xd).c_str(), per_sample ? " or x's batch" : " (one scale for the whole batch)");
    std::vector<int64_t> stats = xd;
    bool normalizes = false;
    for (size_t i = 1; i < xd.size(); ++i) {
        FE_CHECK(sd[i] == xd[i] || sd[i] == 1, FE_STATUS_INVALID_ARGUMENT,
                 "scale '%s' is %s for x %s: dim %zu must be %lld (normalized) or 1", scale->name.c_str(),
                 dims_string(sd).c_str(), dims_string(xd).c_str(), i, static_cast<long long>(xd[i]));
        if (sd[i] == xd[i] && xd[i] > 1) {
            stats[i] = 1;
            normalizes = true;
        }
    }
    FE_CHECK(normalizes, FE_STATUS_INVALID_ARGUMENT,
             "scale '%s' is %s for x %s: it names no dim to normalize over (give the normalized dims x's sizes)",
             scale->name.c_str(), dims_string(sd).c_str(), dims_string(xd).c_str());
    return stats;
}

std::vector<int64_t> channel_stats_dims(const fe_tensor *x, const fe_tensor *scale, bool per_image) {
    check_scale_rank(x, scale);
    const std::vector<int64_t> &xd = x->dims;
    FE_CHECK(xd.size() >= 3 && xd.size() <= 5, FE_STATUS_INVALID_ARGUMENT,
             "x '%s' has rank %zu; this normalization takes [N, C, spatial...] with 1 to 3 spatial dims",
             x->name.c_str(), xd.size());
    std::vector<int64_t> channels(xd.size(), 1);
    channels[1] = xd[1];
    FE_CHECK(scale->dims == channels, FE_STATUS_INVALID_ARGUMENT, "scale '%s' is %s; for x %s it must be %s",
             scale->name.c_str(), dims_string(scale->dims).c_str(), dims_string(xd).c_str(),
             dims_string(channels).c_str());
    if (per_image) channels[0] = xd[0];
    return channels;
}

int NormNode::add_input(fe_tensor *t, const char *port) {
    if (!t) return -1;
    inputs.push_back(t);
    ports_.push_back(port);
    return static_cast<int>(inputs.size() - 1);
}

void NormNode::add_peer_stats(size_t count, fe_tensor *const *peer_stats) {
    static const char *const kPorts[FE_MAX_PEER_STATS] = {"peer_stats_0", "peer_stats_1", "peer_stats_2",
                                                          "peer_stats_3", "peer_stats_4", "peer_stats_5",
                                                          "peer_stats_6", "peer_stats_7"};
    FE_CHECK(count <= FE_MAX_PEER_STATS, FE_STATUS_INVALID_ARGUMENT,
             "options.peer_stats_count is %zu; at most %d GPUs synchronize one batchnorm", count, FE_MAX_PEER_STATS);
    FE_CHECK(count != 1, FE_STATUS_INVALID_ARGUMENT,
             "options.peer_stats_count is 1: synchronizing needs a buffer per GPU of the group, two or more");
    for (size_t i = 0; i < count; ++i) {
        FE_CHECK(peer_stats[i] != nullptr, FE_STATUS_NULL_POINTER, "options.peer_stats[%zu] is NULL", i);
        peer_stats_.push_back(add_input(peer_stats[i], kPorts[i]));
    }
}

void NormNode::check_peer_stats(const fe_tensor *x) const {
    if (peer_stats_.empty()) return;
    std::vector<int64_t> dims(x->dims.size(), 1);
    dims[0] = 2;
    dims[1] = 4 * x->dims[1];
    for (int index : peer_stats_) {
        fe_tensor *t = input(index);
        check_same_dims(t, dims, ports_[static_cast<size_t>(index)]);
        check_data_type(t, ports_[static_cast<size_t>(index)], true);
        t->peer_memory = true;
    }
}

std::vector<const Descriptor *> NormNode::peer_stat_descriptors(Lowering &lowering) const {
    std::vector<const Descriptor *> out;
    for (int index : peer_stats_) out.push_back(&lowering.tensor(input(index)));
    return out;
}

void NormNode::check_data_type(const fe_tensor *t, const char *role, bool float_only) {
    fe_data_type type = t->data_type;
    if (type == FE_DATA_NOT_SET) return;  // resolved at validation, checked then
    if (float_only)
        FE_CHECK(type == FE_DATA_FLOAT, FE_STATUS_INVALID_ARGUMENT, "%s '%s' is %s; it must be float", role,
                 t->name.c_str(), data_type_name(type));
    else
        FE_CHECK(type == FE_DATA_HALF || type == FE_DATA_BFLOAT16 || type == FE_DATA_FLOAT, FE_STATUS_INVALID_ARGUMENT,
                 "%s '%s' is %s; it must be half, bfloat16 or float", role, t->name.c_str(), data_type_name(type));
}

void NormNode::check_scalar_tensor(fe_tensor *t, const char *role, size_t rank) {
    FE_CHECK(t->by_value, FE_STATUS_INVALID_ARGUMENT,
             "%s '%s' is a device tensor, but cuDNN reads it only by value: make it with fe_graph_scalar", role,
             t->name.c_str());
    check_data_type(t, role, true);
    t->dims.assign(rank, 1);
    t->strides.assign(rank, 1);
}

void NormNode::check_same_dims(const fe_tensor *t, const std::vector<int64_t> &dims, const char *role) {
    FE_CHECK(t->dims == dims, FE_STATUS_INVALID_ARGUMENT, "%s '%s' is %s; it must be %s", role, t->name.c_str(),
             dims_string(t->dims).c_str(), dims_string(dims).c_str());
}

void NormNode::check_zero_centered_gamma(bool requested, const std::vector<int64_t> &stats) const {
    if (!requested) return;
    FE_CHECK(family_.zero_centered_gamma, FE_STATUS_INVALID_ARGUMENT,
             "%s does not offer zero_centered_gamma (layernorm and rmsnorm do)", family_.kind);
    for (size_t i = 1; i < stats.size(); ++i)
        FE_CHECK(stats[i] == 1, FE_STATUS_INVALID_ARGUMENT,
                 "zero_centered_gamma needs every dim after the first normalized (statistics %s would be per "
                 "index of dim %zu too); view x as [rows, normalized...], e.g. [b, s, d] as [b * s, d]",
                 dims_string(stats).c_str(), i);
}

void NormNode::require_cudnn(Feature feature) const {
    require(feature, static_cast<int64_t>(cudnn().cudnnGetVersion()));
}

void NormNode::refuse_unlike_x(Lowering &lowering, const fe_tensor *x, const fe_tensor *t) {
    if (t->dims != x->dims || t->strides.size() != x->strides.size()) return;
    for (size_t d = 0; d < x->dims.size(); ++d)
        if (x->dims[d] > 1 && t->strides[d] != x->strides[d]) {
            lowering.require(Feature::norm_output_layout);
            return;
        }
}

const Descriptor &NormNode::scalar(Lowering &lowering, int index, double value, const fe_tensor *x) const {
    if (index >= 0) return lowering.tensor(input(index));
    std::vector<int64_t> dims, strides;
    lowering.lowered_shape(x, &dims, &strides);
    return lowering.internal_scalar(value, FE_DATA_FLOAT, dims.size());
}

const Descriptor &NormNode::scale(Lowering &lowering, const fe_tensor *t, bool zero_centered) const {
    const Descriptor &given = lowering.tensor(t);
    if (!zero_centered) return given;
    require_cudnn(Feature::zero_centered_gamma);
    std::vector<int64_t> dims, strides;
    lowering.lowered_shape(t, &dims, &strides);
    const Descriptor &one = lowering.internal_scalar(1.0, FE_DATA_FLOAT, dims.size());
    const Descriptor &shifted = lowering.internal_tensor(dims, strides, FE_DATA_FLOAT);
    const fe_pointwise_options pw = FE_POINTWISE_OPTIONS_INIT;
    emit_pointwise(lowering, FE_POINTWISE_ADD, given, &one, nullptr, shifted, FE_DATA_FLOAT, pw, 0,
                   label() + " (1 + scale)");
    return shifted;
}

namespace {

void set_peer_stats(Descriptor &op, cudnnBackendAttributeName_t name, const std::vector<const Descriptor *> &peers) {
    if (peers.empty()) return;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (const Descriptor *d : peers) raw.push_back(d->get());
    op.set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(raw.size()), raw.data(), "norm peer statistics");
}

}  // namespace

void emit_norm_forward(Lowering &lowering, cudnnBackendNormMode_t mode, fe_norm_phase phase_value,
                       const NormForwardTensors &t, const std::string &label) {
    Descriptor op(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
    cudnnBackendNormFwdPhase_t phase = static_cast<cudnnBackendNormFwdPhase_t>(phase_value);
    op.set(CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &mode, "norm mode");
    op.set(CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, 1, &phase, "norm phase");
    op.set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, *t.x, "norm X");
    op.set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, *t.y, "norm Y");
    struct Optional {
        cudnnBackendAttributeName_t name;
        const Descriptor *d;
        const char *label;
    };
    const Optional optional[] = {
        {CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, t.scale, "norm scale"},
        {CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, t.bias, "norm bias"},
        {CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, t.epsilon, "norm epsilon"},
        {CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, t.mean, "norm mean"},
        {CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, t.inv_variance, "norm inverse variance"},
        {CUDNN_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC, t.momentum, "norm momentum"},
        {CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC, t.running_mean, "norm running mean"},
        {CUDNN_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC, t.running_var, "norm running variance"},
        {CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC, t.next_running_mean, "norm next running mean"},
        {CUDNN_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC, t.next_running_var, "norm next running variance"},
    };
    for (const Optional &o : optional)
        if (o.d) op.set_desc(o.name, *o.d, o.label);
    set_peer_stats(op, CUDNN_ATTR_OPERATION_NORM_FWD_PEER_STAT_DESCS, t.peer_stats);
    lowering.finalize_and_add(std::move(op), "finalizing " + label);
}

void emit_norm_backward(Lowering &lowering, cudnnBackendNormMode_t mode, const NormBackwardTensors &t,
                        const std::string &label) {
    Descriptor op(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR);
    op.set(CUDNN_ATTR_OPERATION_NORM_BWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &mode, "norm mode");
    op.set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_XDESC, *t.x, "norm backward X");
    op.set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_DYDESC, *t.dy, "norm backward dY");
    op.set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_SCALE_DESC, *t.scale, "norm backward scale");
    if (t.mean) op.set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_MEAN_DESC, *t.mean, "norm backward mean");
    op.set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC, *t.inv_variance, "norm backward inverse variance");
    op.set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_DXDESC, *t.dx, "norm backward dX");
    op.set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_DSCALE_DESC, *t.dscale, "norm backward dScale");
    if (t.dbias) op.set_desc(CUDNN_ATTR_OPERATION_NORM_BWD_DBIAS_DESC, *t.dbias, "norm backward dBias");
    set_peer_stats(op, CUDNN_ATTR_OPERATION_NORM_BWD_PEER_STAT_DESCS, t.peer_stats);
    lowering.finalize_and_add(std::move(op), "finalizing " + label);
}

namespace {

const char *phase_name(fe_norm_phase phase) { return schema::enum_name("fe_norm_phase", phase); }

class NormForward : public NormNode {
  public:
    NormForward(const NormFamily &family, fe_tensor *x, fe_tensor *scale, fe_tensor *bias, const fe_norm_options &o)
        : NormNode(family), options_(o) {
        x_ = add_input(x, "X");
        scale_ = add_input(scale, "scale");
        bias_ = add_input(bias, "bias");
        epsilon_ = add_input(o.epsilon_tensor, "epsilon");
    }
    const char *kind() const override { return family_.kind; }
    bool training() const { return options_.phase == FE_NORM_PHASE_TRAINING; }

    void infer() override {
        const fe_tensor *x = input(x_), *s = input(scale_);
        std::vector<int64_t> stats = family_.stats_dims(x, s);
        if (bias_ >= 0) check_same_dims(input(bias_), s->dims, "bias");
        check_data_type(x, "x", false);
        check_data_type(s, "scale", false);
        if (bias_ >= 0) check_data_type(input(bias_), "bias", false);
        // epsilon is in the schema's range (schema::check_ranges); its tensor is checked here.
        if (epsilon_ >= 0) check_scalar_tensor(input(epsilon_), "epsilon_tensor", x->dims.size());
        check_zero_centered_gamma(options_.zero_centered_gamma != 0, stats);
        assign_inferred_shape(outputs[0], x->dims, x->strides);
        for (size_t i = 1; i < outputs.size(); ++i) assign_inferred_shape(outputs[i], stats, x->strides);
    }

    // epsilon is written even when the epsilon input replaces it (it is part of the node).
    void write_attributes(AttributeWriter &out) const override {
        write_option_attributes(out, op_schema(kind()), &options_, 0);
    }

    // A pointwise epilogue (Y virtual) is what decides most refusals of the layer-like norms: never
    // for a half x, now and then for a float x or the adaptive mode. Without one, the family's
    // envelope.
    std::string unsupported_hint() const override {
        const int64_t version = cudnn().cudnnGetVersion();
        const bool layer_like = family_.mode == CUDNN_LAYER_NORM || family_.mode == CUDNN_RMS_NORM;
        const bool adaptive = family_.mode == CUDNN_ADA_LAYER_NORM;
        if ((layer_like || adaptive) && outputs[0]->is_virtual()) {
            if (layer_like && input(x_)->data_type != FE_DATA_FLOAT)
                return explanation(Feature::norm_pointwise_epilogue, version);
            return explanation(Feature::norm_epilogue_envelope, version);
        }
        return explanation(Feature::norm_engine_envelope, version);
    }

    std::string attributes() const override {
        std::string a = std::string("phase=") + phase_name(options_.phase);
        a += epsilon_ >= 0 ? " epsilon=<tensor>" : format(" epsilon=%g", options_.epsilon);
        if (options_.zero_centered_gamma) a += " zero_centered_gamma";
        return a;
    }

    void lower(Lowering &lowering) const override {
        require_cudnn(family_.needs);
        refuse_transposed_layout(lowering);
        const fe_tensor *x = input(x_);
        refuse_unlike_x(lowering, x, outputs[0]);
        refuse_unpacked_rows(lowering);
        NormForwardTensors t;
        t.x = &lowering.tensor(x);
        t.scale = &scale(lowering, input(scale_), options_.zero_centered_gamma != 0);
        if (bias_ >= 0) t.bias = &lowering.tensor(input(bias_));
        t.epsilon = &scalar(lowering, epsilon_, options_.epsilon, x);
        t.y = &lowering.tensor(outputs[0]);
        if (training()) {
            if (family_.has_mean) t.mean = &lowering.tensor(outputs[1]);
            t.inv_variance = &lowering.tensor(outputs.back());
        }
        emit_norm_forward(lowering, lowered_mode(), options_.phase, t, label());
    }

  private:
    // Adaptive layernorm inference with one scale for the whole batch (scale's dim 0 is 1) is
    // layernorm inference, and is lowered as such: cuDNN 9.19's adaptive mode computes y wrongly
    // for it unless x is normalized over its last dim alone (11 of 22 randomized cases on an H200:
    // x of rank 2, or normalized over two or more dims).
    cudnnBackendNormMode_t lowered_mode() const {
        if (family_.mode == CUDNN_ADA_LAYER_NORM && !training() && input(scale_)->dims[0] == 1) return CUDNN_LAYER_NORM;
        return family_.mode;
    }

    // A layer, RMS or adaptive layer norm reads x as packed rows of its normalized dims: cuDNN
    // 9.19 refuses an x whose normalized dims are not innermost and packed (in whichever order),
    // or whose rows are not packed after them (capability norm_forward_unpacked_rows).
    void refuse_unpacked_rows(Lowering &lowering) const {
        if (family_.mode != CUDNN_LAYER_NORM && family_.mode != CUDNN_RMS_NORM && family_.mode != CUDNN_ADA_LAYER_NORM)
            return;
        const fe_tensor *x = input(x_), *s = input(scale_);
        // The normalized dims first (innermost), then the others, each group in stride order.
        std::vector<size_t> order, rows;
        for (size_t d = 0; d < x->dims.size(); ++d) {
            if (x->dims[d] <= 1) continue;
            (d > 0 && s->dims[d] == x->dims[d] ? order : rows).push_back(d);
        }
        auto by_stride = [x](size_t a, size_t b) { return x->strides[a] < x->strides[b]; };
        std::sort(order.begin(), order.end(), by_stride);
        std::sort(rows.begin(), rows.end(), by_stride);
        order.insert(order.end(), rows.begin(), rows.end());
        int64_t expected = 1;
        for (size_t d : order) {
            if (x->strides[d] != expected) {
                lowering.require(Feature::norm_forward_unpacked_rows);
                return;
            }
            expected *= x->dims[d];
        }
    }

    // cuDNN 9.19's forward norm plans compute y wrongly when x, scale and bias are not laid out
    // in one order over the dims scale varies along (a transposed x, [B, D, S] strides for a
    // [B, S, D] view, with a row-major scale): refused (capability norm_forward_transposed_layout).
    // One order for all three, channels-last images included, is right.
    void refuse_transposed_layout(Lowering &lowering) const {
        const fe_tensor *x = input(x_), *s = input(scale_), *b = input(bias_);
        std::vector<size_t> varying;
        for (size_t d = 0; d < s->dims.size(); ++d)
            if (s->dims[d] > 1) varying.push_back(d);
        if (varying.size() < 2) return;
        const bool x_row_major = row_major_over(x, varying);
        if (row_major_over(s, varying) != x_row_major || (b && row_major_over(b, varying) != x_row_major))
            lowering.require(Feature::norm_forward_transposed_layout);
    }

    fe_norm_options options_;
    int x_ = -1, scale_ = -1, bias_ = -1, epsilon_ = -1;
};

class NormBackward : public NormNode {
  public:
    NormBackward(const NormFamily &family, fe_tensor *dy, fe_tensor *x, fe_tensor *scale, fe_tensor *mean,
                 fe_tensor *inv_variance, const fe_norm_backward_options &o)
        : NormNode(family), options_(o) {
        dy_ = add_input(dy, "dY");
        x_ = add_input(x, "X");
        scale_ = add_input(scale, "scale");
        mean_ = add_input(mean, "mean");
        inv_variance_ = add_input(inv_variance, family.has_mean ? "inv_variance" : "inv_rms");
        add_peer_stats(o.peer_stats_count, o.peer_stats);
    }
    std::string kind_name() const { return std::string(family_.kind) + "_backward"; }
    const char *kind() const override { return kind_.c_str(); }

    void infer() override {
        const fe_tensor *x = input(x_), *s = input(scale_);
        std::vector<int64_t> stats = family_.stats_dims(x, s);
        check_same_dims(input(dy_), x->dims, "dy");
        if (mean_ >= 0) check_same_dims(input(mean_), stats, "mean");
        check_same_dims(input(inv_variance_), stats, ports_[static_cast<size_t>(inv_variance_)]);
        check_data_type(input(dy_), "dy", false);
        check_data_type(x, "x", false);
        check_data_type(s, "scale", false);
        if (mean_ >= 0) check_data_type(input(mean_), "mean", true);
        check_data_type(input(inv_variance_), ports_[static_cast<size_t>(inv_variance_)], true);
        check_zero_centered_gamma(options_.zero_centered_gamma != 0, stats);
        check_peer_stats(x);
        assign_inferred_shape(outputs[0], x->dims, x->strides);
        for (size_t i = 1; i < outputs.size(); ++i) assign_inferred_shape(outputs[i], s->dims, s->strides);
    }

    std::string attributes() const override { return options_.zero_centered_gamma ? "zero_centered_gamma" : ""; }

    // cuDNN's layer, RMS and adaptive layer norm backward engines take two rows or more and a
    // row-major x; batchnorm's take channels a multiple of 8.
    std::string unsupported_hint() const override {
        return explanation(norm_backward_no_engine_cause(norm_kind(family_.mode), input(x_), input(scale_)),
                           cudnn().cudnnGetVersion());
    }

    // Families whose bias is optional have a dBias result only when the caller asked for one.
    void write_attributes(AttributeWriter &out) const override {
        write_option_attributes(out, op_schema(kind()), &options_, 0);
        if (family_.bias_optional) out.field("output_dbias", outputs.size() > 2);
    }

    void lower(Lowering &lowering) const override {
        require_cudnn(family_.needs);
        refuse_transposed_layout(lowering);
        refuse_unlike_x(lowering, input(x_), input(dy_));
        refuse_unlike_x(lowering, input(x_), outputs[0]);
        NormBackwardTensors t;
        t.x = &lowering.tensor(input(x_));
        t.dy = &lowering.tensor(input(dy_));
        t.scale = &scale(lowering, input(scale_), options_.zero_centered_gamma != 0);
        if (mean_ >= 0) t.mean = &lowering.tensor(input(mean_));
        t.inv_variance = &lowering.tensor(input(inv_variance_));
        t.dx = &lowering.tensor(outputs[0]);
        t.dscale = &lowering.tensor(outputs[1]);
        if (outputs.size() > 2) t.dbias = &lowering.tensor(outputs[2]);
        t.peer_stats = peer_stat_descriptors(lowering);
        if (!t.peer_stats.empty()) lowering.require(Feature::batchnorm_peer_stats);
        emit_norm_backward(lowering, family_.mode, t, label());
    }

  private:
    // cuDNN 9.19's layer, RMS and adaptive layer norm backward plans compute dx and dscale
    // wrongly when x or dy is not laid out row-major over the normalized dims (a transposed
    // x): refused (capability norm_backward_transposed_layout). Batch and instance norms
    // normalize per channel and take channels-last.
    void refuse_transposed_layout(Lowering &lowering) const {
        if (family_.mode != CUDNN_LAYER_NORM && family_.mode != CUDNN_RMS_NORM && family_.mode != CUDNN_ADA_LAYER_NORM)
            return;
        const fe_tensor *x = input(x_), *dy = input(dy_);
        std::vector<size_t> normalized;
        for (size_t d = 1; d < x->dims.size(); ++d)
            if (x->dims[d] > 1) normalized.push_back(d);
        if (normalized.size() >= 2 && (!row_major_over(x, normalized) || !row_major_over(dy, normalized)))
            lowering.require(Feature::norm_backward_transposed_layout);
    }

    fe_norm_backward_options options_;
    std::string kind_ = kind_name();
    int dy_ = -1, x_ = -1, scale_ = -1, mean_ = -1, inv_variance_ = -1;
};

}  // namespace

static std::unique_ptr<Node> make_norm_forward(const NormFamily &family, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                        const fe_norm_options &options) {
    FE_CHECK(bias || family.bias_optional, FE_STATUS_NULL_POINTER, "argument 'bias' is NULL; %s needs a bias",
             family.kind);
    return std::make_unique<NormForward>(family, x, scale, bias, options);
}

static std::unique_ptr<Node> make_norm_backward(const NormFamily &family, fe_tensor *dy, fe_tensor *x, fe_tensor *scale,
                                         fe_tensor *mean, fe_tensor *inv_variance,
                                         const fe_norm_backward_options &options) {
    FE_CHECK(mean || !family.has_mean, FE_STATUS_NULL_POINTER, "argument 'mean' is NULL");
    return std::make_unique<NormBackward>(family, dy, x, scale, family.has_mean ? mean : nullptr, inv_variance,
                                          options);
}

Results add_norm_forward(fe_graph &g, const NormFamily &family, const schema::Call &c) {
    const auto &o = c.options_as<fe_norm_options>();
    const bool training = o.phase == FE_NORM_PHASE_TRAINING;
    std::vector<const char *> ports = {"Y"};
    if (training && family.has_mean) ports.push_back("Mean");
    if (training) ports.push_back(family.has_mean ? "InvVariance" : "InvRms");
    Results outputs = g.add_op(make_norm_forward(family, c.inputs[0], c.inputs[1], c.inputs[2], o), o.name,
                               family.kind, ports);
    for (size_t i = 1; i < outputs.size(); ++i) keep_float(outputs[i]);
    return outputs;
}

Results add_norm_backward(fe_graph &g, const NormFamily &family, const schema::Call &c, bool dbias_param) {
    const auto &o = c.options_as<fe_norm_backward_options>();
    const std::vector<fe_tensor *> &in = c.inputs;  // dY, X, scale, [mean], inverse deviation
    fe_tensor *mean = family.has_mean ? in[3] : nullptr, *inv = in[family.has_mean ? 4 : 3];
    const bool with_dbias = !dbias_param || c.params[0].value != 0;
    std::vector<const char *> ports = {"DX", "DScale"};
    if (with_dbias) ports.push_back("DBias");
    Results outputs = g.add_op(make_norm_backward(family, in[0], in[1], in[2], mean, inv, o), o.name, c.op->kind, ports);
    for (size_t i = 1; i < outputs.size(); ++i) like_scale(outputs[i], in[2]);
    return outputs;
}

}  // namespace fe

// What the normalizations share in their descriptions (lib/schema/schema.hpp): the option structs
// of the forward and backward passes and their ports; each op's own description is in its family's
// file (layernorm.cpp, rmsnorm.cpp,
// instancenorm.cpp, adalayernorm.cpp, batchnorm.cpp).
namespace fe {

namespace {

const schema::Enum &norm_phase_enum() {
    static const schema::Enum names{"fe_norm_phase",
                      {{"FE_NORM_PHASE_INFERENCE", "inference", FE_NORM_PHASE_INFERENCE, "Y only."},
                       {"FE_NORM_PHASE_TRAINING", "training", FE_NORM_PHASE_TRAINING,
                        "Y and the statistics the backward pass reads."}},
                      "Inference (y only) or training (y and the statistics the backward pass reads)."};
    return names;
}

}  // namespace

const schema::Struct &norm_options_description() {
    static const schema::Struct description = FE_SCHEMA_OPTIONS(fe_norm_options, FE_NORM_OPTIONS_INIT,
        "A normalization's phase and epsilon.",
        FE_SCHEMA_NAME_FIELD(fe_norm_options),
        FE_SCHEMA_ENUM(fe_norm_options, phase, norm_phase_enum(), "Inference or training."),
        FE_SCHEMA_RANGE(fe_norm_options, epsilon, number, 0, 1e308, "Added to the variance."),
        FE_SCHEMA_TENSOR(fe_norm_options, epsilon_tensor, "epsilon", "Epsilon as a one-element float scalar."),
        FE_SCHEMA_FIELD(fe_norm_options, zero_centered_gamma, flag, "Multiply by (1 + scale) instead of scale."));
    return description;
}

const schema::Struct &norm_backward_options_description() {
    static const schema::Struct description = FE_SCHEMA_OPTIONS(fe_norm_backward_options, FE_NORM_BACKWARD_OPTIONS_INIT,
        "A normalization backward pass's options.",
        FE_SCHEMA_NAME_FIELD(fe_norm_backward_options),
        FE_SCHEMA_FIELD(fe_norm_backward_options, zero_centered_gamma, flag, "The forward pass used (1 + scale)."),
        FE_SCHEMA_RANGE(fe_norm_backward_options, peer_stats_count, tensor_count, 0, FE_MAX_PEER_STATS,
            "How many peer statistics buffers are set."),
        FE_SCHEMA_FIELD(fe_norm_backward_options, peer_stats, tensor_array,
            "Synchronized batchnorm: one statistics exchange buffer per GPU of the group, float [2, 4 * C, 1, 1]."));
    return description;
}

const std::vector<schema::Port> &norm_forward_output_ports() {
    static const std::vector<schema::Port> ports = {{"Y", nullptr, "like x"},
                                                    {"Mean", "phase", "training: the mean over the normalized dims"},
                                                    {"InvVariance", "phase", "training: 1 / sqrt(var + epsilon)"}};
    return ports;
}

const std::vector<schema::Port> &norm_backward_output_ports(bool optional_dbias) {
    static const std::vector<schema::Port> always = {{"DX", nullptr, "x's gradient"},
                                                     {"DScale", nullptr, "scale's gradient"},
                                                     {"DBias", nullptr, "bias's gradient"}};
    static const std::vector<schema::Port> optional = {{"DX", nullptr, "x's gradient"},
                                                       {"DScale", nullptr, "scale's gradient"},
                                                       {"DBias", "output_dbias", "bias's gradient"}};
    return optional_dbias ? optional : always;
}

const std::vector<schema::Port> &norm_backward_input_ports() {
    static const std::vector<schema::Port> ports = {{"dY", nullptr, "y's gradient"},
                                                    {"X", nullptr, "the forward input"},
                                                    {"scale", nullptr, "the forward scale"},
                                                    {"mean", nullptr, "the forward mean"},
                                                    {"inv_variance", nullptr, "the forward inverse standard deviation"}};
    return ports;
}

const schema::Param &norm_output_dbias_param() {
    static const schema::Param param{"output_dbias", schema::Type::flag, nullptr, false,
                                     "Compute the bias's gradient (false when the forward had no bias); default true.", 1};
    return param;
}

}  // namespace fe
