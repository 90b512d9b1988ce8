/*
 * host_time_bench: the host's cost of fe_graph_execute per op family, with the stream held back
 * (host_timer.h), beside the GPU's time per step (graph_timer.h: the same calls captured in a
 * CUDA graph). Bindings stay the same from call to call (same), change every call between two sets
 * of buffers in turn (changing: double buffering, a training loop's alternating activations), or are
 * new to the handle at every call (new: six sets in turn, more than the four variant packs a handle
 * keeps).
 *
 *   host_time_bench attention|decode|attention_backward|matmul|conv|layernorm|all [rounds] [calls]
 *
 * attention: bf16 b 1, h 1, s 64/64, d 64 (the smallest); decode: bf16 b 8, 32/8 heads, 1 query,
 * 2048 keys, d 128; attention_backward: the first's backward; matmul: bf16 1024^3; conv: half
 * NHWC 8x64x56x56 * 32x64x3x3, padding 1; layernorm: bf16 4096 x 1024, training. Random inputs.
 * Prints one line of key=value pairs a graph: host_us_same, host_us_changing, host_us_new (medians
 * over `rounds` of `calls` calls), gpu_us (per call) and the plan's engine.
 *
 * cuDNN's floor: run with CUDNNFE_CUDNN_LIBRARY naming libcudnn_floor.so (bench/cudnn_floor.c,
 * built beside this program; CUDNN_FLOOR_REAL names the real cuDNN when libcudnn.so.9 is not on
 * the library path) and each line adds cudnn_us_inside (the mean host time spent inside
 * cuDNN's cudnnBackendExecute during the same-bindings rounds), cudnn_us_alone (cuDNN's execute
 * called alone on the plan and variant pack cudnnfe last passed it, timed as the others, its
 * rounds taken in turn with cudnnfe's), over_cudnn_us (per round pair, cudnnfe's call less cuDNN's
 * alone) and own_us (cudnnfe's call less the time inside cuDNN's, in the same calls: cudnnfe's
 * own code, with the timing hook's two clock reads); for bindings new at every call,
 * cudnn_us_new_inside (cuDNN's execute and the variant pack's descriptor calls, per call) and
 * own_us_new (the rest).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "host_timer.h"

#define MAX_BOUND 16
/* Buffer sets taken in turn for host_us_new: more than the handle keeps variant packs for (4),
 * so that every call's bindings are new to it. */
#define ROTATED_SETS 6

struct Bench {
    fe_handle *handle;
    fe_graph *graph;
    fe_tensor *tensors[MAX_BOUND];
    void *pointers[ROTATED_SETS][MAX_BOUND];
    size_t count;
};

static void enqueue(void *context, int set, cudaStream_t stream) {
    struct Bench *b = context;
    (void)stream; /* the handle's stream */
    FE(fe_graph_execute(b->graph, b->handle, b->tensors, b->pointers[set], b->count, NULL));
}

/* libcudnn_floor's functions, when the library cudnnfe loaded as cuDNN is that one. */
static void (*floor_take)(int64_t *ns, int64_t *calls);
static int64_t (*floor_take_descriptors)(void);
static int (*floor_replay)(void);

static void find_floor(void) {
    const char *path = getenv("CUDNNFE_CUDNN_LIBRARY");
    void *lib = path && *path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (!lib) return;
    *(void **)&floor_take = dlsym(lib, "cudnn_floor_take");
    *(void **)&floor_replay = dlsym(lib, "cudnn_floor_replay");
    *(void **)&floor_take_descriptors = dlsym(lib, "cudnn_floor_take_descriptors");
    if (!floor_take || !floor_replay || !floor_take_descriptors)
        floor_take = NULL, floor_replay = NULL, floor_take_descriptors = NULL;
}

static void replay_cudnn(void *context, int set, cudaStream_t stream) {
    (void)context, (void)set, (void)stream;
    int status = floor_replay();
    if (status != 0) {
        fprintf(stderr, "host_time_bench: cuDNN's execute alone failed with status %d\n", status);
        exit(1);
    }
}

/* cudnnfe's execute split from cuDNN's own work in the same calls, medians over rounds: whole (us
 * per call), inside (us in cuDNN's calls: its execute, and the descriptor calls of a variant pack
 * made for bindings new to the handle), own (whole less inside: cudnnfe's code, with the timing
 * hooks' clock reads). With the same bindings every call (sets 1), a round of cuDNN's execute
 * alone follows each round of cudnnfe's, so both see the same state of the machine: alone (us)
 * and over (per round pair, cudnnfe's call less cuDNN's alone). */
struct Split {
    double whole, inside, own, alone, over;
};

static struct Split beside_cudnn(struct Bench *b, int rounds, int calls, int sets, cudaStream_t stream) {
    host_warm_up(enqueue, b, sets, stream);
    if (sets == 1) host_warm_up(replay_cudnn, NULL, 1, stream);
    float *v[5];
    for (int i = 0; i < 5; ++i) v[i] = calloc((size_t)rounds, sizeof(float));
    float *whole = v[0], *inside = v[1], *own = v[2], *alone = v[3], *over = v[4];
    for (int r = 0; r < rounds; ++r) {
        int64_t ns = 0, count = 0;
        floor_take(&ns, &count); /* reset */
        floor_take_descriptors();
        whole[r] = (float)host_us_round(enqueue, b, calls, sets, stream);
        floor_take(&ns, &count);
        ns += floor_take_descriptors();
        inside[r] = (float)((double)ns / 1e3 / calls);
        own[r] = whole[r] - inside[r];
        if (sets != 1) continue;
        alone[r] = (float)host_us_round(replay_cudnn, NULL, calls, 1, stream);
        over[r] = whole[r] - alone[r];
    }
    struct Split out = {median_of(whole, rounds), median_of(inside, rounds), median_of(own, rounds),
                        median_of(alone, rounds), median_of(over, rounds)};
    for (int i = 0; i < 5; ++i) free(v[i]);
    return out;
}

static fe_tensor *tensor(fe_graph *g, const char *name, int64_t n0, int64_t n1, int64_t n2, int64_t n3,
                         fe_data_type type) {
    int64_t dims[4] = {n0, n1, n2, n3};
    fe_tensor *t;
    FE(fe_graph_tensor(g, name, 4, dims, NULL, type, &t));
    return t;
}

static fe_tensor *channels_last(fe_graph *g, const char *name, int64_t n0, int64_t n1, int64_t n2, int64_t n3,
                                fe_data_type type) {
    int64_t dims[4] = {n0, n1, n2, n3}, strides[4];
    FE(fe_strides_channels_last(4, dims, strides));
    fe_tensor *t;
    FE(fe_graph_tensor(g, name, 4, dims, strides, type, &t));
    return t;
}

static void outputs(fe_tensor *a, fe_tensor *b, fe_tensor *c) {
    fe_tensor *all[3] = {a, b, c};
    for (int i = 0; i < 3; ++i)
        if (all[i]) FE(fe_tensor_set_output(all[i], 1));
}

static fe_graph *make_graph(const char *which) {
    fe_graph *g = NULL;
    fe_tensor *y = NULL, *z = NULL, *w = NULL;
    if (!strcmp(which, "attention") || !strcmp(which, "decode")) {
        const int decode = !strcmp(which, "decode");
        g = bench_graph(which, FE_DATA_BFLOAT16);
        const int64_t b = decode ? 8 : 1, hq = decode ? 32 : 1, hk = decode ? 8 : 1, sq = decode ? 1 : 64,
                      skv = decode ? 2048 : 64, d = decode ? 128 : 64;
        fe_tensor *q = tensor(g, "q", b, hq, sq, d, FE_DATA_NOT_SET), *k = tensor(g, "k", b, hk, skv, d, FE_DATA_NOT_SET);
        fe_tensor *v = tensor(g, "v", b, hk, skv, d, FE_DATA_NOT_SET);
        fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
        o.attn_scale = decode ? 0.08838834764831845 : 0.125;
        FE(fe_graph_sdpa(g, q, k, v, &o, &y, NULL));
    } else if (!strcmp(which, "attention_backward")) {
        g = bench_graph(which, FE_DATA_BFLOAT16);
        fe_tensor *q = tensor(g, "q", 1, 1, 64, 64, FE_DATA_NOT_SET), *k = tensor(g, "k", 1, 1, 64, 64, FE_DATA_NOT_SET);
        fe_tensor *v = tensor(g, "v", 1, 1, 64, 64, FE_DATA_NOT_SET), *o = tensor(g, "o", 1, 1, 64, 64, FE_DATA_NOT_SET);
        fe_tensor *d_o = tensor(g, "dO", 1, 1, 64, 64, FE_DATA_NOT_SET), *stats = tensor(g, "stats", 1, 1, 64, 1, FE_DATA_FLOAT);
        fe_sdpa_backward_options bo = FE_SDPA_BACKWARD_OPTIONS_INIT;
        bo.attn_scale = 0.125;
        FE(fe_graph_sdpa_backward(g, q, k, v, o, d_o, stats, &bo, &y, &z, &w));
    } else if (!strcmp(which, "matmul")) {
        g = bench_graph(which, FE_DATA_BFLOAT16);
        int64_t dims[3] = {1, 1024, 1024};
        fe_tensor *a, *b;
        FE(fe_graph_tensor(g, "a", 3, dims, NULL, FE_DATA_NOT_SET, &a));
        FE(fe_graph_tensor(g, "b", 3, dims, NULL, FE_DATA_NOT_SET, &b));
        FE(fe_graph_matmul(g, a, b, NULL, &y));
    } else if (!strcmp(which, "conv")) {
        g = bench_graph(which, FE_DATA_HALF);
        fe_tensor *x = channels_last(g, "x", 8, 64, 56, 56, FE_DATA_NOT_SET);
        fe_tensor *f = channels_last(g, "w", 32, 64, 3, 3, FE_DATA_NOT_SET);
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        int64_t pad[2] = {1, 1};
        FE(fe_conv_options_set_padding(&o, 2, pad));
        FE(fe_graph_conv_fprop(g, x, f, &o, &y));
    } else if (!strcmp(which, "layernorm")) {
        g = bench_graph(which, FE_DATA_BFLOAT16);
        fe_tensor *x = channels_last(g, "x", 4096, 1024, 1, 1, FE_DATA_NOT_SET);
        fe_tensor *scale = channels_last(g, "scale", 1, 1024, 1, 1, FE_DATA_FLOAT);
        fe_tensor *bias = channels_last(g, "bias", 1, 1024, 1, 1, FE_DATA_FLOAT);
        fe_norm_options o = FE_NORM_OPTIONS_INIT;
        o.phase = FE_NORM_PHASE_TRAINING;
        o.epsilon = 1e-5;
        FE(fe_graph_layernorm(g, x, scale, bias, &o, &y, &z, &w));
    } else {
        return NULL;
    }
    outputs(y, z, w);
    return g;
}

/* Every input and output of the built graph, bound to ROTATED_SETS sets of buffers (inputs random). */
static void bind_all(struct Bench *b) {
    size_t inputs, outs;
    FE(fe_graph_input_count(b->graph, &inputs));
    FE(fe_graph_output_count(b->graph, &outs));
    b->count = 0;
    for (size_t i = 0; i < inputs + outs && b->count < MAX_BOUND; ++i) {
        fe_tensor *t;
        if (i < inputs)
            FE(fe_graph_input(b->graph, i, &t));
        else
            FE(fe_graph_output(b->graph, i - inputs, &t));
        b->tensors[b->count] = t;
        for (int s = 0; s < ROTATED_SETS; ++s) {
            fe_buffer *buffer; /* kept for the process's life */
            FE(fe_buffer_create_for_tensor(0, t, &buffer));
            if (i < inputs) fill_random(buffer, t, -1.f, 1.f);
            FE(fe_buffer_device_pointer(buffer, &b->pointers[s][b->count]));
        }
        ++b->count;
    }
}

static void run(const char *which, fe_handle *handle, cudaStream_t stream, int rounds, int calls) {
    struct Bench b = {handle, make_graph(which), {0}, {{0}}, 0};
    if (!b.graph) {
        fprintf(stderr, "host_time_bench: unknown graph %s\n", which);
        exit(2);
    }
    FE(fe_graph_build(b.graph, handle, NULL));
    bind_all(&b);
    struct Split same = {0}, fresh = {0};
    if (floor_replay) {
        same = beside_cudnn(&b, rounds, calls, 1, stream);
        fresh = beside_cudnn(&b, rounds, calls, ROTATED_SETS, stream);
    } else {
        same.whole = host_us_per_call(enqueue, &b, rounds, calls, 1, stream);
        fresh.whole = host_us_per_call(enqueue, &b, rounds, calls, ROTATED_SETS, stream);
    }
    double changing = host_us_per_call(enqueue, &b, rounds, calls, SETS, stream);
    double gpu = time_graph(enqueue, &b, rounds, calls, stream);
    printf("graph=%s host_us_same=%.2f host_us_changing=%.2f host_us_new=%.2f gpu_us=%.2f engine=%s rounds=%d "
           "calls=%d",
           which, same.whole, changing, fresh.whole, gpu, engine_tag(b.graph), rounds, calls);
    if (floor_replay)
        printf(" cudnn_us_inside=%.2f cudnn_us_alone=%.2f over_cudnn_us=%.2f own_us=%.2f cudnn_us_new_inside=%.2f "
               "own_us_new=%.2f",
               same.inside, same.alone, same.over, same.own, fresh.inside, fresh.own);
    printf("\n");
    fflush(stdout);
    fe_graph_destroy(b.graph);
}

int main(int argc, char **argv) {
    const char *which = argc > 1 ? argv[1] : "all";
    const int rounds = argc > 2 ? atoi(argv[2]) : 15, calls = argc > 3 ? atoi(argv[3]) : 200;
    srand(1234);
    fe_handle *handle;
    FE(fe_handle_create(0, &handle));
    cudaStream_t stream;
    CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    FE(fe_handle_set_stream(handle, stream));
    find_floor();
    const char *all[] = {"attention", "decode", "attention_backward", "matmul", "conv", "layernorm"};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        if (!strcmp(which, "all") || !strcmp(which, all[i])) run(all[i], handle, stream, rounds, calls);
    FE(fe_handle_set_stream(handle, NULL));
    CU(cudaStreamDestroy(stream));
    fe_handle_destroy(handle);
    return 0;
}
