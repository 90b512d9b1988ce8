/*
 * sdpa_variants_bench: what attention sinks, soft-capping and a two-bound band cost beside
 * plain attention of the same shape, forward and backward, in one process.
 *
 *   sdpa_variants_bench b h_q h_k s d causal(0|1) bf16|fp16 [rounds] [iterations]
 *
 * Variants: plain; sink (a learned logit per head, with dSink in the backward); softcap (50,
 * as Gemma 2's attention logits); band (the causal mask with a 1024-key window, or without
 * causal a 1024-key window and 64 keys of look-ahead); softcap_chain (the same soft-capping
 * written as the caller's own score modifier, a pointwise chain, with its derivative chain in
 * the backward). Each round times every variant in turn
 * (`iterations` calls between CUDA events, after a warm-up), so the variants share the GPU's
 * state; the report gives per variant the median over rounds, its TFLOP/s (unmasked score
 * elements only: 4 * d flops each forward, 10 * d backward) and its ratio to plain. Inputs are
 * random; the backward reads the O and stats its own forward wrote. Prints one line of
 * key=value pairs per variant and direction.
 */
#define _POSIX_C_SOURCE 199309L
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_checks.h"

enum { kPlain, kSink, kSoftcap, kBand, kSoftcapChain, kVariants };
static const char *const kVariantNames[kVariants] = {"plain", "sink", "softcap", "band", "softcap_chain"};
enum { kMaxRounds = 64 };

typedef struct {
    int64_t b, h_q, h_k, s, d;
    int causal;
    fe_data_type type;
} Shape;

typedef struct {
    fe_graph *forward, *backward;
    fe_tensor *fwd_tensors[6], *bwd_tensors[11];
    fe_buffer *fwd_buffers[6], *bwd_buffers[11];
    size_t fwd_count, bwd_count;
    double unmasked;  /* score elements the masks keep, over the batch and heads */
} Variant;

static void fill_random(fe_buffer *buffer, fe_tensor *t, float lo, float hi) {
    int64_t bytes = 0;
    fe_data_type type;
    FE(fe_tensor_size_bytes(t, &bytes));
    FE(fe_tensor_get_data_type(t, &type));
    int64_t n = bytes / (int64_t)fe_data_type_size(type);
    float *host = malloc((size_t)n * sizeof *host);
    for (int64_t i = 0; i < n; ++i) host[i] = lo + (hi - lo) * (float)rand() / (float)RAND_MAX;
    FE(fe_buffer_upload_float(buffer, host, n, type));
    free(host);
}

static fe_tensor *input(fe_graph *g, const char *name, int64_t d0, int64_t d1, int64_t d2, int64_t d3,
                        fe_data_type type) {
    int64_t dims[4] = {d0, d1, d2, d3};
    fe_tensor *t;
    FE(fe_graph_tensor(g, name, 4, dims, NULL, type, &t));
    return t;
}

/* A float stand-in for the scores [b, h_q, s, s] (a score modifier's input). */
static fe_tensor *input_scores(fe_graph *g, const char *name, const Shape *sh) {
    return input(g, name, sh->b, sh->h_q, sh->s, sh->s, FE_DATA_FLOAT);
}

/* Score elements (i, j) a variant keeps, per batch and head. */
static double kept_scores(const Shape *sh, int variant) {
    double kept = 0;
    for (int64_t i = 0; i < sh->s; ++i) {
        int64_t lo = 0, hi = sh->s - 1;
        if (sh->causal) hi = i;
        if (variant == kBand) {
            if (!sh->causal) hi = i + 64 < sh->s - 1 ? i + 64 : sh->s - 1;
            lo = i - 1024 + 1 > 0 ? i - 1024 + 1 : 0;
        }
        kept += (double)(hi - lo + 1);
    }
    return kept * (double)(sh->b * sh->h_q);
}

static fe_tensor *pointwise(fe_graph *g, fe_pointwise_mode mode, fe_tensor *a, fe_tensor *b) {
    fe_tensor *y;
    FE(fe_graph_pointwise(g, mode, a, b, NULL, NULL, &y));
    return y;
}

/* Soft-capping at 50 as a score modifier: cap * tanh(s / cap) on a stand-in for the scores
 * (*before_tanh receives s / cap, which the derivative reads). */
static void softcap_chain(fe_graph *g, const Shape *sh, fe_tensor **input, fe_tensor **output, fe_tensor **cap,
                          fe_tensor **before_tanh) {
    *input = input_scores(g, "scores", sh);
    FE(fe_graph_scalar(g, "cap", 50.0, FE_DATA_FLOAT, cap));
    *before_tanh = pointwise(g, FE_POINTWISE_DIV, *input, *cap);
    *output = pointwise(g, FE_POINTWISE_MUL, pointwise(g, FE_POINTWISE_TANH_FWD, *before_tanh, NULL), *cap);
}

static void build_variant(fe_handle *handle, const Shape *sh, int variant, Variant *v) {
    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.io_data_type = sh->type;
    go.name = kVariantNames[variant];
    FE(fe_graph_create(&go, &v->forward));
    fe_graph *g = v->forward;
    fe_tensor *q = input(g, "q", sh->b, sh->h_q, sh->s, sh->d, FE_DATA_NOT_SET);
    fe_tensor *k = input(g, "k", sh->b, sh->h_k, sh->s, sh->d, FE_DATA_NOT_SET);
    fe_tensor *vv = input(g, "v", sh->b, sh->h_k, sh->s, sh->d, FE_DATA_NOT_SET);
    fe_tensor *sink = variant == kSink ? input(g, "sink", 1, sh->h_q, 1, 1, FE_DATA_FLOAT) : NULL;
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 1.0 / sqrt((double)sh->d);
    o.causal_mask = sh->causal ? FE_CAUSAL_MASK_TOP_LEFT : FE_CAUSAL_MASK_NONE;
    o.generate_stats = 1;
    o.sink_token = sink;
    if (variant == kSoftcap) o.softcap = 50.0;
    fe_tensor *cap, *before_tanh;
    if (variant == kSoftcapChain) softcap_chain(g, sh, &o.score_mod_input, &o.score_mod_output, &cap, &before_tanh);
    if (variant == kBand) {
        o.sliding_window = 1024;
        if (!sh->causal) o.right_bound = 64;
    }
    fe_tensor *out, *stats;
    FE(fe_graph_sdpa(g, q, k, vv, &o, &out, &stats));
    FE(fe_tensor_set_output(out, 1));
    FE(fe_tensor_set_output(stats, 1));
    FE(fe_graph_build(g, handle, NULL));
    fe_tensor *fwd[6] = {q, k, vv, out, stats, sink};
    v->fwd_count = sink ? 6 : 5;
    for (size_t i = 0; i < v->fwd_count; ++i) {
        v->fwd_tensors[i] = fwd[i];
        FE(fe_buffer_create_for_tensor(0, fwd[i], &v->fwd_buffers[i]));
        if (i < 3) fill_random(v->fwd_buffers[i], fwd[i], -1.f, 1.f);
        if (i == 5) fill_random(v->fwd_buffers[i], fwd[i], -2.f, 2.f);
    }

    go.name = "backward";
    FE(fe_graph_create(&go, &v->backward));
    fe_graph *bg = v->backward;
    fe_tensor *bq = input(bg, "q", sh->b, sh->h_q, sh->s, sh->d, FE_DATA_NOT_SET);
    fe_tensor *bk = input(bg, "k", sh->b, sh->h_k, sh->s, sh->d, FE_DATA_NOT_SET);
    fe_tensor *bv = input(bg, "v", sh->b, sh->h_k, sh->s, sh->d, FE_DATA_NOT_SET);
    fe_tensor *bo = input(bg, "o", sh->b, sh->h_q, sh->s, sh->d, FE_DATA_NOT_SET);
    fe_tensor *bdo = input(bg, "dO", sh->b, sh->h_q, sh->s, sh->d, FE_DATA_NOT_SET);
    fe_tensor *bs = input(bg, "stats", sh->b, sh->h_q, sh->s, 1, FE_DATA_FLOAT);
    fe_tensor *bsink = sink ? input(bg, "sink", 1, sh->h_q, 1, 1, FE_DATA_FLOAT) : NULL;
    fe_sdpa_backward_options bo_ = FE_SDPA_BACKWARD_OPTIONS_INIT;
    bo_.attn_scale = o.attn_scale;
    bo_.causal_mask = o.causal_mask;
    bo_.sliding_window = o.sliding_window;
    bo_.right_bound = o.right_bound;
    bo_.softcap = o.softcap;
    bo_.sink_token = bsink;
    bo_.output_dsink = bsink != NULL;
    if (variant == kSoftcapChain) {
        softcap_chain(bg, sh, &bo_.score_mod_input, &bo_.score_mod_output, &cap, &before_tanh);
        /* d(scores) = tanh'(s / cap) applied to d(capped) * cap, over cap */
        bo_.score_mod_grad_input = input_scores(bg, "d_scores", sh);
        fe_tensor *times_cap = pointwise(bg, FE_POINTWISE_MUL, bo_.score_mod_grad_input, cap);
        bo_.score_mod_grad_output =
            pointwise(bg, FE_POINTWISE_DIV, pointwise(bg, FE_POINTWISE_TANH_BWD, times_cap, before_tanh), cap);
    }
    fe_tensor *dq, *dk, *dv, *dsink = NULL;
    FE(fe_graph_sdpa_backward(bg, bq, bk, bv, bo, bdo, bs, &bo_, &dq, &dk, &dv));
    FE(fe_tensor_set_output(dq, 1));
    FE(fe_tensor_set_output(dk, 1));
    FE(fe_tensor_set_output(dv, 1));
    if (bsink) {
        FE(fe_graph_tensor_by_name(bg, "sdpa_backward_0::dSink", &dsink));
        FE(fe_tensor_set_output(dsink, 1));
    }
    FE(fe_graph_build(bg, handle, NULL));
    /* Q, K, V, O, the stats and the sink share the forward's buffers. */
    fe_tensor *bwd[11] = {bq, bk, bv, bo, bs, bdo, dq, dk, dv, bsink, dsink};
    fe_buffer *shared[5] = {v->fwd_buffers[0], v->fwd_buffers[1], v->fwd_buffers[2], v->fwd_buffers[3],
                            v->fwd_buffers[4]};
    v->bwd_count = bsink ? 11 : 9;
    for (size_t i = 0; i < v->bwd_count; ++i) {
        v->bwd_tensors[i] = bwd[i];
        if (i < 5) {
            v->bwd_buffers[i] = shared[i];
        } else if (i == 9) {
            v->bwd_buffers[i] = v->fwd_buffers[5];
        } else {
            FE(fe_buffer_create_for_tensor(0, bwd[i], &v->bwd_buffers[i]));
            if (i == 5) fill_random(v->bwd_buffers[i], bwd[i], -1.f, 1.f);
        }
    }
    v->unmasked = kept_scores(sh, variant);
}

/* Milliseconds per call over `iterations` calls between CUDA events. */
static double time_calls(fe_handle *handle, fe_graph *g, fe_tensor **tensors, fe_buffer **buffers, size_t count,
                         int iterations, cudaEvent_t start, cudaEvent_t stop) {
    FE(fe_graph_execute_buffers(g, handle, tensors, buffers, count, NULL));
    CU(cudaEventRecord(start, NULL));
    for (int i = 0; i < iterations; ++i) FE(fe_graph_execute_buffers(g, handle, tensors, buffers, count, NULL));
    CU(cudaEventRecord(stop, NULL));
    CU(cudaEventSynchronize(stop));
    float ms = 0;
    CU(cudaEventElapsedTime(&ms, start, stop));
    return (double)ms / iterations;
}

int main(int argc, char **argv) {
    if (argc < 8) {
        fprintf(stderr, "usage: sdpa_variants_bench b h_q h_k s d causal bf16|fp16 [rounds] [iterations]\n");
        return 2;
    }
    Shape sh = {atoll(argv[1]), atoll(argv[2]), atoll(argv[3]), atoll(argv[4]), atoll(argv[5]), atoi(argv[6]),
                strcmp(argv[7], "fp16") == 0 ? FE_DATA_HALF : FE_DATA_BFLOAT16};
    int rounds = argc > 8 ? atoi(argv[8]) : 5, iterations = argc > 9 ? atoi(argv[9]) : 20;
    if (rounds < 1 || rounds > kMaxRounds || iterations < 1) {
        fprintf(stderr, "rounds is 1 to %d and iterations at least 1\n", kMaxRounds);
        return 2;
    }
    srand(11);
    fe_handle *handle;
    FE(fe_handle_create(0, &handle));
    Variant variants[kVariants];
    memset(variants, 0, sizeof variants);
    for (int v = 0; v < kVariants; ++v) build_variant(handle, &sh, v, &variants[v]);
    cudaEvent_t start, stop;
    CU(cudaEventCreate(&start));
    CU(cudaEventCreate(&stop));
    double fwd[kVariants][kMaxRounds], bwd[kVariants][kMaxRounds];
    for (int r = 0; r < rounds; ++r)
        for (int v = 0; v < kVariants; ++v) {
            Variant *x = &variants[v];
            fwd[v][r] = time_calls(handle, x->forward, x->fwd_tensors, x->fwd_buffers, x->fwd_count, iterations, start, stop);
            bwd[v][r] = time_calls(handle, x->backward, x->bwd_tensors, x->bwd_buffers, x->bwd_count, iterations, start,
                                   stop);
        }
    double plain_fwd = median(fwd[kPlain], rounds), plain_bwd = median(bwd[kPlain], rounds);
    for (int v = 0; v < kVariants; ++v) {
        double f = v == kPlain ? plain_fwd : median(fwd[v], rounds), b = v == kPlain ? plain_bwd : median(bwd[v], rounds);
        const char *tag_f = NULL, *tag_b = NULL;
        FE(fe_graph_engine_tag(variants[v].forward, &tag_f));
        FE(fe_graph_engine_tag(variants[v].backward, &tag_b));
        printf("variant=%s b=%lld h_q=%lld h_k=%lld s=%lld d=%lld causal=%d fwd_ms=%.4f fwd_tflops=%.1f fwd_vs_plain=%.3f "
               "bwd_ms=%.4f bwd_tflops=%.1f bwd_vs_plain=%.3f fwd_engine=%s bwd_engine=%s rounds=%d\n",
               kVariantNames[v], (long long)sh.b, (long long)sh.h_q, (long long)sh.h_k, (long long)sh.s,
               (long long)sh.d, sh.causal, f, 4.0 * (double)sh.d * variants[v].unmasked / (f * 1e9),
               f / plain_fwd, b, 10.0 * (double)sh.d * variants[v].unmasked / (b * 1e9), b / plain_bwd, tag_f, tag_b,
               rounds);
    }
    return 0;
}
