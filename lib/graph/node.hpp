// An operation of the graph IR. Each op family (lib/ops/) derives from Node and keeps its
// attributes, its shape/type inference and its lowering to cuDNN in one file.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/tensor.hpp"

namespace fe {

class AttributeWriter;
class Lowering;

struct Node {
    std::string name;
    fe_data_type compute_data_type = FE_DATA_NOT_SET;  // as given; resolved at validation
    std::vector<fe_tensor *> inputs;                    // fixed ports; nullptr where unused
    std::vector<fe_tensor *> outputs;
    // Set for a score modifier's operations: the attention op that lowers them inside its own
    // fused pattern. The graph's lowering skips them.
    const Node *absorbed_by = nullptr;

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
    // True for operations (convolutions) whose fused graphs cuDNN only computes right when every
    // single-pixel image (all spatial dims 1) is described channels-last: see
    // Lowering::lowered_shape.
    virtual bool wants_channels_last_pixels() const { return false; }
    // True for elementwise operations (the pointwise family).
    virtual bool is_pointwise() const { return false; }
    // True for operations that only view their input's memory (slice): cuDNN never sees an input
    // that nothing else reads, so it stays out of the variant pack.
    virtual bool only_views_inputs() const { return false; }
    // (input, output) port pairs that the op documents as updatable in place: execution lets
    // their buffers overlap (a running statistic and its next value). Others must not.
    virtual std::vector<std::pair<size_t, size_t>> in_place_ports() const { return {}; }
    // Names of the input ports, for messages and descriptions.
    virtual const char *input_port(size_t index) const;
    // What decides whether cuDNN has an engine for this node (types, sizes, options), for the
    // message when none has one; "" when the graph's description says enough.
    virtual std::string combination() const { return ""; }
    // Appended to the message when cuDNN has no engine for the graph: what the operation needs
    // (e.g. an operation no engine runs on its own). Empty: nothing to add.
    virtual std::string unsupported_hint() const { return ""; }

    // ---- The attributes: the JSON form (docs/graph-json.md) and the plan cache's key ----
    // What an op writes of itself goes into the graph JSON and into the graph's facts, the plan
    // cache's key (graph/graph_facts.hpp): both must hold every attribute that decides the op,
    // so each op writes itself once and has a reader. To give an op its JSON form and its key:
    //  1. describe the op in its file (lib/ops/<op>.cpp), and override write_attributes there
    //     with write_option_attributes (schema/option_fields.hpp), which writes the
    //     attributes its description lists, always all of them and in the struct's order (both
    //     forms are keys: canonical, no optional spellings); parameters outside the options
    //     struct are written by hand. lib/serial and graph_facts add the op's kind, name, compute
    //     type, inputs (by the port names json_input gives) and outputs (by output_ports).
    //  2. nothing more to read it: lib/serial/readers/described.cpp reads every described op's
    //     inputs, parameters and options from the same description and adds the op through the
    //     description's add function, as the C entry point does (so checks and inference run
    //     again), under the kind() it writes.
    //  3. give the description's input ports example dims: the every-op round trip
    //     (tests/unit/graph_json_round_trip_test.cpp) builds the op from them; the op's section
    //     of docs/graph-json.md is regenerated (scripts/schema/regenerate.sh).
    // An op that keeps the default has no JSON form and no key: fe_graph_to_json fails naming it
    // (and the plan cache then builds such graphs without caching them).
    virtual void write_attributes(AttributeWriter &out) const;
    // The name of input port `index` in the JSON "inputs" object.
    virtual const char *json_input(size_t index) const { return input_port(index); }
    // Names of the result ports, in outputs' order, as the op's entry point gave them ("Y",
    // "Stats"); filled by fe_graph::add_node.
    std::vector<std::string> output_ports;
};

}  // namespace fe
