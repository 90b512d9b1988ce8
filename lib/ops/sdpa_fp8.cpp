// FP8 attention forward: the composite pattern of cuDNN's FP8 flash attention engines. The
// FP8 matmuls accumulate in float; their results are descaled, the softmax runs in float, and
// P and O are requantized with the caller's scales, recording their largest magnitudes (amax)
// so the caller can derive the next step's scales.

// include/cudnnfe.h, section "Attention" (copied there by scripts/schema/generate_header.py):
// /* FP8 attention's scaling factors: float tensors of one element ([1, 1, 1, 1] device tensors,
//  * or fe_graph_scalar values). A descale turns stored FP8 values back into real ones
//  * (real = stored * descale); a scale turns real values into the FP8 values stored (stored =
//  * real * scale). */
// typedef struct fe_sdpa_fp8_scales {
//     uint32_t struct_size;
//     fe_tensor *descale_q;
//     fe_tensor *descale_k;
//     fe_tensor *descale_v;
//     fe_tensor *descale_s; /* of the FP8 probabilities P fed to P.V */
//     fe_tensor *scale_s;   /* quantizes P to FP8 before P.V */
//     fe_tensor *scale_o;   /* quantizes O */
// } fe_sdpa_fp8_scales;
// #define FE_SDPA_FP8_SCALES_INIT { (uint32_t)sizeof(fe_sdpa_fp8_scales), NULL, NULL, NULL, NULL, NULL, NULL }
//
// /** FP8 attention forward (Hopper and later): Q, K, V in fp8_e4m3 or fp8_e5m2, the matmuls in
//  *  FP8 with float accumulation, softmax in float. O = quantize(softmax(Q.K^T * scale * descale_q
//  *  * descale_k + masks) quantized by scale_s, times V, times descale_s * descale_v, by scale_o).
//  *  Every scale in `scales` is required. out_o: like fe_graph_sdpa's (Q's FP8 type unless
//  *  overridden). out_amax_s and out_amax_o receive float [1, 1, 1, 1] tensors: the largest
//  *  absolute value of P and of O before their quantization (for the next step's scales); mark
//  *  them as outputs. With a padding mask, cuDNN's amax_s also covers values past the sequence
//  *  lengths: it may exceed the largest P of the defined rows, never fall below it. With a sliding
//  *  window and no causal mask, amax_o likewise covers the query rows past s_q in the last block
//  *  of 128 rows: never below the defined rows' largest |O|, never above V's largest magnitude
//  *  (descaled). options as
//  *  for fe_graph_sdpa (paged K/V caches included, the band's right bound and diagonal alignment
//  *  among them), but the native implementation (the composite pattern is used). cuDNN 9.19
//  *  computes FP8 attention with sinks, soft-capping, a score modifier or Max/SumExp outputs
//  *  wrongly or not at all: refused at build. cuDNN 9.19 has no engine for one query row (s_q = 1) on Hopper, and its kernel for a
//  *  sliding window never finishes over more blocks of 128 query rows (b * h_q * ceil(s_q / 128))
//  *  than the GPU has SMs where a block sees no key or a padding mask is given: refused at build
//  *  (docs/capabilities.md). */
// FE_API fe_status fe_graph_sdpa_fp8(fe_graph *graph, fe_tensor *q, fe_tensor *k, fe_tensor *v,
//                                    const fe_sdpa_fp8_scales *scales, const fe_sdpa_options *options,
//                                    fe_tensor **out_o, fe_tensor **out_stats, fe_tensor **out_amax_s,
//                                    fe_tensor **out_amax_o);

#include <cudnn_graph.h>

#include <algorithm>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "ops/attention.hpp"
#include "schema/option_fields.hpp"
#include "ops/graph_ops.hpp"
#include "ops/score_modifier.hpp"
#include "schema/schema.hpp"

namespace fe {

namespace {

enum Port { kQ = 0, kK, kV, kDescaleQ, kDescaleK, kDescaleV, kDescaleS, kScaleS, kScaleO, kRequired };
const char *const kScaleNames[] = {"descale_q", "descale_k", "descale_v", "descale_s", "scale_s", "scale_o"};

bool is_fp8(fe_data_type t) { return t == FE_DATA_FP8_E4M3 || t == FE_DATA_FP8_E5M2; }

// The query rows cuDNN's FP8 forward kernels take per block of the grid.
constexpr int64_t kQueryBlock = 128;

class SdpaFp8 : public AttentionNode {
  public:
    SdpaFp8(fe_tensor *q, fe_tensor *k, fe_tensor *v, const fe_sdpa_fp8_scales &s, const fe_sdpa_options &o,
            const ScoreModifier &score_mod)
        : AttentionNode({q, k, v, s.descale_q, s.descale_k, s.descale_v, s.descale_s, s.scale_s, s.scale_o},
                        {"Q", "K", "V", kScaleNames[0], kScaleNames[1], kScaleNames[2], kScaleNames[3],
                         kScaleNames[4], kScaleNames[5]},
                        with_score_modifiers(forward_options(o), score_mod, ScoreModifier{}), o.compute_data_type),
          stats_(o.generate_stats != 0), mask_output_(o.output_dropout_mask != 0),
          max_sum_exp_(o.output_max_sum_exp != 0), given_(without_name(o)) {}
    const char *kind() const override { return "sdpa_fp8"; }
    std::string attributes() const override {
        return option_attributes() + (stats_ ? " stats" : "") + (max_sum_exp_ ? " max_sum_exp" : "");
    }
    std::string unsupported_hint() const override {
        if (inputs[kQ]->dims[2] == 1)
            return explanation(Feature::fp8_attention_single_query, cudnn().cudnnGetVersion());
        if (max_sum_exp_ && has_sink()) return explanation(Feature::max_sum_exp_with_sinks, cudnn().cudnnGetVersion());
        return "";
    }
    void write_attributes(AttributeWriter &out) const override {
        write_option_attributes(out, op_schema(kind()), &given_, 0);
    }

    // Where each output sits: O, then Stats as asked for, Amax_S, Amax_O, then DropoutMask, Max and
    // SumExp as asked for.
    size_t amax_s_port() const { return stats_ ? 2 : 1; }
    size_t mask_port() const { return amax_s_port() + 2; }
    size_t max_port() const { return mask_port() + (mask_output_ ? 1 : 0); }

    // Whether a whole block of kQueryBlock query rows sees no key under the band. The rows that
    // see one are contiguous: from the first whose right bound reaches key 0 to the last whose
    // window's left bound (keys j > i + offset - window) is still left of the last key.
    bool a_query_block_sees_no_key(const AttentionDims &d) const {
        const int64_t offset = diagonal_offset(d), right = effective_right_bound();
        const int64_t first = right >= 0 ? std::max<int64_t>(0, -(offset + right)) : 0;
        const int64_t last = std::min(d.s_q - 1, d.s_kv - 2 + options_.sliding_window - offset);
        const int64_t last_block_start = (d.s_q - 1) / kQueryBlock * kQueryBlock;
        return first > last || first >= kQueryBlock || last < last_block_start;
    }

    // The sliding window's hang (the capability table's fp8_attention_window_many_blocks): more
    // query blocks than the GPU has SMs (an unknown SM count counts as fewer), and a block
    // without a key, or sequence lengths that may leave one so.
    bool window_may_hang(const AttentionDims &d, int sm_count) const {
        if (options_.sliding_window <= 0) return false;
        const int64_t blocks = d.b * d.h_q * ((d.s_q + kQueryBlock - 1) / kQueryBlock);
        if (sm_count > 0 && blocks <= sm_count) return false;
        return seq_q_ >= 0 || a_query_block_sees_no_key(d);
    }

    void infer() override {
        for (int i = kDescaleQ; i < kRequired; ++i)
            FE_CHECK(inputs[static_cast<size_t>(i)] != nullptr, FE_STATUS_NULL_POINTER, "scales->%s is NULL",
                     kScaleNames[i - kDescaleQ]);
        const fe_tensor *q = inputs[kQ];
        AttentionDims d = check_qkv(q, inputs[kK], inputs[kV]);
        check_options(d);
        for (int i = kDescaleQ; i < kRequired; ++i)
            shape_single_element(inputs[static_cast<size_t>(i)], kScaleNames[i - kDescaleQ], 4);
        infer_forward_outputs(d, {stats_, mask_output_, max_sum_exp_, 1, mask_port(), max_port()});
        for (size_t port : {amax_s_port(), amax_s_port() + 1}) assign_inferred_shape(outputs[port], {1, 1, 1, 1}, {1, 1, 1, 1});
    }

    void lower(Lowering &lowering) const override {
        lowering.require(Feature::fp8_attention);
        if (has_sink()) lowering.require(Feature::fp8_attention_sinks);
        if (options_.softcap > 0 || options_.score_mod.given()) lowering.require(Feature::fp8_attention_score_modifiers);
        if (max_sum_exp_) lowering.require(Feature::fp8_attention_max_sum_exp);
        if (bias_ >= 0) lowering.require(Feature::fp8_attention_bias);
        if (has_dropout()) lowering.require(Feature::fp8_attention_dropout);
        if (packed()) lowering.require(Feature::fp8_attention_packed);
        if (options_.sliding_window > 0 && bottom_right() && seq_q_ >= 0)
            lowering.require(Feature::fp8_attention_bottom_right_window_padding);
        const fe_tensor *q = inputs[kQ], *k = inputs[kK], *v = inputs[kV];
        for (const fe_tensor *t : {q, k, v})
            FE_CHECK(is_fp8(t->data_type), FE_STATUS_NOT_SUPPORTED,
                     "FP8 attention takes fp8_e4m3 or fp8_e5m2 Q, K and V; '%s' is %s", t->name.c_str(),
                     data_type_name(t->data_type));
        for (int i = kDescaleQ; i < kRequired; ++i) {
            const fe_tensor *t = inputs[static_cast<size_t>(i)];
            FE_CHECK(t->data_type == FE_DATA_FLOAT, FE_STATUS_NOT_SUPPORTED, "%s '%s' is %s; scales are float",
                     kScaleNames[i - kDescaleQ], t->name.c_str(), data_type_name(t->data_type));
        }
        // The one choice of every attention node: the native operation takes no FP8 tensors, so
        // this is always the composite pattern (and NATIVE is refused saying so).
        lowers_native(lowering, false, "FP8 tensors", "FP8 attention '" + name + "'");
        fe_data_type compute = lowering.compute_type(*this);
        AttentionDims d = check_qkv(q, k, v);
        if (window_may_hang(d, lowering.target().sm_count)) lowering.require(Feature::fp8_attention_window_many_blocks);
        const std::vector<int64_t> scores = {d.b, d.h_q, d.s_q, d.s_kv};
        const std::string what = "FP8 attention '" + name + "'";
        auto label = [&what](const char *step) { return what + " " + step; };
        auto scale = [&](int port) -> const Descriptor & { return lowering.tensor(inputs[static_cast<size_t>(port)]); };
        const fe_pointwise_options pw = FE_POINTWISE_OPTIONS_INIT;

        const Descriptor *len_q = length_q(lowering), *len_kv = length_kv(lowering);
        const PaddedMatmuls padded = padded_matmuls(len_q, len_kv);
        // S = Q . K^T in FP8, then scale, descale_q, descale_k and the score modifiers.
        const Descriptor *s = &lowering.internal_tensor(scores, packed_strides(scores), FE_DATA_FLOAT);
        emit_matmul(lowering, lowering.tensor(q), keys_transposed(lowering, d, what), *s, compute, label("Q.K^T"),
                    padded.scores);
        s = modify_scores(lowering, s, d, compute, what, {&scale(kDescaleQ), &scale(kDescaleK)});

        const Descriptor *stats = stats_ ? &lowering.tensor(outputs[1]) : nullptr;
        const Descriptor *max = max_sum_exp_ ? &lowering.tensor(outputs[max_port()]) : nullptr;
        const Descriptor *sum_exp = max_sum_exp_ ? &lowering.tensor(outputs[max_port() + 1]) : nullptr;
        const Descriptor *p = softmax(lowering, *s, d, compute, stats, FE_DATA_FLOAT, what, max, sum_exp);
        p = apply_dropout(lowering, *p, d, compute, mask_output_ ? outputs[mask_port()] : nullptr, FE_DATA_FLOAT, what);

        // amax(P), then P quantized to Q's FP8 type for the second matmul.
        emit_reduction(lowering, FE_REDUCTION_AMAX, *p, lowering.tensor(outputs[amax_s_port()]), compute, label("amax S"));
        const Descriptor &p8 = lowering.internal_tensor(scores, packed_strides(scores), q->data_type);
        emit_pointwise(lowering, FE_POINTWISE_MUL, *p, &scale(kScaleS), nullptr, p8, compute, pw, 0, label("scale S"));

        // O = (P8 . V) * descale_s * descale_v, amax taken before quantizing with scale_o.
        const std::vector<int64_t> o_dims = {d.b, d.h_q, d.s_q, d.d_v};
        const Descriptor &pv = lowering.internal_tensor(o_dims, packed_strides(o_dims), FE_DATA_FLOAT);
        emit_matmul(lowering, p8, values(lowering, d, what), pv, compute, label("P.V"), padded.output);
        const Descriptor &by_s = lowering.internal_tensor(o_dims, packed_strides(o_dims), FE_DATA_FLOAT);
        emit_pointwise(lowering, FE_POINTWISE_MUL, pv, &scale(kDescaleS), nullptr, by_s, compute, pw, 0,
                       label("descale S"));
        const Descriptor &real_o = lowering.internal_tensor(o_dims, packed_strides(o_dims), FE_DATA_FLOAT);
        emit_pointwise(lowering, FE_POINTWISE_MUL, by_s, &scale(kDescaleV), nullptr, real_o, compute, pw, 0,
                       label("descale V"));
        emit_reduction(lowering, FE_REDUCTION_AMAX, real_o, lowering.tensor(outputs[amax_s_port() + 1]), compute,
                       label("amax O"));
        emit_pointwise(lowering, FE_POINTWISE_MUL, real_o, &scale(kScaleO), nullptr, lowering.tensor(outputs[0]), compute,
                       pw, 0, label("scale O"));
    }

  private:
    bool stats_, mask_output_, max_sum_exp_;
    fe_sdpa_options given_;  // as the caller gave them, for the graph JSON
};

}  // namespace

static std::unique_ptr<Node> make_sdpa_fp8(fe_tensor *q, fe_tensor *k, fe_tensor *v, const fe_sdpa_fp8_scales &scales,
                                    const fe_sdpa_options &options, const ScoreModifier &score_mod) {
    return std::make_unique<SdpaFp8>(q, k, v, scales, options, score_mod);
}

Results add_sdpa_fp8(fe_graph &g, fe_tensor *q, fe_tensor *k, fe_tensor *v, const fe_sdpa_fp8_scales &s,
                     const fe_sdpa_options &o) {
    const std::vector<const char *> ports =
        attention_forward_ports(o.generate_stats, true, o.output_dropout_mask, o.output_max_sum_exp);
    ScoreModifier score_mod =
        find_score_modifier(g, o.score_mod_input, o.score_mod_output, {}, "score_mod_input", "score_mod_output");
    Results outputs = g.add_op(make_sdpa_fp8(q, k, v, s, o, score_mod), o.name, "sdpa_fp8", ports);
    absorb_score_modifier(g, score_mod, *g.nodes.back());
    for (size_t i = 1; i < outputs.size(); ++i) keep_float(outputs[i]);
    if (outputs[0]->data_type == FE_DATA_NOT_SET && q->data_type != FE_DATA_NOT_SET)
        outputs[0]->data_type = q->data_type;  // O in Q's FP8 type unless the user says otherwise
    return outputs;
}

// The op's description (lib/schema/schema.hpp) and how a call adds it.

namespace {

const schema::Struct kFp8Scales = FE_SCHEMA_OPTIONS(fe_sdpa_fp8_scales, FE_SDPA_FP8_SCALES_INIT,
    "FP8 attention's scaling factors: one-element float tensors, all required.",
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_scales, descale_q, nullptr, "Q's descale."),
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_scales, descale_k, nullptr, "K's descale."),
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_scales, descale_v, nullptr, "V's descale."),
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_scales, descale_s, nullptr, "The FP8 probabilities' descale."),
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_scales, scale_s, nullptr, "Quantizes the probabilities."),
    FE_SCHEMA_TENSOR(fe_sdpa_fp8_scales, scale_o, nullptr, "Quantizes O."));

const schema::Op kSdpaFp8{"sdpa_fp8",
                          "fe_graph_sdpa_fp8",
                          "Attention",
                          attention_qkv_ports(),
                          {{"O", nullptr, "[b, h_q, s_q, d_v], fp8"},
                           {"Stats", "generate_stats", "float [b, h_q, s_q, 1]"},
                           {"Amax_S", nullptr, "the probabilities' amax"},
                           {"Amax_O", nullptr, "O's amax"},
                           {"DropoutMask", "output_dropout_mask", "the drawn mask"},
                           {"Max", "output_max_sum_exp", "float [b, h_q, s_q, 1]: each row's largest score"},
                           {"SumExp", "output_max_sum_exp", "float [b, h_q, s_q, 1]: each row's sum of exp(score - Max)"}},
                          {},
                          &sdpa_options_description(),
                          {"name", "generate_stats", "attn_scale", "attn_scale_tensor", "causal_mask", "compute_data_type",
                           "bias", "sliding_window", "seq_len_q", "seq_len_kv", "alibi_slopes", "dropout_mask",
                           "dropout_scale", "dropout_probability", "dropout_seed", "dropout_offset", "output_dropout_mask",
                           "page_table_k", "page_table_v", "max_seq_len_kv", "implementation", "sink_token",
                           "output_max_sum_exp", "right_bound", "diagonal_alignment", "softcap", "score_mod_input",
                           "score_mod_output"},
                          true,
                          "FP8 attention, forward (Hopper and later).",
                          nullptr,
                          &kFp8Scales};

const std::vector<fe_tensor *> &add_sdpa_fp8_call(fe_graph &g, const schema::Call &c) {
    return add_sdpa_fp8(g, c.inputs[0], c.inputs[1], c.inputs[2], c.scales_as<fe_sdpa_fp8_scales>(),
                        c.options_as<fe_sdpa_options>());
}

const schema::Registration kRegistered(kSdpaFp8, add_sdpa_fp8_call);

}  // namespace

}  // namespace fe
