/*
 * Host time of one fe_graph_execute call: the baseline for the bindings' overhead.
 *
 * A built 256x256x256 fp16 matmul runs WARMUP_CALLS times untimed, then EXECUTE_CALLS times, each
 * call timed on its own; the
 * median is reported. Every 256 calls the stream is drained (untimed), so the launch queue never
 * fills and the times stay those of the host, not of the GPU. The Java, C# and Go programs beside
 * this one time the same graph through their binding, each printing the same line:
 *
 *   execute_overhead <language> median_ns=<n> p90_ns=<n> calls=<n>
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cudnnfe.h"

enum { DIM = 256, WARMUP_CALLS = 10000, EXECUTE_CALLS = 100000, DRAIN_EVERY = 256 };

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
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = "execute_overhead";
    options.io_data_type = FE_DATA_HALF;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));
    int64_t dims[2] = {DIM, DIM};
    fe_tensor *a, *b, *c;
    CHECK(fe_graph_tensor(graph, "A", 2, dims, NULL, FE_DATA_NOT_SET, &a));
    CHECK(fe_graph_tensor(graph, "B", 2, dims, NULL, FE_DATA_NOT_SET, &b));
    CHECK(fe_graph_matmul(graph, a, b, NULL, &c));
    CHECK(fe_tensor_set_output(c, 1));
    CHECK(fe_graph_build(graph, handle, NULL));

    fe_tensor *tensors[3] = {a, b, c};
    fe_buffer *buffers[3];
    void *pointers[3];
    for (int i = 0; i < 3; ++i) {
        CHECK(fe_buffer_create_for_tensor(0, tensors[i], &buffers[i]));
        CHECK(fe_buffer_fill_bytes(buffers[i], 0));
        CHECK(fe_buffer_device_pointer(buffers[i], &pointers[i]));
    }

    int64_t *times = malloc(sizeof(int64_t) * EXECUTE_CALLS);
    for (int i = 0; i < WARMUP_CALLS; ++i) {
        if (i % DRAIN_EVERY == 0) CHECK(fe_handle_synchronize(handle));
        CHECK(fe_graph_execute(graph, handle, tensors, pointers, 3, NULL));
    }
    for (int i = 0; i < EXECUTE_CALLS; ++i) {
        if (i % DRAIN_EVERY == 0) CHECK(fe_handle_synchronize(handle));
        int64_t start = now_ns();
        fe_status s = fe_graph_execute(graph, handle, tensors, pointers, 3, NULL);
        times[i] = now_ns() - start;
        CHECK(s);
    }
    CHECK(fe_handle_synchronize(handle));
    qsort(times, EXECUTE_CALLS, sizeof(int64_t), by_value);
    printf("execute_overhead c median_ns=%lld p90_ns=%lld calls=%d\n", (long long)times[EXECUTE_CALLS / 2],
           (long long)times[EXECUTE_CALLS * 9 / 10], EXECUTE_CALLS);

    free(times);
    for (int i = 0; i < 3; ++i) fe_buffer_destroy(buffers[i]);
    fe_graph_destroy(graph);
    fe_handle_destroy(handle);
    return 0;
}
