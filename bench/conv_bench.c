/*
 * conv_bench: the convolution layers of ResNet-50 through cudnnfe, in the three directions of
 * training, timed on the GPU.
 *
 *   conv_bench [LAYER|all] [fp16|bf16|all] [fprop|dgrad|wgrad|all] [batches] [calls]
 *   conv_bench --list
 *
 * Batch 64, channels-last (NHWC) fp16 or bf16 with fp32 math, the 23 distinct convolutions of
 * ResNet-50 v1.5 (224x224 input; the stride of each bottleneck sits in its 3x3 convolution).
 * fprop: x, w -> y; dgrad: dy, w -> dx; wgrad: x, dy -> dw. Each graph is built with cudnnfe's
 * default heuristics (mode A, then FALLBACK; the first plan that builds) or, with the environment
 * variable CUDNNFE_BENCH_AUTOTUNE=N, autotuned: the fastest of the first N candidates, and with
 * CUDNNFE_BENCH_KNOB_SEARCH=R also up to R rounds of autotuning's knob search
 * (fe_build_options.autotune_knob_search), or with CUDNNFE_BENCH_CONFIG=TAG exactly the engine config
 * that tag names ("eng62_k2=0_k27=2", as "engine" prints it). "build_ms" is the build's wall time.
 *
 * Timing, as kernel_bench does: each batch enqueues `calls` executions between two CUDA events,
 * rotating over 4 sets of inputs (so repeated calls do not all hit L2 with the same data) and
 * writing one output buffer (see CUDNNFE_BENCH_OUTPUT below); the
 * median per call over the batches, issued eagerly ("eager_us", host launch cost included) and
 * captured once in a CUDA graph and replayed ("graph_us": kernel time without launch gaps, the
 * basis of TFLOP/s, 2 * N * K * C * R * S * OH * OW flops in every direction).
 *
 * One line of key=value pairs per configuration; a configuration that does not build prints
 * its error and the run goes on.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SETS 4
#include "graph_timer.h"
#define BATCH 64

/* A convolution of ResNet-50: channels in and out, input size, filter, stride, padding, and how
 * many of the network's 53 convolutions have this shape. */
typedef struct layer {
    const char *name;
    int64_t c, k, size, filter, stride, pad, count;
} layer;

static const layer layers[] = {
    {"conv1_7x7_s2", 3, 64, 224, 7, 2, 3, 1},
    {"l1_1x1_64_64", 64, 64, 56, 1, 1, 0, 1},
    {"l1_3x3_64", 64, 64, 56, 3, 1, 1, 3},
    {"l1_1x1_64_256", 64, 256, 56, 1, 1, 0, 4}, /* 3 expansions and the downsample (stride 1) */
    {"l1_1x1_256_64", 256, 64, 56, 1, 1, 0, 2},
    {"l2_1x1_256_128", 256, 128, 56, 1, 1, 0, 1},
    {"l2_3x3_128_s2", 128, 128, 56, 3, 2, 1, 1},
    {"l2_1x1_128_512", 128, 512, 28, 1, 1, 0, 4},
    {"l2_down_256_512_s2", 256, 512, 56, 1, 2, 0, 1},
    {"l2_1x1_512_128", 512, 128, 28, 1, 1, 0, 3},
    {"l2_3x3_128", 128, 128, 28, 3, 1, 1, 3},
    {"l3_1x1_512_256", 512, 256, 28, 1, 1, 0, 1},
    {"l3_3x3_256_s2", 256, 256, 28, 3, 2, 1, 1},
    {"l3_1x1_256_1024", 256, 1024, 14, 1, 1, 0, 6},
    {"l3_down_512_1024_s2", 512, 1024, 28, 1, 2, 0, 1},
    {"l3_1x1_1024_256", 1024, 256, 14, 1, 1, 0, 5},
    {"l3_3x3_256", 256, 256, 14, 3, 1, 1, 5},
    {"l4_1x1_1024_512", 1024, 512, 14, 1, 1, 0, 1},
    {"l4_3x3_512_s2", 512, 512, 14, 3, 2, 1, 1},
    {"l4_1x1_512_2048", 512, 2048, 7, 1, 1, 0, 3},
    {"l4_down_1024_2048_s2", 1024, 2048, 14, 1, 2, 0, 1},
    {"l4_1x1_2048_512", 2048, 512, 7, 1, 1, 0, 2},
    {"l4_3x3_512", 512, 512, 7, 3, 1, 1, 2},
};
#define LAYERS (sizeof layers / sizeof layers[0])

enum direction { FPROP, DGRAD, WGRAD };
static const char *direction_names[] = {"fprop", "dgrad", "wgrad"};

static int64_t out_size(const layer *l) { return (l->size + 2 * l->pad - l->filter) / l->stride + 1; }

/* Device buffers for x, w and y (y doubles as dy, x as dx and w as dw), SETS of each. */
typedef struct buffers {
    void *x[SETS], *w[SETS], *y[SETS];
} buffers;

static void *device_copy_of(const char *random, int64_t bytes, int64_t offset) {
    void *p;
    CU(cudaMalloc(&p, (size_t)bytes));
    CU(cudaMemcpy(p, random + offset, (size_t)bytes, cudaMemcpyDeviceToDevice));
    return p;
}

static fe_tensor *nhwc(fe_graph *g, const char *name, int64_t n, int64_t c, int64_t h, int64_t w) {
    int64_t dims[4] = {n, c, h, w}, strides[4];
    fe_tensor *t;
    FE(fe_strides_channels_last(4, dims, strides));
    FE(fe_graph_tensor(g, name, 4, dims, strides, FE_DATA_NOT_SET, &t));
    return t;
}

struct Calls {
    fe_graph *graph;
    fe_handle *handle;
    void *(*pointers)[3];
};

static void enqueue(void *context, int set, cudaStream_t stream) {
    struct Calls *c = context;
    (void)stream; /* the handle's stream */
    FE(fe_graph_execute_positional(c->graph, c->handle, c->pointers[set], 3, NULL));
}

/* CUDNNFE_BENCH_CONFIG=eng62_k2=0_k27=2: build exactly this engine config (the tag
 * fe_graph_engine_tag prints), to time a plan another library or an earlier run chose. */
static fe_status build_config(fe_graph *g, fe_handle *handle, const char *tag) {
    fe_knob_choice knobs[64];
    size_t n = 0;
    long long engine = strtoll(tag + 3, NULL, 10);
    for (const char *at = strstr(tag, "_k"); at && n < 64; at = strstr(at + 1, "_k")) {
        knobs[n].type = atoi(at + 2);
        knobs[n].value = strtoll(strchr(at, '=') + 1, NULL, 10);
        ++n;
    }
    fe_status s = fe_graph_build_operation_graph(g, handle);
    if (s == FE_OK) s = fe_graph_add_candidate(g, engine, knobs, n);
    if (s == FE_OK) s = fe_graph_check_support(g);
    if (s == FE_OK) s = fe_graph_build_plans(g, FE_BUILD_POLICY_HEURISTICS_CHOICE);
    return s;
}

static void run(const layer *l, fe_data_type type, enum direction dir, const buffers *b, fe_handle *handle,
                cudaStream_t stream, int batches, int calls) {
    const int64_t o = out_size(l);
    const char *type_name = type == FE_DATA_HALF ? "fp16" : "bf16";
    printf("layer=%s dir=%s type=%s n=%d c=%lld k=%lld h=%lld r=%lld stride=%lld pad=%lld out=%lld count=%lld ",
           l->name, direction_names[dir], type_name, BATCH, (long long)l->c, (long long)l->k, (long long)l->size,
           (long long)l->filter, (long long)l->stride, (long long)l->pad, (long long)o, (long long)l->count);
    fflush(stdout);

    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.name = l->name;
    go.io_data_type = type;
    go.compute_data_type = FE_DATA_FLOAT;
    fe_graph *g;
    FE(fe_graph_create(&go, &g));
    fe_conv_options conv = FE_CONV_OPTIONS_INIT;
    int64_t pad[2] = {l->pad, l->pad}, stride[2] = {l->stride, l->stride};
    FE(fe_conv_options_set_padding(&conv, 2, pad));
    FE(fe_conv_options_set_stride(&conv, 2, stride));
    int64_t w_dims[4] = {l->k, l->c, l->filter, l->filter}, x_dims[4] = {BATCH, l->c, l->size, l->size};
    fe_tensor *out;
    fe_status s;
    void *pointers[SETS][3]; /* positional: the inputs in creation order, then the output */
    switch (dir) {
        case FPROP: {
            fe_tensor *x = nhwc(g, "x", BATCH, l->c, l->size, l->size);
            fe_tensor *w = nhwc(g, "w", l->k, l->c, l->filter, l->filter);
            s = fe_graph_conv_fprop(g, x, w, &conv, &out);
            for (int i = 0; i < SETS; ++i) {
                pointers[i][0] = b->x[i];
                pointers[i][1] = b->w[i];
                pointers[i][2] = b->y[i];
            }
            break;
        }
        case DGRAD: {
            fe_tensor *dy = nhwc(g, "dy", BATCH, l->k, o, o), *w = nhwc(g, "w", l->k, l->c, l->filter, l->filter);
            s = fe_graph_conv_dgrad(g, dy, w, 4, x_dims, &conv, &out);
            for (int i = 0; i < SETS; ++i) {
                pointers[i][0] = b->y[i];
                pointers[i][1] = b->w[i];
                pointers[i][2] = b->x[i];
            }
            break;
        }
        default: {
            fe_tensor *x = nhwc(g, "x", BATCH, l->c, l->size, l->size), *dy = nhwc(g, "dy", BATCH, l->k, o, o);
            /* dw's dims are given: with stride 2 two filter sizes can give the same dy. */
            s = fe_graph_conv_wgrad(g, x, dy, 4, w_dims, &conv, &out);
            for (int i = 0; i < SETS; ++i) {
                pointers[i][0] = b->x[i];
                pointers[i][1] = b->y[i];
                pointers[i][2] = b->w[i];
            }
            break;
        }
    }
    /* Every call writes the same output buffer, as PyTorch's calls do (its caching allocator
     * hands each call's output the block the previous call's result freed): a layer that
     * writes a fresh buffer each call pays for evicting the last one's dirty lines from L2,
     * 2 of 15 us on l3_1x1_1024_256. CUDNNFE_BENCH_OUTPUT=rotate rotates outputs with the inputs. */
    const char *output_mode = getenv("CUDNNFE_BENCH_OUTPUT");
    if (!output_mode || strcmp(output_mode, "rotate") != 0)
        for (int i = 1; i < SETS; ++i) pointers[i][2] = pointers[0][2];
    double build_ms = 0;
    if (s == FE_OK) s = fe_tensor_set_output(out, 1);
    if (s == FE_OK) {
        /* CUDNNFE_BENCH_AUTOTUNE=N: time up to N candidate plans and keep the fastest. */
        fe_build_options build = FE_BUILD_OPTIONS_INIT;
        const char *autotune = getenv("CUDNNFE_BENCH_AUTOTUNE");
        if (autotune && atoi(autotune) > 0) {
            build.autotune = 1;
            build.autotune_candidates = atoi(autotune);
        }
        const char *search = getenv("CUDNNFE_BENCH_KNOB_SEARCH");
        if (search) build.autotune_knob_search = atoi(search);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        const char *config = getenv("CUDNNFE_BENCH_CONFIG");
        s = config && *config ? build_config(g, handle, config) : fe_graph_build(g, handle, &build);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        build_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
    }
    if (s != FE_OK) {
        printf("error=%s message=\"%s\"\n", fe_status_string(s), fe_last_error_message());
        fe_graph_destroy(g);
        return;
    }
    /* CUDNNFE_BENCH_SETTLE_MS=T: idle T ms before timing. An autotuned build leaves the GPU near
     * its power limit, with its clock lowered for a while: timed at once, an autotuned plan ran
     * up to 4% slower than the same plan built directly. conv_compare.py settles both sides. */
    const char *settle = getenv("CUDNNFE_BENCH_SETTLE_MS");
    if (settle && atoi(settle) > 0) {
        CU(cudaStreamSynchronize(stream));
        struct timespec pause = {atoi(settle) / 1000, (long)(atoi(settle) % 1000) * 1000000L};
        nanosleep(&pause, NULL);
    }
    /* Warm-up, which also grows the handle's workspace before any capture. */
    for (int i = 0; i < 20; ++i) FE(fe_graph_execute_positional(g, handle, pointers[i % SETS], 3, NULL));
    CU(cudaStreamSynchronize(stream));
    struct Calls c = {g, handle, pointers};
    double eager = time_eager(enqueue, &c, batches, calls, stream);
    double graphed = time_graph(enqueue, &c, batches, calls, stream);
    double flops = 2.0 * BATCH * (double)l->k * (double)l->c * (double)(l->filter * l->filter) * (double)(o * o);
    int64_t ws = 0;
    FE(fe_graph_workspace_size(g, &ws));
    printf("eager_us=%.2f graph_us=%.2f tflops=%.1f engine=%s workspace=%lld build_ms=%.0f\n", eager, graphed,
           flops / (graphed * 1e-6) / 1e12, engine_tag(g), (long long)ws, build_ms);
    fflush(stdout);
    fe_graph_destroy(g);
}

static int matches(const char *pattern, const char *name) { return !strcmp(pattern, "all") || !strcmp(pattern, name); }

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--list")) {
        for (size_t i = 0; i < LAYERS; ++i) printf("%s\n", layers[i].name);
        return 0;
    }
    const char *which = argc > 1 ? argv[1] : "all", *types = argc > 2 ? argv[2] : "all";
    const char *dirs = argc > 3 ? argv[3] : "all";
    int batches = argc > 4 ? atoi(argv[4]) : 10, calls = argc > 5 ? atoi(argv[5]) : 20;
    if (batches < 1 || calls < 1) {
        fprintf(stderr, "usage: conv_bench [LAYER|all] [fp16|bf16|all] [fprop|dgrad|wgrad|all] [batches] [calls]\n");
        return 2;
    }
    fe_handle *handle;
    FE(fe_handle_create(0, &handle));
    cudaStream_t stream;
    CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    FE(fe_handle_set_stream(handle, stream));

    /* Random values in each type, made once on the device; every buffer is a copy of a slice. */
    int64_t largest = 0;
    for (size_t i = 0; i < LAYERS; ++i) {
        const layer *l = &layers[i];
        int64_t o = out_size(l), sizes[3] = {BATCH * l->c * l->size * l->size, BATCH * l->k * o * o,
                                              l->k * l->c * l->filter * l->filter};
        for (int j = 0; j < 3; ++j) largest = sizes[j] > largest ? sizes[j] : largest;
    }
    const int64_t spread = 4099; /* elements between the slices of the 4 sets */
    const int64_t random_count = largest + SETS * spread;
    float *host = malloc((size_t)random_count * sizeof(float));
    srand(1234);
    for (int64_t i = 0; i < random_count; ++i) host[i] = (float)rand() / (float)RAND_MAX * 2.f - 1.f;
    fe_data_type kinds[2] = {FE_DATA_HALF, FE_DATA_BFLOAT16};
    fe_buffer *random[2];
    for (int t = 0; t < 2; ++t) {
        FE(fe_buffer_create(0, random_count * 2, &random[t]));
        FE(fe_buffer_upload_float(random[t], host, random_count, kinds[t]));
    }
    free(host);

    int ran = 0;
    for (size_t i = 0; i < LAYERS; ++i) {
        const layer *l = &layers[i];
        if (!matches(which, l->name)) continue;
        for (int t = 0; t < 2; ++t) {
            if (!matches(types, t == 0 ? "fp16" : "bf16")) continue;
            void *random_pointer;
            FE(fe_buffer_device_pointer(random[t], &random_pointer));
            const char *source = random_pointer;
            int64_t o = out_size(l);
            buffers b;
            for (int sidx = 0; sidx < SETS; ++sidx) {
                int64_t offset = sidx * spread * 2;
                b.x[sidx] = device_copy_of(source, BATCH * l->c * l->size * l->size * 2, offset);
                b.y[sidx] = device_copy_of(source, BATCH * l->k * o * o * 2, offset);
                b.w[sidx] = device_copy_of(source, l->k * l->c * l->filter * l->filter * 2, offset);
            }
            CU(cudaDeviceSynchronize()); /* the copies ran on the legacy stream, the timing runs on `stream` */
            for (int d = 0; d < 3; ++d)
                if (matches(dirs, direction_names[d])) {
                    run(l, kinds[t], (enum direction)d, &b, handle, stream, batches, calls);
                    ++ran;
                }
            CU(cudaStreamSynchronize(stream));
            for (int sidx = 0; sidx < SETS; ++sidx) {
                CU(cudaFree(b.x[sidx]));
                CU(cudaFree(b.y[sidx]));
                CU(cudaFree(b.w[sidx]));
            }
        }
    }
    if (!ran) fprintf(stderr, "no configuration matches '%s %s %s' (see --list)\n", which, types, dirs);
    for (int t = 0; t < 2; ++t) fe_buffer_destroy(random[t]);
    FE(fe_handle_set_stream(handle, NULL));
    CU(cudaStreamDestroy(stream));
    fe_handle_destroy(handle);
    return ran ? 0 : 2;
}
