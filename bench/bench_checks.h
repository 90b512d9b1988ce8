/*
 * What every benchmark checks: a failed cudnnfe or CUDA call prints one key=value line (error=...
 * message="...") on standard output, which the comparison scripts read, and exits 1; and the two
 * small helpers of the report line and of medians.
 */
#ifndef CUDNNFE_BENCH_CHECKS_H
#define CUDNNFE_BENCH_CHECKS_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "cudnnfe.h"

#define FE(call)                                                                                          \
    do {                                                                                                  \
        fe_status s_ = (call);                                                                            \
        if (s_ != FE_OK) {                                                                                \
            printf("error=%s message=\"%s\"\n", fe_status_string(s_), fe_last_error_message());           \
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

#endif
