/*
 * Batched matmul with a bias, as in the cuDNN frontend's graph API notebook:
 *
 *   C[b] = A[b] x B[b] + D,   A 16x128x512, B 16x512x128, D 1x128x128 (broadcast over b)
 *
 * fp16 in and out, fp32 intermediate and math. The matmul's result is virtual: cuDNN fuses
 * the bias into the matmul's epilogue, one kernel.
 */
#include "example_util.h"

int main(int argc, char **argv) {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = "matmul_bias";
    options.io_data_type = FE_DATA_HALF;
    options.intermediate_data_type = FE_DATA_FLOAT;
    options.compute_data_type = FE_DATA_FLOAT;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));

    const int64_t B = 16, M = 128, N = 128, K = 512;
    int64_t a_dims[3] = {B, M, K}, b_dims[3] = {B, K, N}, d_dims[3] = {1, M, N};
    fe_tensor *a, *b, *d, *ab, *c;
    CHECK(fe_graph_tensor(graph, "A", 3, a_dims, NULL, FE_DATA_NOT_SET, &a)); /* NULL strides: packed */
    CHECK(fe_graph_tensor(graph, "B", 3, b_dims, NULL, FE_DATA_NOT_SET, &b));
    CHECK(fe_graph_tensor(graph, "D", 3, d_dims, NULL, FE_DATA_NOT_SET, &d));
    CHECK(fe_graph_matmul(graph, a, b, NULL, &ab));
    CHECK(fe_graph_bias(graph, ab, d, NULL, &c));
    CHECK(fe_tensor_set_output(c, 1));

    fe_handle *handle = example_handle_or_build_deviceless(graph, argc, argv);
    fe_heur_mode modes[1] = {FE_HEUR_MODE_A};
    fe_build_options build = FE_BUILD_OPTIONS_INIT;
    build.heur_modes = modes;
    build.num_heur_modes = 1;
    CHECK(fe_graph_build(graph, handle, &build));
    printf("plan %s\n", example_engine_tag(graph));

    float *ah, *bh, *dh;
    fe_buffer *abuf = example_input(a, &ah), *bbuf = example_input(b, &bh), *dbuf = example_input(d, &dh);
    fe_buffer *cbuf = example_output(c);
    fe_tensor *tensors[4] = {a, b, d, c};
    fe_buffer *buffers[4] = {abuf, bbuf, dbuf, cbuf};
    CHECK(fe_graph_execute_buffers(graph, handle, tensors, buffers, 4, NULL));
    CHECK(fe_handle_synchronize(handle));

    float *ch = example_download(cbuf, c);
    double *want = example_matmul_bias_reference(ah, bh, dh, B, M, N, K);
    int rc = example_compare("C = A x B + D", c, ch, want, 2e-2, 1e-2);

    example_free_all(ah, bh, dh, ch, want);
    example_destroy_buffers(abuf, bbuf, dbuf, cbuf);
    fe_graph_destroy(graph);
    fe_handle_destroy(handle);
    return rc;
}
