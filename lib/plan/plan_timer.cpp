#include "plan/plan_timer.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "plan/timing_inputs.hpp"
#include "runtime/handle.hpp"

namespace fe {

// Random values rather than zeros: a tensor core's power draw, and so the clock it holds under
// load, depends on the data, and kernels differ in how much. On zeros, the cluster shapes of
// one ResNet-50 wgrad layer timed within 1% of one another; on random data, as a caller runs
// them, they are up to 5% apart.
void PlanTimer::fill(void *device, int64_t bytes, fe_data_type type) {
    const CudaRuntime &rt = cuda();
    size_t size = data_type_size(type);
    if (size == 0) {  // not a type a tensor can have once validated; zeros all the same
        check_cuda(rt.cudaMemset(device, 0, static_cast<size_t>(bytes)), "cudaMemset (autotune inputs)");
        return;
    }
    std::vector<unsigned char> &pattern = patterns_[type];
    if (pattern.empty()) pattern = timing_values(type, size, kPatternBytes / size);
    int64_t first = std::min<int64_t>(bytes, static_cast<int64_t>(pattern.size()));
    char *base = static_cast<char *>(device);
    check_cuda(rt.cudaMemcpy(base, pattern.data(), static_cast<size_t>(first), kCudaMemcpyHostToDevice),
               "cudaMemcpy (autotune inputs)");
    for (int64_t done = first; done < bytes; done *= 2)  // doubling copies on the device
        check_cuda(rt.cudaMemcpy(base + done, base, static_cast<size_t>(std::min(done, bytes - done)),
                                 kCudaMemcpyDeviceToDevice),
                   "cudaMemcpy (autotune inputs)");
}

PlanTimer::PlanTimer(const fe_graph &graph, fe_handle &handle, int32_t warmup, int32_t iterations)
    : graph_(graph), handle_(handle), warmup_(warmup), iterations_(iterations) {
    const CudaRuntime &rt = cuda();
    try {
        check_cuda(rt.cudaStreamCreateWithFlags(&stream_, kCudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        check_cuda(rt.cudaEventCreate(&start_), "cudaEventCreate");
        check_cuda(rt.cudaEventCreate(&stop_), "cudaEventCreate");
        check_cudnn(cudnn().cudnnSetStream(handle_.cudnn, static_cast<cudaStream_t>(stream_)),
                    "cudnnSetStream (autotuning's stream)");

        // Inputs get up to kMaxInputCopies copies within the budget; outputs one: each run of a
        // burst reads inputs that are not all in L2 and writes where the last run wrote.
        const BuildState &state = *graph.build;
        int64_t input_bytes = 0;
        std::vector<int64_t> bytes(state.executable.slots.size());
        for (size_t i = 0; i < state.executable.slots.size(); ++i) {
            const fe_tensor *t = state.executable.slots[i];
            bytes[i] = std::max<int64_t>(state.executable.slot_bytes[i] > 0 ? state.executable.slot_bytes[i]
                                                                 : tensor_bytes(*t),
                                         256);
            if (t->is_input()) input_bytes += bytes[i];
        }
        // The first set: every slot. Each further copy of the inputs is one block, made only
        // while memory allows: on a nearly full GPU, autotuning times on fewer copies rather
        // than failing.
        std::vector<void *> first;
        for (size_t i = 0; i < state.executable.slots.size(); ++i) {
            first.push_back(allocate(bytes[i]));
            if (state.executable.slots[i]->is_input()) {
                fill(first.back(), bytes[i], state.executable.slots[i]->data_type);
            } else {
                check_cuda(rt.cudaMemsetAsync(first.back(), 0, static_cast<size_t>(bytes[i]), stream_),
                           "cudaMemsetAsync");
            }
        }
        slot_copies_.push_back(first);
        int64_t copy_bytes = 0;
        for (size_t i = 0; i < state.executable.slots.size(); ++i)
            if (state.executable.slots[i]->is_input()) copy_bytes += (bytes[i] + 255) / 256 * 256;
        flush_ = allocate(static_cast<int64_t>(kFlushBytes));
        for (int c = 1; c < kMaxInputCopies && copy_bytes > 0 && input_bytes * c <= kInputCopyBudget; ++c) {
            char *block = static_cast<char *>(try_allocate(copy_bytes));
            if (!block) break;
            std::vector<void *> pointers = first;  // outputs stay shared
            for (size_t i = 0; i < state.executable.slots.size(); ++i) {
                if (!state.executable.slots[i]->is_input()) continue;
                pointers[i] = block;
                fill(block, bytes[i], state.executable.slots[i]->data_type);
                block += (bytes[i] + 255) / 256 * 256;
            }
            slot_copies_.push_back(std::move(pointers));
        }
        // The fills ran on the legacy stream, which the private stream does not wait for.
        check_cuda(rt.cudaStreamSynchronize(nullptr), "cudaStreamSynchronize (autotune inputs)");
    } catch (...) {
        release();  // a constructor that throws gets no destructor call
        throw;
    }
}

PlanTimer::~PlanTimer() { release(); }

void PlanTimer::release() {
    const CudaRuntime &rt = cuda();
    if (stream_) rt.cudaStreamSynchronize(stream_);
    if (handle_.cudnn) cudnn().cudnnSetStream(handle_.cudnn, static_cast<cudaStream_t>(handle_.stream));
    packs_.clear();
    for (void *p : blocks_) rt.cudaFree(p);
    blocks_.clear();
    if (start_) rt.cudaEventDestroy(start_);
    if (stop_) rt.cudaEventDestroy(stop_);
    if (stream_) rt.cudaStreamDestroy(stream_);
    start_ = stop_ = stream_ = nullptr;
}

void *PlanTimer::try_allocate(int64_t bytes) {
    void *p = nullptr;
    if (cuda().cudaMalloc(&p, static_cast<size_t>(std::max<int64_t>(bytes, 256))) != 0) {
        cuda().cudaGetLastError();  // out of memory is not sticky: clear it and go on
        return nullptr;
    }
    blocks_.push_back(p);
    return p;
}

void *PlanTimer::allocate(int64_t bytes) {
    void *p = nullptr;
    check_cuda(cuda().cudaMalloc(&p, static_cast<size_t>(std::max<int64_t>(bytes, 256))), "cudaMalloc (autotune scratch)");
    blocks_.push_back(p);
    return p;
}

void PlanTimer::execute(const Plan &plan, const Descriptor &pack) {
    cudnnStatus_t st = cudnn().cudnnBackendExecute(handle_.cudnn, plan.plan->get(), pack.get());
    if (st != CUDNN_STATUS_SUCCESS) {
        std::string what = format("graph '%s': running plan %s while autotuning", graph_.name.c_str(), plan.tag.c_str());
        check_cudnn(st, what.c_str());
    }
}

template <typename Enqueue>
double PlanTimer::elapsed_us(Enqueue &&enqueue) {
    const CudaRuntime &rt = cuda();
    check_cuda(rt.cudaEventRecord(start_, stream_), "cudaEventRecord");
    enqueue();
    check_cuda(rt.cudaEventRecord(stop_, stream_), "cudaEventRecord");
    check_cuda(rt.cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(rt.cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms * 1000.0;
}

bool PlanTimer::runs(const Plan &plan) {
    bind_workspace_for(plan);
    cudnnStatus_t st = cudnn().cudnnBackendExecute(handle_.cudnn, plan.plan->get(), packs_[0].get());
    if (st != CUDNN_STATUS_SUCCESS)
        FE_LOG_DEBUG("graph '%s': plan %s does not run: %s", graph_.name.c_str(), plan.tag.c_str(),
                     cudnn().cudnnGetErrorString(st));
    return st == CUDNN_STATUS_SUCCESS;
}

double PlanTimer::time_cold(const Plan &plan) {
    bind_workspace_for(plan);
    const CudaRuntime &rt = cuda();
    for (int32_t i = 0; i < warmup_; ++i) execute(plan, packs_[0]);
    std::vector<double> runs;
    for (int32_t i = 0; i < iterations_; ++i) {
        check_cuda(rt.cudaMemsetAsync(flush_, i & 0xff, kFlushBytes, stream_), "cudaMemsetAsync (L2 flush)");
        runs.push_back(elapsed_us([&] { execute(plan, packs_[0]); }));
    }
    double median = median_of(runs);
    FE_LOG_INFO("graph '%s': plan %s: %.2f us median of %d after an L2 flush", graph_.name.c_str(), plan.tag.c_str(),
                median, iterations_);
    return median;
}

void *PlanTimer::capture_burst(const Plan &plan, int runs) {
    const CudaRuntime &rt = cuda();
    if (rt.cudaStreamBeginCapture(stream_, kCudaStreamCaptureModeThreadLocal) != 0) {
        rt.cudaGetLastError();
        return nullptr;
    }
    bool enqueued = true;
    for (int i = 0; i < runs && enqueued; ++i)
        enqueued = cudnn().cudnnBackendExecute(handle_.cudnn, plan.plan->get(), packs_[i % packs_.size()].get()) ==
                   CUDNN_STATUS_SUCCESS;
    void *captured = nullptr, *replay = nullptr;
    int ended = rt.cudaStreamEndCapture(stream_, &captured);  // always: it leaves capture mode
    if (enqueued && ended == 0 && captured) rt.cudaGraphInstantiate(&replay, captured, 0);
    if (captured) rt.cudaGraphDestroy(captured);
    if (!replay) {
        rt.cudaGetLastError();
        FE_LOG_DEBUG("graph '%s': plan %s was not captured in a CUDA graph; its burst runs eagerly",
                     graph_.name.c_str(), plan.tag.c_str());
    }
    return replay;
}

double PlanTimer::time_back_to_back(const Plan &plan, double cold_us) {
    bind_workspace_for(plan);
    const CudaRuntime &rt = cuda();
    const BurstShape shape = burst_shape(cold_us, iterations_);
    const int runs = shape.runs;
    const int32_t bursts = shape.bursts;
    void *replay = capture_burst(plan, runs);
    auto burst = [&] {
        if (replay) {
            check_cuda(rt.cudaGraphLaunch(replay, stream_), "cudaGraphLaunch");
        } else {
            for (int i = 0; i < runs; ++i) execute(plan, packs_[i % packs_.size()]);
        }
    };
    std::vector<double> per_run_us;
    double busy_us = 0;
    try {
        burst();  // warm-up: the graph's first launch uploads it
        for (int32_t i = 0; i < bursts; ++i) {
            per_run_us.push_back(elapsed_us(burst) / runs);
            busy_us += per_run_us.back() * runs;
        }
    } catch (...) {
        if (replay) rt.cudaGraphExecDestroy(replay);
        throw;
    }
    if (replay) rt.cudaGraphExecDestroy(replay);
    // Rest as long as the bursts ran. Tens of milliseconds of dense tensor-core work on random
    // data bring an H100 to its power limit, and its clock down: timed one after another, the
    // contenders after the sixth ran about 10% slower than the first ones, whatever their
    // merit. At half duty each contender is timed at the clock a benchmark (or a layer among
    // lighter ones) runs it at.
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(busy_us)));
    double median = median_of(per_run_us);
    FE_LOG_INFO("graph '%s': plan %s: %.2f us per run back to back (median of %d bursts of %d%s)",
                graph_.name.c_str(), plan.tag.c_str(), median, bursts, runs,
                replay ? ", graph-captured" : "");
    return median;
}

void PlanTimer::bind_workspace_for(const Plan &plan) {
    if (packs_.empty() || plan.workspace > workspace_bytes_) bind_workspace(plan.workspace);
}

// (Re)make the variant packs with a workspace of at least `plan_workspace` bytes followed by
// the graph's workspace tensors, one per copy of the inputs.
void PlanTimer::bind_workspace(int64_t plan_workspace) {
    const BuildState &state = *graph_.build;
    int64_t base = (plan_workspace + 255) / 256 * 256;
    // The old packs may still be in use by queued runs; their workspace stays allocated.
    char *workspace = static_cast<char *>(allocate(base + state.executable.workspace_tensor_bytes));
    workspace_bytes_ = base;
    packs_.clear();
    for (const std::vector<void *> &slots : slot_copies_) {
        std::vector<void *> pointers = slots;
        pointers.insert(pointers.end(), state.executable.by_value_pointers.begin(), state.executable.by_value_pointers.end());
        for (const WorkspaceTensor &w : state.executable.workspace_tensors) pointers.push_back(workspace + base + w.offset);
        for (const SliceView &v : state.executable.slice_views)
            pointers.push_back(static_cast<char *>(pointers[static_cast<size_t>(v.source_slot)]) + v.byte_offset);
        std::vector<int64_t> uids = state.executable.uids;
        if (!state.executable.pack_positions.empty()) {  // inputs read only through slices stay out of the pack
            uids = state.executable.pack_uids;
            std::vector<void *> packed;
            for (int32_t p : state.executable.pack_positions) packed.push_back(pointers[static_cast<size_t>(p)]);
            pointers.swap(packed);
        }
        Descriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
        pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, static_cast<int64_t>(uids.size()),
                 uids.data(), "CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS");
        pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, static_cast<int64_t>(pointers.size()),
                 pointers.data(), "CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS");
        void *ws = workspace;
        pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws, "CUDNN_ATTR_VARIANT_PACK_WORKSPACE");
        pack.finalize("finalizing the autotuning variant pack", FE_STATUS_CUDNN_ERROR);
        packs_.push_back(std::move(pack));
    }
}

}  // namespace fe
