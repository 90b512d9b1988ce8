/*
 * Ahead-of-time plans: compile on a machine with no GPU, execute on the GPU.
 *
 *   aot_plan compile GPU.json PLAN      build the seed's convolution for the GPU that GPU.json
 *                                       describes (captured there with `cudnnfe device capture`)
 *                                       and write the serialized plan to PLAN; no GPU needed
 *   aot_plan run PLAN                   load PLAN on this machine's GPU (no heuristics, no
 *                                       compilation), execute it and check it against a CPU
 *                                       reference
 *   aot_plan                            both: compile for the H100 description into a temporary
 *                                       file, then run it if there is a GPU
 *
 * The plan binds by uid (image 1, weight 2, output 3), the way a deployment that never sees the
 * graph's construction code addresses its tensors.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <unistd.h>

#include "example_util.h"

enum { UID_IMAGE = 1, UID_WEIGHT = 2, UID_OUTPUT = 3 };

/* The seed's convolution: image 8x64x56x56 * weight 32x64x3x3, padding 1, fp16, NHWC. */
static fe_graph *seed_conv(void) {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = "aot_conv";
    options.io_data_type = FE_DATA_HALF;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));
    int64_t x_dims[4] = {8, 64, 56, 56}, w_dims[4] = {32, 64, 3, 3}, x_strides[4], w_strides[4];
    CHECK(fe_strides_channels_last(4, x_dims, x_strides));
    CHECK(fe_strides_channels_last(4, w_dims, w_strides));
    fe_tensor *x, *w, *y;
    CHECK(fe_graph_tensor(graph, "image", 4, x_dims, x_strides, FE_DATA_NOT_SET, &x));
    CHECK(fe_graph_tensor(graph, "weight", 4, w_dims, w_strides, FE_DATA_NOT_SET, &w));
    fe_conv_options conv = FE_CONV_OPTIONS_INIT;
    int64_t padding[2] = {1, 1};
    CHECK(fe_conv_options_set_padding(&conv, 2, padding));
    CHECK(fe_graph_conv_fprop(graph, x, w, &conv, &y));
    CHECK(fe_tensor_set_output(y, 1));
    CHECK(fe_tensor_set_uid(x, UID_IMAGE));
    CHECK(fe_tensor_set_uid(w, UID_WEIGHT));
    CHECK(fe_tensor_set_uid(y, UID_OUTPUT));
    return graph;
}

static int compile(const char *device_path, const char *plan_path) {
    char *json = example_read_file(device_path, NULL);
    if (!json) {
        printf("no device description at %s: nothing to compile\n", device_path);
        return EXAMPLE_SKIP;
    }
    fe_graph *graph = seed_conv();
    fe_build_options build = FE_BUILD_OPTIONS_INIT;
    build.device_properties_json = json; /* deviceless: no handle */
    CHECK(fe_graph_build(graph, NULL, &build));
    size_t size = 0;
    fe_graph_serialize(graph, NULL, 0, &size); /* sizes the blob */
    unsigned char *bytes = malloc(size);
    CHECK(fe_graph_serialize(graph, bytes, size, &size));
    FILE *f = fopen(plan_path, "wb");
    if (!f || fwrite(bytes, 1, size, f) != size) {
        printf("cannot write %s\n", plan_path);
        return 1;
    }
    fclose(f);
    printf("compiled %s for the GPU in %s: plan %s, %zu bytes in %s\n", example_graph_name(graph), device_path,
           example_engine_tag(graph), size, plan_path);
    free(bytes);
    free(json);
    fe_graph_destroy(graph);
    return 0;
}

static int run(fe_handle *handle, const char *plan_path) {
    size_t size = 0;
    unsigned char *bytes = (unsigned char *)example_read_file(plan_path, &size);
    if (!bytes) {
        printf("cannot read %s\n", plan_path);
        return 1;
    }
    fe_graph *graph;
    CHECK(fe_graph_deserialize(handle, bytes, size, NULL, &graph)); /* refuses another GPU or cuDNN */
    free(bytes);
    printf("loaded %s: plan %s\n", example_graph_name(graph), example_engine_tag(graph));
    fe_tensor *x, *w, *y;
    CHECK(fe_graph_tensor_by_name(graph, "image", &x));
    CHECK(fe_graph_tensor_by_name(graph, "weight", &w));
    CHECK(fe_graph_output(graph, 0, &y));
    float *xh, *wh;
    fe_buffer *xb = example_input(x, &xh), *wb = example_input(w, &wh), *yb = example_output(y);
    int64_t uids[3] = {UID_IMAGE, UID_WEIGHT, UID_OUTPUT};
    void *pointers[3];
    CHECK(fe_buffer_device_pointer(xb, &pointers[0]));
    CHECK(fe_buffer_device_pointer(wb, &pointers[1]));
    CHECK(fe_buffer_device_pointer(yb, &pointers[2]));
    CHECK(fe_graph_execute_by_uid(graph, handle, uids, pointers, 3, NULL));
    CHECK(fe_handle_synchronize(handle));
    float *yh = example_download(yb, y);
    /* y[n,k,h,w] = sum over c, r, s of x[n,c,h+r-1,w+s-1] * w[k,c,r,s] (zero padding of 1), on the CPU. */
    double *want = example_conv_reference(x, xh, w, wh, 1);
    int rc = example_compare("ahead-of-time conv 8x64x56x56 * 32x64x3x3", y, yh, want, 2e-2, 1e-2);
    example_free_all(xh, wh, yh, want);
    example_destroy_buffers(xb, wb, yb);
    fe_graph_destroy(graph);
    return rc;
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "compile")) {
        return compile(argv[2], argv[3]);
    }
    if (argc == 3 && !strcmp(argv[1], "run")) {
        fe_handle *handle = example_handle();
        if (!handle) {
            printf("no GPU: a plan is executed on the GPU it was compiled for\n");
            return EXAMPLE_SKIP;
        }
        int rc = run(handle, argv[2]);
        fe_handle_destroy(handle);
        return rc;
    }
    if (argc != 1) {
        fprintf(stderr, "usage: aot_plan [compile GPU.json PLAN | run PLAN]\n");
        return 2;
    }
    char plan[] = "/tmp/aot_conv_XXXXXX";
    int fd = mkstemp(plan);
    if (fd < 0) return 1;
    close(fd);
    fe_handle *handle = example_handle();
    int rc = compile(example_device_json_path(1, argv), plan);
    if (rc == 0 && handle) rc = run(handle, plan);
    else if (rc == 0) printf("no GPU: compiled devicelessly; `aot_plan run %s` executes it on the GPU\n", plan);
    unlink(plan);
    fe_handle_destroy(handle);
    return rc;
}
