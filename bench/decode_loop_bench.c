/*
 * decode_loop_bench: the host's cost of one LLM decode step, three ways.
 *
 * A step runs 32 layers; each layer is attention of one new token over a paged K/V cache
 * (batch 8, 32 query heads sharing 8 K/V heads, head dim 128, 64-token pages, up to 2048 tokens,
 * bf16) followed by two matmuls [8 x 4096] x [4096 x 4096]. Every layer has its own weights and
 * activations (random data) and reads one shared K/V cache; the layers are chained through their
 * activations: 96 executions of two built graphs per step.
 *
 *   execute   fe_graph_execute for each of the 96, every step;
 *   capture   the 96 executes captured once on the handle's stream (after fe_graph_warmup),
 *             then one cudaGraphLaunch per step;
 *   populate  each execution added by fe_graph_populate_cuda_graph as a child graph of one
 *             CUDA graph, then one cudaGraphLaunch per step; the matmul is built for this way
 *             from the engines that populate CUDA graphs themselves (require_behavior_notes), so
 *             its plan may differ (skipped, with the reason, when none does).
 *
 * Per way: host time per step (issuing one step with the stream held back, stream_hold.h, so that
 * the calls only queue their work: median over rounds) and step time (20 steps issued back to
 * back and waited for, per step: median over rounds), the ways interleaved round by round; and
 * how far each way's final activations are from a first plain step's (a second plain step
 * included).
 *
 *   decode_loop_bench [ROUNDS]
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include "bench_checks.h"
#include "stream_hold.h"

enum { LAYERS = 32, B = 8, HQ = 32, HK = 8, D = 128, HIDDEN = HQ * D, PAGE = 64, MAX_KV = 2048,
       PAGES_PER_SEQ = MAX_KV / PAGE, PAGES = B * PAGES_PER_SEQ, STEPS = 20, CALLS = 3 * LAYERS };

/* A device buffer of random bf16 values in [-scale, scale) (the high halves of floats). Buffers
   of one size get the same random values: drawing 2 GB of them on the host would take longer
   than the benchmark. */
static void *device_random_scaled(size_t bytes, float scale) {
    static unsigned short *host = NULL;
    static size_t host_bytes = 0;
    static float host_scale = 0;
    if (bytes > host_bytes || scale != host_scale) {
        free(host);
        host = malloc(bytes);
        for (size_t i = 0; i < bytes / 2; ++i) {
            float f = ((float)rand() / (float)RAND_MAX * 2.f - 1.f) * scale;
            unsigned int u;
            memcpy(&u, &f, 4);
            host[i] = (unsigned short)(u >> 16);
        }
        host_bytes = bytes;
        host_scale = scale;
    }
    void *p;
    CU(cudaMalloc(&p, bytes));
    CU(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice));
    return p;
}

static void *device_random(size_t bytes) { return device_random_scaled(bytes, 1.f); }

static float bf16_value(unsigned short v) {
    unsigned int u = (unsigned int)v << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* max |a - b| / max |b| over n bf16 values (1 when a value is not finite). */
static double relative_difference(const unsigned short *a, const unsigned short *b, size_t n) {
    double largest = 0, diff = 0;
    for (size_t i = 0; i < n; ++i) {
        double x = bf16_value(a[i]), y = bf16_value(b[i]);
        if (x != x || y != y) return 1;
        if (fabs(y) > largest) largest = fabs(y);
        if (fabs(x - y) > diff) diff = fabs(x - y);
    }
    return largest > 0 ? diff / largest : diff;
}

static void *device_int32(const int *values, int n) {
    void *p;
    CU(cudaMalloc(&p, (size_t)n * 4));
    CU(cudaMemcpy(p, values, (size_t)n * 4, cudaMemcpyHostToDevice));
    return p;
}

static fe_tensor *tensor4(fe_graph *g, const char *name, int64_t a, int64_t b, int64_t c, int64_t d, fe_data_type t) {
    int64_t dims[4] = {a, b, c, d};
    fe_tensor *out;
    FE(fe_graph_tensor(g, name, 4, dims, NULL, t, &out));
    return out;
}

/* One execution of the step: a graph, its tensors and the pointers bound to them. */
struct Call {
    fe_graph *graph;
    fe_tensor *tensors[8];
    void *pointers[8];
    size_t count;
    void *workspace;
};

struct Graphs {
    fe_graph *attention, *matmul;
    fe_tensor *q, *k, *v, *tk, *tv, *lq, *lkv, *o;
    fe_tensor *a, *w, *y;
    /* The matmul again, built only from engines that populate CUDA graphs themselves (NULL when
       none does), for the populate way. */
    fe_graph *matmul_native;
    fe_tensor *na, *nw, *ny;
    char native_reason[512];
};

static fe_graph *matmul_graph(const char *name, fe_tensor **a, fe_tensor **w, fe_tensor **y) {
    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.name = name;
    go.io_data_type = FE_DATA_BFLOAT16;
    fe_graph *g;
    FE(fe_graph_create(&go, &g));
    int64_t ad[3] = {1, B, HIDDEN}, wd[3] = {1, HIDDEN, HIDDEN};
    FE(fe_graph_tensor(g, "a", 3, ad, NULL, FE_DATA_NOT_SET, a));
    FE(fe_graph_tensor(g, "w", 3, wd, NULL, FE_DATA_NOT_SET, w));
    FE(fe_graph_matmul(g, *a, *w, NULL, y));
    FE(fe_tensor_set_output(*y, 1));
    return g;
}

static void build_graphs(struct Graphs *g, fe_handle *handle) {
    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.name = "decode_attention";
    go.io_data_type = FE_DATA_BFLOAT16;
    FE(fe_graph_create(&go, &g->attention));
    g->q = tensor4(g->attention, "q", B, HQ, 1, D, FE_DATA_NOT_SET);
    g->k = tensor4(g->attention, "k_cache", PAGES, HK, PAGE, D, FE_DATA_NOT_SET);
    g->v = tensor4(g->attention, "v_cache", PAGES, HK, PAGE, D, FE_DATA_NOT_SET);
    g->tk = tensor4(g->attention, "page_table_k", B, 1, PAGES_PER_SEQ, 1, FE_DATA_INT32);
    g->tv = tensor4(g->attention, "page_table_v", B, 1, PAGES_PER_SEQ, 1, FE_DATA_INT32);
    g->lq = tensor4(g->attention, "seq_len_q", B, 1, 1, 1, FE_DATA_INT32);
    g->lkv = tensor4(g->attention, "seq_len_kv", B, 1, 1, 1, FE_DATA_INT32);
    fe_sdpa_options so = FE_SDPA_OPTIONS_INIT;
    so.attn_scale = 0.08838834764831845;
    so.page_table_k = g->tk;
    so.page_table_v = g->tv;
    so.max_seq_len_kv = MAX_KV;
    so.seq_len_q = g->lq;
    so.seq_len_kv = g->lkv;
    FE(fe_graph_sdpa(g->attention, g->q, g->k, g->v, &so, &g->o, NULL));
    FE(fe_tensor_set_output(g->o, 1));
    FE(fe_graph_build(g->attention, handle, NULL));

    g->matmul = matmul_graph("decode_matmul", &g->a, &g->w, &g->y);
    FE(fe_graph_build(g->matmul, handle, NULL));

    g->matmul_native = matmul_graph("decode_matmul_native", &g->na, &g->nw, &g->ny);
    fe_build_options native = FE_BUILD_OPTIONS_INIT;
    native.require_behavior_notes = FE_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API;
    g->native_reason[0] = 0;
    if (fe_graph_build(g->matmul_native, handle, &native) != FE_OK) {
        snprintf(g->native_reason, sizeof g->native_reason, "%s", fe_last_error_message());
        fe_graph_destroy(g->matmul_native);
        g->matmul_native = NULL;
    }
}

/* Issues one step the way `way` does: 0 plain executes, 1 the captured CUDA graph, 2 the populated one. */
static void issue_step(int way, const struct Call *calls, fe_handle *handle, cudaGraphExec_t captured,
                       cudaGraphExec_t populated, cudaStream_t stream) {
    if (way == 0) {
        for (int i = 0; i < CALLS; ++i)
            FE(fe_graph_execute(calls[i].graph, handle, calls[i].tensors, calls[i].pointers, calls[i].count,
                                calls[i].workspace));
    } else {
        CU(cudaGraphLaunch(way == 1 ? captured : populated, stream));
    }
}

/* Each way's host time per step (us) and step time (us), per round. */
struct Way {
    const char *name;
    double host[64], step[64];
    int rounds;
    const char *skipped;
    char reason[512];
};

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 9;
    if (rounds < 1 || rounds > 64) rounds = 9;
    srand(11);
    fe_handle *handle;
    FE(fe_handle_create(0, &handle));
    cudaStream_t stream;
    CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    FE(fe_handle_set_stream(handle, stream));
    struct Graphs g;
    build_graphs(&g, handle);

    /* Per layer: caches, weights, activations; one shared set of page tables and lengths. */
    int pages_k[PAGES], pages_v[PAGES], ones[B], lengths[B];
    for (int i = 0; i < PAGES; ++i) pages_k[i] = (i * 37 + 11) % PAGES, pages_v[i] = (i * 53 + 5) % PAGES;
    for (int b = 0; b < B; ++b) ones[b] = 1, lengths[b] = 512 + rand() % (MAX_KV - 512);
    void *tk = device_int32(pages_k, PAGES), *tv = device_int32(pages_v, PAGES);
    void *lq = device_int32(ones, B), *lkv = device_int32(lengths, B);
    size_t cache_bytes = (size_t)PAGES * HK * PAGE * D * 2, weight_bytes = (size_t)HIDDEN * HIDDEN * 2;
    size_t act_bytes = (size_t)B * HIDDEN * 2;
    void *k_cache = device_random(cache_bytes), *v_cache = device_random(cache_bytes);
    void *act[LAYERS + 1], *attn[LAYERS], *mid[LAYERS], *w1[LAYERS], *w2[LAYERS];
    /* Weights in [-1/32, 1/32): the activations keep their size through the 64 matmuls. */
    for (int l = 0; l < LAYERS; ++l) {
        w1[l] = device_random_scaled(weight_bytes, 1.f / 32);
        w2[l] = device_random_scaled(weight_bytes, 1.f / 32);
    }
    act[0] = device_random(act_bytes);
    for (int l = 0; l < LAYERS; ++l) {
        attn[l] = device_random(act_bytes);
        mid[l] = device_random(act_bytes);
        act[l + 1] = device_random(act_bytes);
    }
    int64_t ws_attention = 0, ws_matmul = 0;
    FE(fe_graph_workspace_size(g.attention, &ws_attention));
    FE(fe_graph_workspace_size(g.matmul, &ws_matmul));
    int64_t ws_bytes = ws_attention > ws_matmul ? ws_attention : ws_matmul, ws_native = 0;
    if (g.matmul_native) FE(fe_graph_workspace_size(g.matmul_native, &ws_native));
    if (ws_native > ws_bytes) ws_bytes = ws_native;
    void *workspace = NULL;
    if (ws_bytes > 0) CU(cudaMalloc(&workspace, (size_t)ws_bytes));

    /* The step's 96 calls. The layers share the K/V cache (2 x 34 MB); what differs per layer,
       weights and activations, is what a CUDA graph must keep apart. */
    struct Call calls[CALLS];
    for (int l = 0; l < LAYERS; ++l) {
        struct Call *c = &calls[3 * l];
        c[0] = (struct Call){g.attention, {g.q, g.k, g.v, g.tk, g.tv, g.lq, g.lkv, g.o},
                             {act[l], k_cache, v_cache, tk, tv, lq, lkv, attn[l]}, 8, workspace};
        c[1] = (struct Call){g.matmul, {g.a, g.w, g.y}, {attn[l], w1[l], mid[l]}, 3, workspace};
        c[2] = (struct Call){g.matmul, {g.a, g.w, g.y}, {mid[l], w2[l], act[l + 1]}, 3, workspace};
    }
    const char *tag_a = NULL, *tag_m = NULL;
    FE(fe_graph_engine_tag(g.attention, &tag_a));
    FE(fe_graph_engine_tag(g.matmul, &tag_m));
    printf("attention plan %s (workspace %lld bytes), matmul plan %s (workspace %lld bytes)\n", tag_a,
           (long long)ws_attention, tag_m, (long long)ws_matmul);
    if (g.matmul_native) {
        const char *tag_n = NULL;
        FE(fe_graph_engine_tag(g.matmul_native, &tag_n));
        printf("populate way: matmul plan %s (workspace %lld bytes), chosen for native CUDA-graph support\n", tag_n,
               (long long)ws_native);
    }

    /* Reference: one plainly executed step's final activations. */
    for (int i = 0; i < CALLS; ++i)
        FE(fe_graph_execute(calls[i].graph, handle, calls[i].tensors, calls[i].pointers, calls[i].count,
                            calls[i].workspace));
    CU(cudaStreamSynchronize(stream));
    unsigned char *want = malloc(act_bytes), *got = malloc(act_bytes);
    CU(cudaMemcpy(want, act[LAYERS], act_bytes, cudaMemcpyDeviceToHost));
    /* A second plain step at once: how far plain execution repeats itself. */
    for (int i = 0; i < CALLS; ++i)
        FE(fe_graph_execute(calls[i].graph, handle, calls[i].tensors, calls[i].pointers, calls[i].count,
                            calls[i].workspace));
    CU(cudaStreamSynchronize(stream));
    CU(cudaMemcpy(got, act[LAYERS], act_bytes, cudaMemcpyDeviceToHost));
    printf("plain step repeated: same_bytes=%s max_relative_difference=%.2g\n",
           memcmp(got, want, act_bytes) == 0 ? "yes" : "no",
           relative_difference((const unsigned short *)got, (const unsigned short *)want, act_bytes / 2));

    /* capture: the 96 executes on the stream, once. */
    FE(fe_graph_warmup(g.attention, handle));
    FE(fe_graph_warmup(g.matmul, handle));
    cudaGraph_t captured;
    cudaGraphExec_t captured_exec = NULL;
    CU(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < CALLS; ++i)
        FE(fe_graph_execute(calls[i].graph, handle, calls[i].tensors, calls[i].pointers, calls[i].count,
                            calls[i].workspace));
    CU(cudaStreamEndCapture(stream, &captured));
    CU(cudaGraphInstantiate(&captured_exec, captured, 0));

    /* populate: each call a child graph of one CUDA graph, in order. */
    struct Way ways[3];
    memset(ways, 0, sizeof ways);
    ways[0].name = "execute", ways[1].name = "capture", ways[2].name = "populate";
    cudaGraph_t populated = NULL;
    cudaGraphExec_t populated_exec = NULL;
    CU(cudaGraphCreate(&populated, 0));
    cudaGraphNode_t previous = NULL;
    if (!g.matmul_native) {
        snprintf(ways[2].reason, sizeof ways[2].reason, "no matmul engine populates CUDA graphs itself: %s",
                 g.native_reason);
        ways[2].skipped = ways[2].reason;
    }
    for (int i = 0; i < CALLS && !ways[2].skipped; ++i) {
        cudaGraph_t child;
        CU(cudaGraphCreate(&child, 0));
        /* The matmuls through the engine chosen for native CUDA-graph support. */
        struct Call c = calls[i];
        if (c.graph == g.matmul) {
            c.graph = g.matmul_native;
            c.tensors[0] = g.na, c.tensors[1] = g.nw, c.tensors[2] = g.ny;
        }
        fe_status s = fe_graph_populate_cuda_graph(c.graph, handle, c.tensors, c.pointers, c.count, c.workspace, child);
        if (s != FE_OK) {
            snprintf(ways[2].reason, sizeof ways[2].reason, "%s", fe_last_error_message());
            ways[2].skipped = ways[2].reason;
        } else {
            cudaGraphNode_t node;
            CU(cudaGraphAddChildGraphNode(&node, populated, previous ? &previous : NULL, previous ? 1 : 0, child));
            previous = node;
        }
        CU(cudaGraphDestroy(child));
    }
    if (!ways[2].skipped) CU(cudaGraphInstantiate(&populated_exec, populated, 0));

    /* Each way's final activations against plain execution's: the largest difference relative
       to the largest value, and whether the bytes are equal. Plain execution is compared with a
       second plain step too, to tell a way's error from kernels that do not repeat bit for bit. */
    double difference[3] = {0, 0, 0};
    int same[3] = {0, 0, 0};
    for (int w = 0; w < 3; ++w) {
        if (ways[w].skipped) continue;
        CU(cudaMemsetAsync(act[LAYERS], 0xFF, act_bytes, stream));
        issue_step(w, calls, handle, captured_exec, populated_exec, stream);
        CU(cudaStreamSynchronize(stream));
        CU(cudaMemcpy(got, act[LAYERS], act_bytes, cudaMemcpyDeviceToHost));
        same[w] = memcmp(got, want, act_bytes) == 0;
        difference[w] = relative_difference((const unsigned short *)got, (const unsigned short *)want, act_bytes / 2);
    }

    /* Rounds, the ways interleaved: one step issued behind the held stream (the host's time),
     * then STEPS steps issued back to back and waited for (the step's time). */
    for (int r = 0; r < rounds; ++r)
        for (int w = 0; w < 3; ++w) {
            if (ways[w].skipped) continue;
            CU(cudaStreamSynchronize(stream));
            struct Hold hold;
            int timed_out;
            CU(hold_begin(&hold, stream));
            double h0 = bench_now_us();
            issue_step(w, calls, handle, captured_exec, populated_exec, stream);
            double h1 = bench_now_us();
            CU(hold_end(&hold, stream, &timed_out));
            if (timed_out) {
                fprintf(stderr, "decode_loop_bench: one %s step filled the launch queue behind the held stream\n",
                        ways[w].name);
                return 1;
            }
            double t0 = bench_now_us();
            for (int s = 0; s < STEPS; ++s) issue_step(w, calls, handle, captured_exec, populated_exec, stream);
            CU(cudaStreamSynchronize(stream));
            double t2 = bench_now_us();
            ways[w].host[ways[w].rounds] = h1 - h0;
            ways[w].step[ways[w].rounds] = (t2 - t0) / STEPS;
            ways[w].rounds++;
        }

    struct cudaDeviceProp prop;
    CU(cudaGetDeviceProperties(&prop, 0));
    int64_t cudnn = 0;
    fe_cudnn_version(&cudnn);
    printf("device=\"%s\" cudnn=%lld layers=%d calls_per_step=%d rounds=%d steps_per_round=%d\n", prop.name,
           (long long)cudnn, LAYERS, CALLS, rounds, STEPS);
    double host0 = 0;
    for (int w = 0; w < 3; ++w) {
        if (ways[w].skipped) {
            printf("way=%s skipped=\"%s\"\n", ways[w].name, ways[w].skipped);
            continue;
        }
        double host = median(ways[w].host, ways[w].rounds), step = median(ways[w].step, ways[w].rounds);
        if (w == 0) host0 = host;
        printf("way=%s host_us_per_step=%.1f step_us=%.1f host_ratio_vs_execute=%.2f same_bytes_as_execute=%s "
               "max_relative_difference=%.2g\n",
               ways[w].name, host, step, host0 / host, same[w] ? "yes" : "no", difference[w]);
    }
    return 0;
}
