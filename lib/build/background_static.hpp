// A static-shape plan built on a background thread for a graph built with dynamic shapes
// (fe_build_options.background_static): the graph executes its dynamic plan at once and switches
// to the static one when it is ready (runtime/execute.cpp decides when).
#pragma once

#include "graph/graph.hpp"

struct fe_handle;

namespace fe {

// Start the static build of a graph just built with dynamic shapes, with the same options less the
// kernel cache: taken at once from the plan cache when it holds the plan, else built on a thread of
// its own (at most two such builds run at a time in the process).
void start_background_static(fe_graph &graph, fe_handle &handle, const fe_build_options &options);
// End the graph's background build (waiting for one still running) and forget its plan.
void stop_background_static(fe_graph &graph);
fe_background_state background_state(const fe_graph &graph);
// Block until the background build has ended; throws its failure.
void wait_background_static(const fe_graph &graph);

}  // namespace fe
