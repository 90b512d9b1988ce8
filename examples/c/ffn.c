/*
 * A transformer's feed-forward network, as in the API reference:
 *
 *   h = gelu(x W1),   out = h W2,     x [B, N, D], W1 [D, 4D], W2 [4D, D]
 *
 * B=2, N=128, D=256, fp16 in and out, fp32 math. Built as one graph: matmul, gelu, matmul with
 * the activation h kept in fp16 between the two matmuls, which cuDNN's runtime fusion takes as
 * one plan. Should the GPU's cuDNN find no engine for the whole chain, the example says so and
 * runs it as two graphs (matmul + gelu, then matmul), the usual split.
 */
#include <math.h>

#include "example_util.h"

enum { B = 2, N = 128, D = 256, F = 4 * D };

static fe_graph *new_graph(const char *name) {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = name;
    options.io_data_type = FE_DATA_HALF;
    options.intermediate_data_type = FE_DATA_FLOAT;
    options.compute_data_type = FE_DATA_FLOAT;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));
    return graph;
}

static fe_tensor *input(fe_graph *graph, const char *name, int64_t d0, int64_t d1, int64_t d2) {
    int64_t dims[3] = {d0, d1, d2};
    fe_tensor *t;
    CHECK(fe_graph_tensor(graph, name, 3, dims, NULL, FE_DATA_NOT_SET, &t));
    return t;
}

/* The whole FFN in one graph; its tensors in binding order x, W1, W2, out. */
static fe_graph *fused_ffn(fe_tensor *io[4]) {
    fe_graph *graph = new_graph("ffn");
    fe_tensor *hidden, *h;
    io[0] = input(graph, "x", B, N, D);
    io[1] = input(graph, "W1", 1, D, F); /* batch dim 1: broadcast over B */
    io[2] = input(graph, "W2", 1, F, D);
    CHECK(fe_graph_matmul(graph, io[0], io[1], NULL, &hidden));
    CHECK(fe_graph_gelu(graph, hidden, &h));
    CHECK(fe_tensor_set_data_type(h, FE_DATA_HALF)); /* h enters the second matmul in fp16 */
    CHECK(fe_graph_matmul(graph, h, io[2], NULL, &io[3]));
    CHECK(fe_tensor_set_output(io[3], 1));
    return graph;
}

static double gelu(double v) { return 0.5 * v * (1.0 + erf(v / sqrt(2.0))); }

/* Round n floats to fp16 in place with the library's own conversion (upload as half, read back). */
static void round_to_half(float *values, int64_t n) {
    fe_buffer *scratch;
    CHECK(fe_buffer_create(0, n * 2, &scratch));
    CHECK(fe_buffer_upload_float(scratch, values, n, FE_DATA_HALF));
    CHECK(fe_buffer_download_float(scratch, values, n, FE_DATA_HALF));
    fe_buffer_destroy(scratch);
}

int main(int argc, char **argv) {
    fe_tensor *io[4];
    fe_graph *ffn = fused_ffn(io);
    fe_handle *handle = example_handle();
    if (!handle) {
        int rc = example_build_deviceless(ffn, argc, argv);
        fe_graph_destroy(ffn);
        return rc;
    }

    float *xh, *w1h, *w2h;
    fe_buffer *xb = example_input(io[0], &xh), *w1b = example_input(io[1], &w1h), *w2b = example_input(io[2], &w2h);
    fe_buffer *outb = example_output(io[3]);
    fe_tensor *out = io[3];
    fe_graph *second = NULL;
    fe_buffer *hb = NULL;

    fe_status status = fe_graph_build(ffn, handle, NULL);
    if (status == FE_OK) {
        printf("one plan for the whole FFN: %s\n", fe_graph_engine_tag(ffn));
        fe_buffer *buffers[4] = {xb, w1b, w2b, outb};
        CHECK(fe_graph_execute_buffers(ffn, handle, io, buffers, 4, NULL));
    } else if (status == FE_STATUS_NOT_SUPPORTED) {
        printf("no engine for the whole chain here (%s); running it as two graphs\n", fe_last_error_message());
        fe_graph_destroy(ffn);
        /* matmul + gelu (fused epilogue), h materialized in fp16 */
        ffn = new_graph("ffn_up");
        fe_tensor *x = input(ffn, "x", B, N, D), *w1 = input(ffn, "W1", 1, D, F), *hidden, *h;
        CHECK(fe_graph_matmul(ffn, x, w1, NULL, &hidden));
        CHECK(fe_graph_gelu(ffn, hidden, &h));
        CHECK(fe_tensor_set_output(h, 1));
        CHECK(fe_graph_build(ffn, handle, NULL));
        second = new_graph("ffn_down");
        fe_tensor *h_in = input(second, "h", B, N, F), *w2 = input(second, "W2", 1, F, D);
        CHECK(fe_graph_matmul(second, h_in, w2, NULL, &out));
        CHECK(fe_tensor_set_output(out, 1));
        CHECK(fe_graph_build(second, handle, NULL));
        printf("plans %s, %s\n", fe_graph_engine_tag(ffn), fe_graph_engine_tag(second));
        hb = example_output(h);
        fe_tensor *up[3] = {x, w1, h}, *down[3] = {h_in, w2, out};
        fe_buffer *up_buffers[3] = {xb, w1b, hb}, *down_buffers[3] = {hb, w2b, outb};
        CHECK(fe_graph_execute_buffers(ffn, handle, up, up_buffers, 3, NULL));
        CHECK(fe_graph_execute_buffers(second, handle, down, down_buffers, 3, NULL));
    } else {
        CHECK(status);
    }
    CHECK(fe_handle_synchronize(handle));

    float *outh = example_download(outb, out);
    float *h_ref = malloc((size_t)B * N * F * sizeof(float));
    double *want = malloc((size_t)B * N * D * sizeof(double));
    for (int64_t r = 0; r < B * N; ++r)
        for (int64_t f = 0; f < F; ++f) {
            double acc = 0;
            for (int64_t k = 0; k < D; ++k) acc += (double)xh[r * D + k] * w1h[k * F + f];
            h_ref[r * F + f] = (float)gelu(acc);
        }
    round_to_half(h_ref, (int64_t)B * N * F); /* h is fp16 between the matmuls on the GPU too */
    for (int64_t r = 0; r < B * N; ++r)
        for (int64_t c = 0; c < D; ++c) {
            double acc = 0;
            for (int64_t f = 0; f < F; ++f) acc += (double)h_ref[r * F + f] * w2h[f * D + c];
            want[r * D + c] = acc;
        }
    int rc = example_compare("out = gelu(x W1) W2", out, outh, want, 1e-1, 2e-2);

    free(xh);
    free(w1h);
    free(w2h);
    free(outh);
    free(h_ref);
    free(want);
    fe_buffer_destroy(xb);
    fe_buffer_destroy(w1b);
    fe_buffer_destroy(w2b);
    fe_buffer_destroy(outb);
    fe_buffer_destroy(hb);
    fe_graph_destroy(ffn);
    fe_graph_destroy(second);
    fe_handle_destroy(handle);
    return rc;
}
