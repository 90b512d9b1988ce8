#include "plan/autotune.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "plan/build_state.hpp"
#include "runtime/handle.hpp"

namespace fe {

namespace {

// Device memory freed on every exit path.
struct Scratch {
    std::vector<void *> blocks;
    ~Scratch() {
        for (void *p : blocks) cuda().cudaFree(p);
    }
    void *allocate(int64_t bytes) {
        void *p = nullptr;
        check_cuda(cuda().cudaMalloc(&p, static_cast<size_t>(std::max<int64_t>(bytes, 256))), "cudaMalloc (autotune scratch)");
        blocks.push_back(p);
        return p;
    }
};

struct Events {
    void *start = nullptr, *stop = nullptr;
    Events() {
        check_cuda(cuda().cudaEventCreate(&start), "cudaEventCreate");
        check_cuda(cuda().cudaEventCreate(&stop), "cudaEventCreate");
    }
    ~Events() {
        if (start) cuda().cudaEventDestroy(start);
        if (stop) cuda().cudaEventDestroy(stop);
    }
};

void execute_plan(fe_handle &handle, const Plan &plan, const Descriptor &pack, const char *graph_name) {
    cudnnStatus_t st = cudnn().cudnnBackendExecute(handle.cudnn, plan.plan->get(), pack.get());
    if (st != CUDNN_STATUS_SUCCESS) {
        std::string what = format("graph '%s': running plan %s while autotuning", graph_name, plan.tag.c_str());
        check_cudnn(st, what.c_str());
    }
}

}  // namespace

void keep_best_candidates(fe_graph &graph, int64_t max_candidates) {
    int64_t kept = 0;
    for (Candidate &c : graph.build->candidates) {
        if (!c.viable) continue;
        if (++kept > max_candidates) {
            c.viable = false;
            c.reason = "beyond the autotuning limit";
        }
    }
}

double autotune(fe_graph &graph, fe_handle &handle, int32_t warmup, int32_t iterations) {
    FE_CHECK(graph.stage == fe_graph::Stage::Built && graph.build, FE_STATUS_BAD_STATE,
             "graph '%s' is not built: call fe_graph_build (or the build steps) first", graph.name.c_str());
    BuildState &state = *graph.build;
    FE_CHECK(state.plans.front().plan, FE_STATUS_BAD_STATE, "graph '%s' has no plan to time", graph.name.c_str());
    FE_CHECK(!state.device_properties, FE_STATUS_BAD_STATE,
             "graph '%s' was built for a described GPU, not this one: autotuning runs its plans", graph.name.c_str());
    if (warmup < 0) warmup = 3;
    if (iterations <= 0) iterations = 10;
    handle.make_current();
    const CudaRuntime &rt = cuda();

    // Inputs and outputs in scratch memory: zeros (the safe value for integer inputs such as
    // sequence lengths and page tables); the timing of dense kernels does not depend on values.
    Scratch scratch;
    std::vector<void *> pointers;
    for (size_t i = 0; i < state.slots.size(); ++i) {
        const fe_tensor *t = state.slots[i];
        int64_t bytes = state.slot_bytes[i] > 0 ? state.slot_bytes[i] : span_bytes(t->dims, t->strides, t->data_type);
        pointers.push_back(scratch.allocate(bytes));
        check_cuda(rt.cudaMemset(pointers.back(), 0, static_cast<size_t>(std::max<int64_t>(bytes, 256))), "cudaMemset");
    }
    pointers.insert(pointers.end(), state.by_value_pointers.begin(), state.by_value_pointers.end());
    int64_t plan_workspace = 0;
    for (const Plan &p : state.plans) plan_workspace = std::max(plan_workspace, p.workspace);
    int64_t base = (plan_workspace + 255) / 256 * 256;
    char *workspace = static_cast<char *>(scratch.allocate(base + state.workspace_tensor_bytes));
    for (const WorkspaceTensor &w : state.workspace_tensors) pointers.push_back(workspace + base + w.offset);
    for (const SliceView &v : state.slice_views)
        pointers.push_back(static_cast<char *>(pointers[static_cast<size_t>(v.source_slot)]) + v.byte_offset);
    std::vector<int64_t> uids = state.uids;
    if (!state.pack_positions.empty()) {  // inputs read only through slices stay out of the pack
        uids = state.pack_uids;
        std::vector<void *> packed;
        for (int32_t p : state.pack_positions) packed.push_back(pointers[static_cast<size_t>(p)]);
        pointers.swap(packed);
    }

    Descriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, static_cast<int64_t>(uids.size()), uids.data(),
             "CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS");
    pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, static_cast<int64_t>(pointers.size()),
             pointers.data(), "CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS");
    void *ws = workspace;
    pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws, "CUDNN_ATTR_VARIANT_PACK_WORKSPACE");
    pack.finalize("finalizing the autotuning variant pack", FE_STATUS_CUDNN_ERROR);

    // Each timed run starts with a cold L2: the data a layer reads in a network (and in any
    // benchmark that rotates its inputs) is mostly not in cache, and timing every candidate on
    // cache-resident buffers favours kernels that lose once the data comes from memory.
    const size_t flush_bytes = size_t{128} << 20;  // more than twice the L2 of current GPUs
    void *flush = scratch.allocate(static_cast<int64_t>(flush_bytes));
    Events events;
    std::vector<double> medians;
    for (const Plan &plan : state.plans) {
        for (int32_t i = 0; i < warmup; ++i) execute_plan(handle, plan, pack, graph.name.c_str());
        std::vector<double> runs;
        for (int32_t i = 0; i < iterations; ++i) {
            check_cuda(rt.cudaMemsetAsync(flush, i & 0xff, flush_bytes, handle.stream), "cudaMemsetAsync (L2 flush)");
            check_cuda(rt.cudaEventRecord(events.start, handle.stream), "cudaEventRecord");
            execute_plan(handle, plan, pack, graph.name.c_str());
            check_cuda(rt.cudaEventRecord(events.stop, handle.stream), "cudaEventRecord");
            check_cuda(rt.cudaEventSynchronize(events.stop), "cudaEventSynchronize");
            float ms = 0;
            check_cuda(rt.cudaEventElapsedTime(&ms, events.start, events.stop), "cudaEventElapsedTime");
            runs.push_back(ms * 1000.0);
        }
        std::nth_element(runs.begin(), runs.begin() + static_cast<ptrdiff_t>(runs.size() / 2), runs.end());
        medians.push_back(runs[runs.size() / 2]);
        FE_LOG_INFO("graph '%s': plan %s: %.2f us median of %d", graph.name.c_str(), plan.tag.c_str(), medians.back(),
                    iterations);
    }
    // Stable: ties keep the heuristics' order.
    std::vector<size_t> order(state.plans.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return medians[a] < medians[b]; });
    std::vector<Plan> plans;
    std::vector<double> times;
    for (size_t i : order) {
        plans.push_back(std::move(state.plans[i]));
        times.push_back(medians[i]);
    }
    state.plans = std::move(plans);
    state.plan_times_us = std::move(times);
    state.build_id = next_build_id();  // the chosen plan changed: no cached variant pack applies
    FE_LOG_INFO("graph '%s': autotuned: %s at %.2f us (heuristics' first choice: %.2f us)", graph.name.c_str(),
                state.chosen().tag.c_str(), state.plan_times_us.front(), medians.front());
    return state.plan_times_us.front();
}

}  // namespace fe
