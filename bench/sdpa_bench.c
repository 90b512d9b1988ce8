/*
 * sdpa_bench: forward attention through cudnnfe, timed with CUDA events.
 *
 *   sdpa_bench b h_q h_k s_q s_kv d causal(0|1) bf16|fp16|fp8 [iterations] [fwd|bwd]
 *              [auto|composite|native]
 *
 * fp8 runs the FP8 (E4M3) forward with unit scales. The last argument picks how attention
 * is lowered (default auto); the output says which one was used.
 * Q, K, V, O are contiguous [b, h, s, d] (PyTorch's default layout). Prints one line of
 * key=value pairs: the median milliseconds over `iterations` timed calls (after warm-up), the
 * TFLOP/s counting only unmasked score elements (forward: 2 matmuls, 4 * d flops per element;
 * backward: 5 matmuls, 10 * d), the chosen engine and the build time. The backward pass is fed
 * the O and stats of a forward pass run first.
 */
#define _POSIX_C_SOURCE 199309L
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_checks.h"

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
        fprintf(stderr, "usage: sdpa_bench b h_q h_k s_q s_kv d causal bf16|fp16|fp8 [iterations] [fwd|bwd] "
                        "[auto|composite|native]\n");
        return 2;
    }
    int64_t b = atoll(argv[1]), h_q = atoll(argv[2]), h_k = atoll(argv[3]), s_q = atoll(argv[4]);
    int64_t s_kv = atoll(argv[5]), d = atoll(argv[6]);
    int causal = atoi(argv[7]);
    int fp8 = strcmp(argv[8], "fp8") == 0;
    fe_data_type type = fp8 ? FE_DATA_FP8_E4M3 : (strcmp(argv[8], "fp16") == 0 ? FE_DATA_HALF : FE_DATA_BFLOAT16);
    int iterations = argc > 9 ? atoi(argv[9]) : 20;
    int backward = argc > 10 && strcmp(argv[10], "bwd") == 0;
    fe_sdpa_implementation implementation = FE_SDPA_IMPLEMENTATION_AUTO;
    if (argc > 11 && strcmp(argv[11], "composite") == 0) implementation = FE_SDPA_IMPLEMENTATION_COMPOSITE;
    if (argc > 11 && strcmp(argv[11], "native") == 0) implementation = FE_SDPA_IMPLEMENTATION_NATIVE;
    srand(7);

    fe_handle *handle;
    FE(fe_handle_create(0, &handle));
    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.io_data_type = type;
    go.name = "sdpa_forward";
    fe_graph *g;
    FE(fe_graph_create(&go, &g));
    int64_t qd[4] = {b, h_q, s_q, d}, kd[4] = {b, h_k, s_kv, d}, sd[4] = {b, h_q, s_q, 1};
    fe_tensor *q, *k, *v, *o, *stats = NULL, *amax_s = NULL, *amax_o = NULL;
    FE(fe_graph_tensor(g, "q", 4, qd, NULL, FE_DATA_NOT_SET, &q));
    FE(fe_graph_tensor(g, "k", 4, kd, NULL, FE_DATA_NOT_SET, &k));
    FE(fe_graph_tensor(g, "v", 4, kd, NULL, FE_DATA_NOT_SET, &v));
    fe_sdpa_options opts = FE_SDPA_OPTIONS_INIT;
    double scale = 1.0 / __builtin_sqrt((double)d);
    opts.attn_scale = scale;
    opts.causal_mask = causal ? FE_CAUSAL_MASK_BOTTOM_RIGHT : FE_CAUSAL_MASK_NONE;
    opts.generate_stats = backward;
    opts.implementation = implementation;
    if (fp8) {
        fe_sdpa_fp8_scales scales = FE_SDPA_FP8_SCALES_INIT;
        fe_tensor **fields[6] = {&scales.descale_q, &scales.descale_k, &scales.descale_v,
                                 &scales.descale_s, &scales.scale_s,   &scales.scale_o};
        const char *names[6] = {"descale_q", "descale_k", "descale_v", "descale_s", "scale_s", "scale_o"};
        for (int i = 0; i < 6; ++i) FE(fe_graph_scalar(g, names[i], 1.0, FE_DATA_FLOAT, fields[i]));
        FE(fe_graph_sdpa_fp8(g, q, k, v, &scales, &opts, &o, &stats, &amax_s, &amax_o));
    } else {
        FE(fe_graph_sdpa(g, q, k, v, &opts, &o, &stats));
    }
    FE(fe_tensor_set_output(o, 1));
    if (stats) FE(fe_tensor_set_output(stats, 1));
    if (amax_s) FE(fe_tensor_set_output(amax_s, 1));
    if (amax_o) FE(fe_tensor_set_output(amax_o, 1));
    double t0 = now_ms();
    FE(fe_graph_build(g, handle, NULL));
    double build_ms = now_ms() - t0;

    fe_tensor *tensors[7] = {q, k, v, o, stats, NULL, NULL};
    int ntensors = stats ? 5 : 4;
    if (fp8) { /* outputs in the order they were marked: O, stats, amax S, amax O */
        tensors[ntensors++] = amax_s;
        tensors[ntensors++] = amax_o;
    }
    fe_buffer *buffers[7];
    void *pointers[25];
    fe_buffer *scale_buffers[12] = {NULL};
    for (int i = 0; i < ntensors; ++i) {
        FE(fe_buffer_create_for_tensor(0, tensors[i], &buffers[i]));
        int64_t bytes;
        FE(fe_tensor_size_bytes(tensors[i], &bytes));
        if (i < 3) fill(buffers[i], bytes / (int64_t)fe_data_type_size(type), type);
        FE(fe_buffer_device_pointer(buffers[i], &pointers[i]));
    }
    FE(fe_graph_execute_positional(g, handle, pointers, (size_t)ntensors, NULL));
    fe_graph *timed = g;
    size_t npointers = (size_t)ntensors;
    fe_buffer *grads[8] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    fe_graph *bg = NULL;
    if (backward) {
        /* dQ, dK, dV from Q, K, V, the forward's O and stats, and a random dO. */
        go.name = "sdpa_backward";
        FE(fe_graph_create(&go, &bg));
        fe_tensor *bq, *bk, *bv, *bo, *bdo, *bs, *dq, *dk, *dv;
        FE(fe_graph_tensor(bg, "q", 4, qd, NULL, FE_DATA_NOT_SET, &bq));
        FE(fe_graph_tensor(bg, "k", 4, kd, NULL, FE_DATA_NOT_SET, &bk));
        FE(fe_graph_tensor(bg, "v", 4, kd, NULL, FE_DATA_NOT_SET, &bv));
        FE(fe_graph_tensor(bg, "o", 4, qd, NULL, FE_DATA_NOT_SET, &bo));
        FE(fe_graph_tensor(bg, "dO", 4, qd, NULL, FE_DATA_NOT_SET, &bdo));
        FE(fe_graph_tensor(bg, "stats", 4, sd, NULL, FE_DATA_FLOAT, &bs));
        fe_sdpa_backward_options bopts = FE_SDPA_BACKWARD_OPTIONS_INIT;
        bopts.attn_scale = scale;
        bopts.causal_mask = opts.causal_mask;
        bopts.implementation = implementation;
        fe_tensor *amax[4] = {NULL, NULL, NULL, NULL};
        if (fp8) {
            fe_sdpa_fp8_backward_scales bs8 = FE_SDPA_FP8_BACKWARD_SCALES_INIT;
            fe_tensor **fields[12] = {&bs8.descale_q,  &bs8.descale_k, &bs8.descale_v,  &bs8.descale_o,
                                      &bs8.descale_do, &bs8.descale_s, &bs8.descale_dp, &bs8.scale_s,
                                      &bs8.scale_dp,   &bs8.scale_dq,  &bs8.scale_dk,   &bs8.scale_dv};
            /* Device tensors (inputs after Q, K, V, O, dO and the stats), each holding 1.0. */
            int64_t one[4] = {1, 1, 1, 1};
            for (int i = 0; i < 12; ++i) {
                char name[16];
                snprintf(name, sizeof name, "scale_%d", i);
                FE(fe_graph_tensor(bg, name, 4, one, NULL, FE_DATA_FLOAT, fields[i]));
            }
            const float unit = 1.0f;
            for (int i = 0; i < 12; ++i) {
                FE(fe_buffer_create(0, 4, &scale_buffers[i]));
                FE(fe_buffer_upload(scale_buffers[i], &unit, 4));
            }
            FE(fe_graph_sdpa_fp8_backward(bg, bq, bk, bv, bo, bdo, bs, &bs8, &bopts, &dq, &dk, &dv, &amax[0], &amax[1],
                                          &amax[2], &amax[3]));
        } else {
            FE(fe_graph_sdpa_backward(bg, bq, bk, bv, bo, bdo, bs, &bopts, &dq, &dk, &dv));
        }
        FE(fe_tensor_set_output(dq, 1));
        FE(fe_tensor_set_output(dk, 1));
        FE(fe_tensor_set_output(dv, 1));
        for (int i = 0; i < 4; ++i)
            if (amax[i]) FE(fe_tensor_set_output(amax[i], 1));
        t0 = now_ms();
        FE(fe_graph_build(bg, handle, NULL));
        build_ms = now_ms() - t0;
        FE(fe_buffer_create_for_tensor(0, bdo, &grads[0]));
        fill(grads[0], b * h_q * s_q * d, type);
        FE(fe_buffer_create_for_tensor(0, dq, &grads[1]));
        FE(fe_buffer_create_for_tensor(0, dk, &grads[2]));
        FE(fe_buffer_create_for_tensor(0, dv, &grads[3]));
        int ngrads = 4;
        for (int i = 0; i < 4; ++i)
            if (amax[i]) FE(fe_buffer_create_for_tensor(0, amax[i], &grads[ngrads++]));
        /* positional: q, k, v, o, dO, stats, (the FP8 scales), then dQ, dK, dV (and the amax outputs) */
        void *p[25] = {pointers[0], pointers[1], pointers[2], pointers[3], NULL, pointers[4]};
        FE(fe_buffer_device_pointer(grads[0], &p[4]));
        int nscales = fp8 ? 12 : 0;
        for (int i = 0; i < nscales; ++i) FE(fe_buffer_device_pointer(scale_buffers[i], &p[6 + i]));
        for (int i = 1; i < ngrads; ++i) FE(fe_buffer_device_pointer(grads[i], &p[5 + nscales + i]));
        memcpy(pointers, p, sizeof p);
        npointers = (size_t)(5 + nscales + ngrads);
        timed = bg;
    }
    cudaEvent_t start, stop;
    CU(cudaEventCreate(&start));
    CU(cudaEventCreate(&stop));
    for (int i = 0; i < 3; ++i) FE(fe_graph_execute_positional(timed, handle, pointers, npointers, NULL));
    CU(cudaDeviceSynchronize());
    float *ms = malloc((size_t)iterations * sizeof(float));
    for (int i = 0; i < iterations; ++i) {
        CU(cudaEventRecord(start, 0));
        FE(fe_graph_execute_positional(timed, handle, pointers, npointers, NULL));
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
    double flops = (backward ? 10.0 : 4.0) * (double)b * (double)h_q * elements * (double)d;
    fe_sdpa_implementation used = FE_SDPA_IMPLEMENTATION_COMPOSITE;
    FE(fe_graph_attention_implementation(timed, NULL, &used));
    printf("median_ms=%.4f tflops=%.1f engine=%s build_ms=%.0f implementation=%s\n", median,
           flops / (median * 1e-3) / 1e12, engine_tag(timed), build_ms,
           used == FE_SDPA_IMPLEMENTATION_NATIVE ? "native" : "composite");
    for (int i = 0; i < ntensors; ++i) fe_buffer_destroy(buffers[i]);
    for (int i = 0; i < 8; ++i) fe_buffer_destroy(grads[i]);
    for (int i = 0; i < 12; ++i) fe_buffer_destroy(scale_buffers[i]);
    fe_graph_destroy(bg);
    free(ms);
    fe_graph_destroy(g);
    fe_handle_destroy(handle);
    return 0;
}
