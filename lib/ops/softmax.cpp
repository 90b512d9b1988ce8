// Softmax over the last dim, with the log-sum-exp statistics as an optional output. cuDNN's graph
// API has no softmax operation: it is lowered as the composite attention uses (row max,
// subtract, exp, row sum, divide; stats = max + log(sum)), one operation graph.

// include/cudnnfe.h, section "Reduction and softmax" (copied there by scripts/schema/generate_header.py):
// typedef struct fe_softmax_options {
//     uint32_t struct_size;
//     const char *name;
//     fe_data_type compute_data_type; /* default: the graph's */
//     /* Also return the float log-sum-exp statistics, max + log(sum(exp(x - max))), per row. */
//     int32_t generate_stats;
// } fe_softmax_options;
// #define FE_SOFTMAX_OPTIONS_INIT { (uint32_t)sizeof(fe_softmax_options), NULL, FE_DATA_NOT_SET, 0 }
//
// /** Softmax over the last dim: y = exp(x - max) / sum(exp(x - max)); x [rows..., n] (rank >= 2),
//  *  y like x. With options->generate_stats, out_stats receives the float statistics
//  *  [rows..., 1]; otherwise it is nullable and set to NULL. options nullable.
//  *  cuDNN has no native softmax: this lowers to reductions and pointwise operations, which
//  *  cuDNN 9.19's engines run only fused between two matmuls (S = A.B, P = softmax(S), O = P.C: the
//  *  attention pattern). A graph with a softmax on its own fails the support check with
//  *  FE_STATUS_NOT_SUPPORTED and a message saying so; for attention prefer fe_graph_sdpa. */
// FE_API fe_status fe_graph_softmax(fe_graph *graph, fe_tensor *x, const fe_softmax_options *options,
//                                   fe_tensor **out_y, fe_tensor **out_stats);

#include <cudnn_graph.h>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "ops/graph_ops.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"
#include "schema/option_fields.hpp"
#include "schema/schema.hpp"

namespace fe {

namespace {

class Softmax : public Node {
  public:
    Softmax(fe_tensor *x, const fe_softmax_options &o) : stats_(o.generate_stats != 0) {
        inputs = {x};
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return "softmax"; }
    const char *input_port(size_t) const override { return "X"; }

    std::vector<int64_t> row_dims() const {
        std::vector<int64_t> rows = inputs[0]->dims;
        rows.back() = 1;
        return rows;
    }

    void infer() override {
        const fe_tensor *x = inputs[0];
        FE_CHECK(x->dims.size() >= 2, FE_STATUS_INVALID_ARGUMENT,
                 "x '%s' has rank %zu; softmax takes [rows..., n] with at least 2 dims", x->name.c_str(),
                 x->dims.size());
        fe_data_type t = x->data_type;
        FE_CHECK(t == FE_DATA_NOT_SET || t == FE_DATA_HALF || t == FE_DATA_BFLOAT16 || t == FE_DATA_FLOAT,
                 FE_STATUS_INVALID_ARGUMENT, "x '%s' is %s; softmax takes half, bfloat16 or float", x->name.c_str(),
                 data_type_name(t));
        assign_inferred_shape(outputs[0], x->dims, x->strides);
        if (stats_) assign_inferred_shape(outputs[1], row_dims(), x->strides);
    }

    std::string attributes() const override { return stats_ ? "axis=last stats" : "axis=last"; }
    void write_attributes(AttributeWriter &out) const override {
        fe_softmax_options o = FE_SOFTMAX_OPTIONS_INIT;
        o.generate_stats = stats_;
        write_option_attributes(out, op_schema(kind()), &o, 0);
    }

    std::string unsupported_hint() const override {
        return explanation(Feature::standalone_softmax, cudnn().cudnnGetVersion());
    }

    void lower(Lowering &lowering) const override {
        const fe_tensor *x = inputs[0];
        if (stats_ && reads_keys_contiguous(x))
            lowering.require(Feature::softmax_stats_keys_contiguous);
        fe_data_type compute = lowering.compute_type(*this);
        std::vector<int64_t> dims, strides, rows, row_strides;
        lowering.lowered_shape(x, &dims, &strides);
        rows = dims;
        rows.back() = 1;
        row_strides = strides_in_order_of(rows, strides);
        const fe_pointwise_options pw = FE_POINTWISE_OPTIONS_INIT;
        const std::string what = "softmax '" + name + "'";
        const Descriptor &in = lowering.tensor(x);
        const Descriptor &row_max = lowering.internal_tensor(rows, row_strides, FE_DATA_FLOAT);
        emit_reduction(lowering, FE_REDUCTION_MAX, in, row_max, compute, what + " row max");
        const Descriptor &centered = lowering.internal_tensor(dims, strides, FE_DATA_FLOAT);
        emit_pointwise(lowering, FE_POINTWISE_SUB, in, &row_max, nullptr, centered, compute, pw, 0, what + " x - max");
        const Descriptor &exps = lowering.internal_tensor(dims, strides, FE_DATA_FLOAT);
        emit_pointwise(lowering, FE_POINTWISE_EXP, centered, nullptr, nullptr, exps, compute, pw, 0, what + " exp");
        const Descriptor &row_sum = lowering.internal_tensor(rows, row_strides, FE_DATA_FLOAT);
        emit_reduction(lowering, FE_REDUCTION_ADD, exps, row_sum, compute, what + " row sum");
        emit_pointwise(lowering, FE_POINTWISE_DIV, exps, &row_sum, nullptr, lowering.tensor(outputs[0]), compute, pw, 0,
                       what + " normalize");
        if (stats_) {
            const Descriptor &log_sum = lowering.internal_tensor(rows, row_strides, FE_DATA_FLOAT);
            emit_pointwise(lowering, FE_POINTWISE_LOG, row_sum, nullptr, nullptr, log_sum, compute, pw, 0,
                           what + " log sum");
            emit_pointwise(lowering, FE_POINTWISE_ADD, row_max, &log_sum, nullptr, lowering.tensor(outputs[1]), compute,
                           pw, 0, what + " stats");
        }
    }

  private:
    // Whether the scores come, through pointwise steps, from a matmul whose B has its last dim
    // longer than one and contiguous (K^T laid out with the keys contiguous).
    static bool reads_keys_contiguous(const fe_tensor *scores) {
        const fe_tensor *t = scores;
        for (int depth = 0; t && t->is_virtual() && depth < 16; ++depth) {
            const Node *producer = t->producer;
            if (std::string(producer->kind()) == "matmul") {
                const fe_tensor *b = producer->inputs.size() > 1 ? producer->inputs[1] : nullptr;
                return b && b->dims.size() >= 2 && b->dims.back() > 1 && b->strides.back() == 1;
            }
            if (!producer->is_pointwise()) return false;
            t = producer->inputs.empty() ? nullptr : producer->inputs[0];
        }
        return false;
    }

    bool stats_;
};

const schema::Struct kSoftmaxOptions = FE_SCHEMA_OPTIONS(fe_softmax_options, FE_SOFTMAX_OPTIONS_INIT,
    "A softmax's name, math type and statistics.",
    FE_SCHEMA_NAME_FIELD(fe_softmax_options),
    FE_SCHEMA_COMPUTE_FIELD(fe_softmax_options),
    FE_SCHEMA_FIELD(fe_softmax_options, generate_stats, flag, "Also return the log-sum-exp statistics."));

const schema::Op kSoftmax{"softmax",
                  "fe_graph_softmax",
                  "Reduction and softmax",
                  {{"X", nullptr, "[rows..., n]"}},
                  {{"Y", nullptr, "like x"}, {"Stats", "generate_stats", "float [rows..., 1]: max + log(sum(exp))"}},
                  {},
                  &kSoftmaxOptions,
                  {},
                  true,
                  "Softmax over the last dim."};

// The stats are float whatever x's type.
const std::vector<fe_tensor *> &add_softmax(fe_graph &g, const schema::Call &c) {
    const auto &o = c.options_as<fe_softmax_options>();
    std::vector<const char *> ports = {"Y"};
    if (o.generate_stats) ports.push_back("Stats");
    Results outputs = g.add_op(std::make_unique<Softmax>(c.inputs[0], o), o.name, "softmax", ports);
    if (o.generate_stats) keep_float(outputs[1]);
    return outputs;
}

const schema::Registration kRegistered(kSoftmax, add_softmax);

}  // namespace

}  // namespace fe
