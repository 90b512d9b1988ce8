/*
 * One decode step of an LLM with a paged KV cache and grouped-query attention.
 *
 *   batch 4, 32 query heads sharing 4 K/V heads (8:1), head dim 128, one new query token per
 *   sequence; each sequence's keys and values live in 64-token pages of one shared container,
 *   in any order, found through per-sequence page tables; the sequences have different lengths.
 *
 * Verified against a CPU reference that gathers each sequence's pages.
 */
#include <math.h>

#include "example_util.h"

enum { B = 4, HQ = 32, HK = 4, D = 128, PAGE = 64, MAX_KV = 1024, PAGES_PER_SEQ = MAX_KV / PAGE, PAGES = B * PAGES_PER_SEQ };

static fe_tensor *int32_input(fe_graph *graph, const char *name, int64_t d0, int64_t d2) {
    int64_t dims[4] = {d0, 1, d2, 1};
    fe_tensor *t;
    CHECK(fe_graph_tensor(graph, name, 4, dims, NULL, FE_DATA_INT32, &t));
    return t;
}

static fe_buffer *int32_buffer(fe_tensor *t, const int32_t *values, int64_t count) {
    fe_buffer *b;
    CHECK(fe_buffer_create_for_tensor(0, t, &b));
    CHECK(fe_buffer_upload(b, values, count * 4));
    return b;
}

int main(int argc, char **argv) {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = "decode_step";
    options.io_data_type = FE_DATA_BFLOAT16;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));
    int64_t q_dims[4] = {B, HQ, 1, D}, cache_dims[4] = {PAGES, HK, PAGE, D};
    fe_tensor *q, *k_cache, *v_cache, *o;
    CHECK(fe_graph_tensor(graph, "Q", 4, q_dims, NULL, FE_DATA_NOT_SET, &q));
    CHECK(fe_graph_tensor(graph, "K_cache", 4, cache_dims, NULL, FE_DATA_NOT_SET, &k_cache));
    CHECK(fe_graph_tensor(graph, "V_cache", 4, cache_dims, NULL, FE_DATA_NOT_SET, &v_cache));
    fe_tensor *table_k = int32_input(graph, "page_table_k", B, PAGES_PER_SEQ);
    fe_tensor *table_v = int32_input(graph, "page_table_v", B, PAGES_PER_SEQ);
    fe_tensor *len_q = int32_input(graph, "seq_len_q", B, 1), *len_kv = int32_input(graph, "seq_len_kv", B, 1);
    fe_sdpa_options sdpa = FE_SDPA_OPTIONS_INIT;
    sdpa.name = "decode_attention";
    sdpa.attn_scale = 1.0 / sqrt((double)D);
    sdpa.page_table_k = table_k;
    sdpa.page_table_v = table_v;
    sdpa.max_seq_len_kv = MAX_KV;
    sdpa.seq_len_q = len_q;
    sdpa.seq_len_kv = len_kv;
    CHECK(fe_graph_sdpa(graph, q, k_cache, v_cache, &sdpa, &o, NULL));
    CHECK(fe_tensor_set_output(o, 1));

    fe_handle *handle = example_handle_or_build_deviceless(graph, argc, argv);
    CHECK(fe_graph_build(graph, handle, NULL));
    fe_sdpa_implementation lowered;
    CHECK(fe_graph_attention_implementation(graph, NULL, &lowered));
    printf("plan %s (%s)\n", example_engine_tag(graph),
           lowered == FE_SDPA_IMPLEMENTATION_NATIVE ? "native SDPA operation" : "composite pattern");

    /* Pages handed out shuffled (a fixed permutation), K and V through different tables. */
    int32_t pages_k[PAGES], pages_v[PAGES], ones[B], lengths[B];
    for (int32_t i = 0; i < PAGES; ++i) {
        pages_k[i] = (i * 37 + 11) % PAGES;
        pages_v[i] = (i * 53 + 5) % PAGES;
    }
    for (int b = 0; b < B; ++b) {
        ones[b] = 1;
        lengths[b] = 1 + rand() % MAX_KV;
    }
    float *qh, *kh, *vh;
    fe_buffer *qb = example_input(q, &qh), *kb = example_input(k_cache, &kh), *vb = example_input(v_cache, &vh);
    fe_buffer *ob = example_output(o);
    fe_buffer *tkb = int32_buffer(table_k, pages_k, PAGES), *tvb = int32_buffer(table_v, pages_v, PAGES);
    fe_buffer *lqb = int32_buffer(len_q, ones, B), *lkb = int32_buffer(len_kv, lengths, B);
    fe_tensor *tensors[8] = {q, k_cache, v_cache, table_k, table_v, len_q, len_kv, o};
    fe_buffer *buffers[8] = {qb, kb, vb, tkb, tvb, lqb, lkb, ob};
    CHECK(fe_graph_execute_buffers(graph, handle, tensors, buffers, 8, NULL));
    CHECK(fe_handle_synchronize(handle));
    float *oh = example_download(ob, o);

    double *want = malloc((size_t)(B * HQ * D) * sizeof(double)), p[MAX_KV];
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < HQ; ++h) {
            int64_t hk = h / (HQ / HK), n = lengths[b];
            double row_max = -INFINITY, sum = 0;
            for (int64_t j = 0; j < n; ++j) {
                int64_t qi[4] = {b, h, 0, 0}, kj[4] = {pages_k[b * PAGES_PER_SEQ + j / PAGE], hk, j % PAGE, 0};
                double dot = 0;
                for (int64_t x = 0; x < D; ++x) dot += (double)qh[example_offset(q, qi) + x] * kh[example_offset(k_cache, kj) + x];
                p[j] = dot * sdpa.attn_scale;
                if (p[j] > row_max) row_max = p[j];
            }
            for (int64_t j = 0; j < n; ++j) sum += (p[j] = exp(p[j] - row_max));
            for (int64_t x = 0; x < D; ++x) {
                double acc = 0;
                for (int64_t j = 0; j < n; ++j) {
                    int64_t vj[4] = {pages_v[b * PAGES_PER_SEQ + j / PAGE], hk, j % PAGE, x};
                    acc += p[j] * vh[example_offset(v_cache, vj)];
                }
                want[(b * HQ + h) * D + x] = acc / sum;
            }
        }
    int rc = example_compare("O (decode step)", o, oh, want, 2e-2, 2e-2);
    free(qh), free(kh), free(vh), free(oh), free(want);
    for (int i = 0; i < 8; ++i) fe_buffer_destroy(buffers[i]);
    fe_graph_destroy(graph);
    fe_handle_destroy(handle);
    return rc;
}
