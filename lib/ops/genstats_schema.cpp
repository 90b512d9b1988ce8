// Genstats' description (lib/schema/schema.hpp): genstats and fe_genstats_options.
#include "schema/schema.hpp"

namespace fe::schema {

namespace {

const fe_genstats_options kDefaults = FE_GENSTATS_OPTIONS_INIT;

const Struct kOptions{"fe_genstats_options",
                      sizeof(fe_genstats_options),
                      &kDefaults,
                      {
                          FE_SCHEMA_FIELD(fe_genstats_options, name, name, "The op's name; automatic when absent."),
                          FE_SCHEMA_FIELD(fe_genstats_options, compute_data_type, data_type,
                                          "Math type; not_set: the graph's."),
                      },
                      "Genstats' name and math type."};

const Op kGenstats{"genstats",
                   "fe_graph_genstats",
                   "Normalizations",
                   {{"X", nullptr, "[N, C, spatial...], usually a convolution's result"}},
                   {{"SUM", nullptr, "float [1, C, 1, ...]: the sum per channel"},
                    {"SQ_SUM", nullptr, "float [1, C, 1, ...]: the sum of squares per channel"}},
                   {},
                   &kOptions,
                   {},
                   true,
                   "Batch normalization's statistics: per-channel sum and sum of squares."};

const Registration kRegistered(kGenstats);

}  // namespace

}  // namespace fe::schema
