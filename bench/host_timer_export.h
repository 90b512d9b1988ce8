/* The held-stream host timer (host_timer.h) as a function C++ programs can call. */
#ifndef CUDNNFE_BENCH_HOST_TIMER_EXPORT_H
#define CUDNNFE_BENCH_HOST_TIMER_EXPORT_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*BenchEnqueue)(void *context, int set, cudaStream_t stream);

/* The median host microseconds per call over `rounds` of `calls` calls, issued behind a held
 * stream (host_timer.h's host_us_per_call). */
double bench_host_us_per_call(BenchEnqueue enqueue, void *context, int rounds, int calls, int sets,
                              cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
