// Everything a graph holds once lowered, in three parts with one purpose each: what lowering
// produced (lowered_graph.hpp), the candidates of the plan search (plan_search.hpp), and the
// executable plan with its binding layout (runtime/executable_plan.hpp), which is all that
// execution reads.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <deque>
#include <memory>
#include <vector>

#include "graph/graph.hpp"
#include "plan/lowered_graph.hpp"
#include "plan/plan_search.hpp"
#include "runtime/executable_plan.hpp"

namespace fe {

struct BuildState {
    LoweredGraph lowered;       // lowering's products: descriptors, the operation graph
    PlanSearch search;          // heuristics' candidates and why the others failed
    ExecutablePlan executable;  // the built plans and their binding layout: all execute reads

    // Where the chosen plan came from: "built", "in-process cache", "cache directory",
    // "deserialized" (fe_graph_describe says it).
    const char *origin = "built";
    // The target, as serialization and the plan cache record it.
    std::string device_json;   // cuDNN's description of the GPU the plans are for
    std::string fingerprint;   // device_fingerprint(device_json)
    std::string options_text;  // the build options that shaped the plans
    int32_t sm_count_target = 0;  // heuristics' SM carveout (fe_build_options); 0: every SM
};

// The build steps (each throws fe::Error with the graph's name in the message). target: the GPU
// the graph is lowered for (target_gpu), which the capability table's GPU gates read.
void build_operation_graph(fe_graph &graph, cudnnHandle_t handle, const TargetGpu &target);
// The end of a graph's binding layout, which a build and a plan record adopted from the cache or a
// blob both lay out: the workspace tensors' and slice views' uids, each view's source slot, and the
// variant pack's subset when an input is only read through slices.
void finish_binding_layout(fe_graph &graph, BuildState &state);
// What the graph's nodes say about a graph cuDNN has no engine for (the capability table's
// explanations): "; conv_fprop 'c': ..." for each node with something to say, "" otherwise.
std::string unsupported_hints(const fe_graph &graph);
// The operation graph and binding layout a build made for a validated graph (uids assigned)
// whose attention was lowered as `attention` records (node name, native), without searching
// engines: what a plan read from disk is checked against.
std::unique_ptr<BuildState> lower_as_built(fe_graph &graph, cudnnHandle_t handle, const TargetGpu &target,
                                           const std::vector<std::pair<std::string, bool>> &attention);
void create_execution_plans(fe_graph &graph, const std::vector<fe_heur_mode> &modes);
void deselect_workspace_greater_than(fe_graph &graph, int64_t max_bytes);
// Deselect the candidates whose engine has any note of the *_deselect masks or lacks one of the
// *_require masks (bit (1 << cuDNN's note value)).
void select_by_notes(fe_graph &graph, uint64_t numerical_deselect, uint64_t behavior_deselect,
                     uint64_t numerical_require, uint64_t behavior_require);
// Drop the candidates of the engines `names` lists (comma-separated "eng<N>" and engine-config
// tags; INVALID_ARGUMENT for another form).
void deselect_engines(fe_graph &graph, const std::string &names);
void deselect_shared_memory_greater_than(fe_graph &graph, int64_t max_bytes);
void check_support(fe_graph &graph);
// threads: 1 to 64; more than one builds FE_BUILD_POLICY_ALL's plans concurrently.
void build_plans(fe_graph &graph, fe_build_policy policy, int32_t threads = 1);
void build_plan_at_index(fe_graph &graph, size_t candidate_index);
void select_plan(fe_graph &graph, size_t plan_index);
// Finalize one candidate's plan (with the graph's kernel cache, nullable); false, with cuDNN's
// reason in c.reason, when it does not build.
bool plan_of(Candidate &c, const std::shared_ptr<KernelCache> &cache, Plan *out);
// Whether heuristics (mode A) give at least one engine config for the operation graph.
bool has_engine_config(BuildState &state);

const char *heur_mode_name(fe_heur_mode mode);
// A process-unique id for a new build (variant-pack caches key on it).
uint64_t next_build_id();

}  // namespace fe
