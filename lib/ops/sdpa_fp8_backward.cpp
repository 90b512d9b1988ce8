// FP8 attention backward: the composite pattern of cuDNN's FP8 flash attention backward engines.
// Each FP8 matmul's float result is descaled by its two operands' descales; the probabilities
// S and the score gradient dP are requantized to FP8 before the matmuls that read them; the
// outputs are quantized with the caller's scales, recording their amax.

// include/cudnnfe.h, section "Attention" (copied there by scripts/schema/generate_header.py):
// /* FP8 attention backward's scaling factors (one-element float tensors, as in fe_sdpa_fp8_scales):
//  * descales of the FP8 inputs Q, K, V, O, dO, of the FP8 probabilities S and of the FP8 score
//  * gradient dP; scales that quantize S, dP and the outputs dQ, dK, dV. All are required, and all
//  * must be device tensors: the backward kernels read them from memory. */
// typedef struct fe_sdpa_fp8_backward_scales {
//     uint32_t struct_size;
//     fe_tensor *descale_q;
//     fe_tensor *descale_k;
//     fe_tensor *descale_v;
//     fe_tensor *descale_o;
//     fe_tensor *descale_do;
//     fe_tensor *descale_s;
//     fe_tensor *descale_dp;
//     fe_tensor *scale_s;
//     fe_tensor *scale_dp;
//     fe_tensor *scale_dq;
//     fe_tensor *scale_dk;
//     fe_tensor *scale_dv;
// } fe_sdpa_fp8_backward_scales;
// #define FE_SDPA_FP8_BACKWARD_SCALES_INIT
//     { (uint32_t)sizeof(fe_sdpa_fp8_backward_scales), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
//       NULL, NULL, NULL, NULL }
//
// /** FP8 attention backward (Hopper and later): dQ, dK, dV (FP8, quantized with scale_dq/dk/dv)
//  *  from FP8 Q, K, V, O, dO and the float stats of the forward, the matmuls in FP8. The
//  *  recomputed probabilities and the score gradient are quantized to FP8 with scale_s and
//  *  scale_dp on the way. out_amax_dq/dk/dv/dp receive float [1, 1, 1, 1] tensors (largest
//  *  magnitudes before quantization); mark them as outputs. options as for
//  *  fe_graph_sdpa_backward (the band's right bound and diagonal alignment among them), except
//  *  dropout, ALiBi, dBias, packed tensors and deterministic mode; sinks with dSink, soft-capping
//  *  and score modifiers are taken and refused at build on cuDNN 9.19 (its kernels fault or
//  *  compute them wrongly). cuDNN 9.19 has engines for it on Hopper at head dims of 128 only
//  *  (docs/capabilities.md). */
// FE_API fe_status fe_graph_sdpa_fp8_backward(fe_graph *graph, fe_tensor *q, fe_tensor *k, fe_tensor *v,
//                                             fe_tensor *o, fe_tensor *d_o, fe_tensor *stats,
//                                             const fe_sdpa_fp8_backward_scales *scales,
//                                             const fe_sdpa_backward_options *options, fe_tensor **out_dq,
//                                             fe_tensor **out_dk, fe_tensor **out_dv, fe_tensor **out_amax_dq,
//                                             fe_tensor **out_amax_dk, fe_tensor **out_amax_dv,
//                                             fe_tensor **out_amax_dp);

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

enum Port {
    kQ = 0, kK, kV, kO, kDO, kStats,
    kDescaleQ, kDescaleK, kDescaleV, kDescaleO, kDescaleDO, kDescaleS, kDescaleDP,
    kScaleS, kScaleDP, kScaleDQ, kScaleDK, kScaleDV, kRequired
};
const char *const kScaleNames[] = {"descale_q", "descale_k",  "descale_v", "descale_o", "descale_do", "descale_s",
                                   "descale_dp", "scale_s",   "scale_dp",  "scale_dq",  "scale_dk",   "scale_dv"};
enum Output { kDQ = 0, kDK, kDV, kAmaxDQ, kAmaxDK, kAmaxDV, kAmaxDP };

bool is_fp8(fe_data_type t) { return t == FE_DATA_FP8_E4M3 || t == FE_DATA_FP8_E5M2; }

class SdpaFp8Backward : public AttentionBackwardNode {
  public:
    SdpaFp8Backward(fe_tensor *q, fe_tensor *k, fe_tensor *v, fe_tensor *o, fe_tensor *d_o, fe_tensor *stats,
                    const fe_sdpa_fp8_backward_scales &s, const fe_sdpa_backward_options &options,
                    const BackwardScoreModifiers &modifiers)
        : AttentionBackwardNode({q, k, v, o, d_o, stats, s.descale_q, s.descale_k, s.descale_v, s.descale_o,
                                 s.descale_do, s.descale_s, s.descale_dp, s.scale_s, s.scale_dp, s.scale_dq,
                                 s.scale_dk, s.scale_dv},
                                {"Q", "K", "V", "O", "dO", "Stats", kScaleNames[0], kScaleNames[1], kScaleNames[2],
                                 kScaleNames[3], kScaleNames[4], kScaleNames[5], kScaleNames[6], kScaleNames[7],
                                 kScaleNames[8], kScaleNames[9], kScaleNames[10], kScaleNames[11]},
                                options, modifiers) {}
    const char *kind() const override { return "sdpa_fp8_backward"; }
    std::string attributes() const override {
        return option_attributes() + (dsink_ ? " dsink" : "") + (deterministic_ ? " deterministic" : "");
    }
    std::string unsupported_hint() const override {
        if (inputs[kQ]->dims[3] != 128 || inputs[kV]->dims[3] != 128)
            return explanation(Feature::fp8_attention_backward_head_dims, cudnn().cudnnGetVersion());
        return "";
    }
    void infer() override {
        for (int i = kDescaleQ; i < kRequired; ++i)
            FE_CHECK(inputs[static_cast<size_t>(i)] != nullptr, FE_STATUS_NULL_POINTER, "scales->%s is NULL",
                     kScaleNames[i - kDescaleQ]);
        const fe_tensor *q = inputs[kQ], *k = inputs[kK], *v = inputs[kV];
        AttentionDims d = check_qkv(q, k, v);
        check_options(d);
        check_backward_inputs(d, kO, kDO, kStats);
        check_backward_options(d);
        for (int i = kDescaleQ; i < kRequired; ++i) {
            fe_tensor *t = inputs[static_cast<size_t>(i)];
            // The backward kernels read every scale from device memory: a by-value scalar
            // would be dereferenced as an address (an illegal access at run time).
            FE_CHECK(!t->by_value, FE_STATUS_NOT_SUPPORTED,
                     "%s '%s' is a by-value scalar; FP8 attention backward reads its scales from device tensors",
                     kScaleNames[i - kDescaleQ], t->name.c_str());
            shape_single_element(t, kScaleNames[i - kDescaleQ], 4);
        }
        assign_inferred_shape(outputs[kDQ], q->dims, q->strides);
        assign_inferred_shape(outputs[kDK], k->dims, k->strides);
        assign_inferred_shape(outputs[kDV], v->dims, v->strides);
        for (int port = kAmaxDQ; port <= kAmaxDP; ++port)
            assign_inferred_shape(outputs[static_cast<size_t>(port)], {1, 1, 1, 1}, {1, 1, 1, 1});
    }

    void lower(Lowering &lowering) const override {
        refuse_what_fp8_cannot_take(lowering);
        const fe_data_type compute = lowering.compute_type(*this);
        const AttentionDims d = check_qkv(inputs[kQ], inputs[kK], inputs[kV]);
        if (d.s_q % 16 != 0 || d.s_kv % 16 != 0 || (d.s_q == 16 && d.s_kv == 16))
            lowering.require(Feature::fp8_attention_backward_unaligned);
        Pattern c(lowering, *this, d, compute);
        const Descriptor &softmax_sum = lower_row_sums(c);
        const fe_tensor *k = inputs[kK];
        const Descriptor &k_t = lowering.tensor_view(k, {d.b, d.h_k, d.d, d.s_kv},
                                                     {k->strides[0], k->strides[1], k->strides[3], k->strides[2]});
        const Descriptor *capped = nullptr;
        const Descriptor &p = lower_probabilities(c, k_t, &capped);
        lower_value_gradient(c, p);
        const Descriptor &ds8 = lower_score_gradient(c, p, softmax_sum, capped);
        lower_key_and_query_gradients(c, ds8, k_t);
    }

  private:
    // FP8 Q, K, V, O and dO, float scales; no dropout, deterministic mode or packed tensors; and
    // never the native operation, which takes no FP8 tensors.
    void refuse_what_fp8_cannot_take(Lowering &lowering) const {
        lowering.require(Feature::fp8_attention);
        for (const fe_tensor *t : {inputs[kQ], inputs[kK], inputs[kV], inputs[kO], inputs[kDO]})
            FE_CHECK(is_fp8(t->data_type), FE_STATUS_NOT_SUPPORTED,
                     "FP8 attention backward takes fp8_e4m3 or fp8_e5m2 Q, K, V, O and dO; '%s' is %s",
                     t->name.c_str(), data_type_name(t->data_type));
        for (int i = kStats; i < kRequired; ++i) {
            const fe_tensor *t = inputs[static_cast<size_t>(i)];
            FE_CHECK(t->data_type == FE_DATA_FLOAT, FE_STATUS_NOT_SUPPORTED, "%s '%s' is %s; it must be float",
                     ports_[static_cast<size_t>(i)], t->name.c_str(), data_type_name(t->data_type));
        }
        if (has_sink()) {
            lowering.require(Feature::attention_sinks);
            lowering.require(Feature::fp8_attention_backward_sinks);
        }
        if (options_.softcap > 0 || score_mod().given()) lowering.require(Feature::fp8_attention_backward_score_modifiers);
        if (has_dropout()) lowering.require(Feature::fp8_attention_dropout);
        if (deterministic_) lowering.require(Feature::fp8_attention_backward_deterministic);
        if (packed()) lowering.require(Feature::fp8_attention_packed);
        lowers_native(lowering, true, "FP8 tensors", "FP8 attention backward '" + name + "'");
    }

    // What every step of the pattern uses: the shapes of the scores, the sequence lengths, and
    // float tensors and products made in the lowering.
    struct Pattern {
        Pattern(Lowering &l, const SdpaFp8Backward &n, const AttentionDims &dims, fe_data_type c)
            : lowering(l), node(n), d(dims), compute(c), what("FP8 attention backward '" + n.name + "'"),
              scores{d.b, d.h_q, d.s_q, d.s_kv}, scores_t{d.b, d.h_q, d.s_kv, d.s_q},
              scores_t_strides{d.h_q * d.s_q * d.s_kv, d.s_q * d.s_kv, 1, d.s_kv}, rows{d.b, d.h_q, d.s_q, 1},
              len_q(n.length_q(l)), len_kv(n.length_kv(l)) {}
        Lowering &lowering;
        const SdpaFp8Backward &node;
        const AttentionDims d;
        const fe_data_type compute;
        const std::string what;
        const std::vector<int64_t> scores, scores_t, scores_t_strides, rows;
        const Descriptor *len_q, *len_kv;
        const fe_pointwise_options pw = FE_POINTWISE_OPTIONS_INIT;

        std::string label(const char *step) const { return what + " " + step; }
        const Descriptor &scale(int port) const { return lowering.tensor(node.inputs[static_cast<size_t>(port)]); }
        const Descriptor &floats(const std::vector<int64_t> &dims) const {
            return lowering.internal_tensor(dims, packed_strides(dims), FE_DATA_FLOAT);
        }
        // x * y into a new float tensor shaped like `dims`.
        const Descriptor &mul(const Descriptor &x, const Descriptor &y, const std::vector<int64_t> &dims,
                              const char *step) const {
            const Descriptor &out = floats(dims);
            emit_pointwise(lowering, FE_POINTWISE_MUL, x, &y, nullptr, out, compute, pw, 0, label(step));
            return out;
        }
        // The lengths' overrides of a matmul's M, N and K, under a padding mask.
        MatmulOverrides overrides(const Descriptor *m, const Descriptor *n, const Descriptor *k_len) const {
            MatmulOverrides o;
            if (len_q) o = {m, n, k_len, false, 0.0};
            return o;
        }
    };

    // Row sums of dO * O, back in real units.
    const Descriptor &lower_row_sums(const Pattern &c) const {
        const AttentionDims &d = c.d;
        const std::vector<int64_t> o_dims = {d.b, d.h_q, d.s_q, d.d_v};
        const Descriptor &d_o_times_o =
            c.mul(c.lowering.tensor(inputs[kDO]), c.lowering.tensor(inputs[kO]), o_dims, "dO * O");
        const Descriptor &row_dot = c.floats(c.rows);
        emit_reduction(c.lowering, FE_REDUCTION_ADD, d_o_times_o, row_dot, c.compute, c.label("rowsum(dO * O)"));
        const Descriptor &real = c.mul(c.mul(row_dot, c.scale(kDescaleDO), c.rows, "descale dO (rows)"),
                                       c.scale(kDescaleO), c.rows, "descale O (rows)");
        if (dsink_) lower_sink_gradient(c.lowering, real, c.rows, packed_strides(c.rows), c.compute, c.what);
        return real;
    }

    // exp(S - stats): the forward's probabilities, recomputed from FP8 Q and K. `capped` receives
    // the scores over the soft-cap (nullptr without one), for its derivative.
    const Descriptor &lower_probabilities(const Pattern &c, const Descriptor &k_t, const Descriptor **capped) const {
        Lowering &lowering = c.lowering;
        const Descriptor *s = &c.floats(c.scores);
        emit_matmul(lowering, lowering.tensor(inputs[kQ]), k_t, *s, c.compute, c.label("Q.K^T"),
                    c.overrides(c.len_q, c.len_kv, nullptr));
        s = modify_scores(lowering, s, c.d, c.compute, c.what, {&c.scale(kDescaleQ), &c.scale(kDescaleK)}, capped);
        const Descriptor &centered = c.floats(c.scores);
        emit_pointwise(lowering, FE_POINTWISE_SUB, *s, &lowering.tensor(inputs[kStats]), nullptr, centered, c.compute,
                       c.pw, 0, c.label("S - stats"));
        const Descriptor &p = c.floats(c.scores);
        emit_pointwise(lowering, FE_POINTWISE_EXP, centered, nullptr, nullptr, p, c.compute, c.pw, 0, c.label("P"));
        return p;
    }

    // dV = (S8^T . dO) with S8 = P quantized by scale_s.
    void lower_value_gradient(const Pattern &c, const Descriptor &p) const {
        Lowering &lowering = c.lowering;
        const AttentionDims &d = c.d;
        const fe_data_type type = inputs[kQ]->data_type;
        const Descriptor &p8 = lowering.internal_tensor(c.scores, packed_strides(c.scores), type);
        emit_pointwise(lowering, FE_POINTWISE_MUL, p, &c.scale(kScaleS), nullptr, p8, c.compute, c.pw, 0,
                       c.label("scale S"));
        const Descriptor &p8_t = lowering.internal_tensor(c.scores_t, c.scores_t_strides, type);
        emit_reshape(lowering, p8, p8_t, c.label("S^T"));
        fp8_matmul(lowering, p8_t, lowering.tensor(inputs[kDO]), kDescaleS, kDescaleDO, kScaleDV, kDV, kAmaxDV,
                   {d.b, d.h_q, d.s_kv, d.d_v}, d, c.compute, c.overrides(c.len_kv, nullptr, c.len_q), c.label("dV"));
    }

    // dP = (dO . V^T) * descales - row sums, times P, back through the score modifiers and times
    // the attention scale; its amax; quantized by scale_dp.
    const Descriptor &lower_score_gradient(const Pattern &c, const Descriptor &p, const Descriptor &softmax_sum,
                                           const Descriptor *capped) const {
        Lowering &lowering = c.lowering;
        const AttentionDims &d = c.d;
        const fe_tensor *v = inputs[kV];
        const Descriptor &v_t = lowering.tensor_view(v, {d.b, d.h_k, d.d_v, d.s_kv},
                                                     {v->strides[0], v->strides[1], v->strides[3], v->strides[2]});
        const Descriptor &dp_raw = c.floats(c.scores);
        emit_matmul(lowering, lowering.tensor(inputs[kDO]), v_t, dp_raw, c.compute, c.label("dO.V^T"),
                    c.overrides(c.len_q, c.len_kv, nullptr));
        const Descriptor &dp_real = c.mul(c.mul(dp_raw, c.scale(kDescaleDO), c.scores, "descale dO"),
                                          c.scale(kDescaleV), c.scores, "descale V");
        const Descriptor &centered_dp = c.floats(c.scores);
        emit_pointwise(lowering, FE_POINTWISE_SUB, dp_real, &softmax_sum, nullptr, centered_dp, c.compute, c.pw, 0,
                       c.label("dP - row sums"));
        const Descriptor *ds = &c.mul(centered_dp, p, c.scores, "dS");
        ds = &through_score_modifiers(lowering, *ds, capped, c.scores, packed_strides(c.scores), c.compute, c.what);
        if (scale_ >= 0 || options_.attn_scale != 0.0) {
            const Descriptor &attn = scale_ >= 0 ? lowering.tensor(inputs[static_cast<size_t>(scale_)])
                                                 : lowering.internal_scalar(options_.attn_scale, FE_DATA_FLOAT, 4);
            ds = &c.mul(*ds, attn, c.scores, "dS scale");
        }
        emit_reduction(lowering, FE_REDUCTION_AMAX, *ds, lowering.tensor(outputs[kAmaxDP]), c.compute,
                       c.label("amax dP"));
        const Descriptor &ds8 = lowering.internal_tensor(c.scores, packed_strides(c.scores), inputs[kDO]->data_type);
        emit_pointwise(lowering, FE_POINTWISE_MUL, *ds, &c.scale(kScaleDP), nullptr, ds8, c.compute, c.pw, 0,
                       c.label("scale dP"));
        return ds8;
    }

    // dQ = dP8 . K, dK = dP8^T . Q.
    void lower_key_and_query_gradients(const Pattern &c, const Descriptor &ds8, const Descriptor &k_t) const {
        Lowering &lowering = c.lowering;
        const AttentionDims &d = c.d;
        const fe_tensor *k = inputs[kK];
        const Descriptor &k_plain = lowering.internal_tensor(k->dims, k->strides, k->data_type);
        emit_reshape(lowering, k_t, k_plain, c.label("K"));
        fp8_matmul(lowering, ds8, k_plain, kDescaleDP, kDescaleK, kScaleDQ, kDQ, kAmaxDQ, {d.b, d.h_q, d.s_q, d.d}, d,
                   c.compute, c.overrides(c.len_q, nullptr, c.len_kv), c.label("dQ"));
        const Descriptor &ds8_t = lowering.internal_tensor(c.scores_t, c.scores_t_strides, inputs[kDO]->data_type);
        emit_reshape(lowering, ds8, ds8_t, c.label("dP^T"));
        fp8_matmul(lowering, ds8_t, lowering.tensor(inputs[kQ]), kDescaleDP, kDescaleQ, kScaleDK, kDK, kAmaxDK,
                   {d.b, d.h_q, d.s_kv, d.d}, d, c.compute, c.overrides(c.len_kv, nullptr, c.len_q), c.label("dK"));
    }

    // out = quantize((a . b) [summed over each query-head group] * descale_a * descale_b), with
    // the amax of the real values before quantization.
    void fp8_matmul(Lowering &lowering, const Descriptor &a, const Descriptor &b, int descale_a, int descale_b,
                    int scale_out, int out, int amax, const std::vector<int64_t> &full_dims, const AttentionDims &d,
                    fe_data_type compute, const MatmulOverrides &overrides, const std::string &what) const {
        const fe_pointwise_options pw = FE_POINTWISE_OPTIONS_INIT;
        const fe_tensor *target = outputs[static_cast<size_t>(out)];
        const Descriptor &product = lowering.internal_tensor(full_dims, packed_strides(full_dims), FE_DATA_FLOAT);
        emit_matmul(lowering, a, b, product, compute, what, overrides);
        const Descriptor *c = &product;
        if (full_dims[1] != target->dims[1]) {  // GQA: sum the per-query-head products of each group
            const Descriptor &grouped = lowering.internal_tensor(target->dims, packed_strides(target->dims), FE_DATA_FLOAT);
            emit_reduction(lowering, FE_REDUCTION_ADD, product, grouped, compute, what + " (sum over the group)");
            c = &grouped;
        }
        (void)d;
        const std::vector<int64_t> &dims = target->dims;
        const Descriptor &by_a = lowering.internal_tensor(dims, packed_strides(dims), FE_DATA_FLOAT);
        emit_pointwise(lowering, FE_POINTWISE_MUL, *c, &lowering.tensor(inputs[static_cast<size_t>(descale_a)]), nullptr,
                       by_a, compute, pw, 0, what + " descale");
        const Descriptor &real = lowering.internal_tensor(dims, packed_strides(dims), FE_DATA_FLOAT);
        emit_pointwise(lowering, FE_POINTWISE_MUL, by_a, &lowering.tensor(inputs[static_cast<size_t>(descale_b)]), nullptr,
                       real, compute, pw, 0, what + " descale");
        emit_reduction(lowering, FE_REDUCTION_AMAX, real, lowering.tensor(outputs[static_cast<size_t>(amax)]), compute,
                       what + " amax");
        emit_pointwise(lowering, FE_POINTWISE_MUL, real, &lowering.tensor(inputs[static_cast<size_t>(scale_out)]), nullptr,
                       lowering.tensor(target), compute, pw, 0, what + " scale");
    }

};

}  // namespace

Results add_sdpa_fp8_backward(fe_graph &g, fe_tensor *q, fe_tensor *k, fe_tensor *v, fe_tensor *o, fe_tensor *d_o,
                              fe_tensor *stats, const fe_sdpa_fp8_backward_scales &s,
                              const fe_sdpa_backward_options &options) {
    std::vector<const char *> ports = {"dQ", "dK", "dV", "Amax_dQ", "Amax_dK", "Amax_dV", "Amax_dP"};
    if (options.output_dsink) ports.push_back("dSink");
    const BackwardScoreModifiers modifiers = find_backward_score_modifiers(g, options);
    Results outputs = g.add_op(std::make_unique<SdpaFp8Backward>(q, k, v, o, d_o, stats, s, options, modifiers),
                               options.name, "sdpa_fp8_backward", ports);
    absorb_backward_score_modifiers(g, modifiers);
    for (size_t i = 0; i < 3; ++i)  // gradients in the FP8 type of what they differentiate, unless overridden
        if (outputs[i]->data_type == FE_DATA_NOT_SET) outputs[i]->data_type = (i == 0 ? q : i == 1 ? k : v)->data_type;
    for (size_t i = 3; i < outputs.size(); ++i) keep_float(outputs[i]);  // the amaxes and dSink
    return outputs;
}

// The op's description (lib/schema/schema.hpp) and how a call adds it.

namespace {

const schema::Struct kFp8BackwardScales = FE_SCHEMA_OPTIONS(fe_sdpa_fp8_backward_scales, FE_SDPA_FP8_BACKWARD_SCALES_INIT,
    "FP8 attention backward's scaling factors: one-element float tensors, all required.",
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, descale_q, nullptr, "Q's descale."),
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, descale_k, nullptr, "K's descale."),
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, descale_v, nullptr, "V's descale."),
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, descale_o, nullptr, "O's descale."),
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, descale_do, nullptr, "dO's descale."),
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, descale_s, nullptr, "The FP8 probabilities' descale."),
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, descale_dp, nullptr, "The FP8 score gradient's descale."),
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, scale_s, nullptr, "Quantizes the probabilities."),
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, scale_dp, nullptr, "Quantizes the score gradient."),
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, scale_dq, nullptr, "Quantizes dQ."),
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, scale_dk, nullptr, "Quantizes dK."),
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, scale_dv, nullptr, "Quantizes dV."));

const schema::Op kSdpaFp8Backward{"sdpa_fp8_backward",
                                  "fe_graph_sdpa_fp8_backward",
                                  "Attention",
                                  attention_backward_input_ports(),
                                  {{"dQ", nullptr, "Q's gradient, fp8"},
                                   {"dK", nullptr, "K's gradient, fp8"},
                                   {"dV", nullptr, "V's gradient, fp8"},
                                   {"Amax_dQ", nullptr, "dQ's amax"},
                                   {"Amax_dK", nullptr, "dK's amax"},
                                   {"Amax_dV", nullptr, "dV's amax"},
                                   {"Amax_dP", nullptr, "the score gradient's amax"},
                                   {"dSink", "output_dsink", "float [1, h_q, 1, 1]: the sinks' gradient"}},
                                  {},
                                  &sdpa_backward_options_description(),
                                  {"name", "attn_scale", "attn_scale_tensor", "causal_mask", "compute_data_type", "bias",
                                   "sliding_window", "seq_len_q", "seq_len_kv", "dropout_mask", "dropout_scale",
                                   "dropout_probability", "dropout_seed", "dropout_offset", "implementation", "deterministic",
                                   "right_bound", "diagonal_alignment", "sink_token", "output_dsink", "softcap",
                                   "score_mod_input", "score_mod_output", "score_mod_grad_input",
                                   "score_mod_grad_output"},
                                  true,
                                  "FP8 attention backward (Hopper and later).",
                                  nullptr,
                                  &kFp8BackwardScales};

const std::vector<fe_tensor *> &add_sdpa_fp8_backward_call(fe_graph &g, const schema::Call &c) {
    return add_sdpa_fp8_backward(g, c.inputs[0], c.inputs[1], c.inputs[2], c.inputs[3], c.inputs[4], c.inputs[5],
                                 c.scales_as<fe_sdpa_fp8_backward_scales>(), c.options_as<fe_sdpa_backward_options>());
}

const schema::Registration kRegistered(kSdpaFp8Backward, add_sdpa_fp8_backward_call);

}  // namespace

}  // namespace fe
