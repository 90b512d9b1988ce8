/*
 * The tutorial's ResNet basic block, x -> conv -> bn -> relu -> conv -> bn -> (+ identity) -> relu,
 * for inference, with each batchnorm folded into a per-channel scale and bias:
 *   bn(v) = (v - mean) * inv_var * gamma + beta = v * scale + bias,
 *   scale = gamma * inv_var,  bias = beta - mean * scale.
 * A cuDNN operation graph holds one convolution, so the block is two fused graphs (each one plan):
 *   "conv1": relu(conv(x, w1) * scale1 + bias1)
 *   "conv2": relu(conv(out1, w2) * scale2 + bias2 + identity)
 * and, where the block changes the shape, a third that downsamples the identity with a strided
 * 1x1 convolution, as the tutorial does. Two blocks run: 64 -> 64 channels at 56x56 (identity
 * shortcut), then 64 -> 128 channels with stride 2 (downsampled shortcut); batch 16, fp16,
 * fp32 math, channels-last.
 *
 * On a GPU each graph's output is checked against the CPU at sampled elements (each from the
 * GPU's own inputs to that graph); without one the graphs are lowered for the H100 description
 * (the folded-batchnorm graphs run on runtime-compiled engines, whose kernels are compiled when
 * they are built on a GPU: here they go as far as cuDNN's support check).
 */
#include <math.h>
#include <string.h>

#include "conv_check.h"

typedef struct block_shape {
    const char *name;
    int64_t batch, in_channels, out_channels, size, stride;
} block_shape;

static const block_shape blocks[] = {
    {"block 64 -> 64, identity shortcut", 16, 64, 64, 56, 1},
    {"block 64 -> 128, stride 2, downsampled shortcut", 16, 64, 128, 56, 2},
};

/* One graph: conv, then (with_bn) scale, bias, (with_residual) + residual, relu. */
typedef struct conv_graph {
    fe_graph *graph;
    fe_tensor *x, *w, *scale, *bias, *residual, *y; /* scale, bias, residual: NULL when absent */
} conv_graph;

static fe_tensor *nhwc_tensor(fe_graph *graph, const char *name, const int64_t *dims) {
    int64_t strides[4];
    fe_tensor *t;
    CHECK(fe_strides_channels_last(4, dims, strides));
    CHECK(fe_graph_tensor(graph, name, 4, dims, strides, FE_DATA_NOT_SET, &t));
    return t;
}

static conv_graph make_conv_graph(const char *name, const int64_t *x_dims, const int64_t *w_dims, int64_t stride,
                                  int with_bn, int with_residual) {
    conv_graph c = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = name;
    options.io_data_type = FE_DATA_HALF;
    options.compute_data_type = FE_DATA_FLOAT;
    CHECK(fe_graph_create(&options, &c.graph));
    c.x = nhwc_tensor(c.graph, "x", x_dims);
    c.w = nhwc_tensor(c.graph, "w", w_dims);
    fe_conv_options conv = FE_CONV_OPTIONS_INIT;
    int64_t pad = (w_dims[2] - 1) / 2, padding[2] = {pad, pad}, strides[2] = {stride, stride};
    CHECK(fe_conv_options_set_padding(&conv, 2, padding));
    CHECK(fe_conv_options_set_stride(&conv, 2, strides));
    CHECK(fe_graph_conv_fprop(c.graph, c.x, c.w, &conv, &c.y));
    if (with_bn) {
        int64_t channel_dims[4] = {1, w_dims[0], 1, 1};
        fe_tensor *scaled, *biased, *sum;
        c.scale = nhwc_tensor(c.graph, "bn_scale", channel_dims);
        c.bias = nhwc_tensor(c.graph, "bn_bias", channel_dims);
        CHECK(fe_graph_scale(c.graph, c.y, c.scale, NULL, &scaled));
        CHECK(fe_graph_bias(c.graph, scaled, c.bias, NULL, &biased));
        if (with_residual) {
            int64_t y_dims[4];
            CHECK(fe_tensor_get_dims(biased, y_dims, 4));
            c.residual = nhwc_tensor(c.graph, "identity", y_dims);
            CHECK(fe_graph_add(c.graph, biased, c.residual, NULL, &sum));
            biased = sum;
        }
        CHECK(fe_graph_relu(c.graph, biased, NULL, &c.y));
    }
    CHECK(fe_tensor_set_output(c.y, 1));
    return c;
}

/* Folded batchnorm parameters of `channels` channels, uploaded for the graph's scale and bias
 * tensors; the host arrays keep the fp16-rounded values the device holds. The statistics are a
 * fixed spread of plausible values (gamma and inv_var near 1, beta and mean near 0). */
typedef struct folded_bn {
    fe_buffer *scale, *bias;
    float *scale_h, *bias_h;
} folded_bn;

static folded_bn fold_batchnorm(const conv_graph *c, int64_t channels) {
    folded_bn bn;
    bn.scale_h = malloc((size_t)channels * sizeof(float));
    bn.bias_h = malloc((size_t)channels * sizeof(float));
    for (int64_t k = 0; k < channels; ++k) {
        double gamma = 1.0 + 0.25 * sin(0.7 * (double)k), beta = 0.2 * cos(1.3 * (double)k);
        double mean = 0.3 * sin(2.1 * (double)k + 1.0);
        double inv_var = 1.0 / sqrt(0.8 + 0.4 * fabs(cos(0.9 * (double)k)) + 1e-5);
        bn.scale_h[k] = (float)(gamma * inv_var);
        bn.bias_h[k] = (float)(beta - mean * gamma * inv_var);
    }
    CHECK(fe_buffer_create_for_tensor(0, c->scale, &bn.scale));
    CHECK(fe_buffer_create_for_tensor(0, c->bias, &bn.bias));
    CHECK(fe_buffer_upload_float(bn.scale, bn.scale_h, channels, FE_DATA_HALF));
    CHECK(fe_buffer_upload_float(bn.bias, bn.bias_h, channels, FE_DATA_HALF));
    CHECK(fe_buffer_download_float(bn.scale, bn.scale_h, channels, FE_DATA_HALF));
    CHECK(fe_buffer_download_float(bn.bias, bn.bias_h, channels, FE_DATA_HALF));
    return bn;
}

static void free_bn(folded_bn *bn) {
    fe_buffer_destroy(bn->scale);
    fe_buffer_destroy(bn->bias);
    free(bn->scale_h);
    free(bn->bias_h);
}

/* What the CPU expects of a graph's output at one element. */
typedef struct reference {
    conv_host x, w, residual;
    const float *scale, *bias; /* NULL: a plain convolution */
    int has_residual;
    conv_geometry geometry;
} reference;

static double expected(const int64_t *i, const void *context) {
    const reference *r = context;
    double v = conv_fprop_at(&r->x, &r->w, &r->geometry, i);
    if (!r->scale) return v;
    v = v * r->scale[i[1]] + r->bias[i[1]];
    if (r->has_residual) v += conv_host_at(&r->residual, i[0], i[1], i[2], i[3]);
    return v > 0 ? v : 0;
}

static void execute(const conv_graph *c, fe_handle *handle, fe_buffer *x, fe_buffer *w, const folded_bn *bn,
                    fe_buffer *residual, fe_buffer *y) {
    fe_tensor *tensors[6] = {c->x, c->w, c->y};
    fe_buffer *buffers[6] = {x, w, y};
    size_t n = 3;
    if (bn) {
        tensors[n] = c->scale;
        buffers[n++] = bn->scale;
        tensors[n] = c->bias;
        buffers[n++] = bn->bias;
    }
    if (residual) {
        tensors[n] = c->residual;
        buffers[n++] = residual;
    }
    CHECK(fe_graph_execute_buffers(c->graph, handle, tensors, buffers, n, NULL));
    CHECK(fe_handle_synchronize(handle));
}

static int check(const char *what, const conv_graph *c, fe_buffer *y, const float *xh, const float *wh,
                 const folded_bn *bn, const float *residual_h, const fe_tensor *residual_tensor, int64_t stride,
                 float **out_h) {
    reference r;
    memset(&r, 0, sizeof r);
    r.x = conv_host_of(c->x, xh);
    r.w = conv_host_of(c->w, wh);
    r.scale = bn ? bn->scale_h : NULL;
    r.bias = bn ? bn->bias_h : NULL;
    r.has_residual = residual_h != NULL;
    if (residual_h) r.residual = conv_host_of(residual_tensor, residual_h);
    int64_t w_dims[4];
    CHECK(fe_tensor_get_dims(c->w, w_dims, 4));
    r.geometry = conv_geometry_of((w_dims[2] - 1) / 2, stride, 1, 1);
    *out_h = example_download(y, c->y);
    return conv_check_sampled(what, c->y, *out_h, 4096, expected, &r, 2e-2, 1e-2);
}

static int run_block(const block_shape *b, fe_handle *handle, int argc, char **argv) {
    const int64_t out_size = b->size / b->stride;
    int64_t x_dims[4] = {b->batch, b->in_channels, b->size, b->size};
    int64_t mid_dims[4] = {b->batch, b->out_channels, out_size, out_size};
    int64_t w1_dims[4] = {b->out_channels, b->in_channels, 3, 3}, w2_dims[4] = {b->out_channels, b->out_channels, 3, 3};
    int64_t wd_dims[4] = {b->out_channels, b->in_channels, 1, 1};
    int downsample = b->stride != 1 || b->in_channels != b->out_channels;

    conv_graph conv1 = make_conv_graph("conv1", x_dims, w1_dims, b->stride, 1, 0);
    conv_graph conv2 = make_conv_graph("conv2", mid_dims, w2_dims, 1, 1, 1);
    conv_graph down = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    if (downsample) down = make_conv_graph("downsample", x_dims, wd_dims, b->stride, 0, 0);
    char in_text[64], out_text[64];
    printf("%s: %s -> %s in %d graphs\n", b->name, conv_dims_text(conv1.x, in_text, sizeof in_text),
           conv_dims_text(conv2.y, out_text, sizeof out_text), downsample ? 3 : 2);

    int rc = 0;
    if (!handle) {
        /* The folded-batchnorm graphs go to runtime-compiled engines: with no GPU they are taken
         * to the support check (their kernels cannot be compiled here); the plain downsampling
         * convolution builds its plan. */
        rc = example_check_deviceless(conv1.graph, argc, argv);
        if (rc == 0) rc = example_check_deviceless(conv2.graph, argc, argv);
        if (rc == 0 && downsample) rc = example_build_deviceless(down.graph, argc, argv);
    } else {
        CHECK(fe_graph_build(conv1.graph, handle, NULL));
        CHECK(fe_graph_build(conv2.graph, handle, NULL));
        if (downsample) CHECK(fe_graph_build(down.graph, handle, NULL));
        printf("plans: conv1 %s, conv2 %s%s%s\n", example_engine_tag(conv1.graph), example_engine_tag(conv2.graph),
               downsample ? ", downsample " : "", downsample ? example_engine_tag(down.graph) : "");

        float *xh, *w1h, *w2h, *wdh = NULL, *out1h = NULL, *identity_h = NULL, *yh = NULL;
        fe_buffer *x = example_input(conv1.x, &xh), *w1 = example_input(conv1.w, &w1h);
        fe_buffer *w2 = example_input(conv2.w, &w2h), *wd = downsample ? example_input(down.w, &wdh) : NULL;
        folded_bn bn1 = fold_batchnorm(&conv1, b->out_channels), bn2 = fold_batchnorm(&conv2, b->out_channels);
        fe_buffer *out1 = example_output(conv1.y), *y = example_output(conv2.y);
        fe_buffer *identity = downsample ? example_output(down.y) : x;

        execute(&conv1, handle, x, w1, &bn1, NULL, out1);
        rc |= check("conv1: relu(bn(conv(x)))", &conv1, out1, xh, w1h, &bn1, NULL, NULL, b->stride, &out1h);
        if (downsample) {
            execute(&down, handle, x, wd, NULL, NULL, identity);
            rc |= check("downsample: conv1x1(x), stride 2", &down, identity, xh, wdh, NULL, NULL, NULL, b->stride,
                        &identity_h);
        }
        execute(&conv2, handle, out1, w2, &bn2, identity, y);
        /* conv2's reference starts from the GPU's out1 and identity: each graph is checked alone. */
        rc |= check("conv2: relu(bn(conv(out1)) + identity)", &conv2, y, out1h, w2h, &bn2,
                    downsample ? identity_h : xh, downsample ? down.y : conv1.x, 1, &yh);

        example_free_all(xh, w1h, w2h, wdh, out1h, identity_h, yh);
        free_bn(&bn1);
        free_bn(&bn2);
        example_destroy_buffers(x, w1, w2, wd, out1, y);
        if (downsample) fe_buffer_destroy(identity);
    }
    fe_graph_destroy(conv1.graph);
    fe_graph_destroy(conv2.graph);
    fe_graph_destroy(down.graph);
    return rc;
}

int main(int argc, char **argv) {
    fe_handle *handle = example_handle();
    int on_gpu = handle != NULL, rc = 0;
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0] && rc == 0; ++i)
        rc = run_block(&blocks[i], handle, argc, argv);
    fe_handle_destroy(handle);
    if (rc == 0) printf("ResNet basic blocks %s\n", on_gpu ? "verified on GPU" : "lowered devicelessly (no GPU)");
    return rc;
}
