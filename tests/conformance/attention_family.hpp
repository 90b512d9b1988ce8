// The attention families' shared parts: the configuration (which the probes pin), its draw, the
// graph's inputs, and the reference forward in double.
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "families.hpp"

namespace conformance {

// One step of a score modifier chain (fe_sdpa_options.score_mod_*), applied to the scaled scores.
struct ScoreModStep {
    enum Kind { multiply, add_per_head, cap } kind;
    double value;  // multiply: the factor; cap: c in c * tanh(s / c); add_per_head: unused
};

struct AttentionConfig {
    fe_data_type type = FE_DATA_HALF;
    int64_t b = 1, h_q = 1, h_k = 1, s_q = 1, s_kv = 1, d = 64, d_v = 64;
    fe_causal_mask causal = FE_CAUSAL_MASK_NONE;
    int64_t window = 0, right = -1;
    fe_diagonal_alignment alignment = FE_DIAGONAL_ALIGNMENT_TOP_LEFT;
    bool padding = false, sink = false, stats = false, max_sum_exp = false, alibi = false;
    double softcap = 0, scale = 0.125;
    bool scale_tensor = false;
    int bias = 0;  // 0 none; 1 [1, h, s_q, s_kv]; 2 [b, 1, s_q, s_kv]; 3 [b, h, s_q, s_kv]; 4 [1, 1, s_q, s_kv]
    int dropout = 0;  // 0 none; 1 drawn by cuDNN (mask output); 2 the caller's mask
    double dropout_p = 0;
    // The philox seed and offset bound for a draw by cuDNN (-1: random); a backward sets them to
    // the forward's that drew its mask.
    int64_t dropout_seed = -1, dropout_offset = -1;
    // Sequence lengths to bind under a padding mask (empty: random), for the same reason.
    std::vector<int32_t> lengths_q, lengths_kv;
    bool dbias = false, dsink = false, deterministic = false;
    bool paged = false, ragged = false;  // both with a padding mask; paged K/V: forward only
    bool max_total = false;  // a packed backward's workspace sized for the batch's tokens
    int64_t page = 0;                    // tokens per page of a paged K/V cache
    std::vector<size_t> order_q, order_k, order_v, order_o;
    std::vector<int64_t> gaps_q, gaps_k, gaps_v, gaps_o;
    bool custom_o = false;
    fe_sdpa_implementation implementation = FE_SDPA_IMPLEMENTATION_AUTO;
    // A score modifier of the caller's own (empty: none), with the composite implementation.
    std::vector<ScoreModStep> score_mod;
};


constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

// A logical [b, h, s, d] tensor in double, gathered from a bound one (its strides, ragged
// offsets or pages applied); positions a packed sequence does not hold stay 0.
struct Dense {
    int64_t B = 0, H = 0, S = 0, D = 0;
    std::vector<double> v;
    double operator()(int64_t b, int64_t h, int64_t s, int64_t d) const {
        return v[static_cast<size_t>(((b * H + h) * S + s) * D + d)];
    }
};

// Per-case inputs the reference needs, in logical order.
struct Inputs {
    Dense q, k, v;
    const Bound *bias = nullptr, *sink = nullptr, *alibi = nullptr, *mask = nullptr;
    const Bound *mod_head = nullptr;  // a score modifier's per-head term [1, h_q, 1, 1]
    std::vector<int32_t> len_q, len_kv;
    // Element offsets of each sequence in packed Q, K, V, O (and the stats: rows of h_q).
    std::vector<int64_t> off_q, off_k, off_v, off_o, off_stats;
};

// The reference forward in double: P (after masks, sinks, dropout), O, per row max, sum, stats,
// and whether the row is defined (a padded row, or a row that sees no key and has no sink, is
// not).
struct Reference {
    int64_t B, H, SQ, SKV;
    std::vector<double> p, p_dropped, capped, o, max, sum;
    std::vector<double> unmodified;  // the scaled scores before a score modifier (with one)
    std::vector<char> row_defined;
    size_t row(int64_t b, int64_t h, int64_t i) const { return static_cast<size_t>((b * H + h) * SQ + i); }
    size_t at(int64_t b, int64_t h, int64_t i, int64_t j) const { return row(b, h, i) * static_cast<size_t>(SKV) + static_cast<size_t>(j); }
};

// What both directions share: the graph's inputs and the options they set.
struct Common {
    fe_tensor *q = nullptr, *k = nullptr, *v = nullptr, *len_q = nullptr, *len_kv = nullptr, *bias = nullptr,
              *sink = nullptr, *alibi = nullptr, *mask = nullptr, *seed = nullptr, *offset = nullptr,
              *scale = nullptr, *table_k = nullptr, *table_v = nullptr, *mod_head = nullptr;
    // Ragged offsets (int64 [b + 1, 1, 1, 1]); K's and V's, Q's and O's are one tensor when equal.
    fe_tensor *off_q = nullptr, *off_k = nullptr, *off_v = nullptr, *off_o = nullptr, *off_stats = nullptr;
};

// Draws a configuration of the space users send (fp16/bf16; the FP8 family adjusts it).
AttentionConfig draw(Rng &rng, bool backward);
std::string describe(const AttentionConfig &c);
bool bottom_right(const AttentionConfig &c);
// Checks a mask cuDNN drew and output: 0 or 1 wherever the softmax keeps the key (elsewhere its
// value is unspecified).
void check_drawn_mask(Case &k, const Bound &mask, const Reference &r);
// Draws a score modifier chain of one to three steps (multiply by a scalar, add a per-head term,
// cap with tanh) into c, with the composite implementation (the only one that takes it).
void draw_score_mod(Rng &rng, AttentionConfig &c);

// A drawn configuration changed as CUDNNFE_CONFORMANCE_VARY says (comma-separated items such as
// alibi=0, mha, d_v=d, causal=none, causal=bottom_right, window=N, type=e5m2, b=N, s_q=N, packed;
// apply_variations lists them all): to find which option of a wrong or stalled case matters.
void apply_variations(AttentionConfig &c);
// A score modifier's value of the scaled score s of head h, and its derivative there.
double score_mod_value(const AttentionConfig &c, const Inputs &in, int64_t h, double s);
double score_mod_derivative(const AttentionConfig &c, const Inputs &in, int64_t h, double s);
// The modifier chain in graph g, from the scores it stands for to its result (into the options'
// score_mod_input and score_mod_output), and its derivative chain for a backward (grad_input and
// grad_output non-null). The per-head term, when the chain has one, is t->mod_head.
bool build_score_mod(Case &k, const AttentionConfig &c, Common *t, fe_tensor **input, fe_tensor **output,
                     fe_tensor **grad_input = nullptr, fe_tensor **grad_output = nullptr);

// Strides for dims in a drawn order with gaps (odd strides on unit dims now and then).
std::vector<int64_t> layout(const std::vector<int64_t> &dims, const std::vector<size_t> &order,
                            const std::vector<int64_t> &gaps, Rng &rng);
std::vector<int64_t> thd_strides(int64_t h, int64_t s, int64_t d);
// The graph's inputs for a configuration (Q, K, V, lengths, pages, offsets, bias, ...).
Common make_inputs(Case &k, const AttentionConfig &c);
// Binds them with fresh random values in [lo, hi]; the reference's view of them.
Inputs bind_inputs(Case &k, const AttentionConfig &c, const Common &t, float lo = -1.f, float hi = 1.f);
// P (after masks, sinks, dropout), O, per row max, sum, and whether the row is defined.
Reference forward_reference(const AttentionConfig &c, const Inputs &in);

template <typename Options>
void set_common_options(Options &o, const AttentionConfig &c, const Common &t) {
    o.attn_scale = t.scale ? 0.0 : c.scale;
    o.attn_scale_tensor = t.scale;
    o.causal_mask = c.causal;
    o.sliding_window = c.window;
    o.right_bound = c.right;
    o.diagonal_alignment = c.alignment;
    o.softcap = c.softcap;
    o.seq_len_q = t.len_q;
    o.seq_len_kv = t.len_kv;
    o.bias = t.bias;
    o.alibi_slopes = t.alibi;
    o.sink_token = t.sink;
    o.implementation = c.implementation;
    if (c.dropout == 2) {
        o.dropout_mask = t.mask;
        o.dropout_scale = 1.0 / (1.0 - c.dropout_p);
    } else if (c.dropout == 1) {
        o.dropout_probability = c.dropout_p;
        o.dropout_seed = t.seed;
        o.dropout_offset = t.offset;
    }
}

// One attention case: a configuration drawn from k.rng, then changed by `adjust` (a probe's
// pinned options; null: as drawn).
void attention_case(Case &k, bool backward, const std::function<void(AttentionConfig &)> &adjust);
// The same for FP8 attention (its type set to an FP8 one by the draw).
void attention_fp8_case(Case &k, bool backward, const std::function<void(AttentionConfig &)> &adjust);

}  // namespace conformance
