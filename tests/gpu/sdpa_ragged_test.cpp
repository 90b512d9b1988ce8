// Ragged (packed, variable-length) attention: Q, K, V and O hold only each batch's actual
// tokens back to back ([tokens, heads, dim]), located by offset tables, with a padding mask.
#include <limits>

#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

TEST_F(Gpu, RaggedPackedAttentionMatchesPerSequenceReference) {
    const int64_t B = 3, H = 4, S = 128, D = 64;
    const double scale = 0.125;
    const fe_data_type type = FE_DATA_BFLOAT16;
    std::vector<int32_t> len_q(B), len_kv(B);
    std::vector<int64_t> off_q(B + 1, 0), off_kv(B + 1, 0);  // in elements
    for (int64_t b = 0; b < B; ++b) {
        len_q[static_cast<size_t>(b)] = 1 + static_cast<int32_t>(rng_() % S);
        len_kv[static_cast<size_t>(b)] = 1 + static_cast<int32_t>(rng_() % S);
        off_q[static_cast<size_t>(b + 1)] = off_q[static_cast<size_t>(b)] + len_q[static_cast<size_t>(b)] * H * D;
        off_kv[static_cast<size_t>(b + 1)] = off_kv[static_cast<size_t>(b)] + len_kv[static_cast<size_t>(b)] * H * D;
    }
    fe_graph *g = graph("ragged", type);
    // Logical [b, h, s, d] over a packed [tokens, h, d] buffer: the token stride is h * d.
    int64_t dims[4] = {B, H, S, D}, strides[4] = {S * H * D, D, H * D, 1}, odims[4] = {B + 1, 1, 1, 1};
    int64_t ldims[4] = {B, 1, 1, 1};
    fe_tensor *q, *k, *v, *oq, *okv, *lq, *lkv;
    ASSERT_FE_OK(fe_graph_tensor(g, "q", 4, dims, strides, FE_DATA_NOT_SET, &q));
    ASSERT_FE_OK(fe_graph_tensor(g, "k", 4, dims, strides, FE_DATA_NOT_SET, &k));
    ASSERT_FE_OK(fe_graph_tensor(g, "v", 4, dims, strides, FE_DATA_NOT_SET, &v));
    ASSERT_FE_OK(fe_graph_tensor(g, "offsets_q", 4, odims, nullptr, FE_DATA_INT64, &oq));
    ASSERT_FE_OK(fe_graph_tensor(g, "offsets_kv", 4, odims, nullptr, FE_DATA_INT64, &okv));
    ASSERT_FE_OK(fe_graph_tensor(g, "len_q", 4, ldims, nullptr, FE_DATA_INT32, &lq));
    ASSERT_FE_OK(fe_graph_tensor(g, "len_kv", 4, ldims, nullptr, FE_DATA_INT32, &lkv));
    ASSERT_FE_OK(fe_tensor_set_ragged_offset(q, oq));
    ASSERT_FE_OK(fe_tensor_set_ragged_offset(k, okv));
    ASSERT_FE_OK(fe_tensor_set_ragged_offset(v, okv));
    fe_sdpa_options opts = FE_SDPA_OPTIONS_INIT;
    opts.attn_scale = scale;
    opts.seq_len_q = lq;
    opts.seq_len_kv = lkv;
    opts.generate_stats = 1;
    fe_tensor *o = nullptr, *stats = nullptr, *offsets_stats = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &opts, &o, &stats));
    ASSERT_FE_OK(fe_tensor_set_strides(o, 4, strides));
    ASSERT_FE_OK(fe_tensor_set_ragged_offset(o, oq));
    ASSERT_FE_OK(fe_tensor_set_output(o, 1));
    // The stats packed too ([tokens, heads, 1]), with offsets of their own (tokens before * H).
    int64_t stats_strides[4] = {S * H, 1, H, 1};
    ASSERT_FE_OK(fe_graph_tensor(g, "offsets_stats", 4, odims, nullptr, FE_DATA_INT64, &offsets_stats));
    ASSERT_FE_OK(fe_tensor_set_strides(stats, 4, stats_strides));
    ASSERT_FE_OK(fe_tensor_set_ragged_offset(stats, offsets_stats));
    ASSERT_FE_OK(fe_tensor_set_output(stats, 1));
    std::vector<int64_t> off_stats(B + 1, 0);
    for (int64_t b = 0; b < B; ++b)
        off_stats[static_cast<size_t>(b + 1)] = off_stats[static_cast<size_t>(b)] + len_q[static_cast<size_t>(b)] * H;
    build(g);
    std::printf("    ragged plan %s, lengths q %d/%d/%d kv %d/%d/%d\n", engine_tag_of(g), len_q[0], len_q[1],
                len_q[2], len_kv[0], len_kv[1], len_kv[2]);

    Bound &bq = bind(q, true), &bk = bind(k, true), &bv = bind(v, true), &bo = bind(o, false);
    Bound &boq = bind(oq, false), &bokv = bind(okv, false), &blq = bind(lq, false), &blkv = bind(lkv, false);
    ASSERT_FE_OK(fe_buffer_upload(boq.buffer, off_q.data(), 8 * (B + 1)));
    ASSERT_FE_OK(fe_buffer_upload(bokv.buffer, off_kv.data(), 8 * (B + 1)));
    ASSERT_FE_OK(fe_buffer_upload(blq.buffer, len_q.data(), 4 * B));
    ASSERT_FE_OK(fe_buffer_upload(blkv.buffer, len_kv.data(), 4 * B));
    Bound &bstats = bind(stats, false), &bos = bind(offsets_stats, false);
    ASSERT_FE_OK(fe_buffer_upload(bos.buffer, off_stats.data(), 8 * (B + 1)));
    execute(g, {&bq, &bk, &bv, &bo, &boq, &bokv, &blq, &blkv, &bstats, &bos});
    download(bo);
    download(bstats);
    double stats_err = 0;

    // Element (b, h, i, x) of a packed tensor lives at off[b] + i * H * D + h * D + x.
    auto at = [&](const Bound &t, const std::vector<int64_t> &off, int64_t b, int64_t h, int64_t i, int64_t x) {
        return static_cast<double>(t.host[static_cast<size_t>(off[static_cast<size_t>(b)] + i * H * D + h * D + x)]);
    };
    double max_err = 0, diff2 = 0, ref2 = 0;
    int64_t bad = 0, count = 0;
    std::vector<double> p(static_cast<size_t>(S));
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < len_q[static_cast<size_t>(b)]; ++i) {
                int64_t n = len_kv[static_cast<size_t>(b)];
                double row_max = -std::numeric_limits<double>::infinity(), sum = 0;
                for (int64_t j = 0; j < n; ++j) {
                    double dot = 0;
                    for (int64_t x = 0; x < D; ++x) dot += at(bq, off_q, b, h, i, x) * at(bk, off_kv, b, h, j, x);
                    p[static_cast<size_t>(j)] = dot * scale;
                    row_max = std::max(row_max, p[static_cast<size_t>(j)]);
                }
                for (int64_t j = 0; j < n; ++j) sum += (p[static_cast<size_t>(j)] = std::exp(p[static_cast<size_t>(j)] - row_max));
                double got_stats = bstats.host[static_cast<size_t>(off_stats[static_cast<size_t>(b)] + i * H + h)];
                double stats_diff = std::fabs(got_stats - (row_max + std::log(sum)));
                stats_err = std::isfinite(got_stats) ? std::max(stats_err, stats_diff) : 1e9;
                for (int64_t x = 0; x < D; ++x) {
                    double want = 0;
                    for (int64_t j = 0; j < n; ++j) want += p[static_cast<size_t>(j)] * at(bv, off_kv, b, h, j, x);
                    want /= sum;
                    double got = at(bo, off_q, b, h, i, x);
                    double err = std::fabs(got - want);
                    ++count;
                    if (!std::isfinite(got) || err > 2e-2 + 2e-2 * std::fabs(want)) ++bad;
                    if (std::isfinite(got)) max_err = std::max(max_err, err), diff2 += err * err;
                    ref2 += want * want;
                }
            }
    std::printf("    %lld packed elements, max abs err %.3g, relative norm %.3g\n", static_cast<long long>(count), max_err,
                std::sqrt(diff2 / ref2));
    EXPECT_EQ(bad, 0) << bad << " of " << count << " packed elements wrong";
    EXPECT_LE(std::sqrt(diff2 / ref2), 1e-2);
    std::printf("    packed stats: max abs err %.3g\n", stats_err);
    EXPECT_LE(stats_err, 2e-2);
}

// The backward pass over the same packed layout: dQ, dK, dV packed like Q, K, V, with K and V
// of H or of one head (grouped queries); with max_total_seq_len_q (and _kv with grouped
// queries), the stats are packed too and the workspace is sized for the tokens.
struct RaggedBackwardCase {
    bool packed_workspace;
    int64_t h_k;
};
class RaggedBackward : public Gpu, public ::testing::WithParamInterface<RaggedBackwardCase> {};

TEST_P(RaggedBackward, MatchesPerSequenceReference) {
    const bool packed_workspace = GetParam().packed_workspace;
    const int64_t B = 3, H = 4, S = 128, D = 64, HK = GetParam().h_k, group = H / HK;
    const double scale = 0.125;
    std::vector<int32_t> len_q(B), len_kv(B);
    std::vector<int64_t> off_q(B + 1, 0), off_kv(B + 1, 0);
    for (int64_t b = 0; b < B; ++b) {
        len_q[static_cast<size_t>(b)] = 1 + static_cast<int32_t>(rng_() % S);
        len_kv[static_cast<size_t>(b)] = 1 + static_cast<int32_t>(rng_() % S);
        off_q[static_cast<size_t>(b + 1)] = off_q[static_cast<size_t>(b)] + len_q[static_cast<size_t>(b)] * H * D;
        off_kv[static_cast<size_t>(b + 1)] = off_kv[static_cast<size_t>(b)] + len_kv[static_cast<size_t>(b)] * HK * D;
    }
    fe_graph *g = graph("ragged_backward", FE_DATA_BFLOAT16);
    int64_t dims[4] = {B, H, S, D}, strides[4] = {S * H * D, D, H * D, 1}, odims[4] = {B + 1, 1, 1, 1};
    int64_t kv_dims[4] = {B, HK, S, D}, kv_strides[4] = {S * HK * D, D, HK * D, 1};
    int64_t ldims[4] = {B, 1, 1, 1}, sdims[4] = {B, H, S, 1};
    fe_tensor *q, *k, *v, *o, *d_o, *stats, *oq, *okv, *lq, *lkv, *os = nullptr;
    int64_t tokens = 0, tokens_kv = 0;
    for (int32_t n : len_q) tokens += n;
    for (int32_t n : len_kv) tokens_kv += n;
    std::vector<int64_t> off_s(B + 1, 0);
    for (int64_t b = 0; b < B; ++b)
        off_s[static_cast<size_t>(b + 1)] = off_s[static_cast<size_t>(b)] + len_q[static_cast<size_t>(b)] * H;
    const char *names[5] = {"q", "k", "v", "o", "dO"};
    fe_tensor **packed[5] = {&q, &k, &v, &o, &d_o};
    for (int i = 0; i < 5; ++i) {
        const bool kv = i == 1 || i == 2;
        ASSERT_FE_OK(fe_graph_tensor(g, names[i], 4, kv ? kv_dims : dims, kv ? kv_strides : strides, FE_DATA_NOT_SET,
                                     packed[i]));
    }
    ASSERT_FE_OK(fe_graph_tensor(g, "stats", 4, sdims, nullptr, FE_DATA_FLOAT, &stats));
    ASSERT_FE_OK(fe_graph_tensor(g, "offsets_q", 4, odims, nullptr, FE_DATA_INT64, &oq));
    ASSERT_FE_OK(fe_graph_tensor(g, "offsets_kv", 4, odims, nullptr, FE_DATA_INT64, &okv));
    ASSERT_FE_OK(fe_graph_tensor(g, "len_q", 4, ldims, nullptr, FE_DATA_INT32, &lq));
    ASSERT_FE_OK(fe_graph_tensor(g, "len_kv", 4, ldims, nullptr, FE_DATA_INT32, &lkv));
    for (fe_tensor *t : {q, o, d_o}) ASSERT_FE_OK(fe_tensor_set_ragged_offset(t, oq));
    for (fe_tensor *t : {k, v}) ASSERT_FE_OK(fe_tensor_set_ragged_offset(t, okv));
    fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
    opts.attn_scale = scale;
    opts.seq_len_q = lq;
    opts.seq_len_kv = lkv;
    if (packed_workspace) {
        int64_t stats_strides[4] = {S * H, 1, H, 1};
        ASSERT_FE_OK(fe_graph_tensor(g, "offsets_stats", 4, odims, nullptr, FE_DATA_INT64, &os));
        ASSERT_FE_OK(fe_tensor_set_strides(stats, 4, stats_strides));
        ASSERT_FE_OK(fe_tensor_set_ragged_offset(stats, os));
        opts.max_total_seq_len_q = tokens;
        if (HK < H) opts.max_total_seq_len_kv = tokens_kv;
    }
    fe_tensor *dq, *dk, *dv;
    ASSERT_FE_OK(fe_graph_sdpa_backward(g, q, k, v, o, d_o, stats, &opts, &dq, &dk, &dv));
    for (fe_tensor *t : {dq, dk, dv}) {
        ASSERT_FE_OK(fe_tensor_set_strides(t, 4, t == dq ? strides : kv_strides));
        ASSERT_FE_OK(fe_tensor_set_ragged_offset(t, t == dq ? oq : okv));
        ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    }
    build(g);
    int64_t workspace = 0;
    ASSERT_FE_OK(fe_graph_workspace_size(g, &workspace));
    std::printf("    ragged backward plan %s, h %lld/%lld, lengths q %d/%d/%d kv %d/%d/%d, workspace %lld bytes%s\n",
                engine_tag_of(g), static_cast<long long>(H), static_cast<long long>(HK), len_q[0], len_q[1], len_q[2],
                len_kv[0], len_kv[1], len_kv[2], static_cast<long long>(workspace),
                packed_workspace ? " (sized for the tokens)" : "");
    // The row sums and the dQ accumulator: for the tokens, or for every padded row; with grouped
    // queries, dK and dV per query head (bfloat16) for the key tokens, or for every padded key.
    const int64_t rows = packed_workspace ? tokens : B * S, keys = packed_workspace ? tokens_kv : B * S;
    EXPECT_GE(workspace, rows * H * (D + 1) * 4);
    if (packed_workspace)
        EXPECT_LT(workspace, B * S * H * (D + 1) * 4 + (HK < H ? 2 * keys * H * D * 2 : 0) + 64 * 1024);

    Bound &bq = bind(q, true), &bk = bind(k, true), &bv = bind(v, true), &bdo = bind(d_o, true);
    Bound &bo = bind(o, false), &bs = bind(stats, false);
    Bound &boq = bind(oq, false), &bokv = bind(okv, false), &blq = bind(lq, false), &blkv = bind(lkv, false);
    ASSERT_FE_OK(fe_buffer_upload(boq.buffer, off_q.data(), 8 * (B + 1)));
    ASSERT_FE_OK(fe_buffer_upload(bokv.buffer, off_kv.data(), 8 * (B + 1)));
    ASSERT_FE_OK(fe_buffer_upload(blq.buffer, len_q.data(), 4 * B));
    ASSERT_FE_OK(fe_buffer_upload(blkv.buffer, len_kv.data(), 4 * B));
    Bound *bos = os ? &bind(os, false) : nullptr;
    if (bos) ASSERT_FE_OK(fe_buffer_upload(bos->buffer, off_s.data(), 8 * (B + 1)));
    auto stats_at = [&](int64_t b, int64_t h, int64_t i) {
        return static_cast<size_t>(packed_workspace ? off_s[static_cast<size_t>(b)] + i * H + h : bs.offset({b, h, i, 0}));
    };
    // Q, O, dO and dQ hold H heads a token, K, V, dK and dV HK (queries' head h reads h / group).
    auto index = [&](const std::vector<int64_t> &off, int64_t b, int64_t h, int64_t i, int64_t x) {
        const bool kv = &off == &off_kv;
        return static_cast<size_t>(off[static_cast<size_t>(b)] + i * (kv ? HK : H) * D + (kv ? h / group : h) * D + x);
    };
    // Reference forward per sequence: P, then O (rounded to bf16 as stored) and the stats.
    std::vector<double> p(static_cast<size_t>(B * H * S * S), 0.0);
    auto P = [&](int64_t b, int64_t h, int64_t i, int64_t j) -> double & { return p[static_cast<size_t>(((b * H + h) * S + i) * S + j)]; };
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < len_q[static_cast<size_t>(b)]; ++i) {
                int64_t n = len_kv[static_cast<size_t>(b)];
                double row_max = -std::numeric_limits<double>::infinity(), sum = 0;
                for (int64_t j = 0; j < n; ++j) {
                    double dot = 0;
                    for (int64_t x = 0; x < D; ++x)
                        dot += static_cast<double>(bq.host[index(off_q, b, h, i, x)]) * bk.host[index(off_kv, b, h, j, x)];
                    P(b, h, i, j) = dot * scale;
                    row_max = std::max(row_max, P(b, h, i, j));
                }
                for (int64_t j = 0; j < n; ++j) sum += (P(b, h, i, j) = std::exp(P(b, h, i, j) - row_max));
                for (int64_t j = 0; j < n; ++j) P(b, h, i, j) /= sum;
                bs.host[stats_at(b, h, i)] = static_cast<float>(row_max + std::log(sum));
                for (int64_t x = 0; x < D; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < n; ++j) acc += P(b, h, i, j) * bv.host[index(off_kv, b, h, j, x)];
                    bo.host[index(off_q, b, h, i, x)] = round_to(FE_DATA_BFLOAT16, static_cast<float>(acc));
                }
            }
    ASSERT_FE_OK(fe_buffer_upload_float(bo.buffer, bo.host.data(), bo.span(), bo.type));
    ASSERT_FE_OK(fe_buffer_upload_float(bs.buffer, bs.host.data(), bs.span(), bs.type));
    Bound &bdq = bind(dq, false), &bdk = bind(dk, false), &bdv = bind(dv, false);
    std::vector<Bound *> all = {&bq, &bk, &bv, &bo, &bdo, &bs, &boq, &bokv, &blq, &blkv, &bdq, &bdk, &bdv};
    if (bos) all.push_back(bos);
    execute(g, all);
    for (Bound *b : {&bdq, &bdk, &bdv}) download(*b);

    // Reference backward, packed like the outputs; compared over the actual tokens only.
    std::vector<double> ref_dq(bdq.host.size(), 0.0), ref_dk(bdk.host.size(), 0.0), ref_dv(bdv.host.size(), 0.0);
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < len_q[static_cast<size_t>(b)]; ++i) {
                double row_dot = 0;
                for (int64_t x = 0; x < D; ++x)
                    row_dot += static_cast<double>(bdo.host[index(off_q, b, h, i, x)]) * bo.host[index(off_q, b, h, i, x)];
                for (int64_t j = 0; j < len_kv[static_cast<size_t>(b)]; ++j) {
                    double dp = 0;
                    for (int64_t x = 0; x < D; ++x)
                        dp += static_cast<double>(bdo.host[index(off_q, b, h, i, x)]) * bv.host[index(off_kv, b, h, j, x)];
                    double ds = P(b, h, i, j) * (dp - row_dot) * scale;
                    for (int64_t x = 0; x < D; ++x) {
                        ref_dv[index(off_kv, b, h, j, x)] += P(b, h, i, j) * bdo.host[index(off_q, b, h, i, x)];
                        ref_dq[index(off_q, b, h, i, x)] += ds * bk.host[index(off_kv, b, h, j, x)];
                        ref_dk[index(off_kv, b, h, j, x)] += ds * bq.host[index(off_q, b, h, i, x)];
                    }
                }
            }
    auto check = [&](const char *what, const Bound &out, const std::vector<double> &ref, const std::vector<int64_t> &off) {
        double max_err = 0, diff2 = 0, ref2 = 0;
        int64_t bad = 0, count = 0;
        for (size_t e = 0; e < static_cast<size_t>(off[static_cast<size_t>(B)]); ++e) {
            double got = out.host[e], want = ref[e], err = std::fabs(got - want);
            ++count;
            if (!std::isfinite(got) || err > 2e-2 + 3e-2 * std::fabs(want)) ++bad;
            if (std::isfinite(got)) max_err = std::max(max_err, err), diff2 += err * err;
            ref2 += want * want;
        }
        std::printf("    %s: %lld packed elements, max abs err %.3g, relative norm %.3g\n", what,
                    static_cast<long long>(count), max_err, std::sqrt(diff2 / ref2));
        EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << count << " packed elements wrong";
        EXPECT_LE(std::sqrt(diff2 / ref2), 2e-2) << what;
    };
    check("dQ", bdq, ref_dq, off_q);
    check("dK", bdk, ref_dk, off_kv);
    check("dV", bdv, ref_dv, off_kv);
}

INSTANTIATE_TEST_SUITE_P(Gpu, RaggedBackward,
                         ::testing::Values(RaggedBackwardCase{false, 4}, RaggedBackwardCase{true, 4},
                                           RaggedBackwardCase{false, 1}, RaggedBackwardCase{true, 1}),
                         [](const ::testing::TestParamInfo<RaggedBackwardCase> &info) {
                             return std::string(info.param.h_k == 1 ? "grouped_" : "") +
                                    (info.param.packed_workspace ? "packed_stats_and_workspace" : "padded_workspace");
                         });

}  // namespace
