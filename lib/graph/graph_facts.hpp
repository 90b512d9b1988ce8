// The plan cache's key of a graph, taken from the graph as it is in memory: no text is written.
#pragma once

#include <string>

#include "graph/graph.hpp"

namespace fe {

// What decides a graph's plan, as fixed-width binary records (a tag byte, integers little-endian,
// every string and array preceded by its length): the graph's name and default types, the described
// GPU, every tensor (name, uid, dims, strides, type, by-value value, virtual and output, ragged
// offset, alignment, an input's vectorization and reordering), every op (kind, name, compute type,
// the tensors of its ports, each attribute its write_attributes gives) and the outputs. It holds
// exactly the facts of the graph JSON (serial/graph_json.hpp), so two graphs have the same records
// when, and only when, they have the same JSON; it is cheaper to make (no numbers printed). The
// plan cache keys on these bytes themselves, followed by the build options, the target and the
// versions: compared whole, two graphs never share a key by chance. Throws, as fe_graph_to_json
// does, for an op with no JSON form (a graph the cache then does not keep).
std::string graph_facts(const fe_graph &graph);

}  // namespace fe
