/*
 * The build, one step at a time, and execution by uid.
 *
 * fe_graph_build is validate -> build the operation graph -> create execution plans (heuristics)
 * -> check support -> build plans. Doing the steps yourself lets you see the candidates, limit the
 * workspace, or build every plan. Tensors get fixed uids (0..3, as the frontend's serialization
 * example does) and are bound by uid, so code that only keeps the uids can run the graph.
 */
#include "example_util.h"

enum { UID_A = 0, UID_B = 1, UID_D = 2, UID_C = 3 };

int main(int argc, char **argv) {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = "step_by_step";
    options.io_data_type = FE_DATA_HALF;
    fe_graph *graph;
    CHECK(fe_graph_create(&options, &graph));

    const int64_t B = 16, M = 128, N = 128, K = 512;
    int64_t a_dims[3] = {B, M, K}, b_dims[3] = {B, K, N}, d_dims[3] = {1, M, N};
    fe_tensor *a, *b, *d, *ab, *c;
    CHECK(fe_graph_tensor(graph, "A", 3, a_dims, NULL, FE_DATA_NOT_SET, &a));
    CHECK(fe_graph_tensor(graph, "B", 3, b_dims, NULL, FE_DATA_NOT_SET, &b));
    CHECK(fe_graph_tensor(graph, "D", 3, d_dims, NULL, FE_DATA_NOT_SET, &d));
    CHECK(fe_graph_matmul(graph, a, b, NULL, &ab));
    CHECK(fe_graph_bias(graph, ab, d, NULL, &c));
    CHECK(fe_tensor_set_output(c, 1));
    CHECK(fe_tensor_set_uid(a, UID_A));
    CHECK(fe_tensor_set_uid(b, UID_B));
    CHECK(fe_tensor_set_uid(d, UID_D));
    CHECK(fe_tensor_set_uid(c, UID_C));

    fe_handle *handle = example_handle_or_build_deviceless(graph, argc, argv);

    CHECK(fe_graph_validate(graph));
    CHECK(fe_graph_build_operation_graph(graph, handle));
    fe_heur_mode modes[2] = {FE_HEUR_MODE_A, FE_HEUR_MODE_FALLBACK};
    CHECK(fe_graph_create_execution_plans(graph, modes, 2));
    CHECK(fe_graph_check_support(graph));
    CHECK(fe_graph_build_plans(graph, FE_BUILD_POLICY_ALL));
    size_t candidates = 0, viable = 0, plans = 0;
    int64_t workspace = 0;
    CHECK(fe_graph_candidate_count(graph, &candidates));
    CHECK(fe_graph_viable_count(graph, &viable));
    CHECK(fe_graph_plan_count(graph, &plans));
    CHECK(fe_graph_workspace_size(graph, &workspace));
    printf("%lld candidates, %lld viable, %lld plans built; using %s with %lld bytes of workspace\n",
           (long long)candidates, (long long)viable, (long long)plans, example_engine_tag(graph),
           (long long)workspace);

    float *ah, *bh, *dh;
    fe_buffer *abuf = example_input(a, &ah), *bbuf = example_input(b, &bh), *dbuf = example_input(d, &dh);
    fe_buffer *cbuf = example_output(c);
    /* Our own workspace this time, of the size the plan asked for. */
    fe_buffer *wbuf = NULL;
    void *workspace_pointer = NULL;
    if (workspace > 0) {
        CHECK(fe_buffer_create(0, workspace, &wbuf));
        CHECK(fe_buffer_device_pointer(wbuf, &workspace_pointer));
    }
    int64_t uids[4] = {UID_A, UID_B, UID_D, UID_C};
    void *pointers[4];
    CHECK(fe_buffer_device_pointer(abuf, &pointers[0]));
    CHECK(fe_buffer_device_pointer(bbuf, &pointers[1]));
    CHECK(fe_buffer_device_pointer(dbuf, &pointers[2]));
    CHECK(fe_buffer_device_pointer(cbuf, &pointers[3]));
    CHECK(fe_graph_execute_by_uid(graph, handle, uids, pointers, 4, workspace_pointer));
    CHECK(fe_handle_synchronize(handle));

    float *ch = example_download(cbuf, c);
    double *want = example_matmul_bias_reference(ah, bh, dh, B, M, N, K);
    int rc = example_compare("step-by-step C = A x B + D, bound by uid", c, ch, want, 2e-2, 1e-2);

    example_free_all(ah, bh, dh, ch, want);
    example_destroy_buffers(abuf, bbuf, dbuf, cbuf, wbuf);
    fe_graph_destroy(graph);
    fe_handle_destroy(handle);
    return rc;
}
