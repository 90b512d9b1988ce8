// What the two attention backward ops (fe_graph_sdpa_backward and fe_graph_sdpa_fp8_backward)
// share: their options as the caller gave them, the sinks' gradient, and the score gradient's
// way back through soft-capping and the caller's score modifier.
#pragma once

#include <string>
#include <vector>

#include "ops/attention.hpp"
#include "ops/score_modifier.hpp"

namespace fe {

// A backward's two chains (fe_sdpa_backward_options): the forward's score modifier and its
// derivative, found in the graph and checked to be apart.
struct BackwardScoreModifiers {
    ScoreModifier forward, gradient;
};
BackwardScoreModifiers find_backward_score_modifiers(const fe_graph &graph, const fe_sdpa_backward_options &options);
// Hands both chains to the op just added (the graph's last node).
void absorb_backward_score_modifiers(fe_graph &graph, const BackwardScoreModifiers &modifiers);

class AttentionBackwardNode : public AttentionNode {
  protected:
    // The first six inputs are Q, K, V, O, dO and the stats; dSink, when asked for, is the last output.
    static constexpr size_t kStatsInput = 5;
    AttentionBackwardNode(std::vector<fe_tensor *> required, std::vector<const char *> required_ports,
                          const fe_sdpa_backward_options &options, const BackwardScoreModifiers &modifiers);
    void write_attributes(AttributeWriter &out) const override;

    // dSink needs the forward's sinks, which serve only dSink; a score modifier needs its
    // derivative. Shapes dSink.
    void check_backward_options(const AttentionDims &d);
    // dSink[h] = -sum over b, i of exp(sink[h] - stats) * row_dot, row_dot being rowsum(dO * O)
    // in real units ([b, h_q, s_q, 1] of `row_strides`).
    void lower_sink_gradient(Lowering &lowering, const Descriptor &row_dot, const std::vector<int64_t> &rows,
                             const std::vector<int64_t> &row_strides, fe_data_type compute,
                             const std::string &what) const;
    // dS with respect to the scores before soft-capping (`capped`: the scores over the cap, as
    // modify_scores gave them; nullptr without soft-capping) and before the caller's modifier.
    const Descriptor &through_score_modifiers(Lowering &lowering, const Descriptor &ds, const Descriptor *capped,
                                              const std::vector<int64_t> &scores,
                                              const std::vector<int64_t> &score_strides, fe_data_type compute,
                                              const std::string &what) const;

    bool dsink_, deterministic_;
    fe_sdpa_backward_options given_;  // as the caller gave them, for the graph JSON
};

}  // namespace fe
