// Every plan cuDNN builds in a conformance run is serialized and loaded back, so the check a
// plan read from disk gets (port by port against its graph's lowering) meets thousands of
// genuine plans of every family: a check that refuses one turns that graph's cache entries into
// rebuilds. A failure is printed as "PLAN ROUND TRIP FAILED ..." beside the case's line.
#pragma once

#include <cstdint>
#include <string>

#include <cudnnfe.h>

namespace conformance {

// Empty when the built graph serializes and loads back on `handle` with the same engine;
// otherwise what went wrong. With CUDNNFE_CONFORMANCE_PLANS set to a folder, the first
// CUDNNFE_CONFORMANCE_PLANS_PER_FAMILY (default 20) blobs of each family are written there as
// FAMILY-SEED-CASE.fegraph: genuine plans of this GPU for the deviceless tier's plan tests.
std::string plan_round_trip(const fe_graph *graph, fe_handle *handle, const std::string &family, uint64_t seed,
                            int64_t index);

// How many plans of this process did not load back (the run's exit status counts them).
int64_t plans_not_loaded_back();

}  // namespace conformance
