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
};

class SdpaNumerics : public Gpu, public ::testing::WithParamInterface<SdpaCase> {};

std::vector<int64_t> layout(const SdpaCase &c, int64_t h, int64_t s) {
    if (c.bshd) return {s * h * c.d, c.d, h * c.d, 1};
    return {h * s * c.d, s * c.d, c.d, 1};
}

TEST_P(SdpaNumerics, MatchesCpuReference) {
    const SdpaCase &c = GetParam();
    fe_graph *g = graph(c.name, c.type);
    int64_t qd[4] = {c.b, c.h_q, c.s_q, c.d}, kd[4] = {c.b, c.h_k, c.s_kv, c.d};
    std::vector<int64_t> qs = layout(c, c.h_q, c.s_q), ks = layout(c, c.h_k, c.s_kv);
    fe_tensor *q, *k, *v, *o = nullptr, *stats = nullptr;
    ASSERT_FE_OK(fe_graph_tensor(g, "q", 4, qd, qs.data(), FE_DATA_NOT_SET, &q));
    ASSERT_FE_OK(fe_graph_tensor(g, "k", 4, kd, ks.data(), FE_DATA_NOT_SET, &k));
    ASSERT_FE_OK(fe_graph_tensor(g, "v", 4, kd, ks.data(), FE_DATA_NOT_SET, &v));
    fe_sdpa_options opts = FE_SDPA_OPTIONS_INIT;
    double scale = 1.0 / std::sqrt(static_cast<double>(c.d));
    opts.attn_scale = scale;
    opts.causal_mask = c.causal;
    opts.generate_stats = c.stats;
    ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &opts, &o, &stats));
    ASSERT_FE_OK(fe_tensor_set_output(o, 1));
    if (stats) ASSERT_FE_OK(fe_tensor_set_output(stats, 1));
    build(g);
    std::printf("    %s plan %s\n", c.name, fe_graph_engine_tag(g));
    Bound &bq = bind(q, true), &bk = bind(k, true), &bv = bind(v, true), &bo = bind(o, false);
    Bound *bs = stats ? &bind(stats, false) : nullptr;
    std::vector<Bound *> all = {&bq, &bk, &bv, &bo};
    if (bs) all.push_back(bs);
    execute(g, all);
    download(bo);
    if (bs) download(*bs);

    // Reference: per (b, h) row softmax in double.
    int64_t group = c.h_q / c.h_k;
    std::vector<double> ref_o(static_cast<size_t>(c.b * c.h_q * c.s_q * c.d));
    std::vector<double> ref_stats(static_cast<size_t>(c.b * c.h_q * c.s_q));
    std::vector<double> p(static_cast<size_t>(c.s_kv));
    for (int64_t b = 0; b < c.b; ++b)
        for (int64_t h = 0; h < c.h_q; ++h)
            for (int64_t i = 0; i < c.s_q; ++i) {
                double row_max = -std::numeric_limits<double>::infinity();
                for (int64_t j = 0; j < c.s_kv; ++j) {
                    bool visible = true;
                    if (c.causal == FE_CAUSAL_MASK_TOP_LEFT) visible = j <= i;
                    if (c.causal == FE_CAUSAL_MASK_BOTTOM_RIGHT) visible = j <= i + c.s_kv - c.s_q;
                    double dot = 0;
                    for (int64_t x = 0; x < c.d; ++x)
                        dot += static_cast<double>(bq.at({b, h, i, x})) * bk.at({b, h / group, j, x});
                    p[static_cast<size_t>(j)] = visible ? dot * scale : -std::numeric_limits<double>::infinity();
                    row_max = std::max(row_max, p[static_cast<size_t>(j)]);
                }
                double sum = 0;
                for (double &e : p) sum += (e = std::exp(e - row_max));
                ref_stats[static_cast<size_t>((b * c.h_q + h) * c.s_q + i)] = row_max + std::log(sum);
                for (int64_t x = 0; x < c.d; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < c.s_kv; ++j) acc += p[static_cast<size_t>(j)] * bv.at({b, h / group, j, x});
                    ref_o[static_cast<size_t>(((b * c.h_q + h) * c.s_q + i) * c.d + x)] = acc / sum;
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
        SdpaCase{"fp16_decode", FE_DATA_HALF, 4, 8, 8, 1, 512, 64, FE_CAUSAL_MASK_NONE, false, false}),
    [](const ::testing::TestParamInfo<SdpaCase> &info) { return std::string(info.param.name); });

}  // namespace
