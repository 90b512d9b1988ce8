// What an op's lower() sees: backend tensor descriptors made on demand, a place to keep
// attribute descriptors alive, and the list of operations of the one operation graph.
#pragma once

#include <cudnn_graph.h>

#include <initializer_list>

#include "backend/capabilities.hpp"
#include "plan/build_state.hpp"

namespace fe {

class Lowering {
  public:
    Lowering(fe_graph &graph, BuildState &state);

    // The backend tensor descriptor of `tensor`, created on first use.
    const Descriptor &tensor(const fe_tensor *tensor);
    // The descriptor of `tensor` seen through another view of the same memory (e.g. K read as
    // K^T by swapping two dims and their strides). A tensor has one view per operation graph.
    const Descriptor &tensor_view(const fe_tensor *tensor, const std::vector<int64_t> &dims,
                                  const std::vector<int64_t> &strides);
    // Let `tensor` (a score modifier's input) stand for `descriptor`, made by the op that
    // absorbs the modifier: the modifier's operations then read the op's own intermediate.
    void stand_in(const fe_tensor *tensor, const Descriptor &descriptor);
    // Finalize an attribute descriptor (convolution, pointwise, ...) and keep it alive with the
    // graph; an operation, finalized, joins the operation graph. `what` is the step an error
    // names ("finalizing ..."): cuDNN refusing either is NOT_SUPPORTED.
    const Descriptor &finalize_and_keep(Descriptor descriptor, const std::string &what);
    void finalize_and_add(Descriptor operation, const std::string &what);
    // An operation of `type` whose attributes are all descriptors (each with the label an error
    // names), finalized and added as finalize_and_add does.
    struct DescriptorAttribute {
        cudnnBackendAttributeName_t name;
        const Descriptor &value;
        const char *label;
    };
    void add_operation(cudnnBackendDescriptorType_t type, std::initializer_list<DescriptorAttribute> attributes,
                       const std::string &what);

    // Tensors an operation makes for itself while lowering (composite operations such as
    // attention): a virtual intermediate, or a constant passed by value. Both get fresh uids.
    const Descriptor &internal_tensor(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides,
                                      fe_data_type type);
    const Descriptor &internal_scalar(double value, fe_data_type type, size_t rank);
    // A non-virtual intermediate placed in the workspace (zeroed before each run if asked).
    // A packed one has a ragged offset and `bytes` (its span for the tokens it may hold).
    const Descriptor &workspace_tensor(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides,
                                       fe_data_type type, bool zero_before_run,
                                       const Descriptor *ragged_offset = nullptr, int64_t bytes = 0);

    // A slice of graph input `source`: `view` (the slice's tensor) is a non-virtual tensor of
    // its own that execution binds at the source's address plus `byte_offset`.
    const Descriptor &slice_view(const fe_tensor *view, const fe_tensor *source, int64_t byte_offset);

    // A tensor of `like`'s shape and type that cuDNN insists on having an address for but does not
    // read (average pooling's backward wants x and y): bound at the address of `bound`, a graph
    // input or output at least as large. Returns nullptr when `bound` has no address (virtual).
    const Descriptor *unread_alias(const fe_tensor *like, const fe_tensor *bound);

    fe_data_type compute_type(const Node &node) const { return graph_.resolved_compute(node); }
    // Refuses (NOT_SUPPORTED, the capability table's words) what the loaded cuDNN or the target
    // GPU's generation does not run.
    void require(Feature feature) const;
    // The GPU lowered for (zeros where not known).
    const TargetGpu &target() const;
    // Keeps the engines with behaviour note `note` out of this graph's candidates where the
    // capability table refuses `feature` (a known-bad entry naming those engines): for an
    // operation whose plans on them build but fail or compute wrong values, where other engines
    // run it. A candidate left out says why in the build's report.
    void avoid_engines(cudnnBackendBehaviorNote_t note, Feature feature);
    // Attention's choice between cuDNN's native SDPA operation and the composite pattern.
    bool composite_attention_only() const { return state_.lowered.composite_attention_only; }
    void record_attention(const Node &node, bool native, bool automatic) {
        state_.lowered.attention.push_back({&node, native, automatic});
    }
    // 1-D convolutions lower as 2-D with a unit height; every rank-3 tensor of such a graph
    // gets that unit dimension so that shapes stay consistent across fused operations.
    bool lifts_rank3() const { return lift_rank3_; }
    // Rank-1/2 tensors padded at the end ([T, D] -> [T, D, 1]) rather than the front (see
    // Node::wants_trailing_unit_dims).
    bool pads_trailing() const { return pad_trailing_; }
    // The graph being lowered (an operation's checks of how it is fused).
    const fe_graph &graph() const { return graph_; }
    // Dims/strides as cuDNN sees them (rank at least 3, lifted as above).
    void lowered_shape(const fe_tensor *tensor, std::vector<int64_t> *dims,
                       std::vector<int64_t> *strides) const;

  private:
    fe_graph &graph_;
    BuildState &state_;
    bool lift_rank3_ = false;
    bool pad_trailing_ = false;
    bool channels_last_pixels_ = false;
};

// cuDNN wants scaling factors typed like the math: double for double compute, else float.
void set_scaling(Descriptor &op, cudnnBackendAttributeName_t name, fe_data_type compute,
                 double value, const char *label);

}  // namespace fe
