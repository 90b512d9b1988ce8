// Readers of the pointwise ops: one op kind per mode ("add", "relu", "gelu_tanh_backward", ...),
// with the options that mode reads.
#include "ops/ops.hpp"
#include "ops/graph_ops.hpp"
#include "schema/option_fields.hpp"
#include "serial/option_reader.hpp"
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

// The mode whose JSON name (the schema's, lib/ops/pointwise.cpp) is the kind.
fe_pointwise_mode mode_of(const std::string &kind) {
    int32_t mode = 0;
    FE_CHECK(op_schema("add").kinds->value_of(kind, &mode), FE_STATUS_INTERNAL, "'%s' is not a pointwise mode",
             kind.c_str());
    return static_cast<fe_pointwise_mode>(mode);
}

void read_pointwise(OpReader &r) {
    fe_pointwise_mode mode = mode_of(r.kind());
    fe_pointwise_options o = FE_POINTWISE_OPTIONS_INIT;
    o.name = r.name();
    o.compute_data_type = r.compute_data_type();
    switch (mode) {
        case FE_POINTWISE_RELU_FWD:
        case FE_POINTWISE_RELU_BWD:
            o.relu_lower_clip = r.number("relu_lower_clip", o.relu_lower_clip);
            o.relu_upper_clip = r.number("relu_upper_clip", o.relu_upper_clip);
            o.relu_lower_clip_slope = r.number("relu_lower_clip_slope", o.relu_lower_clip_slope);
            break;
        case FE_POINTWISE_ELU_FWD:
        case FE_POINTWISE_ELU_BWD: o.elu_alpha = r.number("elu_alpha", o.elu_alpha); break;
        case FE_POINTWISE_SOFTPLUS_FWD:
        case FE_POINTWISE_SOFTPLUS_BWD: o.softplus_beta = r.number("softplus_beta", o.softplus_beta); break;
        case FE_POINTWISE_SWISH_FWD:
        case FE_POINTWISE_SWISH_BWD: o.swish_beta = r.number("swish_beta", o.swish_beta); break;
        case FE_POINTWISE_GEN_INDEX: o.axis = r.integer("axis", o.axis); break;
        default: break;
    }
    // The C call checks the arity (a missing IN_1 of a binary mode is its error).
    fe_tensor *in0 = r.input("IN_0"), *in1 = r.optional_input("IN_1"), *in2 = r.optional_input("IN_2");
    r.add([&](fe_graph &g) { add_pointwise(g, mode, in0, in1, in2, o); });
}

}  // namespace

void register_pointwise_readers(ReaderTable &table) {
    for (const schema::EnumValue &mode : op_schema("add").kinds->values) table.add(mode.json_name, read_pointwise);
}

}  // namespace fe
