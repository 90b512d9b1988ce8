// Everything a built graph needs to execute, apart from the graph itself: the finalized plan,
// its workspace, the constants and workspace tensors lowering made, and the by-value scalars'
// uids. A record is immutable once made, so graphs built from the plan cache or deserialized
// share one (and one finalized plan) without building anything.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "plan/build_state.hpp"

namespace fe {

struct PlanRecord {
    std::shared_ptr<const Descriptor> plan;
    int64_t workspace = 0;
    int64_t engine_index = -1;
    std::string tag;
    std::vector<int64_t> by_value_uids;  // the user's scalars passed by value, in binding order
    std::vector<InternalScalar> internal_scalars;
    std::vector<WorkspaceTensor> workspace_tensors;
    int64_t workspace_tensor_bytes = 0;
    std::vector<SliceView> slice_views;  // source_slot is resolved per graph
    std::vector<std::pair<std::string, bool>> attention;  // attention node name, lowered natively
    int64_t candidates = 0, viable = 0;  // what the original build's heuristics offered
    double time_us = 0;     // the chosen plan's median from autotuning (0: not autotuned)
    bool autotuned = false;
    int32_t device = -1;    // the CUDA device the plan was finalized for; -1: a described GPU
};

// The record of a built graph's chosen plan.
std::shared_ptr<const PlanRecord> record_of(const fe_graph &graph);
// The record of a build state's chosen plan.
std::shared_ptr<PlanRecord> record_of(const BuildState &state);

// The record for the handle's GPU: `record` itself when its plan was finalized there, else a
// copy whose plan is the same engine config finalized again for this GPU from cuDNN's JSON of
// it (no heuristics, no kernel compilation): how GPUs of one kind share plans.
std::shared_ptr<const PlanRecord> record_for_device(std::shared_ptr<const PlanRecord> record, fe_handle &handle);

// Make a validated graph (uids assigned) executable with a record: the binding layout is laid
// out exactly as a build does, and the graph is Built. `origin` is what describe reports.
void adopt_record(fe_graph &graph, std::shared_ptr<const PlanRecord> record, const char *origin);

}  // namespace fe
