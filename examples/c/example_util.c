#define _POSIX_C_SOURCE 200809L
#include "example_util.h"

#include <math.h>
#include <string.h>
#include <time.h>

void example_check(fe_status status, const char *call) {
    if (status == FE_OK) return;
    fprintf(stderr, "%s failed: %s: %s\n", call, fe_status_string(status), fe_last_error_message());
    exit(status == FE_STATUS_LIBRARY_UNAVAILABLE ? EXAMPLE_SKIP : 1);
}

static unsigned long long rng_state;

static float uniform(void) {
    /* xorshift64*: small, fast, good enough for test data */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (float)((rng_state * 2685821657736338717ULL) >> 40) / (float)(1 << 24) * 2.f - 1.f;
}

const char *example_graph_name(const fe_graph *graph) {
    const char *name = NULL;
    CHECK(fe_graph_get_name(graph, &name));
    return name;
}

const char *example_tensor_name(const fe_tensor *tensor) {
    const char *name = NULL;
    CHECK(fe_tensor_get_name(tensor, &name));
    return name;
}

const char *example_engine_tag(const fe_graph *graph) {
    const char *tag = NULL;
    CHECK(fe_graph_engine_tag(graph, &tag));
    return tag;
}

fe_graph *example_fp16_graph(const char *name) {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = name;
    options.io_data_type = FE_DATA_HALF;
    options.intermediate_data_type = FE_DATA_FLOAT;
    options.compute_data_type = FE_DATA_FLOAT;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));
    return graph;
}

fe_handle *example_handle(void) {
    int64_t cudnn = 0;
    fe_status s = fe_cudnn_version(&cudnn);
    if (s != FE_OK) {
        printf("cuDNN is not available: %s\n", fe_last_error_message());
        exit(EXAMPLE_SKIP);
    }
    rng_state = (unsigned long long)time(NULL) * 0x9E3779B97F4A7C15ULL | 1;
    int32_t devices = 0;
    if (fe_device_count(&devices) != FE_OK || devices == 0) return NULL;
    fe_handle *handle = NULL;
    if (fe_handle_create(0, &handle) != FE_OK) {
        printf("no usable GPU: %s\n", fe_last_error_message());
        return NULL;
    }
    return handle;
}

char *example_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    size_t got = fread(text, 1, (size_t)n, f);
    text[got] = '\0';
    fclose(f);
    if (size) *size = got;
    return text;
}

static char *read_file(const char *path) { return example_read_file(path, NULL); }

const char *example_device_json_path(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : getenv("CUDNNFE_DEVICE_JSON");
    return path ? path : "../shared/devices/h100-sxm-80gb.json";
}

/* Steps up to the support check; returns the exit code, or -1 to go on to the plan build. */
static int deviceless_support(fe_graph *graph, int argc, char **argv) {
    const char *path = example_device_json_path(argc, argv);
    char *json = read_file(path);
    if (!json) {
        printf("no GPU and no device description at %s: nothing to do\n", path);
        return EXAMPLE_SKIP;
    }
    /* The build's steps one by one, to say how far a machine with no GPU gets. */
    CHECK(fe_graph_set_device_properties(graph, json));
    free(json);
    CHECK(fe_graph_validate(graph));
    CHECK(fe_graph_build_operation_graph(graph, NULL));
    CHECK(fe_graph_create_execution_plans(graph, NULL, 0));
    size_t viable = 0;
    CHECK(fe_graph_viable_count(graph, &viable));
    if (viable == 0) {
        /* Runtime-compiled engines (matmul, pointwise and attention fusions) are only listed when
         * a CUDA driver library can be loaded. */
        printf("no GPU: graph '%s' lowered for the H100 description, but cuDNN lists no engine for it without a CUDA "
               "driver library (libcuda.so.1); not executed\n",
               example_graph_name(graph));
        return 0;
    }
    CHECK(fe_graph_check_support(graph));
    return -1;
}

int example_check_deviceless(fe_graph *graph, int argc, char **argv) {
    int rc = deviceless_support(graph, argc, argv);
    if (rc != -1) return rc;
    size_t viable = 0;
    CHECK(fe_graph_viable_count(graph, &viable));
    printf("no GPU: graph '%s' is supported for the H100 description (%lld viable engine configs); built and run "
           "on a GPU only\n",
           example_graph_name(graph), (long long)viable);
    return 0;
}

int example_build_deviceless(fe_graph *graph, int argc, char **argv) {
    int rc = deviceless_support(graph, argc, argv);
    if (rc != -1) return rc;
    size_t viable = 0;
    CHECK(fe_graph_viable_count(graph, &viable));
    fe_status s = fe_graph_build_plans(graph, FE_BUILD_POLICY_HEURISTICS_CHOICE);
    if (s != FE_OK) {
        printf("no GPU: graph '%s' is supported for the H100 description (%lld viable engine configs); its kernels "
               "are compiled when it is built on a GPU (%s); not executed\n",
               example_graph_name(graph), (long long)viable, fe_last_error_message());
        return s == FE_STATUS_CANNOT_TELL ? 0 : 1;
    }
    int64_t workspace = 0;
    CHECK(fe_graph_workspace_size(graph, &workspace));
    printf("no GPU: built plan %s (workspace %lld bytes) devicelessly for the H100 description; not executed\n",
           example_engine_tag(graph), (long long)workspace);
    return 0;
}

fe_handle *example_handle_or_build_deviceless(fe_graph *graph, int argc, char **argv) {
    fe_handle *handle = example_handle();
    if (handle) return handle;
    int rc = example_build_deviceless(graph, argc, argv);
    fe_graph_destroy(graph);
    exit(rc);
}

int64_t example_count(const fe_tensor *tensor) {
    size_t n = 0;
    int64_t dims[FE_MAX_DIMS], count = 1;
    CHECK(fe_tensor_get_ndims(tensor, &n));
    CHECK(fe_tensor_get_dims(tensor, dims, FE_MAX_DIMS));
    for (size_t i = 0; i < n; ++i) count *= dims[i];
    return count;
}

static int64_t span(fe_tensor *tensor, fe_data_type *type) {
    int64_t bytes = 0;
    CHECK(fe_tensor_get_data_type(tensor, type));
    CHECK(fe_tensor_size_bytes(tensor, &bytes));
    return bytes / (int64_t)fe_data_type_size(*type);
}

fe_buffer *example_input(fe_tensor *tensor, float **host) {
    fe_data_type type;
    int64_t n = span(tensor, &type);
    fe_buffer *buffer = NULL;
    CHECK(fe_buffer_create_for_tensor(0, tensor, &buffer));
    float *values = malloc((size_t)n * sizeof(float));
    for (int64_t i = 0; i < n; ++i) values[i] = uniform();
    CHECK(fe_buffer_upload_float(buffer, values, n, type));
    /* Read back what the device holds (rounded to fp16/bf16), so the reference uses it too. */
    CHECK(fe_buffer_download_float(buffer, values, n, type));
    *host = values;
    return buffer;
}

fe_buffer *example_output(fe_tensor *tensor) {
    fe_buffer *buffer = NULL;
    CHECK(fe_buffer_create_for_tensor(0, tensor, &buffer));
    CHECK(fe_buffer_fill_bytes(buffer, 0xFF));
    return buffer;
}

float *example_download(fe_buffer *buffer, fe_tensor *tensor) {
    fe_data_type type;
    int64_t n = span(tensor, &type);
    float *values = malloc((size_t)n * sizeof(float));
    CHECK(fe_buffer_download_float(buffer, values, n, type));
    return values;
}

void example_free_array(void **arrays, size_t count) {
    for (size_t i = 0; i < count; ++i) free(arrays[i]);
}

void example_destroy_buffer_array(fe_buffer **buffers, size_t count) {
    for (size_t i = 0; i < count; ++i) fe_buffer_destroy(buffers[i]);
}

int64_t example_offset(const fe_tensor *tensor, const int64_t *index) {
    size_t n = 0;
    int64_t strides[FE_MAX_DIMS], offset = 0;
    CHECK(fe_tensor_get_ndims(tensor, &n));
    CHECK(fe_tensor_get_strides(tensor, strides, FE_MAX_DIMS));
    for (size_t i = 0; i < n; ++i) offset += index[i] * strides[i];
    return offset;
}

int example_compare(const char *what, const fe_tensor *tensor, const float *got, const double *want, double atol,
                    double rtol) {
    size_t n = 0;
    int64_t dims[FE_MAX_DIMS], strides[FE_MAX_DIMS], index[FE_MAX_DIMS] = {0};
    CHECK(fe_tensor_get_ndims(tensor, &n));
    CHECK(fe_tensor_get_dims(tensor, dims, FE_MAX_DIMS));
    CHECK(fe_tensor_get_strides(tensor, strides, FE_MAX_DIMS));
    int64_t count = example_count(tensor), bad = 0;
    double max_abs = 0, max_rel = 0;
    for (int64_t e = 0; e < count; ++e) {
        int64_t offset = 0;
        for (size_t d = 0; d < n; ++d) offset += index[d] * strides[d];
        double g = got[offset], w = want[e], err = fabs(g - w);
        if (!isfinite(g) || err > atol + rtol * fabs(w)) {
            if (bad++ == 0) fprintf(stderr, "%s: element %lld is %g, expected %g\n", what, (long long)e, g, w);
        }
        if (isfinite(g)) {
            if (err > max_abs) max_abs = err;
            if (fabs(w) > 1e-3 && err / fabs(w) > max_rel) max_rel = err / fabs(w);
        }
        for (size_t d = n; d-- > 0;) {
            if (++index[d] < dims[d]) break;
            index[d] = 0;
        }
    }
    if (bad) {
        fprintf(stderr, "%s: %lld of %lld elements wrong (max abs err %.3g)\n", what, (long long)bad, (long long)count,
                max_abs);
        return 1;
    }
    printf("verified on GPU: %s, %lld elements, max abs err %.3g, max rel err %.3g\n", what, (long long)count, max_abs,
           max_rel);
    return 0;
}

double *example_matmul_bias_reference(const float *a, const float *b, const float *d, int64_t batch, int64_t m,
                                      int64_t n, int64_t k) {
    double *c = malloc((size_t)(batch * m * n) * sizeof(double));
    for (int64_t i = 0; i < batch; ++i)
        for (int64_t row = 0; row < m; ++row)
            for (int64_t col = 0; col < n; ++col) {
                double acc = d[row * n + col];
                for (int64_t x = 0; x < k; ++x) acc += (double)a[(i * m + row) * k + x] * b[(i * k + x) * n + col];
                c[(i * m + row) * n + col] = acc;
            }
    return c;
}

double *example_conv_reference(const fe_tensor *x, const float *xh, const fe_tensor *w, const float *wh,
                               int64_t padding) {
    int64_t xd[4], xs[4], wd[4], ws[4];
    CHECK(fe_tensor_get_dims(x, xd, 4));
    CHECK(fe_tensor_get_strides(x, xs, 4));
    CHECK(fe_tensor_get_dims(w, wd, 4));
    CHECK(fe_tensor_get_strides(w, ws, 4));
    const int64_t N = xd[0], C = xd[1], H = xd[2], W = xd[3], K = wd[0], R = wd[2], S = wd[3];
    const int64_t P = H + 2 * padding - R + 1, Q = W + 2 * padding - S + 1;
    double *y = malloc((size_t)(N * K * P * Q) * sizeof(double));
    for (int64_t n = 0; n < N; ++n)
        for (int64_t k = 0; k < K; ++k)
            for (int64_t p = 0; p < P; ++p)
                for (int64_t q = 0; q < Q; ++q) {
                    double acc = 0;
                    for (int64_t c = 0; c < C; ++c)
                        for (int64_t r = 0; r < R; ++r)
                            for (int64_t s = 0; s < S; ++s) {
                                int64_t ih = p + r - padding, iw = q + s - padding;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue; /* a padding zero */
                                acc += (double)xh[n * xs[0] + c * xs[1] + ih * xs[2] + iw * xs[3]] *
                                       wh[k * ws[0] + c * ws[1] + r * ws[2] + s * ws[3]];
                            }
                    y[((n * K + k) * P + p) * Q + q] = acc;
                }
    return y;
}
