/*
 * Layer normalization of a transformer's activations, training phase:
 *
 *   y = (x - mean) / sqrt(var + 1e-5) * gamma + beta,   per token, over the hidden dim
 *
 * x [tokens, hidden] = [1024, 768] in bfloat16, gamma and beta [1, hidden] in float. Training
 * also returns the float mean and inverse variance [tokens, 1] that the backward pass reads.
 * One native cuDNN normalization operation.
 */
#include <math.h>

#include "example_util.h"

enum { TOKENS = 1024, HIDDEN = 768 };

int main(int argc, char **argv) {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = "layernorm";
    options.io_data_type = FE_DATA_BFLOAT16;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));

    int64_t x_dims[2] = {TOKENS, HIDDEN}, param_dims[2] = {1, HIDDEN};
    fe_tensor *x, *gamma, *beta, *y, *mean, *inv_variance;
    CHECK(fe_graph_tensor(graph, "x", 2, x_dims, NULL, FE_DATA_NOT_SET, &x));
    CHECK(fe_graph_tensor(graph, "gamma", 2, param_dims, NULL, FE_DATA_FLOAT, &gamma));
    CHECK(fe_graph_tensor(graph, "beta", 2, param_dims, NULL, FE_DATA_FLOAT, &beta));
    fe_norm_options norm = FE_NORM_OPTIONS_INIT;
    norm.phase = FE_NORM_PHASE_TRAINING;
    norm.epsilon = 1e-5;
    CHECK(fe_graph_layernorm(graph, x, gamma, beta, &norm, &y, &mean, &inv_variance));
    CHECK(fe_tensor_set_output(y, 1));
    CHECK(fe_tensor_set_output(mean, 1));
    CHECK(fe_tensor_set_output(inv_variance, 1));

    fe_handle *handle = example_handle_or_build_deviceless(graph, argc, argv);
    CHECK(fe_graph_build(graph, handle, NULL));
    printf("plan %s\n", example_engine_tag(graph));

    float *xh, *gh, *bh;
    fe_buffer *xb = example_input(x, &xh), *gb = example_input(gamma, &gh), *bb = example_input(beta, &bh);
    fe_buffer *yb = example_output(y), *mb = example_output(mean), *ib = example_output(inv_variance);
    fe_tensor *tensors[6] = {x, gamma, beta, y, mean, inv_variance};
    fe_buffer *buffers[6] = {xb, gb, bb, yb, mb, ib};
    CHECK(fe_graph_execute_buffers(graph, handle, tensors, buffers, 6, NULL));
    CHECK(fe_handle_synchronize(handle));

    float *yh = example_download(yb, y), *mh = example_download(mb, mean), *ih = example_download(ib, inv_variance);
    double *want_y = malloc((size_t)TOKENS * HIDDEN * sizeof(double));
    double want_mean[TOKENS], want_inv[TOKENS];
    for (int64_t t = 0; t < TOKENS; ++t) {
        const float *row = xh + t * HIDDEN;
        double sum = 0, squares = 0;
        for (int64_t h = 0; h < HIDDEN; ++h) sum += row[h];
        want_mean[t] = sum / HIDDEN;
        for (int64_t h = 0; h < HIDDEN; ++h) squares += (row[h] - want_mean[t]) * (row[h] - want_mean[t]);
        want_inv[t] = 1.0 / sqrt(squares / HIDDEN + 1e-5);
        for (int64_t h = 0; h < HIDDEN; ++h)
            want_y[t * HIDDEN + h] = (row[h] - want_mean[t]) * want_inv[t] * gh[h] + bh[h];
    }
    int rc = example_compare("layernorm y", y, yh, want_y, 5e-2, 2e-2);
    rc |= example_compare("layernorm mean", mean, mh, want_mean, 1e-3, 1e-3);
    rc |= example_compare("layernorm inv_variance", inv_variance, ih, want_inv, 1e-3, 1e-3);

    example_free_all(xh, gh, bh, yh, mh, ih, want_y);
    example_destroy_buffers(xb, gb, bb, yb, mb, ib);
    fe_graph_destroy(graph);
    fe_handle_destroy(handle);
    return rc;
}
