// Scaled dot-product attention, forward. Lowered as the composite pattern cuDNN's fused
// attention engines recognise: S = Q.K^T, scaling, masks, softmax (with its stats), O = P.V,
// all in one operation graph.
#include <cudnn_graph.h>

#include <cmath>
#include <limits>

#include "common/error.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"

namespace fe {
namespace {

enum Port { kQ = 0, kK = 1, kV = 2 };

class Sdpa : public Node {
  public:
    Sdpa(fe_tensor *q, fe_tensor *k, fe_tensor *v, const fe_sdpa_options &o) : options_(o) {
        inputs = {q, k, v};
        // Optional inputs follow Q, K, V; remember where each one sits.
        auto optional = [this](fe_tensor *t, const char *port) {
            if (!t) return -1;
            inputs.push_back(t);
            ports_.push_back(port);
            return static_cast<int>(inputs.size() - 1);
        };
        scale_ = optional(o.attn_scale_tensor, "attn_scale");
        bias_ = optional(o.bias, "bias");
        seq_q_ = optional(o.seq_len_q, "seq_len_q");
        seq_kv_ = optional(o.seq_len_kv, "seq_len_kv");
        alibi_ = optional(o.alibi_slopes, "alibi_slopes");
        dropout_ = optional(o.dropout_mask, "dropout_mask");
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return "sdpa"; }
    const char *input_port(size_t i) const override {
        static const char *ports[] = {"Q", "K", "V"};
        if (i < 3) return ports[i];
        return i - 3 < ports_.size() ? ports_[i - 3] : "IN";
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
        // cuDNN reads K transposed and compiles one kernel parameter per operand: the same
        // tensor in two roles breaks both, so each role needs its own tensor (sharing memory is fine).
        FE_CHECK(k != q && k != v && q != v, FE_STATUS_INVALID_ARGUMENT,
                 "'%s' is given as both %s; declare Q, K and V as separate tensors (they may share memory)",
                 (k == q || k == v) ? k->name.c_str() : q->name.c_str(), k == q ? "Q and K" : (k == v ? "K and V" : "Q and V"));
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
        if (scale_ >= 0) {
            fe_tensor *scale = inputs[static_cast<size_t>(scale_)];
            int64_t n = 1;
            for (int64_t x : scale->dims) n *= x;
            FE_CHECK(n == 1, FE_STATUS_INVALID_ARGUMENT, "attn_scale_tensor '%s' must hold one element, not %lld",
                     scale->name.c_str(), static_cast<long long>(n));
            if (scale->by_value && scale->dims.size() != 4) {
                scale->dims.assign(4, 1);
                scale->strides.assign(4, 1);
            }
        }
        if (bias_ >= 0) {
            const fe_tensor *bias = inputs[static_cast<size_t>(bias_)];
            const std::vector<int64_t> &bd = bias->dims;
            FE_CHECK(bd.size() == 4 && (bd[0] == 1 || bd[0] == b) && (bd[1] == 1 || bd[1] == h_q) && bd[2] == s_q &&
                         bd[3] == s_kv,
                     FE_STATUS_INVALID_ARGUMENT, "bias '%s' is %s; it must be [1 or %lld, 1 or %lld, %lld, %lld]",
                     bias->name.c_str(), dims_string(bd).c_str(), static_cast<long long>(b),
                     static_cast<long long>(h_q), static_cast<long long>(s_q), static_cast<long long>(s_kv));
        }
        if (alibi_ >= 0) {
            const fe_tensor *slopes = inputs[static_cast<size_t>(alibi_)];
            FE_CHECK(slopes->dims == std::vector<int64_t>({1, h_q, 1, 1}), FE_STATUS_INVALID_ARGUMENT,
                     "alibi_slopes '%s' is %s; it must be [1, %lld, 1, 1]", slopes->name.c_str(),
                     dims_string(slopes->dims).c_str(), static_cast<long long>(h_q));
        }
        if (dropout_ >= 0) {
            const fe_tensor *mask = inputs[static_cast<size_t>(dropout_)];
            const std::vector<int64_t> &md = mask->dims;
            FE_CHECK(md.size() == 4 && (md[0] == 1 || md[0] == b) && (md[1] == 1 || md[1] == h_q) && md[2] == s_q &&
                         md[3] == s_kv,
                     FE_STATUS_INVALID_ARGUMENT, "dropout_mask '%s' is %s; it must be [1 or %lld, 1 or %lld, %lld, %lld]",
                     mask->name.c_str(), dims_string(md).c_str(), static_cast<long long>(b),
                     static_cast<long long>(h_q), static_cast<long long>(s_q), static_cast<long long>(s_kv));
            FE_CHECK(options_.dropout_scale > 0, FE_STATUS_INVALID_ARGUMENT, "dropout_scale is %g; it must be positive",
                     options_.dropout_scale);
        }
        FE_CHECK((seq_q_ >= 0) == (seq_kv_ >= 0), FE_STATUS_INVALID_ARGUMENT,
                 "a padding mask needs both seq_len_q and seq_len_kv");
        for (int index : {seq_q_, seq_kv_}) {
            if (index < 0) continue;
            const fe_tensor *t = inputs[static_cast<size_t>(index)];
            FE_CHECK(t->data_type == FE_DATA_INT32 || t->data_type == FE_DATA_NOT_SET, FE_STATUS_INVALID_ARGUMENT,
                     "'%s' is %s; sequence lengths are int32", t->name.c_str(), data_type_name(t->data_type));
            FE_CHECK(t->dims == std::vector<int64_t>({b, 1, 1, 1}), FE_STATUS_INVALID_ARGUMENT,
                     "'%s' is %s; sequence lengths are [%lld, 1, 1, 1]", t->name.c_str(), dims_string(t->dims).c_str(),
                     static_cast<long long>(b));
        }
        FE_CHECK(options_.sliding_window >= 0, FE_STATUS_INVALID_ARGUMENT, "sliding_window is negative (%lld)",
                 static_cast<long long>(options_.sliding_window));
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
        if (options_.bias) a += " bias=" + options_.bias->name;
        if (options_.sliding_window > 0) a += format(" window=%lld", static_cast<long long>(options_.sliding_window));
        if (options_.seq_len_q) a += " padding_mask";
        if (options_.alibi_slopes) a += " alibi";
        if (options_.dropout_mask) a += format(" dropout(mask=%s, scale=%g)", options_.dropout_mask->name.c_str(),
                                               options_.dropout_scale);
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
        // With a padding mask the matmuls also learn the actual lengths, so they skip the padding
        // (Q.K^T fills it with zeros; P.V stops its reduction at seq_len_kv).
        const Descriptor *len_q = seq_q_ >= 0 ? &lowering.tensor(inputs[static_cast<size_t>(seq_q_)]) : nullptr;
        const Descriptor *len_kv = seq_kv_ >= 0 ? &lowering.tensor(inputs[static_cast<size_t>(seq_kv_)]) : nullptr;
        MatmulOverrides scores_overrides, output_overrides;
        if (len_q) {
            scores_overrides = {len_q, len_kv, nullptr, true, 0.0};
            output_overrides = {len_q, nullptr, len_kv, false, 0.0};
        }
        const Descriptor *s = &scores_tensor(FE_DATA_FLOAT);
        emit_matmul(lowering, lowering.tensor(q), k_t, *s, compute, label("Q.K^T"), scores_overrides);

        if (scale_ >= 0 || options_.attn_scale != 0.0) {
            const Descriptor &scale = scale_ >= 0 ? lowering.tensor(inputs[static_cast<size_t>(scale_)])
                                                  : lowering.internal_scalar(options_.attn_scale, FE_DATA_FLOAT, 4);
            const Descriptor &scaled = scores_tensor(FE_DATA_FLOAT);
            emit_pointwise(lowering, FE_POINTWISE_MUL, *s, &scale, nullptr, scaled, compute, pw, 0, label("scale"));
            s = &scaled;
        }
        if (bias_ >= 0) {
            const Descriptor &biased = scores_tensor(FE_DATA_FLOAT);
            emit_pointwise(lowering, FE_POINTWISE_ADD, *s, &lowering.tensor(inputs[static_cast<size_t>(bias_)]), nullptr,
                           biased, compute, pw, 0, label("bias"));
            s = &biased;
        }

        // Masks: each keeps the scores where a comparison of row and column indices holds and
        // sets the others to -inf.
        // Each mask generates its indices from the scores it masks: cuDNN's engines match the
        // pattern mask by mask, so index tensors are not shared between masks.
        const Descriptor *row = nullptr, *col = nullptr;
        auto indices = [&]() {
            row = &scores_tensor(FE_DATA_INT32);
            emit_pointwise(lowering, FE_POINTWISE_GEN_INDEX, *s, nullptr, nullptr, *row, FE_DATA_INT32, pw, 2, label("row index"));
            col = &scores_tensor(FE_DATA_INT32);
            emit_pointwise(lowering, FE_POINTWISE_GEN_INDEX, *s, nullptr, nullptr, *col, FE_DATA_INT32, pw, 3,
                           label("column index"));
        };
        auto apply_mask = [&](const Descriptor &keep, const char *what) {
            const Descriptor &minus_inf =
                lowering.internal_scalar(-std::numeric_limits<double>::infinity(), FE_DATA_FLOAT, 4);
            const Descriptor &masked = scores_tensor(FE_DATA_FLOAT);
            emit_pointwise(lowering, FE_POINTWISE_BINARY_SELECT, *s, &minus_inf, &keep, masked, compute, pw, 0, label(what));
            s = &masked;
        };
        auto add_int = [&](const Descriptor &x, const Descriptor &y, const char *what) -> const Descriptor & {
            const Descriptor &sum = scores_tensor(FE_DATA_INT32);
            emit_pointwise(lowering, FE_POINTWISE_ADD, x, &y, nullptr, sum, FE_DATA_INT32, pw, 0, label(what));
            return sum;
        };
        auto compare = [&](fe_pointwise_mode mode, const Descriptor &x, const Descriptor &y,
                           const char *what) -> const Descriptor & {
            const Descriptor &keep = scores_tensor(FE_DATA_BOOLEAN);
            emit_pointwise(lowering, mode, x, &y, nullptr, keep, FE_DATA_BOOLEAN, pw, 0, label(what));
            return keep;
        };
        // Bottom-right alignment moves the diagonal right by s_kv - s_q.
        int64_t diagonal = options_.causal_mask == FE_CAUSAL_MASK_BOTTOM_RIGHT ? s_kv - s_q : 0;

        if (alibi_ >= 0) {
            // score += slope[h] * (j - i)
            indices();
            const Descriptor &distance = scores_tensor(FE_DATA_INT32);
            emit_pointwise(lowering, FE_POINTWISE_SUB, *col, row, nullptr, distance, FE_DATA_INT32, pw, 0,
                           label("alibi distance"));
            const Descriptor &alibi = scores_tensor(FE_DATA_FLOAT);
            emit_pointwise(lowering, FE_POINTWISE_MUL, distance, &lowering.tensor(inputs[static_cast<size_t>(alibi_)]),
                           nullptr, alibi, compute, pw, 0, label("alibi slope"));
            const Descriptor &with_alibi = scores_tensor(FE_DATA_FLOAT);
            emit_pointwise(lowering, FE_POINTWISE_ADD, *s, &alibi, nullptr, with_alibi, compute, pw, 0, label("alibi"));
            s = &with_alibi;
        }
        if (seq_q_ >= 0) {
            indices();
            const Descriptor &row_in = compare(FE_POINTWISE_CMP_LT, *row, *len_q, "row < seq_len_q");
            const Descriptor &col_in = compare(FE_POINTWISE_CMP_LT, *col, *len_kv, "column < seq_len_kv");
            const Descriptor &keep = scores_tensor(FE_DATA_BOOLEAN);
            emit_pointwise(lowering, FE_POINTWISE_LOGICAL_AND, row_in, &col_in, nullptr, keep, FE_DATA_BOOLEAN, pw, 0,
                           label("padding"));
            apply_mask(keep, "padding mask");
        }
        if (options_.causal_mask != FE_CAUSAL_MASK_NONE) {
            // Keep (i, j) with i + diagonal >= j.
            indices();
            const Descriptor *shifted = row;
            if (diagonal != 0)
                shifted = &add_int(*row, lowering.internal_scalar(static_cast<double>(diagonal), FE_DATA_INT32, 4),
                                   "diagonal shift");
            apply_mask(compare(FE_POINTWISE_CMP_GE, *shifted, *col, "causal comparison"), "causal mask");
        }
        if (options_.sliding_window > 0) {
            // Keep (i, j) with j + window - diagonal > i.
            indices();
            const Descriptor &reach = add_int(
                *col, lowering.internal_scalar(static_cast<double>(options_.sliding_window - diagonal), FE_DATA_INT32, 4),
                "window reach");
            apply_mask(compare(FE_POINTWISE_CMP_GT, reach, *row, "window comparison"), "sliding window");
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
        const Descriptor *probabilities = &scores_tensor(dropout_ >= 0 ? FE_DATA_FLOAT : q->data_type);
        emit_pointwise(lowering, FE_POINTWISE_DIV, exps, &row_sum, nullptr, *probabilities, compute, pw, 0,
                       label("normalize"));
        if (dropout_ >= 0) {
            // P * scale * mask: the caller's mask, so the result is reproducible and checkable.
            const Descriptor &scale = lowering.internal_scalar(options_.dropout_scale, FE_DATA_FLOAT, 4);
            const Descriptor &scaled = scores_tensor(FE_DATA_FLOAT);
            emit_pointwise(lowering, FE_POINTWISE_MUL, *probabilities, &scale, nullptr, scaled, compute, pw, 0,
                           label("dropout scale"));
            const Descriptor &dropped = scores_tensor(q->data_type);
            emit_pointwise(lowering, FE_POINTWISE_MUL, scaled, &lowering.tensor(inputs[static_cast<size_t>(dropout_)]),
                           nullptr, dropped, compute, pw, 0, label("dropout mask"));
            probabilities = &dropped;
        }

        // O = P . V
        emit_matmul(lowering, *probabilities, lowering.tensor(v), lowering.tensor(outputs[0]), compute, label("P.V"),
                    output_overrides);
    }

  private:
    fe_sdpa_options options_;
    std::vector<const char *> ports_;  // names of the optional inputs, in order
    int scale_ = -1, bias_ = -1, seq_q_ = -1, seq_kv_ = -1, alibi_ = -1, dropout_ = -1;  // index in inputs, or -1
};

}  // namespace

void alibi_slopes(int64_t heads, float *out) {
    FE_CHECK(heads > 0, FE_STATUS_INVALID_ARGUMENT, "heads is %lld; it must be positive", static_cast<long long>(heads));
    int64_t power = 1;
    while (power * 2 <= heads) power *= 2;
    for (int64_t i = 0; i < power; ++i)
        out[i] = static_cast<float>(std::pow(2.0, -8.0 * static_cast<double>(i + 1) / static_cast<double>(power)));
    // Heads past the largest power of two take every other slope of the 2x denser sequence.
    for (int64_t i = 0; i < heads - power; ++i)
        out[power + i] =
            static_cast<float>(std::pow(2.0, -4.0 * static_cast<double>(2 * i + 1) / static_cast<double>(power)));
}

std::unique_ptr<Node> make_sdpa(fe_tensor *q, fe_tensor *k, fe_tensor *v, const fe_sdpa_options &options) {
    return std::make_unique<Sdpa>(q, k, v, options);
}

}  // namespace fe
