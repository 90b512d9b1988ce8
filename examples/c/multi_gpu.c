/*
 * The first graph's convolution on every GPU of the machine at once, one thread and one handle
 * per GPU:
 *
 *   image 8x64x56x56  *  weight 32x64x3x3, padding 1  ->  8x32x56x56, fp16, channels-last
 *
 * Each thread makes the graph, builds it with its GPU's handle and runs it on that GPU's
 * buffers. GPUs of one kind share the in-process plan cache: the first build chooses the engine
 * and compiles its kernels, the others reuse that plan, finalized for their own device. Each
 * GPU's output is checked against a CPU reference at 4096 sampled elements. Without a GPU it
 * builds the plan for an H100 description instead.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "conv_check.h"

#define MAX_GPUS 16

typedef struct gpu_run {
    int32_t device;
    double build_ms;
    const char *origin; /* where the plan came from: "built", "in-process plan cache ..." */
    char tag[128];
    int failed;
} gpu_run;

static unsigned long long rng_state;
static pthread_mutex_t rng_mutex = PTHREAD_MUTEX_INITIALIZER;

static float uniform(void) {
    pthread_mutex_lock(&rng_mutex);
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    unsigned long long bits = rng_state;
    pthread_mutex_unlock(&rng_mutex);
    return (float)((double)(bits >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static double milliseconds_since(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) * 1e3 + (double)(now.tv_nsec - start->tv_nsec) / 1e6;
}

static fe_graph *make_graph(fe_tensor **x, fe_tensor **w, fe_tensor **y) {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = "conv_on_every_gpu";
    options.io_data_type = FE_DATA_HALF;
    options.compute_data_type = FE_DATA_FLOAT;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));
    int64_t x_dims[4] = {8, 64, 56, 56}, w_dims[4] = {32, 64, 3, 3}, x_strides[4], w_strides[4];
    CHECK(fe_strides_channels_last(4, x_dims, x_strides));
    CHECK(fe_strides_channels_last(4, w_dims, w_strides));
    CHECK(fe_graph_tensor(graph, "image", 4, x_dims, x_strides, FE_DATA_NOT_SET, x));
    CHECK(fe_graph_tensor(graph, "weight", 4, w_dims, w_strides, FE_DATA_NOT_SET, w));
    fe_conv_options conv = FE_CONV_OPTIONS_INIT;
    int64_t padding[2] = {1, 1};
    CHECK(fe_conv_options_set_padding(&conv, 2, padding));
    CHECK(fe_graph_conv_fprop(graph, *x, *w, &conv, y));
    CHECK(fe_tensor_set_output(*y, 1));
    return graph;
}

/* A buffer on `device` with fresh values in [-1, 1] rounded to fp16; *host gets them. */
static fe_buffer *input_on(int32_t device, fe_tensor *tensor, float **host) {
    int64_t bytes = 0;
    CHECK(fe_tensor_size_bytes(tensor, &bytes));
    int64_t count = bytes / 2;
    float *values = malloc((size_t)count * sizeof(float));
    for (int64_t i = 0; i < count; ++i) values[i] = uniform();
    fe_buffer *buffer;
    CHECK(fe_buffer_create_for_tensor(device, tensor, &buffer));
    CHECK(fe_buffer_upload_float(buffer, values, count, FE_DATA_HALF));
    CHECK(fe_buffer_download_float(buffer, values, count, FE_DATA_HALF));
    *host = values;
    return buffer;
}

typedef struct reference {
    conv_host x, w;
    conv_geometry geometry;
} reference;

static double expected(const int64_t *index, const void *context) {
    const reference *r = context;
    return conv_fprop_at(&r->x, &r->w, &r->geometry, index);
}

static void *run_on(void *argument) {
    gpu_run *run = argument;
    fe_handle *handle;
    CHECK(fe_handle_create(run->device, &handle));
    fe_tensor *x, *w, *y;
    fe_graph *graph = make_graph(&x, &w, &y);

    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    CHECK(fe_graph_build(graph, handle, NULL));
    run->build_ms = milliseconds_since(&start);
    snprintf(run->tag, sizeof run->tag, "%s", example_engine_tag(graph));
    char description[4096];
    size_t length = 0;
    CHECK(fe_graph_describe(graph, description, sizeof description, &length));
    run->origin = strstr(description, "another GPU") ? "shared from another GPU of this kind"
                  : strstr(description, "in-process plan cache") ? "in-process plan cache"
                                                                 : "built";

    float *xh, *wh;
    fe_buffer *xb = input_on(run->device, x, &xh), *wb = input_on(run->device, w, &wh), *yb;
    CHECK(fe_buffer_create_for_tensor(run->device, y, &yb));
    CHECK(fe_buffer_fill_bytes(yb, 0xFF)); /* NaN: unwritten elements show */
    fe_tensor *tensors[3] = {x, w, y};
    fe_buffer *buffers[3] = {xb, wb, yb};
    CHECK(fe_graph_execute_buffers(graph, handle, tensors, buffers, 3, NULL));
    CHECK(fe_handle_synchronize(handle));

    int64_t y_bytes = 0;
    CHECK(fe_tensor_size_bytes(y, &y_bytes));
    float *yh = malloc((size_t)(y_bytes / 2) * sizeof(float));
    CHECK(fe_buffer_download_float(yb, yh, y_bytes / 2, FE_DATA_HALF));
    reference r = {conv_host_of(x, xh), conv_host_of(w, wh), conv_geometry_of(1, 1, 1, 1)};
    char what[64];
    snprintf(what, sizeof what, "GPU %d: conv 8x64x56x56 * 32x64x3x3", run->device);
    run->failed = conv_check_sampled(what, y, yh, 4096, expected, &r, 2e-2, 1e-2);

    example_free_all(xh, wh, yh);
    example_destroy_buffers(xb, wb, yb);
    fe_graph_destroy(graph);
    fe_handle_destroy(handle);
    return NULL;
}

int main(int argc, char **argv) {
    fe_handle *probe = example_handle(); /* exits 77 without cuDNN */
    if (!probe) {
        fe_tensor *x, *w, *y;
        fe_graph *graph = make_graph(&x, &w, &y);
        int rc = example_build_deviceless(graph, argc, argv);
        fe_graph_destroy(graph);
        return rc;
    }
    fe_handle_destroy(probe);
    rng_state = (unsigned long long)time(NULL) * 0x9E3779B97F4A7C15ULL | 1;
    int32_t devices = 0;
    CHECK(fe_device_count(&devices));
    if (devices > MAX_GPUS) devices = MAX_GPUS;

    /* GPU 0 first, alone: its build is the one that compiles. Then every other GPU at once. */
    gpu_run runs[MAX_GPUS];
    pthread_t threads[MAX_GPUS];
    for (int32_t d = 0; d < devices; ++d) runs[d] = (gpu_run){.device = d};
    run_on(&runs[0]);
    for (int32_t d = 1; d < devices; ++d) pthread_create(&threads[d], NULL, run_on, &runs[d]);
    for (int32_t d = 1; d < devices; ++d) pthread_join(threads[d], NULL);

    int failed = 0;
    for (int32_t d = 0; d < devices; ++d) {
        printf("GPU %d: plan %s, build %.1f ms (%s)\n", d, runs[d].tag, runs[d].build_ms, runs[d].origin);
        failed |= runs[d].failed;
    }
    printf("%d GPU%s verified\n", devices, devices == 1 ? "" : "s");
    return failed;
}
