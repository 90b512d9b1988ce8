// The graph: tensors, nodes, defaults, and the state of its build.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "graph/node.hpp"
#include "graph/tensor.hpp"

namespace fe {
struct BuildState;      // lib/plan: lowering's products, the plan search, the executable plan
struct ExecutablePlan;  // lib/runtime: the built plans and their binding layout
struct KernelCache;     // lib/plan: compiled kernels that dynamic-shape builds share
struct BackgroundBuild; // lib/build: a static plan built beside a dynamic-shape graph
}

struct fe_graph {
    enum class Stage { Editing, Validated, OperationGraph, Candidates, Supported, Built };

    fe_graph();
    ~fe_graph();

    std::string name = "graph";
    fe_data_type io_data_type = FE_DATA_NOT_SET;
    fe_data_type intermediate_data_type = FE_DATA_FLOAT;
    fe_data_type compute_data_type = FE_DATA_FLOAT;
    std::string device_properties_json;
    // Set: the graph is built with dynamic shapes from this kernel cache.
    std::shared_ptr<fe::KernelCache> kernel_cache;

    std::vector<std::unique_ptr<fe_tensor>> tensors;  // every tensor, owned here
    std::vector<fe_tensor *> inputs;                  // user-declared, creation order (no scalars)
    std::vector<fe_tensor *> outputs;                 // set_output order
    std::vector<std::unique_ptr<fe::Node>> nodes;     // in creation (= topological) order
    std::unordered_map<std::string, fe_tensor *> by_name;
    // Indexes of what names and uids are taken, so that adding an op or a uid is not a scan
    // of the graph (reading a graph of many ops stays linear).
    std::unordered_set<std::string> node_names;
    std::unordered_map<int64_t, fe_tensor *> by_user_uid;
    std::map<std::string, int> kind_counters;

    Stage stage = Stage::Editing;
    std::unique_ptr<fe::BuildState> build;
    // The part of the build that execution reads (nullptr before a build); defined with
    // BuildState, so that the runtime needs nothing else of it.
    const fe::ExecutablePlan *executable() const;

    // ---- construction (throw fe::Error) ----
    fe_tensor *add_input(const std::string &name, const std::vector<int64_t> &dims,
                         const std::vector<int64_t> &strides, fe_data_type type);
    // A scalar passed by value; `compile_time`: a constant cuDNN compiles into the kernels.
    fe_tensor *add_scalar(const std::string &name, double value, fe_data_type type, bool compile_time = false);
    // Add a node and its result tensors (named "<node>::<port>"); runs inference first and
    // adds nothing if it fails.
    void add_node(std::unique_ptr<fe::Node> node, const std::vector<const char *> &output_ports);
    std::string unique_node_name(const char *given, const char *kind);
    // Name the node (given, or "<kind>_<n>") and add it with its result ports; a failure leaves
    // the graph as it was, automatic-name counters included. Returns the node's results.
    const std::vector<fe_tensor *> &add_op(std::unique_ptr<fe::Node> node, const char *given_name, const char *kind,
                                           const std::vector<const char *> &output_ports);
    void rename(fe_tensor *tensor, const std::string &name);
    void set_output(fe_tensor *tensor, bool is_output);
    void set_uid(fe_tensor *tensor, int64_t uid);
    // set_uid without its checks of the stage and the kind: also numbers a scalar passed by
    // value, which the API gives no uid but a serialized graph records (its plan binds by it).
    void set_scalar_uid(fe_tensor *tensor, int64_t uid);
    // The packed variable-length layout of `tensor` (fe_tensor_set_ragged_offset); nullptr removes it.
    void set_ragged_offset(fe_tensor *tensor, fe_tensor *offsets);
    // The alignment promise of a tensor's memory (fe_tensor_set_alignment).
    void set_alignment(fe_tensor *tensor, int64_t bytes);
    // cuDNN's vectorized layout of a graph input (fe_tensor_set_vectorization).
    void set_vectorization(fe_tensor *tensor, int32_t count, int32_t dim);
    // The INT8x32 kernels' order of a vectorized filter's values (fe_tensor_set_reordering).
    void set_reordering(fe_tensor *tensor, fe_tensor_reordering reordering);
    // Any change after a build step throws BAD_STATE; before, it resets to Editing.
    void require_editable();
    void check_owns(const fe_tensor *tensor, const char *what) const;

    // ---- build steps ----
    void validate();
    void check_score_modifiers() const;
    fe_data_type resolved_compute(const fe::Node &node) const;
    void assign_uids();
    std::string describe() const;
    // Whether an operation of this kind (Node::kind) is in the graph.
    bool has_op(const char *kind) const;

    // ---- a static plan built in the background (fe_build_options.background_static) ----
    // Set once, when the background build has made it and checked that it binds as the built
    // plan does; execute switches to it (runtime/execute.cpp), after which `static_switched`.
    std::atomic<const fe::ExecutablePlan *> static_plan{nullptr};
    std::atomic<bool> static_switched{false};
    // The build and what its plan needs kept alive. Declared last, so that it is destroyed
    // first: its destructor waits for a build still running, which writes the members above.
    std::shared_ptr<fe::BackgroundBuild> background;
};
