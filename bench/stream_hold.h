/*
 * A stream held back: a host function at its head keeps the GPU from starting the work queued
 * behind it until the host releases it, so that timing the calls that queue that work measures
 * the host alone. (Timing a long run of asynchronous calls measures the GPU instead: once the
 * launch queue is full, each call waits for it.) The hold gives up after HOLD_LIMIT_MS, which a
 * round that fills the launch queue reaches: hold_end says so, and such a round must not count.
 * Needs POSIX 2008 (nanosleep): define _POSIX_C_SOURCE 200809L before the first include.
 */
#ifndef CUDNNFE_BENCH_STREAM_HOLD_H
#define CUDNNFE_BENCH_STREAM_HOLD_H

#include <cuda_runtime_api.h>
#include <stdatomic.h>
#include <time.h>

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

/* Holds `stream` back from here on. */
static inline cudaError_t hold_begin(struct Hold *h, cudaStream_t stream) {
    atomic_init(&h->released, 0);
    atomic_init(&h->timed_out, 0);
    return cudaLaunchHostFunc(stream, hold_stream, h);
}

/* Lets the stream go and waits for it; *timed_out: whether the hold gave up first (the round
 * filled the launch queue, so its calls waited for the GPU). */
static inline cudaError_t hold_end(struct Hold *h, cudaStream_t stream, int *timed_out) {
    atomic_store(&h->released, 1);
    cudaError_t e = cudaStreamSynchronize(stream);
    *timed_out = atomic_load(&h->timed_out);
    return e;
}

static inline double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
