/*
 * The host's cost of a call, measured with the stream held back (stream_hold.h) while each round
 * of calls is issued: each call only queues its work, and the wall time of the round is the
 * host's alone. A round that fills the launch queue is reported, not counted. (Needs POSIX 2008:
 * define _POSIX_C_SOURCE 200809L before the first include.)
 */
#ifndef CUDNNFE_BENCH_HOST_TIMER_H
#define CUDNNFE_BENCH_HOST_TIMER_H

#include "graph_timer.h"
#include "stream_hold.h"

/* Host microseconds per call of one round of `calls` calls issued behind a held stream; calls use
 * buffer sets 0 .. sets - 1 in turn (1: the same bindings every call). Exits with an error line
 * when the round fills the launch queue (fewer calls fit). */
static inline double host_us_round(Enqueue enqueue, void *context, int calls, int sets, cudaStream_t stream) {
    struct Hold hold;
    int timed_out;
    CU(hold_begin(&hold, stream));
    double start = seconds_now();
    for (int i = 0; i < calls; ++i) enqueue(context, i % sets, stream);
    double issued = seconds_now();
    CU(hold_end(&hold, stream, &timed_out));
    if (timed_out) {
        printf("error=hold message=\"%d calls filled the launch queue behind the held stream; use fewer\"\n", calls);
        exit(1);
    }
    return (issued - start) * 1e6 / calls;
}

/* Three calls that grow what the first calls grow (workspaces, variant packs), waited for. */
static inline void host_warm_up(Enqueue enqueue, void *context, int sets, cudaStream_t stream) {
    for (int i = 0; i < 3; ++i) enqueue(context, i % sets, stream);
    CU(cudaStreamSynchronize(stream));
}

/* The median of `count` values (sorts them). */
static inline double median_of(float *values, int count) {
    qsort(values, (size_t)count, sizeof(float), compare_floats);
    return values[count / 2];
}

/* Median host microseconds per call over `rounds` rounds (host_us_round). */
static inline double host_us_per_call(Enqueue enqueue, void *context, int rounds, int calls, int sets,
                                      cudaStream_t stream) {
    host_warm_up(enqueue, context, sets, stream);
    float *per_call = malloc((size_t)rounds * sizeof(float));
    for (int r = 0; r < rounds; ++r) per_call[r] = (float)host_us_round(enqueue, context, calls, sets, stream);
    double median = median_of(per_call, rounds);
    free(per_call);
    return median;
}
#endif
