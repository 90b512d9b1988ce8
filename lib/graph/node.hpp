// An operation of the graph IR. Each op family (lib/ops/) derives from Node and keeps its
// attributes, its shape/type inference and its lowering to cuDNN in one file.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/tensor.hpp"

namespace fe {

class Lowering;

struct Node {
    std::string name;
    fe_data_type compute_data_type = FE_DATA_NOT_SET;  // as given; resolved at validation
    std::vector<fe_tensor *> inputs;                    // fixed ports; nullptr where unused
    std::vector<fe_tensor *> outputs;

    virtual ~Node() = default;
    virtual const char *kind() const = 0;
    // Fill the outputs' dims and strides from the inputs (keeping what the user set, and
    // checking it). Throws FE_STATUS_VALIDATION / INVALID_ARGUMENT with the cause alone; the
    // caller adds which call and which node.
    virtual void infer() = 0;
    // Append this node's cuDNN operation descriptor(s).
    virtual void lower(Lowering &lowering) const = 0;
    // Attributes for fe_graph_describe ("padding=[1,1] stride=[1,1]").
    virtual std::string attributes() const { return ""; }
    // True for operations cuDNN only takes at a higher rank (1-D convolution runs as 2-D).
    virtual bool wants_rank3_lift() const { return false; }
    // True for operations that cuDNN reads with dim 0 as their batch (normalizations): a graph
    // with one pads rank-1/2 tensors to rank 3 with trailing unit dims, not leading ones.
    virtual bool wants_trailing_unit_dims() const { return false; }
    // True for elementwise operations (the pointwise family).
    virtual bool is_pointwise() const { return false; }
    // Names of the input ports, for messages and descriptions.
    virtual const char *input_port(size_t index) const;
    // What decides whether cuDNN has an engine for this node (types, sizes, options), for the
    // message when none has one; "" when the graph's description says enough.
    virtual std::string combination() const { return ""; }
    // Appended to the message when cuDNN has no engine for the graph: what the operation needs
    // (e.g. an operation no engine runs on its own). Empty: nothing to add.
    virtual std::string unsupported_hint() const { return ""; }
};

// Give an op result its inferred dims (or check the user's), and strides laid out like
// `layout_like` unless the user set them.
void assign_inferred_shape(fe_tensor *tensor, const std::vector<int64_t> &dims,
                           const std::vector<int64_t> &layout_like);

}  // namespace fe
