/*
 * norm_bench: effective memory bandwidth of cudnnfe's layer and RMS normalization, and the
 * device's own copy bandwidth to compare it with.
 *
 *   norm_bench layernorm|rmsnorm fwd|bwd TOKENS HIDDEN [batches] [calls]
 *   norm_bench copy BYTES [batches] [calls]
 *
 * bfloat16 x, dy, y, dx, scale, bias and their gradients; float statistics. The forward pass is
 * the training phase (y and the statistics the backward reads; layernorm with a bias, rmsnorm
 * without); the backward pass reads dy, x, scale and the statistics and writes dx, dscale (and
 * dbias for layernorm). Bytes counted are the ideal traffic: each tensor read or written once.
 *
 * Timing as kernel_bench: `calls` executions captured in one CUDA graph (alternating two sets of
 * buffers), replayed between CUDA events; the median over `batches` replays. `copy` times
 * cudaMemcpyAsync of one device buffer into another the same way and counts its bytes twice
 * (read and write). Prints one line of key=value pairs.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <string.h>

#include "graph_timer.h"

#define MAX_IO 8

/* ---- device-to-device copy ---- */

struct Copy {
    void *src[SETS], *dst[SETS];
    size_t bytes;
};

static void enqueue_copy(void *context, int set, cudaStream_t stream) {
    struct Copy *c = context;
    CU(cudaMemcpyAsync(c->dst[set], c->src[set], c->bytes, cudaMemcpyDeviceToDevice, stream));
}

static int run_copy(size_t bytes, int batches, int calls) {
    struct Copy c = {{0}, {0}, bytes};
    for (int s = 0; s < SETS; ++s) {
        CU(cudaMalloc(&c.src[s], bytes));
        CU(cudaMalloc(&c.dst[s], bytes));
        CU(cudaMemset(c.src[s], 1, bytes));
    }
    cudaStream_t stream;
    CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    double us = time_graph(enqueue_copy, &c, batches, calls, stream);
    CU(cudaStreamDestroy(stream));
    printf("op=copy bytes=%zu graph_us=%.2f gbps=%.1f batches=%d calls=%d\n", bytes, us, 2.0 * (double)bytes / (us * 1e3),
           batches, calls);
    for (int s = 0; s < SETS; ++s) {
        CU(cudaFree(c.src[s]));
        CU(cudaFree(c.dst[s]));
    }
    return 0;
}

/* ---- normalizations ---- */

struct Norm {
    fe_graph *graph;
    fe_handle *handle;
    size_t count; /* tensors bound positionally: inputs in creation order, then outputs */
    void *pointers[SETS][MAX_IO];
};

static void enqueue_norm(void *context, int set, cudaStream_t stream) {
    struct Norm *n = context;
    (void)stream; /* the handle's stream, set before capture */
    FE(fe_graph_execute_positional(n->graph, n->handle, n->pointers[set], n->count, NULL));
}

static fe_tensor *tensor(fe_graph *g, const char *name, int64_t rows, int64_t cols, fe_data_type type) {
    int64_t dims[2] = {rows, cols};
    fe_tensor *t;
    FE(fe_graph_tensor(g, name, 2, dims, NULL, type, &t));
    return t;
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "copy") == 0)
        return run_copy((size_t)atoll(argv[2]), argc > 3 ? atoi(argv[3]) : 20, argc > 4 ? atoi(argv[4]) : 10);
    if (argc < 5) {
        fprintf(stderr, "usage: norm_bench layernorm|rmsnorm fwd|bwd TOKENS HIDDEN [batches] [calls]\n"
                        "       norm_bench copy BYTES [batches] [calls]\n");
        return 2;
    }
    int rms = strcmp(argv[1], "rmsnorm") == 0, backward = strcmp(argv[2], "bwd") == 0;
    int64_t tokens = atoll(argv[3]), hidden = atoll(argv[4]);
    int batches = argc > 5 ? atoi(argv[5]) : 20, calls = argc > 6 ? atoi(argv[6]) : 10;
    srand(1234);

    struct Norm n = {0};
    FE(fe_handle_create(0, &n.handle));
    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.name = argv[1];
    go.io_data_type = FE_DATA_BFLOAT16;
    FE(fe_graph_create(&go, &n.graph));
    fe_graph *g = n.graph;
    const fe_data_type bf16 = FE_DATA_BFLOAT16, f32 = FE_DATA_FLOAT;
    fe_tensor *io[MAX_IO];
    float lo[MAX_IO], hi[MAX_IO]; /* input value ranges; outputs are left as they are */
    size_t inputs = 0;
#define INPUT(t, low, high) (io[inputs] = (t), lo[inputs] = (low), hi[inputs] = (high), ++inputs)
    double bytes;
    const double elements = (double)tokens * (double)hidden, stats = rms ? 1 : 2;
    if (!backward) {
        fe_tensor *x = tensor(g, "x", tokens, hidden, bf16), *scale = tensor(g, "scale", 1, hidden, bf16);
        fe_tensor *bias = rms ? NULL : tensor(g, "bias", 1, hidden, bf16), *y, *mean = NULL, *inv;
        fe_norm_options o = FE_NORM_OPTIONS_INIT;
        o.phase = FE_NORM_PHASE_TRAINING;
        if (rms)
            FE(fe_graph_rmsnorm(g, x, scale, NULL, &o, &y, &inv));
        else
            FE(fe_graph_layernorm(g, x, scale, bias, &o, &y, &mean, &inv));
        INPUT(x, -1, 1);
        INPUT(scale, 0.5f, 1.5f);
        if (bias) INPUT(bias, -1, 1);
        n.count = inputs;
        io[n.count++] = y;
        if (mean) io[n.count++] = mean;
        io[n.count++] = inv;
        /* read x, scale (, bias); write y and the float statistics */
        bytes = 2 * (2 * elements + (rms ? 1 : 2) * (double)hidden) + 4 * stats * (double)tokens;
    } else {
        fe_tensor *dy = tensor(g, "dy", tokens, hidden, bf16), *x = tensor(g, "x", tokens, hidden, bf16);
        fe_tensor *scale = tensor(g, "scale", 1, hidden, bf16), *mean = rms ? NULL : tensor(g, "mean", tokens, 1, f32);
        fe_tensor *inv = tensor(g, "inv", tokens, 1, f32), *dx, *dscale, *dbias = NULL;
        if (rms)
            FE(fe_graph_rmsnorm_backward(g, dy, x, scale, inv, NULL, &dx, &dscale, NULL));
        else
            FE(fe_graph_layernorm_backward(g, dy, x, scale, mean, inv, NULL, &dx, &dscale, &dbias));
        INPUT(dy, -1, 1);
        INPUT(x, -1, 1);
        INPUT(scale, 0.5f, 1.5f);
        if (mean) INPUT(mean, -0.1f, 0.1f);
        INPUT(inv, 0.5f, 1.5f);
        n.count = inputs;
        io[n.count++] = dx;
        io[n.count++] = dscale;
        if (dbias) io[n.count++] = dbias;
        /* read dy, x, scale and the statistics; write dx, dscale (, dbias) */
        bytes = 2 * (3 * elements + (rms ? 2 : 3) * (double)hidden) + 4 * stats * (double)tokens;
    }
    for (size_t i = inputs; i < n.count; ++i) FE(fe_tensor_set_output(io[i], 1));
    FE(fe_graph_build(g, n.handle, NULL));

    fe_buffer *buffers[SETS][MAX_IO];
    for (int s = 0; s < SETS; ++s)
        for (size_t i = 0; i < n.count; ++i) {
            FE(fe_buffer_create_for_tensor(0, io[i], &buffers[s][i]));
            if (i < inputs) fill_random(buffers[s][i], io[i], lo[i], hi[i]);
            FE(fe_buffer_device_pointer(buffers[s][i], &n.pointers[s][i]));
        }
    /* Executions go to the handle's stream: capture that one. */
    cudaStream_t stream;
    CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    FE(fe_handle_set_stream(n.handle, stream));
    double us = time_graph(enqueue_norm, &n, batches, calls, stream);
    int64_t workspace;
    FE(fe_graph_workspace_size(g, &workspace));
    printf("op=%s dir=%s tokens=%lld hidden=%lld graph_us=%.2f gbps=%.1f bytes=%.0f engine=%s workspace=%lld "
           "batches=%d calls=%d\n",
           argv[1], backward ? "bwd" : "fwd", (long long)tokens, (long long)hidden, us, bytes / (us * 1e3),
           bytes, engine_tag(g), (long long)workspace, batches, calls);
    FE(fe_handle_set_stream(n.handle, NULL));
    CU(cudaStreamDestroy(stream));
    for (int s = 0; s < SETS; ++s)
        for (size_t i = 0; i < n.count; ++i) fe_buffer_destroy(buffers[s][i]);
    fe_graph_destroy(g);
    fe_handle_destroy(n.handle);
    return 0;
}
