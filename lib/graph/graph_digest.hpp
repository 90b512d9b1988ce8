// The plan cache's key of a graph, taken from the graph as it is in memory: no text is written.
#pragma once

#include "common/sha256.hpp"
#include "graph/graph.hpp"

namespace fe {

// The SHA-256 of what decides a graph's plan, fed field by field as fixed-width binary records:
// the graph's name and default types, the described GPU, every tensor (name, uid, dims, strides,
// type, by-value value, virtual and output, ragged offset, alignment, an input's vectorization and
// reordering), every op (kind, name, compute type, the tensors of its ports, each attribute its
// write_attributes gives) and the outputs. It holds exactly the facts of the graph JSON
// (serial/graph_json.hpp), so two graphs share a digest when, and only when, they have the same
// JSON; it is cheaper to make (no numbers printed, no text kept). The plan cache hashes the build
// options, the target and the versions after it. Throws, as fe_graph_to_json does, for an op
// with no JSON form (a graph the cache then does not keep).
Sha256 graph_digest(const fe_graph &graph);

}  // namespace fe
