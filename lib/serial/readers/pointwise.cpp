// Readers of the pointwise ops: one op kind per mode ("add", "relu", "gelu_tanh_backward", ...),
// with the options that mode reads.
#include "ops/ops.hpp"
#include "ops/graph_ops.hpp"
#include "serial/option_codec.hpp"
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

// Every fe_pointwise_mode of include/cudnnfe.h.
const fe_pointwise_mode kModes[] = {
    FE_POINTWISE_ADD,         FE_POINTWISE_MUL,          FE_POINTWISE_MIN,
    FE_POINTWISE_MAX,         FE_POINTWISE_SQRT,         FE_POINTWISE_ADD_SQUARE,
    FE_POINTWISE_DIV,         FE_POINTWISE_MOD,          FE_POINTWISE_POW,
    FE_POINTWISE_SUB,         FE_POINTWISE_ABS,          FE_POINTWISE_CEIL,
    FE_POINTWISE_COS,         FE_POINTWISE_EXP,          FE_POINTWISE_FLOOR,
    FE_POINTWISE_LOG,         FE_POINTWISE_NEG,          FE_POINTWISE_RSQRT,
    FE_POINTWISE_SIN,         FE_POINTWISE_TAN,          FE_POINTWISE_ERF,
    FE_POINTWISE_IDENTITY,    FE_POINTWISE_RECIPROCAL,   FE_POINTWISE_ATAN2,
    FE_POINTWISE_RELU_FWD,    FE_POINTWISE_TANH_FWD,     FE_POINTWISE_SIGMOID_FWD,
    FE_POINTWISE_ELU_FWD,     FE_POINTWISE_GELU_FWD,     FE_POINTWISE_SOFTPLUS_FWD,
    FE_POINTWISE_SWISH_FWD,   FE_POINTWISE_GELU_APPROX_TANH_FWD,
    FE_POINTWISE_RELU_BWD,    FE_POINTWISE_TANH_BWD,     FE_POINTWISE_SIGMOID_BWD,
    FE_POINTWISE_ELU_BWD,     FE_POINTWISE_GELU_BWD,     FE_POINTWISE_SOFTPLUS_BWD,
    FE_POINTWISE_SWISH_BWD,   FE_POINTWISE_GELU_APPROX_TANH_BWD,
    FE_POINTWISE_CMP_EQ,      FE_POINTWISE_CMP_NEQ,      FE_POINTWISE_CMP_GT,
    FE_POINTWISE_CMP_GE,      FE_POINTWISE_CMP_LT,       FE_POINTWISE_CMP_LE,
    FE_POINTWISE_LOGICAL_AND, FE_POINTWISE_LOGICAL_OR,   FE_POINTWISE_LOGICAL_NOT,
    FE_POINTWISE_GEN_INDEX,   FE_POINTWISE_BINARY_SELECT,
};

fe_pointwise_mode mode_of(const std::string &kind) {
    for (fe_pointwise_mode m : kModes)
        if (kind == pointwise_mode_name(m)) return m;
    FE_FAIL(FE_STATUS_INTERNAL, "'%s' is not a pointwise mode", kind.c_str());
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
    for (fe_pointwise_mode m : kModes) table.add(pointwise_mode_name(m), read_pointwise);
}

}  // namespace fe
