// A caller's own score modifier for attention (the flexible graphs of cuDNN's frontend): a
// chain of the graph's pointwise operations from a tensor that stands for the scores to the
// modified scores. The attention op lowers the chain inside its fused pattern, with the
// stand-in bound to its own intermediate; the graph's lowering skips the chain's operations.
#pragma once

#include <set>
#include <vector>

#include "graph/graph.hpp"

namespace fe {

class Descriptor;
class Lowering;

struct ScoreModifier {
    fe_tensor *input = nullptr;   // stands for the scores (or their gradient); never bound
    fe_tensor *output = nullptr;  // the chain's result
    std::vector<Node *> nodes;    // the chain's operations, in the graph's order
    bool given() const { return input != nullptr; }
};

// The chain from `input` to `output` (options fields `input_field` and `output_field`), checked:
// both or neither given, `input` an unbound float graph input that no other op stands in for,
// `output` reached from it through pointwise operations only, none taken by another op. The
// chain may also read `readable` as they are (the forward chain's tensors, for its derivative).
ScoreModifier find_score_modifier(const fe_graph &graph, fe_tensor *input, fe_tensor *output,
                                  const std::set<const fe_tensor *> &readable, const char *input_field,
                                  const char *output_field);

// Hand the chain to `owner`: its input stops being a graph input, its operations are lowered
// by `owner`. fe_graph::validate then checks that nothing else reads them.
void absorb_score_modifier(fe_graph &graph, const ScoreModifier &modifier, const Node &owner);

// The chain's tensors, for a derivative chain that reads them.
std::set<const fe_tensor *> score_modifier_tensors(const ScoreModifier &modifier);

// Lower the chain with its input standing for `scores`; returns the result's descriptor.
const Descriptor &lower_score_modifier(Lowering &lowering, const ScoreModifier &modifier, const Descriptor &scores);

}  // namespace fe
