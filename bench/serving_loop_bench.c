/*
 * serving_loop_bench: a serving loop whose token counts change from step to step, run to the end
 * the three ways a user has to get a plan for a shape not seen before:
 *
 *   static     a static-shape build the first time a token count comes (later steps reuse the
 *              graph built for it): the fastest kernels, after waiting for each build;
 *   dynamic    a build with dynamic shapes from one kernel cache (fe_build_options.kernel_cache):
 *              about a millisecond a new shape, kernels that may run slower;
 *   background dynamic, with each graph's static plan built on a background thread
 *              (fe_build_options.background_static) and switched to once ready: the handle's
 *              managed workspace, so that the switch is never held back by a workspace sized for
 *              the dynamic plan (the other ways pass one of their own).
 *
 * Token counts: 90% drawn from 16 frequent sizes, 10% from a pool of rare ones (uniform over
 * 16 .. 4096), the same sequence for both ways (seeded). Per step: one execute of the graph of that
 * count, then a stream synchronize (a request answered before the next). Graphs:
 *
 *   ffn        y = gelu(x W + bias), bf16, x [1, M, 4096], W [1, 4096, 4096];
 *   prefill    causal attention forward, bf16, 32 query heads over 8 key heads, d 128, M queries
 *              over M keys.
 *
 * Each (graph, way, round) runs in a new process of its own (nothing compiled in one is reused
 * by the next), the ways interleaved round by round; the plan cache is off. Inputs are random,
 * allocated once at the largest count. One line per run, and one per graph and way with the medians:
 *
 *   run graph=ffn way=static round=0 total_ms=... build_ms=... execute_ms=... builds=...
 *   median graph=ffn way=static total_ms=... build_ms=... execute_ms=... rounds=3
 *   ratio graph=ffn dynamic_over_static_total=... background_over_static_total=...
 *
 * A background run also prints how many of its graphs had switched by the end.
 *
 *   serving_loop_bench [STEPS [RARE_POOL [ROUNDS]]]   default 10000 steps, a pool of 64 rare sizes, 3 rounds
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_checks.h"

enum { MAX_TOKENS = 4096, FREQUENT = 16, MAX_RARE = 1024, MAX_IO = 4 };

static const int64_t kFrequent[FREQUENT] = {32, 64, 96, 128, 192, 256, 384, 512,
                                            640, 768, 1024, 1280, 1536, 2048, 3072, 4096};

/* A 64-bit generator of our own, so that the sequence is the same in every process. */
static uint64_t next_random(uint64_t *state) {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* The token counts of the loop, step by step. */
static void draw_counts(int64_t *counts, int steps, int rare_pool) {
    uint64_t state = 0x9e3779b97f4a7c15ull;
    int64_t rare[MAX_RARE];
    for (int i = 0; i < rare_pool; ++i) rare[i] = 16 + (int64_t)(next_random(&state) % (MAX_TOKENS - 15));
    for (int s = 0; s < steps; ++s) {
        uint64_t r = next_random(&state);
        counts[s] = r % 10 == 0 ? rare[(r / 10) % (uint64_t)rare_pool] : kFrequent[(r / 10) % FREQUENT];
    }
}

/* ---- the graphs: make(m, io) fills io with the tensors to bind, inputs first ---- */

static fe_graph *new_graph(const char *name) {
    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.name = name;
    go.io_data_type = FE_DATA_BFLOAT16;
    go.intermediate_data_type = FE_DATA_FLOAT;
    go.compute_data_type = FE_DATA_FLOAT;
    fe_graph *g;
    FE(fe_graph_create(&go, &g));
    return g;
}

static fe_graph *ffn(int64_t m, fe_tensor **io) {
    fe_graph *g = new_graph("ffn");
    int64_t xd[3] = {1, m, 4096}, wd[3] = {1, 4096, 4096}, bd[3] = {1, 1, 4096};
    fe_tensor *xw, *biased;
    FE(fe_graph_tensor(g, "x", 3, xd, NULL, FE_DATA_NOT_SET, &io[0]));
    FE(fe_graph_tensor(g, "w", 3, wd, NULL, FE_DATA_NOT_SET, &io[1]));
    FE(fe_graph_tensor(g, "bias", 3, bd, NULL, FE_DATA_NOT_SET, &io[2]));
    FE(fe_graph_matmul(g, io[0], io[1], NULL, &xw));
    FE(fe_graph_bias(g, xw, io[2], NULL, &biased));
    FE(fe_graph_gelu(g, biased, NULL, &io[3]));
    FE(fe_tensor_set_output(io[3], 1));
    return g;
}

static fe_graph *prefill(int64_t m, fe_tensor **io) {
    fe_graph *g = new_graph("prefill");
    int64_t qd[4] = {1, 32, m, 128}, kd[4] = {1, 8, m, 128};
    FE(fe_graph_tensor(g, "q", 4, qd, NULL, FE_DATA_NOT_SET, &io[0]));
    FE(fe_graph_tensor(g, "k", 4, kd, NULL, FE_DATA_NOT_SET, &io[1]));
    FE(fe_graph_tensor(g, "v", 4, kd, NULL, FE_DATA_NOT_SET, &io[2]));
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 1.0 / __builtin_sqrt(128.0);
    o.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    fe_tensor *stats = NULL;
    FE(fe_graph_sdpa(g, io[0], io[1], io[2], &o, &io[3], &stats));
    FE(fe_tensor_set_output(io[3], 1));
    return g;
}

typedef fe_graph *(*make_fn)(int64_t, fe_tensor **);

/* The largest buffer each tensor of a graph takes over the counts, in bf16 elements. */
static void largest_elements(const char *graph, int64_t *elements) {
    if (!strcmp(graph, "ffn")) {
        const int64_t e[MAX_IO] = {MAX_TOKENS * 4096, 4096 * 4096, 4096, MAX_TOKENS * 4096};
        memcpy(elements, e, sizeof e);
    } else {
        const int64_t e[MAX_IO] = {32 * MAX_TOKENS * 128, 8 * MAX_TOKENS * 128, 8 * MAX_TOKENS * 128,
                                   32 * MAX_TOKENS * 128};
        memcpy(elements, e, sizeof e);
    }
}

/* Random bf16 values in [-1, 1) on the device. */
static void *device_random_bf16(int64_t elements, uint64_t *state) {
    uint16_t *host = malloc((size_t)elements * 2);
    for (int64_t i = 0; i < elements; ++i) {
        float f = (float)(next_random(state) >> 40) / (float)(1 << 24) * 2.f - 1.f;
        uint32_t u;
        memcpy(&u, &f, 4);
        host[i] = (uint16_t)(u >> 16);
    }
    void *p;
    CU(cudaMalloc(&p, (size_t)elements * 2));
    CU(cudaMemcpy(p, host, (size_t)elements * 2, cudaMemcpyHostToDevice));
    free(host);
    return p;
}

/* ---- one run: the whole loop in this process ---- */

typedef struct {
    int64_t m;
    fe_graph *graph;
    fe_tensor *io[MAX_IO];
} Built;

static int run_loop(const char *graph, const char *way, int steps, int rare_pool) {
    make_fn make = !strcmp(graph, "ffn") ? ffn : prefill;
    int background = !strcmp(way, "background");
    int dynamic = background || !strcmp(way, "dynamic");
    int64_t *counts = malloc(sizeof(int64_t) * (size_t)steps);
    draw_counts(counts, steps, rare_pool);
    fe_handle *h;
    FE(fe_handle_create(0, &h));
    cudaStream_t stream;
    CU(cudaStreamCreate(&stream));
    FE(fe_handle_set_stream(h, stream));
    int64_t elements[MAX_IO];
    largest_elements(graph, elements);
    uint64_t state = 42;
    void *pointers[MAX_IO];
    for (int i = 0; i < MAX_IO; ++i) pointers[i] = device_random_bf16(elements[i], &state);
    fe_kernel_cache *cache = NULL;
    if (dynamic) FE(fe_kernel_cache_create(&cache));

    /* A warm-up build and run of another size: cuDNN's one-time loading is not the loop's. */
    Built warm = {8, NULL, {NULL}};
    warm.graph = make(warm.m, warm.io);
    fe_build_options o = FE_BUILD_OPTIONS_INIT;
    o.use_plan_cache = 0;
    FE(fe_graph_build(warm.graph, h, &o));
    o.kernel_cache = cache;
    o.background_static = background;

    Built *built = calloc(MAX_TOKENS + 1, sizeof(Built));
    void *workspace = NULL;
    int64_t workspace_bytes = 0;
    int builds = 0;
    double build_ms = 0, start = bench_now_ms();
    for (int s = 0; s < steps; ++s) {
        Built *b = &built[counts[s]];
        if (!b->graph) {
            double t0 = bench_now_ms();
            b->m = counts[s];
            b->graph = make(b->m, b->io);
            FE(fe_graph_build(b->graph, h, &o));
            int64_t need = 0;
            FE(fe_graph_workspace_size(b->graph, &need));
            if (need > workspace_bytes) {
                CU(cudaStreamSynchronize(stream));
                cudaFree(workspace);
                CU(cudaMalloc(&workspace, (size_t)need));
                workspace_bytes = need;
            }
            build_ms += bench_now_ms() - t0;
            ++builds;
        }
        FE(fe_graph_execute(b->graph, h, b->io, pointers, MAX_IO, background ? NULL : workspace));
        CU(cudaStreamSynchronize(stream));
    }
    double total_ms = bench_now_ms() - start;
    if (background) {
        int switched = 0;
        for (int m = 0; m <= MAX_TOKENS; ++m) {
            fe_background_state bs = FE_BACKGROUND_NONE;
            if (built[m].graph) FE(fe_graph_background_state(built[m].graph, &bs));
            switched += bs == FE_BACKGROUND_SWITCHED;
        }
        printf("switched=%d of %d graphs\n", switched, builds);
    }
    printf("total_ms=%.1f build_ms=%.1f execute_ms=%.1f builds=%d\n", total_ms, build_ms, total_ms - build_ms, builds);

    for (int m = 0; m <= MAX_TOKENS; ++m)
        if (built[m].graph) fe_graph_destroy(built[m].graph);
    fe_graph_destroy(warm.graph);
    if (cache) fe_kernel_cache_destroy(cache);
    for (int i = 0; i < MAX_IO; ++i) cudaFree(pointers[i]);
    cudaFree(workspace);
    FE(fe_handle_set_stream(h, NULL));
    CU(cudaStreamDestroy(stream));
    fe_handle_destroy(h);
    free(built);
    free(counts);
    return 0;
}

/* ---- the parent: every run in a process of its own ---- */

typedef struct {
    double total, build, execute;
} Run;

static Run child_run(const char *self, const char *graph, const char *way, int steps, int rare_pool) {
    char command[1024];
    snprintf(command, sizeof command, "%s --run %s %s %d %d", self, graph, way, steps, rare_pool);
    FILE *p = popen(command, "r");
    char line[512];
    Run r = {-1, -1, -1};
    int builds = 0;
    while (p && fgets(line, sizeof line, p))
        if (sscanf(line, "total_ms=%lf build_ms=%lf execute_ms=%lf builds=%d", &r.total, &r.build, &r.execute,
                   &builds) != 4)
            printf("child: %s", line);
    if (p) pclose(p);
    if (r.total < 0) {
        printf("error=child message=\"%s failed\"\n", command);
        exit(1);
    }
    printf("builds=%d ", builds);
    return r;
}

int main(int argc, char **argv) {
    if (argc == 6 && !strcmp(argv[1], "--run")) return run_loop(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
    int steps = argc > 1 ? atoi(argv[1]) : 10000;
    int rare_pool = argc > 2 ? atoi(argv[2]) : 64;
    int rounds = argc > 3 ? atoi(argv[3]) : 3;
    if (steps < 1 || rare_pool < 1 || rare_pool > MAX_RARE || rounds < 1 || rounds > 15) {
        printf("error=usage message=\"serving_loop_bench [STEPS [RARE_POOL (1 to %d) [ROUNDS (1 to 15)]]]\"\n",
               MAX_RARE);
        return 2;
    }
    const char *graphs[2] = {"ffn", "prefill"}, *ways[3] = {"static", "dynamic", "background"};
    printf("steps=%d rare_pool=%d rounds=%d frequent=90%% (16 sizes 32..4096) rare=10%%\n", steps, rare_pool, rounds);
    for (int g = 0; g < 2; ++g) {
        double total[3][15], build[3][15], execute[3][15];
        for (int r = 0; r < rounds; ++r)
            for (int w = 0; w < 3; ++w) {
                printf("run graph=%s way=%s round=%d ", graphs[g], ways[w], r);
                Run run = child_run(argv[0], graphs[g], ways[w], steps, rare_pool);
                printf("total_ms=%.1f build_ms=%.1f execute_ms=%.1f\n", run.total, run.build, run.execute);
                fflush(stdout);
                total[w][r] = run.total;
                build[w][r] = run.build;
                execute[w][r] = run.execute;
            }
        double median_total[3];
        for (int w = 0; w < 3; ++w) {
            median_total[w] = median(total[w], rounds);
            printf("median graph=%s way=%s total_ms=%.1f build_ms=%.1f execute_ms=%.1f rounds=%d\n", graphs[g],
                   ways[w], median_total[w], median(build[w], rounds), median(execute[w], rounds), rounds);
        }
        printf("ratio graph=%s dynamic_over_static_total=%.3f background_over_static_total=%.3f\n", graphs[g],
               median_total[1] / median_total[0], median_total[2] / median_total[0]);
        fflush(stdout);
    }
    return 0;
}
