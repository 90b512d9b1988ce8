// The parts of attention backward both of its ops lower alike (ops/attention_backward.hpp).
#include "ops/attention_backward.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "ops/graph_ops.hpp"
#include "ops/ops.hpp"
#include "schema/option_fields.hpp"

namespace fe {

namespace {

// y = mode(x, b), a new float tensor of the given dims and strides.
const Descriptor &float_step(Lowering &lowering, fe_pointwise_mode mode, const Descriptor &x, const Descriptor *b,
                             const std::vector<int64_t> &dims, const std::vector<int64_t> &strides,
                             fe_data_type compute, const std::string &label) {
    const fe_pointwise_options pw = FE_POINTWISE_OPTIONS_INIT;
    const Descriptor &y = lowering.internal_tensor(dims, strides, FE_DATA_FLOAT);
    emit_pointwise(lowering, mode, x, b, nullptr, y, compute, pw, 0, label);
    return y;
}

}  // namespace

BackwardScoreModifiers find_backward_score_modifiers(const fe_graph &graph, const fe_sdpa_backward_options &options) {
    BackwardScoreModifiers m;
    m.forward = find_score_modifier(graph, options.score_mod_input, options.score_mod_output, {}, "score_mod_input",
                                    "score_mod_output");
    m.gradient = find_score_modifier(graph, options.score_mod_grad_input, options.score_mod_grad_output,
                                     score_modifier_tensors(m.forward), "score_mod_grad_input",
                                     "score_mod_grad_output");
    for (const Node *node : m.gradient.nodes)
        FE_CHECK(std::find(m.forward.nodes.begin(), m.forward.nodes.end(), node) == m.forward.nodes.end(),
                 FE_STATUS_INVALID_ARGUMENT, "pointwise '%s' is in both the score modifier and its derivative",
                 node->name.c_str());
    FE_CHECK(!m.forward.given() || m.gradient.input != m.forward.input, FE_STATUS_INVALID_ARGUMENT,
             "options.score_mod_grad_input is options.score_mod_input '%s'; the gradient needs a stand-in of its own",
             m.forward.input->name.c_str());
    return m;
}

void absorb_backward_score_modifiers(fe_graph &graph, const BackwardScoreModifiers &modifiers) {
    const Node &owner = *graph.nodes.back();
    absorb_score_modifier(graph, modifiers.forward, owner);
    absorb_score_modifier(graph, modifiers.gradient, owner);
}

AttentionBackwardNode::AttentionBackwardNode(std::vector<fe_tensor *> required,
                                             std::vector<const char *> required_ports,
                                             const fe_sdpa_backward_options &options,
                                             const BackwardScoreModifiers &modifiers)
    : AttentionNode(std::move(required), std::move(required_ports),
                    with_score_modifiers(attention_options(options), modifiers.forward, modifiers.gradient),
                    options.compute_data_type),
      dsink_(options.output_dsink != 0),
      deterministic_(options.deterministic != 0),
      given_(without_name(options)) {}

void AttentionBackwardNode::write_attributes(AttributeWriter &out) const {
    write_option_attributes(out, op_schema(kind()), &given_, 0);
}

void AttentionBackwardNode::check_backward_options(const AttentionDims &d) {
    FE_CHECK(!score_mod().given() || score_mod_grad().given(), FE_STATUS_INVALID_ARGUMENT,
             "options.score_mod_input needs options.score_mod_grad_input and score_mod_grad_output: the "
             "gradients pass through the score modifier, and its derivative is the caller's to give");
    FE_CHECK(!dsink_ || has_sink(), FE_STATUS_INVALID_ARGUMENT,
             "output_dsink needs the forward's sinks (options->sink_token)");
    FE_CHECK(dsink_ || !has_sink(), FE_STATUS_INVALID_ARGUMENT,
             "sink_token in the backward serves only dSink (dQ, dK and dV read the stats, which include the "
             "sinks): set output_dsink, or leave sink_token out");
    if (dsink_) {
        const std::vector<int64_t> sink_dims = {1, d.h_q, 1, 1};
        assign_inferred_shape(outputs.back(), sink_dims, packed_strides(sink_dims));
    }
}

void AttentionBackwardNode::lower_sink_gradient(Lowering &lowering, const Descriptor &row_dot,
                                                const std::vector<int64_t> &rows,
                                                const std::vector<int64_t> &row_strides, fe_data_type compute,
                                                const std::string &what) const {
    // The pattern cuDNN's engines match writes the sum without the minus sign and negates it
    // themselves.
    const Descriptor &centered = float_step(lowering, FE_POINTWISE_SUB, sink(lowering),
                                            &lowering.tensor(inputs[kStatsInput]), rows, row_strides, compute,
                                            what + " sink - stats");
    const Descriptor &p =
        float_step(lowering, FE_POINTWISE_EXP, centered, nullptr, rows, row_strides, compute, what + " sink probability");
    const Descriptor &per_row = float_step(lowering, FE_POINTWISE_MUL, p, &row_dot, rows, row_strides, compute,
                                           what + " sink gradient per row");
    emit_reduction(lowering, FE_REDUCTION_ADD, per_row, lowering.tensor(outputs.back()), compute, what + " dSink");
}

const Descriptor &AttentionBackwardNode::through_score_modifiers(Lowering &lowering, const Descriptor &ds,
                                                                 const Descriptor *capped,
                                                                 const std::vector<int64_t> &scores,
                                                                 const std::vector<int64_t> &score_strides,
                                                                 fe_data_type compute, const std::string &what) const {
    const Descriptor *out = &ds;
    if (capped) {
        // d(cap * tanh(s / cap)) / ds = 1 - tanh^2(s / cap), written as cuDNN's engines match it
        // (times the cap, tanh's derivative at s / cap, over the cap).
        const Descriptor &cap = lowering.internal_scalar(options_.softcap, FE_DATA_FLOAT, 4);
        const Descriptor &times_cap = float_step(lowering, FE_POINTWISE_MUL, *out, &cap, scores, score_strides,
                                                 compute, what + " dS softcap multiply");
        const Descriptor &through_tanh = float_step(lowering, FE_POINTWISE_TANH_BWD, times_cap, capped, scores,
                                                    score_strides, compute, what + " dS softcap tanh");
        const Descriptor &divided = float_step(lowering, FE_POINTWISE_DIV, through_tanh, &cap, scores, score_strides,
                                               compute, what + " dS softcap divide");
        out = &divided;
    }
    if (score_mod_grad().given()) out = &lower_score_modifier(lowering, score_mod_grad(), *out);
    return *out;
}

}  // namespace fe
