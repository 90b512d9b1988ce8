/* host_timer.h's timer for the C++ benchmarks (its held stream needs C11 atomics). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#include "host_timer_export.h"

#include "host_timer.h"

double bench_host_us_per_call(BenchEnqueue enqueue, void *context, int rounds, int calls, int sets, cudaStream_t stream) {
    return host_us_per_call(enqueue, context, rounds, calls, sets, stream);
}
