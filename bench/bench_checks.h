/*
 * What every benchmark shares: a failed cudnnfe or CUDA call prints one key=value line (error=...
 * message="...") on standard output, which the comparison scripts read, and exits 1; the report
 * line's engine tag, a new graph, a monotonic clock and medians. Header-only: each benchmark is
 * one program of one file (POSIX 2008 for the clock: define _POSIX_C_SOURCE 200809L first).
 */
#ifndef CUDNNFE_BENCH_CHECKS_H
#define CUDNNFE_BENCH_CHECKS_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cudnnfe.h"

#define FE(call)                                                                                          \
    do {                                                                                                  \
        fe_status s_ = (call);                                                                            \
        if (s_ != FE_OK) {                                                                                \
            printf("error=%s message=\"%s\" at=%s\n", fe_status_string(s_), fe_last_error_message(), #call); \
            exit(1);                                                                                      \
        }                                                                                                 \
    } while (0)
#define CU(call)                                                                      \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            printf("error=cuda message=\"%s: %s\"\n", #call, cudaGetErrorString(e_)); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

/* The built graph's engine tag, for the report line. */
static inline const char *engine_tag(const fe_graph *g) {
    const char *tag = NULL;
    FE(fe_graph_engine_tag(g, &tag));
    return tag;
}

/* A new graph of that name and I/O data type (the other types: the defaults). */
static inline fe_graph *bench_graph(const char *name, fe_data_type io) {
    fe_graph_options o = FE_GRAPH_OPTIONS_INIT;
    o.name = name;
    o.io_data_type = io;
    fe_graph *g;
    FE(fe_graph_create(&o, &g));
    return g;
}

static inline int compare_floats(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static inline double bench_now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static inline double bench_now_ms(void) { return bench_now_us() / 1e3; }

static inline int bench_compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts v). */
static inline double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, bench_compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
