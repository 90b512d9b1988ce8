/*
 * The host's cost of a call, measured with the stream held back: a host function at the head of
 * the stream keeps the GPU from starting until every call of the round is issued, so each call
 * only queues its work and the wall time of the round is the host's alone. (Timing a long run of
 * asynchronous calls measures the GPU instead: once the launch queue is full, each call waits
 * for it.) The hold ends when the round is issued, or after HOLD_LIMIT_MS, which a round that
 * fills the launch queue reaches: such a round is reported, not counted. (Needs POSIX 2008:
 * define _POSIX_C_SOURCE 200809L before the first include.)
 */
#ifndef CUDNNFE_BENCH_HOST_TIMER_H
#define CUDNNFE_BENCH_HOST_TIMER_H

#include <stdatomic.h>
#include <time.h>

#include "graph_timer.h"

#define HOLD_LIMIT_MS 5000

struct Hold {
    atomic_int released; /* set by the issuing thread once the round is issued */
    atomic_int timed_out;
};

static void CUDART_CB hold_stream(void *p) {
    struct Hold *h = p;
    const struct timespec millisecond = {0, 1000000};
    for (int waited = 0; !atomic_load(&h->released) && waited < HOLD_LIMIT_MS; ++waited) nanosleep(&millisecond, NULL);
    if (!atomic_load(&h->released)) atomic_store(&h->timed_out, 1);
}

static inline double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Median host microseconds per call over `rounds` rounds of `calls` calls, each round issued
 * behind a held stream; calls use buffer sets 0 .. sets - 1 in turn (1: the same bindings every
 * call). Exits with an error line when a round fills the launch queue (fewer calls fit). */
static inline double host_us_per_call(Enqueue enqueue, void *context, int rounds, int calls, int sets,
                                      cudaStream_t stream) {
    for (int i = 0; i < 3; ++i) enqueue(context, i % sets, stream); /* warm-up (grows workspaces) */
    CU(cudaStreamSynchronize(stream));
    float *per_call = malloc((size_t)rounds * sizeof(float));
    for (int r = 0; r < rounds; ++r) {
        struct Hold hold;
        atomic_init(&hold.released, 0);
        atomic_init(&hold.timed_out, 0);
        CU(cudaLaunchHostFunc(stream, hold_stream, &hold));
        double start = seconds_now();
        for (int i = 0; i < calls; ++i) enqueue(context, i % sets, stream);
        double issued = seconds_now();
        atomic_store(&hold.released, 1);
        CU(cudaStreamSynchronize(stream));
        if (atomic_load(&hold.timed_out)) {
            printf("error=hold message=\"%d calls filled the launch queue behind the held stream; use fewer\"\n",
                   calls);
            exit(1);
        }
        per_call[r] = (float)((issued - start) * 1e6 / calls);
    }
    qsort(per_call, (size_t)rounds, sizeof(float), compare_floats);
    double median = per_call[rounds / 2];
    free(per_call);
    return median;
}

#endif
