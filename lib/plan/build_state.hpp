// Everything a graph holds once lowered: backend descriptors, heuristic candidates, finalized
// plans, and the binding layout the execute path uses without lookups by name.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <deque>
#include <memory>
#include <vector>

#include "backend/descriptor.hpp"
#include "graph/graph.hpp"

namespace fe {

// One knob setting of an engine config (type: cudnnBackendKnobType_t).
struct Knob {
    int32_t type = 0;
    int64_t value = 0;
};

struct Candidate {
    Descriptor config;       // finalized CUDNN_BACKEND_ENGINECFG_DESCRIPTOR (heuristics' or made)
    int64_t engine_index = -1;
    std::vector<Knob> knobs;  // sorted by type
    std::string tag;         // "eng<index>_k<knob>=<value>..."
    int64_t workspace = 0;
    bool viable = true;
    std::string reason;      // why not viable / why its plan did not build
};

struct Plan {
    // Shared: graphs built from the plan cache or deserialized run the same finalized plan.
    std::shared_ptr<const Descriptor> plan;
    int64_t workspace = 0;
    int64_t engine_index = -1;
    std::vector<Knob> knobs;  // empty for a plan reused from a cache or blob
    std::string tag;
};

// A constant made during lowering (e.g. -inf for a mask, an attention scale): passed by value.
struct InternalScalar {
    int64_t uid = 0;
    alignas(8) unsigned char bytes[8] = {0};
};

// A tensor cuDNN needs in memory that no user binds (e.g. attention backward's row sums): it
// lives in the workspace, after what the plan itself asks for.
struct WorkspaceTensor {
    int64_t uid = 0;
    int64_t offset = 0;  // from the start of the cudnnfe part of the workspace
    int64_t bytes = 0;
    bool zero_before_run = false;  // accumulators start from zero on every execution
};

// A tensor cuDNN sees with an address of its own inside a bound tensor's buffer: a slice of a
// graph input (the input's address plus an offset), or an alias cuDNN wants but never reads.
// The address is known only when the source is bound at execution.
struct SliceView {
    int64_t uid = 0;          // the view's tensor
    int64_t source_uid = 0;   // the graph input or output it points into
    int64_t byte_offset = 0;  // from the input's address
    int32_t source_slot = -1; // the input's binding slot (from source_uid, per graph)
};

// How an attention node was lowered (fe_graph_describe and fe_graph_sdpa_implementation say it).
struct AttentionLowering {
    const struct Node *node = nullptr;
    bool native = false;
    bool automatic = false;  // chosen by AUTO (so a build may fall back to composite)
};

struct BuildState {
    // Lowering.
    std::deque<Descriptor> tensor_descriptors;  // deque: references stay valid as it grows
    std::unordered_map<const fe_tensor *, size_t> tensor_index;
    std::deque<Descriptor> attribute_descriptors;  // conv / pointwise / matmul / reduction
    std::vector<Descriptor> operations;
    Descriptor device_properties;                   // set when building devicelessly
    Descriptor operation_graph;
    int64_t engine_count = 0;
    std::deque<InternalScalar> internal_scalars;  // deque: the addresses go into variant packs
    int64_t next_internal_uid = 0;                // uids of tensors made during lowering
    std::vector<WorkspaceTensor> workspace_tensors;
    int64_t workspace_tensor_bytes = 0;           // their total, 256-byte aligned
    std::vector<SliceView> slice_views;
    std::vector<AttentionLowering> attention;
    bool composite_attention_only = false;  // set when AUTO's native choice had no engine

    // Heuristics and support.
    std::vector<fe_heur_mode> modes_tried;
    std::vector<Candidate> candidates;
    std::string heuristics_failures;

    // Plans.
    std::vector<Plan> plans;
    std::string plan_failures;
    std::vector<double> plan_times_us;  // per plan, from the last autotune (same order as plans)
    // Where the chosen plan came from: "built", "in-process cache", "cache directory",
    // "deserialized" (fe_graph_describe says it).
    const char *origin = "built";
    // A graph that reuses a plan (cache, serialization) reports its original build's counts.
    int64_t reused_candidates = 0, reused_viable = 0;
    int64_t candidate_count() const {
        return candidates.empty() ? reused_candidates : static_cast<int64_t>(candidates.size());
    }
    int64_t viable_count() const {
        if (candidates.empty()) return reused_viable;
        int64_t n = 0;
        for (const Candidate &c : candidates) n += c.viable ? 1 : 0;
        return n;
    }

    // The target, as serialization and the plan cache record it.
    std::string device_json;   // cuDNN's description of the GPU the plans are for
    std::string fingerprint;   // device_fingerprint(device_json)
    std::string options_text;  // the build options that shaped the plans

    // Binding layout: slot i binds `slots[i]`; uids holds the slots' uids followed by the
    // by-value scalars', the workspace tensors' and the slice views' uids, and
    // by_value_pointers the scalars' host addresses.
    std::vector<fe_tensor *> slots;
    std::vector<int64_t> uids;
    // When some bound inputs are read only through slices, cuDNN's operation graph never sees
    // them: the variant pack then takes the entries at pack_positions (indices into uids and
    // the pointers), with pack_uids their uids. Empty: every entry, in order.
    std::vector<int32_t> pack_positions;
    std::vector<int64_t> pack_uids;
    std::vector<void *> by_value_pointers;
    std::vector<std::pair<int64_t, int32_t>> uid_to_slot;  // sorted by uid
    std::vector<int64_t> slot_bytes;                        // bytes each slot's tensor spans
    uint64_t build_id = 0;  // unique per build in this process (variant-pack caches key on it)

    const Plan &chosen() const { return plans.front(); }
    // Where the workspace tensors start: after the plan's own workspace, aligned.
    int64_t workspace_tensor_base() const { return (chosen().workspace + 255) / 256 * 256; }
    // The workspace a caller provides: the plan's plus the workspace tensors.
    int64_t total_workspace() const {
        return workspace_tensors.empty() ? chosen().workspace : workspace_tensor_base() + workspace_tensor_bytes;
    }
};

// The build steps (each throws fe::Error with the graph's name in the message).
void build_operation_graph(fe_graph &graph, cudnnHandle_t handle);
void create_execution_plans(fe_graph &graph, const std::vector<fe_heur_mode> &modes);
void deselect_workspace_greater_than(fe_graph &graph, int64_t max_bytes);
void check_support(fe_graph &graph);
void build_plans(fe_graph &graph, fe_build_policy policy);
// Finalize one candidate's plan; false, with cuDNN's reason in c.reason, when it does not build.
bool plan_of(Candidate &c, Plan *out);
// Whether heuristics (mode A) give at least one engine config for the operation graph.
bool has_engine_config(BuildState &state);

const char *heur_mode_name(fe_heur_mode mode);
// A process-unique id for a new build (variant-pack caches key on it).
uint64_t next_build_id();

}  // namespace fe
