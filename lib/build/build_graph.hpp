// The one-call build (fe_graph_build): the plan cache in memory and on disk first, then the
// build steps, optional autotuning, and storing what was built.
#pragma once

#include <cstdint>
#include <string>

#include "graph/graph.hpp"

struct fe_handle;

namespace fe {

void build_graph(fe_graph &graph, fe_handle *handle, const fe_build_options &options);
// The build from the plan cache alone (this process's, or the cache directory's); false, the graph
// left unbuilt, when neither holds it.
bool build_graph_from_cache(fe_graph &graph, fe_handle *handle, const fe_build_options &options);

// Record the target (device JSON, fingerprint) in a graph's build state; called once its
// operation graph exists (serialization and the cache read them).
void note_target(fe_graph &graph, fe_handle *handle, const char *options_text);

// The persistent cache directory a build with this handle reads and writes ("" for none: not
// configured, or unsafe, which the log says), and the bytes it may hold.
std::string persistent_cache_directory(const fe_handle *handle);
int64_t persistent_cache_limit(const fe_handle *handle);

// A graph ready to execute from the caller's key, or nullptr.
fe_graph *graph_from_user_key(fe_handle *handle, const char *key);

}  // namespace fe
