/*
 * swiglu_bench: the SwiGLU feed-forward's first half, y = silu(x Wg) * (x Wu), as one cudnnfe
 * graph (two matmuls reading the same x, joined by silu and a multiply), the same graph autotuned
 * (its heuristics' first candidates timed, the fastest kept), or split as a user without the fused
 * graph would run it: two matmul graphs writing gate and up in bfloat16, then a pointwise graph.
 *
 *   swiglu_bench one|tuned|split TOKENS MODEL HIDDEN [batches] [calls]
 *
 * bfloat16 x [TOKENS, MODEL], Wg and Wu [MODEL, HIDDEN] (row-major, random values), y [TOKENS,
 * HIDDEN]; float math. Timing as graph_timer.h. Prints one line of key=value pairs; TFLOP/s
 * counts the two matmuls (4 * TOKENS * MODEL * HIDDEN).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <string.h>

#include "graph_timer.h"

enum { X, W_GATE, W_UP, GATE, UP, Y, BUFFERS };

struct Swiglu {
    fe_handle *handle;
    fe_graph *graphs[3];
    size_t graph_count;
    fe_tensor *tensors[3][BUFFERS]; /* each graph's tensor for a buffer, or NULL */
    void *pointers[SETS][BUFFERS];
};

static void enqueue(void *context, int set, cudaStream_t stream) {
    struct Swiglu *s = context;
    (void)stream; /* the handle's stream, set before capture */
    for (size_t g = 0; g < s->graph_count; ++g) {
        fe_tensor *bound[BUFFERS];
        void *pointers[BUFFERS];
        size_t n = 0;
        for (int b = 0; b < BUFFERS; ++b)
            if (s->tensors[g][b]) {
                bound[n] = s->tensors[g][b];
                pointers[n++] = s->pointers[set][b];
            }
        FE(fe_graph_execute(s->graphs[g], s->handle, bound, pointers, n, NULL));
    }
}

static fe_tensor *matrix(fe_graph *g, const char *name, int64_t rows, int64_t cols) {
    int64_t dims[3] = {1, rows, cols};
    fe_tensor *t;
    FE(fe_graph_tensor(g, name, 3, dims, NULL, FE_DATA_BFLOAT16, &t));
    return t;
}

int main(int argc, char **argv) {
    if (argc < 5 || (strcmp(argv[1], "one") && strcmp(argv[1], "tuned") && strcmp(argv[1], "split"))) {
        fprintf(stderr, "usage: swiglu_bench one|tuned|split TOKENS MODEL HIDDEN [batches] [calls]\n");
        return 2;
    }
    const int split = strcmp(argv[1], "split") == 0, tuned = strcmp(argv[1], "tuned") == 0;
    const int64_t tokens = atoll(argv[2]), model = atoll(argv[3]), hidden = atoll(argv[4]);
    const int batches = argc > 5 ? atoi(argv[5]) : 20, calls = argc > 6 ? atoi(argv[6]) : 10;
    srand(1234);
    struct Swiglu s = {0};
    FE(fe_handle_create(0, &s.handle));
    fe_tensor *y = NULL;
    if (!split) {
        fe_graph *g = s.graphs[s.graph_count++] = bench_graph("swiglu", FE_DATA_BFLOAT16);
        fe_tensor **t = s.tensors[0];
        t[X] = matrix(g, "x", tokens, model);
        t[W_GATE] = matrix(g, "w_gate", model, hidden);
        t[W_UP] = matrix(g, "w_up", model, hidden);
        fe_tensor *gate, *up, *activated;
        FE(fe_graph_matmul(g, t[X], t[W_GATE], NULL, &gate));
        FE(fe_graph_matmul(g, t[X], t[W_UP], NULL, &up));
        FE(fe_graph_silu(g, gate, NULL, &activated));
        FE(fe_graph_mul(g, activated, up, NULL, &y));
        t[Y] = y;
    } else {
        for (int which = GATE; which <= UP; ++which) {
            fe_graph *g = s.graphs[s.graph_count] = bench_graph(which == GATE ? "gate" : "up", FE_DATA_BFLOAT16);
            fe_tensor **t = s.tensors[s.graph_count++];
            int weight = which == GATE ? W_GATE : W_UP;
            t[X] = matrix(g, "x", tokens, model);
            t[weight] = matrix(g, "w", model, hidden);
            FE(fe_graph_matmul(g, t[X], t[weight], NULL, &t[which]));
            FE(fe_tensor_set_output(t[which], 1));
        }
        fe_graph *g = s.graphs[s.graph_count] = bench_graph("silu_mul", FE_DATA_BFLOAT16);
        fe_tensor **t = s.tensors[s.graph_count++];
        t[GATE] = matrix(g, "gate", tokens, hidden);
        t[UP] = matrix(g, "up", tokens, hidden);
        fe_tensor *activated;
        FE(fe_graph_silu(g, t[GATE], NULL, &activated));
        FE(fe_graph_mul(g, activated, t[UP], NULL, &y));
        t[Y] = y;
    }
    FE(fe_tensor_set_output(y, 1));
    fe_build_options build = FE_BUILD_OPTIONS_INIT;
    build.autotune = tuned;
    for (size_t g = 0; g < s.graph_count; ++g) FE(fe_graph_build(s.graphs[g], s.handle, &build));

    /* One buffer per set for each of x, the weights, gate, up and y, shared by the graphs. */
    fe_buffer *buffers[SETS][BUFFERS] = {{0}};
    const int64_t rows[BUFFERS] = {tokens, model, model, tokens, tokens, tokens};
    const int64_t cols[BUFFERS] = {model, hidden, hidden, hidden, hidden, hidden};
    for (int set = 0; set < SETS; ++set)
        for (int b = 0; b < BUFFERS; ++b) {
            if (!split && (b == GATE || b == UP)) continue;
            FE(fe_buffer_create(0, rows[b] * cols[b] * 2, &buffers[set][b]));
            FE(fe_buffer_device_pointer(buffers[set][b], &s.pointers[set][b]));
            if (b <= W_UP) {
                fe_tensor *t = s.tensors[0][b] ? s.tensors[0][b] : s.tensors[1][b];
                fill_random(buffers[set][b], t, -1.f, 1.f);
            }
        }
    cudaStream_t stream;
    CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    FE(fe_handle_set_stream(s.handle, stream));
    double us = time_graph(enqueue, &s, batches, calls, stream);
    const double flops = 4.0 * (double)tokens * (double)model * (double)hidden;
    printf("form=%s tokens=%lld model=%lld hidden=%lld graph_us=%.2f tflops=%.1f engine=%s batches=%d calls=%d\n",
           argv[1], (long long)tokens, (long long)model, (long long)hidden, us, flops / (us * 1e6),
           engine_tag(s.graphs[0]), batches, calls);
    FE(fe_handle_set_stream(s.handle, NULL));
    CU(cudaStreamDestroy(stream));
    for (int set = 0; set < SETS; ++set)
        for (int b = 0; b < BUFFERS; ++b) fe_buffer_destroy(buffers[set][b]);
    for (size_t g = 0; g < s.graph_count; ++g) fe_graph_destroy(s.graphs[g]);
    fe_handle_destroy(s.handle);
    return 0;
}
