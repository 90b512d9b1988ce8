#include "runtime/execute.hpp"

#include <algorithm>
#include <cstring>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "graph/graph.hpp"
#include "runtime/binding_overlap.hpp"
#include "runtime/buffer.hpp"
#include "runtime/executable_plan.hpp"
#include "runtime/handle.hpp"

namespace fe {

namespace {

// Every check below is O(bindings) with no allocation once the handle's scratch has grown to
// the graph's size, but the overlap check, which compares each output with the other bindings
// and runs only when they match none of the cached variant packs; names are only touched when
// building an error message.

// A plan's kernels are loaded on the device it was finalized for: another device's handle would
// launch them where they do not exist, or on memory that device cannot address.
const ExecutablePlan &built_state(fe_graph &graph, const fe_handle &handle) {
    const ExecutablePlan *plan = graph.executable();
    FE_CHECK(graph.stage == fe_graph::Stage::Built && plan, FE_STATUS_BAD_STATE,
             "graph '%s' is not built: call fe_graph_build (or the build steps) first", graph.name.c_str());
    FE_CHECK(plan->device < 0 || plan->device == handle.device, FE_STATUS_INVALID_ARGUMENT,
             "graph '%s' was built for CUDA device %d and the handle is on device %d: build it with a handle on "
             "device %d (GPUs of one kind share the plan cache, so that build compiles nothing)",
             graph.name.c_str(), plan->device, handle.device, handle.device);
    return *plan;
}

bool stream_capturing(const fe_handle &handle) {
    int capturing = kCudaStreamCaptureStatusNone;
    check_cuda(cuda().cudaStreamIsCapturing(handle.stream, &capturing), "cudaStreamIsCapturing");
    return capturing != kCudaStreamCaptureStatusNone;
}

// The plan an execute runs: the static one a background build made (fe_graph_background_state),
// once it is ready, from the first execute outside a stream capture whose workspace holds it (a
// caller's only when it needs no more than the built plan, which the caller sized it for); the
// built plan otherwise. One atomic load when there is no background build.
const ExecutablePlan &executing_plan(fe_graph &graph, const fe_handle &handle, const void *workspace,
                                     const Action &action) {
    const ExecutablePlan &built = built_state(graph, handle);
    const ExecutablePlan *fast = graph.static_plan.load(std::memory_order_acquire);
    if (!fast || action.kind != Action::Execute) return built;
    if (workspace != nullptr && fast->total_workspace() > built.total_workspace()) return built;
    bool switched = graph.static_switched.load(std::memory_order_acquire);
    // A capture records the plan it started with, and cannot see the managed workspace grow.
    bool grows = workspace == nullptr && fast->total_workspace() > handle.workspace_bytes;
    if ((!switched || grows) && stream_capturing(handle)) return built;
    if (!switched && !graph.static_switched.exchange(true, std::memory_order_acq_rel))
        FE_LOG_INFO("graph '%s' switches to its static plan (%s) built in the background", graph.name.c_str(),
                    fast->chosen().tag.c_str());
    return *fast;
}

void begin_binding(const ExecutablePlan &state, fe_handle &handle) {
    size_t total = state.uids.size();
    if (handle.pointers.size() < total) handle.pointers.resize(total);
    if (handle.pack_pointers.size() < state.pack_positions.size()) handle.pack_pointers.resize(state.pack_positions.size());
    std::fill(handle.pointers.begin(), handle.pointers.begin() + static_cast<ptrdiff_t>(state.slots.size()), nullptr);
    std::copy(state.by_value_pointers.begin(), state.by_value_pointers.end(),
              handle.pointers.begin() + static_cast<ptrdiff_t>(state.slots.size()));
}

void bind_slot(const ExecutablePlan &state, fe_handle &handle, int32_t slot, void *pointer, const char *how) {
    const fe_tensor *t = state.slots[static_cast<size_t>(slot)];
    FE_CHECK(pointer != nullptr, FE_STATUS_NULL_POINTER, "the device pointer bound to '%s' is NULL", t->name.c_str());
    if ((reinterpret_cast<uintptr_t>(pointer) & static_cast<uintptr_t>(t->alignment - 1)) != 0) {
        FE_CHECK(t->alignment == 16, FE_STATUS_MISALIGNED,
                 "the device pointer bound to '%s' (%p) is not %lld-byte aligned, as the tensor promises "
                 "(fe_tensor_set_alignment)",
                 t->name.c_str(), pointer, static_cast<long long>(t->alignment));
        FE_FAIL(FE_STATUS_MISALIGNED, "the device pointer bound to '%s' (%p) is not 16-byte aligned", t->name.c_str(),
                pointer);
    }
    void *&target = handle.pointers[static_cast<size_t>(slot)];
    FE_CHECK(target == nullptr, FE_STATUS_DUPLICATE, "'%s' is bound twice (%s)", t->name.c_str(), how);
    target = pointer;
}

// An output sharing bytes with an input or another output races inside cuDNN's kernels;
// only the pairs an op documents as in place may share.
void check_no_overlap(const ExecutablePlan &state, const fe_handle &handle) {
    BoundSlots bound{handle.pointers.data(), state.slot_bytes.data(), state.input_slots, state.slots.size()};
    std::pair<int32_t, int32_t> clash = find_overlapping_slots(bound, state.shared_slots);
    if (clash.first < 0) return;
    const fe_tensor *a = state.slots[static_cast<size_t>(clash.first)], *b = state.slots[static_cast<size_t>(clash.second)];
    FE_FAIL(FE_STATUS_INVALID_ARGUMENT,
            "the memory bound to %s '%s' (%p) overlaps the memory bound to output '%s' (%p); an output needs its "
            "own memory unless its operation updates that input in place",
            static_cast<size_t>(clash.first) < state.input_slots ? "input" : "output", a->name.c_str(),
            handle.pointers[static_cast<size_t>(clash.first)], b->name.c_str(),
            handle.pointers[static_cast<size_t>(clash.second)]);
}

// The managed workspace grows by freeing and allocating, which a stream capturing a CUDA graph
// must not see: the capture would fail, or the graph would keep the freed address.
void *managed_workspace(const fe_graph &graph, fe_handle &handle, int64_t bytes) {
    if (bytes > handle.workspace_bytes) {
        FE_CHECK(!stream_capturing(handle), FE_STATUS_BAD_STATE,
                 "graph '%s' needs %lld bytes of workspace and the handle's stream is capturing a CUDA graph, "
                 "where the managed workspace cannot grow: call fe_graph_warmup before the capture, or pass a "
                 "workspace",
                 graph.name.c_str(), static_cast<long long>(bytes));
    }
    return handle.ensure_workspace(bytes);
}

// Binds what the library places (workspace tensors, slices), makes or reuses the variant pack,
// and returns the workspace the pack holds.
void *prepare(fe_graph &graph, const ExecutablePlan &state, fe_handle &handle, void *workspace,
              const Action &action) {
    for (size_t i = 0; i < state.slots.size(); ++i)
        FE_CHECK(handle.pointers[i] != nullptr, FE_STATUS_INVALID_ARGUMENT,
                 "no device pointer is bound to '%s' (uid %lld)", state.slots[i]->name.c_str(),
                 static_cast<long long>(state.slots[i]->uid));
    int64_t workspace_bytes = state.total_workspace();
    if (action.kind != Action::Execute) {
        // A CUDA graph keeps the addresses it was given; the managed workspace may move.
        FE_CHECK(workspace != nullptr || workspace_bytes == 0, FE_STATUS_NULL_POINTER,
                 "graph '%s' needs a workspace of %lld bytes that lives as long as the CUDA graph; the handle's "
                 "managed workspace can move, so pass one",
                 graph.name.c_str(), static_cast<long long>(workspace_bytes));
    }
    if (workspace == nullptr && workspace_bytes > 0) workspace = managed_workspace(graph, handle, workspace_bytes);
    FE_CHECK(workspace == nullptr || (reinterpret_cast<uintptr_t>(workspace) & 15u) == 0, FE_STATUS_MISALIGNED,
             "the workspace pointer %p is not 16-byte aligned", workspace);
    handle.make_current();
    if (!state.workspace_tensors.empty()) {
        // Tensors cuDNN keeps in memory between its kernels, placed after the plan's workspace.
        char *base = static_cast<char *>(workspace) + state.workspace_tensor_base();
        size_t first = state.slots.size() + state.by_value_pointers.size();
        for (size_t i = 0; i < state.workspace_tensors.size(); ++i) {
            const WorkspaceTensor &w = state.workspace_tensors[i];
            handle.pointers[first + i] = base + w.offset;
            if (!w.zero_before_run) continue;
            FE_CHECK(action.kind == Action::Execute, FE_STATUS_NOT_SUPPORTED,
                     "graph '%s' clears an accumulator in its workspace before cuDNN runs (%s), which a CUDA graph "
                     "populated by cuDNN would not do: capture fe_graph_execute on a stream instead",
                     graph.name.c_str(),
                     refusal(Feature::sdpa_backward_zeroes_dq_accumulator, static_cast<int64_t>(cudnn().cudnnGetVersion()))
                         .c_str());
            check_cuda(cuda().cudaMemsetAsync(base + w.offset, 0, static_cast<size_t>(w.bytes), handle.stream),
                       "cudaMemsetAsync (zeroing an accumulator in the workspace)");
        }
    }

    if (!state.slice_views.empty()) {
        // A slice is read at its input's address plus its offset.
        size_t first = state.slots.size() + state.by_value_pointers.size() + state.workspace_tensors.size();
        for (size_t i = 0; i < state.slice_views.size(); ++i) {
            const SliceView &v = state.slice_views[i];
            handle.pointers[first + i] =
                static_cast<char *>(handle.pointers[static_cast<size_t>(v.source_slot)]) + v.byte_offset;
        }
    }

    size_t total = state.uids.size();
    fe_handle::CachedPack *hit = nullptr;
    for (fe_handle::CachedPack &c : handle.packs)
        if (c.build_id == state.build_id && c.workspace == workspace && c.pointers.size() == total &&
            std::equal(c.pointers.begin(), c.pointers.end(), handle.pointers.begin())) {
            hit = &c;
            break;
        }
    if (!hit) {
        // Bindings a cached pack holds passed this check when it was made.
        check_no_overlap(state, handle);
        const int64_t *uids = state.uids.data();
        void *const *pointers = handle.pointers.data();
        size_t count = total;
        if (!state.pack_positions.empty()) {
            for (size_t i = 0; i < state.pack_positions.size(); ++i)
                handle.pack_pointers[i] = handle.pointers[static_cast<size_t>(state.pack_positions[i])];
            uids = state.pack_uids.data();
            pointers = handle.pack_pointers.data();
            count = state.pack_positions.size();
        }
        Descriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
        pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, static_cast<int64_t>(count), uids,
                 "CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS");
        pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, static_cast<int64_t>(count), pointers,
                 "CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS");
        pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace,
                 "CUDNN_ATTR_VARIANT_PACK_WORKSPACE");
        pack.finalize("finalizing the variant pack", FE_STATUS_CUDNN_ERROR);
        hit = &handle.packs[handle.next_pack];
        handle.next_pack = (handle.next_pack + 1) % handle.packs.size();
        hit->pack = std::move(pack);
        hit->pointers.assign(handle.pointers.begin(), handle.pointers.begin() + static_cast<ptrdiff_t>(total));
        hit->workspace = workspace;
        hit->build_id = state.build_id;
    }
    handle.current = hit;
    return workspace;
}

// A caller's CUDA graph for populate: empty, so that the graph holds this plan's work only.
void require_empty(const fe_graph &graph, void *cuda_graph) {
    size_t nodes = 0;
    check_cuda(cuda().cudaGraphGetNodes(cuda_graph, nullptr, &nodes), "cudaGraphGetNodes (the CUDA graph given)");
    FE_CHECK(nodes == 0, FE_STATUS_INVALID_ARGUMENT,
             "the CUDA graph given for graph '%s' already has %zu nodes; populate an empty one (cudaGraphCreate) "
             "and add it to a larger graph as a child graph node",
             graph.name.c_str(), nodes);
}

void run(fe_graph &graph, const ExecutablePlan &state, fe_handle &handle, void *workspace, const Action &action) {
    if (action.kind != Action::Execute) {
        require(Feature::native_cuda_graph, static_cast<int64_t>(cudnn().cudnnGetVersion()));
        FE_CHECK(action.cuda_graph != nullptr, FE_STATUS_NULL_POINTER, "the CUDA graph is NULL");
        if (action.kind == Action::Populate) require_empty(graph, action.cuda_graph);
    }
    prepare(graph, state, handle, workspace, action);
    const Plan &plan = state.chosen();
    const Cudnn &api = cudnn();
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    const char *call = "cudnnBackendExecute";
    switch (action.kind) {
        case Action::Execute:
            st = api.cudnnBackendExecute(handle.cudnn, plan.plan->get(), handle.current->pack.get());
            break;
        case Action::Populate:
            call = "cudnnBackendPopulateCudaGraph";
            st = api.cudnnBackendPopulateCudaGraph(handle.cudnn, plan.plan->get(), handle.current->pack.get(),
                                                   static_cast<cudaGraph_t>(action.cuda_graph));
            break;
        case Action::Update:
            call = "cudnnBackendUpdateCudaGraph";
            st = api.cudnnBackendUpdateCudaGraph(handle.cudnn, plan.plan->get(), handle.current->pack.get(),
                                                 static_cast<cudaGraph_t>(action.cuda_graph));
            break;
    }
    if (st != CUDNN_STATUS_SUCCESS) {
        handle.current->build_id = 0;  // cuDNN refused it: build it again next time
        FE_CHECK(st != CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API, FE_STATUS_NOT_SUPPORTED,
                 "graph '%s': its plan's engine (%s) cannot add its work to a CUDA graph itself (its behaviour notes "
                 "lack CUDNN_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API): capture fe_graph_execute on a stream "
                 "instead",
                 graph.name.c_str(), plan.tag.c_str());
        FE_CHECK(!(action.kind == Action::Update && st == CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH),
                 FE_STATUS_INVALID_ARGUMENT,
                 "graph '%s': the CUDA graph given was not populated with this graph's plan (%s)", graph.name.c_str(),
                 cudnn_last_error_text().c_str());
        std::string what = "graph '" + graph.name + "': " + call;
        check_cudnn(st, what.c_str());
    }
    FE_LOG_DEBUG("graph '%s' %s with %s", graph.name.c_str(),
                 action.kind == Action::Execute ? "executed" : action.kind == Action::Populate ? "populated a CUDA graph"
                                                                                               : "updated a CUDA graph",
                 plan.tag.c_str());
}

// Tensor `i` of the bindings, checked to be one of the graph's that takes memory (`what`: a
// pointer, a buffer).
const fe_tensor &bound_tensor(const fe_graph &graph, const fe_tensor *t, size_t i, const char *what) {
    FE_CHECK(t != nullptr, FE_STATUS_NULL_POINTER, "tensor %zu of the bindings is NULL", i);
    FE_CHECK(t->graph == &graph, FE_STATUS_NOT_FOUND, "'%s' belongs to another graph", t->name.c_str());
    FE_CHECK(t->slot >= 0, FE_STATUS_INVALID_ARGUMENT, "'%s' is %s and takes no %s", t->name.c_str(),
             t->by_value ? "a scalar passed by value" : "virtual (an intermediate result)", what);
    return *t;
}

}  // namespace

void execute_by_tensors(fe_graph &graph, fe_handle &handle, fe_tensor *const *tensors, void *const *pointers,
                        size_t count, void *workspace, const Action &action) {
    const ExecutablePlan &state = executing_plan(graph, handle, workspace, action);
    begin_binding(state, handle);
    for (size_t i = 0; i < count; ++i)
        bind_slot(state, handle, bound_tensor(graph, tensors[i], i, "pointer").slot, pointers[i], "by tensor");
    run(graph, state, handle, workspace, action);
}

void execute_by_buffers(fe_graph &graph, fe_handle &handle, fe_tensor *const *tensors, fe_buffer *const *buffers,
                        size_t count, void *workspace, const Action &action) {
    const ExecutablePlan &state = executing_plan(graph, handle, workspace, action);
    begin_binding(state, handle);
    for (size_t i = 0; i < count; ++i) {
        const fe_tensor *t = &bound_tensor(graph, tensors[i], i, "buffer");
        const fe_buffer *b = buffers[i];
        FE_CHECK(b != nullptr, FE_STATUS_NULL_POINTER, "buffer %zu of the bindings (for '%s') is NULL", i,
                 t->name.c_str());
        FE_CHECK(b->device == handle.device || t->peer_memory, FE_STATUS_INVALID_ARGUMENT,
                 "the buffer for '%s' is on device %d, the handle on device %d", t->name.c_str(), b->device,
                 handle.device);
        int64_t need = state.slot_bytes[static_cast<size_t>(t->slot)];
        FE_CHECK(b->bytes >= need, FE_STATUS_BUFFER_TOO_SMALL, "the buffer for '%s' has %lld bytes; the tensor needs %lld",
                 t->name.c_str(), static_cast<long long>(b->bytes), static_cast<long long>(need));
        bind_slot(state, handle, t->slot, b->pointer, "by tensor");
    }
    run(graph, state, handle, workspace, action);
}

void execute_by_uids(fe_graph &graph, fe_handle &handle, const int64_t *uids, void *const *pointers, size_t count,
                     void *workspace, const Action &action) {
    const ExecutablePlan &state = executing_plan(graph, handle, workspace, action);
    begin_binding(state, handle);
    for (size_t i = 0; i < count; ++i) {
        auto it = std::lower_bound(state.uid_to_slot.begin(), state.uid_to_slot.end(),
                                   std::make_pair(uids[i], INT32_MIN));
        FE_CHECK(it != state.uid_to_slot.end() && it->first == uids[i], FE_STATUS_NOT_FOUND,
                 "graph '%s' has no input or output with uid %lld", graph.name.c_str(),
                 static_cast<long long>(uids[i]));
        bind_slot(state, handle, it->second, pointers[i], "by uid");
    }
    run(graph, state, handle, workspace, action);
}

void execute_positional(fe_graph &graph, fe_handle &handle, void *const *pointers, size_t count, void *workspace, const Action &action) {
    const ExecutablePlan &state = executing_plan(graph, handle, workspace, action);
    FE_CHECK(count == state.slots.size(), FE_STATUS_INVALID_ARGUMENT,
             "graph '%s' takes %zu pointers (%zu inputs, then %zu outputs), %zu given", graph.name.c_str(),
             state.slots.size(), graph.inputs.size(), graph.outputs.size(), count);
    begin_binding(state, handle);
    for (size_t i = 0; i < count; ++i) bind_slot(state, handle, static_cast<int32_t>(i), pointers[i], "positionally");
    run(graph, state, handle, workspace, action);
}

}  // namespace fe

namespace fe {

void warmup(fe_graph &graph, fe_handle &handle) {
    const ExecutablePlan &state = built_state(graph, handle);
    int64_t bytes = state.total_workspace();
    // A static plan built in the background may run instead: room for either.
    if (const ExecutablePlan *fast = graph.static_plan.load(std::memory_order_acquire))
        bytes = std::max(bytes, fast->total_workspace());
    if (bytes > 0) managed_workspace(graph, handle, bytes);
    handle.make_current();
}

}  // namespace fe
