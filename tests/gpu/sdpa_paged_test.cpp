// Paged K/V caches (decoding): K and V live in shuffled fixed-size pages of a container; page
// tables say which pages hold each sequence. The result must equal attention over the gathered
// keys and values up to each sequence's length.
#include <algorithm>
#include <limits>
#include <numeric>

#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

constexpr int64_t B = 2, H = 4, HK = 2, SQ = 4, D = 64, PAGE = 16, MAX_KV = 128, PAGES = MAX_KV / PAGE;
constexpr int64_t CONTAINER = B * PAGES;

// The paged caches' side of a graph: the page tables and lengths as inputs, filled with pages
// handed out in a shuffled order (K and V with different tables) and random key lengths.
class PagedAttention : public Gpu {
  protected:
    struct Pages {
        fe_tensor *table_k, *table_v, *len_q, *len_kv;
        std::vector<int32_t> order_k, order_v, lengths_q, lengths_kv;
    };
    Pages declare(fe_graph *g, fe_sdpa_options &o) {
        Pages p;
        p.table_k = tensor(g, "page_table_k", {B, 1, PAGES, 1}, false, FE_DATA_INT32);
        p.table_v = tensor(g, "page_table_v", {B, 1, PAGES, 1}, false, FE_DATA_INT32);
        p.len_q = tensor(g, "len_q", {B, 1, 1, 1}, false, FE_DATA_INT32);
        p.len_kv = tensor(g, "len_kv", {B, 1, 1, 1}, false, FE_DATA_INT32);
        o.page_table_k = p.table_k;
        o.page_table_v = p.table_v;
        o.max_seq_len_kv = MAX_KV;
        o.seq_len_q = p.len_q;
        o.seq_len_kv = p.len_kv;
        return p;
    }
    // Draws and uploads the tables and lengths; appends their buffers to `all`.
    void fill(Pages &p, std::vector<Bound *> &all) {
        p.order_k.resize(static_cast<size_t>(CONTAINER));
        p.order_v.resize(static_cast<size_t>(CONTAINER));
        std::iota(p.order_k.begin(), p.order_k.end(), 0);
        std::iota(p.order_v.begin(), p.order_v.end(), 0);
        std::shuffle(p.order_k.begin(), p.order_k.end(), rng_);
        std::shuffle(p.order_v.begin(), p.order_v.end(), rng_);
        p.lengths_q.assign(B, static_cast<int32_t>(SQ));
        p.lengths_kv.resize(B);
        for (int32_t &n : p.lengths_kv) n = 1 + static_cast<int32_t>(rng_() % MAX_KV);
        const std::pair<fe_tensor *, const std::vector<int32_t> *> uploads[] = {
            {p.table_k, &p.order_k}, {p.table_v, &p.order_v}, {p.len_q, &p.lengths_q}, {p.len_kv, &p.lengths_kv}};
        for (const auto &u : uploads) {
            Bound &b = bind(u.first, false);
            EXPECT_FE_OK(fe_buffer_upload(b.buffer, u.second->data(), static_cast<int64_t>(4 * u.second->size())));
            all.push_back(&b);
        }
    }
    // Key or value x of position j of batch b, head h, read through its page table.
    static double at(const Bound &container, const std::vector<int32_t> &order, int64_t b, int64_t h, int64_t j,
                     int64_t x) {
        return container.at({order[static_cast<size_t>(b * PAGES + j / PAGE)], h, j % PAGE, x});
    }
};

class PagedKvCache : public PagedAttention, public ::testing::WithParamInterface<fe_sdpa_implementation> {};

TEST_P(PagedKvCache, AttentionMatchesGatheredReference) {
    const double scale = 0.125;
    fe_graph *g = graph("paged", FE_DATA_BFLOAT16);
    fe_tensor *q = tensor(g, "q", {B, H, SQ, D}), *kc = tensor(g, "k_pages", {CONTAINER, HK, PAGE, D});
    fe_tensor *vc = tensor(g, "v_pages", {CONTAINER, HK, PAGE, D});
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = scale;
    Pages pages = declare(g, o);
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
    std::vector<Bound *> all = {&bq, &bk, &bv, &bo};
    fill(pages, all);
    execute(g, all);
    download(bo);

    auto key = [&](int64_t b, int64_t h, int64_t j, int64_t x) { return at(bk, pages.order_k, b, h, j, x); };
    auto value = [&](int64_t b, int64_t h, int64_t j, int64_t x) { return at(bv, pages.order_v, b, h, j, x); };
    const std::vector<int32_t> &len_kv = pages.lengths_kv;
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
TEST_F(PagedAttention, Fp8AttentionMatchesGatheredReference) {
    const double scale = 0.125, descale_q = 0.25, descale_k = 0.5, descale_v = 0.25, scale_s = 448.0, scale_o = 16.0;
    fe_graph *g = graph("fp8_paged", FE_DATA_FP8_E4M3);
    fe_tensor *q = tensor(g, "q", {B, H, SQ, D}), *kc = tensor(g, "k_pages", {CONTAINER, HK, PAGE, D});
    fe_tensor *vc = tensor(g, "v_pages", {CONTAINER, HK, PAGE, D});
    fe_sdpa_fp8_scales sc = FE_SDPA_FP8_SCALES_INIT;
    fe_tensor **fields[] = {&sc.descale_q, &sc.descale_k, &sc.descale_v, &sc.descale_s, &sc.scale_s, &sc.scale_o};
    const double values[] = {descale_q, descale_k, descale_v, 1.0 / scale_s, scale_s, scale_o};
    const char *names[] = {"descale_q", "descale_k", "descale_v", "descale_s", "scale_s", "scale_o"};
    for (int i = 0; i < 6; ++i) ASSERT_FE_OK(fe_graph_scalar(g, names[i], values[i], FE_DATA_FLOAT, fields[i]));
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = scale;
    Pages pages = declare(g, o);
    fe_tensor *out = nullptr, *amax_s = nullptr, *amax_o = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa_fp8(g, q, kc, vc, &sc, &o, &out, nullptr, &amax_s, &amax_o));
    for (fe_tensor *t : {out, amax_s, amax_o}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    build(g);
    std::printf("    fp8 paged plan %s\n", engine_tag_of(g));

    Bound &bq = bind(q, true, -4.f, 4.f), &bk = bind(kc, true, -4.f, 4.f), &bv = bind(vc, true, -4.f, 4.f);
    Bound &bo = bind(out, false), &bas = bind(amax_s, false), &bao = bind(amax_o, false);
    std::vector<Bound *> all = {&bq, &bk, &bv, &bo, &bas, &bao};
    fill(pages, all);
    execute(g, all);
    download(bo);

    auto key = [&](int64_t b, int64_t h, int64_t j, int64_t x) { return at(bk, pages.order_k, b, h, j, x); };
    auto value = [&](int64_t b, int64_t h, int64_t j, int64_t x) { return at(bv, pages.order_v, b, h, j, x); };
    const std::vector<int32_t> &len_kv = pages.lengths_kv;
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
