/*
 * fp8_matmul_bench: an FP8 matmul (fe_graph_matmul_fp8) with float accumulation and with fast
 * accumulation (fe_matmul_options.fast_accumulate: cuDNN's FAST_FLOAT_FOR_FP8), side by side.
 *
 *   fp8_matmul_bench M N K [rounds] [batches] [calls]
 *
 * e4m3 A [M, K] (row-major) and B [K, N] (K contiguous), C in bfloat16 and its amax, random
 * values in [-1, 1] with unit scales (by value). Both graphs are built first; each round times one and then
 * the other (graph_timer.h: `calls` executions captured in a CUDA graph, the median over `batches`
 * replays), and the report gives each form's median over rounds, its TFLOP/s (2 M N K) and the
 * fast form's speedup, as one line of key=value pairs.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_timer.h"

enum { A, B, C, AMAX, BUFFERS };

struct Fp8Matmul {
    fe_handle *handle;
    fe_graph *graph;
    fe_tensor *tensors[BUFFERS];
    void *pointers[SETS][BUFFERS];
};

static void enqueue(void *context, int set, cudaStream_t stream) {
    struct Fp8Matmul *m = context;
    (void)stream; /* the handle's stream */
    FE(fe_graph_execute(m->graph, m->handle, m->tensors, m->pointers[set], BUFFERS, NULL));
}

static fe_tensor *scalar_one(fe_graph *g, const char *name) {
    fe_tensor *t;
    FE(fe_graph_scalar(g, name, 1.0, FE_DATA_FLOAT, &t));
    return t;
}

static fe_graph *build_form(fe_handle *handle, int fast, int64_t m, int64_t n, int64_t k, fe_tensor **tensors) {
    fe_graph *g = bench_graph(fast ? "fp8_fast_accumulate" : "fp8_float_accumulate", FE_DATA_BFLOAT16);
    const int64_t a_dims[3] = {1, m, k}, b_dims[3] = {1, k, n}, b_strides[3] = {k * n, 1, k};
    FE(fe_graph_tensor(g, "a", 3, a_dims, NULL, FE_DATA_FP8_E4M3, &tensors[A]));
    FE(fe_graph_tensor(g, "b", 3, b_dims, b_strides, FE_DATA_FP8_E4M3, &tensors[B]));
    fe_matmul_fp8_scales scales = FE_MATMUL_FP8_SCALES_INIT;
    scales.descale_a = scalar_one(g, "descale_a");
    scales.descale_b = scalar_one(g, "descale_b");
    scales.scale_c = scalar_one(g, "scale_c");
    fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
    o.fast_accumulate = fast;
    FE(fe_graph_matmul_fp8(g, tensors[A], tensors[B], &scales, &o, &tensors[C], &tensors[AMAX]));
    FE(fe_tensor_set_output(tensors[AMAX], 1));
    FE(fe_tensor_set_data_type(tensors[C], FE_DATA_BFLOAT16));
    FE(fe_tensor_set_output(tensors[C], 1));
    FE(fe_graph_build(g, handle, NULL));
    return g;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: fp8_matmul_bench M N K [rounds] [batches] [calls]\n");
        return 2;
    }
    const int64_t m = atoll(argv[1]), n = atoll(argv[2]), k = atoll(argv[3]);
    const int rounds = argc > 4 ? atoi(argv[4]) : 5, batches = argc > 5 ? atoi(argv[5]) : 20;
    const int calls = argc > 6 ? atoi(argv[6]) : 10;
    srand(1234);
    fe_handle *handle;
    FE(fe_handle_create(0, &handle));
    struct Fp8Matmul forms[2] = {{0}};
    fe_buffer *buffers[SETS][BUFFERS];
    const int64_t bytes[BUFFERS] = {m * k, k * n, m * n * 2, 4};
    for (int f = 0; f < 2; ++f) {
        forms[f].handle = handle;
        forms[f].graph = build_form(handle, f, m, n, k, forms[f].tensors);
    }
    for (int set = 0; set < SETS; ++set)
        for (int b = 0; b < BUFFERS; ++b) {
            FE(fe_buffer_create(0, bytes[b], &buffers[set][b]));
            if (b == A || b == B) fill_random(buffers[set][b], forms[0].tensors[b], -1.f, 1.f);
            for (int f = 0; f < 2; ++f) FE(fe_buffer_device_pointer(buffers[set][b], &forms[f].pointers[set][b]));
        }
    cudaStream_t stream;
    CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    FE(fe_handle_set_stream(handle, stream));
    float *us[2] = {malloc((size_t)rounds * sizeof(float)), malloc((size_t)rounds * sizeof(float))};
    for (int r = 0; r < rounds; ++r)
        for (int f = 0; f < 2; ++f) us[f][r] = (float)time_graph(enqueue, &forms[f], batches, calls, stream);
    const double flops = 2.0 * (double)m * (double)n * (double)k;
    double median[2];
    for (int f = 0; f < 2; ++f) {
        qsort(us[f], (size_t)rounds, sizeof(float), compare_floats);
        median[f] = us[f][rounds / 2];
    }
    printf("m=%lld n=%lld k=%lld float_us=%.2f float_tflops=%.1f float_engine=%s fast_us=%.2f fast_tflops=%.1f "
           "fast_engine=%s fast_speedup=%.3f rounds=%d\n",
           (long long)m, (long long)n, (long long)k, median[0], flops / (median[0] * 1e6), engine_tag(forms[0].graph),
           median[1], flops / (median[1] * 1e6), engine_tag(forms[1].graph), median[0] / median[1], rounds);
    FE(fe_handle_set_stream(handle, NULL));
    CU(cudaStreamDestroy(stream));
    for (int set = 0; set < SETS; ++set)
        for (int b = 0; b < BUFFERS; ++b) fe_buffer_destroy(buffers[set][b]);
    for (int f = 0; f < 2; ++f) fe_graph_destroy(forms[f].graph), free(us[f]);
    fe_handle_destroy(handle);
    return 0;
}
