// Scaled dot-product attention, backward. The composite pattern cuDNN's fused attention
// backward engines recognise: the forward's scores are recomputed from Q, K and the stats,
// then dV = P^T.dO, dS = P * (dO.V^T - rowsum(dO * O)) * scale, dK = dS^T.Q, dQ = dS.K.

// include/cudnnfe.h, section "Attention" (copied there by scripts/schema/generate_header.py):
// /** Attention backward: dQ, dK, dV from Q, K, V, the forward's O and stats (float
//  *  [b, h_q, s_q, 1]) and the gradient dO ([b, h_q, s_q, d_v]). The options repeat the forward's
//  *  score modifiers. dQ, dK, dV take the dims and layouts of Q, K, V (with GQA, dK and dV sum
//  *  over each group of query heads). The graph's workspace includes float row sums and a float
//  *  dQ accumulator (b * h_q * s_q * (d + 1) * 4 bytes beyond cuDNN's own). */
// FE_API fe_status fe_graph_sdpa_backward(fe_graph *graph, fe_tensor *q, fe_tensor *k, fe_tensor *v,
//                                         fe_tensor *o, fe_tensor *d_o, fe_tensor *stats,
//                                         const fe_sdpa_backward_options *options, fe_tensor **out_dq,
//                                         fe_tensor **out_dk, fe_tensor **out_dv);

#include <cudnn_graph.h>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "ops/attention_backward.hpp"
#include "schema/option_fields.hpp"
#include "ops/graph_ops.hpp"
#include "schema/schema.hpp"

namespace fe {

namespace {

enum Port { kQ = 0, kK, kV, kO, kDO, kStats };


class SdpaBackward : public AttentionBackwardNode {
  public:
    SdpaBackward(fe_tensor *q, fe_tensor *k, fe_tensor *v, fe_tensor *o, fe_tensor *d_o, fe_tensor *stats,
                 const fe_sdpa_backward_options &options, const BackwardScoreModifiers &modifiers)
        : AttentionBackwardNode({q, k, v, o, d_o, stats}, {"Q", "K", "V", "O", "dO", "Stats"}, options, modifiers),
          dbias_(options.output_dbias != 0),
          max_total_q_(options.max_total_seq_len_q),
          max_total_kv_(options.max_total_seq_len_kv) {}
    const char *kind() const override { return "sdpa_backward"; }
    std::string attributes() const override {
        return option_attributes() + (dbias_ ? " dbias" : "") + (dsink_ ? " dsink" : "") +
               (deterministic_ ? " deterministic" : "");
    }
    std::string unsupported_hint() const override {
        if (dbias_) return explanation(Feature::attention_backward_dbias_envelope, cudnn().cudnnGetVersion());
        return "";
    }
    void infer() override {
        const fe_tensor *q = inputs[kQ], *k = inputs[kK], *v = inputs[kV];
        AttentionDims d = check_qkv(q, k, v);
        check_options(d);
        check_backward_inputs(d, kO, kDO, kStats);
        check_backward_options(d);
        for (int port : {kO, kDO}) {
            const fe_tensor *t = inputs[static_cast<size_t>(port)];
            FE_CHECK(t->strides[3] == 1, FE_STATUS_INVALID_ARGUMENT,
                     "%s '%s' has stride %lld in its head dim; attention needs it contiguous", ports_[port],
                     t->name.c_str(), static_cast<long long>(t->strides[3]));
        }
        assign_inferred_shape(outputs[0], q->dims, q->strides);
        assign_inferred_shape(outputs[1], k->dims, k->strides);
        assign_inferred_shape(outputs[2], v->dims, v->strides);
        if (dbias_) {
            FE_CHECK(bias_ >= 0, FE_STATUS_INVALID_ARGUMENT, "output_dbias needs the forward's bias (options->bias)");
            const fe_tensor *bias = inputs[static_cast<size_t>(bias_)];
            assign_inferred_shape(outputs[3], bias->dims, bias->strides);
        }
    }

    void lower(Lowering &lowering) const override {
        const fe_tensor *q = inputs[kQ], *k = inputs[kK], *v = inputs[kV];
        const fe_tensor *o = inputs[kO], *d_o = inputs[kDO], *stats = inputs[kStats];
        check_types({q, k, v, o, d_o});
        // At build: the graph's readers and callers may give ragged offsets after adding the op.
        const AttentionDims d = check_qkv(q, k, v);
        if (max_total_q_ > 0)
            check_packed_workspace("max_total_seq_len_q", q->ragged_offset,
                                   "Q '" + q->name + "' is not packed (it has no ragged offset)", d);
        if (max_total_kv_ > 0)
            check_packed_workspace("max_total_seq_len_kv", k->ragged_offset && v->ragged_offset,
                                   "K '" + k->name + "' and V '" + v->name + "' are not both packed (ragged offsets)", d);
        FE_CHECK(stats->data_type == FE_DATA_FLOAT, FE_STATUS_NOT_SUPPORTED, "Stats '%s' is %s; the stats are float",
                 stats->name.c_str(), data_type_name(stats->data_type));
        if (has_sink()) lowering.require(Feature::attention_sinks);
        if (dropout_ >= 0) lowering.require(Feature::attention_backward_dropout_mask);
        if (packed() && q->dims[3] > v->dims[3]) lowering.require(Feature::packed_attention_backward_wide_keys);
        if (dbias_ && (options_.softcap > 0 || score_mod_grad().given()))
            lowering.require(Feature::attention_backward_softcap_dbias);
        if (dsink_ && has_dropout()) lowering.require(Feature::attention_backward_dsink_dropout);
        if (has_dropout() && k->dims[2] > 128)
            lowering.require(Feature::attention_backward_dropout_long_keys);
        if (has_dropout() && q->dims[2] == 1 && k->dims[2] > 64)
            lowering.require(Feature::attention_backward_dropout_single_query);
        // Wrong in some runs and right in others, so a right run clears no head dim.
        if (deterministic_ && q->dims[3] > v->dims[3])
            lowering.require(Feature::attention_backward_deterministic_grouped_wide_keys);
        const int64_t query_heads = q->dims[1];
        const bool half = q->data_type == FE_DATA_HALF;
        if (alibi_ >= 0 && !masks_keys() &&
            ((query_heads >= 4 && half && k->dims[2] % 64 == 0) ||
             (options_.softcap > 0 && query_heads >= 4 && (query_heads >= 16 ? q->dims[3] > v->dims[3] : half))))
            lowering.require(Feature::attention_backward_alibi_unmasked);
        std::string extra = dbias_ ? "dBias output" : (deterministic_ ? "deterministic mode" : "");
        if (lowers_native(lowering, true, extra, "attention backward '" + name + "'"))
            lower_native(lowering);
        else
            lower_composite(lowering);
    }

  private:
    // cuDNN's single SDPA backward operation.
    void lower_native(Lowering &lowering) const {
        Descriptor op(CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR);
        op.set_desc(CUDNN_ATTR_OPERATION_SDPA_BWD_QDESC, lowering.tensor(inputs[kQ]), "SDPA backward Q");
        op.set_desc(CUDNN_ATTR_OPERATION_SDPA_BWD_KDESC, lowering.tensor(inputs[kK]), "SDPA backward K");
        op.set_desc(CUDNN_ATTR_OPERATION_SDPA_BWD_VDESC, lowering.tensor(inputs[kV]), "SDPA backward V");
        op.set_desc(CUDNN_ATTR_OPERATION_SDPA_BWD_ODESC, lowering.tensor(inputs[kO]), "SDPA backward O");
        op.set_desc(CUDNN_ATTR_OPERATION_SDPA_BWD_DODDESC, lowering.tensor(inputs[kDO]), "SDPA backward dO");
        op.set_desc(CUDNN_ATTR_OPERATION_SDPA_BWD_STATSDESC, lowering.tensor(inputs[kStats]), "SDPA backward stats");
        const Descriptor &scale =
            scale_ >= 0 ? lowering.tensor(inputs[static_cast<size_t>(scale_)])
                        : lowering.internal_scalar(options_.attn_scale != 0.0 ? options_.attn_scale : 1.0, FE_DATA_FLOAT, 4);
        op.set_desc(CUDNN_ATTR_OPERATION_SDPA_BWD_SCALEDESC, scale, "SDPA backward scale");
        if (seq_q_ >= 0) {
            op.set_desc(CUDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_QDESC, *length_q(lowering), "SDPA backward seq_len_q");
            op.set_desc(CUDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KVDESC, *length_kv(lowering), "SDPA backward seq_len_kv");
        }
        op.set_desc(CUDNN_ATTR_OPERATION_SDPA_BWD_DQDESC, lowering.tensor(outputs[0]), "SDPA backward dQ");
        op.set_desc(CUDNN_ATTR_OPERATION_SDPA_BWD_DKDESC, lowering.tensor(outputs[1]), "SDPA backward dK");
        op.set_desc(CUDNN_ATTR_OPERATION_SDPA_BWD_DVDESC, lowering.tensor(outputs[2]), "SDPA backward dV");
        lowering.finalize_and_add(std::move(op), "finalizing the native SDPA backward operation of attention '" + name + "'");
    }

    // What the composite lowering's steps share: the shapes of the scores and of the rows, and
    // how a step makes a scores-shaped tensor or a pointwise operation.
    struct Composite {
        Lowering &lowering;
        AttentionDims d;
        fe_data_type compute, io;
        std::string what;
        std::vector<int64_t> scores, score_strides, scores_t, scores_t_strides, rows, row_strides;
        const Descriptor *mask, *len_q, *len_kv;
        fe_pointwise_options pw = FE_POINTWISE_OPTIONS_INIT;

        std::string label(const char *step) const { return what + " " + step; }
        const Descriptor &scores_tensor(fe_data_type type) const {
            return lowering.internal_tensor(scores, score_strides, type);
        }
        void pointwise(fe_pointwise_mode mode, const Descriptor &x, const Descriptor *y, const Descriptor &out,
                       const char *step) const {
            emit_pointwise(lowering, mode, x, y, nullptr, out, compute, pw, 0, label(step));
        }
        // The matmuls' padding masks: over the scores (queries by keys), or summing over queries
        // (dV, dK) or over keys (dQ).
        MatmulOverrides over_scores() const { return len_q ? MatmulOverrides{len_q, len_kv, nullptr, false, 0.0} : MatmulOverrides{}; }
        MatmulOverrides by_keys() const { return len_q ? MatmulOverrides{len_kv, nullptr, len_q, false, 0.0} : MatmulOverrides{}; }
        MatmulOverrides by_queries() const { return len_q ? MatmulOverrides{len_q, nullptr, len_kv, false, 0.0} : MatmulOverrides{}; }
    };

    // The probabilities recomputed from the scores: P, P after dropout, the dropout's scale (null
    // without dropout) and the soft-capped scores (null without soft-capping).
    struct Probabilities {
        const Descriptor *p, *p_dropped, *dropout_scale, *capped;
    };

    // The composite pattern cuDNN's engines match, step by step in the order they match it.
    void lower_composite(Lowering &lowering) const {
        const fe_tensor *q = inputs[kQ], *k = inputs[kK], *v = inputs[kV];
        const AttentionDims d = check_qkv(q, k, v);
        Composite c{lowering, d, lowering.compute_type(*this), q->data_type, "attention backward '" + name + "'",
                    {d.b, d.h_q, d.s_q, d.s_kv}, packed_strides({d.b, d.h_q, d.s_q, d.s_kv}),
                    // The same scores read transposed: [b, h, s_kv, s_q] over the same memory.
                    {d.b, d.h_q, d.s_kv, d.s_q}, {d.h_q * d.s_q * d.s_kv, d.s_q * d.s_kv, 1, d.s_kv},
                    {d.b, d.h_q, d.s_q, 1}, packed_strides({d.b, d.h_q, d.s_q, 1}), nullptr, nullptr, nullptr};
        c.mask = dropout_mask(lowering, d, nullptr, c.what);
        c.len_q = length_q(lowering), c.len_kv = length_kv(lowering);

        // K and V are read transposed by the score and dP matmuls.
        const Descriptor &k_t = lowering.tensor_view(k, {d.b, d.h_k, d.d, d.s_kv},
                                                     {k->strides[0], k->strides[1], k->strides[3], k->strides[2]});
        const Descriptor &v_t = lowering.tensor_view(v, {d.b, d.h_k, d.d_v, d.s_kv},
                                                     {v->strides[0], v->strides[1], v->strides[3], v->strides[2]});
        const Descriptor &dO = lowering.tensor(inputs[kDO]);

        const Descriptor &softmax_sum = lower_row_sums(c, dO);
        const Probabilities pr = lower_probabilities(c, k_t);

        // dV = P^T . dO (summed over each group of query heads with GQA).
        const Descriptor &p_t = lowering.internal_tensor(c.scores_t, c.scores_t_strides, c.io);
        emit_reshape(lowering, *pr.p_dropped, p_t, c.label("P^T"));
        grouped_matmul(lowering, p_t, dO, outputs[2], {d.b, d.h_q, d.s_kv, d.d_v}, d, c.io, c.compute, c.by_keys(),
                       c.label("dV"));

        const Descriptor &ds = lower_score_gradient(c, dO, v_t, softmax_sum, pr);
        lower_key_and_query_gradients(c, ds, k_t);
    }

    // rowsum(dO * O), kept in the workspace for the dS step (scaled back by the dropout keep
    // rate), and dSink from it.
    const Descriptor &lower_row_sums(const Composite &c, const Descriptor &dO) const {
        Lowering &lowering = c.lowering;
        const fe_tensor *stats = inputs[kStats];
        const AttentionDims &d = c.d;
        const Descriptor &product = lowering.internal_tensor({d.b, d.h_q, d.s_q, d.d_v},
                                                             packed_strides({d.b, d.h_q, d.s_q, d.d_v}), FE_DATA_FLOAT);
        c.pointwise(FE_POINTWISE_MUL, dO, &lowering.tensor(inputs[kO]), product, "dO * O");
        const Descriptor &row_dot = lowering.internal_tensor(c.rows, c.row_strides, FE_DATA_FLOAT);
        emit_reduction(lowering, FE_REDUCTION_ADD, product, row_dot, c.compute, c.label("rowsum(dO * O)"));
        if (dsink_) lower_sink_gradient(lowering, row_dot, c.rows, c.row_strides, c.compute, c.what);
        // With max_total_seq_len_q the row sums are packed like the stats (and dQ's accumulator
        // like dQ), sized for the batch's tokens.
        if (max_total_q_ > 0) lowering.require(Feature::packed_backward_workspace);
        const bool packed_rows = max_total_q_ > 0 && stats->ragged_offset;
        const Descriptor &softmax_sum =
            packed_rows ? lowering.workspace_tensor(c.rows, stats->strides, FE_DATA_FLOAT, false,
                                                    &lowering.tensor(stats->ragged_offset),
                                                    max_total_q_ * stats->strides[2] * 4)
                        : lowering.workspace_tensor(c.rows, c.row_strides, FE_DATA_FLOAT, false);
        const Descriptor &keep_rate = lowering.internal_scalar(c.mask ? 1.0 / dropout_scale() : 1.0, FE_DATA_FLOAT, 4);
        c.pointwise(FE_POINTWISE_MUL, row_dot, &keep_rate, softmax_sum, "row sums");
        return softmax_sum;
    }

    // P = exp(S - stats), S recomputed with the forward's modifiers, and P after dropout.
    Probabilities lower_probabilities(const Composite &c, const Descriptor &k_t) const {
        Lowering &lowering = c.lowering;
        const Descriptor *s = &c.scores_tensor(FE_DATA_FLOAT);
        emit_matmul(lowering, lowering.tensor(inputs[kQ]), k_t, *s, c.compute, c.label("Q.K^T"), c.over_scores());
        Probabilities pr{nullptr, nullptr, nullptr, nullptr};
        s = modify_scores(lowering, s, c.d, c.compute, c.what, {}, &pr.capped);
        const Descriptor &centered = c.scores_tensor(FE_DATA_FLOAT);
        c.pointwise(FE_POINTWISE_SUB, *s, &lowering.tensor(inputs[kStats]), centered, "S - stats");
        const Descriptor &p = c.scores_tensor(FE_DATA_FLOAT);
        c.pointwise(FE_POINTWISE_EXP, centered, nullptr, p, "P");
        pr.p = pr.p_dropped = &p;
        if (c.mask) {
            pr.dropout_scale = &lowering.internal_scalar(this->dropout_scale(), FE_DATA_FLOAT, 4);
            const Descriptor &masked = c.scores_tensor(FE_DATA_FLOAT);
            c.pointwise(FE_POINTWISE_MUL, p, c.mask, masked, "P dropout mask");
            const Descriptor &scaled = c.scores_tensor(FE_DATA_FLOAT);
            c.pointwise(FE_POINTWISE_MUL, masked, pr.dropout_scale, scaled, "P dropout scale");
            pr.p_dropped = &scaled;
        }
        return pr;
    }

    // dS = P * (dO . V^T - row sums), with the dropout, dBias, the soft-cap's and the caller's
    // modifier's derivatives, and the attention scale.
    const Descriptor &lower_score_gradient(const Composite &c, const Descriptor &dO, const Descriptor &v_t,
                                           const Descriptor &softmax_sum, const Probabilities &pr) const {
        Lowering &lowering = c.lowering;
        const Descriptor *dp = &c.scores_tensor(FE_DATA_FLOAT);
        emit_matmul(lowering, dO, v_t, *dp, c.compute, c.label("dO.V^T"), c.over_scores());
        if (c.mask) {
            const Descriptor &masked = c.scores_tensor(FE_DATA_FLOAT);
            c.pointwise(FE_POINTWISE_MUL, *dp, c.mask, masked, "dP dropout mask");
            dp = &masked;
        }
        const Descriptor &centered_dp = c.scores_tensor(FE_DATA_FLOAT);
        c.pointwise(FE_POINTWISE_SUB, *dp, &softmax_sum, centered_dp, "dP - row sums");
        const Descriptor *ds = &c.scores_tensor(FE_DATA_FLOAT);
        c.pointwise(FE_POINTWISE_MUL, centered_dp, pr.p, *ds, "dS");
        if (pr.dropout_scale) {
            const Descriptor &scaled = c.scores_tensor(FE_DATA_FLOAT);
            c.pointwise(FE_POINTWISE_MUL, *ds, pr.dropout_scale, scaled, "dS dropout scale");
            ds = &scaled;
        }
        // The bias was added after the scale, so its gradient is dS before the scale, summed
        // over the batch.
        if (dbias_)
            emit_reduction(lowering, FE_REDUCTION_ADD, *ds, lowering.tensor(outputs[3]), c.compute, c.label("dBias"));
        ds = &through_score_modifiers(lowering, *ds, pr.capped, c.scores, c.score_strides, c.compute, c.what);
        if (scale_ >= 0 || options_.attn_scale != 0.0) {
            const Descriptor &scale = scale_ >= 0 ? lowering.tensor(inputs[static_cast<size_t>(scale_)])
                                                  : lowering.internal_scalar(options_.attn_scale, FE_DATA_FLOAT, 4);
            const Descriptor &scaled = c.scores_tensor(FE_DATA_FLOAT);
            c.pointwise(FE_POINTWISE_MUL, *ds, &scale, scaled, "dS scale");
            ds = &scaled;
        }
        return *ds;
    }

    // dK = dS^T . Q, and dQ = dS . K: straight into dQ where cuDNN's engines accumulate in a
    // fixed order (with dBias, or deterministic), else in float in the workspace, then converted.
    void lower_key_and_query_gradients(const Composite &c, const Descriptor &ds, const Descriptor &k_t) const {
        Lowering &lowering = c.lowering;
        const AttentionDims &d = c.d;
        const fe_tensor *q = inputs[kQ], *k = inputs[kK];
        const Descriptor &ds_t = lowering.internal_tensor(c.scores_t, c.scores_t_strides, c.io);
        emit_reshape(lowering, ds, ds_t, c.label("dS^T"));
        grouped_matmul(lowering, ds_t, lowering.tensor(q), outputs[1], {d.b, d.h_q, d.s_kv, d.d}, d, c.io, c.compute,
                       c.by_keys(), c.label("dK"));

        const Descriptor &k_plain = lowering.internal_tensor(k->dims, k->strides, k->data_type);
        emit_reshape(lowering, k_t, k_plain, c.label("K"));
        if (dbias_ || deterministic_) {
            // cuDNN's engines then keep dP in their workspace and accumulate in a fixed order (the
            // form that has dBias, and that is deterministic).
            emit_matmul(lowering, ds, k_plain, lowering.tensor(outputs[0]), c.compute, c.label("dS.K"), c.by_queries());
            return;
        }
        // Accumulated atomically, by key blocks. Newer engines clear the accumulator themselves;
        // execute clears it for older ones.
        const std::vector<int64_t> dq_dims = {d.b, d.h_q, d.s_q, d.d};
        bool engine_clears = refusal(Feature::sdpa_backward_zeroes_dq_accumulator, static_cast<int64_t>(cudnn().cudnnGetVersion())).empty();
        const fe_tensor *dq = outputs[0];
        const fe_tensor *dq_offsets = dq->ragged_offset ? dq->ragged_offset : q->ragged_offset;
        const Descriptor &dq_accumulator =
            max_total_q_ > 0 ? lowering.workspace_tensor(dq_dims, dq->strides, FE_DATA_FLOAT, !engine_clears,
                                                         &lowering.tensor(dq_offsets), max_total_q_ * dq->strides[2] * 4)
                             : lowering.workspace_tensor(dq_dims, packed_strides(dq_dims), FE_DATA_FLOAT, !engine_clears);
        emit_matmul(lowering, ds, k_plain, dq_accumulator, c.compute, c.label("dS.K"), c.by_queries());
        c.pointwise(FE_POINTWISE_IDENTITY, dq_accumulator, nullptr, lowering.tensor(outputs[0]), "dQ");
    }

    bool dbias_;
    int64_t max_total_q_, max_total_kv_;

    // max_total_seq_len_q and _kv size a packed batch's workspace for its tokens.
    static void check_packed_workspace(const char *field, bool packed, const std::string &not_packed,
                                       const AttentionDims &d) {
        FE_CHECK(packed, FE_STATUS_INVALID_ARGUMENT, "%s sizes a packed batch's workspace; %s", field,
                 not_packed.c_str());
        FE_CHECK(d.d % 16 == 0 && d.d_v % 16 == 0, FE_STATUS_NOT_SUPPORTED,
                 "%s needs head dims that are multiples of 16 (d=%lld, d_v=%lld): cuDNN's packed workspace has a "
                 "known functional issue with others",
                 field, static_cast<long long>(d.d), static_cast<long long>(d.d_v));
    }

    // out = a . b, where out has one head per K/V head: with GQA the per-query-head products
    // ([b, h_q, rows, cols]) are summed over each group.
    void grouped_matmul(Lowering &lowering, const Descriptor &a, const Descriptor &b, const fe_tensor *out,
                        const std::vector<int64_t> &full_dims, const AttentionDims &d, fe_data_type io,
                        fe_data_type compute, const MatmulOverrides &overrides, const std::string &what) const {
        if (d.h_q == d.h_k) {
            emit_matmul(lowering, a, b, lowering.tensor(out), compute, what, overrides);
            return;
        }
        const Descriptor &full = max_total_kv_ > 0 ? packed_per_query_head(lowering, out, full_dims, d, io)
                                                   : lowering.internal_tensor(full_dims, packed_strides(full_dims), io);
        emit_matmul(lowering, a, b, full, compute, what + " (per query head)", overrides);
        emit_reduction(lowering, FE_REDUCTION_ADD, full, lowering.tensor(out), compute, what + " (sum over the group)");
    }

    // With max_total_seq_len_kv, dK's or dV's per-query-head products in the workspace, packed
    // like `out` (its ragged offset, or K's or V's) with each token holding h_q heads, sized
    // for the batch's key tokens; cuDNN scales the offsets by the group itself.
    const Descriptor &packed_per_query_head(Lowering &lowering, const fe_tensor *out, const std::vector<int64_t> &dims,
                                            const AttentionDims &d, fe_data_type io) const {
        lowering.require(Feature::packed_backward_workspace);
        const fe_tensor *like = out == outputs[1] ? inputs[kK] : inputs[kV];
        const fe_tensor *offsets = out->ragged_offset ? out->ragged_offset : like->ragged_offset;
        const int64_t group = d.h_q / d.h_k;
        std::vector<int64_t> strides = out->strides;
        strides[0] *= group;  // the batch's and the token's strides span h_q heads
        strides[2] *= group;
        return lowering.workspace_tensor(dims, strides, io, false, &lowering.tensor(offsets),
                                         max_total_kv_ * strides[2] * static_cast<int64_t>(data_type_size(io)));
    }
};

}  // namespace

Results add_sdpa_backward(fe_graph &g, fe_tensor *q, fe_tensor *k, fe_tensor *v, fe_tensor *o, fe_tensor *d_o,
                          fe_tensor *stats, const fe_sdpa_backward_options &options) {
    std::vector<const char *> ports = {"dQ", "dK", "dV"};
    if (options.output_dbias) ports.push_back("dBias");
    if (options.output_dsink) ports.push_back("dSink");
    const BackwardScoreModifiers modifiers = find_backward_score_modifiers(g, options);
    Results outputs = g.add_op(std::make_unique<SdpaBackward>(q, k, v, o, d_o, stats, options, modifiers),
                               options.name, "sdpa_backward", ports);
    absorb_backward_score_modifiers(g, modifiers);
    if (options.output_dsink) keep_float(outputs.back());
    if (options.output_dbias && options.bias && options.bias->data_type != FE_DATA_NOT_SET) {
        outputs[3]->data_type = options.bias->data_type;  // like the bias; the user may override
        outputs[3]->user_data_type = true;
    }
    return outputs;
}

// The op's description (lib/schema/schema.hpp) and how a call adds it.

namespace {

const schema::Op kSdpaBackward{"sdpa_backward",
                               "fe_graph_sdpa_backward",
                               "Attention",
                               attention_backward_input_ports(),
                               {{"dQ", nullptr, "Q's gradient"},
                                {"dK", nullptr, "K's gradient"},
                                {"dV", nullptr, "V's gradient"},
                                {"dBias", "output_dbias", "the bias's gradient"},
                                {"dSink", "output_dsink", "float [1, h_q, 1, 1]: the sinks' gradient"}},
                               {},
                               &sdpa_backward_options_description(),
                               {},
                               true,
                               "Attention backward: dQ, dK, dV."};

const std::vector<fe_tensor *> &add_sdpa_backward_call(fe_graph &g, const schema::Call &c) {
    return add_sdpa_backward(g, c.inputs[0], c.inputs[1], c.inputs[2], c.inputs[3], c.inputs[4], c.inputs[5],
                             c.options_as<fe_sdpa_backward_options>());
}

const schema::Registration kRegistered(kSdpaBackward, add_sdpa_backward_call);

}  // namespace

}  // namespace fe
