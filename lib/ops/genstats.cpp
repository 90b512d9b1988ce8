// Genstats: the per-channel sum and sum of squares of a tensor (batch normalization's
// statistics), which cuDNN fuses after the convolution that produces the tensor. The whole op in
// one file: its node, its description and its entry point; the graph JSON reader, the docs and
// the bindings' layers come from the description.

// include/cudnnfe.h, section "Normalizations" (copied there by scripts/schema/generate_header.py):
// typedef struct fe_genstats_options {
//     uint32_t struct_size;
//     const char *name;               /* nullable: "genstats_<n>" */
//     fe_data_type compute_data_type; /* default: the graph's (float) */
// } fe_genstats_options;
// #define FE_GENSTATS_OPTIONS_INIT { (uint32_t)sizeof(fe_genstats_options), NULL, FE_DATA_NOT_SET }
//
// /** Per-channel statistics for batch normalization: out_sum and out_sq_sum receive the sum and the
//  *  sum of squares of x [N, C, spatial...] over the batch and the spatial dims, float
//  *  [1, C, 1, ...] ("<name>::SUM", "<name>::SQ_SUM"; both required). cuDNN fuses it after a
//  *  convolution whose result it reads (the statistics of a convolution's output for the
//  *  batchnorm that follows); whether cuDNN has an engine for a graph is said by the support
//  *  check. options nullable. */
// FE_API fe_status fe_graph_genstats(fe_graph *graph, fe_tensor *x, const fe_genstats_options *options,
//                                    fe_tensor **out_sum, fe_tensor **out_sq_sum);

#include <cudnn_graph.h>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "ops/graph_ops.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"
#include "schema/schema.hpp"
#include "schema/option_fields.hpp"

namespace fe {

namespace {

class Genstats : public Node {
  public:
    Genstats(fe_tensor *x, const fe_genstats_options &o) {
        inputs = {x};
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return "genstats"; }
    const char *input_port(size_t) const override { return "X"; }

    void infer() override {
        const fe_tensor *x = inputs[0];
        FE_CHECK(x->dims.size() >= 3 && x->dims.size() <= 5, FE_STATUS_INVALID_ARGUMENT,
                 "x '%s' has rank %zu; genstats takes [N, C, spatial...] (rank 3 to 5)", x->name.c_str(),
                 x->dims.size());
        // One value per channel, laid out like x (channels-last stays channels-last).
        std::vector<int64_t> stats(x->dims.size(), 1);
        stats[1] = x->dims[1];
        for (fe_tensor *out : outputs) assign_inferred_shape(out, stats, x->strides);
    }

    std::string unsupported_hint() const override {
        return explanation(Feature::standalone_genstats, cudnn().cudnnGetVersion());
    }

    void write_attributes(AttributeWriter &out) const override {
        fe_genstats_options o = FE_GENSTATS_OPTIONS_INIT;
        write_option_attributes(out, op_schema(kind()), &o, 0);
    }

    void lower(Lowering &lowering) const override {
        Descriptor op(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR);
        cudnnGenStatsMode_t mode = CUDNN_GENSTATS_SUM_SQSUM;
        op.set(CUDNN_ATTR_OPERATION_GENSTATS_MODE, CUDNN_TYPE_GENSTATS_MODE, 1, &mode, "CUDNN_ATTR_OPERATION_GENSTATS_MODE");
        op.set_data_type(CUDNN_ATTR_OPERATION_GENSTATS_MATH_PREC, lowering.compute_type(*this),
                         "CUDNN_ATTR_OPERATION_GENSTATS_MATH_PREC");
        op.set_desc(CUDNN_ATTR_OPERATION_GENSTATS_XDESC, lowering.tensor(inputs[0]), "genstats X");
        op.set_desc(CUDNN_ATTR_OPERATION_GENSTATS_SUMDESC, lowering.tensor(outputs[0]), "genstats SUM");
        op.set_desc(CUDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC, lowering.tensor(outputs[1]), "genstats SQ_SUM");
        lowering.finalize_and_add(std::move(op), "finalizing genstats '" + name + "'");
    }
};

const schema::Struct kOptions = FE_SCHEMA_OPTIONS(fe_genstats_options, FE_GENSTATS_OPTIONS_INIT,
    "Genstats' name and math type.",
    FE_SCHEMA_NAME_FIELD(fe_genstats_options),
    FE_SCHEMA_COMPUTE_FIELD(fe_genstats_options));

const schema::Op kGenstats{"genstats",
                           "fe_graph_genstats",
                           "Normalizations",
                           {{"X", nullptr, "[N, C, spatial...], usually a convolution's result"}},
                           {{"SUM", nullptr, "[1, C, 1, ...]: the sum per channel", {}, FE_DATA_FLOAT},
                            {"SQ_SUM", nullptr, "[1, C, 1, ...]: the sum of squares per channel", {}, FE_DATA_FLOAT}},
                           {},
                           &kOptions,
                           {},
                           true,
                           "Batch normalization's statistics: per-channel sum and sum of squares."};

const std::vector<fe_tensor *> &add_genstats(fe_graph &g, const schema::Call &call) {
    const auto &o = call.options_as<fe_genstats_options>();
    return add_call(g, std::make_unique<Genstats>(call.inputs[0], o), call, o.name);
}

const schema::Registration kRegistered(kGenstats, add_genstats);

}  // namespace

}  // namespace fe
