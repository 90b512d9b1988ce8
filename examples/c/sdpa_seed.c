/*
 * The seed's attention: scaled dot-product (flash) attention, training forward.
 *
 *   b=2, s=1024, h=6, d=64, bf16, causal mask, softmax stats, Q/K/V laid out [b, s, h, d]
 *
 * O = softmax(Q.K^T / sqrt(d) + causal mask) V, and the stats (max + log-sum-exp per row) the
 * backward pass reads. Verified against a double-precision CPU reference on a GPU.
 */
#include <math.h>

#include "example_util.h"

int main(int argc, char **argv) {
    const int64_t B = 2, S = 1024, H = 6, D = 64;
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = "sdpa_seed";
    options.io_data_type = FE_DATA_BFLOAT16;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));

    /* Logical [b, h, s, d]; memory [b, s, h, d] (the seed's layout), expressed by the strides. */
    int64_t dims[4] = {B, H, S, D}, strides[4] = {S * H * D, D, H * D, 1};
    fe_tensor *q, *k, *v, *o, *stats;
    CHECK(fe_graph_tensor(graph, "Q", 4, dims, strides, FE_DATA_NOT_SET, &q));
    CHECK(fe_graph_tensor(graph, "K", 4, dims, strides, FE_DATA_NOT_SET, &k));
    CHECK(fe_graph_tensor(graph, "V", 4, dims, strides, FE_DATA_NOT_SET, &v));
    fe_sdpa_options sdpa = FE_SDPA_OPTIONS_INIT;
    sdpa.name = "attention";
    sdpa.attn_scale = 1.0 / sqrt((double)D);
    sdpa.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    sdpa.generate_stats = 1;
    CHECK(fe_graph_sdpa(graph, q, k, v, &sdpa, &o, &stats));
    CHECK(fe_tensor_set_output(o, 1));
    CHECK(fe_tensor_set_output(stats, 1));

    fe_handle *handle = example_handle_or_build_deviceless(graph, argc, argv);
    CHECK(fe_graph_build(graph, handle, NULL));
    fe_sdpa_implementation lowered;
    CHECK(fe_graph_attention_implementation(graph, "attention", &lowered));
    printf("plan %s (%s)\n", example_engine_tag(graph),
           lowered == FE_SDPA_IMPLEMENTATION_NATIVE ? "native SDPA operation" : "composite pattern");

    float *qh, *kh, *vh;
    fe_buffer *qb = example_input(q, &qh), *kb = example_input(k, &kh), *vb = example_input(v, &vh);
    fe_buffer *ob = example_output(o), *sb = example_output(stats);
    fe_tensor *tensors[5] = {q, k, v, o, stats};
    fe_buffer *buffers[5] = {qb, kb, vb, ob, sb};
    CHECK(fe_graph_execute_buffers(graph, handle, tensors, buffers, 5, NULL));
    CHECK(fe_handle_synchronize(handle));
    float *oh = example_download(ob, o), *sh = example_download(sb, stats);

    double *want_o = malloc((size_t)(B * H * S * D) * sizeof(double));
    double *want_stats = malloc((size_t)(B * H * S) * sizeof(double));
    double *p = malloc((size_t)S * sizeof(double));
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < S; ++i) {
                double row_max = -INFINITY, sum = 0;
                for (int64_t j = 0; j <= i; ++j) { /* causal: keys 0..i */
                    int64_t qi[4] = {b, h, i, 0}, kj[4] = {b, h, j, 0};
                    const float *qrow = qh + example_offset(q, qi), *krow = kh + example_offset(k, kj);
                    double dot = 0;
                    for (int64_t x = 0; x < D; ++x) dot += (double)qrow[x] * krow[x];
                    p[j] = dot * sdpa.attn_scale;
                    if (p[j] > row_max) row_max = p[j];
                }
                for (int64_t j = 0; j <= i; ++j) sum += (p[j] = exp(p[j] - row_max));
                want_stats[(b * H + h) * S + i] = row_max + log(sum);
                for (int64_t x = 0; x < D; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j <= i; ++j) {
                        int64_t vj[4] = {b, h, j, x};
                        acc += p[j] * vh[example_offset(v, vj)];
                    }
                    want_o[((b * H + h) * S + i) * D + x] = acc / sum;
                }
            }
    int rc = example_compare("O", o, oh, want_o, 2e-2, 2e-2);
    rc |= example_compare("stats", stats, sh, want_stats, 2e-2, 2e-3);

    free(qh), free(kh), free(vh), free(oh), free(sh), free(want_o), free(want_stats), free(p);
    for (int i = 0; i < 5; ++i) fe_buffer_destroy(buffers[i]);
    fe_graph_destroy(graph);
    fe_handle_destroy(handle);
    return rc;
}
