// fe_graph_describe: the graph as a person reads it, like the seeds' print(graph).
#include <string>

#include "common/error.hpp"
#include "plan/build_state.hpp"

namespace fe {

namespace {
std::string tensor_line(const fe_tensor *t) {
    std::string line = format("  %-24s %-9s dims=%s strides=%s", t->name.c_str(), data_type_name(t->data_type),
                              dims_string(t->dims).c_str(), dims_string(t->strides).c_str());
    if (t->has_uid) line += format(" uid=%lld", static_cast<long long>(t->uid));
    if (t->ragged_offset) line += " ragged_offset=" + t->ragged_offset->name;
    if (t->by_value) line += format(" value=%g (%s)", t->scalar_value, t->compile_time_constant ? "compile-time constant" : "by value");
    else if (t->stands_in_for) line += format(" stands for the scores in %s '%s'", t->stands_in_for->kind(), t->stands_in_for->name.c_str());
    else if (t->is_input()) line += " input";
    else if (t->is_output) line += " output";
    else line += " virtual";
    return line + "\n";
}

const char *stage_name(fe_graph::Stage stage) {
    switch (stage) {
        case fe_graph::Stage::Editing: return "not validated";
        case fe_graph::Stage::Validated: return "validated";
        case fe_graph::Stage::OperationGraph: return "operation graph built";
        case fe_graph::Stage::Candidates: return "heuristics queried";
        case fe_graph::Stage::Supported: return "supported";
        case fe_graph::Stage::Built: return "built";
    }
    return "?";
}
}  // namespace

}  // namespace fe

std::string fe_graph::describe() const {
    using namespace fe;
    std::string out = format("graph '%s' (%s): io=%s intermediate=%s compute=%s\n", name.c_str(), stage_name(stage),
                             data_type_name(io_data_type), data_type_name(intermediate_data_type),
                             data_type_name(compute_data_type));
    out += "tensors:\n";
    for (const auto &t : tensors)
        if (t->is_input()) out += tensor_line(t.get());
    out += "operations:\n";
    for (const auto &node : nodes) {
        std::string ins;
        for (size_t i = 0; i < node->inputs.size(); ++i)
            if (node->inputs[i]) ins += std::string(ins.empty() ? "" : ", ") + node->input_port(i) + "=" + node->inputs[i]->name;
        std::string attrs = node->attributes();
        if (node->absorbed_by) attrs += format("%sinside %s '%s'", attrs.empty() ? "" : " ", node->absorbed_by->kind(), node->absorbed_by->name.c_str());
        out += format("  %s '%s' (%s)%s%s compute=%s\n", node->kind(), node->name.c_str(), ins.c_str(),
                      attrs.empty() ? "" : " ", attrs.c_str(), data_type_name(resolved_compute(*node)));
        for (const fe_tensor *o : node->outputs) out += "  " + tensor_line(o);
    }
    if (build) {
        if (build->lowered.operations.empty() && !build->executable.plans.empty()) {
            out += format("cuDNN: plan from the %s (no lowering, heuristics or compilation)\n", build->origin);
        } else {
            out += format("cuDNN: %zu operation(s), %lld engines, %zu candidate(s)", build->lowered.operations.size(),
                          static_cast<long long>(build->lowered.engine_count), build->search.candidates.size());
            if (build->lowered.device_properties) out += ", deviceless (device properties JSON)";
            out += "\n";
        }
        for (const AttentionLowering &a : build->lowered.attention)
            out += format("attention '%s': %s%s\n", a.node->name.c_str(),
                          a.native ? "cuDNN's native SDPA operation" : "composite pattern (matmul, pointwise, reduction)",
                          a.automatic ? " (chosen automatically)" : "");
        if (!build->executable.plans.empty())
            out += format("plan: %s, workspace %lld bytes (%zu plan(s) built)\n", build->executable.chosen().tag.c_str(),
                          static_cast<long long>(build->executable.chosen().workspace), build->executable.plans.size());
        if (!build->search.plan_times_us.empty())
            out += format("autotuned: %.2f us median\n", build->search.plan_times_us.front());
    }
    return out;
}
