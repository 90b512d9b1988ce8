/*
 * Attention over sequences of different lengths with one plan: a bucketed maximum and a padding
 * mask.
 *
 *   a batch of 4 sequences, each at most 128 tokens (the bucket), h=4, d=64, bf16, causal
 *
 * Serving sees a new mix of lengths at every step, and building a plan per mix costs tens of
 * milliseconds or more. Attention's execute-time shape overrides (dynamic shapes) need a newer
 * cuDNN than 9.19 (docs/capabilities.md); what works on every cuDNN 9 is to build once for a
 * bucket (the longest sequence the bucket takes) and pass each batch's actual lengths as data:
 * seq_len_q and seq_len_kv, int32 [b, 1, 1, 1], mask the keys past each sequence's end, and the
 * rows past it are left undefined. Here two batches with different lengths run on the same built
 * graph, each verified against a double-precision CPU reference over the valid rows. (The packed
 * alternative, ragged tensors with fe_tensor_set_ragged_offset, stores only the actual tokens.)
 */
#include <math.h>
#include <string.h>

#include "example_util.h"

enum { B = 4, BUCKET = 128, H = 4, D = 64 };

/* O over the first len rows of each sequence, causal within it, from logical [b, h, s, d]. */
static int verify(const char *what, fe_tensor *q, fe_tensor *k, fe_tensor *v, fe_tensor *o, const float *qh,
                  const float *kh, const float *vh, const float *oh, const int32_t *len, double scale) {
    double max_err = 0;
    int bad = 0;
    double p[BUCKET];
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < len[b]; ++i) {
                double row_max = -INFINITY, sum = 0;
                for (int64_t j = 0; j <= i; ++j) {
                    int64_t qi[4] = {b, h, i, 0}, kj[4] = {b, h, j, 0};
                    const float *qrow = qh + example_offset(q, qi), *krow = kh + example_offset(k, kj);
                    double dot = 0;
                    for (int64_t x = 0; x < D; ++x) dot += (double)qrow[x] * krow[x];
                    p[j] = dot * scale;
                    if (p[j] > row_max) row_max = p[j];
                }
                for (int64_t j = 0; j <= i; ++j) sum += (p[j] = exp(p[j] - row_max));
                for (int64_t x = 0; x < D; ++x) {
                    double want = 0;
                    for (int64_t j = 0; j <= i; ++j) {
                        int64_t vj[4] = {b, h, j, x};
                        want += p[j] * vh[example_offset(v, vj)];
                    }
                    want /= sum;
                    int64_t oi[4] = {b, h, i, x};
                    double got = oh[example_offset(o, oi)], err = fabs(got - want);
                    if (!(err <= 2e-2 + 2e-2 * fabs(want))) ++bad;
                    if (err > max_err || err != err) max_err = err;
                }
            }
    printf("%s: lengths %d %d %d %d, max abs err %.3g over the valid rows, %d outside tolerance\n", what, len[0], len[1],
           len[2], len[3], max_err, bad);
    return bad != 0;
}

int main(int argc, char **argv) {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = "sdpa_variable_length";
    options.io_data_type = FE_DATA_BFLOAT16;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));

    int64_t dims[4] = {B, H, BUCKET, D}, len_dims[4] = {B, 1, 1, 1};
    fe_tensor *q, *k, *v, *len_q, *len_kv, *o, *stats = NULL;
    CHECK(fe_graph_tensor(graph, "Q", 4, dims, NULL, FE_DATA_NOT_SET, &q));
    CHECK(fe_graph_tensor(graph, "K", 4, dims, NULL, FE_DATA_NOT_SET, &k));
    CHECK(fe_graph_tensor(graph, "V", 4, dims, NULL, FE_DATA_NOT_SET, &v));
    CHECK(fe_graph_tensor(graph, "seq_len_q", 4, len_dims, NULL, FE_DATA_INT32, &len_q));
    CHECK(fe_graph_tensor(graph, "seq_len_kv", 4, len_dims, NULL, FE_DATA_INT32, &len_kv));
    fe_sdpa_options sdpa = FE_SDPA_OPTIONS_INIT;
    sdpa.attn_scale = 1.0 / sqrt((double)D);
    sdpa.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    sdpa.seq_len_q = len_q;
    sdpa.seq_len_kv = len_kv;
    CHECK(fe_graph_sdpa(graph, q, k, v, &sdpa, &o, &stats));
    CHECK(fe_tensor_set_output(o, 1));

    fe_handle *handle = example_handle_or_build_deviceless(graph, argc, argv);
    CHECK(fe_graph_build(graph, handle, NULL));
    printf("one plan for the bucket of %d tokens: %s\n", BUCKET, example_engine_tag(graph));

    /* Two batches of other lengths, one built graph. */
    const int32_t lengths[2][B] = {{37, 128, 64, 101}, {5, 90, 128, 16}};
    int failed = 0;
    for (int batch = 0; batch < 2; ++batch) {
        float *qh, *kh, *vh;
        fe_buffer *qb = example_input(q, &qh), *kb = example_input(k, &kh), *vb = example_input(v, &vh);
        fe_buffer *lq, *lk, *ob = example_output(o);
        CHECK(fe_buffer_create_for_tensor(0, len_q, &lq));
        CHECK(fe_buffer_create_for_tensor(0, len_kv, &lk));
        CHECK(fe_buffer_upload(lq, lengths[batch], sizeof lengths[batch]));
        CHECK(fe_buffer_upload(lk, lengths[batch], sizeof lengths[batch]));
        fe_tensor *tensors[6] = {q, k, v, len_q, len_kv, o};
        fe_buffer *buffers[6] = {qb, kb, vb, lq, lk, ob};
        CHECK(fe_graph_execute_buffers(graph, handle, tensors, buffers, 6, NULL));
        CHECK(fe_handle_synchronize(handle));
        float *oh = example_download(ob, o);
        failed |= verify(batch ? "second batch" : "first batch", q, k, v, o, qh, kh, vh, oh, lengths[batch],
                         sdpa.attn_scale);
        example_free_all(qh, kh, vh, oh);
        example_destroy_buffers(qb, kb, vb, lq, lk, ob);
    }
    printf(failed ? "FAILED\n" : "verified\n");
    fe_graph_destroy(graph);
    fe_handle_destroy(handle);
    return failed;
}
