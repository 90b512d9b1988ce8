// The pointwise family's description (lib/schema/schema.hpp): one op kind per fe_pointwise_mode,
// and fe_pointwise_options.
#include "schema/schema.hpp"

namespace fe::schema {

namespace {

const fe_pointwise_options kDefaults = FE_POINTWISE_OPTIONS_INIT;

// The op kinds: lib/ops/pointwise.cpp names its nodes by them.
const Enum kPointwiseMode{"fe_pointwise_mode",
                          {
     {"FE_POINTWISE_ADD", "add", FE_POINTWISE_ADD},
     {"FE_POINTWISE_MUL", "mul", FE_POINTWISE_MUL},
     {"FE_POINTWISE_MIN", "min", FE_POINTWISE_MIN},
     {"FE_POINTWISE_MAX", "max", FE_POINTWISE_MAX},
     {"FE_POINTWISE_SQRT", "sqrt", FE_POINTWISE_SQRT},
     {"FE_POINTWISE_ADD_SQUARE", "add_square", FE_POINTWISE_ADD_SQUARE},
     {"FE_POINTWISE_DIV", "div", FE_POINTWISE_DIV},
     {"FE_POINTWISE_MOD", "mod", FE_POINTWISE_MOD},
     {"FE_POINTWISE_POW", "pow", FE_POINTWISE_POW},
     {"FE_POINTWISE_SUB", "sub", FE_POINTWISE_SUB},
     {"FE_POINTWISE_ABS", "abs", FE_POINTWISE_ABS},
     {"FE_POINTWISE_CEIL", "ceil", FE_POINTWISE_CEIL},
     {"FE_POINTWISE_COS", "cos", FE_POINTWISE_COS},
     {"FE_POINTWISE_EXP", "exp", FE_POINTWISE_EXP},
     {"FE_POINTWISE_FLOOR", "floor", FE_POINTWISE_FLOOR},
     {"FE_POINTWISE_LOG", "log", FE_POINTWISE_LOG},
     {"FE_POINTWISE_NEG", "neg", FE_POINTWISE_NEG},
     {"FE_POINTWISE_RSQRT", "rsqrt", FE_POINTWISE_RSQRT},
     {"FE_POINTWISE_SIN", "sin", FE_POINTWISE_SIN},
     {"FE_POINTWISE_TAN", "tan", FE_POINTWISE_TAN},
     {"FE_POINTWISE_ERF", "erf", FE_POINTWISE_ERF},
     {"FE_POINTWISE_IDENTITY", "identity", FE_POINTWISE_IDENTITY},
     {"FE_POINTWISE_RECIPROCAL", "reciprocal", FE_POINTWISE_RECIPROCAL},
     {"FE_POINTWISE_ATAN2", "atan2", FE_POINTWISE_ATAN2},
     {"FE_POINTWISE_RELU_FWD", "relu", FE_POINTWISE_RELU_FWD},
     {"FE_POINTWISE_TANH_FWD", "tanh", FE_POINTWISE_TANH_FWD},
     {"FE_POINTWISE_SIGMOID_FWD", "sigmoid", FE_POINTWISE_SIGMOID_FWD},
     {"FE_POINTWISE_ELU_FWD", "elu", FE_POINTWISE_ELU_FWD},
     {"FE_POINTWISE_GELU_FWD", "gelu", FE_POINTWISE_GELU_FWD},
     {"FE_POINTWISE_SOFTPLUS_FWD", "softplus", FE_POINTWISE_SOFTPLUS_FWD},
     {"FE_POINTWISE_SWISH_FWD", "swish", FE_POINTWISE_SWISH_FWD},
     {"FE_POINTWISE_GELU_APPROX_TANH_FWD", "gelu_tanh", FE_POINTWISE_GELU_APPROX_TANH_FWD},
     {"FE_POINTWISE_RELU_BWD", "relu_backward", FE_POINTWISE_RELU_BWD},
     {"FE_POINTWISE_TANH_BWD", "tanh_backward", FE_POINTWISE_TANH_BWD},
     {"FE_POINTWISE_SIGMOID_BWD", "sigmoid_backward", FE_POINTWISE_SIGMOID_BWD},
     {"FE_POINTWISE_ELU_BWD", "elu_backward", FE_POINTWISE_ELU_BWD},
     {"FE_POINTWISE_GELU_BWD", "gelu_backward", FE_POINTWISE_GELU_BWD},
     {"FE_POINTWISE_SOFTPLUS_BWD", "softplus_backward", FE_POINTWISE_SOFTPLUS_BWD},
     {"FE_POINTWISE_SWISH_BWD", "swish_backward", FE_POINTWISE_SWISH_BWD},
     {"FE_POINTWISE_GELU_APPROX_TANH_BWD", "gelu_tanh_backward", FE_POINTWISE_GELU_APPROX_TANH_BWD},
     {"FE_POINTWISE_CMP_EQ", "cmp_eq", FE_POINTWISE_CMP_EQ},
     {"FE_POINTWISE_CMP_NEQ", "cmp_neq", FE_POINTWISE_CMP_NEQ},
     {"FE_POINTWISE_CMP_GT", "cmp_gt", FE_POINTWISE_CMP_GT},
     {"FE_POINTWISE_CMP_GE", "cmp_ge", FE_POINTWISE_CMP_GE},
     {"FE_POINTWISE_CMP_LT", "cmp_lt", FE_POINTWISE_CMP_LT},
     {"FE_POINTWISE_CMP_LE", "cmp_le", FE_POINTWISE_CMP_LE},
     {"FE_POINTWISE_LOGICAL_AND", "logical_and", FE_POINTWISE_LOGICAL_AND},
     {"FE_POINTWISE_LOGICAL_OR", "logical_or", FE_POINTWISE_LOGICAL_OR},
     {"FE_POINTWISE_LOGICAL_NOT", "logical_not", FE_POINTWISE_LOGICAL_NOT},
     {"FE_POINTWISE_GEN_INDEX", "gen_index", FE_POINTWISE_GEN_INDEX},
     {"FE_POINTWISE_BINARY_SELECT", "binary_select", FE_POINTWISE_BINARY_SELECT},
                          },
                          "The pointwise modes; each mode's JSON name is its op kind."};

const Struct kOptions{
    "fe_pointwise_options",
    sizeof(fe_pointwise_options),
    &kDefaults,
    {
        FE_SCHEMA_FIELD(fe_pointwise_options, name, name, "The op's name; automatic when absent."),
        FE_SCHEMA_FIELD(fe_pointwise_options, compute_data_type, data_type, "Math type; not_set: the graph's."),
        FE_SCHEMA_FIELD(fe_pointwise_options, relu_lower_clip, number, "relu, relu_backward: the lower clip."),
        FE_SCHEMA_FIELD(fe_pointwise_options, relu_upper_clip, number, "relu, relu_backward: the upper clip (1e300: none)."),
        FE_SCHEMA_FIELD(fe_pointwise_options, relu_lower_clip_slope, number,
                        "relu, relu_backward: the leaky slope below the lower clip."),
        FE_SCHEMA_FIELD(fe_pointwise_options, elu_alpha, number, "elu, elu_backward: alpha."),
        FE_SCHEMA_FIELD(fe_pointwise_options, softplus_beta, number, "softplus, softplus_backward: beta."),
        FE_SCHEMA_FIELD(fe_pointwise_options, swish_beta, number, "swish, swish_backward: beta (1: silu)."),
        FE_SCHEMA_RANGE(fe_pointwise_options, axis, integer, 0, 7, "gen_index: the dim whose index is generated."),
    },
    "A pointwise operation's name, math type and the parameters of its mode."};

const Op kPointwise{"pointwise",
                    "fe_graph_pointwise",
                    "Pointwise",
                    {{"IN_0", nullptr, "the first operand (backward modes: dy)"},
                     {"IN_1", "optional", "binary and backward modes: the second operand (backward modes: x)"},
                     {"IN_2", "optional", "binary_select: the mask"}},
                    {{"Y", nullptr, "the operands' broadcast dims"}},
                    {},
                    &kOptions,
                    {},
                    true,
                    "An elementwise operation; the op kind is the mode.",
                    &kPointwiseMode};

const Registration kRegistered(kPointwise);

}  // namespace

}  // namespace fe::schema
