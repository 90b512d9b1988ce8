/*
 * A pre-norm transformer block, as modern LLMs stack them (the API reference's pattern):
 *
 *   h   = x + Attention(RMSNorm(x))          causal self-attention, 4 heads of 64
 *   out = h + W2 gelu(W1 RMSNorm(h))         feed-forward, hidden 4 * D
 *
 * x [B*S, D] = [2*128, 256] in fp16, fp32 math. Seven graphs, each one cuDNN plan:
 *
 *   norm1   xn  = rmsnorm(x) * gamma1
 *   qkv     qkv = xn Wqkv                          [B*S, 3D]: Q, K and V side by side
 *   attn    o   = sdpa(Q, K, V), causal             Q, K, V read in place from qkv (BSHD views)
 *   proj    h   = o Wo + x                          matmul with the residual add fused
 *   norm2   hn  = rmsnorm(h) * gamma2
 *   up      a   = gelu(hn W1)
 *   down    out = a W2 + h
 *
 * On a GPU each stage is checked against a CPU reference computed in double from that stage's
 * actual inputs (the previous stage's fp16 results); without one each graph is built for the
 * H100 description.
 */
#include <math.h>

#include "example_util.h"

enum { B = 2, S = 128, D = 256, HEADS = 4, HEAD_DIM = 64, F = 4 * D, T = B * S };

static fe_tensor *matrix(fe_graph *graph, const char *name, int64_t rows, int64_t cols, fe_data_type type) {
    int64_t dims[2] = {rows, cols};
    fe_tensor *t;
    CHECK(fe_graph_tensor(graph, name, 2, dims, NULL, type, &t));
    return t;
}

/* The stages' graphs and their tensors (inputs first, the result last). */
struct Stage {
    const char *name;
    fe_graph *graph;
    fe_tensor *tensors[4];
    int count;
};

static void rmsnorm_stage(struct Stage *s, const char *name) {
    s->name = name;
    s->graph = example_fp16_graph(name);
    s->tensors[0] = matrix(s->graph, "x", T, D, FE_DATA_NOT_SET);
    s->tensors[1] = matrix(s->graph, "gamma", 1, D, FE_DATA_FLOAT);
    CHECK(fe_graph_rmsnorm(s->graph, s->tensors[0], s->tensors[1], NULL, NULL, &s->tensors[2], NULL));
    s->count = 3;
}

/* c = a b, then + residual when given, then gelu when asked. */
static void matmul_stage(struct Stage *s, const char *name, int64_t k, int64_t n, int residual, int gelu) {
    s->name = name;
    s->graph = example_fp16_graph(name);
    s->tensors[0] = matrix(s->graph, "a", T, k, FE_DATA_NOT_SET);
    s->tensors[1] = matrix(s->graph, "b", k, n, FE_DATA_NOT_SET);
    fe_tensor *c;
    CHECK(fe_graph_matmul(s->graph, s->tensors[0], s->tensors[1], NULL, &c));
    s->count = 2;
    if (residual) {
        s->tensors[s->count++] = matrix(s->graph, "residual", T, n, FE_DATA_NOT_SET);
        CHECK(fe_graph_add(s->graph, c, s->tensors[2], NULL, &c));
    }
    if (gelu) CHECK(fe_graph_gelu(s->graph, c, NULL, &c));
    s->tensors[s->count++] = c;
}

/* Q, K and V as [B, HEADS, S, HEAD_DIM] views of the [B*S, 3D] qkv rows (strides in elements);
 * the output laid out [B, S, HEADS, HEAD_DIM], i.e. [B*S, D] rows again. */
static void attention_stage(struct Stage *s) {
    s->name = "attn";
    s->graph = example_fp16_graph("attn");
    int64_t dims[4] = {B, HEADS, S, HEAD_DIM}, in_strides[4] = {S * 3 * D, HEAD_DIM, 3 * D, 1};
    int64_t out_strides[4] = {S * D, HEAD_DIM, D, 1};
    const char *names[3] = {"q", "k", "v"};
    for (int i = 0; i < 3; ++i)
        CHECK(fe_graph_tensor(s->graph, names[i], 4, dims, in_strides, FE_DATA_NOT_SET, &s->tensors[i]));
    fe_sdpa_options sdpa = FE_SDPA_OPTIONS_INIT;
    sdpa.attn_scale = 1.0 / sqrt((double)HEAD_DIM);
    sdpa.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    CHECK(fe_graph_sdpa(s->graph, s->tensors[0], s->tensors[1], s->tensors[2], &sdpa, &s->tensors[3], NULL));
    CHECK(fe_tensor_set_strides(s->tensors[3], 4, out_strides));
    s->count = 4;
}

/* ---- CPU references, in double, from the stage's actual inputs ---- */

static void rmsnorm_ref(const float *x, const float *gamma, double *y) {
    for (int64_t t = 0; t < T; ++t) {
        double squares = 0;
        for (int64_t c = 0; c < D; ++c) squares += (double)x[t * D + c] * x[t * D + c];
        double inv = 1.0 / sqrt(squares / D + 1e-5);
        for (int64_t c = 0; c < D; ++c) y[t * D + c] = x[t * D + c] * inv * gamma[c];
    }
}

static void matmul_ref(const float *a, const float *b, const float *residual, int gelu, int64_t k, int64_t n,
                       double *c) {
    for (int64_t t = 0; t < T; ++t)
        for (int64_t j = 0; j < n; ++j) {
            double acc = residual ? residual[t * n + j] : 0.0;
            for (int64_t i = 0; i < k; ++i) acc += (double)a[t * k + i] * b[i * n + j];
            c[t * n + j] = gelu ? 0.5 * acc * (1.0 + erf(acc / sqrt(2.0))) : acc;
        }
}

/* o in the logical order of the attention's output tensor [B, HEADS, S, HEAD_DIM]. */
static void attention_ref(const float *qkv, double *o) {
    double scores[S];
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < HEADS; ++h)
            for (int64_t i = 0; i < S; ++i) {
                const float *q = qkv + (b * S + i) * 3 * D + h * HEAD_DIM;
                double max = -INFINITY, sum = 0;
                for (int64_t j = 0; j <= i; ++j) { /* causal: keys up to the query */
                    const float *k = qkv + (b * S + j) * 3 * D + D + h * HEAD_DIM;
                    double dot = 0;
                    for (int64_t d = 0; d < HEAD_DIM; ++d) dot += (double)q[d] * k[d];
                    scores[j] = dot / sqrt((double)HEAD_DIM);
                    if (scores[j] > max) max = scores[j];
                }
                for (int64_t j = 0; j <= i; ++j) sum += (scores[j] = exp(scores[j] - max));
                for (int64_t d = 0; d < HEAD_DIM; ++d) {
                    double acc = 0;
                    for (int64_t j = 0; j <= i; ++j) acc += scores[j] / sum * qkv[(b * S + j) * 3 * D + 2 * D + h * HEAD_DIM + d];
                    o[((b * HEADS + h) * S + i) * HEAD_DIM + d] = acc; /* o's logical order */
                }
            }
}

/* Random weights scaled by 1/sqrt(fan_in), so activations stay of order 1 through the block. */
static fe_buffer *weights(fe_tensor *t, int64_t fan_in, float **host) {
    fe_buffer *buffer = example_input(t, host);
    int64_t n = example_count(t);
    for (int64_t i = 0; i < n; ++i) (*host)[i] /= (float)sqrt((double)fan_in);
    CHECK(fe_buffer_upload_float(buffer, *host, n, FE_DATA_HALF));
    CHECK(fe_buffer_download_float(buffer, *host, n, FE_DATA_HALF));
    return buffer;
}

static void *pointer(fe_buffer *buffer, int64_t element_offset) {
    void *p;
    CHECK(fe_buffer_device_pointer(buffer, &p));
    return (char *)p + element_offset * 2; /* fp16 elements */
}

static void run(struct Stage *s, fe_handle *handle, void **pointers) {
    CHECK(fe_graph_execute(s->graph, handle, s->tensors, pointers, (size_t)s->count, NULL));
}

static int check(struct Stage *s, fe_buffer *result, const double *want) {
    fe_tensor *t = s->tensors[s->count - 1];
    float *got = example_download(result, t);
    int rc = example_compare(s->name, t, got, want, 3e-2, 2e-2);
    free(got);
    return rc;
}

int main(int argc, char **argv) {
    enum { NORM1, QKV, ATTN, PROJ, NORM2, UP, DOWN, STAGES };
    struct Stage st[STAGES];
    rmsnorm_stage(&st[NORM1], "norm1");
    matmul_stage(&st[QKV], "qkv", D, 3 * D, 0, 0);
    attention_stage(&st[ATTN]);
    matmul_stage(&st[PROJ], "proj", D, D, 1, 0);
    rmsnorm_stage(&st[NORM2], "norm2");
    matmul_stage(&st[UP], "up", D, F, 0, 1);
    matmul_stage(&st[DOWN], "down", F, D, 1, 0);
    for (int i = 0; i < STAGES; ++i) CHECK(fe_tensor_set_output(st[i].tensors[st[i].count - 1], 1));

    fe_handle *handle = example_handle();
    if (!handle) {
        int rc = 0;
        for (int i = 0; i < STAGES && rc == 0; ++i) rc = example_check_deviceless(st[i].graph, argc, argv);
        for (int i = 0; i < STAGES; ++i) fe_graph_destroy(st[i].graph);
        return rc;
    }
    for (int i = 0; i < STAGES; ++i) {
        CHECK(fe_graph_build(st[i].graph, handle, NULL));
        printf("%-6s plan %s\n", st[i].name, example_engine_tag(st[i].graph));
    }

    /* Inputs and weights. */
    float *xh, *g1h, *g2h, *wqkvh, *woh, *w1h, *w2h;
    fe_buffer *x = example_input(st[NORM1].tensors[0], &xh);
    fe_buffer *gamma1 = example_input(st[NORM1].tensors[1], &g1h), *gamma2 = example_input(st[NORM2].tensors[1], &g2h);
    fe_buffer *wqkv = weights(st[QKV].tensors[1], D, &wqkvh), *wo = weights(st[PROJ].tensors[1], D, &woh);
    fe_buffer *w1 = weights(st[UP].tensors[1], D, &w1h), *w2 = weights(st[DOWN].tensors[1], F, &w2h);
    /* Each stage's result (poisoned until written). */
    fe_buffer *xn = example_output(st[NORM1].tensors[2]), *qkv = example_output(st[QKV].tensors[2]);
    fe_buffer *o = example_output(st[PROJ].tensors[0]), *h = example_output(st[PROJ].tensors[3]);
    fe_buffer *hn = example_output(st[NORM2].tensors[2]), *a = example_output(st[UP].tensors[2]);
    fe_buffer *out = example_output(st[DOWN].tensors[3]);

    void *p_norm1[3] = {pointer(x, 0), pointer(gamma1, 0), pointer(xn, 0)};
    void *p_qkv[3] = {pointer(xn, 0), pointer(wqkv, 0), pointer(qkv, 0)};
    void *p_attn[4] = {pointer(qkv, 0), pointer(qkv, D), pointer(qkv, 2 * D), pointer(o, 0)};
    void *p_proj[4] = {pointer(o, 0), pointer(wo, 0), pointer(x, 0), pointer(h, 0)};
    void *p_norm2[3] = {pointer(h, 0), pointer(gamma2, 0), pointer(hn, 0)};
    void *p_up[3] = {pointer(hn, 0), pointer(w1, 0), pointer(a, 0)};
    void *p_down[4] = {pointer(a, 0), pointer(w2, 0), pointer(h, 0), pointer(out, 0)};
    void **pointers[STAGES] = {p_norm1, p_qkv, p_attn, p_proj, p_norm2, p_up, p_down};
    for (int i = 0; i < STAGES; ++i) run(&st[i], handle, pointers[i]);
    CHECK(fe_handle_synchronize(handle));

    /* Each stage against the CPU, from what the GPU gave it. */
    float *xnh = example_download(xn, st[NORM1].tensors[2]), *qkvh = example_download(qkv, st[QKV].tensors[2]);
    float *oh = example_download(o, st[PROJ].tensors[0]), *hh = example_download(h, st[PROJ].tensors[3]);
    float *hnh = example_download(hn, st[NORM2].tensors[2]), *ah = example_download(a, st[UP].tensors[2]);
    double *want = malloc((size_t)T * F * sizeof(double));
    int rc = 0;
    rmsnorm_ref(xh, g1h, want);
    rc |= check(&st[NORM1], xn, want);
    matmul_ref(xnh, wqkvh, NULL, 0, D, 3 * D, want);
    rc |= check(&st[QKV], qkv, want);
    attention_ref(qkvh, want);
    rc |= check(&st[ATTN], o, want);
    matmul_ref(oh, woh, xh, 0, D, D, want);
    rc |= check(&st[PROJ], h, want);
    rmsnorm_ref(hh, g2h, want);
    rc |= check(&st[NORM2], hn, want);
    matmul_ref(hnh, w1h, NULL, 1, D, F, want);
    rc |= check(&st[UP], a, want);
    matmul_ref(ah, w2h, hh, 0, F, D, want);
    rc |= check(&st[DOWN], out, want);
    if (rc == 0) printf("verified on GPU: pre-norm block, %d graphs, every stage\n", STAGES);

    float *hosts[13] = {xh, g1h, g2h, wqkvh, woh, w1h, w2h, xnh, qkvh, oh, hh, hnh, ah};
    for (int i = 0; i < 13; ++i) free(hosts[i]);
    free(want);
    fe_buffer *buffers[14] = {x, gamma1, gamma2, wqkv, wo, w1, w2, xn, qkv, o, h, hn, a, out};
    for (int i = 0; i < 14; ++i) fe_buffer_destroy(buffers[i]);
    for (int i = 0; i < STAGES; ++i) fe_graph_destroy(st[i].graph);
    fe_handle_destroy(handle);
    return rc;
}
