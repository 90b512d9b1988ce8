/*
 * The graph's keys and JSON beside a plan cache hit, for the seed's convolution built for the
 * described H100 (no GPU needed): fe_graph_to_json and fe_graph_from_json (a cache directory or
 * a caller's key keeps the text), fe_graph_key (the SHA-256 of the text), a whole in-process plan
 * cache hit (a new graph identical to one already built: validate, take the key from the graph,
 * look it up, adopt the plan), and the lowering a hit skips (fe_graph_build_operation_graph:
 * cuDNN's operation graph made and finalized), which a key taken from cuDNN's descriptors would
 * add to every hit.
 *
 *   graph_json_bench [DEVICE.json]     default: $CUDNNFE_DEVICE_JSON, else ../shared/devices/h100-sxm-80gb.json
 */
#define _POSIX_C_SOURCE 200809L
#include <cudnnfe.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
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

static void check(fe_status status, const char *what) {
    if (status == FE_OK) return;
    fprintf(stderr, "%s: %s\n", what, fe_last_error_message());
    exit(1);
}

/* The seed's convolution: x [8,64,56,56] * w [32,64,3,3], padding 1, half, channels-last. */
static fe_graph *seed_conv(void) {
    fe_graph_options o = FE_GRAPH_OPTIONS_INIT;
    o.name = "seed_conv";
    o.io_data_type = FE_DATA_HALF;
    fe_graph *g;
    check(fe_graph_create(&o, &g), "fe_graph_create");
    int64_t xd[4] = {8, 64, 56, 56}, wd[4] = {32, 64, 3, 3}, xs[4], ws[4];
    fe_strides_channels_last(4, xd, xs);
    fe_strides_channels_last(4, wd, ws);
    fe_tensor *x, *w, *y;
    check(fe_graph_tensor(g, "x", 4, xd, xs, FE_DATA_NOT_SET, &x), "fe_graph_tensor");
    check(fe_graph_tensor(g, "w", 4, wd, ws, FE_DATA_NOT_SET, &w), "fe_graph_tensor");
    fe_conv_options conv = FE_CONV_OPTIONS_INIT;
    int64_t pad[2] = {1, 1};
    fe_conv_options_set_padding(&conv, 2, pad);
    check(fe_graph_conv_fprop(g, x, w, &conv, &y), "fe_graph_conv_fprop");
    check(fe_tensor_set_output(y, 1), "fe_tensor_set_output");
    return g;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : getenv("CUDNNFE_DEVICE_JSON");
    if (!path) path = "../shared/devices/h100-sxm-80gb.json";
    char *device = read_file(path);
    if (!device) {
        printf("no device description at %s\n", path);
        return 77;
    }
    fe_graph *g = seed_conv();
    check(fe_graph_set_device_properties(g, device), "fe_graph_set_device_properties");
    check(fe_graph_validate(g), "fe_graph_validate");

    enum { N = 20000 };
    char buf[16384];
    size_t length = 0;
    double t0 = now_us();
    for (int i = 0; i < N; ++i) check(fe_graph_to_json(g, buf, sizeof buf, &length), "fe_graph_to_json");
    double to_json = (now_us() - t0) / N;

    char key[80];
    t0 = now_us();
    for (int i = 0; i < N; ++i) check(fe_graph_key(g, key, sizeof key, &length), "fe_graph_key");
    double graph_key = (now_us() - t0) / N;
    check(fe_graph_to_json(g, buf, sizeof buf, &length), "fe_graph_to_json");

    t0 = now_us();
    for (int i = 0; i < N / 10; ++i) {
        fe_graph *back;
        check(fe_graph_from_json(buf, length, &back), "fe_graph_from_json");
        fe_graph_destroy(back);
    }
    double from_json = (now_us() - t0) / (N / 10);

    fe_build_options build = FE_BUILD_OPTIONS_INIT;
    build.use_plan_cache = 1;
    build.device_properties_json = device;
    check(fe_graph_build(g, NULL, &build), "fe_graph_build (cold)");
    double hit = 0;
    enum { M = 2000 };
    for (int i = 0; i < M; ++i) {
        fe_graph *same = seed_conv();
        double t = now_us();
        check(fe_graph_build(same, NULL, &build), "fe_graph_build (cached)");
        hit += now_us() - t;
        fe_graph_destroy(same);
    }
    double lowering = 0;
    for (int i = 0; i < M / 10; ++i) {
        fe_graph *same = seed_conv();
        check(fe_graph_set_device_properties(same, device), "fe_graph_set_device_properties");
        check(fe_graph_validate(same), "fe_graph_validate");
        double t = now_us();
        check(fe_graph_build_operation_graph(same, NULL), "fe_graph_build_operation_graph");
        lowering += now_us() - t;
        fe_graph_destroy(same);
    }
    int64_t memory_hits = 0;
    fe_plan_cache_stats(&memory_hits, NULL, NULL, NULL);
    printf("seed convolution, %zu bytes of graph JSON (with the device description)\n", length);
    printf("fe_graph_to_json      %8.2f us\n", to_json);
    printf("fe_graph_from_json    %8.2f us\n", from_json);
    printf("fe_graph_key          %8.2f us  (the SHA-256 of the JSON text)\n", graph_key);
    printf("plan cache hit build  %8.2f us  (%lld in-process hits)\n", hit / M, (long long)memory_hits);
    printf("lowering alone        %8.2f us  (what a hit skips)\n", lowering / (M / 10));
    fe_graph_destroy(g);
    free(device);
    return 0;
}
