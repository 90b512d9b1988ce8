/*
 * Host time of one fe_graph_execute call: the baseline for the bindings' overhead.
 *
 * A built 256x256x256 fp16 matmul runs WARMUP_CALLS times untimed, then EXECUTE_CALLS times, each
 * call timed on its own; the median is reported. The calls go in blocks of BLOCK_CALLS, each
 * issued while the GPU is busy with a blocker (a batched 8 x 8192^3 fp16 matmul, executed untimed
 * before the block, the stream drained before it): the calls only queue their work, so their
 * times are the host's alone, never a wait for the GPU or for room in the launch queue. A block
 * whose issuing outlasts the blocker's GPU time is counted in unheld_blocks (it should be 0).
 * The Java, C# and Go programs beside this one time the same graph the same way through their
 * binding, each printing the same line:
 *
 *   execute_overhead <language> median_ns=<n> p90_ns=<n> calls=<n> blocker_us=<n> unheld_blocks=<n>
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cudnnfe.h"

enum { DIM = 256, WARMUP_CALLS = 10240, EXECUTE_CALLS = 102400, BLOCK_CALLS = 256, BLOCKER_BATCH = 8, BLOCKER_DIM = 8192 };

#define CHECK(call)                                                                                  \
    do {                                                                                             \
        fe_status s_ = (call);                                                                       \
        if (s_ != FE_OK) {                                                                           \
            fprintf(stderr, "%s: %s: %s\n", #call, fe_status_string(s_), fe_last_error_message()); \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* A graph, its tensors and a zero-filled buffer for each. */
struct Bound {
    fe_graph *graph;
    fe_tensor *tensors[3];
    fe_buffer *buffers[3];
    void *pointers[3];
};

/* C = A x B over [batch, n, n] fp16, built and bound. */
static void build_matmul(fe_handle *handle, const char *name, int64_t batch, int64_t n, struct Bound *out) {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = name;
    options.io_data_type = FE_DATA_HALF;
    CHECK(fe_graph_create(&options, &out->graph));
    int64_t dims[3] = {batch, n, n};
    CHECK(fe_graph_tensor(out->graph, "A", 3, dims, NULL, FE_DATA_NOT_SET, &out->tensors[0]));
    CHECK(fe_graph_tensor(out->graph, "B", 3, dims, NULL, FE_DATA_NOT_SET, &out->tensors[1]));
    CHECK(fe_graph_matmul(out->graph, out->tensors[0], out->tensors[1], NULL, &out->tensors[2]));
    CHECK(fe_tensor_set_output(out->tensors[2], 1));
    CHECK(fe_graph_build(out->graph, handle, NULL));
    for (int i = 0; i < 3; ++i) {
        CHECK(fe_buffer_create_for_tensor(0, out->tensors[i], &out->buffers[i]));
        CHECK(fe_buffer_fill_bytes(out->buffers[i], 0));
        CHECK(fe_buffer_device_pointer(out->buffers[i], &out->pointers[i]));
    }
}

static void execute(fe_handle *handle, struct Bound *g) {
    CHECK(fe_graph_execute(g->graph, handle, g->tensors, g->pointers, 3, NULL));
}

static void release(struct Bound *g) {
    for (int i = 0; i < 3; ++i) fe_buffer_destroy(g->buffers[i]);
    fe_graph_destroy(g->graph);
}

int main(void) {
    int32_t devices = 0;
    fe_status found = fe_device_count(&devices);
    if (found != FE_OK || devices == 0) {
        printf("no GPU: the execute overhead benchmark needs one%s%s\n", found != FE_OK ? ": " : "",
               found != FE_OK ? fe_last_error_message() : "");
        return 77;
    }
    fe_handle *handle;
    CHECK(fe_handle_create(0, &handle));
    struct Bound measured, blocker;
    build_matmul(handle, "execute_overhead", 1, DIM, &measured);
    build_matmul(handle, "blocker", BLOCKER_BATCH, BLOCKER_DIM, &blocker);

    /* The blocker's GPU time, once warm. */
    execute(handle, &blocker);
    CHECK(fe_handle_synchronize(handle));
    int64_t started = now_ns();
    execute(handle, &blocker);
    CHECK(fe_handle_synchronize(handle));
    const int64_t blocker_ns = now_ns() - started;

    int64_t *times = malloc(sizeof(int64_t) * EXECUTE_CALLS);
    int unheld_blocks = 0;
    int64_t block_start = 0;
    for (int i = 0; i < WARMUP_CALLS + EXECUTE_CALLS; ++i) {
        if (i % BLOCK_CALLS == 0) {
            if (i > 0 && now_ns() - block_start > blocker_ns) ++unheld_blocks;
            CHECK(fe_handle_synchronize(handle));
            execute(handle, &blocker);
            block_start = now_ns();
        }
        int64_t start = now_ns();
        fe_status s = fe_graph_execute(measured.graph, handle, measured.tensors, measured.pointers, 3, NULL);
        if (i >= WARMUP_CALLS) times[i - WARMUP_CALLS] = now_ns() - start;
        CHECK(s);
    }
    if (now_ns() - block_start > blocker_ns) ++unheld_blocks;
    CHECK(fe_handle_synchronize(handle));
    qsort(times, EXECUTE_CALLS, sizeof(int64_t), by_value);
    printf("execute_overhead c median_ns=%lld p90_ns=%lld calls=%d blocker_us=%.0f unheld_blocks=%d\n",
           (long long)times[EXECUTE_CALLS / 2], (long long)times[EXECUTE_CALLS * 9 / 10], EXECUTE_CALLS,
           (double)blocker_ns / 1e3, unheld_blocks);

    free(times);
    release(&blocker);
    release(&measured);
    fe_handle_destroy(handle);
    return 0;
}
