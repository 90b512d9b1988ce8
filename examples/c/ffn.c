/*
 * A transformer's feed-forward network, as in the API reference:
 *
 *   h = gelu(x W1),   out = h W2,     x [B, N, D], W1 [D, 4D], W2 [4D, D]
 *
 * B=2, N=128, D=256, fp16 in and out, fp32 math. First as the reference writes it, one graph:
 * matmul, gelu, matmul with h in fp16 between them. With cuDNN 9.19 the library refuses that
 * chain at build (cuDNN fuses it into a kernel that gave wrong results on an H100), and the
 * message says how to split it; the example then runs the split, two graphs (matmul + gelu
 * fused, then matmul), and says which form it ran.
 */
#include <math.h>
#include <string.h>

#include "example_util.h"

enum { B = 2, N = 128, D = 256, F = 4 * D };

static fe_tensor *input(fe_graph *graph, const char *name, int64_t d0, int64_t d1, int64_t d2) {
    int64_t dims[3] = {d0, d1, d2};
    fe_tensor *t;
    CHECK(fe_graph_tensor(graph, name, 3, dims, NULL, FE_DATA_NOT_SET, &t));
    return t;
}

/* The whole FFN in one graph; its tensors in binding order x, W1, W2, out. */
static fe_graph *fused_ffn(fe_tensor *io[4]) {
    fe_graph *graph = example_fp16_graph("ffn");
    fe_tensor *hidden, *h;
    io[0] = input(graph, "x", B, N, D);
    io[1] = input(graph, "W1", 1, D, F); /* batch dim 1: broadcast over B */
    io[2] = input(graph, "W2", 1, F, D);
    CHECK(fe_graph_matmul(graph, io[0], io[1], NULL, &hidden));
    CHECK(fe_graph_gelu(graph, hidden, NULL, &h));
    CHECK(fe_tensor_set_data_type(h, FE_DATA_HALF)); /* h enters the second matmul in fp16 */
    CHECK(fe_graph_matmul(graph, h, io[2], NULL, &io[3]));
    CHECK(fe_tensor_set_output(io[3], 1));
    return graph;
}

/* The split: up = gelu(x W1) with h materialized (tensors x, W1, h), down = h W2 (h, W2, out). */
static void split_ffn(fe_graph **up, fe_tensor *up_io[3], fe_graph **down, fe_tensor *down_io[3]) {
    fe_tensor *hidden;
    *up = example_fp16_graph("ffn_up");
    up_io[0] = input(*up, "x", B, N, D);
    up_io[1] = input(*up, "W1", 1, D, F);
    CHECK(fe_graph_matmul(*up, up_io[0], up_io[1], NULL, &hidden));
    CHECK(fe_graph_gelu(*up, hidden, NULL, &up_io[2]));
    CHECK(fe_tensor_set_output(up_io[2], 1));
    *down = example_fp16_graph("ffn_down");
    down_io[0] = input(*down, "h", B, N, F);
    down_io[1] = input(*down, "W2", 1, F, D);
    CHECK(fe_graph_matmul(*down, down_io[0], down_io[1], NULL, &down_io[2]));
    CHECK(fe_tensor_set_output(down_io[2], 1));
}

/* No GPU: the split (the one-graph chain is refused at build, as on a GPU). */
static int deviceless(int argc, char **argv) {
    fe_tensor *up_io[3], *down_io[3];
    fe_graph *up, *down;
    printf("the one-graph FFN (two chained matmuls) is refused with cuDNN 9.19: the example runs the split\n");
    split_ffn(&up, up_io, &down, down_io);
    int rc = example_build_deviceless(up, argc, argv);
    if (rc == 0) rc = example_build_deviceless(down, argc, argv);
    fe_graph_destroy(up);
    fe_graph_destroy(down);
    return rc;
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
    fe_handle *handle = example_handle();
    if (!handle) return deviceless(argc, argv);
    fe_tensor *io[4];
    fe_graph *ffn = fused_ffn(io), *second = NULL;
    CHECK(fe_graph_validate(ffn)); /* gives the tensors their types, so their buffers can be sized */

    float *xh, *w1h, *w2h;
    fe_buffer *xb = example_input(io[0], &xh), *w1b = example_input(io[1], &w1h), *w2b = example_input(io[2], &w2h);
    fe_buffer *outb = example_output(io[3]), *hb = NULL;
    fe_tensor *out = io[3];

    fe_status status = fe_graph_build(ffn, handle, NULL);
    if (status == FE_OK) {
        printf("one plan for the whole FFN: %s\n", example_engine_tag(ffn));
        fe_buffer *buffers[4] = {xb, w1b, w2b, outb};
        CHECK(fe_graph_execute_buffers(ffn, handle, io, buffers, 4, NULL));
    } else if (status == FE_STATUS_NOT_SUPPORTED) {
        printf("no plan for the whole chain (%s); running the split\n", fe_last_error_message());
        fe_graph_destroy(ffn);
        fe_tensor *up_io[3], *down_io[3];
        split_ffn(&ffn, up_io, &second, down_io);
        CHECK(fe_graph_build(ffn, handle, NULL));
        CHECK(fe_graph_build(second, handle, NULL));
        printf("plans %s, %s\n", example_engine_tag(ffn), example_engine_tag(second));
        out = down_io[2];
        hb = example_output(up_io[2]);
        fe_buffer *up_buffers[3] = {xb, w1b, hb}, *down_buffers[3] = {hb, w2b, outb};
        CHECK(fe_graph_execute_buffers(ffn, handle, up_io, up_buffers, 3, NULL));
        CHECK(fe_graph_execute_buffers(second, handle, down_io, down_buffers, 3, NULL));
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

    example_free_all(xh, w1h, w2h, outh, h_ref, want);
    example_destroy_buffers(xb, w1b, w2b, outb, hb);
    fe_graph_destroy(ffn);
    fe_graph_destroy(second);
    fe_handle_destroy(handle);
    return rc;
}
