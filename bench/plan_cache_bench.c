/*
 * plan_cache_bench: what it costs to get a runnable plan, for three graphs (the seed's
 * convolution, a matmul and an SDPA forward), on the GPU:
 *
 *   cold       a full build (lowering, heuristics, plan finalization / kernel compilation),
 *              with the plan cache off;
 *   memory     fe_graph_build of a new, identical graph that hits the in-process cache
 *              (median of 200; graph construction not counted);
 *   disk_new   fe_graph_build in a NEW process whose memory cache is empty, loading the plan
 *              from the cache directory: the first build of that process (cuDNN's own lazy
 *              initialization included), and the median of the next 20 after clearing the
 *              memory cache each time (disk_warm);
 *   deserialize fe_graph_deserialize of fe_graph_serialize's bytes (median of 20).
 * and autotuning: the execution time (CUDA events, median of 50 after warm-up) of the
 * heuristics' first plan against the plan fe_build_options.autotune chose among 8 candidates.
 *
 *   plan_cache_bench CACHE_DIR             the whole table (spawns itself for disk_new)
 *   disk_inited the same in a new process that first built and ran another graph of the same
 *              kind (other sizes, cache off): the plan's own load time, without cuDNN's one-time
 *              loading of its engine libraries that any first graph of a process pays;
 *
 *   plan_cache_bench --load CACHE_DIR G [inited]   (internal) one new process loading graph G
 *
 * One line of key=value pairs per graph.
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_checks.h"

/* The built graph's engine tag, for the report line. */
static const char *GRAPHS[] = {"conv", "matmul", "sdpa"};
static int other_sizes; /* set while making the warm-up variant of a graph */

/* The graph named `which`, not built. */
static fe_graph *make(const char *which) {
    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.name = which;
    fe_graph *g = NULL;
    fe_tensor *out = NULL;
    /* The warm-up variant: the same kind of graph with other sizes, so another plan. */
    const int64_t half = other_sizes ? 2 : 1;
    if (!strcmp(which, "conv")) {
        go.io_data_type = FE_DATA_HALF;
        FE(fe_graph_create(&go, &g));
        int64_t xd[4] = {8, 64, 56 / half, 56 / half}, wd[4] = {32, 64, 3, 3}, xs[4], ws[4];
        FE(fe_strides_channels_last(4, xd, xs));
        FE(fe_strides_channels_last(4, wd, ws));
        fe_tensor *x, *w;
        FE(fe_graph_tensor(g, "X", 4, xd, xs, FE_DATA_NOT_SET, &x));
        FE(fe_graph_tensor(g, "W", 4, wd, ws, FE_DATA_NOT_SET, &w));
        fe_conv_options co = FE_CONV_OPTIONS_INIT;
        co.pre_padding[0] = co.pre_padding[1] = co.post_padding[0] = co.post_padding[1] = 1;
        FE(fe_graph_conv_fprop(g, x, w, &co, &out));
    } else if (!strcmp(which, "matmul")) {
        go.io_data_type = FE_DATA_BFLOAT16;
        FE(fe_graph_create(&go, &g));
        int64_t ad[3] = {1, 4096 / half, 4096}, bd[3] = {1, 4096, 4096 / half};
        fe_tensor *a, *b;
        FE(fe_graph_tensor(g, "A", 3, ad, NULL, FE_DATA_NOT_SET, &a));
        FE(fe_graph_tensor(g, "B", 3, bd, NULL, FE_DATA_NOT_SET, &b));
        FE(fe_graph_matmul(g, a, b, NULL, &out));
    } else {
        go.io_data_type = FE_DATA_BFLOAT16;
        FE(fe_graph_create(&go, &g));
        int64_t d[4] = {2, 6, 1024 / half, 64};
        fe_tensor *q, *k, *v, *stats = NULL;
        FE(fe_graph_tensor(g, "Q", 4, d, NULL, FE_DATA_NOT_SET, &q));
        FE(fe_graph_tensor(g, "K", 4, d, NULL, FE_DATA_NOT_SET, &k));
        FE(fe_graph_tensor(g, "V", 4, d, NULL, FE_DATA_NOT_SET, &v));
        fe_sdpa_options so = FE_SDPA_OPTIONS_INIT;
        so.attn_scale = 0.125;
        so.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
        so.generate_stats = 1;
        FE(fe_graph_sdpa(g, q, k, v, &so, &out, &stats));
        FE(fe_tensor_set_output(stats, 1));
    }
    FE(fe_tensor_set_output(out, 1));
    return g;
}

static double build_ms(fe_graph *g, fe_handle *h, const fe_build_options *o) {
    double t0 = bench_now_ms();
    FE(fe_graph_build(g, h, o));
    return bench_now_ms() - t0;
}

/* Median execution time in microseconds (buffers from the library, contents irrelevant). */
static double execute_us(fe_graph *g, fe_handle *h) {
    size_t n_in = 0, n_out = 0;
    FE(fe_graph_input_count(g, &n_in));
    FE(fe_graph_output_count(g, &n_out));
    size_t n = n_in + n_out;
    fe_buffer *buffers[8];
    void *pointers[8];
    for (size_t i = 0; i < n; ++i) {
        fe_tensor *t;
        FE(i < n_in ? fe_graph_input(g, i, &t) : fe_graph_output(g, i - n_in, &t));
        FE(fe_buffer_create_for_tensor(0, t, &buffers[i]));
        FE(fe_buffer_fill_bytes(buffers[i], 0x3c));  /* ~1 in half/bf16: finite math */
        FE(fe_buffer_device_pointer(buffers[i], &pointers[i]));
    }
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    for (int i = 0; i < 10; ++i) FE(fe_graph_execute_positional(g, h, pointers, n, NULL));
    double runs[50];
    for (int i = 0; i < 50; ++i) {
        cudaEventRecord(start, NULL);
        FE(fe_graph_execute_positional(g, h, pointers, n, NULL));
        cudaEventRecord(stop, NULL);
        cudaEventSynchronize(stop);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        runs[i] = ms * 1e3;
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    for (size_t i = 0; i < n; ++i) fe_buffer_destroy(buffers[i]);
    return median(runs, 50);
}

/* The first line a child process prints, without its newline. */
static void child_line(const char *command, char *line, size_t size) {
    line[0] = '\0';
    FILE *child = popen(command, "r");
    if (!child) return;
    if (!fgets(line, (int)size, child)) line[0] = '\0';
    pclose(child);
    line[strcspn(line, "\n")] = '\0';
}

/* The child process: the first build loads from the directory; then warm loads. */
static int load(const char *dir, const char *which, int inited) {
    fe_handle *h;
    FE(fe_handle_create(0, &h));
    if (inited) {
        fe_build_options off = FE_BUILD_OPTIONS_INIT;
        off.use_plan_cache = 0;
        other_sizes = 1;
        fe_graph *warm = make(which);
        other_sizes = 0;
        build_ms(warm, h, &off);
        execute_us(warm, h);
        fe_graph_destroy(warm);
    }
    FE(fe_handle_set_cache_directory(h, dir));
    fe_build_options o = FE_BUILD_OPTIONS_INIT;
    fe_graph *g = make(which);
    int64_t disk0 = 0, disk1 = 0;
    FE(fe_plan_cache_stats(NULL, &disk0, NULL, NULL));
    double first = build_ms(g, h, &o);
    FE(fe_plan_cache_stats(NULL, &disk1, NULL, NULL));
    fe_graph_destroy(g);
    double warm[20];
    for (int i = 0; i < 20; ++i) {
        FE(fe_plan_cache_clear());
        g = make(which);
        warm[i] = build_ms(g, h, &o);
        fe_graph_destroy(g);
    }
    int64_t disk2 = 0;
    FE(fe_plan_cache_stats(NULL, &disk2, NULL, NULL));
    if (inited)
        printf("disk_inited_ms=%.3f", first);
    else
        printf("disk_new_ms=%.3f disk_warm_ms=%.3f disk_hits=%lld", first, median(warm, 20), (long long)(disk2 - disk0));
    fe_handle_destroy(h);
    return disk1 - disk0 == 1 ? 0 : 1;
}

int main(int argc, char **argv) {
    if ((argc == 4 || argc == 5) && !strcmp(argv[1], "--load")) return load(argv[2], argv[3], argc == 5);
    if (argc != 2) {
        fprintf(stderr, "usage: plan_cache_bench CACHE_DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    int32_t devices = 0;
    if (fe_device_count(&devices) != FE_OK || devices == 0) {
        printf("skipped: no GPU (%s)\n", fe_last_error_message());
        return 77;
    }
    fe_handle *h;
    FE(fe_handle_create(0, &h));
    /* cuDNN's one-time initialization is not any graph's cost. */
    fe_build_options off = FE_BUILD_OPTIONS_INIT;
    off.use_plan_cache = 0;
    {
        fe_graph *g = make("conv");
        build_ms(g, h, &off);
        fe_graph_destroy(g);
    }
    for (int gi = 0; gi < 3; ++gi) {
        const char *which = GRAPHS[gi];
        fe_graph *g = make(which);
        double cold = build_ms(g, h, &off);
        double heuristic_us = execute_us(g, h);
        const char *heuristic_tag = engine_tag(g);
        char heuristic_engine[128];
        snprintf(heuristic_engine, sizeof heuristic_engine, "%s", heuristic_tag);

        /* Serialize / deserialize. */
        size_t size = 0;
        fe_graph_serialize(g, NULL, 0, &size);
        unsigned char *bytes = malloc(size);
        FE(fe_graph_serialize(g, bytes, size, &size));
        double deser[20];
        for (int i = 0; i < 20; ++i) {
            fe_graph *back;
            double t0 = bench_now_ms();
            FE(fe_graph_deserialize(h, bytes, size, NULL, &back));
            deser[i] = bench_now_ms() - t0;
            fe_graph_destroy(back);
        }
        free(bytes);
        fe_graph_destroy(g);

        /* In-process hits: prime, then build fresh identical graphs. */
        fe_build_options on = FE_BUILD_OPTIONS_INIT;
        FE(fe_handle_set_cache_directory(h, dir));  /* the prime also writes the directory */
        g = make(which);
        build_ms(g, h, &on);
        fe_graph_destroy(g);
        FE(fe_handle_set_cache_directory(h, NULL));
        double hits[200];
        for (int i = 0; i < 200; ++i) {
            g = make(which);
            hits[i] = build_ms(g, h, &on) * 1e3;
            fe_graph_destroy(g);
        }

        /* A new process loads from the directory. */
        char command[1024], line[512] = "", line_inited[256] = "";
        snprintf(command, sizeof command, "%s --load %s %s", argv[0], dir, which);
        child_line(command, line, sizeof line);
        snprintf(command, sizeof command, "%s --load %s %s inited", argv[0], dir, which);
        child_line(command, line_inited, sizeof line_inited);

        /* Autotuning against the heuristics' first choice. */
        fe_build_options tuned = FE_BUILD_OPTIONS_INIT;
        tuned.use_plan_cache = 0;
        tuned.autotune = 1;
        tuned.autotune_candidates = 8;
        g = make(which);
        double tune_ms = build_ms(g, h, &tuned);
        size_t plans = 0;
        FE(fe_graph_plan_count(g, &plans));
        double tuned_us = execute_us(g, h);
        printf("graph=%s cold_ms=%.2f memory_hit_us=%.2f %s %s deserialize_ms=%.3f serialized_bytes=%zu "
               "heuristic_engine=%s heuristic_us=%.2f autotuned_engine=%s autotuned_us=%.2f plans_timed=%lld "
               "autotune_build_ms=%.1f\n",
               which, cold, median(hits, 200), line, line_inited, median(deser, 20), size, heuristic_engine, heuristic_us,
               engine_tag(g), tuned_us, (long long)plans, tune_ms);
        fflush(stdout);
        fe_graph_destroy(g);
    }
    fe_handle_destroy(h);
    return 0;
}
