/*
 * An attention training step: forward with the softmax stats, then backward from a gradient
 * dO, feeding the forward's O and stats straight into the backward graph (same buffers).
 *
 *   b=2, h=4, s=256, d=64, bf16, causal
 *
 * Verified against a double-precision CPU reference of both passes.
 */
#include <math.h>
#include <string.h>

#include "example_util.h"

enum { B = 2, H = 4, S = 256, D = 64 };

static fe_tensor *bhsd(fe_graph *g, const char *name, int64_t last, fe_data_type type) {
    int64_t dims[4] = {B, H, S, last};
    fe_tensor *t;
    CHECK(fe_graph_tensor(g, name, 4, dims, NULL, type, &t));
    return t;
}

int main(int argc, char **argv) {
    const double scale = 1.0 / sqrt((double)D);
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.io_data_type = FE_DATA_BFLOAT16;
    options.name = "attention_forward";
    fe_graph *fwd, *bwd;
    CHECK(fe_graph_create(&options, &fwd));
    options.name = "attention_backward";
    CHECK(fe_graph_create(&options, &bwd));

    fe_tensor *q = bhsd(fwd, "Q", D, FE_DATA_NOT_SET), *k = bhsd(fwd, "K", D, FE_DATA_NOT_SET);
    fe_tensor *v = bhsd(fwd, "V", D, FE_DATA_NOT_SET), *o, *stats;
    fe_sdpa_options f = FE_SDPA_OPTIONS_INIT;
    f.attn_scale = scale;
    f.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    f.generate_stats = 1;
    CHECK(fe_graph_sdpa(fwd, q, k, v, &f, &o, &stats));
    CHECK(fe_tensor_set_output(o, 1));
    CHECK(fe_tensor_set_output(stats, 1));

    fe_tensor *bq = bhsd(bwd, "Q", D, FE_DATA_NOT_SET), *bk = bhsd(bwd, "K", D, FE_DATA_NOT_SET);
    fe_tensor *bv = bhsd(bwd, "V", D, FE_DATA_NOT_SET), *bo = bhsd(bwd, "O", D, FE_DATA_NOT_SET);
    fe_tensor *d_o = bhsd(bwd, "dO", D, FE_DATA_NOT_SET), *bstats = bhsd(bwd, "stats", 1, FE_DATA_FLOAT);
    fe_sdpa_backward_options b = FE_SDPA_BACKWARD_OPTIONS_INIT;
    b.attn_scale = scale;
    b.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    fe_tensor *dq, *dk, *dv;
    CHECK(fe_graph_sdpa_backward(bwd, bq, bk, bv, bo, d_o, bstats, &b, &dq, &dk, &dv));
    CHECK(fe_tensor_set_output(dq, 1));
    CHECK(fe_tensor_set_output(dk, 1));
    CHECK(fe_tensor_set_output(dv, 1));

    fe_handle *handle = example_handle();
    if (!handle) {
        int rc = example_build_deviceless(fwd, argc, argv);
        if (rc == 0) rc = example_build_deviceless(bwd, argc, argv);
        fe_graph_destroy(fwd);
        fe_graph_destroy(bwd);
        return rc;
    }
    CHECK(fe_graph_build(fwd, handle, NULL));
    CHECK(fe_graph_build(bwd, handle, NULL));
    printf("forward plan %s, backward plan %s\n", example_engine_tag(fwd), example_engine_tag(bwd));

    float *qh, *kh, *vh, *doh;
    fe_buffer *qb = example_input(q, &qh), *kb = example_input(k, &kh), *vb = example_input(v, &vh);
    fe_buffer *ob = example_output(o), *sb = example_output(stats), *dob = example_input(d_o, &doh);
    fe_buffer *dqb = example_output(dq), *dkb = example_output(dk), *dvb = example_output(dv);
    fe_tensor *ft[5] = {q, k, v, o, stats};
    fe_buffer *fb[5] = {qb, kb, vb, ob, sb};
    CHECK(fe_graph_execute_buffers(fwd, handle, ft, fb, 5, NULL));
    fe_tensor *bt[9] = {bq, bk, bv, bo, d_o, bstats, dq, dk, dv};
    fe_buffer *bb[9] = {qb, kb, vb, ob, dob, sb, dqb, dkb, dvb};
    CHECK(fe_graph_execute_buffers(bwd, handle, bt, bb, 9, NULL));
    CHECK(fe_handle_synchronize(handle));
    float *oh = example_download(ob, o), *dqh = example_download(dqb, dq);
    float *dkh = example_download(dkb, dk), *dvh = example_download(dvb, dv);

    /* Reference (packed [b, h, s, d]): P per (b, h), then O, dV, dP, dS, dQ, dK. */
    const size_t n = (size_t)(B * H * S * D);
    double *want_o = calloc(n, sizeof(double)), *want_dq = calloc(n, sizeof(double));
    double *want_dk = calloc(n, sizeof(double)), *want_dv = calloc(n, sizeof(double));
    double *p = malloc((size_t)(S * S) * sizeof(double));
    for (int64_t bh = 0; bh < B * H; ++bh) {
        const float *Q = qh + bh * S * D, *K = kh + bh * S * D, *V = vh + bh * S * D, *dO = doh + bh * S * D;
        for (int64_t i = 0; i < S; ++i) {
            double row_max = -INFINITY, sum = 0;
            for (int64_t j = 0; j < S; ++j) {
                double dot = 0;
                for (int64_t x = 0; x < D; ++x) dot += (double)Q[i * D + x] * K[j * D + x];
                p[i * S + j] = j <= i ? dot * scale : -INFINITY;
                if (p[i * S + j] > row_max) row_max = p[i * S + j];
            }
            for (int64_t j = 0; j < S; ++j) sum += (p[i * S + j] = exp(p[i * S + j] - row_max));
            for (int64_t j = 0; j < S; ++j) p[i * S + j] /= sum;
            for (int64_t x = 0; x < D; ++x) {
                double acc = 0;
                for (int64_t j = 0; j < S; ++j) acc += p[i * S + j] * V[j * D + x];
                want_o[(bh * S + i) * D + x] = acc;
            }
        }
        for (int64_t i = 0; i < S; ++i) {
            double row_dot = 0; /* rowsum(dO * O) */
            for (int64_t x = 0; x < D; ++x) row_dot += (double)dO[i * D + x] * want_o[(bh * S + i) * D + x];
            for (int64_t j = 0; j < S; ++j) {
                double dp = 0;
                for (int64_t x = 0; x < D; ++x) dp += (double)dO[i * D + x] * V[j * D + x];
                double ds = p[i * S + j] * (dp - row_dot) * scale;
                for (int64_t x = 0; x < D; ++x) {
                    want_dv[(bh * S + j) * D + x] += p[i * S + j] * dO[i * D + x];
                    want_dq[(bh * S + i) * D + x] += ds * K[j * D + x];
                    want_dk[(bh * S + j) * D + x] += ds * Q[i * D + x];
                }
            }
        }
    }
    int rc = example_compare("O", o, oh, want_o, 2e-2, 2e-2);
    rc |= example_compare("dQ", dq, dqh, want_dq, 3e-2, 3e-2);
    rc |= example_compare("dK", dk, dkh, want_dk, 3e-2, 3e-2);
    rc |= example_compare("dV", dv, dvh, want_dv, 3e-2, 3e-2);

    free(qh), free(kh), free(vh), free(doh), free(oh), free(dqh), free(dkh), free(dvh);
    free(want_o), free(want_dq), free(want_dk), free(want_dv), free(p);
    for (int i = 0; i < 5; ++i) fe_buffer_destroy(fb[i]);
    fe_buffer_destroy(dob); /* the backward's own buffers; the rest are the forward's */
    example_destroy_buffers(dqb, dkb, dvb);
    fe_graph_destroy(fwd);
    fe_graph_destroy(bwd);
    fe_handle_destroy(handle);
    return rc;
}
