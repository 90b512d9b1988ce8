// What attention's forward and backward share: the optional inputs (scale, bias, ALiBi,
// padding lengths, dropout mask), the checks of Q, K, V and of those inputs, and the score
// modifiers (scale, bias, ALiBi, padding, causal and sliding-window masks) applied to Q.K^T.
#pragma once

#include <string>
#include <vector>

#include "ops/ops.hpp"
#include "ops/score_modifier.hpp"
#include "plan/lowering.hpp"

namespace fe {

namespace schema {
struct Port;
struct Struct;
}  // namespace schema

// The parts of the four attention ops' descriptions they share (attention.cpp).
const schema::Struct &sdpa_options_description();
const schema::Struct &sdpa_backward_options_description();
const std::vector<schema::Port> &attention_qkv_ports();
const std::vector<schema::Port> &attention_backward_input_ports();

// The options both directions take (field names as in fe_sdpa_options).
struct AttentionOptions {
    double attn_scale = 0.0;
    fe_tensor *attn_scale_tensor = nullptr;
    fe_causal_mask causal_mask = FE_CAUSAL_MASK_NONE;
    fe_tensor *bias = nullptr;
    int64_t sliding_window = 0;
    fe_tensor *seq_len_q = nullptr;
    fe_tensor *seq_len_kv = nullptr;
    fe_tensor *alibi_slopes = nullptr;
    fe_tensor *dropout_mask = nullptr;
    double dropout_scale = 1.0;
    double dropout_probability = 0.0;
    fe_tensor *dropout_seed = nullptr;
    fe_tensor *dropout_offset = nullptr;
    fe_tensor *page_table_k = nullptr;  // forward only
    fe_tensor *page_table_v = nullptr;
    int64_t max_seq_len_kv = 0;
    fe_sdpa_implementation implementation = FE_SDPA_IMPLEMENTATION_AUTO;
    fe_tensor *sink_token = nullptr;
    int64_t right_bound = -1;
    fe_diagonal_alignment diagonal_alignment = FE_DIAGONAL_ALIGNMENT_TOP_LEFT;
    double softcap = 0.0;
    ScoreModifier score_mod;       // the caller's chain on the scores
    ScoreModifier score_mod_grad;  // backward only: its derivative
};

// The options as given, with the name dropped: the node keeps them for the graph JSON, after
// the caller's name string may be gone.
template <typename Options>
Options without_name(Options o) {
    o.name = nullptr;
    return o;
}

// Both directions' option structs name these fields alike; take them from either.
template <typename Options>
AttentionOptions attention_options(const Options &o) {
    AttentionOptions a;
    a.attn_scale = o.attn_scale;
    a.attn_scale_tensor = o.attn_scale_tensor;
    a.causal_mask = o.causal_mask;
    a.bias = o.bias;
    a.sliding_window = o.sliding_window;
    a.seq_len_q = o.seq_len_q;
    a.seq_len_kv = o.seq_len_kv;
    a.alibi_slopes = o.alibi_slopes;
    a.dropout_mask = o.dropout_mask;
    a.dropout_scale = o.dropout_scale;
    a.dropout_probability = o.dropout_probability;
    a.dropout_seed = o.dropout_seed;
    a.dropout_offset = o.dropout_offset;
    a.implementation = o.implementation;
    a.sink_token = o.sink_token;
    a.right_bound = o.right_bound;
    a.diagonal_alignment = o.diagonal_alignment;
    a.softcap = o.softcap;
    return a;  // the score modifiers are found in the graph (find_score_modifier)
}

// A forward's options, its page tables included (paged K and V).
inline AttentionOptions forward_options(const fe_sdpa_options &o) {
    AttentionOptions a = attention_options(o);
    a.page_table_k = o.page_table_k;
    a.page_table_v = o.page_table_v;
    a.max_seq_len_kv = o.max_seq_len_kv;
    return a;
}

inline AttentionOptions with_score_modifiers(AttentionOptions a, const ScoreModifier &score_mod,
                                             const ScoreModifier &score_mod_grad) {
    a.score_mod = score_mod;
    a.score_mod_grad = score_mod_grad;
    return a;
}

// An attention forward's output ports, in order: O, then those asked for (FP8's amaxes always).
std::vector<const char *> attention_forward_ports(bool stats, bool fp8_amaxes, bool dropout_mask, bool max_sum_exp);

struct AttentionDims {
    int64_t b, h_q, h_k, s_q, s_kv, d, d_v;
};

class AttentionNode : public Node {
  protected:
    AttentionNode(std::vector<fe_tensor *> required, std::vector<const char *> required_ports,
                  const AttentionOptions &options, fe_data_type compute);

    const char *input_port(size_t i) const override;
    std::string combination() const override;
    // Q, K, V: ranks, unit head-dim stride, distinct tensors, consistent sizes.
    AttentionDims check_qkv(const fe_tensor *q, const fe_tensor *k, const fe_tensor *v) const;
    // The optional inputs against those sizes (check_option_values first).
    void check_options(const AttentionDims &d);
    // Its parts, in the order their errors are reported.
    void check_scale_bias_and_alibi(const AttentionDims &d);
    void check_dropout(const AttentionDims &d);
    void check_sinks_and_score_modifiers(const AttentionDims &d);
    void check_padding(const AttentionDims &d);
    // The plain values: finite scales, a window cuDNN can take, known enum values.
    void check_option_values() const;
    // Where a forward's optional outputs sit among its outputs (ports past O; the one given when
    // the output is asked for).
    struct ForwardOutputs {
        bool stats, dropout_mask, max_sum_exp;
        size_t stats_port, mask_port, max_port;  // Max at max_port, SumExp after it
    };
    // Checks that the forward's optional outputs can be given together and shapes O (like Q's
    // strides) and each asked-for output: stats and Max/SumExp one float per row, the mask one
    // value per score.
    void infer_forward_outputs(const AttentionDims &d, const ForwardOutputs &outs);
    // A backward's O and dO ([b, h_q, s_q, d_v]) and the forward's stats ([b, h_q, s_q, 1]), by port.
    void check_backward_inputs(const AttentionDims &d, int o, int d_o, int stats) const;
    // Q, K, V (and dO, O) in half or bfloat16, one type.
    static void check_types(const std::vector<const fe_tensor *> &tensors);
    std::string option_attributes() const;
    // Why cuDNN's native SDPA operation (version `cudnn_version` of the loaded library) cannot
    // take this node's options; "" when it can. `extra` names options only one direction has.
    std::string native_obstacle(size_t cudnn_version, bool backward, const std::string &extra) const;
    // Native or composite, by the requested implementation, what the native operation takes,
    // and whether this build already fell back from native (no engine for it).
    bool lowers_native(Lowering &lowering, bool backward, const std::string &extra, const std::string &what) const;

    // Everything between S = Q.K^T and the softmax: returns the modified scores.
    // `factors` multiply the scores right after the attention scale (FP8's descales). With
    // soft-capping, `capped` (when given) receives the scores divided by the cap, before the
    // tanh: the backward's derivative of the cap reads them.
    const Descriptor *modify_scores(Lowering &lowering, const Descriptor *s, const AttentionDims &d,
                                    fe_data_type compute, const std::string &what,
                                    const std::vector<const Descriptor *> &factors = {},
                                    const Descriptor **capped = nullptr) const;
    // Its steps, over the scores being modified.
    struct ScorePass;
    void scale_cap_and_bias_scores(ScorePass &pass, const std::vector<const Descriptor *> &factors,
                                   const Descriptor **capped) const;
    void add_alibi(ScorePass &pass) const;
    void mask_scores(ScorePass &pass, const AttentionDims &dims) const;
    // Whether any of Q, K, V or the outputs is packed (ragged).
    bool packed() const;
    // Whether the band's diagonal is aligned bottom-right (by the causal mask or the alignment).
    bool bottom_right() const;
    // The band's diagonal offset from the tensors' dims: s_kv - s_q when aligned bottom-right,
    // else 0 (under a padding mask the lowering takes each sequence's lengths instead).
    int64_t diagonal_offset(const AttentionDims &d) const;
    // The band's right bound: 0 for a causal mask, else right_bound (-1: none).
    int64_t effective_right_bound() const {
        return options_.causal_mask != FE_CAUSAL_MASK_NONE ? 0 : options_.right_bound;
    }
    // Whether a mask takes keys away from some query: padding, causal, sliding window or right bound.
    bool masks_keys() const {
        return seq_q_ >= 0 || seq_kv_ >= 0 || options_.causal_mask != FE_CAUSAL_MASK_NONE ||
               options_.sliding_window > 0 || options_.right_bound >= 0;
    }
    bool has_sink() const { return sink_ >= 0; }
    const Descriptor &sink(Lowering &lowering) const { return lowering.tensor(inputs[static_cast<size_t>(sink_)]); }
    bool paged() const { return page_k_ >= 0; }
    // K as [b, h_k, d, s_kv] and V as [b, h_k, s_kv, d_v]: loaded from the page containers when
    // paged, else views of the tensors themselves.
    const Descriptor &keys_transposed(Lowering &lowering, const AttentionDims &d, const std::string &what) const;
    const Descriptor &values(Lowering &lowering, const AttentionDims &d, const std::string &what) const;
    // The lengths of a padding mask (nullptr without one).
    const Descriptor *length_q(Lowering &lowering) const;
    const Descriptor *length_kv(Lowering &lowering) const;
    // The forward's matmuls under a padding mask of these lengths: S = Q.K^T told both (it fills
    // the padding with zeros), O = P.V told to stop its reduction at seq_len_kv; plain without one.
    struct PaddedMatmuls {
        MatmulOverrides scores, output;
    };
    static PaddedMatmuls padded_matmuls(const Descriptor *len_q, const Descriptor *len_kv) {
        if (!len_q) return {};
        return {{len_q, len_kv, nullptr, true, 0.0}, {len_q, nullptr, len_kv, false, 0.0}};
    }
    bool has_dropout() const { return dropout_ >= 0 || seed_ >= 0; }
    // The dropout mask: the caller's, or drawn by cuDNN's RNG into `drawn` (a virtual tensor, or
    // the node's DropoutMask output); nullptr without dropout.
    const Descriptor *dropout_mask(Lowering &lowering, const AttentionDims &d, const fe_tensor *drawn_output,
                                   const std::string &what) const;
    // Softmax over keys (and the sink, when there is one) with the stats (max + log of the sum,
    // per row) into `stats`, or the row max and sum into `max` and `sum_exp`, or the stats
    // into a virtual tensor: cuDNN's engines match the pattern with the stats, so inference
    // computes them too. Returns the probabilities, of `type`.
    const Descriptor *softmax(Lowering &lowering, const Descriptor &s, const AttentionDims &d, fe_data_type compute,
                              const Descriptor *stats, fe_data_type type, const std::string &what,
                              const Descriptor *max = nullptr, const Descriptor *sum_exp = nullptr) const;
    // The probabilities after dropout (of `type`), or `p` itself without dropout.
    const Descriptor *apply_dropout(Lowering &lowering, const Descriptor &p, const AttentionDims &d,
                                    fe_data_type compute, const fe_tensor *drawn_output, fe_data_type type,
                                    const std::string &what) const;
    // What the kept probabilities are multiplied by.
    double dropout_scale() const {
        return seed_ >= 0 ? 1.0 / (1.0 - options_.dropout_probability) : options_.dropout_scale;
    }

    AttentionOptions options_;
    std::vector<const char *> ports_;
    const ScoreModifier &score_mod() const { return options_.score_mod; }
    const ScoreModifier &score_mod_grad() const { return options_.score_mod_grad; }

    int scale_ = -1, bias_ = -1, seq_q_ = -1, seq_kv_ = -1, alibi_ = -1, dropout_ = -1, seed_ = -1, offset_ = -1,
        page_k_ = -1, page_v_ = -1, sink_ = -1;  // index in inputs, or -1
};

}  // namespace fe
