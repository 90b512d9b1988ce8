#include "ops/score_modifier.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "plan/lowering.hpp"

namespace fe {

ScoreModifier find_score_modifier(const fe_graph &graph, fe_tensor *input, fe_tensor *output,
                                  const std::set<const fe_tensor *> &readable, const char *input_field,
                                  const char *output_field) {
    ScoreModifier m;
    if (!input && !output) return m;
    FE_CHECK(input && output, FE_STATUS_INVALID_ARGUMENT,
             "options.%s is set but options.%s is not: a score modifier needs both (the tensor that stands for the "
             "scores and the chain's result)",
             input ? input_field : output_field, input ? output_field : input_field);
    FE_CHECK(input->graph == &graph && output->graph == &graph, FE_STATUS_INVALID_ARGUMENT,
             "options.%s '%s' belongs to another graph", input->graph == &graph ? output_field : input_field,
             (input->graph == &graph ? output : input)->name.c_str());
    FE_CHECK(input->is_input() && !input->by_value && !input->ragged_offset, FE_STATUS_INVALID_ARGUMENT,
             "options.%s '%s' must be a tensor declared with fe_graph_tensor (it stands for the scores), not %s",
             input_field, input->name.c_str(),
             input->by_value ? "a scalar" : (input->ragged_offset ? "a ragged tensor" : "an operation's result"));
    FE_CHECK(!input->stands_in_for, FE_STATUS_INVALID_ARGUMENT,
             "options.%s '%s' already stands for the scores of %s '%s'; declare a tensor for each", input_field,
             input->name.c_str(), input->stands_in_for->kind(), input->stands_in_for->name.c_str());
    FE_CHECK(input->data_type == FE_DATA_FLOAT || input->data_type == FE_DATA_NOT_SET, FE_STATUS_INVALID_ARGUMENT,
             "options.%s '%s' is %s; the scores are float", input_field, input->name.c_str(),
             data_type_name(input->data_type));
    FE_CHECK(output != input, FE_STATUS_INVALID_ARGUMENT,
             "options.%s is options.%s '%s': no operation modifies the scores", output_field, input_field,
             input->name.c_str());
    FE_CHECK(output->producer, FE_STATUS_INVALID_ARGUMENT,
             "options.%s '%s' is a graph input; it must be the result of pointwise operations on options.%s",
             output_field, output->name.c_str(), input_field);

    // Walk back from the result: every operation on the way is pointwise and nobody else's, and
    // the walk stops at the stand-in, at graph inputs and scalars, and at `readable`.
    std::set<const Node *> chain;
    std::vector<Node *> pending = {output->producer};
    bool reads_input = false;
    while (!pending.empty()) {
        Node *node = pending.back();
        pending.pop_back();
        if (!chain.insert(node).second) continue;
        FE_CHECK(node->is_pointwise(), FE_STATUS_INVALID_ARGUMENT,
                 "options.%s '%s' is reached through %s '%s'; a score modifier is made of pointwise operations only",
                 output_field, output->name.c_str(), node->kind(), node->name.c_str());
        FE_CHECK(!node->absorbed_by, FE_STATUS_INVALID_ARGUMENT,
                 "pointwise '%s' already modifies the scores of %s '%s'; each attention op needs its own chain",
                 node->name.c_str(), node->absorbed_by->kind(), node->absorbed_by->name.c_str());
        for (fe_tensor *in : node->inputs) {
            if (!in) continue;
            if (in == input) {
                reads_input = true;
            } else if (readable.count(in)) {
                continue;
            } else if (in->stands_in_for) {
                FE_FAIL(FE_STATUS_INVALID_ARGUMENT, "pointwise '%s' reads '%s', which stands for the scores of %s '%s'",
                        node->name.c_str(), in->name.c_str(), in->stands_in_for->kind(),
                        in->stands_in_for->name.c_str());
            } else if (in->producer) {
                pending.push_back(in->producer);
            }
        }
    }
    FE_CHECK(reads_input, FE_STATUS_INVALID_ARGUMENT,
             "options.%s '%s' does not depend on options.%s '%s': the chain must start from the scores", output_field,
             output->name.c_str(), input_field, input->name.c_str());
    m.input = input;
    m.output = output;
    for (const auto &node : graph.nodes)
        if (chain.count(node.get())) m.nodes.push_back(node.get());
    return m;
}

void absorb_score_modifier(fe_graph &graph, const ScoreModifier &m, const Node &owner) {
    if (!m.given()) return;
    m.input->stands_in_for = &owner;
    if (m.input->data_type == FE_DATA_NOT_SET) m.input->data_type = FE_DATA_FLOAT;
    graph.inputs.erase(std::remove(graph.inputs.begin(), graph.inputs.end(), m.input), graph.inputs.end());
    for (Node *node : m.nodes) node->absorbed_by = &owner;
}

std::set<const fe_tensor *> score_modifier_tensors(const ScoreModifier &m) {
    std::set<const fe_tensor *> tensors;
    if (!m.given()) return tensors;
    tensors.insert(m.input);
    for (const Node *node : m.nodes)
        for (const fe_tensor *t : node->outputs) tensors.insert(t);
    return tensors;
}

const Descriptor &lower_score_modifier(Lowering &lowering, const ScoreModifier &m, const Descriptor &scores) {
    lowering.stand_in(m.input, scores);
    for (const Node *node : m.nodes) {
        try {
            node->lower(lowering);
        } catch (const Error &e) {
            throw Error(e.status(), format("its score modifier's %s '%s': %s", node->kind(), node->name.c_str(), e.what()));
        }
    }
    return lowering.tensor(m.output);
}

}  // namespace fe
