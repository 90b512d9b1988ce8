// Paged K/V caches (decoding): K and V live in shuffled fixed-size pages of a container; page
// tables say which pages hold each sequence. The result must equal attention over the gathered
// keys and values up to each sequence's length.
#include <algorithm>
#include <limits>
#include <numeric>

#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

class PagedKvCache : public Gpu, public ::testing::WithParamInterface<fe_sdpa_implementation> {};

TEST_P(PagedKvCache, AttentionMatchesGatheredReference) {
    const int64_t B = 2, H = 4, HK = 2, SQ = 4, D = 64, PAGE = 16, MAX_KV = 128, PAGES = MAX_KV / PAGE;
    const int64_t CONTAINER = B * PAGES;
    const double scale = 0.125;
    fe_graph *g = graph("paged", FE_DATA_BFLOAT16);
    fe_tensor *q = tensor(g, "q", {B, H, SQ, D}), *kc = tensor(g, "k_pages", {CONTAINER, HK, PAGE, D});
    fe_tensor *vc = tensor(g, "v_pages", {CONTAINER, HK, PAGE, D});
    fe_tensor *pt_k = tensor(g, "page_table_k", {B, 1, PAGES, 1}, false, FE_DATA_INT32);
    fe_tensor *pt_v = tensor(g, "page_table_v", {B, 1, PAGES, 1}, false, FE_DATA_INT32);
    fe_tensor *lq = tensor(g, "len_q", {B, 1, 1, 1}, false, FE_DATA_INT32);
    fe_tensor *lkv = tensor(g, "len_kv", {B, 1, 1, 1}, false, FE_DATA_INT32);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = scale;
    o.page_table_k = pt_k;
    o.page_table_v = pt_v;
    o.max_seq_len_kv = MAX_KV;
    o.seq_len_q = lq;
    o.seq_len_kv = lkv;
    o.implementation = GetParam();
    fe_tensor *out = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa(g, q, kc, vc, &o, &out, nullptr));
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
    build(g);
    fe_sdpa_implementation used;
    ASSERT_FE_OK(fe_graph_attention_implementation(g, nullptr, &used));
    std::printf("    paged plan %s (%s)\n", engine_tag_of(g),
                used == FE_SDPA_IMPLEMENTATION_NATIVE ? "native" : "composite");

    Bound &bq = bind(q, true), &bk = bind(kc, true), &bv = bind(vc, true), &bo = bind(out, false);
    // Pages handed out in a shuffled order; K and V use different tables.
    std::vector<int32_t> order_k(static_cast<size_t>(CONTAINER)), order_v(static_cast<size_t>(CONTAINER));
    std::iota(order_k.begin(), order_k.end(), 0);
    std::iota(order_v.begin(), order_v.end(), 0);
    std::shuffle(order_k.begin(), order_k.end(), rng_);
    std::shuffle(order_v.begin(), order_v.end(), rng_);
    std::vector<int32_t> len_q(B, static_cast<int32_t>(SQ)), len_kv(B);
    for (int64_t b = 0; b < B; ++b) len_kv[static_cast<size_t>(b)] = 1 + static_cast<int32_t>(rng_() % MAX_KV);
    Bound &bptk = bind(pt_k, false), &bptv = bind(pt_v, false), &blq = bind(lq, false), &blkv = bind(lkv, false);
    ASSERT_FE_OK(fe_buffer_upload(bptk.buffer, order_k.data(), 4 * CONTAINER));
    ASSERT_FE_OK(fe_buffer_upload(bptv.buffer, order_v.data(), 4 * CONTAINER));
    ASSERT_FE_OK(fe_buffer_upload(blq.buffer, len_q.data(), 4 * B));
    ASSERT_FE_OK(fe_buffer_upload(blkv.buffer, len_kv.data(), 4 * B));
    execute(g, {&bq, &bk, &bv, &bo, &bptk, &bptv, &blq, &blkv});
    download(bo);

    auto key = [&](int64_t b, int64_t h, int64_t j, int64_t x) {
        int64_t page = order_k[static_cast<size_t>(b * PAGES + j / PAGE)];
        return static_cast<double>(bk.at({page, h, j % PAGE, x}));
    };
    auto value = [&](int64_t b, int64_t h, int64_t j, int64_t x) {
        int64_t page = order_v[static_cast<size_t>(b * PAGES + j / PAGE)];
        return static_cast<double>(bv.at({page, h, j % PAGE, x}));
    };
    std::vector<double> ref(static_cast<size_t>(B * H * SQ * D));
    std::vector<double> p(static_cast<size_t>(MAX_KV));
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < SQ; ++i) {
                int64_t n = len_kv[static_cast<size_t>(b)], hk = h / (H / HK);
                double row_max = -std::numeric_limits<double>::infinity(), sum = 0;
                for (int64_t j = 0; j < n; ++j) {
                    double dot = 0;
                    for (int64_t x = 0; x < D; ++x) dot += static_cast<double>(bq.at({b, h, i, x})) * key(b, hk, j, x);
                    p[static_cast<size_t>(j)] = dot * scale;
                    row_max = std::max(row_max, p[static_cast<size_t>(j)]);
                }
                for (int64_t j = 0; j < n; ++j) sum += (p[static_cast<size_t>(j)] = std::exp(p[static_cast<size_t>(j)] - row_max));
                for (int64_t x = 0; x < D; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < n; ++j) acc += p[static_cast<size_t>(j)] * value(b, hk, j, x);
                    ref[static_cast<size_t>(((b * H + h) * SQ + i) * D + x)] = acc / sum;
                }
            }
    expect_close(bo, ref, 2e-2, 2e-2, 1e-2);
}

// FP8 attention reading the same kind of paged caches: the reference dequantizes with the
// descales, gathers each sequence's keys and values through its page tables, and quantizes P as
// the stored FP8 probabilities are (tolerances as in sdpa_fp8_test.cpp).
TEST_F(Gpu, Fp8AttentionWithPagedKvCachesMatchesGatheredReference) {
    const int64_t B = 2, H = 4, HK = 2, SQ = 4, D = 64, PAGE = 16, MAX_KV = 128, PAGES = MAX_KV / PAGE;
    const int64_t CONTAINER = B * PAGES;
    const double scale = 0.125, descale_q = 0.25, descale_k = 0.5, descale_v = 0.25, scale_s = 448.0, scale_o = 16.0;
    fe_graph *g = graph("fp8_paged", FE_DATA_FP8_E4M3);
    fe_tensor *q = tensor(g, "q", {B, H, SQ, D}), *kc = tensor(g, "k_pages", {CONTAINER, HK, PAGE, D});
    fe_tensor *vc = tensor(g, "v_pages", {CONTAINER, HK, PAGE, D});
    fe_tensor *pt_k = tensor(g, "page_table_k", {B, 1, PAGES, 1}, false, FE_DATA_INT32);
    fe_tensor *pt_v = tensor(g, "page_table_v", {B, 1, PAGES, 1}, false, FE_DATA_INT32);
    fe_tensor *lq = tensor(g, "len_q", {B, 1, 1, 1}, false, FE_DATA_INT32);
    fe_tensor *lkv = tensor(g, "len_kv", {B, 1, 1, 1}, false, FE_DATA_INT32);
    fe_sdpa_fp8_scales sc = FE_SDPA_FP8_SCALES_INIT;
    fe_tensor **fields[] = {&sc.descale_q, &sc.descale_k, &sc.descale_v, &sc.descale_s, &sc.scale_s, &sc.scale_o};
    const double values[] = {descale_q, descale_k, descale_v, 1.0 / scale_s, scale_s, scale_o};
    const char *names[] = {"descale_q", "descale_k", "descale_v", "descale_s", "scale_s", "scale_o"};
    for (int i = 0; i < 6; ++i) ASSERT_FE_OK(fe_graph_scalar(g, names[i], values[i], FE_DATA_FLOAT, fields[i]));
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = scale;
    o.page_table_k = pt_k;
    o.page_table_v = pt_v;
    o.max_seq_len_kv = MAX_KV;
    o.seq_len_q = lq;
    o.seq_len_kv = lkv;
    fe_tensor *out = nullptr, *amax_s = nullptr, *amax_o = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa_fp8(g, q, kc, vc, &sc, &o, &out, nullptr, &amax_s, &amax_o));
    for (fe_tensor *t : {out, amax_s, amax_o}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    build(g);
    std::printf("    fp8 paged plan %s\n", engine_tag_of(g));

    Bound &bq = bind(q, true, -4.f, 4.f), &bk = bind(kc, true, -4.f, 4.f), &bv = bind(vc, true, -4.f, 4.f);
    Bound &bo = bind(out, false), &bas = bind(amax_s, false), &bao = bind(amax_o, false);
    std::vector<int32_t> order_k(static_cast<size_t>(CONTAINER)), order_v(static_cast<size_t>(CONTAINER));
    std::iota(order_k.begin(), order_k.end(), 0);
    std::iota(order_v.begin(), order_v.end(), 0);
    std::shuffle(order_k.begin(), order_k.end(), rng_);
    std::shuffle(order_v.begin(), order_v.end(), rng_);
    std::vector<int32_t> len_q(B, static_cast<int32_t>(SQ)), len_kv(B);
    for (int64_t b = 0; b < B; ++b) len_kv[static_cast<size_t>(b)] = 1 + static_cast<int32_t>(rng_() % MAX_KV);
    Bound &bptk = bind(pt_k, false), &bptv = bind(pt_v, false), &blq = bind(lq, false), &blkv = bind(lkv, false);
    ASSERT_FE_OK(fe_buffer_upload(bptk.buffer, order_k.data(), 4 * CONTAINER));
    ASSERT_FE_OK(fe_buffer_upload(bptv.buffer, order_v.data(), 4 * CONTAINER));
    ASSERT_FE_OK(fe_buffer_upload(blq.buffer, len_q.data(), 4 * B));
    ASSERT_FE_OK(fe_buffer_upload(blkv.buffer, len_kv.data(), 4 * B));
    execute(g, {&bq, &bk, &bv, &bo, &bas, &bao, &bptk, &bptv, &blq, &blkv});
    download(bo);

    auto key = [&](int64_t b, int64_t h, int64_t j, int64_t x) {
        return static_cast<double>(bk.at({order_k[static_cast<size_t>(b * PAGES + j / PAGE)], h, j % PAGE, x}));
    };
    auto value = [&](int64_t b, int64_t h, int64_t j, int64_t x) {
        return static_cast<double>(bv.at({order_v[static_cast<size_t>(b * PAGES + j / PAGE)], h, j % PAGE, x}));
    };
    std::vector<double> ref(static_cast<size_t>(B * H * SQ * D)), p(static_cast<size_t>(MAX_KV));
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < SQ; ++i) {
                int64_t n = len_kv[static_cast<size_t>(b)], hk = h / (H / HK);
                double row_max = -std::numeric_limits<double>::infinity(), sum = 0;
                for (int64_t j = 0; j < n; ++j) {
                    double dot = 0;
                    for (int64_t x = 0; x < D; ++x) dot += static_cast<double>(bq.at({b, h, i, x})) * key(b, hk, j, x);
                    p[static_cast<size_t>(j)] = dot * scale * descale_q * descale_k;
                    row_max = std::max(row_max, p[static_cast<size_t>(j)]);
                }
                for (int64_t j = 0; j < n; ++j) sum += (p[static_cast<size_t>(j)] = std::exp(p[static_cast<size_t>(j)] - row_max));
                for (int64_t j = 0; j < n; ++j)  // stored P, in FP8
                    p[static_cast<size_t>(j)] =
                        round_to(FE_DATA_FP8_E4M3, static_cast<float>(p[static_cast<size_t>(j)] / sum * scale_s));
                for (int64_t x = 0; x < D; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < n; ++j) acc += p[static_cast<size_t>(j)] * value(b, hk, j, x);
                    ref[static_cast<size_t>(((b * H + h) * SQ + i) * D + x)] = acc / scale_s * descale_v * scale_o;
                }
            }
    expect_close(bo, ref, 1.25, 0.125, 0.06);
}

INSTANTIATE_TEST_SUITE_P(Gpu, PagedKvCache,
                         ::testing::Values(FE_SDPA_IMPLEMENTATION_AUTO, FE_SDPA_IMPLEMENTATION_COMPOSITE),
                         [](const ::testing::TestParamInfo<fe_sdpa_implementation> &info) {
                             return std::string(info.param == FE_SDPA_IMPLEMENTATION_AUTO ? "auto" : "composite");
                         });

}  // namespace
