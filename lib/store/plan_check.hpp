// A plan read from disk (a serialized graph, a cache directory entry) is trusted only as far as
// it matches its graph. The graph is lowered again, as its build did but without searching
// engines or compiling, and the plan's operation graph, as cuDNN's JSON of the plan states it,
// must hold the same tensors (uid, dims, strides, type, alignment, virtual, by value,
// vectorization, reordering, ragged offset) and the same operations, unscaled, each tensor on
// the port lowering put it on (plan_ports.cpp), every tensor named as cuDNN writes names (cuDNN
// reads "+1", "01" and "1x" as tensor 1) and no tensor member cuDNN does not write. Everything
// else a build records (constants, workspace tensors, slice views, the binding layout) comes from
// the new lowering, and the workspace, engine and knobs from the loaded plan, not from the file.
// A plan that executes then reads and writes only what its graph's tensors and workspace hold.
#pragma once

#include <memory>
#include <string>

#include "graph/graph.hpp"
#include "plan/target_gpu.hpp"
#include "store/plan_record.hpp"

namespace fe {

// Throws FE_STATUS_INVALID_ARGUMENT naming the first difference between `plan_json` and what
// `lowered` holds.
void check_plan_matches(const LoweredGraph &lowered, const std::string &plan_json);

// A record for `graph` (validated, uids assigned) from a plan read from disk: `stored` gives
// only what is descriptive (engine, tag, autotuning); the plan is loaded from `plan_json` for
// the handle's GPU (nullable) or, with no handle, the GPU `device_json` describes, once it has been
// checked against the graph's lowering for `target`.
std::shared_ptr<const PlanRecord> checked_record(fe_graph &graph, const PlanRecord &stored, const std::string &plan_json,
                                                 fe_handle *handle, const std::string &device_json, const TargetGpu &target);

}  // namespace fe
