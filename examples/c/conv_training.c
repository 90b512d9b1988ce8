/*
 * Training a convolution: the tutorial's data gradient (dgrad: dy, w -> dx), weight gradient
 * (wgrad: x, dy -> dw) and its training loop of three graphs (forward, dgrad, wgrad), built once
 * and run for a few steps of gradient descent.
 *
 * Shapes of the tutorial: x 16x64x56x56, w 128x64x3x3, padding 1, so y and dy are 16x128x56x56;
 * fp16, fp32 math, channels-last. The loop learns a convolution back from its outputs: the target
 * is conv(x, w_true) (made by the forward graph itself), the loss sum((y - target)^2) / 128, so
 * dy = (y - target) / 64 (the 1/64 keeps dw well inside fp16), and w -= lr * dw.
 *
 * On a GPU the first step's y, dx and dw are checked against the CPU at sampled elements and the
 * loss must fall at every step; without one the three plans are built for the H100 description.
 */
#include "conv_check.h"

#define N 16
#define C 64
#define K 128
#define H 56
#define W 56
#define STEPS 4
#define DY_SCALE (1.0 / 64)

static fe_graph *new_graph(const char *name) {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = name;
    options.io_data_type = FE_DATA_HALF;
    options.compute_data_type = FE_DATA_FLOAT;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));
    return graph;
}

static fe_tensor *nhwc_tensor(fe_graph *graph, const char *name, int64_t n, int64_t c, int64_t h, int64_t w) {
    int64_t dims[4] = {n, c, h, w}, strides[4];
    fe_tensor *t;
    CHECK(fe_strides_channels_last(4, dims, strides));
    CHECK(fe_graph_tensor(graph, name, 4, dims, strides, FE_DATA_NOT_SET, &t));
    return t;
}

/* Upload host floats as fp16 and read back what the device holds, so references use it too. */
static void upload_rounded(fe_buffer *buffer, float *host, int64_t count) {
    CHECK(fe_buffer_upload_float(buffer, host, count, FE_DATA_HALF));
    CHECK(fe_buffer_download_float(buffer, host, count, FE_DATA_HALF));
}

/* Host copies the sampled checks read. */
typedef struct step_data {
    conv_host x, w, dy;
    conv_geometry geometry;
} step_data;

static double y_at(const int64_t *i, const void *c) {
    const step_data *d = c;
    return conv_fprop_at(&d->x, &d->w, &d->geometry, i);
}
static double dx_at(const int64_t *i, const void *c) {
    const step_data *d = c;
    return conv_dgrad_at(&d->dy, &d->w, &d->geometry, i);
}
static double dw_at(const int64_t *i, const void *c) {
    const step_data *d = c;
    return conv_wgrad_at(&d->x, &d->dy, &d->geometry, i);
}

int main(int argc, char **argv) {
    fe_conv_options conv = FE_CONV_OPTIONS_INIT;
    int64_t padding[2] = {1, 1};
    CHECK(fe_conv_options_set_padding(&conv, 2, padding));

    /* Forward: y = conv(x, w). */
    fe_graph *forward = new_graph("forward");
    fe_tensor *x = nhwc_tensor(forward, "x", N, C, H, W), *w = nhwc_tensor(forward, "w", K, C, 3, 3), *y;
    CHECK(fe_graph_conv_fprop(forward, x, w, &conv, &y));
    CHECK(fe_tensor_set_output(y, 1));

    /* Data gradient: dx from dy and w. dx's dims are given: with a stride, several image sizes
     * would give the same dy. */
    fe_graph *dgrad = new_graph("dgrad");
    fe_tensor *dgrad_dy = nhwc_tensor(dgrad, "dy", N, K, H, W), *dgrad_w = nhwc_tensor(dgrad, "w", K, C, 3, 3), *dx;
    int64_t x_dims[4] = {N, C, H, W};
    CHECK(fe_graph_conv_dgrad(dgrad, dgrad_dy, dgrad_w, 4, x_dims, &conv, &dx));
    CHECK(fe_tensor_set_output(dx, 1));

    /* Weight gradient: dw from x and dy; with stride 1 the 3x3 filter size is inferred. */
    fe_graph *wgrad = new_graph("wgrad");
    fe_tensor *wgrad_x = nhwc_tensor(wgrad, "x", N, C, H, W), *wgrad_dy = nhwc_tensor(wgrad, "dy", N, K, H, W), *dw;
    CHECK(fe_graph_conv_wgrad(wgrad, wgrad_x, wgrad_dy, 0, NULL, &conv, &dw));
    CHECK(fe_tensor_set_output(dw, 1));

    char text[64];
    printf("Output shape: %s\n", conv_dims_text(y, text, sizeof text));
    printf("Input gradient shape: %s\n", conv_dims_text(dx, text, sizeof text));
    printf("Weight gradient shape: %s\n", conv_dims_text(dw, text, sizeof text));

    fe_handle *handle = example_handle();
    if (!handle) {
        int rc = example_build_deviceless(forward, argc, argv);
        if (rc == 0) rc = example_build_deviceless(dgrad, argc, argv);
        if (rc == 0) rc = example_build_deviceless(wgrad, argc, argv);
        if (rc == 0) printf("forward, dgrad and wgrad plans built devicelessly (no GPU)\n");
        fe_graph_destroy(forward);
        fe_graph_destroy(dgrad);
        fe_graph_destroy(wgrad);
        return rc;
    }
    CHECK(fe_graph_build(forward, handle, NULL));
    CHECK(fe_graph_build(dgrad, handle, NULL));
    CHECK(fe_graph_build(wgrad, handle, NULL));
    printf("plans: forward %s, dgrad %s, wgrad %s\n", example_engine_tag(forward), example_engine_tag(dgrad),
           example_engine_tag(wgrad));

    float *xh, *wh, *w_true_h;
    fe_buffer *xb = example_input(x, &xh), *wb = example_input(w, &wh), *w_true = example_input(w, &w_true_h);
    fe_buffer *yb = example_output(y), *target = example_output(y), *dyb = example_output(dgrad_dy);
    fe_buffer *dxb = example_output(dx), *dwb = example_output(dw);
    const int64_t y_count = example_count(y), w_count = example_count(w);
    float *dyh = malloc((size_t)y_count * sizeof(float));

    /* The target: the same forward graph, run with w_true. */
    fe_tensor *forward_io[3] = {x, w, y};
    fe_buffer *target_buffers[3] = {xb, w_true, target};
    CHECK(fe_graph_execute_buffers(forward, handle, forward_io, target_buffers, 3, NULL));
    CHECK(fe_handle_synchronize(handle));
    float *th = example_download(target, y);

    /* Each dw element's curvature is about the sum of x^2 over its channel's positions (times
     * the dy scale): a step of half its inverse shrinks the error without overshooting. */
    double x_squares = 0;
    for (int64_t i = 0; i < example_count(x); ++i) x_squares += (double)xh[i] * xh[i];
    const double lr = 0.5 / (x_squares / C * DY_SCALE);

    int rc = 0;
    double previous_loss = 0;
    for (int step = 0; step < STEPS && rc == 0; ++step) {
        fe_buffer *forward_buffers[3] = {xb, wb, yb};
        CHECK(fe_graph_execute_buffers(forward, handle, forward_io, forward_buffers, 3, NULL));
        CHECK(fe_handle_synchronize(handle));
        float *yh = example_download(yb, y);

        /* y, target and dy share one layout (channels-last), so the loss and dy go by offset. */
        double loss = 0;
        for (int64_t i = 0; i < y_count; ++i) {
            double diff = (double)yh[i] - th[i];
            loss += diff * diff * DY_SCALE / 2;
            dyh[i] = (float)(diff * DY_SCALE);
        }
        upload_rounded(dyb, dyh, y_count);

        fe_tensor *dgrad_io[3] = {dgrad_dy, dgrad_w, dx};
        fe_buffer *dgrad_buffers[3] = {dyb, wb, dxb};
        CHECK(fe_graph_execute_buffers(dgrad, handle, dgrad_io, dgrad_buffers, 3, NULL));
        fe_tensor *wgrad_io[3] = {wgrad_x, wgrad_dy, dw};
        fe_buffer *wgrad_buffers[3] = {xb, dyb, dwb};
        CHECK(fe_graph_execute_buffers(wgrad, handle, wgrad_io, wgrad_buffers, 3, NULL));
        CHECK(fe_handle_synchronize(handle));
        float *dwh = example_download(dwb, dw);
        printf("step %d: loss %.6g\n", step, loss);

        if (step == 0) {
            float *dxh = example_download(dxb, dx);
            step_data d;
            d.x = conv_host_of(x, xh);
            d.w = conv_host_of(w, wh);
            d.dy = conv_host_of(dgrad_dy, dyh);
            d.geometry = conv_geometry_of(1, 1, 1, 1);
            /* y and dx sum 576 and 1152 fp16 products; dw sums 50176 (values in the hundreds). */
            rc |= conv_check_sampled("forward y", y, yh, 4096, y_at, &d, 2e-2, 1e-2);
            rc |= conv_check_sampled("dgrad dx", dx, dxh, 4096, dx_at, &d, 2e-2, 1e-2);
            rc |= conv_check_sampled("wgrad dw", dw, dwh, 1024, dw_at, &d, 5e-2, 1e-2);
            free(dxh);
        } else if (!(loss < previous_loss)) {
            fprintf(stderr, "step %d: the loss did not fall (%g after %g)\n", step, loss, previous_loss);
            rc = 1;
        }
        previous_loss = loss;

        /* w and dw share a layout too; the update runs on the host and goes back as fp16. */
        for (int64_t i = 0; i < w_count; ++i) wh[i] = (float)(wh[i] - lr * dwh[i]);
        upload_rounded(wb, wh, w_count);
        free(yh);
        free(dwh);
    }
    if (rc == 0) printf("verified on GPU: gradients match the CPU and the loss fell at each of %d steps\n", STEPS);

    example_free_all(xh, wh, w_true_h, th, dyh);
    fe_buffer *buffers[] = {xb, wb, w_true, yb, target, dyb, dxb, dwb};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i) fe_buffer_destroy(buffers[i]);
    fe_graph_destroy(forward);
    fe_graph_destroy(dgrad);
    fe_graph_destroy(wgrad);
    fe_handle_destroy(handle);
    return rc;
}
