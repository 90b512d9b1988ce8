/*
 * cudnnfe loaded at run time: dlopen the library by its soname, check its version, and build
 * (and, on a GPU, run) the first graph -- the 3x3 convolution of the README's quick start --
 * through function pointers only. The program does not link libcudnnfe; the header gives it the
 * types, enums and option initializers, which are part of the ABI.
 *
 *   image 8x64x56x56  *  weight 32x64x3x3, padding 1, stride 1  ->  8x32x56x56, fp16, NHWC
 *
 * On a GPU both inputs are all ones, so every output is 64 times the number of filter taps that
 * fall inside the image (576 inside, fewer at the border): exact in fp16, checked everywhere.
 * Without a GPU the plan is built for a captured H100 description instead (argv[1],
 * $CUDNNFE_DEVICE_JSON, or ../shared/devices/h100-sxm-80gb.json), and the program says so.
 *
 * Exit codes: 0 done, 1 failure, 77 skipped (the library or cuDNN cannot be loaded).
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnnfe.h"

#define SKIP 77
#define STR2(x) #x
#define STR(x) STR2(x)
/* The soname follows the major version: libcudnnfe.so.1 for 1.x. */
#define SONAME "libcudnnfe.so." STR(FE_VERSION_MAJOR)

/* Every entry point this program calls, resolved by name. */
static struct {
    uint32_t (*version)(void);
    const char *(*version_string)(void);
    const char *(*status_string)(fe_status);
    const char *(*last_error_message)(void);
    fe_status (*cudnn_version)(int64_t *);
    fe_status (*device_count)(int32_t *);
    fe_status (*handle_create)(int32_t, fe_handle **);
    void (*handle_destroy)(fe_handle *);
    fe_status (*handle_synchronize)(fe_handle *);
    fe_status (*graph_create)(const fe_graph_options *, fe_graph **);
    void (*graph_destroy)(fe_graph *);
    fe_status (*strides_channels_last)(size_t, const int64_t *, int64_t *);
    fe_status (*graph_tensor)(fe_graph *, const char *, size_t, const int64_t *, const int64_t *, fe_data_type,
                              fe_tensor **);
    fe_status (*conv_options_set_padding)(fe_conv_options *, size_t, const int64_t *);
    fe_status (*graph_conv_fprop)(fe_graph *, fe_tensor *, fe_tensor *, const fe_conv_options *, fe_tensor **);
    fe_status (*tensor_set_output)(fe_tensor *, int32_t);
    fe_status (*tensor_get_strides)(const fe_tensor *, int64_t *, size_t);
    fe_status (*graph_build)(fe_graph *, fe_handle *, const fe_build_options *);
    fe_status (*graph_set_device_properties)(fe_graph *, const char *);
    fe_status (*graph_validate)(fe_graph *);
    fe_status (*graph_build_operation_graph)(fe_graph *, fe_handle *);
    fe_status (*graph_create_execution_plans)(fe_graph *, const fe_heur_mode *, size_t);
    fe_status (*graph_check_support)(fe_graph *);
    fe_status (*graph_viable_count)(const fe_graph *, size_t *);
    fe_status (*graph_build_plans)(fe_graph *, fe_build_policy);
    fe_status (*graph_workspace_size)(const fe_graph *, int64_t *);
    fe_status (*graph_engine_tag)(const fe_graph *, const char **);
    fe_status (*buffer_create_for_tensor)(int32_t, const fe_tensor *, fe_buffer **);
    void (*buffer_destroy)(fe_buffer *);
    fe_status (*buffer_upload_float)(fe_buffer *, const float *, int64_t, fe_data_type);
    fe_status (*buffer_download_float)(const fe_buffer *, float *, int64_t, fe_data_type);
    fe_status (*graph_execute_buffers)(fe_graph *, fe_handle *, fe_tensor *const *, fe_buffer *const *, size_t,
                                       void *);
} fe;

/* dlsym returns an object pointer; POSIX guarantees it converts to a function pointer, and
 * writing through a void ** keeps ISO C's -pedantic quiet about the conversion. */
#define RESOLVE(field)                                                                        \
    do {                                                                                      \
        *(void **)(&fe.field) = dlsym(library, "fe_" #field);                                 \
        if (!fe.field) {                                                                      \
            fprintf(stderr, "%s lacks fe_%s: %s\n", SONAME, #field, dlerror());               \
            return 0;                                                                         \
        }                                                                                     \
    } while (0)

static int resolve(void *library) {
    RESOLVE(version);
    RESOLVE(version_string);
    RESOLVE(status_string);
    RESOLVE(last_error_message);
    RESOLVE(cudnn_version);
    RESOLVE(device_count);
    RESOLVE(handle_create);
    RESOLVE(handle_destroy);
    RESOLVE(handle_synchronize);
    RESOLVE(graph_create);
    RESOLVE(graph_destroy);
    RESOLVE(strides_channels_last);
    RESOLVE(graph_tensor);
    RESOLVE(conv_options_set_padding);
    RESOLVE(graph_conv_fprop);
    RESOLVE(tensor_set_output);
    RESOLVE(tensor_get_strides);
    RESOLVE(graph_build);
    RESOLVE(graph_set_device_properties);
    RESOLVE(graph_validate);
    RESOLVE(graph_build_operation_graph);
    RESOLVE(graph_create_execution_plans);
    RESOLVE(graph_check_support);
    RESOLVE(graph_viable_count);
    RESOLVE(graph_build_plans);
    RESOLVE(graph_workspace_size);
    RESOLVE(graph_engine_tag);
    RESOLVE(buffer_create_for_tensor);
    RESOLVE(buffer_destroy);
    RESOLVE(buffer_upload_float);
    RESOLVE(buffer_download_float);
    RESOLVE(graph_execute_buffers);
    return 1;
}

/* Run a call through its pointer; on failure print the call and the library's message, exit. */
#define CHECK(call) check((call), #call)
static void check(fe_status status, const char *call) {
    if (status == FE_OK) return;
    fprintf(stderr, "%s failed: %s: %s\n", call, fe.status_string(status), fe.last_error_message());
    exit(status == FE_STATUS_LIBRARY_UNAVAILABLE ? SKIP : 1);
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    size_t got = fread(text, 1, (size_t)n, f);
    text[got] = '\0';
    fclose(f);
    return text;
}

/* No GPU: the build's steps for the described GPU, up to the plan. */
static int build_deviceless(fe_graph *graph, int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : getenv("CUDNNFE_DEVICE_JSON");
    if (!path) path = "../shared/devices/h100-sxm-80gb.json";
    char *json = read_file(path);
    if (!json) {
        printf("no GPU and no device description at %s: nothing to build\n", path);
        return SKIP;
    }
    CHECK(fe.graph_set_device_properties(graph, json));
    free(json);
    CHECK(fe.graph_validate(graph));
    CHECK(fe.graph_build_operation_graph(graph, NULL));
    CHECK(fe.graph_create_execution_plans(graph, NULL, 0));
    CHECK(fe.graph_check_support(graph));
    size_t viable = 0;
    int64_t workspace = 0;
    const char *tag = NULL;
    CHECK(fe.graph_viable_count(graph, &viable));
    CHECK(fe.graph_build_plans(graph, FE_BUILD_POLICY_HEURISTICS_CHOICE));
    CHECK(fe.graph_workspace_size(graph, &workspace));
    CHECK(fe.graph_engine_tag(graph, &tag));
    printf("no GPU: built plan %s (%zu viable configs, workspace %lld bytes) devicelessly for %s; not executed\n", tag,
           viable, (long long)workspace, path);
    return 0;
}

/* Taps of a 3-wide window, padding 1, that fall inside an axis of `size` at position i. */
static int taps(int64_t i, int64_t size) { return 3 - (i == 0) - (i == size - 1); }

/* On a GPU: all-ones inputs, run, and check every output element. */
static int run_on_gpu(fe_graph *graph, fe_handle *handle, fe_tensor *x, fe_tensor *w, fe_tensor *y) {
    const int64_t N = 8, C = 64, H = 56, W = 56, K = 32;
    CHECK(fe.graph_build(graph, handle, NULL));
    const char *tag = NULL;
    CHECK(fe.graph_engine_tag(graph, &tag));
    printf("plan %s\n", tag);
    int64_t x_count = N * C * H * W, w_count = K * C * 9, y_count = N * K * H * W;
    float *ones = malloc((size_t)x_count * sizeof(float)), *out = malloc((size_t)y_count * sizeof(float));
    for (int64_t i = 0; i < x_count; ++i) ones[i] = 1.f;
    fe_buffer *xb, *wb, *yb;
    CHECK(fe.buffer_create_for_tensor(0, x, &xb));
    CHECK(fe.buffer_create_for_tensor(0, w, &wb));
    CHECK(fe.buffer_create_for_tensor(0, y, &yb));
    CHECK(fe.buffer_upload_float(xb, ones, x_count, FE_DATA_HALF));
    CHECK(fe.buffer_upload_float(wb, ones, w_count, FE_DATA_HALF));
    fe_tensor *tensors[3] = {x, w, y};
    fe_buffer *buffers[3] = {xb, wb, yb};
    CHECK(fe.graph_execute_buffers(graph, handle, tensors, buffers, 3, NULL));
    CHECK(fe.handle_synchronize(handle));
    CHECK(fe.buffer_download_float(yb, out, y_count, FE_DATA_HALF));
    int64_t strides[4], bad = 0;
    CHECK(fe.tensor_get_strides(y, strides, 4));
    for (int64_t n = 0; n < N; ++n)
        for (int64_t k = 0; k < K; ++k)
            for (int64_t h = 0; h < H; ++h)
                for (int64_t v = 0; v < W; ++v) {
                    float want = (float)(C * taps(h, H) * taps(v, W));
                    float got = out[n * strides[0] + k * strides[1] + h * strides[2] + v * strides[3]];
                    if (got != want && bad++ == 0)
                        fprintf(stderr, "y[%lld,%lld,%lld,%lld] is %g, expected %g\n", (long long)n, (long long)k,
                                (long long)h, (long long)v, got, want);
                }
    fe.buffer_destroy(xb);
    fe.buffer_destroy(wb);
    fe.buffer_destroy(yb);
    free(ones);
    free(out);
    if (bad) {
        fprintf(stderr, "%lld of %lld outputs wrong\n", (long long)bad, (long long)y_count);
        return 1;
    }
    printf("ran on the GPU: all %lld outputs exact\n", (long long)y_count);
    return 0;
}

int main(int argc, char **argv) {
    void *library = dlopen(SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        printf("cannot load %s: %s\n", SONAME, dlerror());
        return SKIP;
    }
    if (!resolve(library)) return 1;
    /* Same major as the header: same ABI. The library may be newer (the ABI only grows). */
    uint32_t version = fe.version();
    if (version / 10000 != FE_VERSION_MAJOR || version < FE_VERSION) {
        fprintf(stderr, "%s is version %s, this program was built against %d.%d.%d\n", SONAME,
                fe.version_string(), FE_VERSION_MAJOR, FE_VERSION_MINOR, FE_VERSION_PATCH);
        return 1;
    }
    printf("loaded %s, version %s\n", SONAME, fe.version_string());

    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = "dlopen_demo";
    options.io_data_type = FE_DATA_HALF;
    options.compute_data_type = FE_DATA_FLOAT;
    fe_graph *graph;
    CHECK(fe.graph_create(&options, &graph));
    int64_t x_dims[4] = {8, 64, 56, 56}, w_dims[4] = {32, 64, 3, 3}, x_strides[4], w_strides[4];
    CHECK(fe.strides_channels_last(4, x_dims, x_strides));
    CHECK(fe.strides_channels_last(4, w_dims, w_strides));
    fe_tensor *x, *w, *y;
    CHECK(fe.graph_tensor(graph, "image", 4, x_dims, x_strides, FE_DATA_NOT_SET, &x));
    CHECK(fe.graph_tensor(graph, "weight", 4, w_dims, w_strides, FE_DATA_NOT_SET, &w));
    fe_conv_options conv = FE_CONV_OPTIONS_INIT;
    int64_t padding[2] = {1, 1};
    CHECK(fe.conv_options_set_padding(&conv, 2, padding));
    CHECK(fe.graph_conv_fprop(graph, x, w, &conv, &y));
    CHECK(fe.tensor_set_output(y, 1));

    int64_t cudnn = 0;
    fe_status s = fe.cudnn_version(&cudnn);
    if (s != FE_OK) {
        printf("cuDNN is not available: %s\n", fe.last_error_message());
        fe.graph_destroy(graph);
        return SKIP;
    }
    int32_t devices = 0;
    fe_handle *handle = NULL;
    int rc;
    if (fe.device_count(&devices) == FE_OK && devices > 0 && fe.handle_create(0, &handle) == FE_OK) {
        rc = run_on_gpu(graph, handle, x, w, y);
        fe.handle_destroy(handle);
    } else {
        rc = build_deviceless(graph, argc, argv);
    }
    fe.graph_destroy(graph);
    dlclose(library);
    return rc;
}
