/*
 * kernel_cache_bench: what a new shape costs with dynamic shapes and a kernel cache, on the GPU.
 *
 *   build      for a matmul + bias + gelu (bf16, K 4096, N 4096) over 32 token counts M, and a
 *              conv + bias + relu (fp16 channels-last, 64 -> 64 channels, 3x3) over 16 image
 *              sizes, shape by shape: a cold static build (in a new process of its own, so that
 *              no kernel compiled for an earlier shape is reused; its first build of that kind of
 *              graph is a warm-up of another size, not counted), a static build in this process
 *              (after the earlier shapes: cuDNN reuses what it compiled for them where it can),
 *              and a build with dynamic shapes from this process's kernel cache. The first
 *              dynamic build fills the cache; the others reuse it. Plan cache off throughout.
 *   kernels    the execution time of the static plan and of the dynamic-shape plan of a few of
 *              those shapes (CUDA events, median of 7 rounds of 20 runs, the two interleaved),
 *              on random inputs.
 *   families   which other operation families cuDNN builds with dynamic shapes (one graph each,
 *              built twice with other dims from one cache): "yes", or cuDNN's refusal.
 *   threads    plans built on 1 and 8 threads (fe_build_options.build_threads): the autotuning
 *              of a matmul (8 candidates built, then timed) and a conv whose candidates are all
 *              built (FE_BUILD_POLICY_ALL), plan cache off; each build in a new process of its
 *              own (compiled kernels are not reused across builds), after a warm-up build of
 *              another graph in that process; 3 rounds, the two contenders alternating.
 *
 * One line of key=value pairs per measurement.
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_checks.h"

/* Random 16-bit floats (bf16 or fp16 bit patterns of values in [-1, 1)) on the device. */
static void *device_random(size_t bytes, int bf16) {
    unsigned short *host = malloc(bytes);
    for (size_t i = 0; i < bytes / 2; ++i) {
        float f = (float)rand() / (float)RAND_MAX * 2.f - 1.f;
        unsigned int u;
        memcpy(&u, &f, 4);
        if (bf16) {
            host[i] = (unsigned short)(u >> 16);
        } else { /* fp16 of |f| < 1: sign, exponent rebased, 10 mantissa bits */
            unsigned int sign = (u >> 16) & 0x8000u, exp = (u >> 23) & 0xFFu, mant = (u >> 13) & 0x3FFu;
            host[i] = (unsigned short)(exp < 103 ? sign : sign | ((exp - 112) << 10) | mant);
        }
    }
    void *p;
    CU(cudaMalloc(&p, bytes));
    CU(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice));
    free(host);
    return p;
}

/* ---- the graphs ---- */

/* y = gelu(a x b + bias), bf16: a [1, m, 4096], b [1, 4096, 4096], bias [1, 1, 4096]. */
static fe_graph *ffn_up(int64_t m, fe_tensor **io) {
    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.name = "ffn_up";
    go.io_data_type = FE_DATA_BFLOAT16;
    fe_graph *g;
    FE(fe_graph_create(&go, &g));
    int64_t ad[3] = {1, m, 4096}, bd[3] = {1, 4096, 4096}, cd[3] = {1, 1, 4096};
    fe_tensor *ab, *biased, *y;
    FE(fe_graph_tensor(g, "a", 3, ad, NULL, FE_DATA_NOT_SET, &io[0]));
    FE(fe_graph_tensor(g, "b", 3, bd, NULL, FE_DATA_NOT_SET, &io[1]));
    FE(fe_graph_tensor(g, "bias", 3, cd, NULL, FE_DATA_NOT_SET, &io[2]));
    FE(fe_graph_matmul(g, io[0], io[1], NULL, &ab));
    FE(fe_graph_bias(g, ab, io[2], NULL, &biased));
    FE(fe_graph_gelu(g, biased, NULL, &y));
    FE(fe_tensor_set_output(y, 1));
    io[3] = y;
    return g;
}

/* y = relu(conv(x, w) + bias), fp16 channels-last: x [8, 64, hw, hw], w [64, 64, 3, 3]. */
static fe_graph *conv_block(int64_t hw, fe_tensor **io) {
    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.name = "conv_bias_relu";
    go.io_data_type = FE_DATA_HALF;
    fe_graph *g;
    FE(fe_graph_create(&go, &g));
    int64_t xd[4] = {8, 64, hw, hw}, wd[4] = {64, 64, 3, 3}, bd[4] = {1, 64, 1, 1}, xs[4], ws[4], bs[4];
    FE(fe_strides_channels_last(4, xd, xs));
    FE(fe_strides_channels_last(4, wd, ws));
    FE(fe_strides_channels_last(4, bd, bs));
    FE(fe_graph_tensor(g, "x", 4, xd, xs, FE_DATA_NOT_SET, &io[0]));
    FE(fe_graph_tensor(g, "w", 4, wd, ws, FE_DATA_NOT_SET, &io[1]));
    FE(fe_graph_tensor(g, "bias", 4, bd, bs, FE_DATA_NOT_SET, &io[2]));
    fe_conv_options co = FE_CONV_OPTIONS_INIT;
    co.pre_padding[0] = co.pre_padding[1] = co.post_padding[0] = co.post_padding[1] = 1;
    fe_tensor *c, *biased, *y;
    FE(fe_graph_conv_fprop(g, io[0], io[1], &co, &c));
    FE(fe_graph_bias(g, c, io[2], NULL, &biased));
    FE(fe_graph_relu(g, biased, NULL, &y));
    FE(fe_tensor_set_output(y, 1));
    io[3] = y;
    return g;
}

typedef fe_graph *(*make_fn)(int64_t, fe_tensor **);

static double child_ms(const char *what, int64_t size, int threads_count, size_t *plans, char *engine, size_t engine_size);

static double build_ms(fe_graph *g, fe_handle *h, fe_kernel_cache *cache) {
    fe_build_options o = FE_BUILD_OPTIONS_INIT;
    o.use_plan_cache = 0;
    o.kernel_cache = cache;
    double t0 = bench_now_ms();
    FE(fe_graph_build(g, h, &o));
    return bench_now_ms() - t0;
}

static int64_t tensor_bytes(const fe_tensor *t) {
    size_t n = 0;
    int64_t dims[8], total = 2;
    FE(fe_tensor_get_ndims(t, &n));
    FE(fe_tensor_get_dims(t, dims, n));
    for (size_t i = 0; i < n; ++i) total *= dims[i];
    return total;
}

/* Median over rounds of the time of 20 back-to-back executes, static and dynamic interleaved. */
static void time_kernels(const char *family, const char *dim_name, int64_t dim, make_fn make, int bf16, fe_handle *h,
                         fe_kernel_cache *cache) {
    fe_tensor *io_s[4], *io_d[4];
    fe_graph *s = make(dim, io_s), *d = make(dim, io_d);
    build_ms(s, h, NULL);
    build_ms(d, h, cache);
    void *ptr[4];
    for (int i = 0; i < 4; ++i) ptr[i] = device_random((size_t)tensor_bytes(io_s[i]), bf16);
    int64_t ws_s = 0, ws_d = 0;
    FE(fe_graph_workspace_size(s, &ws_s));
    FE(fe_graph_workspace_size(d, &ws_d));
    void *ws = NULL;
    if (ws_s > 0 || ws_d > 0) CU(cudaMalloc(&ws, (size_t)(ws_s > ws_d ? ws_s : ws_d)));
    cudaStream_t stream;
    CU(cudaStreamCreate(&stream));
    FE(fe_handle_set_stream(h, stream));
    cudaEvent_t a, b;
    CU(cudaEventCreate(&a));
    CU(cudaEventCreate(&b));
    enum { ROUNDS = 7, RUNS = 20 };
    double t_s[ROUNDS], t_d[ROUNDS];
    for (int r = -1; r < ROUNDS; ++r) { /* round -1 warms up */
        for (int which = 0; which < 2; ++which) {
            fe_graph *g = which ? d : s;
            fe_tensor **io = which ? io_d : io_s;
            CU(cudaEventRecord(a, stream));
            for (int i = 0; i < RUNS; ++i) FE(fe_graph_execute(g, h, io, ptr, 4, ws));
            CU(cudaEventRecord(b, stream));
            CU(cudaEventSynchronize(b));
            float ms = 0;
            CU(cudaEventElapsedTime(&ms, a, b));
            if (r >= 0) (which ? t_d : t_s)[r] = ms * 1000.0 / RUNS;
        }
    }
    const char *tag_s = NULL, *tag_d = NULL;
    FE(fe_graph_engine_tag(s, &tag_s));
    FE(fe_graph_engine_tag(d, &tag_d));
    double ms_s = median(t_s, ROUNDS), ms_d = median(t_d, ROUNDS);
    printf("kernels family=%s %s=%lld static_us=%.2f dynamic_us=%.2f dynamic_over_static=%.3f static_engine=%s dynamic_engine=%s\n",
           family, dim_name, (long long)dim, ms_s, ms_d, ms_d / ms_s, tag_s, tag_d);
    fflush(stdout);
    FE(fe_handle_set_stream(h, NULL));
    CU(cudaStreamDestroy(stream));
    for (int i = 0; i < 4; ++i) cudaFree(ptr[i]);
    cudaFree(ws);
    fe_graph_destroy(s);
    fe_graph_destroy(d);
}

static void build_times(const char *family, const char *child, const char *dim_name, const int64_t *dims, int n,
                        make_fn make, fe_handle *h) {
    fe_kernel_cache *cache;
    FE(fe_kernel_cache_create(&cache));
    double cold[64], stat[64], dyn[64], ratio[64];
    for (int i = 0; i < n; ++i) {
        char cold_tag[256] = "";
        cold[i] = child_ms(child, dims[i], 1, NULL, cold_tag, sizeof cold_tag);
        fe_tensor *io[4];
        fe_graph *g = make(dims[i], io);
        stat[i] = build_ms(g, h, NULL);
        const char *static_tag = NULL;
        FE(fe_graph_engine_tag(g, &static_tag));
        char static_copy[256];
        snprintf(static_copy, sizeof static_copy, "%s", static_tag);
        fe_graph_destroy(g);
        g = make(dims[i], io);
        dyn[i] = build_ms(g, h, cache);
        const char *tag = NULL;
        FE(fe_graph_engine_tag(g, &tag));
        ratio[i] = dyn[i] / cold[i];
        printf("build family=%s %s=%lld cold_static_ms=%.1f static_in_process_ms=%.1f dynamic_ms=%.1f "
               "dynamic_over_cold=%.4f cold_engine=%s static_engine=%s dynamic_engine=%s\n",
               family, dim_name, (long long)dims[i], cold[i], stat[i], dyn[i], ratio[i], cold_tag, static_copy, tag);
        fflush(stdout);
        fe_graph_destroy(g);
    }
    double first_dynamic = dyn[0], first_ratio = ratio[0];
    double med_cold = median(cold, n), med_static = median(stat, n), med_dynamic = median(dyn + 1, n - 1);
    double med_ratio = median(ratio + 1, n - 1), worst_ratio = 0;
    for (int i = 1; i < n; ++i) worst_ratio = ratio[i] > worst_ratio ? ratio[i] : worst_ratio;
    size_t json = 0;
    fe_kernel_cache_serialize(cache, NULL, 0, &json);
    printf("build_summary family=%s shapes=%d cold_static_median_ms=%.1f static_in_process_median_ms=%.1f "
           "dynamic_first_ms=%.1f (over its cold build %.3f) dynamic_new_shape_median_ms=%.2f "
           "new_shape_over_cold_median=%.4f new_shape_over_cold_worst=%.4f kernel_cache_json_bytes=%zu\n",
           family, n, med_cold, med_static, first_dynamic, first_ratio, med_dynamic, med_ratio, worst_ratio, json);
    fflush(stdout);
    fe_kernel_cache_destroy(cache);
}

/* ---- other families: built twice, with other dims, from one cache ---- */

static fe_graph *family_graph(const char *family, int64_t s, fe_tensor **out) {
    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.name = family;
    go.io_data_type = FE_DATA_BFLOAT16;
    fe_graph *g;
    FE(fe_graph_create(&go, &g));
    fe_tensor *y = NULL;
    if (!strcmp(family, "layernorm") || !strcmp(family, "rmsnorm")) {
        int64_t xd[4] = {s, 1024, 1, 1}, pd[4] = {1, 1024, 1, 1}, xs[4], ps[4];
        FE(fe_strides_channels_last(4, xd, xs));
        FE(fe_strides_channels_last(4, pd, ps));
        fe_tensor *x, *scale, *bias = NULL, *mean = NULL, *inv = NULL;
        FE(fe_graph_tensor(g, "x", 4, xd, xs, FE_DATA_NOT_SET, &x));
        FE(fe_graph_tensor(g, "scale", 4, pd, ps, FE_DATA_FLOAT, &scale));
        if (!strcmp(family, "layernorm")) {
            FE(fe_graph_tensor(g, "bias", 4, pd, ps, FE_DATA_FLOAT, &bias));
            fe_norm_options o = FE_NORM_OPTIONS_INIT;
            FE(fe_graph_layernorm(g, x, scale, bias, &o, &y, &mean, &inv));
        } else {
            fe_norm_options o = FE_NORM_OPTIONS_INIT;
            FE(fe_graph_rmsnorm(g, x, scale, NULL, &o, &y, &inv));
        }
    } else if (!strcmp(family, "softmax")) {
        int64_t xd[4] = {1, 8, s, 512};
        fe_tensor *x;
        FE(fe_graph_tensor(g, "x", 4, xd, NULL, FE_DATA_NOT_SET, &x));
        FE(fe_graph_softmax(g, x, NULL, &y, NULL));
    } else if (!strcmp(family, "pointwise")) {
        int64_t xd[3] = {1, s, 1024};
        fe_tensor *x, *z;
        FE(fe_graph_tensor(g, "x", 3, xd, NULL, FE_DATA_NOT_SET, &x));
        FE(fe_graph_tensor(g, "z", 3, xd, NULL, FE_DATA_NOT_SET, &z));
        fe_tensor *sum;
        FE(fe_graph_add(g, x, z, NULL, &sum));
        FE(fe_graph_relu(g, sum, NULL, &y));
    } else if (!strcmp(family, "reduction")) {
        int64_t ad[3] = {1, s, 256}, bd[3] = {1, 256, 512};
        fe_tensor *a, *b, *c;
        FE(fe_graph_tensor(g, "a", 3, ad, NULL, FE_DATA_NOT_SET, &a));
        FE(fe_graph_tensor(g, "b", 3, bd, NULL, FE_DATA_NOT_SET, &b));
        FE(fe_graph_matmul(g, a, b, NULL, &c));
        fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
        o.reduce_axes = 1u << 2;
        FE(fe_graph_reduction(g, c, FE_REDUCTION_MAX, &o, &y));
    } else if (!strcmp(family, "sdpa")) {
        int64_t d[4] = {1, 8, s, 64};
        fe_tensor *q, *k, *v, *stats = NULL;
        FE(fe_graph_tensor(g, "q", 4, d, NULL, FE_DATA_NOT_SET, &q));
        FE(fe_graph_tensor(g, "k", 4, d, NULL, FE_DATA_NOT_SET, &k));
        FE(fe_graph_tensor(g, "v", 4, d, NULL, FE_DATA_NOT_SET, &v));
        fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
        o.attn_scale = 0.125;
        FE(fe_graph_sdpa(g, q, k, v, &o, &y, &stats));
    } else if (!strcmp(family, "conv_dgrad") || !strcmp(family, "conv_wgrad")) {
        int64_t xd[4] = {8, 64, s, s}, wd[4] = {64, 64, 3, 3}, xs[4], ws[4];
        FE(fe_strides_channels_last(4, xd, xs));
        FE(fe_strides_channels_last(4, wd, ws));
        fe_conv_options co = FE_CONV_OPTIONS_INIT;
        co.pre_padding[0] = co.pre_padding[1] = co.post_padding[0] = co.post_padding[1] = 1;
        fe_tensor *a, *b;
        if (!strcmp(family, "conv_dgrad")) {
            FE(fe_graph_tensor(g, "dy", 4, xd, xs, FE_DATA_NOT_SET, &a));
            FE(fe_graph_tensor(g, "w", 4, wd, ws, FE_DATA_NOT_SET, &b));
            FE(fe_graph_conv_dgrad(g, a, b, 4, xd, &co, &y));
        } else {
            FE(fe_graph_tensor(g, "x", 4, xd, xs, FE_DATA_NOT_SET, &a));
            FE(fe_graph_tensor(g, "dy", 4, xd, xs, FE_DATA_NOT_SET, &b));
            FE(fe_graph_conv_wgrad(g, a, b, 4, wd, &co, &y));
        }
    }
    FE(fe_tensor_set_output(y, 1));
    *out = y;
    return g;
}

static void families(fe_handle *h) {
    const char *list[] = {"layernorm", "rmsnorm", "softmax", "pointwise", "reduction", "sdpa", "conv_dgrad", "conv_wgrad"};
    for (size_t f = 0; f < sizeof list / sizeof list[0]; ++f) {
        fe_kernel_cache *cache;
        FE(fe_kernel_cache_create(&cache));
        char result[512] = "yes";
        double ms[2] = {0, 0};
        for (int i = 0; i < 2 && !strcmp(result, "yes"); ++i) {
            fe_tensor *y;
            fe_graph *g = family_graph(list[f], i ? 48 : 32, &y);
            fe_build_options o = FE_BUILD_OPTIONS_INIT;
            o.use_plan_cache = 0;
            o.kernel_cache = cache;
            double t0 = bench_now_ms();
            fe_status s = fe_graph_build(g, h, &o);
            ms[i] = bench_now_ms() - t0;
            if (s != FE_OK) snprintf(result, sizeof result, "no (%s: %.300s)", fe_status_string(s), fe_last_error_message());
            fe_graph_destroy(g);
        }
        /* The same graph with static shapes: a "no" above is about dynamic shapes only where it builds. */
        fe_tensor *y;
        fe_graph *g = family_graph(list[f], 32, &y);
        fe_build_options o = FE_BUILD_OPTIONS_INIT;
        o.use_plan_cache = 0;
        fe_status static_status = fe_graph_build(g, h, &o);
        fe_graph_destroy(g);
        printf("family name=%s static_shapes=%s dynamic_shapes=\"%s\" first_ms=%.1f second_ms=%.1f\n", list[f],
               static_status == FE_OK ? "yes" : "no", result, ms[0], ms[1]);
        fflush(stdout);
        fe_kernel_cache_destroy(cache);
    }
}

/* ---- plans built on several threads ---- */

static void threads(fe_handle *h) {
    (void)h;
    enum { ROUNDS = 3 };
    const int counts[2] = {1, 8};
    for (int which = 0; which < 2; ++which) { /* 0: autotuned matmul, 1: conv with every candidate built */
        double t[2][ROUNDS];
        size_t plans[2] = {0, 0};
        for (int r = 0; r < ROUNDS; ++r)
            for (int k = 0; k < 2; ++k) {
                int c = r % 2 ? 1 - k : k; /* alternate which contender goes first */
                t[c][r] = child_ms(which ? "conv_all" : "matmul_autotune", which ? 28 : 512, counts[c], &plans[c], NULL, 0);
            }
        double one = median(t[0], ROUNDS), eight = median(t[1], ROUNDS);
        printf("threads graph=%s plans=%zu one_thread_ms=%.1f eight_threads_ms=%.1f speedup=%.2f\n",
               which ? "conv_all_candidates" : "matmul_autotune_8", plans[0], one, eight, one / eight);
        fflush(stdout);
    }
}

/* A child process: one build, after a warm-up build of another graph (cuDNN's one-time loading
   is not counted), printing its time. */
static int child_build(char **argv, fe_handle *h) {
    const char *what = argv[2];
    int64_t size = atoll(argv[3]);
    int threads_count = atoi(argv[4]);
    fe_tensor *io[4];
    fe_graph *warm = family_graph("layernorm", 64, &io[0]);
    build_ms(warm, h, NULL);
    fe_graph_destroy(warm);
    fe_graph *g = !strcmp(what, "matmul") || !strcmp(what, "matmul_autotune") ? ffn_up(size, io) : conv_block(size, io);
    fe_build_options o = FE_BUILD_OPTIONS_INIT;
    o.use_plan_cache = 0;
    o.build_threads = threads_count;
    if (!strcmp(what, "matmul_autotune")) {
        o.autotune = 1;
        o.autotune_candidates = 8;
    } else if (!strcmp(what, "conv_all")) {
        o.policy = FE_BUILD_POLICY_ALL;
    }
    double t0 = bench_now_ms();
    FE(fe_graph_build(g, h, &o));
    size_t plans = 0;
    FE(fe_graph_plan_count(g, &plans));
    const char *tag = NULL;
    FE(fe_graph_engine_tag(g, &tag));
    printf("ms=%.2f plans=%zu engine=%s\n", bench_now_ms() - t0, plans, tag);
    fe_graph_destroy(g);
    return 0;
}

static const char *self_path;

/* Run this program as a child build; returns its build time and fills *plans and engine. */
static double child_ms(const char *what, int64_t size, int threads_count, size_t *plans, char *engine, size_t engine_size) {
    char command[1024];
    snprintf(command, sizeof command, "%s --child %s %lld %d", self_path, what, (long long)size, threads_count);
    FILE *p = popen(command, "r");
    char line[512] = "";
    double ms = -1;
    while (p && fgets(line, sizeof line, p)) {
        char tag[256] = "";
        size_t n = 0;
        if (sscanf(line, "ms=%lf plans=%zu engine=%255s", &ms, &n, tag) == 3) {
            if (plans) *plans = n;
            if (engine) snprintf(engine, engine_size, "%s", tag);
        } else {
            printf("child: %s", line);
        }
    }
    if (p) pclose(p);
    if (ms < 0) {
        printf("error=child message=\"%s failed\"\n", command);
        exit(1);
    }
    return ms;
}

int main(int argc, char **argv) {
    const char *part = argc > 1 ? argv[1] : "all";
    self_path = argv[0];
    srand(1234);
    fe_handle *h;
    FE(fe_handle_create(0, &h));
    if (!strcmp(part, "--child") && argc > 4) return child_build(argv, h);
    int all = !strcmp(part, "all");
    if (all || !strcmp(part, "build")) {
        int64_t ms[32], hws[16];
        for (int i = 0; i < 32; ++i) ms[i] = 64 + 61 * i; /* 64 .. 1955 tokens, odd steps */
        for (int i = 0; i < 16; ++i) hws[i] = 14 + 4 * i;  /* 14 .. 74 */
        build_times("matmul_bias_gelu", "matmul", "m", ms, 32, ffn_up, h);
        build_times("conv_bias_relu", "conv", "hw", hws, 16, conv_block, h);
    }
    if (all || !strcmp(part, "kernels")) {
        fe_kernel_cache *cache;
        FE(fe_kernel_cache_create(&cache));
        for (int64_t m = 128; m <= 4096; m *= 4) time_kernels("matmul_bias_gelu", "m", m, ffn_up, 1, h, cache);
        fe_kernel_cache_destroy(cache);
        FE(fe_kernel_cache_create(&cache));
        for (int64_t hw = 14; hw <= 56; hw *= 2) time_kernels("conv_bias_relu", "hw", hw, conv_block, 0, h, cache);
        fe_kernel_cache_destroy(cache);
    }
    if (all || !strcmp(part, "families")) families(h);
    if (all || !strcmp(part, "threads")) threads(h);
    fe_handle_destroy(h);
    return 0;
}
