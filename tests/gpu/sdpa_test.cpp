// Attention forward against a CPU reference in double: output and softmax stats, causal masks
// (both alignments), GQA, decode, BSHD and BHSD layouts, fp16 and bf16.
#include <limits>

#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

struct SdpaCase {
    const char *name;
    fe_data_type type;
    int64_t b, h_q, h_k, s_q, s_kv, d;
    fe_causal_mask causal;
    bool stats, bshd;
    bool bias = false;
    int64_t window = 0;
    bool padding = false;
    bool alibi = false;
    bool dropout = false;
    int64_t d_v = 0;  // V's head dim when it differs from Q's and K's
    fe_sdpa_implementation impl = FE_SDPA_IMPLEMENTATION_AUTO;
};

class SdpaNumerics : public Gpu, public ::testing::WithParamInterface<SdpaCase> {};

std::vector<int64_t> layout(const SdpaCase &c, int64_t h, int64_t s, int64_t d) {
    if (c.bshd) return {s * h * d, d, h * d, 1};
    return {h * s * d, s * d, d, 1};
}

TEST_P(SdpaNumerics, MatchesCpuReference) {
    const SdpaCase &c = GetParam();
    fe_graph *g = graph(c.name, c.type);
    const int64_t dv = c.d_v ? c.d_v : c.d;
    int64_t qd[4] = {c.b, c.h_q, c.s_q, c.d}, kd[4] = {c.b, c.h_k, c.s_kv, c.d}, vd[4] = {c.b, c.h_k, c.s_kv, dv};
    std::vector<int64_t> qs = layout(c, c.h_q, c.s_q, c.d), ks = layout(c, c.h_k, c.s_kv, c.d),
                         vs = layout(c, c.h_k, c.s_kv, dv);
    fe_tensor *q, *k, *v, *o = nullptr, *stats = nullptr;
    ASSERT_FE_OK(fe_graph_tensor(g, "q", 4, qd, qs.data(), FE_DATA_NOT_SET, &q));
    ASSERT_FE_OK(fe_graph_tensor(g, "k", 4, kd, ks.data(), FE_DATA_NOT_SET, &k));
    ASSERT_FE_OK(fe_graph_tensor(g, "v", 4, vd, vs.data(), FE_DATA_NOT_SET, &v));
    fe_sdpa_options opts = FE_SDPA_OPTIONS_INIT;
    double scale = 1.0 / std::sqrt(static_cast<double>(c.d));
    opts.attn_scale = scale;
    opts.causal_mask = c.causal;
    opts.generate_stats = c.stats;
    opts.sliding_window = c.window;
    opts.implementation = c.impl;
    fe_tensor *bias = nullptr, *len_q = nullptr, *len_kv = nullptr;
    if (c.bias) {
        int64_t bd[4] = {1, c.h_q, c.s_q, c.s_kv};
        ASSERT_FE_OK(fe_graph_tensor(g, "bias", 4, bd, nullptr, FE_DATA_NOT_SET, &bias));
        opts.bias = bias;
    }
    fe_tensor *slopes = nullptr;
    if (c.alibi) {
        int64_t sd[4] = {1, c.h_q, 1, 1};
        ASSERT_FE_OK(fe_graph_tensor(g, "slopes", 4, sd, nullptr, FE_DATA_FLOAT, &slopes));
        opts.alibi_slopes = slopes;
        // The scale as a by-value scalar tensor instead of a number.
        fe_tensor *scale_tensor = nullptr;
        ASSERT_FE_OK(fe_graph_scalar(g, "scale", scale, FE_DATA_FLOAT, &scale_tensor));
        opts.attn_scale_tensor = scale_tensor;
        opts.attn_scale = 0;
    }
    fe_tensor *mask = nullptr;
    const double keep = 0.75;
    if (c.dropout) {
        int64_t md[4] = {c.b, c.h_q, c.s_q, c.s_kv};
        ASSERT_FE_OK(fe_graph_tensor(g, "dropout_mask", 4, md, nullptr, FE_DATA_NOT_SET, &mask));
        opts.dropout_mask = mask;
        opts.dropout_scale = 1.0 / keep;
    }
    if (c.padding) {
        int64_t ld[4] = {c.b, 1, 1, 1};
        ASSERT_FE_OK(fe_graph_tensor(g, "len_q", 4, ld, nullptr, FE_DATA_INT32, &len_q));
        ASSERT_FE_OK(fe_graph_tensor(g, "len_kv", 4, ld, nullptr, FE_DATA_INT32, &len_kv));
        opts.seq_len_q = len_q;
        opts.seq_len_kv = len_kv;
    }
    ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &opts, &o, &stats));
    ASSERT_FE_OK(fe_tensor_set_output(o, 1));
    if (stats) {
        ASSERT_FE_OK(fe_tensor_set_output(stats, 1));
    }
    build(g);
    fe_sdpa_implementation impl;
    ASSERT_FE_OK(fe_graph_attention_implementation(g, nullptr, &impl));
    if (c.impl != FE_SDPA_IMPLEMENTATION_AUTO) {
        EXPECT_EQ(impl, c.impl);
    }
    std::printf("    %s plan %s (%s)\n", c.name, engine_tag_of(g),
                impl == FE_SDPA_IMPLEMENTATION_NATIVE ? "native" : "composite");
    Bound &bq = bind(q, true), &bk = bind(k, true), &bv = bind(v, true), &bo = bind(o, false);
    Bound *bs = stats ? &bind(stats, false) : nullptr;
    std::vector<Bound *> all = {&bq, &bk, &bv, &bo};
    if (bs) all.push_back(bs);
    Bound *bbias = bias ? &bind(bias, true) : nullptr;
    if (bbias) all.push_back(bbias);
    Bound *bmask = nullptr;
    if (mask) {
        // A fresh random 0/1 mask keeping about 3/4 of the probabilities.
        bmask = &bind(mask, false);
        std::uniform_real_distribution<float> coin(0.f, 1.f);
        for (float &m : bmask->host) m = coin(rng_) < keep ? 1.f : 0.f;
        ASSERT_FE_OK(fe_buffer_upload_float(bmask->buffer, bmask->host.data(), bmask->span(), bmask->type));
        all.push_back(bmask);
    }
    std::vector<float> slope_values(static_cast<size_t>(c.h_q), 0.f);
    if (slopes) {
        ASSERT_FE_OK(fe_alibi_slopes(c.h_q, slope_values.data()));
        Bound &bslopes = bind(slopes, false);
        ASSERT_FE_OK(fe_buffer_upload(bslopes.buffer, slope_values.data(), 4 * c.h_q));
        all.push_back(&bslopes);
    }
    // Actual lengths: random in [1, max] per batch (int32, uploaded as raw bytes).
    std::vector<int32_t> lengths_q(static_cast<size_t>(c.b), static_cast<int32_t>(c.s_q)),
        lengths_kv(static_cast<size_t>(c.b), static_cast<int32_t>(c.s_kv));
    if (c.padding) {
        for (int64_t b = 0; b < c.b; ++b) {
            lengths_q[static_cast<size_t>(b)] = 1 + static_cast<int32_t>(rng_() % static_cast<uint32_t>(c.s_q));
            lengths_kv[static_cast<size_t>(b)] = 1 + static_cast<int32_t>(rng_() % static_cast<uint32_t>(c.s_kv));
        }
        Bound &lq = bind(len_q, false), &lkv = bind(len_kv, false);
        ASSERT_FE_OK(fe_buffer_upload(lq.buffer, lengths_q.data(), 4 * c.b));
        ASSERT_FE_OK(fe_buffer_upload(lkv.buffer, lengths_kv.data(), 4 * c.b));
        all.push_back(&lq);
        all.push_back(&lkv);
    }
    execute(g, all);
    download(bo);
    if (bs) download(*bs);

    // Reference: per (b, h) row softmax in double.
    int64_t group = c.h_q / c.h_k;
    std::vector<double> ref_o(static_cast<size_t>(c.b * c.h_q * c.s_q * dv));
    std::vector<double> ref_stats(static_cast<size_t>(c.b * c.h_q * c.s_q));
    std::vector<double> p(static_cast<size_t>(c.s_kv));
    for (int64_t b = 0; b < c.b; ++b)
        for (int64_t h = 0; h < c.h_q; ++h)
            for (int64_t i = 0; i < c.s_q; ++i) {
                double row_max = -std::numeric_limits<double>::infinity();
                for (int64_t j = 0; j < c.s_kv; ++j) {
                    bool visible = true;
                    int64_t diagonal = c.causal == FE_CAUSAL_MASK_BOTTOM_RIGHT ? c.s_kv - c.s_q : 0;
                    if (c.causal != FE_CAUSAL_MASK_NONE) visible = j <= i + diagonal;
                    if (c.window > 0) visible = visible && j + c.window - diagonal > i;
                    if (c.padding) visible = visible && j < lengths_kv[static_cast<size_t>(b)];
                    double dot = 0;
                    for (int64_t x = 0; x < c.d; ++x)
                        dot += static_cast<double>(bq.at({b, h, i, x})) * bk.at({b, h / group, j, x});
                    double score = dot * scale + (bbias ? static_cast<double>(bbias->at({0, h, i, j})) : 0.0) +
                                   static_cast<double>(slope_values[static_cast<size_t>(h)]) * static_cast<double>(j - i);
                    p[static_cast<size_t>(j)] = visible ? score : -std::numeric_limits<double>::infinity();
                    row_max = std::max(row_max, p[static_cast<size_t>(j)]);
                }
                double sum = 0;
                for (double &e : p) sum += (e = std::exp(e - row_max));
                ref_stats[static_cast<size_t>((b * c.h_q + h) * c.s_q + i)] = row_max + std::log(sum);
                for (int64_t x = 0; x < dv; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < c.s_kv; ++j) {
                        double dropped = bmask ? bmask->at({b, h, i, j}) / keep : 1.0;
                        acc += p[static_cast<size_t>(j)] * dropped * bv.at({b, h / group, j, x});
                    }
                    ref_o[static_cast<size_t>(((b * c.h_q + h) * c.s_q + i) * dv + x)] = acc / sum;
                }
            }
    if (c.padding) {
        // Rows past a batch's query length are undefined: copy the device's values there so the
        // comparison covers exactly the defined rows.
        for (int64_t b = 0; b < c.b; ++b)
            for (int64_t h = 0; h < c.h_q; ++h)
                for (int64_t i = lengths_q[static_cast<size_t>(b)]; i < c.s_q; ++i) {
                    for (int64_t x = 0; x < dv; ++x) {
                        size_t at = static_cast<size_t>(((b * c.h_q + h) * c.s_q + i) * dv + x);
                        ref_o[at] = bo.at({b, h, i, x});
                        if (!std::isfinite(ref_o[at])) bo.host[static_cast<size_t>(bo.offset({b, h, i, x}))] = 0.f, ref_o[at] = 0;
                    }
                    if (bs) {
                        size_t at = static_cast<size_t>((b * c.h_q + h) * c.s_q + i);
                        ref_stats[at] = 0;
                        bs->host[static_cast<size_t>(bs->offset({b, h, i, 0}))] = 0.f;
                    }
                }
    }
    expect_close(bo, ref_o, atol_for(c.type), rtol_for(c.type), norm_for(c.type) * 2);
    if (bs) expect_close(*bs, ref_stats, 2e-2, 2e-3, 2e-3);
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, SdpaNumerics,
    ::testing::Values(
        SdpaCase{"seed_bf16_causal_stats_bshd", FE_DATA_BFLOAT16, 2, 6, 6, 256, 256, 64, FE_CAUSAL_MASK_TOP_LEFT, true,
                 true},
        SdpaCase{"fp16_no_mask_inference", FE_DATA_HALF, 2, 4, 4, 128, 192, 64, FE_CAUSAL_MASK_NONE, false, false},
        SdpaCase{"fp16_d128_stats", FE_DATA_HALF, 1, 4, 4, 256, 256, 128, FE_CAUSAL_MASK_NONE, true, false},
        SdpaCase{"bf16_gqa_4to1_bottom_right", FE_DATA_BFLOAT16, 1, 8, 2, 64, 256, 128, FE_CAUSAL_MASK_BOTTOM_RIGHT,
                 true, false},
        SdpaCase{"fp16_mqa_top_left_unequal", FE_DATA_HALF, 2, 4, 1, 200, 128, 64, FE_CAUSAL_MASK_TOP_LEFT, false,
                 true},
        SdpaCase{"fp16_decode", FE_DATA_HALF, 4, 8, 8, 1, 512, 64, FE_CAUSAL_MASK_NONE, false, false},
        SdpaCase{"bf16_bias", FE_DATA_BFLOAT16, 2, 4, 4, 128, 128, 64, FE_CAUSAL_MASK_NONE, true, false, true},
        SdpaCase{"fp16_causal_sliding_window", FE_DATA_HALF, 1, 4, 4, 256, 256, 64, FE_CAUSAL_MASK_TOP_LEFT, true,
                 false, false, 48},
        SdpaCase{"bf16_padding_mask", FE_DATA_BFLOAT16, 3, 4, 4, 128, 160, 64, FE_CAUSAL_MASK_NONE, true, false,
                 false, 0, true},
        SdpaCase{"bf16_padding_128_256", FE_DATA_BFLOAT16, 2, 4, 4, 128, 256, 64, FE_CAUSAL_MASK_NONE, true, false,
                 false, 0, true},
        SdpaCase{"fp16_padding_inference", FE_DATA_HALF, 2, 4, 4, 128, 160, 64, FE_CAUSAL_MASK_NONE, false, false,
                 false, 0, true},
        SdpaCase{"bf16_alibi_causal_scale_tensor", FE_DATA_BFLOAT16, 2, 8, 8, 128, 128, 64, FE_CAUSAL_MASK_TOP_LEFT,
                 true, false, false, 0, false, true},
        SdpaCase{"fp16_alibi", FE_DATA_HALF, 2, 8, 8, 256, 256, 64, FE_CAUSAL_MASK_TOP_LEFT, false, false, false, 0,
                 false, true},
        SdpaCase{"bf16_dropout_mask_causal", FE_DATA_BFLOAT16, 2, 4, 4, 128, 128, 64, FE_CAUSAL_MASK_TOP_LEFT, true,
                 false, false, 0, false, false, true},
        SdpaCase{"fp16_d256", FE_DATA_HALF, 1, 2, 2, 128, 128, 256, FE_CAUSAL_MASK_TOP_LEFT, true, false},
        SdpaCase{"bf16_d192_dv128", FE_DATA_BFLOAT16, 1, 4, 4, 128, 128, 192, FE_CAUSAL_MASK_NONE, true, false, false,
                 0, false, false, false, 128},
        SdpaCase{"bf16_8k_keys_bottom_right", FE_DATA_BFLOAT16, 1, 2, 1, 128, 8192, 64, FE_CAUSAL_MASK_BOTTOM_RIGHT,
                 true, true},
        SdpaCase{"fp16_padding_causal_bias", FE_DATA_HALF, 2, 4, 4, 128, 128, 64, FE_CAUSAL_MASK_TOP_LEFT, true, true,
                 true, 0, true},
        SdpaCase{"bf16_gqa_8to1_causal", FE_DATA_BFLOAT16, 2, 16, 2, 256, 256, 128, FE_CAUSAL_MASK_TOP_LEFT, true,
                 false},
        // The same graphs through both lowerings.
        SdpaCase{"fp16_d128_stats_native", FE_DATA_HALF, 1, 4, 4, 256, 256, 128, FE_CAUSAL_MASK_NONE, true, false,
                 false, 0, false, false, false, 0, FE_SDPA_IMPLEMENTATION_NATIVE},
        SdpaCase{"fp16_d128_stats_composite", FE_DATA_HALF, 1, 4, 4, 256, 256, 128, FE_CAUSAL_MASK_NONE, true, false,
                 false, 0, false, false, false, 0, FE_SDPA_IMPLEMENTATION_COMPOSITE},
        SdpaCase{"bf16_gqa_unequal_native", FE_DATA_BFLOAT16, 2, 8, 2, 100, 300, 64, FE_CAUSAL_MASK_NONE, false, true,
                 false, 0, false, false, false, 0, FE_SDPA_IMPLEMENTATION_NATIVE},
        SdpaCase{"bf16_padding_native", FE_DATA_BFLOAT16, 3, 4, 4, 128, 160, 64, FE_CAUSAL_MASK_NONE, true, false,
                 false, 0, true, false, false, 0, FE_SDPA_IMPLEMENTATION_NATIVE},
        SdpaCase{"bf16_padding_composite", FE_DATA_BFLOAT16, 3, 4, 4, 128, 160, 64, FE_CAUSAL_MASK_NONE, true, false,
                 false, 0, true, false, false, 0, FE_SDPA_IMPLEMENTATION_COMPOSITE}),
    [](const ::testing::TestParamInfo<SdpaCase> &info) { return std::string(info.param.name); });

}  // namespace
