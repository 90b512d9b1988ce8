// Scaled dot-product attention, forward. Lowered as the composite pattern cuDNN's fused
// attention engines recognise: S = Q.K^T, score modifiers, softmax (with its stats), dropout,
// O = P.V, all in one operation graph.

// include/cudnnfe.h, section "Attention" (copied there by scripts/schema/generate_header.py):
// /** Scaled dot-product attention (flash attention), forward: O = softmax(Q.K^T * scale + masks) V.
//  *  q: [b, h_q, s_q, d], k: [b, h_k, s_kv, d], v: [b, h_k, s_kv, d_v], in any layout with a unit
//  *  last stride (BHSD, BSHD, interleaved QKV); h_q a multiple of h_k (GQA, MQA); half or
//  *  bfloat16. out_o: [b, h_q, s_q, d_v], laid out like q. With options->generate_stats,
//  *  out_stats receives the float stats [b, h_q, s_q, 1] (max + log of the sum of exponentials per
//  *  row) that the backward pass reads; otherwise out_stats is nullable and set to NULL.
//  *  Lowered as one cuDNN operation graph that cuDNN's fused attention engines recognise. */
// FE_API fe_status fe_graph_sdpa(fe_graph *graph, fe_tensor *q, fe_tensor *k, fe_tensor *v,
//                                const fe_sdpa_options *options, fe_tensor **out_o,
//                                fe_tensor **out_stats);

#include <cudnn_graph.h>

#include <cmath>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "ops/attention.hpp"
#include "schema/option_fields.hpp"
#include "ops/graph_ops.hpp"
#include "schema/schema.hpp"

namespace fe {


namespace {

AttentionOptions paged_options(const fe_sdpa_options &o, const ScoreModifier &score_mod) {
    AttentionOptions a = forward_options(o);
    a.score_mod = score_mod;
    return a;
}

class Sdpa : public AttentionNode {
  public:
    Sdpa(fe_tensor *q, fe_tensor *k, fe_tensor *v, const fe_sdpa_options &o, const ScoreModifier &score_mod)
        : AttentionNode({q, k, v}, {"Q", "K", "V"}, paged_options(o, score_mod), o.compute_data_type),
          stats_(o.generate_stats != 0),
          mask_output_(o.output_dropout_mask != 0),
          max_sum_exp_(o.output_max_sum_exp != 0),
          given_(without_name(o)) {}
    const char *kind() const override { return "sdpa"; }

    void infer() override {
        AttentionDims d = check_qkv(inputs[0], inputs[1], inputs[2]);
        check_options(d);
        infer_forward_outputs(d, {stats_, mask_output_, max_sum_exp_, stats_port(), mask_port(), max_port()});
    }

    std::string attributes() const override {
        return option_attributes() + (stats_ ? " stats" : "") + (max_sum_exp_ ? " max_sum_exp" : "");
    }
    std::string unsupported_hint() const override {
        if (max_sum_exp_ && has_sink()) return explanation(Feature::max_sum_exp_with_sinks, cudnn().cudnnGetVersion());
        return "";
    }
    void write_attributes(AttributeWriter &out) const override {
        write_option_attributes(out, op_schema(kind()), &given_, 0);
    }

    void lower(Lowering &lowering) const override {
        const fe_tensor *q = inputs[0], *k = inputs[1], *v = inputs[2];
        check_types({q, k, v});
        const std::string what = "attention '" + name + "'";
        if (has_sink()) lowering.require(Feature::attention_sinks);
        if (alibi_ >= 0 && q->dims[2] == 1) lowering.require(Feature::attention_alibi_single_query);
        const int64_t s_kv = paged() ? options_.max_seq_len_kv : k->dims[2];
        if (seed_ >= 0 && q->dims[2] == 1 && s_kv > 256) lowering.require(Feature::attention_dropout_single_query_long_keys);
        if (stats_ && packed() && q->dims[2] == 1 && q->dims[1] > k->dims[1])
            lowering.require(Feature::packed_attention_stats_grouped_decode);
        if (has_sink() && paged() && q->dims[2] == 1 && q->dims[1] > k->dims[1])
            lowering.require(Feature::paged_attention_sinks_grouped_decode);
        if ((stats_ || max_sum_exp_) && paged() && q->dims[2] == 1 && score_mod_reads_a_tensor())
            lowering.require(Feature::paged_attention_stats_score_mod_tensor);
        std::string extra = mask_output_ ? "dropout mask output" : (max_sum_exp_ ? "Max and SumExp outputs" : "");
        if (lowers_native(lowering, false, extra, what))
            lower_native(lowering);
        else
            lower_composite(lowering);
    }

  private:
    // Whether the caller's score modifier reads a tensor from memory (a per-head term, say), not
    // only the scores and by-value scalars.
    bool score_mod_reads_a_tensor() const {
        for (const Node *n : options_.score_mod.nodes)
            for (const fe_tensor *t : n->inputs)
                if (t && t != options_.score_mod.input && t->is_input() && !t->by_value) return true;
        return false;
    }

    // cuDNN's single SDPA operation: Q, K, V (or their page containers), O, the stats, the
    // scale, and the padding lengths and page tables.
    void lower_native(Lowering &lowering) const {
        Descriptor op(CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR);
        op.set_desc(CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC, lowering.tensor(inputs[0]), "SDPA Q");
        op.set_desc(CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC, lowering.tensor(inputs[1]), "SDPA K");
        op.set_desc(CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC, lowering.tensor(inputs[2]), "SDPA V");
        op.set_desc(CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC, lowering.tensor(outputs[0]), "SDPA O");
        if (stats_)
            op.set_desc(CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, lowering.tensor(outputs[stats_port()]), "SDPA stats");
        // Without a scale the operation would apply its own default; 0 means none here, so pass 1.
        const Descriptor &scale =
            scale_ >= 0 ? lowering.tensor(inputs[static_cast<size_t>(scale_)])
                        : lowering.internal_scalar(options_.attn_scale != 0.0 ? options_.attn_scale : 1.0, FE_DATA_FLOAT, 4);
        op.set_desc(CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, scale, "SDPA scale");
        if (seq_q_ >= 0) {
            op.set_desc(CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC, *length_q(lowering), "SDPA seq_len_q");
            op.set_desc(CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC, *length_kv(lowering), "SDPA seq_len_kv");
        }
        if (paged()) {
            op.set_desc(CUDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_KDESC,
                        lowering.tensor(inputs[static_cast<size_t>(page_k_)]), "SDPA page table K");
            op.set_desc(CUDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_VDESC,
                        lowering.tensor(inputs[static_cast<size_t>(page_v_)]), "SDPA page table V");
        }
        lowering.finalize_and_add(std::move(op), "finalizing the native SDPA operation of attention '" + name + "'");
    }

    void lower_composite(Lowering &lowering) const {
        const fe_tensor *q = inputs[0], *k = inputs[1], *v = inputs[2];
        fe_data_type compute = lowering.compute_type(*this);
        AttentionDims d = check_qkv(q, k, v);
        const std::vector<int64_t> scores = {d.b, d.h_q, d.s_q, d.s_kv};
        const std::string what = "attention '" + name + "'";
        auto label = [&what](const char *step) { return what + " " + step; };

        // S = Q . K^T (K read transposed, or loaded from its pages).
        const Descriptor &k_t = keys_transposed(lowering, d, what);
        const Descriptor *len_q = length_q(lowering), *len_kv = length_kv(lowering);
        const PaddedMatmuls padded = padded_matmuls(len_q, len_kv);
        const Descriptor *s = &lowering.internal_tensor(scores, packed_strides(scores), FE_DATA_FLOAT);
        emit_matmul(lowering, lowering.tensor(q), k_t, *s, compute, label("Q.K^T"), padded.scores);
        s = modify_scores(lowering, s, d, compute, what);

        const Descriptor *stats = stats_ ? &lowering.tensor(outputs[stats_port()]) : nullptr;
        const Descriptor *max = max_sum_exp_ ? &lowering.tensor(outputs[max_port()]) : nullptr;
        const Descriptor *sum_exp = max_sum_exp_ ? &lowering.tensor(outputs[max_port() + 1]) : nullptr;
        const Descriptor *probabilities = softmax(lowering, *s, d, compute, stats,
                                                  has_dropout() ? FE_DATA_FLOAT : q->data_type, what, max, sum_exp);
        probabilities = apply_dropout(lowering, *probabilities, d, compute,
                                      mask_output_ ? outputs[mask_port()] : nullptr, q->data_type, what);

        // O = P . V
        emit_matmul(lowering, *probabilities, values(lowering, d, what), lowering.tensor(outputs[0]), compute, label("P.V"),
                    padded.output);
    }

    // Where each optional output sits: O, then Stats, DropoutMask, Max and SumExp as asked for.
    size_t stats_port() const { return 1; }
    size_t mask_port() const { return stats_ ? 2 : 1; }
    size_t max_port() const { return mask_port() + (mask_output_ ? 1 : 0); }

    bool stats_, mask_output_, max_sum_exp_;
    fe_sdpa_options given_;  // as the caller gave them, for the graph JSON
};

}  // namespace

void alibi_slopes(int64_t heads, float *out) {
    FE_CHECK(heads >= 1 && heads <= FE_MAX_ALIBI_HEADS, FE_STATUS_INVALID_ARGUMENT,
             "heads is %lld; 1 to %d are allowed", static_cast<long long>(heads), FE_MAX_ALIBI_HEADS);
    // The largest power of two not above heads (its highest set bit).
    const int64_t power = int64_t(1) << (63 - __builtin_clzll(static_cast<unsigned long long>(heads)));
    for (int64_t i = 0; i < power; ++i)
        out[i] = static_cast<float>(std::pow(2.0, -8.0 * static_cast<double>(i + 1) / static_cast<double>(power)));
    // Heads past the largest power of two take every other slope of the 2x denser sequence.
    for (int64_t i = 0; i < heads - power; ++i)
        out[power + i] =
            static_cast<float>(std::pow(2.0, -4.0 * static_cast<double>(2 * i + 1) / static_cast<double>(power)));
}

static std::unique_ptr<Node> make_sdpa(fe_tensor *q, fe_tensor *k, fe_tensor *v, const fe_sdpa_options &options,
                                const ScoreModifier &score_mod) {
    return std::make_unique<Sdpa>(q, k, v, options, score_mod);
}

Results add_sdpa(fe_graph &g, fe_tensor *q, fe_tensor *k, fe_tensor *v, const fe_sdpa_options &o) {
    const std::vector<const char *> ports =
        attention_forward_ports(o.generate_stats, false, o.output_dropout_mask, o.output_max_sum_exp);
    ScoreModifier score_mod =
        find_score_modifier(g, o.score_mod_input, o.score_mod_output, {}, "score_mod_input", "score_mod_output");
    Results outputs = g.add_op(make_sdpa(q, k, v, o, score_mod), o.name, "sdpa", ports);
    absorb_score_modifier(g, score_mod, *g.nodes.back());
    // The stats, Max, SumExp and a drawn mask (cuDNN draws it in float, 0 or 1) are float.
    for (size_t i = 1; i < outputs.size(); ++i) keep_float(outputs[i]);
    return outputs;
}

// The op's description (lib/schema/schema.hpp) and how a call adds it.

namespace {

const schema::Op kSdpa{"sdpa",
                       "fe_graph_sdpa",
                       "Attention",
                       attention_qkv_ports(),
                       {{"O", nullptr, "[b, h_q, s_q, d_v], laid out like q"},
                        {"Stats", "generate_stats", "float [b, h_q, s_q, 1]"},
                        {"DropoutMask", "output_dropout_mask", "the drawn mask"},
                        {"Max", "output_max_sum_exp", "float [b, h_q, s_q, 1]: each row's largest score"},
                        {"SumExp", "output_max_sum_exp", "float [b, h_q, s_q, 1]: each row's sum of exp(score - Max)"}},
                       {},
                       &sdpa_options_description(),
                       {},
                       true,
                       "Scaled dot-product attention (flash attention), forward."};

const std::vector<fe_tensor *> &add_sdpa_call(fe_graph &g, const schema::Call &c) {
    return add_sdpa(g, c.inputs[0], c.inputs[1], c.inputs[2], c.options_as<fe_sdpa_options>());
}

const schema::Registration kRegistered(kSdpa, add_sdpa_call);

}  // namespace

}  // namespace fe
