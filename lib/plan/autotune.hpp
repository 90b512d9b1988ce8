// Autotuning: time every built plan of a graph on its GPU and put the fastest first.
#pragma once

#include <cstdint>

#include "graph/graph.hpp"

struct fe_handle;

namespace fe {

// Limit the viable candidates to the first `max_candidates` (what the heuristics rank best),
// so an exhaustive build compiles a bounded number of plans.
void keep_best_candidates(fe_graph &graph, int64_t max_candidates);

// Autotuning's search beyond the built plans (see fe_build_options.autotune_knob_search).
struct KnobSearch {
    int32_t rounds = 0;          // 0: time the built plans only
    int64_t max_workspace = -1;  // < 0: no limit
};

// Needs a Built graph with plans; returns the chosen plan's median in microseconds.
double autotune(fe_graph &graph, fe_handle &handle, int32_t warmup, int32_t iterations,
                const KnobSearch &search = KnobSearch());

}  // namespace fe
