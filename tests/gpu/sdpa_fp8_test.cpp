// FP8 attention forward against a CPU reference in double. The reference dequantizes the FP8
// inputs with their descales, computes the softmax in double, quantizes P with scale_s exactly
// as the stored FP8 probabilities are, and compares O (stored FP8, quantized with scale_o), the
// stats and both amax values; with a band's right bound in either diagonal alignment.
#include <cmath>
#include <limits>

#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

struct Fp8Case {
    const char *name;
    int64_t b, h_q, h_k, s_q, s_kv, d;
    fe_causal_mask causal;
    int64_t right_bound = -1;   // the band's right bound (no causal mask), -1: none
    bool bottom_right = false;  // the band's diagonal aligned bottom-right
};

class SdpaFp8Numerics : public Gpu, public ::testing::WithParamInterface<Fp8Case> {};

TEST_P(SdpaFp8Numerics, MatchesCpuReference) {
    const Fp8Case &c = GetParam();
    const fe_data_type fp8 = FE_DATA_FP8_E4M3;
    fe_graph *g = graph(c.name, fp8);
    fe_tensor *q = tensor(g, "q", {c.b, c.h_q, c.s_q, c.d}), *k = tensor(g, "k", {c.b, c.h_k, c.s_kv, c.d});
    fe_tensor *v = tensor(g, "v", {c.b, c.h_k, c.s_kv, c.d});
    // Descales of the inputs (stored values in [-4, 4]), and the quantization of P and O.
    const double descale_q = 0.25, descale_k = 0.5, descale_v = 0.25, scale_s = 448.0, scale_o = 16.0;
    const double values[6] = {descale_q, descale_k, descale_v, 1.0 / scale_s, scale_s, scale_o};
    fe_sdpa_fp8_scales s = FE_SDPA_FP8_SCALES_INIT;
    fe_tensor **fields[] = {&s.descale_q, &s.descale_k, &s.descale_v, &s.descale_s, &s.scale_s, &s.scale_o};
    const char *names[] = {"descale_q", "descale_k", "descale_v", "descale_s", "scale_s", "scale_o"};
    for (int i = 0; i < 6; ++i) {
        // Half of them device tensors, half by-value scalars: both forms must work.
        if (i % 2 == 0)
            *fields[i] = tensor(g, names[i], {1, 1, 1, 1}, false, FE_DATA_FLOAT);
        else
            ASSERT_FE_OK(fe_graph_scalar(g, names[i], values[i], FE_DATA_FLOAT, fields[i]));
    }
    const double scale = 1.0 / std::sqrt(static_cast<double>(c.d));
    fe_sdpa_options opts = FE_SDPA_OPTIONS_INIT;
    opts.attn_scale = scale;
    opts.causal_mask = c.causal;
    opts.generate_stats = 1;
    opts.right_bound = c.right_bound;
    opts.diagonal_alignment = c.bottom_right ? FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT : FE_DIAGONAL_ALIGNMENT_TOP_LEFT;
    fe_tensor *o, *stats, *amax_s, *amax_o;
    ASSERT_FE_OK(fe_graph_sdpa_fp8(g, q, k, v, &s, &opts, &o, &stats, &amax_s, &amax_o));
    for (fe_tensor *t : {o, stats, amax_s, amax_o}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    build(g);
    std::printf("    %s plan %s\n", c.name, engine_tag_of(g));

    Bound &bq = bind(q, true, -4.f, 4.f), &bk = bind(k, true, -4.f, 4.f), &bv = bind(v, true, -4.f, 4.f);
    std::vector<Bound *> all = {&bq, &bk, &bv};
    for (int i = 0; i < 6; i += 2) {
        Bound &b = bind(*fields[i], false);
        b.host[0] = static_cast<float>(values[i]);
        ASSERT_FE_OK(fe_buffer_upload_float(b.buffer, b.host.data(), 1, FE_DATA_FLOAT));
        all.push_back(&b);
    }
    Bound &bo = bind(o, false), &bs = bind(stats, false), &bas = bind(amax_s, false), &bao = bind(amax_o, false);
    for (Bound *b : {&bo, &bs, &bas, &bao}) all.push_back(b);
    execute(g, all);
    for (Bound *b : {&bo, &bs, &bas, &bao}) download(*b);

    const int64_t group = c.h_q / c.h_k;
    std::vector<double> ref_o(static_cast<size_t>(c.b * c.h_q * c.s_q * c.d)), ref_stats(static_cast<size_t>(c.b * c.h_q * c.s_q));
    std::vector<double> p(static_cast<size_t>(c.s_kv));
    double max_p = 0, max_o = 0;
    const bool aligned_bottom_right =
        c.causal == FE_CAUSAL_MASK_BOTTOM_RIGHT || (c.causal == FE_CAUSAL_MASK_NONE && c.bottom_right);
    const int64_t diagonal = aligned_bottom_right ? c.s_kv - c.s_q : 0;
    const int64_t right = c.causal != FE_CAUSAL_MASK_NONE ? 0 : c.right_bound;
    for (int64_t b = 0; b < c.b; ++b)
        for (int64_t h = 0; h < c.h_q; ++h)
            for (int64_t i = 0; i < c.s_q; ++i) {
                double row_max = -std::numeric_limits<double>::infinity();
                for (int64_t j = 0; j < c.s_kv; ++j) {
                    double dot = 0;
                    for (int64_t x = 0; x < c.d; ++x)
                        dot += static_cast<double>(bq.at({b, h, i, x})) * bk.at({b, h / group, j, x});
                    bool visible = right < 0 || j <= i + diagonal + right;
                    p[static_cast<size_t>(j)] =
                        visible ? dot * scale * descale_q * descale_k : -std::numeric_limits<double>::infinity();
                    row_max = std::max(row_max, p[static_cast<size_t>(j)]);
                }
                double sum = 0;
                for (double &e : p) sum += (e = std::exp(e - row_max));
                ref_stats[static_cast<size_t>((b * c.h_q + h) * c.s_q + i)] = row_max + std::log(sum);
                for (double &e : p) {
                    e /= sum;
                    max_p = std::max(max_p, e);
                    e = round_to(FE_DATA_FP8_E4M3, static_cast<float>(e * scale_s));  // stored P
                }
                for (int64_t x = 0; x < c.d; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < c.s_kv; ++j) acc += p[static_cast<size_t>(j)] * bv.at({b, h / group, j, x});
                    double real = acc / scale_s * descale_v;
                    max_o = std::max(max_o, std::fabs(real));
                    ref_o[static_cast<size_t>(((b * c.h_q + h) * c.s_q + i) * c.d + x)] = real * scale_o;
                }
            }
    // O is stored in FP8 (3 mantissa bits: half a step is 1/16 of the value), and so is P: where
    // the device's P lands on the other side of an FP8 rounding boundary than the reference's,
    // that key's weight moves by one step (1/16 of it). Elementwise bounds allow for that; the
    // relative norm over all elements is the tight check (a wrong scale moves it by far more).
    expect_close(bo, ref_o, 1.25, 0.125, 0.06);
    expect_close(bs, ref_stats, 2e-2, 2e-3, 2e-3);
    EXPECT_NEAR(bas.host[0], max_p, 0.02 * max_p) << "amax of P";
    EXPECT_NEAR(bao.host[0], max_o, 0.05 * max_o) << "amax of O";
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, SdpaFp8Numerics,
    ::testing::Values(Fp8Case{"fp8_causal_d128", 2, 4, 4, 256, 256, 128, FE_CAUSAL_MASK_TOP_LEFT},
                      Fp8Case{"fp8_gqa_4to1_no_mask", 1, 8, 2, 128, 384, 128, FE_CAUSAL_MASK_NONE},
                      Fp8Case{"fp8_d64_bottom_right", 2, 2, 2, 128, 256, 64, FE_CAUSAL_MASK_BOTTOM_RIGHT},
                      // A band of 32 keys right of the diagonal.
                      Fp8Case{"fp8_right_bound", 1, 4, 4, 256, 256, 128, FE_CAUSAL_MASK_NONE, 32},
                      // The band's diagonal aligned bottom-right with right bound 0 (causal from the
                      // bottom right), GQA.
                      Fp8Case{"fp8_bottom_right_band", 2, 4, 2, 128, 384, 128, FE_CAUSAL_MASK_NONE, 0, true}),
    [](const ::testing::TestParamInfo<Fp8Case> &info) { return std::string(info.param.name); });

}  // namespace
