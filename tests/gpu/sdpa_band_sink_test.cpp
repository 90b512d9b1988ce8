// Attention's newer score and softmax options against a CPU reference in double, forward and
// backward: sink tokens (and dSink), the rows' Max and SumExp outputs, a band with both bounds
// in either alignment, and soft-capping; with GQA and a padding mask among the cases. Soft-capping
// and the causal mask also run as the caller's own score modifier (pointwise chains, with the
// caller's derivative in the backward), against the same reference.
#include <cstring>
#include <limits>

#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

struct BandSinkCase {
    const char *name;
    fe_data_type type;
    int64_t b, h_q, h_k, s_q, s_kv, d;
    fe_causal_mask causal = FE_CAUSAL_MASK_NONE;
    int64_t left = 0;    // sliding_window
    int64_t right = -1;  // right_bound
    fe_diagonal_alignment alignment = FE_DIAGONAL_ALIGNMENT_TOP_LEFT;
    double softcap = 0;
    bool sink = false;
    bool stats = false;        // forward: generate_stats
    bool max_sum_exp = false;  // forward: output_max_sum_exp
    bool padding = false;
    bool chain = false;  // soft-capping and the causal mask as the caller's score modifier
    int32_t fixed_len_q = 0, fixed_len_kv = 0;  // with padding: every sequence's lengths (0: random)
};

// The reference forward for one case: P (after masks, sinks and soft-capping), O, and per row
// the max (with the sink), the sum of exponentials (with the sink) and the stats.
struct Forward {
    int64_t B, H, HK, SQ, SKV, D;
    std::vector<double> p, o, max, sum, capped;  // capped: scaled scores over the cap (soft-capping)
    double &P(int64_t b, int64_t h, int64_t i, int64_t j) { return p[static_cast<size_t>(((b * H + h) * SQ + i) * SKV + j)]; }
    size_t row(int64_t b, int64_t h, int64_t i) const { return static_cast<size_t>((b * H + h) * SQ + i); }
};

bool bottom_right(const BandSinkCase &c) {
    return c.causal == FE_CAUSAL_MASK_BOTTOM_RIGHT ||
           (c.causal == FE_CAUSAL_MASK_NONE && c.alignment == FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT);
}

// Whether query i sees key j in a sequence of lq queries and lkv keys: a bottom-right diagonal
// is aligned to the sequence's own last key under a padding mask, else to the tensors' dims.
bool visible(const BandSinkCase &c, int64_t i, int64_t j, int64_t lq, int64_t lkv) {
    if (c.padding && j >= lkv) return false;
    int64_t diagonal = i + (bottom_right(c) ? (c.padding ? lkv - lq : c.s_kv - c.s_q) : 0);
    int64_t right = c.causal != FE_CAUSAL_MASK_NONE ? 0 : c.right;
    if (right >= 0 && j > diagonal + right) return false;
    if (c.left > 0 && j <= diagonal - c.left) return false;
    return true;
}

// A row that sees no key and has no sink is undefined: its max is NaN and its P and O are 0.
Forward reference_forward(const BandSinkCase &c, const Bound &q, const Bound &k, const Bound &v, const Bound *sink,
                          const std::vector<int32_t> &len_q, const std::vector<int32_t> &len_kv, double scale) {
    Forward f{c.b, c.h_q, c.h_k, c.s_q, c.s_kv, c.d, {}, {}, {}, {}, {}};
    const int64_t group = c.h_q / c.h_k;
    f.p.assign(static_cast<size_t>(c.b * c.h_q * c.s_q * c.s_kv), 0.0);
    f.capped = f.p;
    f.o.assign(static_cast<size_t>(c.b * c.h_q * c.s_q * c.d), 0.0);
    f.max.assign(static_cast<size_t>(c.b * c.h_q * c.s_q), 0.0);
    f.sum = f.max;
    for (int64_t b = 0; b < c.b; ++b)
        for (int64_t h = 0; h < c.h_q; ++h)
            for (int64_t i = 0; i < c.s_q; ++i) {
                double top = sink ? static_cast<double>(sink->at({0, h, 0, 0})) : kMinusInf;
                for (int64_t j = 0; j < c.s_kv; ++j) {
                    double dot = 0;
                    for (int64_t x = 0; x < c.d; ++x)
                        dot += static_cast<double>(q.at({b, h, i, x})) * k.at({b, h / group, j, x});
                    double s = dot * scale;
                    if (c.softcap > 0) {
                        f.capped[static_cast<size_t>(((b * c.h_q + h) * c.s_q + i) * c.s_kv + j)] = s / c.softcap;
                        s = c.softcap * std::tanh(s / c.softcap);
                    }
                    bool keep = visible(c, i, j, len_q[static_cast<size_t>(b)], len_kv[static_cast<size_t>(b)]);
                    f.P(b, h, i, j) = keep ? s : kMinusInf;
                    top = std::max(top, f.P(b, h, i, j));
                }
                if (top == kMinusInf) {
                    for (int64_t j = 0; j < c.s_kv; ++j) f.P(b, h, i, j) = 0;
                    f.max[f.row(b, h, i)] = std::numeric_limits<double>::quiet_NaN();
                    continue;
                }
                double sum = sink ? std::exp(static_cast<double>(sink->at({0, h, 0, 0})) - top) : 0.0;
                for (int64_t j = 0; j < c.s_kv; ++j) sum += (f.P(b, h, i, j) = std::exp(f.P(b, h, i, j) - top));
                for (int64_t j = 0; j < c.s_kv; ++j) f.P(b, h, i, j) /= sum;
                f.max[f.row(b, h, i)] = top;
                f.sum[f.row(b, h, i)] = sum;
                for (int64_t x = 0; x < c.d; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < c.s_kv; ++j) acc += f.P(b, h, i, j) * v.at({b, h / group, j, x});
                    f.o[static_cast<size_t>(((b * c.h_q + h) * c.s_q + i) * c.d + x)] = acc;
                }
            }
    return f;
}

std::string case_name(const ::testing::TestParamInfo<BandSinkCase> &info) { return info.param.name; }

fe_tensor *pointwise(fe_graph *g, fe_pointwise_mode mode, fe_tensor *a, fe_tensor *b = nullptr, fe_tensor *c = nullptr,
                     int64_t axis = 0) {
    fe_pointwise_options o = FE_POINTWISE_OPTIONS_INIT;
    o.axis = axis;
    fe_tensor *y = nullptr;
    EXPECT_FE_OK(fe_graph_pointwise(g, mode, a, b, c, &o, &y));
    return y;
}

fe_tensor *float_scalar(fe_graph *g, const char *name, double value) {
    fe_tensor *t = nullptr;
    EXPECT_FE_OK(fe_graph_scalar(g, name, value, FE_DATA_FLOAT, &t));
    return t;
}

// A case's soft-capping and top-left causal mask written as the caller's pointwise chain on
// the scores, and (for the backward) the chain's derivative, which reads the chain's tensors.
struct CallerModifier {
    fe_tensor *input = nullptr, *output = nullptr;
    fe_tensor *cap = nullptr, *before_tanh = nullptr, *keep = nullptr;

    CallerModifier(fe_graph *g, const BandSinkCase &c) {
        const int64_t dims[] = {c.b, c.h_q, c.s_q, c.s_kv};
        EXPECT_FE_OK(fe_graph_tensor(g, "scores", 4, dims, nullptr, FE_DATA_FLOAT, &input));
        output = input;
        if (c.softcap > 0) {
            cap = float_scalar(g, "cap", c.softcap);
            before_tanh = pointwise(g, FE_POINTWISE_DIV, output, cap);
            output = pointwise(g, FE_POINTWISE_MUL, pointwise(g, FE_POINTWISE_TANH_FWD, before_tanh), cap);
        }
        if (c.causal == FE_CAUSAL_MASK_TOP_LEFT) {
            fe_tensor *row = pointwise(g, FE_POINTWISE_GEN_INDEX, output, nullptr, nullptr, 2);
            fe_tensor *col = pointwise(g, FE_POINTWISE_GEN_INDEX, output, nullptr, nullptr, 3);
            EXPECT_FE_OK(fe_tensor_set_data_type(row, FE_DATA_INT32));
            EXPECT_FE_OK(fe_tensor_set_data_type(col, FE_DATA_INT32));
            keep = pointwise(g, FE_POINTWISE_CMP_GE, row, col);
            EXPECT_FE_OK(fe_tensor_set_data_type(keep, FE_DATA_BOOLEAN));
            output = pointwise(g, FE_POINTWISE_BINARY_SELECT, output,
                               float_scalar(g, "minus_inf", -std::numeric_limits<double>::infinity()), keep);
        }
    }
    // d(scores before) from d(scores after): zero where masked, then through the soft-cap.
    void derivative(fe_graph *g, const BandSinkCase &c, fe_tensor **grad_input, fe_tensor **grad_output) const {
        const int64_t dims[] = {c.b, c.h_q, c.s_q, c.s_kv};
        EXPECT_FE_OK(fe_graph_tensor(g, "d_scores", 4, dims, nullptr, FE_DATA_FLOAT, grad_input));
        fe_tensor *grad = *grad_input;
        if (keep) grad = pointwise(g, FE_POINTWISE_BINARY_SELECT, grad, float_scalar(g, "zero", 0.0), keep);
        if (cap) {
            fe_tensor *through_tanh =
                pointwise(g, FE_POINTWISE_TANH_BWD, pointwise(g, FE_POINTWISE_MUL, grad, cap), before_tanh);
            grad = pointwise(g, FE_POINTWISE_DIV, through_tanh, cap);
        }
        *grad_output = grad;
    }
};

class SdpaBandSinkForward : public Gpu, public ::testing::WithParamInterface<BandSinkCase> {};

TEST_P(SdpaBandSinkForward, MatchesCpuReference) {
    const BandSinkCase &c = GetParam();
    const double scale = 1.0 / std::sqrt(static_cast<double>(c.d));
    fe_graph *g = graph(c.name, c.type);
    fe_tensor *q = tensor(g, "q", {c.b, c.h_q, c.s_q, c.d}), *k = tensor(g, "k", {c.b, c.h_k, c.s_kv, c.d}),
              *v = tensor(g, "v", {c.b, c.h_k, c.s_kv, c.d});
    fe_sdpa_options opts = FE_SDPA_OPTIONS_INIT;
    opts.attn_scale = scale;
    opts.causal_mask = c.causal;
    opts.sliding_window = c.left;
    opts.right_bound = c.right;
    opts.diagonal_alignment = c.alignment;
    opts.softcap = c.softcap;
    if (c.chain) {
        CallerModifier modifier(g, c);
        opts.softcap = 0;
        opts.causal_mask = FE_CAUSAL_MASK_NONE;
        opts.score_mod_input = modifier.input;
        opts.score_mod_output = modifier.output;
    }
    opts.generate_stats = c.stats;
    opts.output_max_sum_exp = c.max_sum_exp;
    fe_tensor *sink = c.sink ? tensor(g, "sink", {1, c.h_q, 1, 1}, false, FE_DATA_FLOAT) : nullptr;
    opts.sink_token = sink;
    fe_tensor *len_q = nullptr, *len_kv = nullptr;
    if (c.padding) {
        len_q = tensor(g, "len_q", {c.b, 1, 1, 1}, false, FE_DATA_INT32);
        len_kv = tensor(g, "len_kv", {c.b, 1, 1, 1}, false, FE_DATA_INT32);
        opts.seq_len_q = len_q;
        opts.seq_len_kv = len_kv;
    }
    fe_tensor *o = nullptr, *stats = nullptr, *max = nullptr, *sum_exp = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &opts, &o, &stats));
    ASSERT_FE_OK(fe_tensor_set_output(o, 1));
    if (stats) {
        ASSERT_FE_OK(fe_tensor_set_output(stats, 1));
    }
    if (c.max_sum_exp) {
        std::string node = "sdpa_0";
        ASSERT_FE_OK(fe_graph_tensor_by_name(g, (node + "::Max").c_str(), &max));
        ASSERT_FE_OK(fe_graph_tensor_by_name(g, (node + "::SumExp").c_str(), &sum_exp));
        ASSERT_FE_OK(fe_tensor_set_output(max, 1));
        ASSERT_FE_OK(fe_tensor_set_output(sum_exp, 1));
    }
    build(g);
    std::printf("    %s plan %s\n", c.name, engine_tag_of(g));

    Bound &bq = bind(q, true), &bk = bind(k, true), &bv = bind(v, true), &bo = bind(o, false);
    std::vector<Bound *> all = {&bq, &bk, &bv, &bo};
    Bound *bsink = sink ? &bind(sink, true, -2.f, 2.f) : nullptr;
    Bound *bstats = stats ? &bind(stats, false) : nullptr;
    Bound *bmax = max ? &bind(max, false) : nullptr, *bsum = sum_exp ? &bind(sum_exp, false) : nullptr;
    for (Bound *x : {bsink, bstats, bmax, bsum})
        if (x) all.push_back(x);
    std::vector<int32_t> lq(static_cast<size_t>(c.b), static_cast<int32_t>(c.s_q)),
        lkv(static_cast<size_t>(c.b), static_cast<int32_t>(c.s_kv));
    if (c.padding) {
        // Lengths that keep every row's band non-empty: at least half of each maximum.
        for (int64_t b = 0; b < c.b; ++b) {
            lq[static_cast<size_t>(b)] = static_cast<int32_t>(c.s_q / 2 + rng_() % static_cast<uint32_t>(c.s_q / 2 + 1));
            lkv[static_cast<size_t>(b)] = static_cast<int32_t>(c.s_kv / 2 + rng_() % static_cast<uint32_t>(c.s_kv / 2 + 1));
        }
        if (c.fixed_len_q > 0) std::fill(lq.begin(), lq.end(), c.fixed_len_q);
        if (c.fixed_len_kv > 0) std::fill(lkv.begin(), lkv.end(), c.fixed_len_kv);
        Bound &blq = bind(len_q, false), &blkv = bind(len_kv, false);
        ASSERT_FE_OK(fe_buffer_upload(blq.buffer, lq.data(), 4 * c.b));
        ASSERT_FE_OK(fe_buffer_upload(blkv.buffer, lkv.data(), 4 * c.b));
        all.push_back(&blq);
        all.push_back(&blkv);
    }
    execute(g, all);
    for (Bound *x : {&bo, bstats, bmax, bsum})
        if (x) download(*x);

    Forward f = reference_forward(c, bq, bk, bv, bsink, lq, lkv, scale);
    std::vector<double> ref_stats(f.max.size()), ref_max = f.max, ref_sum = f.sum;
    for (size_t r = 0; r < ref_stats.size(); ++r) ref_stats[r] = f.max[r] + std::log(f.sum[r]);
    // Rows past a batch's query length, and rows that see no key, are undefined: compare only
    // the defined ones.
    for (int64_t b = 0; b < c.b; ++b)
        for (int64_t h = 0; h < c.h_q; ++h)
            for (int64_t i = 0; i < c.s_q; ++i) {
                if (i < lq[static_cast<size_t>(b)] && !std::isnan(f.max[f.row(b, h, i)])) continue;
                for (int64_t x = 0; x < c.d; ++x) {
                    size_t off = static_cast<size_t>(bo.offset({b, h, i, x}));
                    if (!std::isfinite(bo.host[off])) bo.host[off] = 0.f;
                    f.o[static_cast<size_t>(((b * c.h_q + h) * c.s_q + i) * c.d + x)] = bo.host[off];
                }
                for (auto [out, ref] : {std::pair{bstats, &ref_stats}, {bmax, &ref_max}, {bsum, &ref_sum}}) {
                    if (!out) continue;
                    size_t off = static_cast<size_t>(out->offset({b, h, i, 0}));
                    if (!std::isfinite(out->host[off])) out->host[off] = 0.f;
                    (*ref)[f.row(b, h, i)] = out->host[off];
                }
            }
    expect_close(bo, f.o, atol_for(c.type), rtol_for(c.type), norm_for(c.type) * 2);
    if (bstats) expect_close(*bstats, ref_stats, 2e-2, 2e-3, 2e-3);
    if (bmax) expect_close(*bmax, ref_max, 2e-2, 2e-3, 2e-3);
    if (bsum) expect_close(*bsum, ref_sum, 2e-2, 2e-2, 2e-2);
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, SdpaBandSinkForward,
    ::testing::Values(
        // gpt-oss: sinks with a causal mask, and with a 128-key sliding window, GQA 8:1.
        BandSinkCase{"bf16_sink_causal_stats", FE_DATA_BFLOAT16, 2, 8, 8, 256, 256, 64, FE_CAUSAL_MASK_TOP_LEFT, 0, -1,
                     FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, true, true},
        BandSinkCase{"bf16_sink_window_gqa_8to1", FE_DATA_BFLOAT16, 1, 16, 2, 256, 256, 64, FE_CAUSAL_MASK_TOP_LEFT,
                     128, -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, true, true},
        BandSinkCase{"fp16_sink_inference", FE_DATA_HALF, 2, 4, 4, 128, 256, 128, FE_CAUSAL_MASK_NONE, 0, -1,
                     FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, true, false},
        BandSinkCase{"bf16_sink_padding", FE_DATA_BFLOAT16, 3, 4, 4, 128, 192, 64, FE_CAUSAL_MASK_NONE, 0, -1,
                     FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, true, true, false, true},
        BandSinkCase{"fp16_sink_decode", FE_DATA_HALF, 4, 8, 8, 1, 512, 64, FE_CAUSAL_MASK_NONE, 0, -1,
                     FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, true, false},
        // Split-KV partials: Max and SumExp (cuDNN 9.19 has no engine for them with sinks).
        BandSinkCase{"bf16_max_sum_exp", FE_DATA_BFLOAT16, 1, 4, 4, 128, 256, 64, FE_CAUSAL_MASK_NONE, 0, -1,
                     FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, false, false, true},
        BandSinkCase{"fp16_max_sum_exp_gqa_bottom_right", FE_DATA_HALF, 2, 8, 2, 128, 384, 128,
                     FE_CAUSAL_MASK_BOTTOM_RIGHT, 0, -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, false, false, true},
        // Bands: both bounds top-left, look-ahead aligned bottom-right, a right bound alone.
        BandSinkCase{"fp16_band_left64_right16", FE_DATA_HALF, 1, 4, 4, 256, 256, 64, FE_CAUSAL_MASK_NONE, 64, 16,
                     FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, false, true},
        BandSinkCase{"bf16_band_bottom_right_left96_right8", FE_DATA_BFLOAT16, 2, 4, 4, 128, 256, 64,
                     FE_CAUSAL_MASK_NONE, 96, 8, FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT, 0, false, true},
        // Bottom-right masks over a padding mask: each sequence's diagonal sits at its own last
        // key (chunked prefill over a KV cache), including rows that see no key at all.
        BandSinkCase{"bf16_causal_bottom_right_padding", FE_DATA_BFLOAT16, 3, 4, 4, 128, 192, 64,
                     FE_CAUSAL_MASK_BOTTOM_RIGHT, 0, -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, false, true, false, true},
        BandSinkCase{"fp16_causal_bottom_right_padding_153_of_43", FE_DATA_HALF, 1, 2, 2, 191, 191, 200,
                     FE_CAUSAL_MASK_BOTTOM_RIGHT, 0, -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, false, true, false, true,
                     false, 153, 43},
        BandSinkCase{"fp16_band_bottom_right_padding_gqa", FE_DATA_HALF, 2, 8, 2, 96, 256, 128, FE_CAUSAL_MASK_NONE,
                     48, 8, FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT, 0, false, true, false, true},
        BandSinkCase{"bf16_window_bottom_right_padding_sink", FE_DATA_BFLOAT16, 2, 4, 4, 64, 320, 64,
                     FE_CAUSAL_MASK_BOTTOM_RIGHT, 100, -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, true, true, false, true},
        BandSinkCase{"bf16_right_bound_32", FE_DATA_BFLOAT16, 1, 4, 4, 256, 256, 64, FE_CAUSAL_MASK_NONE, 0, 32,
                     FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, false, true},
        // Gemma 2: soft-capping at 50 (attention logits), alone and with a causal mask.
        BandSinkCase{"fp16_softcap", FE_DATA_HALF, 2, 4, 4, 128, 128, 64, FE_CAUSAL_MASK_NONE, 0, -1,
                     FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 50, false, true},
        BandSinkCase{"bf16_softcap_causal", FE_DATA_BFLOAT16, 1, 8, 4, 256, 256, 128, FE_CAUSAL_MASK_TOP_LEFT, 0, -1,
                     FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 2.5, false, true},
        // The same as the caller's score modifier (pointwise chains): soft-capping, a causal
        // mask with GQA, both, and both with sinks.
        BandSinkCase{"fp16_softcap_chain", FE_DATA_HALF, 2, 4, 4, 128, 128, 64, FE_CAUSAL_MASK_NONE, 0, -1,
                     FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 50, false, true, false, false, true},
        BandSinkCase{"bf16_causal_chain_gqa_4to1", FE_DATA_BFLOAT16, 2, 8, 2, 256, 256, 64, FE_CAUSAL_MASK_TOP_LEFT, 0,
                     -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, false, true, false, false, true},
        BandSinkCase{"bf16_softcap_causal_chain", FE_DATA_BFLOAT16, 1, 8, 4, 256, 256, 128, FE_CAUSAL_MASK_TOP_LEFT, 0,
                     -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 2.5, false, true, false, false, true},
        BandSinkCase{"fp16_softcap_causal_sink_chain", FE_DATA_HALF, 2, 4, 4, 128, 128, 64, FE_CAUSAL_MASK_TOP_LEFT, 0,
                     -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 30, true, true, false, false, true},
        // A chain beside the library's own masks: a padding mask, and a sliding window.
        BandSinkCase{"bf16_softcap_chain_padding", FE_DATA_BFLOAT16, 3, 4, 4, 128, 192, 64, FE_CAUSAL_MASK_NONE, 0, -1,
                     FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 20, false, true, false, true, true},
        BandSinkCase{"fp16_softcap_chain_window_64", FE_DATA_HALF, 1, 4, 4, 256, 256, 64, FE_CAUSAL_MASK_NONE, 64, -1,
                     FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 20, false, true, false, false, true}),
    case_name);

class SdpaBandSinkBackward : public Gpu, public ::testing::WithParamInterface<BandSinkCase> {};

TEST_P(SdpaBandSinkBackward, MatchesCpuReference) {
    const BandSinkCase &c = GetParam();
    const int64_t B = c.b, H = c.h_q, HK = c.h_k, S = c.s_q, D = c.d, group = H / HK;
    const double scale = 1.0 / std::sqrt(static_cast<double>(D));
    fe_graph *g = graph(c.name, c.type);
    fe_tensor *q = tensor(g, "q", {B, H, S, D}), *k = tensor(g, "k", {B, HK, S, D}), *v = tensor(g, "v", {B, HK, S, D});
    fe_tensor *o = tensor(g, "o", {B, H, S, D}), *d_o = tensor(g, "dO", {B, H, S, D});
    fe_tensor *stats = tensor(g, "stats", {B, H, S, 1}, false, FE_DATA_FLOAT);
    fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
    opts.attn_scale = scale;
    opts.causal_mask = c.causal;
    opts.sliding_window = c.left;
    opts.right_bound = c.right;
    opts.diagonal_alignment = c.alignment;
    opts.softcap = c.softcap;
    if (c.chain) {
        CallerModifier modifier(g, c);
        opts.softcap = 0;
        opts.causal_mask = FE_CAUSAL_MASK_NONE;
        opts.score_mod_input = modifier.input;
        opts.score_mod_output = modifier.output;
        modifier.derivative(g, c, &opts.score_mod_grad_input, &opts.score_mod_grad_output);
    }
    fe_tensor *sink = c.sink ? tensor(g, "sink", {1, H, 1, 1}, false, FE_DATA_FLOAT) : nullptr, *dsink = nullptr;
    opts.sink_token = sink;
    opts.output_dsink = c.sink;
    fe_tensor *len_q = nullptr, *len_kv = nullptr;
    if (c.padding) {
        len_q = tensor(g, "len_q", {B, 1, 1, 1}, false, FE_DATA_INT32);
        len_kv = tensor(g, "len_kv", {B, 1, 1, 1}, false, FE_DATA_INT32);
        opts.seq_len_q = len_q;
        opts.seq_len_kv = len_kv;
    }
    fe_tensor *dq, *dk, *dv;
    ASSERT_FE_OK(fe_graph_sdpa_backward(g, q, k, v, o, d_o, stats, &opts, &dq, &dk, &dv));
    for (fe_tensor *t : {dq, dk, dv}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    if (sink) {
        ASSERT_FE_OK(fe_graph_tensor_by_name(g, "sdpa_backward_0::dSink", &dsink));
        ASSERT_FE_OK(fe_tensor_set_output(dsink, 1));
    }
    build(g);
    std::printf("    %s plan %s\n", c.name, engine_tag_of(g));

    Bound &bq = bind(q, true), &bk = bind(k, true), &bv = bind(v, true), &bdo = bind(d_o, true);
    Bound &bo = bind(o, false), &bs = bind(stats, false);
    Bound *bsink = sink ? &bind(sink, true, -2.f, 2.f) : nullptr;
    std::vector<int32_t> lq(static_cast<size_t>(B), static_cast<int32_t>(S)), lkv(lq);
    if (c.padding) {
        for (int64_t b = 0; b < B; ++b) {
            lq[static_cast<size_t>(b)] = c.fixed_len_q ? c.fixed_len_q : static_cast<int32_t>(S / 2 + rng_() % static_cast<uint32_t>(S / 2 + 1));
            lkv[static_cast<size_t>(b)] = c.fixed_len_kv ? c.fixed_len_kv : static_cast<int32_t>(S / 2 + rng_() % static_cast<uint32_t>(S / 2 + 1));
        }
    }
    Forward f = reference_forward(c, bq, bk, bv, bsink, lq, lkv, scale);
    // Rows past a sequence's query length or that see no key are undefined (they contribute
    // nothing); so are the gradients of keys past its key length.
    auto row_defined = [&](int64_t b, int64_t h, int64_t i) {
        return i < lq[static_cast<size_t>(b)] && !std::isnan(f.max[f.row(b, h, i)]);
    };
    // O and the stats as a forward pass stores them (undefined rows: zeros).
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < S; ++i) {
                bs.host[static_cast<size_t>(bs.offset({b, h, i, 0}))] =
                    row_defined(b, h, i) ? static_cast<float>(f.max[f.row(b, h, i)] + std::log(f.sum[f.row(b, h, i)])) : 0.f;
                for (int64_t x = 0; x < D; ++x)
                    bo.host[static_cast<size_t>(bo.offset({b, h, i, x}))] =
                        round_to(c.type, static_cast<float>(f.o[static_cast<size_t>(((b * H + h) * S + i) * D + x)]));
            }
    ASSERT_FE_OK(fe_buffer_upload_float(bo.buffer, bo.host.data(), bo.span(), bo.type));
    ASSERT_FE_OK(fe_buffer_upload_float(bs.buffer, bs.host.data(), bs.span(), bs.type));
    Bound &bdq = bind(dq, false), &bdk = bind(dk, false), &bdv = bind(dv, false);
    std::vector<Bound *> all = {&bq, &bk, &bv, &bo, &bdo, &bs, &bdq, &bdk, &bdv};
    Bound *bdsink = dsink ? &bind(dsink, false) : nullptr;
    if (c.padding) {
        Bound &blq = bind(len_q, false), &blkv = bind(len_kv, false);
        ASSERT_FE_OK(fe_buffer_upload(blq.buffer, lq.data(), 4 * B));
        ASSERT_FE_OK(fe_buffer_upload(blkv.buffer, lkv.data(), 4 * B));
        all.push_back(&blq);
        all.push_back(&blkv);
    }
    if (bsink) all.push_back(bsink);
    if (bdsink) all.push_back(bdsink);
    execute(g, all);
    for (Bound *x : {&bdq, &bdk, &bdv, bdsink})
        if (x) download(*x);

    // Reference backward: dS = P * (dP - rowsum(dO * O)), through the soft-cap, times the scale;
    // dSink[h] = -sum over b, i of P_sink * rowsum(dO * O), P_sink = exp(sink - stats).
    std::vector<double> ref_dq(static_cast<size_t>(B * H * S * D), 0.0), ref_dk(static_cast<size_t>(B * HK * S * D), 0.0),
        ref_dv(ref_dk), ref_dsink(static_cast<size_t>(H), 0.0), ds(static_cast<size_t>(S));
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h) {
            int64_t hk = h / group;
            for (int64_t i = 0; i < S; ++i) {
                if (!row_defined(b, h, i)) {
                    for (int64_t x = 0; x < D; ++x)
                        ref_dq[static_cast<size_t>(((b * H + h) * S + i) * D + x)] = bdq.at({b, h, i, x});
                    continue;
                }
                double row_dot = 0;
                for (int64_t x = 0; x < D; ++x) row_dot += static_cast<double>(bdo.at({b, h, i, x})) * bo.at({b, h, i, x});
                if (bsink) {
                    double stats_value = bs.at({b, h, i, 0});
                    ref_dsink[static_cast<size_t>(h)] -= std::exp(bsink->at({0, h, 0, 0}) - stats_value) * row_dot;
                }
                for (int64_t j = 0; j < S; ++j) {
                    double dp = 0;
                    for (int64_t x = 0; x < D; ++x) dp += static_cast<double>(bdo.at({b, h, i, x})) * bv.at({b, hk, j, x});
                    double g_s = f.P(b, h, i, j) * (dp - row_dot);
                    if (c.softcap > 0) {
                        double t = std::tanh(f.capped[static_cast<size_t>(((b * H + h) * S + i) * S + j)]);
                        g_s *= 1.0 - t * t;
                    }
                    ds[static_cast<size_t>(j)] = g_s * scale;
                    for (int64_t x = 0; x < D; ++x)
                        ref_dv[static_cast<size_t>(((b * HK + hk) * S + j) * D + x)] += f.P(b, h, i, j) * bdo.at({b, h, i, x});
                }
                for (int64_t x = 0; x < D; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < S; ++j) acc += ds[static_cast<size_t>(j)] * bk.at({b, hk, j, x});
                    ref_dq[static_cast<size_t>(((b * H + h) * S + i) * D + x)] = acc;
                }
                for (int64_t j = 0; j < S; ++j)
                    for (int64_t x = 0; x < D; ++x)
                        ref_dk[static_cast<size_t>(((b * HK + hk) * S + j) * D + x)] +=
                            ds[static_cast<size_t>(j)] * bq.at({b, h, i, x});
            }
        }
    for (int64_t b = 0; b < B; ++b)
        for (int64_t hk = 0; hk < HK; ++hk)
            for (int64_t j = lkv[static_cast<size_t>(b)]; j < S; ++j)
                for (int64_t x = 0; x < D; ++x) {
                    size_t at = static_cast<size_t>(((b * HK + hk) * S + j) * D + x);
                    ref_dk[at] = bdk.at({b, hk, j, x});
                    ref_dv[at] = bdv.at({b, hk, j, x});
                }
    expect_close(bdq, ref_dq, 2e-2, 3e-2, 2e-2);
    expect_close(bdk, ref_dk, 2e-2, 3e-2, 2e-2);
    expect_close(bdv, ref_dv, 2e-2, 3e-2, 2e-2);
    if (bdsink) expect_close(*bdsink, ref_dsink, 2e-2, 2e-2, 2e-2);
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, SdpaBandSinkBackward,
    ::testing::Values(BandSinkCase{"bf16_dsink_causal", FE_DATA_BFLOAT16, 2, 4, 4, 128, 128, 64,
                                   FE_CAUSAL_MASK_TOP_LEFT, 0, -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, true},
                      BandSinkCase{"fp16_dsink_gqa_4to1", FE_DATA_HALF, 1, 8, 2, 128, 128, 64, FE_CAUSAL_MASK_NONE, 0,
                                   -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, true},
                      BandSinkCase{"bf16_band_left48_right16", FE_DATA_BFLOAT16, 1, 4, 4, 256, 256, 64,
                                   FE_CAUSAL_MASK_NONE, 48, 16, FE_DIAGONAL_ALIGNMENT_TOP_LEFT},
                      // Bottom-right over a padding mask (per-sequence diagonals), as in the forward.
                      BandSinkCase{"bf16_causal_bottom_right_padding", FE_DATA_BFLOAT16, 3, 4, 4, 128, 128, 64,
                                   FE_CAUSAL_MASK_BOTTOM_RIGHT, 0, -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, false, false,
                                   false, true},
                      BandSinkCase{"fp16_causal_bottom_right_padding_153_of_43", FE_DATA_HALF, 1, 2, 2, 192, 192,
                                   128, FE_CAUSAL_MASK_BOTTOM_RIGHT, 0, -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0, false,
                                   false, false, true, false, 153, 43},
                      BandSinkCase{"fp16_band_bottom_right_padding_gqa", FE_DATA_HALF, 2, 8, 2, 128, 128, 64,
                                   FE_CAUSAL_MASK_NONE, 32, 4, FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT, 0, false, false,
                                   false, true},
                      BandSinkCase{"fp16_softcap", FE_DATA_HALF, 2, 4, 4, 128, 128, 64, FE_CAUSAL_MASK_NONE, 0, -1,
                                   FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 2.5},
                      BandSinkCase{"bf16_softcap_causal", FE_DATA_BFLOAT16, 1, 4, 4, 128, 128, 64,
                                   FE_CAUSAL_MASK_TOP_LEFT, 0, -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 2.5},
                      // The caller's score modifier with the caller's derivative.
                      BandSinkCase{"fp16_softcap_chain", FE_DATA_HALF, 2, 4, 4, 128, 128, 64, FE_CAUSAL_MASK_NONE, 0,
                                   -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 2.5, false, false, false, false, true},
                      BandSinkCase{"bf16_softcap_causal_chain_gqa", FE_DATA_BFLOAT16, 1, 8, 2, 128, 128, 64,
                                   FE_CAUSAL_MASK_TOP_LEFT, 0, -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 2.5, false, false,
                                   false, false, true},
                      BandSinkCase{"fp16_softcap_chain_window_48", FE_DATA_HALF, 1, 4, 4, 256, 256, 64,
                                   FE_CAUSAL_MASK_NONE, 48, -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 2.5, false, false,
                                   false, false, true}),
    case_name);

}  // namespace
