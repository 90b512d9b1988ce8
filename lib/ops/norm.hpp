// What the normalization families share: their inputs by port, epsilon as a number or a tensor,
// zero-centred gamma, checks of shapes and types, and the emission of cuDNN's native
// NORM_FORWARD / NORM_BACKWARD operations. Each family (layernorm.cpp, rmsnorm.cpp, ...) says
// which dims it normalizes and which tensors it takes; the nodes here do the rest.
#pragma once

#include <cudnn_graph.h>

#include <string>
#include <vector>

#include "backend/capabilities.hpp"
#include "ops/graph_ops.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"

namespace fe {

namespace schema {
struct Call;
struct Param;
struct Port;
struct Struct;
}  // namespace schema

// The parts of the normalizations' descriptions they share (norm.cpp).
const schema::Struct &norm_options_description();
const schema::Struct &norm_backward_options_description();
const std::vector<schema::Port> &norm_forward_output_ports();
const std::vector<schema::Port> &norm_backward_output_ports(bool optional_dbias);
const std::vector<schema::Port> &norm_backward_input_ports();
const schema::Param &norm_output_dbias_param();

// A normalization family as cuDNN knows it.
struct NormFamily {
    const char *kind;           // "layernorm": node kinds and messages
    cudnnBackendNormMode_t mode;
    bool has_mean;              // rmsnorm keeps only the inverse RMS
    bool bias_optional;         // rmsnorm, adalayernorm
    bool zero_centered_gamma;   // whether (1 + scale) is offered
    Feature needs;              // what the mode needs of cuDNN (the capability table)
    // The statistics' dims for x and scale; throws with the cause when scale does not fit x.
    std::vector<int64_t> (*stats_dims)(const fe_tensor *x, const fe_tensor *scale);
};

// Shape rules the families pick from. Dims of scale equal x's (normalized) or are 1.
// Layer-like: scale dim 0 is 1 (or x's with per_sample); statistics per index of the dims where
// scale is 1.
std::vector<int64_t> layer_stats_dims(const fe_tensor *x, const fe_tensor *scale, bool per_sample);
// Channel-like: scale is [1, C, 1, ...]; per_image keeps dim 0 in the statistics (instance norm).
std::vector<int64_t> channel_stats_dims(const fe_tensor *x, const fe_tensor *scale, bool per_image);

class NormNode : public Node {
  protected:
    explicit NormNode(const NormFamily &family) : family_(family) {}

    const char *input_port(size_t i) const override { return i < ports_.size() ? ports_[i] : "IN"; }
    bool wants_trailing_unit_dims() const override { return true; }
    // Add an input under a port name; a NULL optional input is skipped. Returns its index or -1.
    int add_input(fe_tensor *t, const char *port);
    fe_tensor *input(int index) const { return index >= 0 ? inputs[static_cast<size_t>(index)] : nullptr; }
    // Synchronized batchnorm's peer statistics buffers, as inputs peer_stats_0, peer_stats_1, ...
    void add_peer_stats(size_t count, fe_tensor *const *peer_stats);
    // Each is float [2, 4 * C, 1, ...] in x's rank, C being x's dim 1.
    void check_peer_stats(const fe_tensor *x) const;
    std::vector<const Descriptor *> peer_stat_descriptors(Lowering &lowering) const;

    // Checks that hold once types are known (skipped while a type is still unset).
    static void check_data_type(const fe_tensor *t, const char *role, bool float_only);
    // Epsilon or momentum as a tensor: a float scalar passed by value (cuDNN reads neither from
    // device memory), given x's rank so that cuDNN sees matching ranks.
    static void check_scalar_tensor(fe_tensor *t, const char *role, size_t rank);
    static void check_same_dims(const fe_tensor *t, const std::vector<int64_t> &dims, const char *role);
    // The families that offer zero-centred gamma; others refuse the option. With it, cuDNN fuses
    // (1 + scale) into the norm only when the statistics are per index of dim 0.
    void check_zero_centered_gamma(bool requested, const std::vector<int64_t> &stats) const;

    // Refuse with NOT_SUPPORTED when the loaded cuDNN predates what the graph needs.
    void require_cudnn(Feature feature) const;
    // cuDNN 9.19 refuses a normalization whose y, dy or dx is not laid out as x (capability
    // norm_output_layout); `t` is one of them.
    static void refuse_unlike_x(Lowering &lowering, const fe_tensor *x, const fe_tensor *t);
    // Epsilon or momentum: the user's tensor, or the number passed by value.
    const Descriptor &scalar(Lowering &lowering, int index, double value, const fe_tensor *x) const;
    // scale, or (1 + scale) computed by a pointwise add in the same operation graph.
    const Descriptor &scale(Lowering &lowering, const fe_tensor *scale, bool zero_centered) const;
    std::string label() const { return std::string(family_.kind) + " '" + name + "'"; }

    const NormFamily &family_;
    std::vector<const char *> ports_;
    std::vector<int> peer_stats_;  // input indexes
};

// The tensors of one NORM_FORWARD operation (nullptr where unused).
struct NormForwardTensors {
    const Descriptor *x = nullptr, *scale = nullptr, *bias = nullptr, *epsilon = nullptr, *y = nullptr;
    const Descriptor *mean = nullptr, *inv_variance = nullptr;
    const Descriptor *momentum = nullptr, *running_mean = nullptr, *running_var = nullptr;
    const Descriptor *next_running_mean = nullptr, *next_running_var = nullptr;
    std::vector<const Descriptor *> peer_stats;
};
void emit_norm_forward(Lowering &lowering, cudnnBackendNormMode_t mode, fe_norm_phase phase,
                       const NormForwardTensors &t, const std::string &label);

// The tensors of one NORM_BACKWARD operation.
struct NormBackwardTensors {
    const Descriptor *x = nullptr, *dy = nullptr, *scale = nullptr, *mean = nullptr, *inv_variance = nullptr;
    const Descriptor *dx = nullptr, *dscale = nullptr, *dbias = nullptr;
    std::vector<const Descriptor *> peer_stats;
};
void emit_norm_backward(Lowering &lowering, cudnnBackendNormMode_t mode, const NormBackwardTensors &t,
                        const std::string &label);

// A call's forward pass of a family (layernorm, rmsnorm, instancenorm, adalayernorm) added to g:
// Y, then in training Mean (if the family has one) and the inverse deviation. A backward pass:
// DX, DScale, then DBias unless the op's output_dbias parameter (dbias_param) is false.
Results add_norm_forward(fe_graph &g, const NormFamily &family, const schema::Call &c);
Results add_norm_backward(fe_graph &g, const NormFamily &family, const schema::Call &c, bool dbias_param);

// The same as the add functions a family's ops register (schema::Registration).
template <const NormFamily &family>
Results add_norm_forward_call(fe_graph &g, const schema::Call &c) {
    return add_norm_forward(g, family, c);
}
template <const NormFamily &family, bool dbias_param>
Results add_norm_backward_call(fe_graph &g, const schema::Call &c) {
    return add_norm_backward(g, family, c, dbias_param);
}

}  // namespace fe
