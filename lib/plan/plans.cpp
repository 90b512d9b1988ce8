// Finalizing execution plans from the viable candidates: in rank order, on one thread or
// several, all of them or the first that builds; or one candidate chosen by the caller.
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include "backend/driver.hpp"
#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "plan/build_state.hpp"
#include "plan/engine_knobs.hpp"
#include "plan/kernel_cache.hpp"
#include "runtime/handle.hpp"

namespace fe {

namespace {

cudnnStatus_t finalize_plan(Descriptor &plan, const std::string &tag, KernelCache *cache) {
    if (!cache) return plan.try_finalize();
    // cuDNN adds the plan's kernels to the cache while it finalizes the plan.
    std::lock_guard<std::mutex> lock(cache->mutex);
    plan.set_desc(CUDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, cache->descriptor, "CUDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE");
    cudnnStatus_t st = plan.try_finalize();
    if (st == CUDNN_STATUS_SUCCESS) note_config(*cache, tag);
    return st;
}

// The order in which the first plan is sought: heuristics' rank, except that with a kernel cache
// the configs whose kernels the cache holds come first (in rank order), so that a new shape
// builds without compiling whenever one of them runs it.
std::vector<Candidate *> search_order(std::vector<Candidate> &candidates, KernelCache *cache) {
    std::vector<Candidate *> held, rest;
    std::unique_lock<std::mutex> lock;
    if (cache) lock = std::unique_lock<std::mutex>(cache->mutex);
    for (Candidate &c : candidates) {
        if (!c.viable) continue;
        (cache && holds_config(*cache, c.tag) ? held : rest).push_back(&c);
    }
    held.insert(held.end(), rest.begin(), rest.end());
    return held;
}

}  // namespace

bool plan_of(Candidate &c, const std::shared_ptr<KernelCache> &cache, Plan *out) {
    Descriptor plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    plan.set_desc(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, c.config, "CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG");
    cudnnStatus_t st = finalize_plan(plan, c.tag, cache.get());
    if (st != CUDNN_STATUS_SUCCESS) {
        std::string reason = cudnn_last_error_text();
        c.reason = std::string(cudnn().cudnnGetErrorString(st)) + (reason.empty() ? "" : " (" + reason + ")");
        c.compilation_failed = st == CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED;
        return false;
    }
    out->workspace = plan.get_int64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, "CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE");
    out->engine_index = c.engine_index;
    out->tag = c.tag;
    out->knobs = c.knobs;
    out->numerical_notes = c.numerical_notes;
    out->behavior_notes = c.behavior_notes;
    out->shared_memory = c.shared_memory;
    out->kernel_cache = cache;
    out->plan = std::make_shared<const Descriptor>(std::move(plan));
    return true;
}

namespace {

constexpr int32_t kMaxBuildThreads = 64;

// Every viable candidate's plan, on up to `threads` threads; plans[i] is set where candidate
// viable[i] built. cuDNN finalizes independent plans concurrently (each may compile kernels).
// device: the CUDA device the plans are for (-1: a described GPU), current on the helper threads
// too, since cuDNN finalizes on the calling thread's device.
void build_all(std::vector<Candidate *> &viable, const std::shared_ptr<KernelCache> &cache, int32_t threads,
               int32_t device, std::vector<Plan> *plans, std::vector<char> *built) {
    plans->assign(viable.size(), Plan());
    built->assign(viable.size(), 0);
    std::atomic<size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto work = [&] {
        if (device >= 0) make_device_current(device);
        for (size_t i = next++; i < viable.size(); i = next++) {
            try {
                (*built)[i] = plan_of(*viable[i], cache, &(*plans)[i]) ? 1 : 0;
            } catch (...) {
                std::lock_guard<std::mutex> lock(failure_mutex);
                if (!failure) failure = std::current_exception();
            }
        }
    };
    size_t workers = std::min(viable.size(), static_cast<size_t>(std::max(threads, 1)));
    std::vector<std::thread> pool;
    for (size_t t = 1; t < workers; ++t) {
        try {
            pool.emplace_back(work);
        } catch (const std::system_error &) {
            break;  // no more threads to be had: the ones running (and this one) build the rest
        }
    }
    work();
    for (std::thread &t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
}

struct Failures {
    size_t count = 0, compilations = 0;
};

void note_failure(const fe_graph &graph, BuildState &state, const Candidate &c, Failures *failures) {
    FE_LOG_DEBUG("graph '%s': plan %s did not build: %s", graph.name.c_str(), c.tag.c_str(), c.reason.c_str());
    if (failures->count++ == 0) state.search.plan_failures = c.tag + ": " + c.reason;
    if (c.compilation_failed) ++failures->compilations;
}

// When no plan built because cuDNN could not compile any of their kernels, the table says what
// that is; other failures stand as cuDNN reported them.
std::string cause_of(const Failures &failures) {
    if (failures.count == 0 || failures.compilations != failures.count) return "";
    return "; " + explanation(Feature::runtime_kernel_compilation, cudnn().cudnnGetVersion());
}

}  // namespace

void build_plans(fe_graph &graph, fe_build_policy policy, int32_t threads) {
    FE_CHECK(graph.stage == fe_graph::Stage::Supported && graph.build, FE_STATUS_BAD_STATE,
             "graph '%s' has not passed the support check: call fe_graph_check_support first", graph.name.c_str());
    FE_CHECK(policy == FE_BUILD_POLICY_HEURISTICS_CHOICE || policy == FE_BUILD_POLICY_ALL, FE_STATUS_INVALID_ARGUMENT,
             "unknown build policy %d", static_cast<int>(policy));
    FE_CHECK(threads >= 1 && threads <= kMaxBuildThreads, FE_STATUS_INVALID_ARGUMENT,
             "threads is %d: plans are built on 1 to %d threads", threads, kMaxBuildThreads);
    BuildState &state = *graph.build;
    state.executable.plans.clear();
    state.executable.chosen_index = 0;
    state.search.plan_failures.clear();
    Failures failures;
    if (policy == FE_BUILD_POLICY_ALL && threads > 1) {
        std::vector<Candidate *> viable = search_order(state.search.candidates, graph.kernel_cache.get());
        std::vector<Plan> plans;
        std::vector<char> built;
        build_all(viable, graph.kernel_cache, threads, graph.build->executable.device, &plans, &built);
        for (size_t i = 0; i < viable.size(); ++i) {
            if (built[i])
                state.executable.plans.push_back(std::move(plans[i]));
            else
                note_failure(graph, state, *viable[i], &failures);
        }
    } else {
        for (Candidate *candidate : search_order(state.search.candidates, graph.kernel_cache.get())) {
            Candidate &c = *candidate;
            Plan p;
            if (!plan_of(c, graph.kernel_cache, &p)) {
                note_failure(graph, state, c, &failures);
                continue;
            }
            state.executable.plans.push_back(std::move(p));
            if (policy == FE_BUILD_POLICY_HEURISTICS_CHOICE) break;
        }
    }
    if (state.executable.plans.empty()) {
        // Without a driver that runs kernels (none, or the toolkit's stub), a runtime-compiled
        // engine's kernels cannot be compiled: the graph may well build where the GPU is.
        const bool needs_driver = driver_state() != DriverState::Real &&
                                  (state.search.plan_failures.find("CUDA_DRIVER") != std::string::npos ||
                                   state.search.plan_failures.find("cuLibraryLoadData") != std::string::npos);
        FE_CHECK(!needs_driver, FE_STATUS_CANNOT_TELL,
                 "graph '%s': its plans cannot be built here: none of %zu viable engine configs built a plan; "
                 "first failure: %s%s; %s",
                 graph.name.c_str(), failures.count, state.search.plan_failures.c_str(), cause_of(failures).c_str(),
                 driver_remedy().c_str());
        FE_FAIL(FE_STATUS_NOT_SUPPORTED, "graph '%s': none of %zu viable engine configs built a plan; first failure: %s%s",
                graph.name.c_str(), failures.count, state.search.plan_failures.c_str(), cause_of(failures).c_str());
    }
    FE_LOG_INFO("graph '%s': built %zu plan(s); using %s with %lld bytes of workspace", graph.name.c_str(),
                state.executable.plans.size(), state.executable.chosen().tag.c_str(), static_cast<long long>(state.executable.chosen().workspace));
    graph.stage = fe_graph::Stage::Built;
}

void build_plan_at_index(fe_graph &graph, size_t index) {
    FE_CHECK((graph.stage == fe_graph::Stage::Supported || graph.stage == fe_graph::Stage::Built) && graph.build &&
                 !graph.build->search.candidates.empty(),
             FE_STATUS_BAD_STATE, "graph '%s' has not passed the support check: call fe_graph_check_support first",
             graph.name.c_str());
    BuildState &state = *graph.build;
    std::vector<Candidate> &candidates = state.search.candidates;
    FE_CHECK(index < candidates.size(), FE_STATUS_INVALID_ARGUMENT, "index %zu is past the %zu candidates of graph '%s'",
             index, candidates.size(), graph.name.c_str());
    Candidate &c = candidates[index];
    FE_CHECK(c.viable, FE_STATUS_INVALID_ARGUMENT, "graph '%s': candidate %zu (%s) is not viable: %s", graph.name.c_str(),
             index, c.tag.c_str(), c.reason.c_str());
    for (const Plan &p : state.executable.plans)
        FE_CHECK(p.tag != c.tag, FE_STATUS_INVALID_ARGUMENT, "graph '%s': candidate %zu (%s) has a plan already",
                 graph.name.c_str(), index, c.tag.c_str());
    Plan p;
    if (!plan_of(c, graph.kernel_cache, &p))
        FE_FAIL(FE_STATUS_NOT_SUPPORTED, "graph '%s': candidate %zu (%s) did not build a plan: %s%s", graph.name.c_str(),
                index, c.tag.c_str(), c.reason.c_str(), cause_of(Failures{1, c.compilation_failed ? 1u : 0u}).c_str());
    if (graph.stage != fe_graph::Stage::Built) {
        state.executable.plans.clear();
        state.executable.chosen_index = 0;
    }
    state.executable.plans.push_back(std::move(p));
    graph.stage = fe_graph::Stage::Built;
}

void select_plan(fe_graph &graph, size_t plan_index) {
    FE_CHECK(graph.stage == fe_graph::Stage::Built && graph.build, FE_STATUS_BAD_STATE,
             "graph '%s' has no plans yet: build it first", graph.name.c_str());
    ExecutablePlan &executable = graph.build->executable;
    FE_CHECK(plan_index < executable.plans.size(), FE_STATUS_INVALID_ARGUMENT, "plan %zu is past the %zu plans of graph '%s'",
             plan_index, executable.plans.size(), graph.name.c_str());
    if (executable.chosen_index == plan_index) return;
    executable.chosen_index = plan_index;
    executable.build_id = next_build_id();  // a cached variant pack belongs to the plan it was made for
}

}  // namespace fe
