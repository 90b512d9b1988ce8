// Descriptions of reduction and softmax (lib/schema/schema.hpp), with fe_reduction_options and
// fe_softmax_options.
#include "ops/graph_ops.hpp"
#include "schema/schema.hpp"

namespace fe::schema {

namespace {

const fe_reduction_options kReductionDefaults = FE_REDUCTION_OPTIONS_INIT;
const fe_softmax_options kSoftmaxDefaults = FE_SOFTMAX_OPTIONS_INIT;

const Enum kReductionMode{"fe_reduction_mode",
                          {{"FE_REDUCTION_ADD", "add", FE_REDUCTION_ADD},
                           {"FE_REDUCTION_MUL", "mul", FE_REDUCTION_MUL},
                           {"FE_REDUCTION_MIN", "min", FE_REDUCTION_MIN},
                           {"FE_REDUCTION_MAX", "max", FE_REDUCTION_MAX},
                           {"FE_REDUCTION_AMAX", "amax", FE_REDUCTION_AMAX},
                           {"FE_REDUCTION_AVG", "avg", FE_REDUCTION_AVG},
                           {"FE_REDUCTION_NORM1", "norm1", FE_REDUCTION_NORM1},
                           {"FE_REDUCTION_NORM2", "norm2", FE_REDUCTION_NORM2},
                           {"FE_REDUCTION_MUL_NO_ZEROS", "mul_no_zeros", FE_REDUCTION_MUL_NO_ZEROS}},
                          "What a reduction computes over the reduced dims."};

const Struct kReductionOptions{
    "fe_reduction_options",
    sizeof(fe_reduction_options),
    &kReductionDefaults,
    {
        FE_SCHEMA_FIELD(fe_reduction_options, name, name, "The op's name; automatic when absent."),
        FE_SCHEMA_FIELD(fe_reduction_options, compute_data_type, data_type, "Math type; not_set: the graph's."),
        FE_SCHEMA_FIELD(fe_reduction_options, reduce_axes, axes, "The reduced dims (in C a bit mask, bit i for dim i); at least one."),
        FE_SCHEMA_FIELD(fe_reduction_options, deterministic, flag, "Bitwise-repeatable results (cuDNN 9.11)."),
    },
    "A reduction's name, math type and reduced dims."};

const Struct kSoftmaxOptions{
    "fe_softmax_options",
    sizeof(fe_softmax_options),
    &kSoftmaxDefaults,
    {
        FE_SCHEMA_FIELD(fe_softmax_options, name, name, "The op's name; automatic when absent."),
        FE_SCHEMA_FIELD(fe_softmax_options, compute_data_type, data_type, "Math type; not_set: the graph's."),
        FE_SCHEMA_FIELD(fe_softmax_options, generate_stats, flag, "Also return the log-sum-exp statistics."),
    },
    "A softmax's name, math type and statistics."};

const Op kReduction{"reduction",
                    "fe_graph_reduction",
                    "Reduction and softmax",
                    {{"X", nullptr, "the input"}},
                    {{"Y", nullptr, "x's rank, 1 in the reduced dims"}},
                    {{"mode", Type::enumeration, &kReductionMode, true, "What is computed."}},
                    &kReductionOptions,
                    {},
                    true,
                    "Reduce over the dims in reduce_axes."};

const Op kSoftmax{"softmax",
                  "fe_graph_softmax",
                  "Reduction and softmax",
                  {{"X", nullptr, "[rows..., n]"}},
                  {{"Y", nullptr, "like x"}, {"Stats", "generate_stats", "float [rows..., 1]: max + log(sum(exp))"}},
                  {},
                  &kSoftmaxOptions,
                  {},
                  true,
                  "Softmax over the last dim."};

const std::vector<fe_tensor *> &add_softmax_call(fe_graph &g, const Call &c) {
    return add_softmax(g, c.inputs[0], c.options_as<fe_softmax_options>());
}

const Registration kRegistered[] = {Registration(kReduction), Registration(kSoftmax, add_softmax_call)};

}  // namespace

}  // namespace fe::schema
