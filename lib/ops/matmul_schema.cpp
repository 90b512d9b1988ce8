// The matmuls' descriptions (lib/schema/schema.hpp): matmul, matmul_fp8, fe_matmul_options and
// fe_matmul_fp8_scales.
#include "ops/graph_ops.hpp"
#include "schema/schema.hpp"

namespace fe::schema {

namespace {

const fe_matmul_options kMatmulDefaults = FE_MATMUL_OPTIONS_INIT;
const fe_matmul_fp8_scales kScalesDefaults = FE_MATMUL_FP8_SCALES_INIT;

const Struct kMatmulOptions{"fe_matmul_options",
                            sizeof(fe_matmul_options),
                            &kMatmulDefaults,
                            {
                                FE_SCHEMA_FIELD(fe_matmul_options, name, name, "The op's name; automatic when absent."),
                                FE_SCHEMA_FIELD(fe_matmul_options, compute_data_type, data_type,
                                                "Math type; not_set: the graph's."),
                                FE_SCHEMA_TENSOR(fe_matmul_options, m_override, nullptr,
                                                 "Per batch: the rows computed, int32 [batch..., 1, 1]."),
                                FE_SCHEMA_TENSOR(fe_matmul_options, n_override, nullptr,
                                                 "Per batch: the columns computed, int32 [batch..., 1, 1]."),
                                FE_SCHEMA_TENSOR(fe_matmul_options, k_override, nullptr,
                                                 "Per batch: where the sum stops, int32 [batch..., 1, 1]."),
                                FE_SCHEMA_FIELD(fe_matmul_options, padding_value, number,
                                                "With an M or N override: C's value outside them."),
                            },
                            "A matmul's name, math type and variable-length overrides."};

const Struct kFp8Scales{"fe_matmul_fp8_scales",
                        sizeof(fe_matmul_fp8_scales),
                        &kScalesDefaults,
                        {
                            FE_SCHEMA_TENSOR(fe_matmul_fp8_scales, descale_a, nullptr, "Turns A's FP8 values into real ones."),
                            FE_SCHEMA_TENSOR(fe_matmul_fp8_scales, descale_b, nullptr, "Turns B's FP8 values into real ones."),
                            FE_SCHEMA_TENSOR(fe_matmul_fp8_scales, scale_c, nullptr, "Quantizes the product into C."),
                        },
                        "FP8 matmul's scaling factors: one-element float tensors, all required."};

const Op kMatmul{"matmul",
                 "fe_graph_matmul",
                 "Matmuls",
                 {{"A", nullptr, "[..., M, K]"}, {"B", nullptr, "[..., K, N]"}},
                 {{"C", nullptr, "[..., M, N]; batch dims broadcast"}},
                 {},
                 &kMatmulOptions,
                 {},
                 true,
                 "C = A x B."};

const Op kMatmulFp8{"matmul_fp8",
                    "fe_graph_matmul_fp8",
                    "Matmuls",
                    {{"A", nullptr, "[..., M, K], fp8"},
                     {"B", nullptr, "[..., K, N], fp8"}},
                    {{"C", nullptr, "[..., M, N], A's FP8 type unless set"},
                     {"Amax", nullptr, "the largest absolute value of the product before scale_c"}},
                    {},
                    &kMatmulOptions,
                    {"name", "compute_data_type"},
                    true,
                    "FP8 matmul with descales, a scaled result and its amax (Hopper and later).",
                    nullptr,
                    &kFp8Scales};

const std::vector<fe_tensor *> &add_plain(fe_graph &g, const Call &c) {
    return add_matmul(g, c.inputs[0], c.inputs[1], c.options_as<fe_matmul_options>());
}
const std::vector<fe_tensor *> &add_fp8(fe_graph &g, const Call &c) {
    return add_matmul_fp8(g, c.inputs[0], c.inputs[1], c.scales_as<fe_matmul_fp8_scales>(),
                          c.options_as<fe_matmul_options>());
}

const Registration kRegistered[] = {Registration(kMatmul, add_plain), Registration(kMatmulFp8, add_fp8)};

}  // namespace

}  // namespace fe::schema
