// Scaled dot-product attention, forward. Lowered as the composite pattern cuDNN's fused
// attention engines recognise: S = Q.K^T, scaling, masks, softmax (with its stats), O = P.V,
// all in one operation graph.
#include <cudnn_graph.h>

#include <limits>

#include "common/error.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"

namespace fe {
namespace {

enum Port { kQ = 0, kK = 1, kV = 2, kScale = 3 };

class Sdpa : public Node {
  public:
    Sdpa(fe_tensor *q, fe_tensor *k, fe_tensor *v, const fe_sdpa_options &o) : options_(o) {
        inputs = {q, k, v};
        if (o.attn_scale_tensor) inputs.push_back(o.attn_scale_tensor);
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return "sdpa"; }
    const char *input_port(size_t i) const override {
        static const char *ports[] = {"Q", "K", "V", "attn_scale"};
        return i < 4 ? ports[i] : "IN";
    }

    void infer() override {
        const fe_tensor *q = inputs[kQ], *k = inputs[kK], *v = inputs[kV];
        for (const fe_tensor *t : {q, k, v}) {
            FE_CHECK(t->dims.size() == 4, FE_STATUS_INVALID_ARGUMENT,
                     "'%s' has rank %zu; attention takes [batch, heads, sequence, head dim]", t->name.c_str(),
                     t->dims.size());
            FE_CHECK(t->strides[3] == 1, FE_STATUS_INVALID_ARGUMENT,
                     "'%s' has stride %lld in its head dim; attention needs it contiguous (stride 1)", t->name.c_str(),
                     static_cast<long long>(t->strides[3]));
        }
        int64_t b = q->dims[0], h_q = q->dims[1], s_q = q->dims[2], d = q->dims[3];
        int64_t h_k = k->dims[1], s_kv = k->dims[2], d_v = v->dims[3];
        FE_CHECK(k->dims[0] == b && v->dims[0] == b, FE_STATUS_INVALID_ARGUMENT,
                 "batch sizes differ: Q %lld, K %lld, V %lld", static_cast<long long>(b),
                 static_cast<long long>(k->dims[0]), static_cast<long long>(v->dims[0]));
        FE_CHECK(k->dims[3] == d, FE_STATUS_INVALID_ARGUMENT, "Q has head dim %lld but K has %lld",
                 static_cast<long long>(d), static_cast<long long>(k->dims[3]));
        FE_CHECK(v->dims[2] == s_kv, FE_STATUS_INVALID_ARGUMENT, "K has %lld keys but V has %lld values",
                 static_cast<long long>(s_kv), static_cast<long long>(v->dims[2]));
        FE_CHECK(v->dims[1] == h_k, FE_STATUS_INVALID_ARGUMENT, "K has %lld heads but V has %lld",
                 static_cast<long long>(h_k), static_cast<long long>(v->dims[1]));
        FE_CHECK(h_q % h_k == 0, FE_STATUS_INVALID_ARGUMENT,
                 "Q has %lld heads, not a multiple of K's %lld (grouped-query attention needs one)",
                 static_cast<long long>(h_q), static_cast<long long>(h_k));
        if (inputs.size() > kScale) {
            const fe_tensor *scale = inputs[kScale];
            int64_t n = 1;
            for (int64_t x : scale->dims) n *= x;
            FE_CHECK(n == 1, FE_STATUS_INVALID_ARGUMENT, "attn_scale_tensor '%s' must hold one element, not %lld",
                     scale->name.c_str(), static_cast<long long>(n));
            if (scale->by_value && scale->dims.size() != 4) {
                inputs[kScale]->dims.assign(4, 1);
                inputs[kScale]->strides.assign(4, 1);
            }
        }
        FE_CHECK(options_.causal_mask >= FE_CAUSAL_MASK_NONE && options_.causal_mask <= FE_CAUSAL_MASK_BOTTOM_RIGHT,
                 FE_STATUS_INVALID_ARGUMENT, "unknown causal mask %d", static_cast<int>(options_.causal_mask));
        std::vector<int64_t> o_dims = {b, h_q, s_q, d_v};
        assign_inferred_shape(outputs[0], o_dims, q->strides);
        if (outputs.size() > 1) assign_inferred_shape(outputs[1], {b, h_q, s_q, 1}, packed_strides({b, h_q, s_q, 1}));
    }

    std::string attributes() const override {
        std::string a = format("attn_scale=%g", options_.attn_scale);
        if (options_.attn_scale_tensor) a = "attn_scale=" + options_.attn_scale_tensor->name;
        if (options_.causal_mask == FE_CAUSAL_MASK_TOP_LEFT) a += " causal=top_left";
        if (options_.causal_mask == FE_CAUSAL_MASK_BOTTOM_RIGHT) a += " causal=bottom_right";
        if (options_.generate_stats) a += " stats";
        return a;
    }

    void lower(Lowering &lowering) const override {
        const fe_tensor *q = inputs[kQ], *k = inputs[kK], *v = inputs[kV];
        for (const fe_tensor *t : {q, k, v})
            FE_CHECK(t->data_type == FE_DATA_HALF || t->data_type == FE_DATA_BFLOAT16, FE_STATUS_NOT_SUPPORTED,
                     "attention takes half or bfloat16 Q, K and V; '%s' is %s", t->name.c_str(),
                     data_type_name(t->data_type));
        FE_CHECK(k->data_type == q->data_type && v->data_type == q->data_type, FE_STATUS_NOT_SUPPORTED,
                 "Q, K and V must share a data type (Q is %s, K %s, V %s)", data_type_name(q->data_type),
                 data_type_name(k->data_type), data_type_name(v->data_type));
        fe_data_type compute = lowering.compute_type(*this);
        int64_t b = q->dims[0], h_q = q->dims[1], s_q = q->dims[2], d = q->dims[3];
        int64_t h_k = k->dims[1], s_kv = k->dims[2];
        const std::vector<int64_t> scores = {b, h_q, s_q, s_kv};
        const std::vector<int64_t> score_strides = packed_strides(scores);
        const std::vector<int64_t> rows = {b, h_q, s_q, 1};
        const std::vector<int64_t> row_strides = packed_strides(rows);
        const fe_pointwise_options pw = FE_POINTWISE_OPTIONS_INIT;
        auto label = [this](const char *step) { return "attention '" + name + "' " + step; };
        auto scores_tensor = [&](fe_data_type type) -> const Descriptor & {
            return lowering.internal_tensor(scores, score_strides, type);
        };

        // S = Q . K^T: K is read transposed by swapping its last two dims and strides.
        const Descriptor &k_t =
            lowering.tensor_view(k, {b, h_k, d, s_kv}, {k->strides[0], k->strides[1], k->strides[3], k->strides[2]});
        const Descriptor *s = &scores_tensor(FE_DATA_FLOAT);
        emit_matmul(lowering, lowering.tensor(q), k_t, *s, compute, label("Q.K^T"));

        if (inputs.size() > kScale || options_.attn_scale != 0.0) {
            const Descriptor &scale = inputs.size() > kScale ? lowering.tensor(inputs[kScale])
                                                             : lowering.internal_scalar(options_.attn_scale, FE_DATA_FLOAT, 4);
            const Descriptor &scaled = scores_tensor(FE_DATA_FLOAT);
            emit_pointwise(lowering, FE_POINTWISE_MUL, *s, &scale, nullptr, scaled, compute, pw, 0, label("scale"));
            s = &scaled;
        }

        if (options_.causal_mask != FE_CAUSAL_MASK_NONE) {
            // Keep score (i, j) where row i (shifted for bottom-right alignment) >= column j.
            const Descriptor *row = &scores_tensor(FE_DATA_INT32);
            emit_pointwise(lowering, FE_POINTWISE_GEN_INDEX, *s, nullptr, nullptr, *row, compute, pw, 2, label("row index"));
            const Descriptor &col = scores_tensor(FE_DATA_INT32);
            emit_pointwise(lowering, FE_POINTWISE_GEN_INDEX, *s, nullptr, nullptr, col, compute, pw, 3, label("column index"));
            if (options_.causal_mask == FE_CAUSAL_MASK_BOTTOM_RIGHT && s_kv != s_q) {
                const Descriptor &shift = lowering.internal_scalar(static_cast<double>(s_kv - s_q), FE_DATA_INT32, 4);
                const Descriptor &shifted = scores_tensor(FE_DATA_INT32);
                emit_pointwise(lowering, FE_POINTWISE_ADD, *row, &shift, nullptr, shifted, FE_DATA_INT32, pw, 0,
                               label("diagonal shift"));
                row = &shifted;
            }
            const Descriptor &keep = scores_tensor(FE_DATA_BOOLEAN);
            emit_pointwise(lowering, FE_POINTWISE_CMP_GE, *row, &col, nullptr, keep, FE_DATA_BOOLEAN, pw, 0,
                           label("causal comparison"));
            const Descriptor &minus_inf =
                lowering.internal_scalar(-std::numeric_limits<double>::infinity(), FE_DATA_FLOAT, 4);
            const Descriptor &masked = scores_tensor(FE_DATA_FLOAT);
            emit_pointwise(lowering, FE_POINTWISE_BINARY_SELECT, *s, &minus_inf, &keep, masked, compute, pw, 0,
                           label("causal mask"));
            s = &masked;
        }

        // Softmax over keys, keeping the row max and sum for the stats.
        const Descriptor &row_max = lowering.internal_tensor(rows, row_strides, FE_DATA_FLOAT);
        emit_reduction(lowering, FE_REDUCTION_MAX, *s, row_max, compute, label("row max"));
        const Descriptor &centered = scores_tensor(FE_DATA_FLOAT);
        emit_pointwise(lowering, FE_POINTWISE_SUB, *s, &row_max, nullptr, centered, compute, pw, 0, label("subtract max"));
        const Descriptor &exps = scores_tensor(FE_DATA_FLOAT);
        emit_pointwise(lowering, FE_POINTWISE_EXP, centered, nullptr, nullptr, exps, compute, pw, 0, label("exp"));
        const Descriptor &row_sum = lowering.internal_tensor(rows, row_strides, FE_DATA_FLOAT);
        emit_reduction(lowering, FE_REDUCTION_ADD, exps, row_sum, compute, label("row sum"));
        // The stats (max + log sum) are part of the pattern cuDNN's engines match, so inference
        // computes them too, into a virtual tensor.
        const Descriptor &log_sum = lowering.internal_tensor(rows, row_strides, FE_DATA_FLOAT);
        emit_pointwise(lowering, FE_POINTWISE_LOG, row_sum, nullptr, nullptr, log_sum, compute, pw, 0, label("log sum"));
        const Descriptor &stats = outputs.size() > 1 ? lowering.tensor(outputs[1])
                                                     : lowering.internal_tensor(rows, row_strides, FE_DATA_FLOAT);
        emit_pointwise(lowering, FE_POINTWISE_ADD, row_max, &log_sum, nullptr, stats, compute, pw, 0, label("stats"));
        const Descriptor &probabilities = scores_tensor(q->data_type);
        emit_pointwise(lowering, FE_POINTWISE_DIV, exps, &row_sum, nullptr, probabilities, compute, pw, 0,
                       label("normalize"));

        // O = P . V
        emit_matmul(lowering, probabilities, lowering.tensor(v), lowering.tensor(outputs[0]), compute, label("P.V"));
    }

  private:
    fe_sdpa_options options_;
};

}  // namespace

std::unique_ptr<Node> make_sdpa(fe_tensor *q, fe_tensor *k, fe_tensor *v, const fe_sdpa_options &options) {
    return std::make_unique<Sdpa>(q, k, v, options);
}

}  // namespace fe
