/*
 * Pooling, as a CNN's downsampling layers use it:
 *
 *   max pooling      y[n, c, i, j] = max  of x over the 3x3 window at (2i - 1, 2j - 1)
 *   average pooling  y[n, c, i, j] = mean of x over the 2x2 window at (2i, 2j)
 *
 * x [N, C, H, W] = [4, 32, 56, 56] in half. The max pooling pads by 1 on each side (padding
 * never wins a max). Each is one graph of one cuDNN resample operation. On a GPU the results
 * are checked against a CPU reference; without one each graph is built for the H100.
 */
#include <math.h>

#include "example_util.h"

enum { N = 4, C = 32, H = 56, W = 56, OUT = 28 }; /* both poolings halve H and W */

/* The reference of one output element: the max or the mean of the window's positions that lie
 * inside the image. */
static double pool_at(const fe_tensor *x, const float *xh, int64_t n, int64_t c, int64_t i, int64_t j, int64_t window,
                      int64_t stride, int64_t pad, int is_max) {
    double best = -INFINITY, sum = 0;
    for (int64_t di = 0; di < window; ++di)
        for (int64_t dj = 0; dj < window; ++dj) {
            int64_t h = i * stride - pad + di, w = j * stride - pad + dj;
            if (h < 0 || h >= H || w < 0 || w >= W) continue;
            int64_t index[4] = {n, c, h, w};
            double v = xh[example_offset(x, index)];
            best = v > best ? v : best;
            sum += v;
        }
    return is_max ? best : sum / (double)(window * window);
}

/* One pooling graph: build it (on the GPU, or devicelessly without one), run it and compare. */
static int pool(fe_handle *handle, const char *name, fe_resample_mode mode, int64_t window, int64_t stride,
                int64_t pad, int argc, char **argv) {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = name;
    options.io_data_type = FE_DATA_HALF;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));
    int64_t x_dims[4] = {N, C, H, W};
    fe_tensor *x, *y;
    CHECK(fe_graph_tensor(graph, "x", 4, x_dims, NULL, FE_DATA_NOT_SET, &x));
    fe_resample_options resample = FE_RESAMPLE_OPTIONS_INIT;
    resample.name = name;
    resample.mode = mode;
    for (int d = 0; d < 2; ++d) {
        resample.window[d] = window;
        resample.stride[d] = stride;
        resample.pre_padding[d] = resample.post_padding[d] = pad;
    }
    CHECK(fe_graph_resample(graph, x, &resample, &y, NULL));
    CHECK(fe_tensor_set_output(y, 1));
    if (!handle) {
        printf("%s:\n", name);
        int rc = example_build_deviceless(graph, argc, argv);
        fe_graph_destroy(graph);
        return rc;
    }
    CHECK(fe_graph_build(graph, handle, NULL));
    printf("%s: plan %s\n", name, example_engine_tag(graph));

    float *xh;
    fe_buffer *xb = example_input(x, &xh), *yb = example_output(y);
    fe_tensor *tensors[2] = {x, y};
    fe_buffer *buffers[2] = {xb, yb};
    CHECK(fe_graph_execute_buffers(graph, handle, tensors, buffers, 2, NULL));
    CHECK(fe_handle_synchronize(handle));
    float *yh = example_download(yb, y);
    int64_t out = example_count(y) / (N * C) == OUT * OUT ? OUT : -1;
    if (out < 0) {
        fprintf(stderr, "%s: unexpected result size\n", name);
        return 1;
    }
    double *want = malloc((size_t)N * C * OUT * OUT * sizeof(double));
    size_t k = 0;
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
            for (int64_t i = 0; i < OUT; ++i)
                for (int64_t j = 0; j < OUT; ++j)
                    want[k++] = pool_at(x, xh, n, c, i, j, window, stride, pad, mode == FE_RESAMPLE_MAXPOOL);
    int rc = example_compare(name, y, yh, want, 2e-3, 2e-2);
    example_free_all(xh, yh, want);
    fe_buffer_destroy(xb);
    fe_buffer_destroy(yb);
    fe_graph_destroy(graph);
    return rc;
}

int main(int argc, char **argv) {
    fe_handle *handle = example_handle();
    int rc = pool(handle, "max_pool", FE_RESAMPLE_MAXPOOL, 3, 2, 1, argc, argv);
    if (rc == 0) rc = pool(handle, "avg_pool", FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING, 2, 2, 0, argc, argv);
    fe_handle_destroy(handle);
    return rc;
}
