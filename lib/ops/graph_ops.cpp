#include "ops/graph_ops.hpp"

#include <utility>

#include "common/error.hpp"
#include "ops/ops.hpp"

namespace fe {

Results add_call(fe_graph &g, std::unique_ptr<Node> node, const schema::Call &call, const char *name) {
    std::vector<const char *> ports;
    for (const schema::Port &port : call.op->outputs) {
        FE_CHECK(!port.when, FE_STATUS_INTERNAL, "%s: output %s is not always there; the op names its outputs",
                 call.op->kind, port.name);
        ports.push_back(port.name);
    }
    Results outputs = g.add_op(std::move(node), name, call.op->kind, ports);
    for (size_t i = 0; i < outputs.size(); ++i)
        if (call.op->outputs[i].type != FE_DATA_NOT_SET) {
            outputs[i]->data_type = call.op->outputs[i].type;
            outputs[i]->user_data_type = true;
        }
    return outputs;
}

void keep_float(fe_tensor *t) {
    t->data_type = FE_DATA_FLOAT;
    t->user_data_type = true;
}

void like_scale(fe_tensor *t, const fe_tensor *scale) {
    if (scale->data_type == FE_DATA_NOT_SET) return;
    t->data_type = scale->data_type;
    t->user_data_type = true;
}

}  // namespace fe
