// A built graph as execution sees it: the finalized plans (index 0 executes) and the binding
// layout that lets execute bind pointers and build variant packs without lookups by name.
// Execution reads nothing else of a build.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend/descriptor.hpp"
#include "graph/tensor.hpp"

namespace fe {

struct KernelCache;

// One knob setting of an engine config (type: cudnnBackendKnobType_t).
struct Knob {
    int32_t type = 0;
    int64_t value = 0;
};

struct Plan {
    // Shared: graphs built from the plan cache or deserialized run the same finalized plan.
    std::shared_ptr<const Descriptor> plan;
    int64_t workspace = 0;
    int64_t engine_index = -1;
    std::vector<Knob> knobs;
    std::string tag;
    // The engine's notes (fe_numerical_note / fe_behavior_note masks) and the config's shared
    // memory (-1: not reported); read from the plan for one reused from a cache or blob.
    uint64_t numerical_notes = 0, behavior_notes = 0;
    int64_t shared_memory = -1;
    bool facts_known = true;  // false: cuDNN did not give a reused plan's config back
    // A dynamic-shape plan's kernels live in its kernel cache.
    std::shared_ptr<KernelCache> kernel_cache;
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

struct ExecutablePlan {
    std::vector<Plan> plans;  // built
    size_t chosen_index = 0;  // the plan that executes (fe_graph_select_plan; autotuning's fastest)

    // Made by lowering, bound at execution.
    std::vector<WorkspaceTensor> workspace_tensors;
    int64_t workspace_tensor_bytes = 0;  // their total, 256-byte aligned
    std::vector<SliceView> slice_views;

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
    size_t input_slots = 0;  // slots [0, input_slots) bind inputs, the rest outputs
    // (input slot, output slot) pairs whose buffers may overlap (in-place updates), sorted.
    std::vector<std::pair<int32_t, int32_t>> shared_slots;
    uint64_t build_id = 0;  // unique per build in this process (variant-pack caches key on it)
    // The CUDA device whose handle finalized the plans (their kernels are loaded there), which
    // alone may execute them; -1 for plans built for a described GPU.
    int32_t device = -1;

    const Plan &chosen() const { return plans[chosen_index]; }
    // Where the workspace tensors start: after the plan's own workspace, aligned.
    int64_t workspace_tensor_base() const { return (chosen().workspace + 255) / 256 * 256; }
    // The workspace a caller provides: the plan's plus the workspace tensors.
    int64_t total_workspace() const {
        return workspace_tensors.empty() ? chosen().workspace : workspace_tensor_base() + workspace_tensor_bytes;
    }
};

}  // namespace fe
