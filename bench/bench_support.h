/* What the C benchmarks share: checked calls that print one error line and exit, a monotonic
 * clock, and the median. Header-only: each benchmark is one program of one file. */
#ifndef CUDNNFE_BENCH_SUPPORT_H
#define CUDNNFE_BENCH_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cudnnfe.h"

#define FE(call)                                                                                      \
    do {                                                                                              \
        fe_status s_ = (call);                                                                        \
        if (s_ != FE_OK) {                                                                            \
            printf("error=%s message=\"%s\" at=%s\n", fe_status_string(s_), fe_last_error_message(), #call); \
            exit(1);                                                                                  \
        }                                                                                             \
    } while (0)

/* For benchmarks that include cuda_runtime_api.h before this header. */
#ifdef CUDART_VERSION
#define CUDA(call)                                                                                    \
    do {                                                                                              \
        cudaError_t e_ = (call);                                                                      \
        if (e_ != cudaSuccess) {                                                                      \
            printf("error=%s at=%s\n", cudaGetErrorString(e_), #call);                                \
            exit(1);                                                                                  \
        }                                                                                             \
    } while (0)
#endif

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
