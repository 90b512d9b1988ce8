/*
 * One training step of the tutorial's ResNet basic block (resnet_block.c runs it for inference),
 * x -> conv1 -> bn1 -> relu -> conv2 -> bn2 -> (+ x) -> relu, as the fused graphs cuDNN has for
 * batchnorm training on Hopper:
 *   forward   "conv1"      y1 = conv(x, w1), with its per-channel sum and sum of squares (genstats)
 *             "bn1"        bn_finalize: mean, inverse deviation, equivalent scale and bias, running stats
 *             "conv2"      y2 = conv(relu(y1 * s1 + b1), w2), with its sums
 *             "bn2"        bn_finalize of y2
 *             "add_relu"   out = relu(y2 * s2 + b2 + x)
 *   backward  "drelu"      dz = relu'(out) dout
 *             "bn2_backward" dy2, dgamma2, dbeta2 (cuDNN's batchnorm backward: no convolution
 *                          feeds dz, so there is no dgrad for dbn_weight to join)
 *             "wgrad2"     dw2 = wgrad(relu(y1 * s1 + b1), dy2)
 *             "dgrad2_dbn1" da = relu'(bn1(y1)) dgrad(dy2, w2), and bn1's weight gradients: the
 *                          dgrad + drelu + dbn_weight fusion
 *             "dy1"        the gradient through bn1: dy1 = da * e_dy1 + y1 * e_x1 + e_b1
 *             "wgrad1"     dw1 = wgrad(x, dy1)
 *             "dgrad1"     dx = dgrad(dy1, w1) + dz (the shortcut's gradient)
 *   update    "sgd_*"      w -= lr * dw for both weights and both batchnorms' scale and bias.
 * Batch 4, 32 channels, 16x16, fp16 tensors (float statistics and batchnorm parameters), fp32 math,
 * channels-last. dbn_weight's equivalent scales turn dz into dy: dy = e_dy * dz + e_x * y + e_b.
 *
 * On a GPU every graph's outputs are checked, whole, against the CPU in double from the GPU's own
 * inputs to that graph; the gradients through each batchnorm are checked against its textbook
 * backward, so the equivalent scales are checked by what they mean. Without a GPU every graph is
 * lowered for the H100 description up to cuDNN's support check.
 */
#include <math.h>
#include <string.h>

#include "conv_check.h"

#define N 4
#define C 32
#define H 16
#define W 16
#define COUNT (N * H * W) /* values per channel */
#define EPSILON 1e-5
#define MOMENTUM 0.1
#define LEARNING_RATE 0.01

static fe_tensor *nhwc(fe_graph *graph, const char *name, int64_t n, int64_t c, int64_t h, int64_t w,
                       fe_data_type type) {
    int64_t dims[4] = {n, c, h, w}, strides[4];
    fe_tensor *t;
    CHECK(fe_strides_channels_last(4, dims, strides));
    CHECK(fe_graph_tensor(graph, name, 4, dims, strides, type, &t));
    return t;
}
static fe_tensor *image(fe_graph *graph, const char *name) { return nhwc(graph, name, N, C, H, W, FE_DATA_NOT_SET); }
static fe_tensor *weight(fe_graph *graph, const char *name) { return nhwc(graph, name, C, C, 3, 3, FE_DATA_NOT_SET); }
static fe_tensor *channels(fe_graph *graph, const char *name) { return nhwc(graph, name, 1, C, 1, 1, FE_DATA_FLOAT); }
/* bn1's equivalent scale and bias as the convolutions that apply it read them: cuDNN's engines
 * for a scale, bias and relu fused into a convolution's input take half. */
static fe_tensor *half_channels(fe_graph *graph, const char *name) { return nhwc(graph, name, 1, C, 1, 1, FE_DATA_HALF); }

static fe_tensor *pointwise(fe_graph *graph, fe_pointwise_mode mode, fe_tensor *a, fe_tensor *b) {
    fe_tensor *y;
    CHECK(fe_graph_pointwise(graph, mode, a, b, NULL, NULL, &y));
    return y;
}
static fe_tensor *output(fe_tensor *t, fe_data_type type) {
    CHECK(fe_tensor_set_output(t, 1));
    CHECK(fe_tensor_set_data_type(t, type));
    return t;
}
static fe_conv_options padded(void) {
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    int64_t padding[2] = {1, 1};
    CHECK(fe_conv_options_set_padding(&o, 2, padding));
    return o;
}

/* The block's values: one device buffer each, bound to whichever graph reads or writes it, and the
 * host copy the checks read. */
enum value_id {
    X, W1, W2, GAMMA1, BETA1, GAMMA2, BETA2, RUNNING_MEAN1, RUNNING_VAR1, RUNNING_MEAN2, RUNNING_VAR2, DOUT,
    Y1, SUM1, SQ1, S1, B1, MEAN1, ISTD1, NEXT_MEAN1, NEXT_VAR1,
    Y2, SUM2, SQ2, S2, B2, MEAN2, ISTD2, NEXT_MEAN2, NEXT_VAR2, OUT,
    DZ, DGAMMA2, DBETA2, DY2, DW2,
    DA, DGAMMA1, DBETA1, E_DY1, E_X1, E_B1, DY1, DW1, DX,
    NEW_W1, NEW_W2, NEW_GAMMA1, NEW_BETA1, NEW_GAMMA2, NEW_BETA2, VALUES
};
#define FIRST_OUTPUT Y1

typedef struct value {
    fe_buffer *buffer;
    float *host;
    const fe_tensor *tensor; /* a tensor that holds it, for its layout */
} value;

/* A graph and its tensors by the value each one holds. */
typedef struct step_graph {
    fe_graph *graph;
    fe_tensor *tensors[VALUES];
} step_graph;

static fe_tensor *hold(step_graph *g, enum value_id id, fe_tensor *t) {
    g->tensors[id] = t;
    return t;
}
/* The graph's input tensor for a value, declared on first use. */
static fe_tensor *image_of(step_graph *g, enum value_id id, const char *name) {
    return g->tensors[id] ? g->tensors[id] : hold(g, id, image(g->graph, name));
}
static fe_tensor *channels_of(step_graph *g, enum value_id id, const char *name) {
    return g->tensors[id] ? g->tensors[id] : hold(g, id, channels(g->graph, name));
}

/* w - lr * dw for one parameter (of `like`'s shape and type). */
static step_graph sgd(const char *name, enum value_id parameter, enum value_id gradient, enum value_id updated,
                      int is_weight) {
    step_graph g = {example_fp16_graph(name), {0}};
    fe_tensor *p = hold(&g, parameter, is_weight ? weight(g.graph, "p") : channels(g.graph, "p"));
    fe_tensor *d = hold(&g, gradient, is_weight ? weight(g.graph, "dp") : channels(g.graph, "dp"));
    fe_tensor *lr;
    CHECK(fe_graph_scalar(g.graph, "lr", LEARNING_RATE, FE_DATA_FLOAT, &lr));
    fe_tensor *next = pointwise(g.graph, FE_POINTWISE_SUB, p, pointwise(g.graph, FE_POINTWISE_MUL, d, lr));
    hold(&g, updated, output(next, is_weight ? FE_DATA_HALF : FE_DATA_FLOAT));
    return g;
}

/* bn_finalize of one batchnorm's sums; the equivalent scale and bias in `eq_type`. */
static step_graph finalize(const char *name, enum value_id sum, enum value_id sq, enum value_id gamma,
                           enum value_id beta, enum value_id running_mean, enum value_id running_var,
                           enum value_id first_output, fe_data_type eq_type) {
    step_graph g = {example_fp16_graph(name), {0}};
    fe_bn_finalize_options o = FE_BN_FINALIZE_OPTIONS_INIT;
    o.accum_count = COUNT;
    o.epsilon = EPSILON;
    o.momentum = MOMENTUM;
    fe_tensor *outs[6];
    CHECK(fe_graph_bn_finalize(g.graph, hold(&g, sum, channels(g.graph, "sum")), hold(&g, sq, channels(g.graph, "sq")),
                               hold(&g, gamma, channels(g.graph, "gamma")), hold(&g, beta, channels(g.graph, "beta")),
                               hold(&g, running_mean, channels(g.graph, "running_mean")),
                               hold(&g, running_var, channels(g.graph, "running_var")), &o, &outs[0], &outs[1],
                               &outs[2], &outs[3], &outs[4], &outs[5]));
    for (int i = 0; i < 6; ++i)
        hold(&g, (enum value_id)(first_output + i), output(outs[i], i < 2 ? eq_type : FE_DATA_FLOAT));
    return g;
}

/* dy = dz * e_dy + y * e_x + e_b: the gradient through a batchnorm from dbn_weight's outputs. */
static step_graph through_bn(const char *name, enum value_id dz, enum value_id y, enum value_id e_dy, enum value_id dy) {
    step_graph g = {example_fp16_graph(name), {0}};
    fe_tensor *a = pointwise(g.graph, FE_POINTWISE_MUL, hold(&g, dz, image(g.graph, "dz")),
                             hold(&g, e_dy, channels(g.graph, "e_dy")));
    fe_tensor *b = pointwise(g.graph, FE_POINTWISE_MUL, hold(&g, y, image(g.graph, "y")),
                             hold(&g, (enum value_id)(e_dy + 1), channels(g.graph, "e_x")));
    fe_tensor *sum = pointwise(g.graph, FE_POINTWISE_ADD, pointwise(g.graph, FE_POINTWISE_ADD, a, b),
                               hold(&g, (enum value_id)(e_dy + 2), channels(g.graph, "e_b")));
    hold(&g, dy, output(sum, FE_DATA_HALF));
    return g;
}

/* dbn_weight of a batchnorm (y's statistics, gamma) for the gradient `dz` (a tensor of g). */
static void weight_gradients(step_graph *g, fe_tensor *dz, enum value_id y, enum value_id mean, enum value_id gamma,
                             enum value_id first_output) {
    fe_tensor *outs[5];
    CHECK(fe_graph_dbn_weight(g->graph, dz, image_of(g, y, "y"), channels_of(g, mean, "mean"),
                              channels_of(g, (enum value_id)(mean + 1), "inv_std"), channels_of(g, gamma, "gamma"), NULL,
                              &outs[0], &outs[1], &outs[2], &outs[3], &outs[4]));
    for (int i = 0; i < 5; ++i) hold(g, (enum value_id)(first_output + i), output(outs[i], FE_DATA_FLOAT));
}

static int make_graphs(step_graph *graphs) {
    fe_conv_options conv = padded();
    int n = 0;
    { /* conv1 + genstats */
        step_graph g = {example_fp16_graph("conv1"), {0}};
        fe_tensor *y, *sum, *sq;
        CHECK(fe_graph_conv_fprop(g.graph, hold(&g, X, image(g.graph, "x")), hold(&g, W1, weight(g.graph, "w1")), &conv,
                                  &y));
        CHECK(fe_graph_genstats(g.graph, y, NULL, &sum, &sq));
        hold(&g, Y1, output(y, FE_DATA_HALF));
        hold(&g, SUM1, output(sum, FE_DATA_FLOAT));
        hold(&g, SQ1, output(sq, FE_DATA_FLOAT));
        graphs[n++] = g;
    }
    graphs[n++] = finalize("bn1", SUM1, SQ1, GAMMA1, BETA1, RUNNING_MEAN1, RUNNING_VAR1, S1, FE_DATA_HALF);
    { /* bn1 applied, relu, conv2 + genstats */
        step_graph g = {example_fp16_graph("conv2"), {0}};
        fe_tensor *a = pointwise(g.graph, FE_POINTWISE_MUL, hold(&g, Y1, image(g.graph, "y1")),
                                 hold(&g, S1, half_channels(g.graph, "s1")));
        a = pointwise(g.graph, FE_POINTWISE_ADD, a, hold(&g, B1, half_channels(g.graph, "b1")));
        a = pointwise(g.graph, FE_POINTWISE_RELU_FWD, a, NULL);
        fe_tensor *y, *sum, *sq;
        CHECK(fe_graph_conv_fprop(g.graph, a, hold(&g, W2, weight(g.graph, "w2")), &conv, &y));
        CHECK(fe_graph_genstats(g.graph, y, NULL, &sum, &sq));
        hold(&g, Y2, output(y, FE_DATA_HALF));
        hold(&g, SUM2, output(sum, FE_DATA_FLOAT));
        hold(&g, SQ2, output(sq, FE_DATA_FLOAT));
        graphs[n++] = g;
    }
    graphs[n++] = finalize("bn2", SUM2, SQ2, GAMMA2, BETA2, RUNNING_MEAN2, RUNNING_VAR2, S2, FE_DATA_FLOAT);
    { /* bn2 applied, the shortcut added, relu */
        step_graph g = {example_fp16_graph("add_relu"), {0}};
        fe_tensor *z = pointwise(g.graph, FE_POINTWISE_MUL, hold(&g, Y2, image(g.graph, "y2")),
                                 hold(&g, S2, channels(g.graph, "s2")));
        z = pointwise(g.graph, FE_POINTWISE_ADD, z, hold(&g, B2, channels(g.graph, "b2")));
        z = pointwise(g.graph, FE_POINTWISE_ADD, z, hold(&g, X, image(g.graph, "x")));
        hold(&g, OUT, output(pointwise(g.graph, FE_POINTWISE_RELU_FWD, z, NULL), FE_DATA_HALF));
        graphs[n++] = g;
    }
    { /* relu's gradient */
        step_graph g = {example_fp16_graph("drelu"), {0}};
        fe_tensor *dz = pointwise(g.graph, FE_POINTWISE_RELU_BWD, hold(&g, DOUT, image(g.graph, "dout")),
                                  hold(&g, OUT, image(g.graph, "out")));
        hold(&g, DZ, output(dz, FE_DATA_HALF));
        graphs[n++] = g;
    }
    { /* bn2's backward: no convolution feeds its gradient here, so dbn_weight has no fusion to
       * join (cuDNN 9.19 has no engine for it alone) and cuDNN's batchnorm backward runs it. */
        step_graph g = {example_fp16_graph("bn2_backward"), {0}};
        fe_norm_backward_options o = FE_NORM_BACKWARD_OPTIONS_INIT;
        fe_tensor *dy, *dgamma, *dbeta;
        CHECK(fe_graph_batchnorm_backward(g.graph, image_of(&g, DZ, "dz"), image_of(&g, Y2, "y2"),
                                          channels_of(&g, GAMMA2, "gamma2"), channels_of(&g, MEAN2, "mean2"),
                                          channels_of(&g, ISTD2, "inv_std2"), &o, &dy, &dgamma, &dbeta));
        hold(&g, DY2, output(dy, FE_DATA_HALF));
        hold(&g, DGAMMA2, output(dgamma, FE_DATA_FLOAT));
        hold(&g, DBETA2, output(dbeta, FE_DATA_FLOAT));
        graphs[n++] = g;
    }
    { /* dw2 from bn1's relu output, recomputed from y1 inside the plan */
        step_graph g = {example_fp16_graph("wgrad2"), {0}};
        fe_tensor *a = pointwise(g.graph, FE_POINTWISE_MUL, hold(&g, Y1, image(g.graph, "y1")),
                                 hold(&g, S1, half_channels(g.graph, "s1")));
        a = pointwise(g.graph, FE_POINTWISE_ADD, a, hold(&g, B1, half_channels(g.graph, "b1")));
        a = pointwise(g.graph, FE_POINTWISE_RELU_FWD, a, NULL);
        fe_tensor *dw;
        int64_t w_dims[4] = {C, C, 3, 3};
        CHECK(fe_graph_conv_wgrad(g.graph, a, hold(&g, DY2, image(g.graph, "dy2")), 4, w_dims, &conv, &dw));
        hold(&g, DW2, output(dw, FE_DATA_HALF));
        graphs[n++] = g;
    }
    { /* dgrad + drelu (against bn1's output, recomputed) + dbn_weight of bn1 */
        step_graph g = {example_fp16_graph("dgrad2_dbn1"), {0}};
        int64_t x_dims[4] = {N, C, H, W};
        fe_tensor *dgrad;
        CHECK(fe_graph_conv_dgrad(g.graph, hold(&g, DY2, image(g.graph, "dy2")), hold(&g, W2, weight(g.graph, "w2")), 4,
                                  x_dims, &conv, &dgrad));
        /* relu's gradient at bn1's output, (y1 - mean1) * inv_std1 * gamma1 + beta1, which
         * dbn_weight's inputs give again. */
        fe_tensor *bn = pointwise(g.graph, FE_POINTWISE_SUB, image_of(&g, Y1, "y"), channels_of(&g, MEAN1, "mean"));
        bn = pointwise(g.graph, FE_POINTWISE_MUL, bn, channels_of(&g, ISTD1, "inv_std"));
        bn = pointwise(g.graph, FE_POINTWISE_MUL, bn, channels_of(&g, GAMMA1, "gamma"));
        bn = pointwise(g.graph, FE_POINTWISE_ADD, bn, channels_of(&g, BETA1, "beta"));
        fe_tensor *da = hold(&g, DA, output(pointwise(g.graph, FE_POINTWISE_RELU_BWD, dgrad, bn), FE_DATA_HALF));
        weight_gradients(&g, da, Y1, MEAN1, GAMMA1, DGAMMA1);
        graphs[n++] = g;
    }
    graphs[n++] = through_bn("dy1", DA, Y1, E_DY1, DY1);
    { /* dw1 */
        step_graph g = {example_fp16_graph("wgrad1"), {0}};
        fe_tensor *dw;
        int64_t w_dims[4] = {C, C, 3, 3};
        CHECK(fe_graph_conv_wgrad(g.graph, hold(&g, X, image(g.graph, "x")), hold(&g, DY1, image(g.graph, "dy1")), 4,
                                  w_dims, &conv, &dw));
        hold(&g, DW1, output(dw, FE_DATA_HALF));
        graphs[n++] = g;
    }
    { /* dx = dgrad(dy1, w1) + dz */
        step_graph g = {example_fp16_graph("dgrad1"), {0}};
        int64_t x_dims[4] = {N, C, H, W};
        fe_tensor *dgrad;
        CHECK(fe_graph_conv_dgrad(g.graph, hold(&g, DY1, image(g.graph, "dy1")), hold(&g, W1, weight(g.graph, "w1")), 4,
                                  x_dims, &conv, &dgrad));
        hold(&g, DX, output(pointwise(g.graph, FE_POINTWISE_ADD, dgrad, hold(&g, DZ, image(g.graph, "dz"))), FE_DATA_HALF));
        graphs[n++] = g;
    }
    graphs[n++] = sgd("sgd_w1", W1, DW1, NEW_W1, 1);
    graphs[n++] = sgd("sgd_w2", W2, DW2, NEW_W2, 1);
    graphs[n++] = sgd("sgd_gamma1", GAMMA1, DGAMMA1, NEW_GAMMA1, 0);
    graphs[n++] = sgd("sgd_beta1", BETA1, DBETA1, NEW_BETA1, 0);
    graphs[n++] = sgd("sgd_gamma2", GAMMA2, DGAMMA2, NEW_GAMMA2, 0);
    graphs[n++] = sgd("sgd_beta2", BETA2, DBETA2, NEW_BETA2, 0);
    return n;
}

/* ---- checks: each graph's outputs from its inputs as the GPU held them, in double ---- */

static value values[VALUES];

static double at(enum value_id id, int64_t n, int64_t c, int64_t h, int64_t w) {
    conv_host t = conv_host_of(values[id].tensor, values[id].host);
    return conv_host_at(&t, n, c, h, w);
}
static double channel(enum value_id id, int64_t c) { return at(id, 0, c, 0, 0); }

typedef double (*element_fn)(int64_t n, int64_t c, int64_t h, int64_t w);

/* Compare a value with f over its logical elements (4-D, row-major). */
static int compare(const char *what, enum value_id id, element_fn f, double atol, double rtol) {
    int64_t dims[4];
    CHECK(fe_tensor_get_dims(values[id].tensor, dims, 4));
    int64_t count = dims[0] * dims[1] * dims[2] * dims[3], e = 0;
    double *want = malloc((size_t)count * sizeof(double));
    for (int64_t n = 0; n < dims[0]; ++n)
        for (int64_t c = 0; c < dims[1]; ++c)
            for (int64_t h = 0; h < dims[2]; ++h)
                for (int64_t w = 0; w < dims[3]; ++w) want[e++] = f(n, c, h, w);
    int rc = example_compare(what, values[id].tensor, values[id].host, want, atol, rtol);
    free(want);
    return rc;
}

static conv_geometry geometry(void) { return conv_geometry_of(1, 1, 1, 1); }
static double conv_of(enum value_id x_id, enum value_id w_id, int64_t n, int64_t k, int64_t h, int64_t w) {
    conv_host x = conv_host_of(values[x_id].tensor, values[x_id].host);
    conv_host wt = conv_host_of(values[w_id].tensor, values[w_id].host);
    conv_geometry g = geometry();
    int64_t index[4] = {n, k, h, w};
    return conv_fprop_at(&x, &wt, &g, index);
}

/* relu(y1 * s1 + b1) as a host tensor (float, y1's layout): conv2's and wgrad2's input. */
static float *relu_bn1;
static conv_host relu_bn1_host(void) { return conv_host_of(values[Y1].tensor, relu_bn1); }

static double y1_ref(int64_t n, int64_t c, int64_t h, int64_t w) { return conv_of(X, W1, n, c, h, w); }
static double y2_ref(int64_t n, int64_t c, int64_t h, int64_t w) {
    conv_host a = relu_bn1_host(), wt = conv_host_of(values[W2].tensor, values[W2].host);
    conv_geometry g = geometry();
    int64_t index[4] = {n, c, h, w};
    return conv_fprop_at(&a, &wt, &g, index);
}
static double out_ref(int64_t n, int64_t c, int64_t h, int64_t w) {
    double z = at(Y2, n, c, h, w) * channel(S2, c) + channel(B2, c) + at(X, n, c, h, w);
    return z > 0 ? z : 0;
}
static double dz_ref(int64_t n, int64_t c, int64_t h, int64_t w) {
    return at(OUT, n, c, h, w) > 0 ? at(DOUT, n, c, h, w) : 0;
}
static double dgrad_of(enum value_id dy_id, enum value_id w_id, int64_t n, int64_t c, int64_t h, int64_t w) {
    conv_host dy = conv_host_of(values[dy_id].tensor, values[dy_id].host);
    conv_host wt = conv_host_of(values[w_id].tensor, values[w_id].host);
    conv_geometry g = geometry();
    int64_t index[4] = {n, c, h, w};
    return conv_dgrad_at(&dy, &wt, &g, index);
}
static double da_ref(int64_t n, int64_t c, int64_t h, int64_t w) {
    double bn = (at(Y1, n, c, h, w) - channel(MEAN1, c)) * channel(ISTD1, c) * channel(GAMMA1, c) + channel(BETA1, c);
    return bn > 0 ? dgrad_of(DY2, W2, n, c, h, w) : 0;
}
static double dx_ref(int64_t n, int64_t c, int64_t h, int64_t w) {
    return dgrad_of(DY1, W1, n, c, h, w) + at(DZ, n, c, h, w);
}
static double dw2_ref(int64_t k, int64_t c, int64_t r, int64_t s) {
    conv_host a = relu_bn1_host(), dy = conv_host_of(values[DY2].tensor, values[DY2].host);
    conv_geometry g = geometry();
    int64_t index[4] = {k, c, r, s};
    return conv_wgrad_at(&a, &dy, &g, index);
}
static double dw1_ref(int64_t k, int64_t c, int64_t r, int64_t s) {
    conv_host x = conv_host_of(values[X].tensor, values[X].host), dy = conv_host_of(values[DY1].tensor, values[DY1].host);
    conv_geometry g = geometry();
    int64_t index[4] = {k, c, r, s};
    return conv_wgrad_at(&x, &dy, &g, index);
}

/* Per-channel references, computed whole into `ref[value]`. */
static double ref[VALUES][C];
static enum value_id current;
static double per_channel(int64_t n, int64_t c, int64_t h, int64_t w) {
    (void)n, (void)h, (void)w;
    return ref[current][c];
}
static int compare_channels(const char *what, enum value_id id, double atol, double rtol) {
    current = id;
    return compare(what, id, per_channel, atol, rtol);
}

/* sums of a convolution's output as stored, and bn_finalize's results from the GPU's sums */
static int check_bn_forward(const char *name, enum value_id y, enum value_id sum, enum value_id gamma,
                            enum value_id beta, enum value_id running_mean, enum value_id running_var) {
    for (int64_t c = 0; c < C; ++c) {
        double s = 0, q = 0;
        for (int64_t n = 0; n < N; ++n)
            for (int64_t h = 0; h < H; ++h)
                for (int64_t w = 0; w < W; ++w) {
                    double v = at(y, n, c, h, w);
                    s += v;
                    q += v * v;
                }
        ref[sum][c] = s;
        ref[sum + 1][c] = q;
        double mean = channel(sum, c) / COUNT, var = channel(sum + 1, c) / COUNT - mean * mean;
        double inv_std = 1.0 / sqrt(var + EPSILON);
        enum value_id first = (enum value_id)(sum + 2); /* s, b, mean, inv_std, next mean, next var */
        ref[first][c] = channel(gamma, c) * inv_std;
        ref[first + 1][c] = channel(beta, c) - mean * channel(gamma, c) * inv_std;
        ref[first + 2][c] = mean;
        ref[first + 3][c] = inv_std;
        ref[first + 4][c] = (1 - MOMENTUM) * channel(running_mean, c) + MOMENTUM * mean;
        ref[first + 5][c] = (1 - MOMENTUM) * channel(running_var, c) + MOMENTUM * var * COUNT / (COUNT - 1);
    }
    char what[96];
    int rc = 0;
    /* The sums add 1024 values of up to about 20: a few units in the last place of each. */
    snprintf(what, sizeof what, "%s: sum", name);
    rc |= compare_channels(what, sum, 0.5, 1e-3);
    snprintf(what, sizeof what, "%s: sum of squares", name);
    rc |= compare_channels(what, (enum value_id)(sum + 1), 10, 1e-3);
    const char *outputs[6] = {"equivalent scale", "equivalent bias", "mean", "inverse deviation", "next running mean",
                              "next running variance"};
    for (int i = 0; i < 6; ++i) {
        snprintf(what, sizeof what, "%s: %s", name, outputs[i]);
        /* bn1's equivalent scale and bias are stored in half. */
        rc |= compare_channels(what, (enum value_id)(sum + 2 + i), 1e-5, i < 2 ? 1e-3 : 1e-4);
    }
    return rc;
}

/* dbn_weight's outputs, and the gradient through the batchnorm checked against its textbook form:
 * dy = gamma * inv_std * (dz - mean(dz) - xhat * mean(dz * xhat)), xhat = (y - mean) * inv_std. */
static enum value_id bn_y, bn_dz, bn_mean, bn_gamma, bn_dgamma;
static double bn_dy_ref(int64_t n, int64_t c, int64_t h, int64_t w) {
    double inv_std = channel((enum value_id)(bn_mean + 1), c), xhat = (at(bn_y, n, c, h, w) - channel(bn_mean, c)) * inv_std;
    double dgamma = ref[bn_dgamma][c], dbeta = ref[bn_dgamma + 1][c];
    return channel(bn_gamma, c) * inv_std * (at(bn_dz, n, c, h, w) - dbeta / COUNT - xhat * dgamma / COUNT);
}
static int check_bn_backward(const char *name, enum value_id dz, enum value_id y, enum value_id mean,
                             enum value_id gamma, enum value_id dgamma, enum value_id dy, int equivalents) {
    for (int64_t c = 0; c < C; ++c) {
        double inv_std = channel((enum value_id)(mean + 1), c), dg = 0, db = 0;
        for (int64_t n = 0; n < N; ++n)
            for (int64_t h = 0; h < H; ++h)
                for (int64_t w = 0; w < W; ++w) {
                    double g = at(dz, n, c, h, w);
                    db += g;
                    dg += g * (at(y, n, c, h, w) - channel(mean, c)) * inv_std;
                }
        double k = channel(gamma, c) * inv_std;
        ref[dgamma][c] = dg;
        ref[dgamma + 1][c] = db;
        ref[dgamma + 2][c] = k;
        ref[dgamma + 3][c] = -k * inv_std * dg / COUNT;
        ref[dgamma + 4][c] = -k * db / COUNT + k * inv_std * dg * channel(mean, c) / COUNT;
    }
    char what[96];
    int rc = 0;
    const char *outputs[5] = {"dgamma", "dbeta", "equivalent scale of dy", "equivalent scale of x",
                              "equivalent bias"};
    for (int i = 0; i < (equivalents ? 5 : 2); ++i) {
        snprintf(what, sizeof what, "%s: %s", name, outputs[i]);
        rc |= compare_channels(what, (enum value_id)(dgamma + i), i < 2 ? 5e-2 : 1e-4, i < 2 ? 1e-3 : 1e-3);
    }
    bn_y = y, bn_dz = dz, bn_mean = mean, bn_gamma = gamma, bn_dgamma = dgamma;
    snprintf(what, sizeof what, "%s: the gradient through it against the textbook backward", name);
    rc |= compare(what, dy, bn_dy_ref, 2e-3, 2e-2);
    return rc;
}

static enum value_id sgd_parameter, sgd_gradient;
static double sgd_ref(int64_t n, int64_t c, int64_t h, int64_t w) {
    return at(sgd_parameter, n, c, h, w) - LEARNING_RATE * at(sgd_gradient, n, c, h, w);
}
static int check_sgd(const char *what, enum value_id parameter, enum value_id gradient, enum value_id updated) {
    sgd_parameter = parameter, sgd_gradient = gradient;
    return compare(what, updated, sgd_ref, 2e-3, 2e-3);
}

static int check_step(void) {
    int rc = 0;
    rc |= compare("conv1: y1 = conv(x, w1)", Y1, y1_ref, 5e-2, 1e-2);
    rc |= check_bn_forward("bn1", Y1, SUM1, GAMMA1, BETA1, RUNNING_MEAN1, RUNNING_VAR1);
    int64_t span = 0;
    CHECK(fe_tensor_size_bytes(values[Y1].tensor, &span));
    relu_bn1 = malloc((size_t)span / 2 * sizeof(float));
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
            for (int64_t h = 0; h < H; ++h)
                for (int64_t w = 0; w < W; ++w) {
                    int64_t index[4] = {n, c, h, w};
                    double v = at(Y1, n, c, h, w) * channel(S1, c) + channel(B1, c);
                    relu_bn1[example_offset(values[Y1].tensor, index)] = (float)(v > 0 ? v : 0);
                }
    rc |= compare("conv2: y2 = conv(relu(bn1(y1)), w2)", Y2, y2_ref, 5e-2, 2e-2);
    rc |= check_bn_forward("bn2", Y2, SUM2, GAMMA2, BETA2, RUNNING_MEAN2, RUNNING_VAR2);
    rc |= compare("add_relu: out = relu(bn2(y2) + x)", OUT, out_ref, 2e-2, 1e-2);
    rc |= compare("drelu: dz = relu'(out) dout", DZ, dz_ref, 0, 0);
    rc |= check_bn_backward("bn2_backward", DZ, Y2, MEAN2, GAMMA2, DGAMMA2, DY2, 0);
    rc |= compare("wgrad2: dw2 = wgrad(relu(bn1(y1)), dy2)", DW2, dw2_ref, 2e-2, 2e-2);
    rc |= compare("dgrad2_dbn1: da = relu'(bn1(y1)) dgrad(dy2, w2)", DA, da_ref, 5e-3, 2e-2);
    rc |= check_bn_backward("bn1 (dbn_weight)", DA, Y1, MEAN1, GAMMA1, DGAMMA1, DY1, 1);
    rc |= compare("wgrad1: dw1 = wgrad(x, dy1)", DW1, dw1_ref, 2e-2, 2e-2);
    rc |= compare("dgrad1: dx = dgrad(dy1, w1) + dz", DX, dx_ref, 5e-3, 2e-2);
    rc |= check_sgd("sgd: w1", W1, DW1, NEW_W1);
    rc |= check_sgd("sgd: w2", W2, DW2, NEW_W2);
    rc |= check_sgd("sgd: gamma1", GAMMA1, DGAMMA1, NEW_GAMMA1);
    rc |= check_sgd("sgd: beta1", BETA1, DBETA1, NEW_BETA1);
    rc |= check_sgd("sgd: gamma2", GAMMA2, DGAMMA2, NEW_GAMMA2);
    rc |= check_sgd("sgd: beta2", BETA2, DBETA2, NEW_BETA2);
    free(relu_bn1);
    return rc;
}

/* ---- running the step ---- */

/* A buffer for every value, from the first graph that holds it: inputs get fresh random values
 * (batchnorm parameters and running statistics in plausible ranges), results are poisoned. */
static void allocate(step_graph *graphs, int count) {
    for (int i = 0; i < count; ++i)
        for (int id = 0; id < VALUES; ++id) {
            fe_tensor *t = graphs[i].tensors[id];
            if (!t || values[id].buffer) continue;
            values[id].tensor = t;
            if (id >= FIRST_OUTPUT) {
                values[id].buffer = example_output(t);
                continue;
            }
            values[id].buffer = example_input(t, &values[id].host);
            if (example_count(t) != C) continue;
            /* [-1, 1] mapped into each parameter's range. */
            double low = id == RUNNING_MEAN1 || id == RUNNING_MEAN2 ? -0.2 : (id == BETA1 || id == BETA2 ? -0.5 : 0.5);
            double width = id == RUNNING_MEAN1 || id == RUNNING_MEAN2 ? 0.4 : 1.0;
            for (int64_t c = 0; c < C; ++c) values[id].host[c] = (float)(low + width * (values[id].host[c] + 1) / 2);
            CHECK(fe_buffer_upload_float(values[id].buffer, values[id].host, C, FE_DATA_FLOAT));
        }
}

static void execute(const step_graph *g, fe_handle *handle) {
    fe_tensor *tensors[VALUES];
    fe_buffer *buffers[VALUES];
    size_t n = 0;
    for (int id = 0; id < VALUES; ++id) {
        if (!g->tensors[id]) continue;
        tensors[n] = g->tensors[id];
        buffers[n++] = values[id].buffer;
    }
    int64_t workspace = 0;
    CHECK(fe_graph_workspace_size(g->graph, &workspace));
    fe_buffer *space = NULL;
    void *pointer = NULL;
    if (workspace > 0) {
        CHECK(fe_buffer_create(0, workspace, &space));
        CHECK(fe_buffer_device_pointer(space, &pointer));
    }
    CHECK(fe_graph_execute_buffers(g->graph, handle, tensors, buffers, n, pointer));
    CHECK(fe_handle_synchronize(handle));
    fe_buffer_destroy(space);
}

int main(int argc, char **argv) {
    fe_handle *handle = example_handle();
    int on_gpu = handle != NULL;
    step_graph graphs[32];
    int count = make_graphs(graphs), rc = 0;
    printf("ResNet basic block training step: x [%d, %d, %d, %d], %d graphs\n", N, C, H, W, count);
    if (!handle) {
        /* Every graph runs on runtime-compiled engines: with no GPU, up to the support check. */
        for (int i = 0; i < count && rc == 0; ++i) rc = example_check_deviceless(graphs[i].graph, argc, argv);
    } else {
        for (int i = 0; i < count; ++i) CHECK(fe_graph_build(graphs[i].graph, handle, NULL));
        for (int i = 0; i < count; ++i)
            printf("  %-12s %s\n", example_graph_name(graphs[i].graph), example_engine_tag(graphs[i].graph));
        allocate(graphs, count);
        for (int i = 0; i < count; ++i) execute(&graphs[i], handle);
        for (int id = FIRST_OUTPUT; id < VALUES; ++id) values[id].host = example_download(values[id].buffer, (fe_tensor *)values[id].tensor);
        rc = check_step();
        for (int id = 0; id < VALUES; ++id) {
            free(values[id].host);
            fe_buffer_destroy(values[id].buffer);
        }
    }
    for (int i = 0; i < count; ++i) fe_graph_destroy(graphs[i].graph);
    fe_handle_destroy(handle);
    if (rc == 0)
        printf("ResNet block training step %s\n", on_gpu ? "verified on GPU" : "lowered devicelessly (no GPU)");
    return rc;
}
