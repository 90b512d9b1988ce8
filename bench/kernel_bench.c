/*
 * kernel_bench: GPU time per execution of a built cudnnfe graph, for the seed's graphs.
 *
 *   kernel_bench conv|matmul_bias [batches] [calls_per_batch]
 *
 * Each batch enqueues `calls` executions back to back between two CUDA events (so the host
 * runs ahead and launch gaps do not count), rotating over 4 sets of input/output buffers so
 * repeated calls do not all hit L2 with the same data. Prints the median time per call over
 * the batches ("eager", host launch cost included), then the same calls captured in a CUDA
 * graph and replayed ("graph": kernel time without launch gaps, the basis of TFLOP/s), and the
 * chosen engine, as one line of key=value pairs.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SETS 4
#include "graph_timer.h"

static fe_tensor *tensor(fe_graph *g, const char *name, size_t n, const int64_t *dims, int channels_last) {
    int64_t strides[8];
    if (channels_last)
        FE(fe_strides_channels_last(n, dims, strides));
    else
        FE(fe_strides_packed(n, dims, strides));
    fe_tensor *t;
    FE(fe_graph_tensor(g, name, n, dims, strides, FE_DATA_HALF, &t));
    return t;
}

struct Calls {
    fe_graph *graph;
    fe_handle *handle;
    void *pointers[SETS][4];
    size_t count;
};

static void enqueue(void *context, int set, cudaStream_t stream) {
    struct Calls *c = context;
    (void)stream; /* the handle's stream */
    FE(fe_graph_execute_positional(c->graph, c->handle, c->pointers[set], c->count, NULL));
}

int main(int argc, char **argv) {
    const char *which = argc > 1 ? argv[1] : "conv";
    int batches = argc > 2 ? atoi(argv[2]) : 30;
    int calls = argc > 3 ? atoi(argv[3]) : 50;
    srand(1234);
    fe_handle *handle;
    FE(fe_handle_create(0, &handle));
    fe_graph *g = bench_graph(which, FE_DATA_HALF);
    fe_tensor *io[4];
    size_t nio = 0;
    double flops;
    if (!strcmp(which, "conv")) {
        /* The seed: 8x64x56x56 * 32x64x3x3, padding 1, fp16 channels-last, fp32 compute. */
        int64_t xd[4] = {8, 64, 56, 56}, wd[4] = {32, 64, 3, 3};
        fe_tensor *x = tensor(g, "x", 4, xd, 1), *w = tensor(g, "w", 4, wd, 1), *y;
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        int64_t pad[2] = {1, 1};
        FE(fe_conv_options_set_padding(&o, 2, pad));
        FE(fe_graph_conv_fprop(g, x, w, &o, &y));
        FE(fe_tensor_set_output(y, 1));
        io[0] = x; io[1] = w; io[2] = y; nio = 3;
        flops = 2.0 * 8 * 32 * 56 * 56 * 64 * 9;
    } else if (!strcmp(which, "matmul_bias")) {
        /* The seed: B=16, M=N=128, K=512, bias 1xMxN, fp16 io, fp32 compute. */
        int64_t ad[3] = {16, 128, 512}, bd[3] = {16, 512, 128}, dd[3] = {1, 128, 128};
        fe_tensor *a = tensor(g, "a", 3, ad, 0), *b = tensor(g, "b", 3, bd, 0), *d = tensor(g, "d", 3, dd, 0);
        fe_tensor *ab, *c;
        FE(fe_graph_matmul(g, a, b, NULL, &ab));
        FE(fe_graph_bias(g, ab, d, NULL, &c));
        FE(fe_tensor_set_output(c, 1));
        io[0] = a; io[1] = b; io[2] = d; io[3] = c; nio = 4;
        flops = 2.0 * 16 * 128 * 128 * 512;
    } else {
        fprintf(stderr, "usage: kernel_bench conv|matmul_bias [batches] [calls]\n");
        return 2;
    }
    FE(fe_graph_build(g, handle, NULL));
    fe_buffer *buffers[SETS][4];
    struct Calls c = {g, handle, {{0}}, nio};
    for (int set = 0; set < SETS; ++set)
        for (size_t i = 0; i < nio; ++i) {
            FE(fe_buffer_create_for_tensor(0, io[i], &buffers[set][i]));
            fill_random(buffers[set][i], io[i], -1.f, 1.f);
            FE(fe_buffer_device_pointer(buffers[set][i], &c.pointers[set][i]));
        }
    cudaStream_t stream;
    CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    FE(fe_handle_set_stream(handle, stream));
    double eager = time_eager(enqueue, &c, batches, calls, stream);
    /* Kernel time without launch gaps: the same calls captured once in a CUDA graph. */
    double graphed = time_graph(enqueue, &c, batches, calls, stream);

    int64_t ws;
    FE(fe_graph_workspace_size(g, &ws));
    printf("graph=%s eager_us=%.2f graph_us=%.2f tflops=%.1f engine=%s workspace=%lld batches=%d calls=%d\n", which,
           eager, graphed, flops / (graphed * 1e-6) / 1e12, engine_tag(g), (long long)ws, batches, calls);
    FE(fe_handle_set_stream(handle, NULL));
    CU(cudaStreamDestroy(stream));
    for (int set = 0; set < SETS; ++set)
        for (size_t i = 0; i < nio; ++i) fe_buffer_destroy(buffers[set][i]);
    fe_graph_destroy(g);
    fe_handle_destroy(handle);
    return 0;
}
