// The plan search: the engine configs heuristics (or the caller) offered, which are viable, why
// the others failed, and the autotuned times of the plans built from them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/descriptor.hpp"
#include "cudnnfe.h"
#include "runtime/executable_plan.hpp"

namespace fe {

struct Candidate {
    Descriptor config;  // finalized CUDNN_BACKEND_ENGINECFG_DESCRIPTOR (heuristics' or made)
    int64_t engine_index = -1;
    std::vector<Knob> knobs;  // sorted by type
    std::string tag;          // "eng<index>_k<knob>=<value>..."
    int64_t workspace = 0;
    // The engine's numerical and behaviour notes, bit (1 << cuDNN's note value) each: the
    // fe_numerical_note and fe_behavior_note masks.
    uint64_t numerical_notes = 0, behavior_notes = 0;
    int64_t shared_memory = -1;  // per block, as cuDNN reports it; -1: not reported
    bool viable = true;
    std::string reason;  // why not viable / why its plan did not build
    // cuDNN could not compile the plan's runtime kernel (NVRTC): a failure of cuDNN's code
    // generator for this graph, which the build names rather than calling it "no plan".
    bool compilation_failed = false;
};

struct PlanSearch {
    std::vector<fe_heur_mode> modes_tried;
    std::vector<Candidate> candidates;
    std::string heuristics_failures;
    std::string plan_failures;
    std::vector<double> plan_times_us;  // per plan, from the last autotune (same order as plans)
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
};

}  // namespace fe
