// Attention backward against a CPU reference in double: dQ, dK, dV from random Q, K, V, dO,
// with O and the stats computed by the reference forward (rounded to the io type as a forward
// pass would store them).
#include <cstring>
#include <limits>

#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

struct BackwardCase {
    const char *name;
    fe_data_type type;
    int64_t b, h_q, h_k, s, d;
    fe_causal_mask causal;
    bool bias = false;           // an additive bias [1, h, s, s], with its gradient dBias
    bool deterministic = false;  // and then two runs must agree bit for bit
    bool padding = false;        // per-batch actual lengths of Q and K/V (a padding mask)
};

class SdpaBackwardNumerics : public Gpu, public ::testing::WithParamInterface<BackwardCase> {};

TEST_P(SdpaBackwardNumerics, MatchesCpuReference) {
    const BackwardCase &c = GetParam();
    const int64_t B = c.b, H = c.h_q, HK = c.h_k, S = c.s, D = c.d, group = H / HK;
    const double scale = 1.0 / std::sqrt(static_cast<double>(D));
    fe_graph *g = graph(c.name, c.type);
    fe_tensor *q = tensor(g, "q", {B, H, S, D}), *k = tensor(g, "k", {B, HK, S, D}), *v = tensor(g, "v", {B, HK, S, D});
    fe_tensor *o = tensor(g, "o", {B, H, S, D}), *d_o = tensor(g, "dO", {B, H, S, D});
    fe_tensor *stats = tensor(g, "stats", {B, H, S, 1}, false, FE_DATA_FLOAT);
    fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
    opts.attn_scale = scale;
    opts.causal_mask = c.causal;
    opts.deterministic = c.deterministic;
    fe_tensor *bias = nullptr, *dbias = nullptr;
    if (c.bias) {
        bias = tensor(g, "bias", {1, H, S, S});
        opts.bias = bias;
        opts.output_dbias = 1;
    }
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
    if (c.bias) {
        ASSERT_FE_OK(fe_graph_tensor_by_name(g, "sdpa_backward_0::dBias", &dbias));
        ASSERT_FE_OK(fe_tensor_set_output(dbias, 1));
    }
    build(g);
    int64_t workspace = 0;
    ASSERT_FE_OK(fe_graph_workspace_size(g, &workspace));
    // Row sums (and, accumulating atomically, the float dQ accumulator) at least.
    EXPECT_GE(workspace, B * H * S * ((c.bias || c.deterministic) ? 1 : D + 1) * 4);
    std::printf("    %s plan %s, workspace %lld bytes\n", c.name, engine_tag_of(g), static_cast<long long>(workspace));

    Bound &bq = bind(q, true), &bk = bind(k, true), &bv = bind(v, true), &bdo = bind(d_o, true);
    Bound &bo = bind(o, false), &bs = bind(stats, false);
    Bound *bb = bias ? &bind(bias, true) : nullptr;
    // Actual lengths in [1, S] per batch (all of S without a padding mask).
    std::vector<int32_t> lq(static_cast<size_t>(B), static_cast<int32_t>(S)), lkv(lq);
    if (c.padding)
        for (int64_t b = 0; b < B; ++b) {
            lq[static_cast<size_t>(b)] = 1 + static_cast<int32_t>(rng_() % static_cast<uint32_t>(S));
            lkv[static_cast<size_t>(b)] = 1 + static_cast<int32_t>(rng_() % static_cast<uint32_t>(S));
        }
    // Reference forward: P (kept), O and the stats.
    std::vector<double> p(static_cast<size_t>(B * H * S * S));
    auto P = [&](int64_t b, int64_t h, int64_t i, int64_t j) -> double & {
        return p[static_cast<size_t>(((b * H + h) * S + i) * S + j)];
    };
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < S; ++i) {
                double row_max = -std::numeric_limits<double>::infinity();
                for (int64_t j = 0; j < S; ++j) {
                    double dot = 0;
                    for (int64_t x = 0; x < D; ++x) dot += static_cast<double>(bq.at({b, h, i, x})) * bk.at({b, h / group, j, x});
                    bool visible = (c.causal == FE_CAUSAL_MASK_NONE || j <= i) && j < lkv[static_cast<size_t>(b)];
                    double biased = dot * scale + (bb ? static_cast<double>(bb->at({0, h, i, j})) : 0.0);
                    P(b, h, i, j) = visible ? biased : -std::numeric_limits<double>::infinity();
                    row_max = std::max(row_max, P(b, h, i, j));
                }
                double sum = 0;
                for (int64_t j = 0; j < S; ++j) sum += (P(b, h, i, j) = std::exp(P(b, h, i, j) - row_max));
                bs.host[static_cast<size_t>(bs.offset({b, h, i, 0}))] = static_cast<float>(row_max + std::log(sum));
                for (int64_t j = 0; j < S; ++j) P(b, h, i, j) /= sum;
                for (int64_t x = 0; x < D; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < S; ++j) acc += P(b, h, i, j) * bv.at({b, h / group, j, x});
                    bo.host[static_cast<size_t>(bo.offset({b, h, i, x}))] = round_to(c.type, static_cast<float>(acc));
                }
            }
    ASSERT_FE_OK(fe_buffer_upload_float(bo.buffer, bo.host.data(), bo.span(), bo.type));
    ASSERT_FE_OK(fe_buffer_upload_float(bs.buffer, bs.host.data(), bs.span(), bs.type));
    Bound &bdq = bind(dq, false), &bdk = bind(dk, false), &bdv = bind(dv, false);
    std::vector<Bound *> all = {&bq, &bk, &bv, &bo, &bdo, &bs, &bdq, &bdk, &bdv};
    Bound *bdb = dbias ? &bind(dbias, false) : nullptr;
    if (bb) all.push_back(bb);
    if (bdb) all.push_back(bdb);
    if (c.padding) {
        Bound &blq = bind(len_q, false), &blkv = bind(len_kv, false);
        ASSERT_FE_OK(fe_buffer_upload(blq.buffer, lq.data(), 4 * B));
        ASSERT_FE_OK(fe_buffer_upload(blkv.buffer, lkv.data(), 4 * B));
        all.push_back(&blq);
        all.push_back(&blkv);
    }
    execute(g, all);
    download(bdq);
    download(bdk);
    download(bdv);
    if (bdb) download(*bdb);
    if (c.deterministic) {
        // A second run, outputs poisoned again, must reproduce every bit.
        std::vector<float> first_dq = bdq.host, first_dk = bdk.host, first_dv = bdv.host;
        for (Bound *out : {&bdq, &bdk, &bdv}) ASSERT_FE_OK(fe_buffer_fill_bytes(out->buffer, 0xFF));
        execute(g, all);
        download(bdq);
        download(bdk);
        download(bdv);
        EXPECT_EQ(0, std::memcmp(first_dq.data(), bdq.host.data(), first_dq.size() * sizeof(float))) << "dQ differs";
        EXPECT_EQ(0, std::memcmp(first_dk.data(), bdk.host.data(), first_dk.size() * sizeof(float))) << "dK differs";
        EXPECT_EQ(0, std::memcmp(first_dv.data(), bdv.host.data(), first_dv.size() * sizeof(float))) << "dV differs";
    }

    // Reference backward.
    std::vector<double> ref_dq(static_cast<size_t>(B * H * S * D), 0.0), ref_dk(static_cast<size_t>(B * HK * S * D), 0.0),
        ref_dv(static_cast<size_t>(B * HK * S * D), 0.0);
    std::vector<double> ds(static_cast<size_t>(S));
    std::vector<double> ref_dbias(static_cast<size_t>(H * S * S), 0.0);
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h) {
            int64_t hk = h / group;
            for (int64_t i = 0; i < lq[static_cast<size_t>(b)]; ++i) {
                double row_dot = 0;
                for (int64_t x = 0; x < D; ++x) row_dot += static_cast<double>(bdo.at({b, h, i, x})) * bo.at({b, h, i, x});
                for (int64_t j = 0; j < S; ++j) {
                    double dp = 0;
                    for (int64_t x = 0; x < D; ++x) dp += static_cast<double>(bdo.at({b, h, i, x})) * bv.at({b, hk, j, x});
                    double unscaled = P(b, h, i, j) * (dp - row_dot);
                    ref_dbias[static_cast<size_t>((h * S + i) * S + j)] += unscaled;
                    ds[static_cast<size_t>(j)] = unscaled * scale;
                    for (int64_t x = 0; x < D; ++x)
                        ref_dv[static_cast<size_t>(((b * HK + hk) * S + j) * D + x)] += P(b, h, i, j) * bdo.at({b, h, i, x});
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
    if (c.padding) {
        // Outside the actual lengths the gradients are undefined (dQ rows past seq_len_q, dK and
        // dV rows past seq_len_kv): take the device's values there, so only defined rows count.
        auto adopt = [](Bound &out, std::vector<double> &ref, int64_t b, int64_t h, int64_t row, int64_t heads) {
            for (int64_t x = 0; x < out.dims[3]; ++x) {
                size_t at = static_cast<size_t>(((b * heads + h) * out.dims[2] + row) * out.dims[3] + x);
                size_t off = static_cast<size_t>(out.offset({b, h, row, x}));
                if (!std::isfinite(out.host[off])) out.host[off] = 0.f;
                ref[at] = out.host[off];
            }
        };
        for (int64_t b = 0; b < B; ++b) {
            for (int64_t h = 0; h < H; ++h)
                for (int64_t i = lq[static_cast<size_t>(b)]; i < S; ++i) adopt(bdq, ref_dq, b, h, i, H);
            for (int64_t h = 0; h < HK; ++h)
                for (int64_t j = lkv[static_cast<size_t>(b)]; j < S; ++j) {
                    adopt(bdk, ref_dk, b, h, j, HK);
                    adopt(bdv, ref_dv, b, h, j, HK);
                }
        }
    }
    expect_close(bdq, ref_dq, 2e-2, 3e-2, 2e-2);
    expect_close(bdk, ref_dk, 2e-2, 3e-2, 2e-2);
    expect_close(bdv, ref_dv, 2e-2, 3e-2, 2e-2);
    if (bdb) expect_close(*bdb, ref_dbias, 2e-2, 3e-2, 2e-2);
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, SdpaBackwardNumerics,
    ::testing::Values(BackwardCase{"bf16_causal", FE_DATA_BFLOAT16, 2, 4, 4, 128, 64, FE_CAUSAL_MASK_TOP_LEFT},
                      BackwardCase{"fp16_no_mask_d128", FE_DATA_HALF, 1, 4, 4, 128, 128, FE_CAUSAL_MASK_NONE},
                      BackwardCase{"bf16_gqa_4to1_causal", FE_DATA_BFLOAT16, 1, 8, 2, 128, 64, FE_CAUSAL_MASK_TOP_LEFT},
                      BackwardCase{"bf16_bias_dbias", FE_DATA_BFLOAT16, 2, 4, 4, 128, 64, FE_CAUSAL_MASK_NONE, true},
                      BackwardCase{"fp16_causal_deterministic", FE_DATA_HALF, 2, 4, 4, 256, 64, FE_CAUSAL_MASK_TOP_LEFT,
                                   false, true},
                      BackwardCase{"bf16_bias_dbias_deterministic_causal", FE_DATA_BFLOAT16, 1, 4, 4, 128, 128,
                                   FE_CAUSAL_MASK_TOP_LEFT, true, true},
                      BackwardCase{"bf16_padding_mask", FE_DATA_BFLOAT16, 3, 4, 4, 128, 64, FE_CAUSAL_MASK_NONE, false,
                                   false, true},
                      BackwardCase{"fp16_padding_causal_gqa", FE_DATA_HALF, 2, 8, 2, 128, 64, FE_CAUSAL_MASK_TOP_LEFT,
                                   false, false, true}),
    [](const ::testing::TestParamInfo<BackwardCase> &info) { return std::string(info.param.name); });

}  // namespace
