#include "plan/autotune.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <vector>

#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "plan/build_state.hpp"
#include "plan/engine_knobs.hpp"
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

namespace {

// A round tries the neighbours of the fastest plan of each of this many engines: the fastest
// engine's knobs may all be offered by heuristics already (one with a single workspace knob),
// while the runner-up engine's best tile shape is missing.
constexpr size_t kBasesPerRound = 3;

// Scratch inputs and outputs bound once, and the timing of one plan on them. Every timed run
// starts with a cold L2: the data a layer reads in a network (and in any benchmark that
// rotates its inputs) is mostly not in cache, and timing every candidate on cache-resident
// buffers favours kernels that lose once the data comes from memory.
class PlanTimer {
  public:
    PlanTimer(const fe_graph &graph, fe_handle &handle, int32_t warmup, int32_t iterations)
        : graph_(graph), handle_(handle), warmup_(warmup), iterations_(iterations) {
        const BuildState &state = *graph.build;
        const CudaRuntime &rt = cuda();
        // Zeros: the safe value for integer inputs such as sequence lengths and page tables;
        // the timing of dense kernels does not depend on values.
        for (size_t i = 0; i < state.slots.size(); ++i) {
            const fe_tensor *t = state.slots[i];
            int64_t bytes = state.slot_bytes[i] > 0 ? state.slot_bytes[i] : span_bytes(t->dims, t->strides, t->data_type);
            slot_pointers_.push_back(scratch_.allocate(bytes));
            check_cuda(rt.cudaMemset(slot_pointers_.back(), 0, static_cast<size_t>(std::max<int64_t>(bytes, 256))),
                       "cudaMemset");
        }
        flush_ = scratch_.allocate(static_cast<int64_t>(kFlushBytes));
    }

    // The plan's median over `iterations` runs, in microseconds. A plan of the knob search
    // that cuDNN refuses to run returns a negative time instead of failing the build.
    double time(const Plan &plan, bool may_refuse = false) {
        if (!pack_ || plan.workspace > workspace_bytes_) bind_workspace(plan.workspace);
        const CudaRuntime &rt = cuda();
        if (may_refuse) {
            cudnnStatus_t st = cudnn().cudnnBackendExecute(handle_.cudnn, plan.plan->get(), pack_.get());
            if (st != CUDNN_STATUS_SUCCESS) {
                FE_LOG_DEBUG("graph '%s': plan %s does not run: %s", graph_.name.c_str(), plan.tag.c_str(),
                             cudnn().cudnnGetErrorString(st));
                return -1;
            }
        }
        for (int32_t i = 0; i < warmup_; ++i) execute_plan(handle_, plan, pack_, graph_.name.c_str());
        std::vector<double> runs;
        for (int32_t i = 0; i < iterations_; ++i) {
            check_cuda(rt.cudaMemsetAsync(flush_, i & 0xff, kFlushBytes, handle_.stream), "cudaMemsetAsync (L2 flush)");
            check_cuda(rt.cudaEventRecord(events_.start, handle_.stream), "cudaEventRecord");
            execute_plan(handle_, plan, pack_, graph_.name.c_str());
            check_cuda(rt.cudaEventRecord(events_.stop, handle_.stream), "cudaEventRecord");
            check_cuda(rt.cudaEventSynchronize(events_.stop), "cudaEventSynchronize");
            float ms = 0;
            check_cuda(rt.cudaEventElapsedTime(&ms, events_.start, events_.stop), "cudaEventElapsedTime");
            runs.push_back(ms * 1000.0);
        }
        std::nth_element(runs.begin(), runs.begin() + static_cast<ptrdiff_t>(runs.size() / 2), runs.end());
        double median = runs[runs.size() / 2];
        FE_LOG_INFO("graph '%s': plan %s: %.2f us median of %d", graph_.name.c_str(), plan.tag.c_str(), median,
                    iterations_);
        return median;
    }

  private:
    static constexpr size_t kFlushBytes = size_t{128} << 20;  // more than twice the L2 of current GPUs

    // (Re)make the variant pack with a workspace of at least `plan_workspace` bytes followed by
    // the graph's workspace tensors.
    void bind_workspace(int64_t plan_workspace) {
        const BuildState &state = *graph_.build;
        int64_t base = (plan_workspace + 255) / 256 * 256;
        char *workspace = static_cast<char *>(scratch_.allocate(base + state.workspace_tensor_bytes));
        workspace_bytes_ = base;
        std::vector<void *> pointers = slot_pointers_;
        pointers.insert(pointers.end(), state.by_value_pointers.begin(), state.by_value_pointers.end());
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
        pack_ = std::move(pack);
    }

    const fe_graph &graph_;
    fe_handle &handle_;
    int32_t warmup_, iterations_;
    Scratch scratch_;
    std::vector<void *> slot_pointers_;
    void *flush_ = nullptr;
    int64_t workspace_bytes_ = 0;
    Descriptor pack_;
    Events events_;
};

// The plan of the newest candidate, or false (the candidate marked not viable) when it does not
// build or needs more workspace than allowed.
bool plan_of_last_candidate(fe_graph &graph, int64_t max_workspace, Plan *out) {
    Candidate &c = graph.build->candidates.back();
    if (!plan_of(c, out)) {
        c.viable = false;
        return false;
    }
    if (max_workspace >= 0 && out->workspace > max_workspace) {
        c.viable = false;
        c.reason = "its plan needs more workspace than allowed";
        return false;
    }
    return true;
}

// Plan indices, fastest first (stable: ties keep the earlier plan first).
std::vector<size_t> fastest_first(const std::vector<double> &medians) {
    std::vector<size_t> order(medians.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return medians[a] < medians[b]; });
    return order;
}

// Local search in knob space: the configs one knob away from the fastest plans, timed; then
// around the fastest ones not yet expanded, while a round finds something faster. Heuristics
// offer a handful of tile and cluster shapes per engine; the best one for a shape is often a
// neighbour of theirs.
void search_knobs(fe_graph &graph, PlanTimer &timer, std::vector<double> &medians, const KnobSearch &search) {
    BuildState &state = *graph.build;
    std::vector<bool> expanded(state.plans.size(), false);
    std::map<int64_t, std::vector<KnobRange>> ranges_of;
    size_t before = state.plans.size();
    for (int32_t round = 0; round < search.rounds; ++round) {
        double best = *std::min_element(medians.begin(), medians.end());
        std::vector<size_t> bases;
        std::set<int64_t> engines;
        for (size_t i : fastest_first(medians)) {
            if (bases.size() == kBasesPerRound) break;
            if (!engines.insert(state.plans[i].engine_index).second) continue;  // one base per engine
            if (!expanded[i] && !state.plans[i].knobs.empty()) bases.push_back(i);
        }
        if (bases.empty()) break;
        size_t tried = 0;
        for (size_t b : bases) {
            expanded[b] = true;
            int64_t engine = state.plans[b].engine_index;
            std::vector<Knob> base_knobs = state.plans[b].knobs;
            if (!ranges_of.count(engine)) ranges_of[engine] = engine_knobs(graph, engine);
            for (const std::vector<Knob> &knobs : one_knob_neighbours(ranges_of[engine], base_knobs)) {
                std::string why;
                if (add_engine_candidate(graph, engine, knobs, &why) != CandidateResult::Added) continue;
                Plan p;
                if (!plan_of_last_candidate(graph, search.max_workspace, &p)) continue;
                double us = timer.time(p, true);
                if (us < 0) {
                    state.candidates.back().viable = false;
                    state.candidates.back().reason = "cuDNN refused to run its plan";
                    continue;
                }
                ++tried;
                medians.push_back(us);
                state.plans.push_back(std::move(p));
                expanded.push_back(false);
            }
        }
        double now = *std::min_element(medians.begin(), medians.end());
        FE_LOG_INFO("graph '%s': knob search round %d: %zu new plans timed, best %.2f us (was %.2f)",
                    graph.name.c_str(), round + 1, tried, now, best);
        if (now >= best) break;
    }
    FE_LOG_INFO("graph '%s': knob search timed %zu plans beyond the heuristics' %zu", graph.name.c_str(),
                state.plans.size() - before, before);
}

// The plans within a few percent of the fastest are often the same engine with another
// workspace or cluster knob, apart by less than one timing's noise: a choice made on one median
// each flips between builds. Time those contenders again, interleaved (so clock and thermal
// drift fall on all of them alike), and rank them by the median of their rounds.
void refine_contenders(fe_graph &graph, PlanTimer &timer, std::vector<double> &medians) {
    constexpr double kMargin = 1.03;     // contenders: within 3% of the fastest
    constexpr size_t kMaxContenders = 6;
    constexpr int kRounds = 5;
    const std::vector<Plan> &plans = graph.build->plans;
    double best = *std::min_element(medians.begin(), medians.end());
    std::vector<size_t> contenders;
    for (size_t i : fastest_first(medians))
        if (medians[i] <= best * kMargin && contenders.size() < kMaxContenders) contenders.push_back(i);
    if (contenders.size() < 2) return;
    std::vector<std::vector<double>> rounds(contenders.size());
    for (int r = 0; r < kRounds; ++r)
        for (size_t c = 0; c < contenders.size(); ++c) rounds[c].push_back(timer.time(plans[contenders[c]]));
    for (size_t c = 0; c < contenders.size(); ++c) {
        std::vector<double> &times = rounds[c];
        times.push_back(medians[contenders[c]]);  // the first timing counts as one round
        std::nth_element(times.begin(), times.begin() + static_cast<ptrdiff_t>(times.size() / 2), times.end());
        medians[contenders[c]] = times[times.size() / 2];
    }
    FE_LOG_INFO("graph '%s': %zu contenders within %.0f%% of the fastest timed again in %d interleaved rounds",
                graph.name.c_str(), contenders.size(), (kMargin - 1) * 100, kRounds);
}

}  // namespace

double autotune(fe_graph &graph, fe_handle &handle, int32_t warmup, int32_t iterations, const KnobSearch &search) {
    FE_CHECK(graph.stage == fe_graph::Stage::Built && graph.build, FE_STATUS_BAD_STATE,
             "graph '%s' is not built: call fe_graph_build (or the build steps) first", graph.name.c_str());
    BuildState &state = *graph.build;
    FE_CHECK(state.plans.front().plan, FE_STATUS_BAD_STATE, "graph '%s' has no plan to time", graph.name.c_str());
    FE_CHECK(!state.device_properties, FE_STATUS_BAD_STATE,
             "graph '%s' was built for a described GPU, not this one: autotuning runs its plans", graph.name.c_str());
    if (warmup < 0) warmup = 3;
    if (iterations <= 0) iterations = 10;
    handle.make_current();

    PlanTimer timer(graph, handle, warmup, iterations);
    std::vector<double> medians;
    for (const Plan &plan : state.plans) medians.push_back(timer.time(plan));
    double heuristics_first = medians.front();
    if (search.rounds > 0) search_knobs(graph, timer, medians, search);
    refine_contenders(graph, timer, medians);

    // Stable: ties keep the heuristics' order.
    std::vector<Plan> plans;
    std::vector<double> times;
    for (size_t i : fastest_first(medians)) {
        plans.push_back(std::move(state.plans[i]));
        times.push_back(medians[i]);
    }
    state.plans = std::move(plans);
    state.plan_times_us = std::move(times);
    state.build_id = next_build_id();  // the chosen plan changed: no cached variant pack applies
    FE_LOG_INFO("graph '%s': autotuned: %s at %.2f us (heuristics' first choice: %.2f us)", graph.name.c_str(),
                state.chosen().tag.c_str(), state.plan_times_us.front(), heuristics_first);
    return state.plan_times_us.front();
}

}  // namespace fe
