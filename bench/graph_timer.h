/*
 * The timer of the CUDA-graph benchmarks: `calls` executions captured in one CUDA graph
 * (alternating SETS sets of buffers), replayed between CUDA events, the median microseconds per
 * call over `batches` replays. Capturing keeps the host's cost out of what is timed: it measures
 * the kernels. Also the same calls issued eagerly between events (launch gaps included), and
 * random inputs, as every benchmark takes them.
 */
#ifndef CUDNNFE_BENCH_GRAPH_TIMER_H
#define CUDNNFE_BENCH_GRAPH_TIMER_H

#include "bench_checks.h"

/* Buffer sets a benchmark takes in turn (one may define its own count before this header). */
#ifndef SETS
#define SETS 2
#endif

/* Something to time: enqueue one call on `stream` using buffer set `set`. */
typedef void (*Enqueue)(void *context, int set, cudaStream_t stream);

/* The median microseconds per call of `batches` batches, each `launch`ed between CUDA events on
 * `stream` (one replay of a CUDA graph, or `calls` calls issued eagerly). */
typedef void (*Launch)(void *context, int calls, cudaStream_t stream);

static inline double time_batches(Launch launch, void *context, int batches, int calls, cudaStream_t stream) {
    cudaEvent_t start, stop;
    CU(cudaEventCreate(&start));
    CU(cudaEventCreate(&stop));
    float *per_call = malloc((size_t)batches * sizeof(float));
    for (int b = 0; b < batches; ++b) {
        CU(cudaEventRecord(start, stream));
        launch(context, calls, stream);
        CU(cudaEventRecord(stop, stream));
        CU(cudaEventSynchronize(stop));
        float ms;
        CU(cudaEventElapsedTime(&ms, start, stop));
        per_call[b] = ms * 1000.f / (float)calls;
    }
    qsort(per_call, (size_t)batches, sizeof(float), compare_floats);
    double median = per_call[batches / 2];
    free(per_call);
    CU(cudaEventDestroy(start));
    CU(cudaEventDestroy(stop));
    return median;
}

struct Eager {
    Enqueue enqueue;
    void *context;
};

static inline void launch_eagerly(void *context, int calls, cudaStream_t stream) {
    struct Eager *e = context;
    for (int i = 0; i < calls; ++i) e->enqueue(e->context, i % SETS, stream);
}

static inline void launch_replay(void *context, int calls, cudaStream_t stream) {
    (void)calls;
    CU(cudaGraphLaunch(*(cudaGraphExec_t *)context, stream));
}

/* Median microseconds per call: `calls` calls issued eagerly on `stream`, `batches` times. */
static inline double time_eager(Enqueue enqueue, void *context, int batches, int calls, cudaStream_t stream) {
    for (int i = 0; i < 3; ++i) enqueue(context, i % SETS, stream); /* warm-up (grows workspaces) */
    CU(cudaStreamSynchronize(stream));
    struct Eager e = {enqueue, context};
    return time_batches(launch_eagerly, &e, batches, calls, stream);
}

/* Median microseconds per call: `calls` calls captured in a CUDA graph on `stream`, replayed
 * `batches` times. */
static inline double time_graph(Enqueue enqueue, void *context, int batches, int calls, cudaStream_t stream) {
    for (int i = 0; i < 3; ++i) enqueue(context, i % SETS, stream); /* warm-up (grows workspaces) */
    CU(cudaStreamSynchronize(stream));
    cudaGraph_t captured;
    cudaGraphExec_t replay;
    CU(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < calls; ++i) enqueue(context, i % SETS, stream);
    CU(cudaStreamEndCapture(stream, &captured));
    CU(cudaGraphInstantiate(&replay, captured, 0));
    CU(cudaGraphLaunch(replay, stream));
    CU(cudaStreamSynchronize(stream));
    double median = time_batches(launch_replay, &replay, batches, calls, stream);
    CU(cudaGraphExecDestroy(replay));
    CU(cudaGraphDestroy(captured));
    return median;
}

/* Random values in [lo, hi], uploaded in the tensor's type. */
static inline void fill_random(fe_buffer *buffer, fe_tensor *t, float lo, float hi) {
    fe_data_type type;
    int64_t bytes;
    FE(fe_tensor_get_data_type(t, &type));
    FE(fe_tensor_size_bytes(t, &bytes));
    int64_t n = bytes / (int64_t)fe_data_type_size(type);
    float *host = malloc((size_t)n * sizeof(float));
    for (int64_t i = 0; i < n; ++i) host[i] = lo + (hi - lo) * (float)rand() / (float)RAND_MAX;
    FE(fe_buffer_upload_float(buffer, host, n, type));
    free(host);
}

#endif
