// Finalizing execution plans from the viable candidates.
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "plan/build_state.hpp"

namespace fe {

bool plan_of(Candidate &c, Plan *out) {
    Descriptor plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    plan.set_desc(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, c.config, "CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG");
    cudnnStatus_t st = plan.try_finalize();
    if (st != CUDNN_STATUS_SUCCESS) {
        std::string reason = cudnn_last_error_text();
        c.reason = std::string(cudnn().cudnnGetErrorString(st)) + (reason.empty() ? "" : " (" + reason + ")");
        return false;
    }
    out->workspace = plan.get_int64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, "CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE");
    out->engine_index = c.engine_index;
    out->tag = c.tag;
    out->knobs = c.knobs;
    out->plan = std::make_shared<const Descriptor>(std::move(plan));
    return true;
}

void build_plans(fe_graph &graph, fe_build_policy policy) {
    FE_CHECK(graph.stage == fe_graph::Stage::Supported && graph.build, FE_STATUS_BAD_STATE,
             "graph '%s' has not passed the support check: call fe_graph_check_support first", graph.name.c_str());
    FE_CHECK(policy == FE_BUILD_POLICY_HEURISTICS_CHOICE || policy == FE_BUILD_POLICY_ALL, FE_STATUS_INVALID_ARGUMENT,
             "unknown build policy %d", static_cast<int>(policy));
    BuildState &state = *graph.build;
    state.executable.plans.clear();
    state.search.plan_failures.clear();
    size_t failures = 0;
    for (Candidate &c : state.search.candidates) {
        if (!c.viable) continue;
        Plan p;
        if (!plan_of(c, &p)) {
            FE_LOG_DEBUG("graph '%s': plan %s did not build: %s", graph.name.c_str(), c.tag.c_str(), c.reason.c_str());
            if (failures++ == 0) state.search.plan_failures = c.tag + ": " + c.reason;
            continue;
        }
        state.executable.plans.push_back(std::move(p));
        if (policy == FE_BUILD_POLICY_HEURISTICS_CHOICE) break;
    }
    if (state.executable.plans.empty())
        FE_FAIL(FE_STATUS_NOT_SUPPORTED, "graph '%s': none of %zu viable engine configs built a plan; first failure: %s",
                graph.name.c_str(), failures, state.search.plan_failures.c_str());
    FE_LOG_INFO("graph '%s': built %zu plan(s); using %s with %lld bytes of workspace", graph.name.c_str(),
                state.executable.plans.size(), state.executable.chosen().tag.c_str(), static_cast<long long>(state.executable.chosen().workspace));
    graph.stage = fe_graph::Stage::Built;
}

}  // namespace fe
