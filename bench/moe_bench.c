/*
 * moe_bench: a mixture-of-experts projection as one grouped matmul (fe_graph_moe_grouped_matmul,
 * mode NONE) against what a user would write without it, a loop of one matmul per expert.
 *
 *   moe_bench experts top_k tokens K N [rounds] [iterations] [heuristics|tuned|knobs]
 *
 * How the grouped matmul's plan is chosen: heuristics' first candidate that builds (the default);
 * tuned, the fastest of the first 16 candidates timed (fe_build_options.autotune); knobs, that and
 * two rounds of the configs one knob away from the fastest (autotune_knob_search): what cuDNN's
 * engines can do for the shape, beyond their first choice.
 *
 * Each token picks top_k distinct experts at random; the routed rows ([tokens * top_k, K],
 * bf16, random) are grouped by expert, and each expert's rows are multiplied by its weight
 * ([K, N], K contiguous, as the grouped matmul reads them). The loop runs one cudnnfe matmul
 * per expert that has rows, each built for its row count, on the same buffers. Each round
 * times both contenders in turn (`iterations` calls between CUDA events, after a warm-up);
 * the report gives the medians over rounds, TFLOP/s (2 * rows * K * N) and the ratio.
 */
#define _POSIX_C_SOURCE 199309L
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_checks.h"

enum { kMaxExperts = 256, kMaxRounds = 64 };

static void fill_random(fe_buffer *b, int64_t count) {
    float *host = malloc((size_t)count * sizeof *host);
    for (int64_t i = 0; i < count; ++i) host[i] = (float)rand() / (float)RAND_MAX * 2.f - 1.f;
    FE(fe_buffer_upload_float(b, host, count, FE_DATA_BFLOAT16));
    free(host);
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: moe_bench experts top_k tokens K N [rounds] [iterations] [heuristics|tuned|knobs]\n");
        return 2;
    }
    const int64_t E = atoll(argv[1]), top_k = atoll(argv[2]), tokens = atoll(argv[3]), K = atoll(argv[4]),
                  N = atoll(argv[5]);
    const int rounds = argc > 6 ? atoi(argv[6]) : 5, iterations = argc > 7 ? atoi(argv[7]) : 20;
    const char *choice = argc > 8 ? argv[8] : "heuristics";
    fe_build_options grouped_build = FE_BUILD_OPTIONS_INIT;
    if (!strcmp(choice, "tuned") || !strcmp(choice, "knobs")) {
        grouped_build.autotune = 1;
        grouped_build.autotune_candidates = 16;
        grouped_build.autotune_knob_search = !strcmp(choice, "knobs") ? 2 : 0;
    } else if (strcmp(choice, "heuristics")) {
        fprintf(stderr, "moe_bench: the plan is chosen by heuristics, tuned or knobs, not %s\n", choice);
        return 2;
    }
    if (E < 1 || E > kMaxExperts || top_k < 1 || top_k > E || rounds < 1 || rounds > kMaxRounds || iterations < 1) {
        fprintf(stderr, "experts 1 to %d, top_k 1 to experts, rounds 1 to %d\n", kMaxExperts, kMaxRounds);
        return 2;
    }
    const int64_t R = tokens * top_k;
    srand(5);
    /* Rows per expert from a random top-k routing, and each expert's first row. */
    int64_t count[kMaxExperts] = {0};
    for (int64_t t = 0; t < tokens; ++t) {
        int picked[kMaxExperts] = {0};
        for (int64_t k = 0; k < top_k; ++k) {
            int64_t e;
            do e = rand() % E; while (picked[e]);
            picked[e] = 1;
            ++count[e];
        }
    }
    int32_t first[kMaxExperts];
    int64_t start = 0;
    for (int64_t e = 0; e < E; ++e) {
        first[e] = (int32_t)start;
        start += count[e];
    }

    fe_handle *handle;
    FE(fe_handle_create(0, &handle));
    /* The grouped matmul. */
    fe_graph *grouped = bench_graph("moe_grouped", FE_DATA_BFLOAT16);
    int64_t xd[3] = {1, R, K}, wd[3] = {E, K, N}, ws[3] = {K * N, 1, K}, od[3] = {E, 1, 1};
    fe_tensor *x, *w, *offsets, *y;
    FE(fe_graph_tensor(grouped, "x", 3, xd, NULL, FE_DATA_NOT_SET, &x));
    FE(fe_graph_tensor(grouped, "w", 3, wd, ws, FE_DATA_NOT_SET, &w));
    FE(fe_graph_tensor(grouped, "offsets", 3, od, NULL, FE_DATA_INT32, &offsets));
    FE(fe_graph_moe_grouped_matmul(grouped, x, w, offsets, NULL, &y));
    FE(fe_tensor_set_output(y, 1));
    FE(fe_graph_build(grouped, handle, &grouped_build));
    fe_buffer *bx, *bw, *bo, *by;
    FE(fe_buffer_create_for_tensor(0, x, &bx));
    FE(fe_buffer_create_for_tensor(0, w, &bw));
    FE(fe_buffer_create_for_tensor(0, offsets, &bo));
    FE(fe_buffer_create_for_tensor(0, y, &by));
    fill_random(bx, R * K);
    fill_random(bw, E * K * N);
    FE(fe_buffer_upload(bo, first, (int64_t)sizeof(int32_t) * E));
    fe_tensor *grouped_tensors[4] = {x, w, offsets, y};
    fe_buffer *grouped_buffers[4] = {bx, bw, bo, by};

    /* The loop: one matmul per expert with rows, bound inside the same buffers. */
    void *px, *pw, *py;
    FE(fe_buffer_device_pointer(bx, &px));
    FE(fe_buffer_device_pointer(bw, &pw));
    FE(fe_buffer_device_pointer(by, &py));
    fe_graph *loop[kMaxExperts];
    fe_tensor *loop_tensors[kMaxExperts][3];
    void *loop_pointers[kMaxExperts][3];
    int64_t experts_used = 0;
    for (int64_t e = 0; e < E; ++e) {
        if (count[e] == 0) continue;
        char name[32];
        snprintf(name, sizeof name, "expert_%lld", (long long)e);
        fe_graph *g = bench_graph(name, FE_DATA_BFLOAT16);
        int64_t ad[3] = {1, count[e], K}, bd[3] = {1, K, N}, bs[3] = {K * N, 1, K};
        fe_tensor *a, *b, *c;
        FE(fe_graph_tensor(g, "a", 3, ad, NULL, FE_DATA_NOT_SET, &a));
        FE(fe_graph_tensor(g, "b", 3, bd, bs, FE_DATA_NOT_SET, &b));
        FE(fe_graph_matmul(g, a, b, NULL, &c));
        FE(fe_tensor_set_output(c, 1));
        FE(fe_graph_build(g, handle, NULL));
        loop[experts_used] = g;
        loop_tensors[experts_used][0] = a;
        loop_tensors[experts_used][1] = b;
        loop_tensors[experts_used][2] = c;
        loop_pointers[experts_used][0] = (char *)px + 2 * first[e] * K;
        loop_pointers[experts_used][1] = (char *)pw + 2 * e * K * N;
        loop_pointers[experts_used][2] = (char *)py + 2 * first[e] * N;
        ++experts_used;
    }

    cudaEvent_t begin, end;
    CU(cudaEventCreate(&begin));
    CU(cudaEventCreate(&end));
    double grouped_ms[kMaxRounds], loop_ms[kMaxRounds];
    for (int r = 0; r < rounds; ++r) {
        FE(fe_graph_execute_buffers(grouped, handle, grouped_tensors, grouped_buffers, 4, NULL));
        CU(cudaEventRecord(begin, NULL));
        for (int i = 0; i < iterations; ++i)
            FE(fe_graph_execute_buffers(grouped, handle, grouped_tensors, grouped_buffers, 4, NULL));
        CU(cudaEventRecord(end, NULL));
        CU(cudaEventSynchronize(end));
        float ms;
        CU(cudaEventElapsedTime(&ms, begin, end));
        grouped_ms[r] = ms / iterations;

        for (int64_t j = 0; j < experts_used; ++j)
            FE(fe_graph_execute(loop[j], handle, loop_tensors[j], loop_pointers[j], 3, NULL));
        CU(cudaEventRecord(begin, NULL));
        for (int i = 0; i < iterations; ++i)
            for (int64_t j = 0; j < experts_used; ++j)
                FE(fe_graph_execute(loop[j], handle, loop_tensors[j], loop_pointers[j], 3, NULL));
        CU(cudaEventRecord(end, NULL));
        CU(cudaEventSynchronize(end));
        CU(cudaEventElapsedTime(&ms, begin, end));
        loop_ms[r] = ms / iterations;
    }
    const double g = median(grouped_ms, rounds), l = median(loop_ms, rounds);
    const double flops = 2.0 * (double)R * (double)K * (double)N;
    const char *tag = NULL;
    FE(fe_graph_engine_tag(grouped, &tag));
    printf("experts=%lld top_k=%lld tokens=%lld rows=%lld K=%lld N=%lld grouped_ms=%.4f grouped_tflops=%.1f "
           "loop_ms=%.4f loop_tflops=%.1f loop_over_grouped=%.3f experts_with_rows=%lld grouped_engine=%s choice=%s rounds=%d\n",
           (long long)E, (long long)top_k, (long long)tokens, (long long)R, (long long)K, (long long)N, g,
           flops / (g * 1e9), l, flops / (l * 1e9), l / g, (long long)experts_used, tag, choice, rounds);
    return 0;
}
