/*
 * The first graph: one 2-D convolution, as in the cuDNN frontend's introduction.
 *
 *   image 8x64x56x56  *  weight 32x64x3x3, padding 1, stride 1  ->  8x32x56x56
 *
 * fp16 inputs and outputs, fp32 math, channels-last (NHWC) memory, which cuDNN's fast
 * convolution kernels want. On a GPU it runs and checks every output against a CPU reference;
 * without one it builds the plan for an H100 description instead.
 */
#include "example_util.h"

int main(int argc, char **argv) {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = "first_graph";
    options.io_data_type = FE_DATA_HALF;       /* inputs and outputs */
    options.compute_data_type = FE_DATA_FLOAT; /* internal math */
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));

    /* Logical dims are N, C, H, W; the strides make the memory NHWC. */
    int64_t x_dims[4] = {8, 64, 56, 56}, w_dims[4] = {32, 64, 3, 3}, x_strides[4], w_strides[4];
    CHECK(fe_strides_channels_last(4, x_dims, x_strides));
    CHECK(fe_strides_channels_last(4, w_dims, w_strides));
    fe_tensor *x, *w, *y;
    CHECK(fe_graph_tensor(graph, "image", 4, x_dims, x_strides, FE_DATA_NOT_SET, &x));
    CHECK(fe_graph_tensor(graph, "weight", 4, w_dims, w_strides, FE_DATA_NOT_SET, &w));

    fe_conv_options conv = FE_CONV_OPTIONS_INIT; /* stride 1, dilation 1 */
    int64_t padding[2] = {1, 1};
    CHECK(fe_conv_options_set_padding(&conv, 2, padding));
    CHECK(fe_graph_conv_fprop(graph, x, w, &conv, &y)); /* y's dims and layout are inferred */
    CHECK(fe_tensor_set_output(y, 1));                  /* without this y stays virtual */

    fe_handle *handle = example_handle_or_build_deviceless(graph, argc, argv);
    CHECK(fe_graph_build(graph, handle, NULL)); /* heuristics A, then FALLBACK */
    const char *tag = NULL;
    CHECK(fe_graph_engine_tag(graph, &tag)); /* the engine and knobs heuristics chose */
    printf("plan %s\n", tag);

    float *xh, *wh;
    fe_buffer *xb = example_input(x, &xh), *wb = example_input(w, &wh), *yb = example_output(y);
    fe_tensor *tensors[3] = {x, w, y};
    fe_buffer *buffers[3] = {xb, wb, yb};
    CHECK(fe_graph_execute_buffers(graph, handle, tensors, buffers, 3, NULL));
    CHECK(fe_handle_synchronize(handle));

    float *yh = example_download(yb, y);
    /* y[n,k,h,w] = sum over c, r, s of x[n,c,h+r-1,w+s-1] * w[k,c,r,s] (zero padding of 1), on the CPU. */
    double *want = example_conv_reference(x, xh, w, wh, 1);
    /* 576 fp16 products summed in fp32, rounded to fp16: about 1e-3 relative. */
    int rc = example_compare("conv 8x64x56x56 * 32x64x3x3", y, yh, want, 2e-2, 1e-2);

    example_free_all(xh, wh, yh, want);
    example_destroy_buffers(xb, wb, yb);
    fe_graph_destroy(graph);
    fe_handle_destroy(handle);
    return rc;
}
