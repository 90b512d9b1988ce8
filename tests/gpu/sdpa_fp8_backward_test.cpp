// FP8 attention backward against a CPU reference in double that follows the FP8 data flow:
// dequantized inputs, the probabilities S and the score gradient dP quantized to FP8 as the
// device stores them, and the gradients quantized with scales chosen from the reference's own
// amax (delayed scaling, as a training loop does).
#include <cmath>
#include <limits>

#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

struct Fp8BackwardCase {
    const char *name;
    int64_t b, h_q, h_k, s, d;
    fe_causal_mask causal;
};

class SdpaFp8BackwardNumerics : public Gpu, public ::testing::WithParamInterface<Fp8BackwardCase> {};

double fp8(double x) { return round_to(FE_DATA_FP8_E4M3, static_cast<float>(x)); }
// The largest power of two that keeps amax * scale within E4M3's 448.
double scale_for(double amax) { return std::exp2(std::floor(std::log2(448.0 / std::max(amax, 1e-30)))); }

TEST_P(SdpaFp8BackwardNumerics, MatchesCpuReference) {
    const Fp8BackwardCase &c = GetParam();
    const int64_t B = c.b, H = c.h_q, HK = c.h_k, S = c.s, D = c.d, group = H / HK;
    const double attn = 1.0 / std::sqrt(static_cast<double>(D));
    fe_graph *g = graph(c.name, FE_DATA_FP8_E4M3);
    fe_tensor *q = tensor(g, "q", {B, H, S, D}), *k = tensor(g, "k", {B, HK, S, D}), *v = tensor(g, "v", {B, HK, S, D});
    fe_tensor *o = tensor(g, "o", {B, H, S, D}), *d_o = tensor(g, "dO", {B, H, S, D});
    fe_tensor *stats = tensor(g, "stats", {B, H, S, 1}, false, FE_DATA_FLOAT);
    fe_sdpa_fp8_backward_scales sc = FE_SDPA_FP8_BACKWARD_SCALES_INIT;
    fe_tensor **fields[12] = {&sc.descale_q,  &sc.descale_k, &sc.descale_v,  &sc.descale_o,
                              &sc.descale_do, &sc.descale_s, &sc.descale_dp, &sc.scale_s,
                              &sc.scale_dp,   &sc.scale_dq,  &sc.scale_dk,   &sc.scale_dv};
    for (int i = 0; i < 12; ++i) *fields[i] = tensor(g, ("scale_" + std::to_string(i)).c_str(), {1, 1, 1, 1}, false, FE_DATA_FLOAT);
    fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
    opts.attn_scale = attn;
    opts.causal_mask = c.causal;
    fe_tensor *out[7];
    ASSERT_FE_OK(fe_graph_sdpa_fp8_backward(g, q, k, v, o, d_o, stats, &sc, &opts, &out[0], &out[1], &out[2], &out[3],
                                            &out[4], &out[5], &out[6]));
    for (fe_tensor *t : out) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    build(g);
    std::printf("    %s plan %s\n", c.name, engine_tag_of(g));

    // Inputs stored in [-4, 4]; their descale 1/4 makes them real values in [-1, 1].
    const double in_descale = 0.25, scale_o = 16.0, scale_s = 448.0;
    Bound &bq = bind(q, true, -4.f, 4.f), &bk = bind(k, true, -4.f, 4.f), &bv = bind(v, true, -4.f, 4.f);
    Bound &bdo = bind(d_o, true, -4.f, 4.f), &bo = bind(o, false), &bs = bind(stats, false);
    auto Q = [&](int64_t b, int64_t h, int64_t i, int64_t x) { return bq.at({b, h, i, x}) * in_descale; };
    auto K = [&](int64_t b, int64_t h, int64_t j, int64_t x) { return bk.at({b, h, j, x}) * in_descale; };
    auto V = [&](int64_t b, int64_t h, int64_t j, int64_t x) { return bv.at({b, h, j, x}) * in_descale; };
    auto dO = [&](int64_t b, int64_t h, int64_t i, int64_t x) { return bdo.at({b, h, i, x}) * in_descale; };

    // Forward: P, stats, O (stored in FP8 with scale_o).
    std::vector<double> p(static_cast<size_t>(B * H * S * S));
    auto P = [&](int64_t b, int64_t h, int64_t i, int64_t j) -> double & { return p[static_cast<size_t>(((b * H + h) * S + i) * S + j)]; };
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < S; ++i) {
                double row_max = -std::numeric_limits<double>::infinity(), sum = 0;
                for (int64_t j = 0; j < S; ++j) {
                    double dot = 0;
                    for (int64_t x = 0; x < D; ++x) dot += Q(b, h, i, x) * K(b, h / group, j, x);
                    bool visible = c.causal == FE_CAUSAL_MASK_NONE || j <= i;
                    P(b, h, i, j) = visible ? dot * attn : -std::numeric_limits<double>::infinity();
                    row_max = std::max(row_max, P(b, h, i, j));
                }
                for (int64_t j = 0; j < S; ++j) sum += (P(b, h, i, j) = std::exp(P(b, h, i, j) - row_max));
                bs.host[static_cast<size_t>(bs.offset({b, h, i, 0}))] = static_cast<float>(row_max + std::log(sum));
                for (int64_t j = 0; j < S; ++j) P(b, h, i, j) /= sum;
                for (int64_t x = 0; x < D; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < S; ++j) acc += P(b, h, i, j) * V(b, h / group, j, x);
                    bo.host[static_cast<size_t>(bo.offset({b, h, i, x}))] = static_cast<float>(fp8(acc * scale_o));
                }
            }
    ASSERT_FE_OK(fe_buffer_upload_float(bo.buffer, bo.host.data(), bo.span(), bo.type));
    ASSERT_FE_OK(fe_buffer_upload_float(bs.buffer, bs.host.data(), bs.span(), bs.type));
    auto O = [&](int64_t b, int64_t h, int64_t i, int64_t x) { return bo.at({b, h, i, x}) / scale_o; };

    // Backward in real units, with S and dP quantized as the device does.
    std::vector<double> ds(p.size());
    double amax_dp = 0;
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < S; ++i) {
                double row_dot = 0;
                for (int64_t x = 0; x < D; ++x) row_dot += dO(b, h, i, x) * O(b, h, i, x);
                for (int64_t j = 0; j < S; ++j) {
                    double dp = 0;
                    for (int64_t x = 0; x < D; ++x) dp += dO(b, h, i, x) * V(b, h / group, j, x);
                    double value = P(b, h, i, j) * (dp - row_dot) * attn;
                    ds[static_cast<size_t>(((b * H + h) * S + i) * S + j)] = value;
                    amax_dp = std::max(amax_dp, std::fabs(value));
                }
            }
    const double scale_dp = scale_for(amax_dp);
    std::vector<double> dq(static_cast<size_t>(B * H * S * D), 0.0), dk(static_cast<size_t>(B * HK * S * D), 0.0),
        dv(static_cast<size_t>(B * HK * S * D), 0.0);
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < S; ++i)
                for (int64_t j = 0; j < S; ++j) {
                    double s8 = fp8(P(b, h, i, j) * scale_s) / scale_s;
                    double ds8 = fp8(ds[static_cast<size_t>(((b * H + h) * S + i) * S + j)] * scale_dp) / scale_dp;
                    int64_t hk = h / group;
                    for (int64_t x = 0; x < D; ++x) {
                        dv[static_cast<size_t>(((b * HK + hk) * S + j) * D + x)] += s8 * dO(b, h, i, x);
                        dq[static_cast<size_t>(((b * H + h) * S + i) * D + x)] += ds8 * K(b, hk, j, x);
                        dk[static_cast<size_t>(((b * HK + hk) * S + j) * D + x)] += ds8 * Q(b, h, i, x);
                    }
                }
    auto amax_of = [](const std::vector<double> &x) {
        double m = 0;
        for (double e : x) m = std::max(m, std::fabs(e));
        return m;
    };
    const double amax_dq = amax_of(dq), amax_dk = amax_of(dk), amax_dv = amax_of(dv);
    const double scale_dq = scale_for(amax_dq), scale_dk = scale_for(amax_dk), scale_dv = scale_for(amax_dv);
    const double values[12] = {in_descale, in_descale, in_descale, 1.0 / scale_o, in_descale, 1.0 / scale_s,
                               1.0 / scale_dp, scale_s, scale_dp, scale_dq, scale_dk, scale_dv};
    std::vector<Bound *> all = {&bq, &bk, &bv, &bo, &bdo, &bs};
    for (int i = 0; i < 12; ++i) {
        Bound &b = bind(*fields[i], false);
        b.host[0] = static_cast<float>(values[i]);
        ASSERT_FE_OK(fe_buffer_upload_float(b.buffer, b.host.data(), 1, FE_DATA_FLOAT));
        all.push_back(&b);
    }
    Bound *outs[7];
    for (int i = 0; i < 7; ++i) all.push_back(outs[i] = &bind(out[i], false));
    execute(g, all);
    for (Bound *b : outs) download(*b);

    for (double &e : dq) e *= scale_dq;
    for (double &e : dk) e *= scale_dk;
    for (double &e : dv) e *= scale_dv;
    // Stored FP8 with the scale putting the largest magnitude near 448 (half a step there: 16);
    // a P or dP element rounding the other way moves a sum by one step of that element, which
    // is large against small sums. Elementwise bounds are a fraction of the full scale; the
    // relative norm is the tight check.
    expect_close(*outs[0], dq, 18.0, 0.125, 0.06);
    expect_close(*outs[1], dk, 18.0, 0.125, 0.06);
    expect_close(*outs[2], dv, 18.0, 0.125, 0.06);
    EXPECT_NEAR(outs[3]->host[0], amax_dq, 0.08 * amax_dq) << "amax of dQ";
    EXPECT_NEAR(outs[4]->host[0], amax_dk, 0.08 * amax_dk) << "amax of dK";
    EXPECT_NEAR(outs[5]->host[0], amax_dv, 0.08 * amax_dv) << "amax of dV";
    EXPECT_NEAR(outs[6]->host[0], amax_dp, 0.05 * amax_dp) << "amax of dP";
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, SdpaFp8BackwardNumerics,
    ::testing::Values(Fp8BackwardCase{"fp8_backward_causal_d128", 1, 4, 4, 256, 128, FE_CAUSAL_MASK_TOP_LEFT},
                      Fp8BackwardCase{"fp8_backward_no_mask", 2, 4, 4, 128, 128, FE_CAUSAL_MASK_NONE},
                      Fp8BackwardCase{"fp8_backward_gqa_4to1_causal", 1, 8, 2, 256, 128, FE_CAUSAL_MASK_TOP_LEFT}),
    [](const ::testing::TestParamInfo<Fp8BackwardCase> &info) { return std::string(info.param.name); });

}  // namespace
