/*
 * RMS normalization as LLaMA-style models train it, with a zero-centred gamma:
 *
 *   forward:  y = x / sqrt(mean(x^2) + 1e-5) * (1 + gamma)        (also returns inv_rms)
 *   backward: dx, dgamma from dy, x, gamma and the forward's inv_rms
 *
 * x [tokens, hidden] = [512, 1024] in bfloat16, gamma [1, hidden] in float (initialised near 0,
 * which is the point of the zero-centred form). Two graphs, each one native cuDNN operation
 * (plus the 1 + gamma, fused into it); the backward reads the forward's inv_rms buffer.
 */
#include <math.h>

#include "example_util.h"

enum { TOKENS = 512, HIDDEN = 1024 };

static fe_graph *new_graph(const char *name) {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = name;
    options.io_data_type = FE_DATA_BFLOAT16;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));
    return graph;
}

int main(int argc, char **argv) {
    int64_t x_dims[2] = {TOKENS, HIDDEN}, gamma_dims[2] = {1, HIDDEN}, row_dims[2] = {TOKENS, 1};

    fe_graph *forward = new_graph("rmsnorm_forward");
    fe_tensor *x, *gamma, *y, *inv_rms;
    CHECK(fe_graph_tensor(forward, "x", 2, x_dims, NULL, FE_DATA_NOT_SET, &x));
    CHECK(fe_graph_tensor(forward, "gamma", 2, gamma_dims, NULL, FE_DATA_FLOAT, &gamma));
    fe_norm_options norm = FE_NORM_OPTIONS_INIT;
    norm.phase = FE_NORM_PHASE_TRAINING;
    norm.zero_centered_gamma = 1;
    CHECK(fe_graph_rmsnorm(forward, x, gamma, NULL, &norm, &y, &inv_rms)); /* NULL: no bias */
    CHECK(fe_tensor_set_output(y, 1));
    CHECK(fe_tensor_set_output(inv_rms, 1));

    fe_graph *backward = new_graph("rmsnorm_backward");
    fe_tensor *bx, *bdy, *bgamma, *binv, *dx, *dgamma;
    CHECK(fe_graph_tensor(backward, "x", 2, x_dims, NULL, FE_DATA_NOT_SET, &bx));
    CHECK(fe_graph_tensor(backward, "dy", 2, x_dims, NULL, FE_DATA_NOT_SET, &bdy));
    CHECK(fe_graph_tensor(backward, "gamma", 2, gamma_dims, NULL, FE_DATA_FLOAT, &bgamma));
    CHECK(fe_graph_tensor(backward, "inv_rms", 2, row_dims, NULL, FE_DATA_FLOAT, &binv));
    fe_norm_backward_options back = FE_NORM_BACKWARD_OPTIONS_INIT;
    back.zero_centered_gamma = 1;
    CHECK(fe_graph_rmsnorm_backward(backward, bdy, bx, bgamma, binv, &back, &dx, &dgamma, NULL));
    CHECK(fe_tensor_set_output(dx, 1));
    CHECK(fe_tensor_set_output(dgamma, 1));

    fe_handle *handle = example_handle();
    if (!handle) {
        int rc = example_build_deviceless(forward, argc, argv);
        if (rc == 0) rc = example_check_deviceless(backward, argc, argv);
        fe_graph_destroy(forward);
        fe_graph_destroy(backward);
        return rc;
    }
    CHECK(fe_graph_build(forward, handle, NULL));
    CHECK(fe_graph_build(backward, handle, NULL));
    printf("plans %s, %s\n", example_engine_tag(forward), example_engine_tag(backward));

    float *xh, *gh, *dyh;
    fe_buffer *xb = example_input(x, &xh), *gb = example_input(gamma, &gh), *dyb = example_input(bdy, &dyh);
    fe_buffer *yb = example_output(y), *ib = example_output(inv_rms);
    fe_buffer *dxb = example_output(dx), *dgb = example_output(dgamma);
    fe_tensor *fwd_tensors[4] = {x, gamma, y, inv_rms};
    fe_buffer *fwd_buffers[4] = {xb, gb, yb, ib};
    CHECK(fe_graph_execute_buffers(forward, handle, fwd_tensors, fwd_buffers, 4, NULL));
    fe_tensor *bwd_tensors[6] = {bx, bdy, bgamma, binv, dx, dgamma};
    fe_buffer *bwd_buffers[6] = {xb, dyb, gb, ib, dxb, dgb}; /* x, gamma and inv_rms as the forward left them */
    CHECK(fe_graph_execute_buffers(backward, handle, bwd_tensors, bwd_buffers, 6, NULL));
    CHECK(fe_handle_synchronize(handle));

    float *yh = example_download(yb, y), *ih = example_download(ib, inv_rms);
    float *dxh = example_download(dxb, dx), *dgh = example_download(dgb, dgamma);
    double *want_y = malloc((size_t)TOKENS * HIDDEN * sizeof(double));
    double *want_dx = malloc((size_t)TOKENS * HIDDEN * sizeof(double));
    double want_inv[TOKENS], want_dgamma[HIDDEN] = {0};
    for (int64_t t = 0; t < TOKENS; ++t) {
        const float *row = xh + t * HIDDEN, *grad = dyh + t * HIDDEN;
        double squares = 0, dot = 0;
        for (int64_t h = 0; h < HIDDEN; ++h) squares += (double)row[h] * row[h];
        want_inv[t] = 1.0 / sqrt(squares / HIDDEN + 1e-5);
        /* The backward uses the inv_rms the GPU returned, as the backward graph does. */
        for (int64_t h = 0; h < HIDDEN; ++h) {
            double xhat = row[h] * (double)ih[t], g = grad[h] * (1.0 + gh[h]);
            want_y[t * HIDDEN + h] = row[h] * want_inv[t] * (1.0 + gh[h]);
            dot += g * xhat;
            want_dgamma[h] += grad[h] * xhat;
        }
        for (int64_t h = 0; h < HIDDEN; ++h) {
            double xhat = row[h] * (double)ih[t], g = grad[h] * (1.0 + gh[h]);
            want_dx[t * HIDDEN + h] = ih[t] * (g - xhat * dot / HIDDEN);
        }
    }
    int rc = example_compare("rmsnorm y", y, yh, want_y, 5e-2, 2e-2);
    rc |= example_compare("rmsnorm inv_rms", inv_rms, ih, want_inv, 1e-3, 1e-3);
    rc |= example_compare("rmsnorm dx", dx, dxh, want_dx, 5e-2, 2e-2);
    rc |= example_compare("rmsnorm dgamma", dgamma, dgh, want_dgamma, 5e-2, 1e-2);

    example_free_all(xh, gh, dyh, yh, ih, dxh, dgh, want_y, want_dx);
    fe_buffer *buffers[7] = {xb, gb, dyb, yb, ib, dxb, dgb};
    for (int i = 0; i < 7; ++i) fe_buffer_destroy(buffers[i]);
    fe_graph_destroy(forward);
    fe_graph_destroy(backward);
    fe_handle_destroy(handle);
    return rc;
}
