/*
 * Convolution, bias, relu: three operations, one cuDNN plan (the bias and relu run in the
 * convolution's epilogue). The intermediate results are virtual; only the relu is an output.
 * Executed positionally: inputs in the order they were declared, then the output.
 */
#include "example_util.h"

int main(int argc, char **argv) {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = "conv_bias_relu";
    options.io_data_type = FE_DATA_HALF;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));

    const int64_t N = 4, C = 32, H = 28, W = 28, K = 64;
    int64_t x_dims[4] = {N, C, H, W}, w_dims[4] = {K, C, 3, 3}, b_dims[4] = {1, K, 1, 1};
    int64_t x_strides[4], w_strides[4];
    CHECK(fe_strides_channels_last(4, x_dims, x_strides));
    CHECK(fe_strides_channels_last(4, w_dims, w_strides));
    fe_tensor *x, *w, *bias, *conv, *biased, *y;
    CHECK(fe_graph_tensor(graph, "x", 4, x_dims, x_strides, FE_DATA_NOT_SET, &x));
    CHECK(fe_graph_tensor(graph, "w", 4, w_dims, w_strides, FE_DATA_NOT_SET, &w));
    CHECK(fe_graph_tensor(graph, "bias", 4, b_dims, NULL, FE_DATA_NOT_SET, &bias));
    fe_conv_options conv_options = FE_CONV_OPTIONS_INIT;
    int64_t padding[2] = {1, 1};
    CHECK(fe_conv_options_set_padding(&conv_options, 2, padding));
    CHECK(fe_graph_conv_fprop(graph, x, w, &conv_options, &conv));
    CHECK(fe_graph_bias(graph, conv, bias, NULL, &biased));
    CHECK(fe_graph_relu(graph, biased, NULL, &y));
    CHECK(fe_tensor_set_output(y, 1));

    fe_handle *handle = example_handle_or_build_deviceless(graph, argc, argv);
    CHECK(fe_graph_build(graph, handle, NULL));
    printf("one plan for three operations: %s\n", example_engine_tag(graph));

    float *xh, *wh, *bh;
    fe_buffer *xb = example_input(x, &xh), *wb = example_input(w, &wh), *bb = example_input(bias, &bh);
    fe_buffer *yb = example_output(y);
    void *pointers[4]; /* x, w, bias (declaration order), then y */
    CHECK(fe_buffer_device_pointer(xb, &pointers[0]));
    CHECK(fe_buffer_device_pointer(wb, &pointers[1]));
    CHECK(fe_buffer_device_pointer(bb, &pointers[2]));
    CHECK(fe_buffer_device_pointer(yb, &pointers[3]));
    CHECK(fe_graph_execute_positional(graph, handle, pointers, 4, NULL));
    CHECK(fe_handle_synchronize(handle));

    float *yh = example_download(yb, y);
    /* The convolution on the CPU, then the epilogue's bias (one per output channel) and relu. */
    double *want = example_conv_reference(x, xh, w, wh, 1);
    for (int64_t n = 0; n < N; ++n)
        for (int64_t k = 0; k < K; ++k)
            for (int64_t i = (n * K + k) * H * W; i < (n * K + k + 1) * H * W; ++i) {
                double acc = want[i] + bh[k];
                want[i] = acc > 0 ? acc : 0;
            }
    int rc = example_compare("relu(conv + bias)", y, yh, want, 2e-2, 1e-2);

    example_free_all(xh, wh, bh, yh, want);
    example_destroy_buffers(xb, wb, bb, yb);
    fe_graph_destroy(graph);
    fe_handle_destroy(handle);
    return rc;
}
