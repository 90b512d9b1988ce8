// Records of built plans, and making a graph executable from one.
#include "store/plan_record.hpp"

#include <algorithm>
#include <climits>

#include "common/error.hpp"
#include "graph/graph.hpp"
#include "graph/tensor.hpp"
#include "plan/engine_knobs.hpp"
#include "store/plan_json.hpp"
#include "runtime/handle.hpp"

namespace fe {

std::shared_ptr<const PlanRecord> record_of(const fe_graph &graph) {
    FE_CHECK(graph.stage == fe_graph::Stage::Built && graph.build, FE_STATUS_BAD_STATE,
             "graph '%s' is not built: call fe_graph_build (or the build steps) first", graph.name.c_str());
    return record_of(*graph.build);
}

std::shared_ptr<PlanRecord> record_of(const BuildState &state) {
    auto record = std::make_shared<PlanRecord>();
    const Plan &plan = state.executable.chosen();
    record->plan = plan.plan;
    record->workspace = plan.workspace;
    record->engine_index = plan.engine_index;
    record->tag = plan.tag;
    size_t user_scalars = state.executable.by_value_pointers.size() - state.lowered.internal_scalars.size();
    auto first = state.executable.uids.begin() + static_cast<ptrdiff_t>(state.executable.slots.size());
    record->by_value_uids.assign(first, first + static_cast<ptrdiff_t>(user_scalars));
    record->internal_scalars.assign(state.lowered.internal_scalars.begin(), state.lowered.internal_scalars.end());
    record->workspace_tensors = state.executable.workspace_tensors;
    record->workspace_tensor_bytes = state.executable.workspace_tensor_bytes;
    record->slice_views = state.executable.slice_views;
    record->device = state.executable.device;
    for (const AttentionLowering &a : state.lowered.attention) record->attention.emplace_back(a.node->name, a.native);
    record->candidates = static_cast<int64_t>(state.search.candidates.size());
    for (const Candidate &c : state.search.candidates) record->viable += c.viable ? 1 : 0;
    if (state.search.candidates.empty()) {  // itself adopted: pass the original counts on
        record->candidates = state.search.reused_candidates;
        record->viable = state.search.reused_viable;
    }
    if (!state.search.plan_times_us.empty()) {
        record->autotuned = true;
        record->time_us = state.search.plan_times_us.front();
    }
    return record;
}


namespace {

fe_tensor *tensor_with_uid(fe_graph &graph, int64_t uid) {
    for (const auto &t : graph.tensors)
        if (t->uid == uid) return t.get();
    FE_FAIL(FE_STATUS_VALIDATION, "graph '%s' has no tensor with uid %lld, which its plan binds", graph.name.c_str(),
            static_cast<long long>(uid));
}

const Node *node_named(const fe_graph &graph, const std::string &name) {
    for (const auto &n : graph.nodes)
        if (n->name == name) return n.get();
    FE_FAIL(FE_STATUS_VALIDATION, "graph '%s' has no operation '%s', which its plan lowers", graph.name.c_str(),
            name.c_str());
}

}  // namespace

std::shared_ptr<const PlanRecord> record_for_device(std::shared_ptr<const PlanRecord> record, fe_handle &handle) {
    if (record->device < 0 || record->device == handle.device) return record;
    auto copy = std::make_shared<PlanRecord>(*record);
    copy->plan = plan_from_json(plan_to_json(*record->plan), handle.cudnn, std::string());
    copy->device = handle.device;
    return copy;
}

void adopt_record(fe_graph &graph, std::shared_ptr<const PlanRecord> record, const char *origin) {
    auto state = std::make_unique<BuildState>();
    for (const auto &t : graph.tensors) t->slot = -1;
    for (fe_tensor *t : graph.inputs) state->executable.slots.push_back(t);
    for (fe_tensor *t : graph.outputs) state->executable.slots.push_back(t);
    for (size_t i = 0; i < state->executable.slots.size(); ++i) {
        fe_tensor *t = state->executable.slots[i];
        t->slot = static_cast<int32_t>(i);
        state->executable.uids.push_back(t->uid);
        state->executable.slot_bytes.push_back(t->ragged_offset ? 0 : tensor_bytes(*t));
        state->executable.uid_to_slot.emplace_back(t->uid, static_cast<int32_t>(i));
    }
    std::sort(state->executable.uid_to_slot.begin(), state->executable.uid_to_slot.end());
    for (int64_t uid : record->by_value_uids) {
        fe_tensor *t = tensor_with_uid(graph, uid);
        FE_CHECK(t->by_value, FE_STATUS_VALIDATION, "graph '%s': its plan passes '%s' (uid %lld) by value, but it is not a scalar",
                 graph.name.c_str(), t->name.c_str(), static_cast<long long>(uid));
        state->executable.uids.push_back(uid);
        state->executable.by_value_pointers.push_back(t->scalar_bytes);
    }
    state->lowered.internal_scalars.assign(record->internal_scalars.begin(), record->internal_scalars.end());
    for (InternalScalar &s : state->lowered.internal_scalars) {
        state->executable.uids.push_back(s.uid);
        state->executable.by_value_pointers.push_back(s.bytes);
    }
    state->executable.workspace_tensors = record->workspace_tensors;
    state->executable.workspace_tensor_bytes = record->workspace_tensor_bytes;
    state->executable.slice_views = record->slice_views;
    finish_binding_layout(graph, *state);
    for (const auto &a : record->attention) {
        AttentionLowering lowering;
        lowering.node = node_named(graph, a.first);
        lowering.native = a.second;
        state->lowered.attention.push_back(lowering);
    }
    Plan plan;
    plan.plan = record->plan;
    plan.workspace = record->workspace;
    plan.engine_index = record->engine_index;
    plan.tag = record->tag;
    plan.facts_known = read_plan_config_facts(*plan.plan, &plan);
    state->executable.plans.push_back(std::move(plan));
    if (record->autotuned) state->search.plan_times_us.push_back(record->time_us);
    state->search.reused_candidates = record->candidates;
    state->search.reused_viable = record->viable;
    state->executable.build_id = next_build_id();
    state->executable.device = record->device;
    state->origin = origin;
    graph.build = std::move(state);
    graph.stage = fe_graph::Stage::Built;
}

}  // namespace fe
