// The end of a graph's binding layout, shared by a build and by a plan record adopted from the
// cache or a blob.
#pragma once

#include "graph/graph.hpp"
#include "plan/build_state.hpp"

namespace fe {

// Lay out the part of the binding that follows the slots and scalars, as a build and an
// adopted record both do: the workspace tensors' and slice views' uids, each view's source
// slot, and the variant pack's subset when an input is only read through slices.
void finish_binding_layout(fe_graph &graph, BuildState &state);

}  // namespace fe
