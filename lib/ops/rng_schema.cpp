// Descriptions of random draws and block scaling (lib/schema/schema.hpp): rng,
// block_scale_quantize, block_scale_dequantize, fe_rng_options and fe_block_scale_options.
#include "ops/graph_ops.hpp"
#include "schema/schema.hpp"

namespace fe::schema {

namespace {

const fe_rng_options kRngDefaults = FE_RNG_OPTIONS_INIT;
const fe_block_scale_options kBlockDefaults = FE_BLOCK_SCALE_OPTIONS_INIT;

const Enum kDistribution{"fe_rng_distribution",
                         {{"FE_RNG_BERNOULLI", "bernoulli", FE_RNG_BERNOULLI},
                          {"FE_RNG_UNIFORM", "uniform", FE_RNG_UNIFORM},
                          {"FE_RNG_NORMAL", "normal", FE_RNG_NORMAL}},
                         "The distribution of a random draw."};

const Struct kRngOptions{
    "fe_rng_options",
    sizeof(fe_rng_options),
    &kRngDefaults,
    {
        FE_SCHEMA_FIELD(fe_rng_options, name, name, "The op's name; automatic when absent."),
        FE_SCHEMA_ENUM(fe_rng_options, distribution, kDistribution, "The distribution."),
        FE_SCHEMA_RANGE(fe_rng_options, probability, number, 0, 1, "bernoulli: the probability of a 1."),
        FE_SCHEMA_FIELD(fe_rng_options, min, number, "uniform: the lower bound (included)."),
        FE_SCHEMA_FIELD(fe_rng_options, max, number, "uniform: the upper bound (excluded)."),
        FE_SCHEMA_FIELD(fe_rng_options, mean, number, "normal: the mean."),
        FE_SCHEMA_FIELD(fe_rng_options, std, number, "normal: the standard deviation (> 0)."),
        FE_SCHEMA_RANGE(fe_rng_options, ndims, dims_count, 1, FE_MAX_DIMS, "The result's rank."),
        FE_SCHEMA_RANGE(fe_rng_options, dims, dims_array, 1, ::fe::schema::kNoMaximum, "The result's dims (packed row-major)."),
        FE_SCHEMA_FIELD(fe_rng_options, data_type, data_type, "The result's type; not_set: the graph's intermediate type."),
    },
    "A random draw's distribution and result."};

const Struct kBlockOptions{
    "fe_block_scale_options",
    sizeof(fe_block_scale_options),
    &kBlockDefaults,
    {
        FE_SCHEMA_FIELD(fe_block_scale_options, name, name, "The op's name; automatic when absent."),
        FE_SCHEMA_FIELD(fe_block_scale_options, compute_data_type, data_type, "Math type; not_set: the graph's."),
        FE_SCHEMA_RANGE(fe_block_scale_options, block_size, integer, 1, 2147483647,
                        "Elements per scale along the last dim (32: MXFP8)."),
        FE_SCHEMA_RANGE(fe_block_scale_options, block_rows, integer, 1, 2147483647,
                        "Elements per scale along the second-to-last dim (general block scaling)."),
    },
    "Block scaling's block size."};

const Op kRng{"rng",
              "fe_graph_rng",
              "Random numbers and block scaling",
              {{"Seed", nullptr, "int64, one element"}, {"Offset", nullptr, "int64, one element"}},
              {{"Y", nullptr, "options.dims, packed"}},
              {},
              &kRngOptions,
              {},
              false,
              "Random numbers drawn by cuDNN (Philox)."};

const Op kQuantize{"block_scale_quantize",
                   "fe_graph_block_scale_quantize",
                   "Random numbers and block scaling",
                   {{"X", nullptr, "[..., n], float, half or bfloat16"}},
                   {{"Y", nullptr, "[..., n], fp8"}, {"Scale", nullptr, "[..., n / block_size], fp8_e8m0"}},
                   {},
                   &kBlockOptions,
                   {"name", "compute_data_type", "block_size"},
                   true,
                   "Block-scale quantize (MXFP8)."};

const Op kDequantize{"block_scale_dequantize",
                     "fe_graph_block_scale_dequantize",
                     "Random numbers and block scaling",
                     {{"X", nullptr, "[..., m, n]: fp8 (MXFP8); fp8, half or bfloat16 (general)"},
                      {"Scale", nullptr,
                       "[..., m / block_rows, n / block_size] (rounded up): fp8_e8m0 (MXFP8); float, half or "
                       "bfloat16 (general)"}},
                     {{"Y", nullptr, "x's dims and strides"}},
                     {},
                     &kBlockOptions,
                     {},
                     true,
                     "Block-scale dequantize (MXFP8, or general block scaling before a matmul)."};

const std::vector<fe_tensor *> &add_rng_call(fe_graph &g, const Call &c) {
    return add_rng(g, c.inputs[0], c.inputs[1], c.options_as<fe_rng_options>());
}
const std::vector<fe_tensor *> &add_quantize_call(fe_graph &g, const Call &c) {
    return add_block_scale_quantize(g, c.inputs[0], c.options_as<fe_block_scale_options>());
}
const std::vector<fe_tensor *> &add_dequantize_call(fe_graph &g, const Call &c) {
    return add_block_scale_dequantize(g, c.inputs[0], c.inputs[1], c.options_as<fe_block_scale_options>());
}

const Registration kRegistered[] = {Registration(kRng, add_rng_call), Registration(kQuantize, add_quantize_call), Registration(kDequantize, add_dequantize_call)};

}  // namespace

}  // namespace fe::schema
