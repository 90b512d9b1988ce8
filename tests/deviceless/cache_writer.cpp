// One of several processes filling one plan cache directory at once (plan_cache_test.cpp).
//   cache_writer OFFSET         builds the same three convolution graphs twice; prints "ok" when
//                               every build succeeded
//   cache_writer forever FIRST  builds graphs of batch FIRST, FIRST+1, ... (each a new entry)
//                               until it is killed, writing one byte to stdout after each
//                               build, so that the test can time its kills by builds, not by
//                               a clock that a loaded machine stretches
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "cudnnfe.h"

static bool build(const std::string &json, int64_t n) {
    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.io_data_type = FE_DATA_HALF;
    fe_graph *g = nullptr;
    if (fe_graph_create(&go, &g) != FE_OK) return false;
    int64_t xd[4] = {n, 64, 56, 56}, wd[4] = {32, 64, 3, 3}, xs[4], ws[4];
    fe_strides_channels_last(4, xd, xs);
    fe_strides_channels_last(4, wd, ws);
    fe_tensor *x = nullptr, *w = nullptr, *y = nullptr;
    fe_graph_tensor(g, "X", 4, xd, xs, FE_DATA_NOT_SET, &x);
    fe_graph_tensor(g, "W", 4, wd, ws, FE_DATA_NOT_SET, &w);
    fe_conv_options co = FE_CONV_OPTIONS_INIT;
    co.pre_padding[0] = co.pre_padding[1] = co.post_padding[0] = co.post_padding[1] = 1;
    fe_graph_conv_fprop(g, x, w, &co, &y);
    fe_tensor_set_output(y, 1);
    fe_build_options bo = FE_BUILD_OPTIONS_INIT;
    bo.device_properties_json = json.c_str();
    fe_status s = fe_graph_build(g, nullptr, &bo);
    if (s != FE_OK) std::fprintf(stderr, "build n=%lld: %s\n", static_cast<long long>(n), fe_last_error_message());
    fe_graph_destroy(g);
    return s == FE_OK;
}

int main(int argc, char **argv) {
    const char *path = std::getenv("CUDNNFE_DEVICE_JSON_TEXT_FILE");
    if (!path || !*path) return 2;
    std::ifstream in(path);
    std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (argc > 2 && std::string(argv[1]) == "forever") {
        for (int64_t n = std::atoll(argv[2]);; ++n) {
            build(json, n);
            std::fputc('.', stdout);
            std::fflush(stdout);
        }
    }
    int offset = argc > 1 ? std::atoi(argv[1]) : 0;
    bool ok = true;
    for (int round = 0; round < 2; ++round) {
        for (int i = 0; i < 3; ++i) ok = build(json, 1 + (i + offset) % 3) && ok;
        fe_plan_cache_clear();  // the second round reads what the processes wrote
    }
    std::printf(ok ? "ok\n" : "failed\n");
    return ok ? 0 : 1;
}
