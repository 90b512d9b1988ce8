/*
 * sdpa_bench: forward attention through cudnnfe, timed with CUDA events.
 *
 *   sdpa_bench b h_q h_k s_q s_kv d causal(0|1) bf16|fp16 [iterations]
 *
 * Q, K, V, O are contiguous [b, h, s, d] (PyTorch's default layout). Prints one line of
 * key=value pairs: the median milliseconds over `iterations` timed calls (after warm-up), the
 * TFLOP/s counting only unmasked score elements (forward: 2 matmuls, 4 * d flops per element),
 * the chosen engine and the build time.
 */
#define _POSIX_C_SOURCE 199309L
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cudnnfe.h"

#define FE(call)                                                                                          \
    do {                                                                                                  \
        fe_status s_ = (call);                                                                            \
        if (s_ != FE_OK) {                                                                                \
            printf("error=%s message=\"%s\"\n", fe_status_string(s_), fe_last_error_message());           \
            exit(1);                                                                                      \
        }                                                                                                 \
    } while (0)
#define CU(call)                                                                \
    do {                                                                        \
        cudaError_t e_ = (call);                                                \
        if (e_ != cudaSuccess) {                                                \
            printf("error=cuda message=\"%s: %s\"\n", #call, cudaGetErrorString(e_)); \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

static int compare_floats(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void fill(fe_buffer *b, int64_t count, fe_data_type type) {
    float *host = malloc((size_t)count * sizeof(float));
    for (int64_t i = 0; i < count; ++i) host[i] = (float)rand() / (float)RAND_MAX * 2.f - 1.f;
    FE(fe_buffer_upload_float(b, host, count, type));
    free(host);
}

int main(int argc, char **argv) {
    if (argc < 9) {
        fprintf(stderr, "usage: sdpa_bench b h_q h_k s_q s_kv d causal bf16|fp16 [iterations]\n");
        return 2;
    }
    int64_t b = atoll(argv[1]), h_q = atoll(argv[2]), h_k = atoll(argv[3]), s_q = atoll(argv[4]);
    int64_t s_kv = atoll(argv[5]), d = atoll(argv[6]);
    int causal = atoi(argv[7]);
    fe_data_type type = strcmp(argv[8], "fp16") == 0 ? FE_DATA_HALF : FE_DATA_BFLOAT16;
    int iterations = argc > 9 ? atoi(argv[9]) : 20;
    srand(7);

    fe_handle *handle;
    FE(fe_handle_create(0, &handle));
    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.io_data_type = type;
    go.name = "sdpa_bench";
    fe_graph *g;
    FE(fe_graph_create(&go, &g));
    int64_t qd[4] = {b, h_q, s_q, d}, kd[4] = {b, h_k, s_kv, d};
    fe_tensor *q, *k, *v, *o, *stats;
    FE(fe_graph_tensor(g, "q", 4, qd, NULL, FE_DATA_NOT_SET, &q));
    FE(fe_graph_tensor(g, "k", 4, kd, NULL, FE_DATA_NOT_SET, &k));
    FE(fe_graph_tensor(g, "v", 4, kd, NULL, FE_DATA_NOT_SET, &v));
    fe_sdpa_options opts = FE_SDPA_OPTIONS_INIT;
    opts.attn_scale = 1.0 / __builtin_sqrt((double)d);
    opts.causal_mask = causal ? FE_CAUSAL_MASK_BOTTOM_RIGHT : FE_CAUSAL_MASK_NONE;
    FE(fe_graph_sdpa(g, q, k, v, &opts, &o, &stats));
    FE(fe_tensor_set_output(o, 1));
    double t0 = now_ms();
    FE(fe_graph_build(g, handle, NULL));
    double build_ms = now_ms() - t0;

    fe_tensor *tensors[4] = {q, k, v, o};
    fe_buffer *buffers[4];
    void *pointers[4];
    for (int i = 0; i < 4; ++i) {
        FE(fe_buffer_create_for_tensor(0, tensors[i], &buffers[i]));
        int64_t bytes;
        FE(fe_tensor_size_bytes(tensors[i], &bytes));
        if (i < 3) fill(buffers[i], bytes / 2, type);
        FE(fe_buffer_device_pointer(buffers[i], &pointers[i]));
    }
    cudaEvent_t start, stop;
    CU(cudaEventCreate(&start));
    CU(cudaEventCreate(&stop));
    for (int i = 0; i < 3; ++i) FE(fe_graph_execute_positional(g, handle, pointers, 4, NULL));
    CU(cudaDeviceSynchronize());
    float *ms = malloc((size_t)iterations * sizeof(float));
    for (int i = 0; i < iterations; ++i) {
        CU(cudaEventRecord(start, 0));
        FE(fe_graph_execute_positional(g, handle, pointers, 4, NULL));
        CU(cudaEventRecord(stop, 0));
        CU(cudaEventSynchronize(stop));
        CU(cudaEventElapsedTime(&ms[i], start, stop));
    }
    qsort(ms, (size_t)iterations, sizeof(float), compare_floats);
    double median = ms[iterations / 2];
    /* Unmasked score elements: all of them, or (bottom-right causal) row i sees i + s_kv - s_q + 1 keys. */
    double elements = 0;
    for (int64_t i = 0; i < s_q; ++i) {
        int64_t visible = causal ? i + s_kv - s_q + 1 : s_kv;
        if (visible > s_kv) visible = s_kv;
        if (visible > 0) elements += (double)visible;
    }
    double flops = 4.0 * (double)b * (double)h_q * elements * (double)d;
    printf("median_ms=%.4f tflops=%.1f engine=%s build_ms=%.0f\n", median, flops / (median * 1e-3) / 1e12,
           fe_graph_engine_tag(g), build_ms);
    for (int i = 0; i < 4; ++i) fe_buffer_destroy(buffers[i]);
    free(ms);
    fe_graph_destroy(g);
    fe_handle_destroy(handle);
    return 0;
}
