/* An outside program built against the installed package only:
 *   cc pkgconfig_client.c $(pkg-config --cflags --libs cudnnfe)
 * It links libcudnnfe by its dev link, checks the runtime version against the header and the
 * package version (argv[1]), and describes and validates the first graph (no cuDNN needed). */
#include <cudnnfe.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        fe_status status_ = (call);                                                                \
        if (status_ != FE_OK) {                                                                    \
            fprintf(stderr, "%s failed: %s: %s\n", #call, fe_status_string(status_), fe_last_error_message()); \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv) {
    if (fe_version() != FE_VERSION) {
        fprintf(stderr, "library version %u, header %d\n", (unsigned)fe_version(), FE_VERSION);
        return 1;
    }
    if (argc > 1 && strcmp(fe_version_string(), argv[1]) != 0) {
        fprintf(stderr, "library version %s, package %s\n", fe_version_string(), argv[1]);
        return 1;
    }
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.io_data_type = FE_DATA_HALF;
    options.compute_data_type = FE_DATA_FLOAT;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));
    int64_t xd[4] = {8, 64, 56, 56}, wd[4] = {32, 64, 3, 3}, xs[4], ws[4], yd[4];
    CHECK(fe_strides_channels_last(4, xd, xs));
    CHECK(fe_strides_channels_last(4, wd, ws));
    fe_tensor *x, *w, *y;
    CHECK(fe_graph_tensor(graph, "x", 4, xd, xs, FE_DATA_NOT_SET, &x));
    CHECK(fe_graph_tensor(graph, "w", 4, wd, ws, FE_DATA_NOT_SET, &w));
    fe_conv_options conv = FE_CONV_OPTIONS_INIT;
    int64_t pad[2] = {1, 1};
    CHECK(fe_conv_options_set_padding(&conv, 2, pad));
    CHECK(fe_graph_conv_fprop(graph, x, w, &conv, &y));
    CHECK(fe_tensor_set_output(y, 1));
    CHECK(fe_graph_validate(graph));
    CHECK(fe_tensor_get_dims(y, yd, 4));
    fe_graph_destroy(graph);
    if (yd[0] != 8 || yd[1] != 32 || yd[2] != 56 || yd[3] != 56) {
        fprintf(stderr, "y is [%lld, %lld, %lld, %lld], expected [8, 32, 56, 56]\n", (long long)yd[0],
                (long long)yd[1], (long long)yd[2], (long long)yd[3]);
        return 1;
    }
    printf("libcudnnfe %s from the package: first graph validated, y [8, 32, 56, 56]\n", fe_version_string());
    return 0;
}
