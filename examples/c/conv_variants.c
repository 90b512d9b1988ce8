/*
 * The convolution tutorial's forward convolutions, one graph each, on its shapes: the basic 3x3
 * convolution (x 16x64x56x56, w 128x64x3x3), no / same / full padding, stride 2, dilation 2,
 * conv + bias + relu (one plan), a 1x1 channel projection, the 7x7 stride-2 stem, a depthwise
 * 3x3 convolution (groups = channels), and the transposed convolution that upsamples
 * 16x128x14x14 to 16x64x28x28: written with conv_dgrad as the tutorial does (the image goes where
 * the loss would), and with fe_graph_conv_transpose, which works out the result's size itself.
 *
 * fp16 inputs and outputs, fp32 math, channels-last. On a GPU each graph runs and its output is
 * checked against the CPU at sampled elements (as the tutorial checks against PyTorch); without
 * one each plan is built for the H100 description instead.
 */
#include <string.h>

#include "conv_check.h"

enum variant_kind { FORWARD, BIAS_RELU, TRANSPOSED_AS_DGRAD, TRANSPOSED };

typedef struct variant {
    const char *name;
    enum variant_kind kind;
    int64_t x[4], w[4];
    int64_t pad, stride, dilation, groups;
    int64_t expected[4]; /* the result's dims, as the tutorial prints them */
} variant;

static const variant variants[] = {
    {"basic 3x3, same padding", FORWARD, {16, 64, 56, 56}, {128, 64, 3, 3}, 1, 1, 1, 1, {16, 128, 56, 56}},
    {"no padding: output shrinks", FORWARD, {16, 64, 56, 56}, {128, 64, 3, 3}, 0, 1, 1, 1, {16, 128, 54, 54}},
    {"full padding: maximum output", FORWARD, {16, 64, 56, 56}, {128, 64, 3, 3}, 2, 1, 1, 1, {16, 128, 58, 58}},
    {"stride 2: downsamples by 2x", FORWARD, {16, 64, 56, 56}, {128, 64, 3, 3}, 1, 2, 1, 1, {16, 128, 28, 28}},
    {"dilation 2: 3x3 taps over 5x5", FORWARD, {16, 64, 56, 56}, {128, 64, 3, 3}, 2, 1, 2, 1, {16, 128, 56, 56}},
    {"conv + bias + relu, one plan", BIAS_RELU, {16, 64, 56, 56}, {128, 64, 3, 3}, 1, 1, 1, 1, {16, 128, 56, 56}},
    {"1x1: 256 channels to 64", FORWARD, {16, 256, 56, 56}, {64, 256, 1, 1}, 0, 1, 1, 1, {16, 64, 56, 56}},
    {"7x7 stride 2 (first layer)", FORWARD, {16, 3, 224, 224}, {64, 3, 7, 7}, 3, 2, 1, 1, {16, 64, 112, 112}},
    {"depthwise 3x3, groups 64", FORWARD, {16, 64, 56, 56}, {64, 1, 3, 3}, 1, 1, 1, 64, {16, 64, 56, 56}},
    {"transposed, as conv_dgrad", TRANSPOSED_AS_DGRAD, {16, 128, 14, 14}, {128, 64, 4, 4}, 1, 2, 1, 1,
     {16, 64, 28, 28}},
    {"transposed, fe_graph_conv_transpose", TRANSPOSED, {16, 128, 14, 14}, {128, 64, 4, 4}, 1, 2, 1, 1,
     {16, 64, 28, 28}},
};

/* What the CPU computes for one element of a variant's result. */
typedef struct reference {
    const variant *v;
    conv_host x, w, bias;
    conv_geometry geometry;
} reference;

static double expected(const int64_t *index, const void *context) {
    const reference *r = context;
    switch (r->v->kind) {
        case FORWARD: return conv_fprop_at(&r->x, &r->w, &r->geometry, index);
        case BIAS_RELU: {
            double y = conv_fprop_at(&r->x, &r->w, &r->geometry, index) + conv_host_at(&r->bias, 0, index[1], 0, 0);
            return y > 0 ? y : 0;
        }
        default: /* the transposed convolution is the data gradient with the image as dy */
            return conv_dgrad_at(&r->x, &r->w, &r->geometry, index);
    }
}

static fe_tensor *nhwc_tensor(fe_graph *graph, const char *name, const int64_t *dims) {
    int64_t strides[4];
    fe_tensor *t;
    CHECK(fe_strides_channels_last(4, dims, strides));
    CHECK(fe_graph_tensor(graph, name, 4, dims, strides, FE_DATA_NOT_SET, &t));
    return t;
}

static int run(const variant *v, fe_handle *handle, int argc, char **argv) {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = v->name;
    options.io_data_type = FE_DATA_HALF;
    options.compute_data_type = FE_DATA_FLOAT;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));
    fe_tensor *x = nhwc_tensor(graph, "x", v->x), *w = nhwc_tensor(graph, "w", v->w), *bias = NULL, *y;

    fe_conv_options conv = FE_CONV_OPTIONS_INIT;
    int64_t pad[2] = {v->pad, v->pad}, stride[2] = {v->stride, v->stride}, dilation[2] = {v->dilation, v->dilation};
    CHECK(fe_conv_options_set_padding(&conv, 2, pad));
    CHECK(fe_conv_options_set_stride(&conv, 2, stride));
    CHECK(fe_conv_options_set_dilation(&conv, 2, dilation));
    conv.groups = v->groups;
    switch (v->kind) {
        case FORWARD: CHECK(fe_graph_conv_fprop(graph, x, w, &conv, &y)); break;
        case BIAS_RELU: {
            int64_t bias_dims[4] = {1, v->w[0], 1, 1};
            fe_tensor *conv_out, *biased;
            bias = nhwc_tensor(graph, "bias", bias_dims);
            CHECK(fe_graph_conv_fprop(graph, x, w, &conv, &conv_out));
            CHECK(fe_graph_bias(graph, conv_out, bias, NULL, &biased));
            CHECK(fe_graph_relu(graph, biased, NULL, &y));
            break;
        }
        case TRANSPOSED_AS_DGRAD:
            /* The result is the "image" of a convolution that maps it onto x: its size is given. */
            CHECK(fe_graph_conv_dgrad(graph, x, w, 4, v->expected, &conv, &y));
            break;
        case TRANSPOSED: CHECK(fe_graph_conv_transpose(graph, x, w, &conv, &y)); break;
    }
    CHECK(fe_tensor_set_output(y, 1));

    char in_text[64], out_text[64];
    printf("%-38s %s -> %s\n", v->name, conv_dims_text(x, in_text, sizeof in_text),
           conv_dims_text(y, out_text, sizeof out_text));
    int64_t dims[4];
    CHECK(fe_tensor_get_dims(y, dims, 4));
    if (memcmp(dims, v->expected, sizeof dims) != 0) {
        fprintf(stderr, "%s: unexpected result dims\n", v->name);
        return 1;
    }
    if (!handle) {
        int rc = example_build_deviceless(graph, argc, argv);
        fe_graph_destroy(graph);
        return rc;
    }

    CHECK(fe_graph_build(graph, handle, NULL));
    float *xh, *wh, *bh = NULL;
    fe_buffer *xb = example_input(x, &xh), *wb = example_input(w, &wh), *bb = bias ? example_input(bias, &bh) : NULL;
    fe_buffer *yb = example_output(y);
    fe_tensor *tensors[4] = {x, w, y, bias};
    fe_buffer *buffers[4] = {xb, wb, yb, bb};
    CHECK(fe_graph_execute_buffers(graph, handle, tensors, buffers, bias ? 4 : 3, NULL));
    CHECK(fe_handle_synchronize(handle));
    float *yh = example_download(yb, y);

    reference r;
    r.v = v;
    r.x = conv_host_of(x, xh);
    r.w = conv_host_of(w, wh);
    if (bias) r.bias = conv_host_of(bias, bh);
    r.geometry = conv_geometry_of(v->pad, v->stride, v->dilation, v->groups);
    /* Sums of up to 576 fp16 products in fp32, rounded to fp16: about 1e-3 relative. */
    int rc = conv_check_sampled(v->name, y, yh, 4096, expected, &r, 2e-2, 1e-2);

    example_free_all(xh, wh, bh, yh);
    example_destroy_buffers(xb, wb, bb, yb);
    fe_graph_destroy(graph);
    return rc;
}

int main(int argc, char **argv) {
    fe_handle *handle = example_handle();
    int on_gpu = handle != NULL, failures = 0, skipped = 0;
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; ++i) {
        int rc = run(&variants[i], handle, argc, argv);
        if (rc == EXAMPLE_SKIP) ++skipped;
        else if (rc != 0) ++failures;
    }
    fe_handle_destroy(handle);
    size_t count = sizeof variants / sizeof variants[0];
    if (failures) {
        printf("%d of %zu convolutions failed\n", failures, count);
        return 1;
    }
    if (skipped) return EXAMPLE_SKIP;
    printf("%zu convolutions %s\n", count, on_gpu ? "verified on GPU" : "built devicelessly (no GPU)");
    return 0;
}
