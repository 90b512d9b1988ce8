// Dropout drawn by cuDNN: the forward outputs its mask, which must drop about p of the
// probabilities and explain O exactly; the backward with the same seed and offset must give
// the gradients of that same masked attention.
#include <limits>

#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

TEST_F(Gpu, PhiloxDropoutWithoutMaskOutputBuilds) {
    fe_graph *fwd = graph("dropout_plain", FE_DATA_BFLOAT16);
    fe_tensor *q = tensor(fwd, "q", {1, 2, 128, 64}), *k = tensor(fwd, "k", {1, 2, 128, 64}), *v = tensor(fwd, "v", {1, 2, 128, 64});
    fe_tensor *seed = tensor(fwd, "seed", {1, 1, 1, 1}, false, FE_DATA_INT64);
    fe_tensor *offset = tensor(fwd, "offset", {1, 1, 1, 1}, false, FE_DATA_INT64);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.generate_stats = 1;
    o.dropout_probability = 0.1;
    o.dropout_seed = seed;
    o.dropout_offset = offset;
    fe_tensor *out = nullptr, *stats = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa(fwd, q, k, v, &o, &out, &stats));
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
    ASSERT_FE_OK(fe_tensor_set_output(stats, 1));
    build(fwd);
}

TEST_F(Gpu, PhiloxDropoutForwardAndBackwardAgreeWithTheirMask) {
    const int64_t B = 2, H = 4, S = 128, D = 64;
    const double p_drop = 0.2, keep = 1.0 - p_drop, scale = 0.125;
    const fe_data_type type = FE_DATA_BFLOAT16;
    // Forward: O, stats and the drawn mask.
    fe_graph *fwd = graph("dropout_forward", type);
    fe_tensor *q = tensor(fwd, "q", {B, H, S, D}), *k = tensor(fwd, "k", {B, H, S, D}), *v = tensor(fwd, "v", {B, H, S, D});
    fe_tensor *seed = tensor(fwd, "seed", {1, 1, 1, 1}, false, FE_DATA_INT64);
    fe_tensor *offset = tensor(fwd, "offset", {1, 1, 1, 1}, false, FE_DATA_INT64);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = scale;
    o.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    o.generate_stats = 1;
    o.dropout_probability = p_drop;
    o.dropout_seed = seed;
    o.dropout_offset = offset;
    o.output_dropout_mask = 1;
    fe_tensor *out = nullptr, *stats = nullptr, *mask = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa(fwd, q, k, v, &o, &out, &stats));
    ASSERT_FE_OK(fe_graph_tensor_by_name(fwd, "sdpa_0::DropoutMask", &mask));
    for (fe_tensor *t : {out, stats, mask}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    build(fwd);
    Bound &bq = bind(q, true), &bk = bind(k, true), &bv = bind(v, true);
    Bound &bseed = bind(seed, false), &boffset = bind(offset, false);
    int64_t seed_value = static_cast<int64_t>(rng_()), offset_value = 7;
    ASSERT_FE_OK(fe_buffer_upload(bseed.buffer, &seed_value, 8));
    ASSERT_FE_OK(fe_buffer_upload(boffset.buffer, &offset_value, 8));
    Bound &bo = bind(out, false), &bs = bind(stats, false), &bm = bind(mask, false);
    execute(fwd, {&bq, &bk, &bv, &bseed, &boffset, &bo, &bs, &bm});
    download(bo);
    download(bs);
    download(bm);

    // The mask is 0/1 and drops about p of the elements. The dropped fraction spreads about 1.6
    // times the binomial sigma from seed to seed (21 seeds on an H200: 0.1972 to 0.2056), so the
    // bound is 8 sigma (p +- 0.009 here): a wrong probability, 0.1 or 0.3, is 90 sigma out.
    double kept = 0, total = static_cast<double>(B * H * S * S);
    for (float m : bm.host) {
        ASSERT_TRUE(m == 0.f || m == 1.f) << m;
        kept += m;
    }
    double sigma = std::sqrt(total * p_drop * keep);
    EXPECT_NEAR(total - kept, total * p_drop, 8 * sigma) << "dropped fraction " << (total - kept) / total;
    // How the drops spread: inside and above the causal diagonal, and how often two heads (and
    // two batches) drew the same mask element (p^2 + (1-p)^2 when independent).
    double dropped_below = 0, below = 0, same_heads = 0, same_batches = 0;
    for (int64_t i = 0; i < S; ++i)
        for (int64_t j = 0; j < S; ++j) {
            if (j <= i) below += B * H;
            for (int64_t b = 0; b < B; ++b)
                for (int64_t h = 0; h < H; ++h)
                    if (j <= i && bm.at({b, h, i, j}) == 0.f) ++dropped_below;
            same_heads += bm.at({0, 0, i, j}) == bm.at({0, 1, i, j});
            same_batches += bm.at({0, 0, i, j}) == bm.at({1, 0, i, j});
        }
    std::printf("    dropped %.4f (at or below the diagonal %.4f); same element in two heads %.4f, two batches %.4f\n",
                (total - kept) / total, dropped_below / below, same_heads / (S * S), same_batches / (S * S));

    // Reference forward with that mask.
    std::vector<double> probs(static_cast<size_t>(B * H * S * S));
    auto P = [&](int64_t b, int64_t h, int64_t i, int64_t j) -> double & {
        return probs[static_cast<size_t>(((b * H + h) * S + i) * S + j)];
    };
    std::vector<double> ref_o(static_cast<size_t>(B * H * S * D));
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < S; ++i) {
                double row_max = -std::numeric_limits<double>::infinity();
                for (int64_t j = 0; j < S; ++j) {
                    double dot = 0;
                    for (int64_t x = 0; x < D; ++x) dot += static_cast<double>(bq.at({b, h, i, x})) * bk.at({b, h, j, x});
                    P(b, h, i, j) = j <= i ? dot * scale : -std::numeric_limits<double>::infinity();
                    row_max = std::max(row_max, P(b, h, i, j));
                }
                double sum = 0;
                for (int64_t j = 0; j < S; ++j) sum += (P(b, h, i, j) = std::exp(P(b, h, i, j) - row_max));
                for (int64_t j = 0; j < S; ++j) P(b, h, i, j) /= sum;
                for (int64_t x = 0; x < D; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < S; ++j) acc += P(b, h, i, j) * bm.at({b, h, i, j}) / keep * bv.at({b, h, j, x});
                    ref_o[static_cast<size_t>(((b * H + h) * S + i) * D + x)] = acc;
                }
            }
    expect_close(bo, ref_o, 2e-2, 2e-2, 1e-2);

    // Backward with the same seed and offset.
    fe_graph *bwd = graph("dropout_backward", type);
    fe_tensor *q2 = tensor(bwd, "q", {B, H, S, D}), *k2 = tensor(bwd, "k", {B, H, S, D}), *v2 = tensor(bwd, "v", {B, H, S, D});
    fe_tensor *o2 = tensor(bwd, "o", {B, H, S, D}), *do2 = tensor(bwd, "dO", {B, H, S, D});
    fe_tensor *s2 = tensor(bwd, "stats", {B, H, S, 1}, false, FE_DATA_FLOAT);
    fe_tensor *seed2 = tensor(bwd, "seed", {1, 1, 1, 1}, false, FE_DATA_INT64);
    fe_tensor *offset2 = tensor(bwd, "offset", {1, 1, 1, 1}, false, FE_DATA_INT64);
    fe_sdpa_backward_options bo_opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
    bo_opts.attn_scale = scale;
    bo_opts.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    bo_opts.dropout_probability = p_drop;
    bo_opts.dropout_seed = seed2;
    bo_opts.dropout_offset = offset2;
    fe_tensor *dq, *dk, *dv;
    ASSERT_FE_OK(fe_graph_sdpa_backward(bwd, q2, k2, v2, o2, do2, s2, &bo_opts, &dq, &dk, &dv));
    for (fe_tensor *t : {dq, dk, dv}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    build(bwd);
    Bound &bdo = bind(do2, true), &bdq = bind(dq, false), &bdk = bind(dk, false), &bdv = bind(dv, false);
    fe_tensor *t[] = {q2, k2, v2, o2, do2, s2, seed2, offset2, dq, dk, dv};
    fe_buffer *buffers[] = {bq.buffer, bk.buffer, bv.buffer, bo.buffer, bdo.buffer, bs.buffer, bseed.buffer,
                            boffset.buffer, bdq.buffer, bdk.buffer, bdv.buffer};
    ASSERT_FE_OK(fe_graph_execute_buffers(bwd, handle_, t, buffers, 11, nullptr));
    ASSERT_FE_OK(fe_handle_synchronize(handle_));
    download(bdq);
    download(bdk);
    download(bdv);
    std::vector<double> ref_dq(static_cast<size_t>(B * H * S * D), 0.0), ref_dk(ref_dq.size(), 0.0), ref_dv(ref_dq.size(), 0.0);
    std::vector<double> ds(static_cast<size_t>(S));
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < S; ++i) {
                double row_dot = 0;
                for (int64_t x = 0; x < D; ++x) row_dot += static_cast<double>(bdo.at({b, h, i, x})) * bo.at({b, h, i, x});
                for (int64_t j = 0; j < S; ++j) {
                    double m = bm.at({b, h, i, j}) / keep, dp = 0;
                    for (int64_t x = 0; x < D; ++x) dp += static_cast<double>(bdo.at({b, h, i, x})) * bv.at({b, h, j, x});
                    ds[static_cast<size_t>(j)] = P(b, h, i, j) * (dp * m - row_dot) * scale;
                    for (int64_t x = 0; x < D; ++x)
                        ref_dv[static_cast<size_t>(((b * H + h) * S + j) * D + x)] += P(b, h, i, j) * m * bdo.at({b, h, i, x});
                }
                for (int64_t x = 0; x < D; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < S; ++j) acc += ds[static_cast<size_t>(j)] * bk.at({b, h, j, x});
                    ref_dq[static_cast<size_t>(((b * H + h) * S + i) * D + x)] = acc;
                }
                for (int64_t j = 0; j < S; ++j)
                    for (int64_t x = 0; x < D; ++x)
                        ref_dk[static_cast<size_t>(((b * H + h) * S + j) * D + x)] += ds[static_cast<size_t>(j)] * bq.at({b, h, i, x});
            }
    expect_close(bdq, ref_dq, 2e-2, 3e-2, 2e-2);
    expect_close(bdk, ref_dk, 2e-2, 3e-2, 2e-2);
    expect_close(bdv, ref_dv, 2e-2, 3e-2, 2e-2);
}

}  // namespace
