// Lowering a validated graph into one cuDNN operation graph, and fixing its binding layout.
#include <algorithm>
#include <atomic>
#include <climits>
#include <mutex>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "plan/kernel_cache.hpp"
#include "plan/lowering.hpp"

namespace fe {

namespace {
std::atomic<uint64_t> g_next_build_id{1};
}  // namespace

uint64_t next_build_id() { return g_next_build_id.fetch_add(1); }

namespace {

// An input that only views (slices) read: cuDNN's operation graph has no tensor for it.
bool read_only_through_views(const fe_graph &graph, const fe_tensor *t) {
    if (!t->is_input()) return false;
    bool read = false;
    for (const auto &node : graph.nodes)
        for (const fe_tensor *in : node->inputs)
            if (in == t) {
                if (!node->only_views_inputs()) return false;
                read = true;
            }
    return read;
}

// The (input slot, output slot) pairs whose ops document them as updated in place, sorted.
std::vector<std::pair<int32_t, int32_t>> in_place_slot_pairs(const fe_graph &graph) {
    std::vector<std::pair<int32_t, int32_t>> pairs;
    for (const auto &node : graph.nodes)
        for (const auto &ports : node->in_place_ports()) {
            const fe_tensor *in = node->inputs.at(ports.first), *out = node->outputs.at(ports.second);
            if (in && in->slot >= 0 && out->slot >= 0) pairs.emplace_back(in->slot, out->slot);
        }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

}  // namespace

void finish_binding_layout(fe_graph &graph, BuildState &state) {
    state.executable.input_slots = graph.inputs.size();
    state.executable.shared_slots = in_place_slot_pairs(graph);
    for (const WorkspaceTensor &w : state.executable.workspace_tensors) state.executable.uids.push_back(w.uid);
    for (SliceView &v : state.executable.slice_views) {
        auto it = std::lower_bound(state.executable.uid_to_slot.begin(), state.executable.uid_to_slot.end(),
                                   std::make_pair(v.source_uid, INT32_MIN));
        FE_CHECK(it != state.executable.uid_to_slot.end() && it->first == v.source_uid, FE_STATUS_VALIDATION,
                 "graph '%s': a view points into uid %lld, which is not one of its inputs or outputs", graph.name.c_str(),
                 static_cast<long long>(v.source_uid));
        v.source_slot = it->second;
        int64_t span = state.executable.slot_bytes[static_cast<size_t>(v.source_slot)];
        FE_CHECK(v.byte_offset >= 0 && (span == 0 || v.byte_offset < span), FE_STATUS_VALIDATION,
                 "graph '%s': a slice starts %lld bytes into '%s', past its end", graph.name.c_str(),
                 static_cast<long long>(v.byte_offset), state.executable.slots[static_cast<size_t>(v.source_slot)]->name.c_str());
        state.executable.uids.push_back(v.uid);
    }
    state.executable.pack_positions.clear();
    state.executable.pack_uids.clear();
    std::vector<bool> unseen(state.executable.slots.size());
    bool any = false;
    for (size_t i = 0; i < state.executable.slots.size(); ++i) any |= (unseen[i] = read_only_through_views(graph, state.executable.slots[i]));
    if (!any) return;
    for (size_t i = 0; i < state.executable.uids.size(); ++i) {
        if (i < unseen.size() && unseen[i]) continue;
        state.executable.pack_positions.push_back(static_cast<int32_t>(i));
        state.executable.pack_uids.push_back(state.executable.uids[i]);
    }
}

namespace {

// A lowered graph's binding layout: a slot for each input, then each output, their uids, then the
// by-value scalars' uids, and the end that an adopted record shares (finish_binding_layout).
void lay_out_bindings(fe_graph &graph, BuildState &state) {
    for (const auto &t : graph.tensors) t->slot = -1;
    for (fe_tensor *t : graph.inputs) {
        t->slot = static_cast<int32_t>(state.executable.slots.size());
        state.executable.slots.push_back(t);
    }
    for (fe_tensor *t : graph.outputs) {
        t->slot = static_cast<int32_t>(state.executable.slots.size());
        state.executable.slots.push_back(t);
    }
    for (fe_tensor *t : state.executable.slots) {
        state.executable.uids.push_back(t->uid);
        // A ragged (packed) tensor's buffer holds the actual tokens only: its size is unknown here.
        state.executable.slot_bytes.push_back(t->ragged_offset ? 0 : tensor_bytes(*t));
    }
    for (const auto &t : graph.tensors) {
        // A compile-time constant is in the plan's kernels, not in the variant pack.
        if (!t->by_value || t->compile_time_constant || !state.lowered.tensor_index.count(t.get())) continue;
        state.executable.uids.push_back(t->uid);
        state.executable.by_value_pointers.push_back(t->scalar_bytes);
    }
    for (InternalScalar &s : state.lowered.internal_scalars) {
        state.executable.uids.push_back(s.uid);
        state.executable.by_value_pointers.push_back(s.bytes);
    }
    for (size_t i = 0; i < state.executable.slots.size(); ++i)
        state.executable.uid_to_slot.emplace_back(state.executable.slots[i]->uid, static_cast<int32_t>(i));
    std::sort(state.executable.uid_to_slot.begin(), state.executable.uid_to_slot.end());
    // Workspace tensors and slice views come last; their addresses are known only at execution.
    finish_binding_layout(graph, state);
    state.executable.build_id = next_build_id();
}
}  // namespace

namespace {

// cuDNN's engines take complex numbers in a matmul alone (no pointwise step, conversion or other
// operation around it).
void refuse_complex_outside_matmul(const fe_graph &graph, const Node &node) {
    if (std::string(node.kind()) == "matmul") return;
    auto complex = [](const fe_tensor *t) { return t && t->data_type == FE_DATA_COMPLEX_FP32; };
    for (const std::vector<fe_tensor *> *ports : {&node.inputs, &node.outputs})
        for (const fe_tensor *t : *ports)
            FE_CHECK(!complex(t), FE_STATUS_NOT_SUPPORTED,
                     "graph '%s', %s '%s': '%s' is complex_fp32, which only a matmul takes (complex A and B into a "
                     "complex C)",
                     graph.name.c_str(), node.kind(), node.name.c_str(), t->name.c_str());
}

// Vectorized int8 layouts were run on a GPU for a forward convolution alone, int8 in and out
// (docs/capabilities-probes.md: the vectorized INT8 probe); anything else with them is refused
// before cuDNN.
void refuse_vectorized_outside_conv(const fe_graph &graph, const Node &node) {
    bool vectorized = false;
    for (const std::vector<fe_tensor *> *ports : {&node.inputs, &node.outputs})
        for (const fe_tensor *t : *ports)
            vectorized = vectorized || (t && (t->vector_count > 1 || t->reordering != FE_TENSOR_REORDERING_NONE));
    if (!vectorized) return;
    FE_CHECK(std::string(node.kind()) == "conv_fprop" && graph.nodes.size() == 1, FE_STATUS_NOT_SUPPORTED,
             "graph '%s', %s '%s': vectorized tensors (fe_tensor_set_vectorization) belong to a forward convolution "
             "alone, the one graph of theirs cuDNN was seen to run",
             graph.name.c_str(), node.kind(), node.name.c_str());
    for (size_t i = 0; i < node.inputs.size(); ++i)
        FE_CHECK(node.inputs[i]->reordering == FE_TENSOR_REORDERING_NONE || i == 1, FE_STATUS_NOT_SUPPORTED,
                 "graph '%s', %s '%s': '%s' is in the INT8x32 order, which is a filter's (the convolution's weight)",
                 graph.name.c_str(), node.kind(), node.name.c_str(), node.inputs[i]->name.c_str());
    for (const std::vector<fe_tensor *> *ports : {&node.inputs, &node.outputs})
        for (const fe_tensor *t : *ports)
            FE_CHECK(t->data_type == FE_DATA_INT8, FE_STATUS_NOT_SUPPORTED,
                     "graph '%s', %s '%s': '%s' is %s; a vectorized convolution takes an int8 image and filter into an "
                     "int8 result",
                     graph.name.c_str(), node.kind(), node.name.c_str(), t->name.c_str(), data_type_name(t->data_type));
}

// Lower every node into one operation graph and finalize it.
void lower_graph(fe_graph &graph, cudnnHandle_t handle, const TargetGpu &target, BuildState *state) {
    state->lowered.target = target;
    if (!graph.device_properties_json.empty()) {
        require(Feature::deviceless_plans, static_cast<int64_t>(cudnn().cudnnGetVersion()));
        Descriptor props(CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR);
        const std::string &json = graph.device_properties_json;
        props.set(CUDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, static_cast<int64_t>(json.size()),
                  json.data(), "CUDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION");
        props.finalize("loading the device properties JSON", FE_STATUS_INVALID_ARGUMENT);
        state->lowered.device_properties = std::move(props);
    } else {
        FE_CHECK(handle != nullptr, FE_STATUS_BAD_STATE,
                 "graph '%s' needs a handle (a GPU) or device properties to build for", graph.name.c_str());
    }
    Lowering lowering(graph, *state);
    for (const auto &node : graph.nodes) {
        refuse_complex_outside_matmul(graph, *node);
        refuse_vectorized_outside_conv(graph, *node);
    }
    for (const auto &node : graph.nodes) {
        if (node->absorbed_by) continue;  // lowered by its attention op
        try {
            node->lower(lowering);
        } catch (const Error &e) {
            throw Error(e.status(), format("graph '%s', %s '%s': %s", graph.name.c_str(), node->kind(),
                                           node->name.c_str(), e.what()));
        }
    }
    // Scalars not referenced by any op never reach cuDNN; referenced ones got descriptors.
    Descriptor op_graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    std::vector<cudnnBackendDescriptor_t> ops;
    for (const Descriptor &op : state->lowered.operations) ops.push_back(op.get());
    op_graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(ops.size()),
                 ops.data(), "CUDNN_ATTR_OPERATIONGRAPH_OPS");
    if (handle)
        op_graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle,
                     "CUDNN_ATTR_OPERATIONGRAPH_HANDLE");
    if (graph.kernel_cache) {
        require(Feature::kernel_cache, static_cast<int64_t>(cudnn().cudnnGetVersion()));
        bool dynamic = true;
        op_graph.set(CUDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED, CUDNN_TYPE_BOOLEAN, 1, &dynamic,
                     "CUDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED");
    }
    std::string what = "graph '" + graph.name + "': finalizing the operation graph" +
                       (graph.kernel_cache ? " with dynamic shapes" : "");
    // cuDNN checks most graphs against its engines here already: a refusal is a graph it has no
    // engine for, and gets the nodes' explanations as the heuristics' "no engine" does.
    try {
        op_graph.finalize(what.c_str(), FE_STATUS_NOT_SUPPORTED);
    } catch (const Error &e) {
        if (e.status() != FE_STATUS_NOT_SUPPORTED) throw;
        std::string hints = unsupported_hints(graph);
        if (hints.empty()) throw;
        throw Error(e.status(), e.what() + hints);
    }
    if (graph.kernel_cache) {
        std::lock_guard<std::mutex> lock(graph.kernel_cache->mutex);
        prepare_kernel_cache(*graph.kernel_cache, op_graph);
    }
    state->lowered.engine_count =
        op_graph.get_int64(CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, "CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT");
    state->lowered.operation_graph = std::move(op_graph);
}

bool chose_native_automatically(const BuildState &state) {
    for (const AttentionLowering &a : state.lowered.attention)
        if (a.native && a.automatic) return true;
    return false;
}

}  // namespace

void build_operation_graph(fe_graph &graph, cudnnHandle_t handle, const TargetGpu &target) {
    graph.validate();
    FE_CHECK(graph.stage == fe_graph::Stage::Validated, FE_STATUS_BAD_STATE,
             "graph '%s' already has an operation graph", graph.name.c_str());
    cudnn();  // fail early, with the loader's message, if cuDNN is missing
    graph.assign_uids();
    // AUTO lowers attention natively where the native operation takes the options; when cuDNN
    // then has no engine for it on the target GPU (or refuses the operation), the graph is
    // lowered again with attention as the composite pattern.
    auto state = std::make_unique<BuildState>();
    std::string native_failure;
    try {
        lower_graph(graph, handle, target, state.get());
        if (chose_native_automatically(*state) && !has_engine_config(*state)) native_failure = "no engine config";
    } catch (const Error &e) {
        if (!chose_native_automatically(*state)) throw;
        native_failure = e.what();
    }
    if (!native_failure.empty()) {
        FE_LOG_INFO("graph '%s': native SDPA not usable (%s); lowering attention as the composite pattern",
                    graph.name.c_str(), native_failure.c_str());
        state = std::make_unique<BuildState>();
        state->lowered.composite_attention_only = true;
        lower_graph(graph, handle, target, state.get());
    }
    lay_out_bindings(graph, *state);
    FE_LOG_INFO("graph '%s': operation graph of %zu operations, %lld engines", graph.name.c_str(),
                state->lowered.operations.size(), static_cast<long long>(state->lowered.engine_count));
    graph.build = std::move(state);
    graph.stage = fe_graph::Stage::OperationGraph;
}

namespace {

// Whether lowering chose native or composite attention for each node as `recorded` says.
bool same_attention(const BuildState &state, const std::vector<std::pair<std::string, bool>> &recorded) {
    if (state.lowered.attention.size() != recorded.size()) return false;
    for (const AttentionLowering &a : state.lowered.attention) {
        auto it = std::find_if(recorded.begin(), recorded.end(), [&](const auto &r) { return r.first == a.node->name; });
        if (it == recorded.end() || it->second != a.native) return false;
    }
    return true;
}

}  // namespace

std::unique_ptr<BuildState> lower_as_built(fe_graph &graph, cudnnHandle_t handle, const TargetGpu &target,
                                           const std::vector<std::pair<std::string, bool>> &attention) {
    auto state = std::make_unique<BuildState>();
    lower_graph(graph, handle, target, state.get());
    if (!same_attention(*state, attention)) {  // AUTO fell back to the composite when it was built
        state = std::make_unique<BuildState>();
        state->lowered.composite_attention_only = true;
        lower_graph(graph, handle, target, state.get());
        FE_CHECK(same_attention(*state, attention), FE_STATUS_INVALID_ARGUMENT,
                 "graph '%s': the plan lowers attention in a way this graph does not", graph.name.c_str());
    }
    lay_out_bindings(graph, *state);
    return state;
}

}  // namespace fe
