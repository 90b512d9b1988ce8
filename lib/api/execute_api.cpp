// Execute entry points. Argument checks here; binding and running in lib/runtime/execute.cpp.
#include "api/guard.hpp"
#include "runtime/execute.hpp"

using namespace fe;

namespace {

// What every execute checks first: the graph, the handle and, when there are bindings, their
// arrays (`arrays` names them, `given` says whether all are there).
void require_bindings(const fe_graph *graph, const fe_handle *handle, size_t count, bool given, const char *arrays) {
    FE_REQUIRE(graph);
    FE_REQUIRE(handle);
    FE_CHECK(count == 0 || given, FE_STATUS_NULL_POINTER, "%s is NULL with %zu bindings", arrays, count);
}

}  // namespace

FE_EXPORT fe_status fe_graph_execute(fe_graph *graph, fe_handle *handle, fe_tensor *const *tensors,
                                     void *const *device_pointers, size_t count, void *workspace) {
    return guard("fe_graph_execute", [&] {
        require_bindings(graph, handle, count, tensors && device_pointers, "tensors or device_pointers");
        execute_by_tensors(*graph, *handle, tensors, device_pointers, count, workspace);
    });
}

FE_EXPORT fe_status fe_graph_execute_buffers(fe_graph *graph, fe_handle *handle, fe_tensor *const *tensors,
                                             fe_buffer *const *buffers, size_t count, void *workspace) {
    return guard("fe_graph_execute_buffers", [&] {
        require_bindings(graph, handle, count, tensors && buffers, "tensors or buffers");
        execute_by_buffers(*graph, *handle, tensors, buffers, count, workspace);
    });
}

FE_EXPORT fe_status fe_graph_execute_by_uid(fe_graph *graph, fe_handle *handle, const int64_t *uids,
                                            void *const *device_pointers, size_t count, void *workspace) {
    return guard("fe_graph_execute_by_uid", [&] {
        require_bindings(graph, handle, count, uids && device_pointers, "uids or device_pointers");
        execute_by_uids(*graph, *handle, uids, device_pointers, count, workspace);
    });
}

FE_EXPORT fe_status fe_graph_execute_positional(fe_graph *graph, fe_handle *handle, void *const *device_pointers,
                                                size_t count, void *workspace) {
    return guard("fe_graph_execute_positional", [&] {
        require_bindings(graph, handle, count, device_pointers, "device_pointers");
        execute_positional(*graph, *handle, device_pointers, count, workspace);
    });
}

FE_EXPORT fe_status fe_graph_warmup(fe_graph *graph, fe_handle *handle) {
    return guard("fe_graph_warmup", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(handle);
        warmup(*graph, *handle);
    });
}

namespace {

fe_status cuda_graph_call(const char *function, Action::Kind kind, fe_graph *graph, fe_handle *handle,
                          fe_tensor *const *tensors, void *const *device_pointers, size_t count, void *workspace,
                          void *cuda_graph) {
    return guard(function, [&] {
        require_bindings(graph, handle, count, tensors && device_pointers, "tensors or device_pointers");
        FE_REQUIRE(cuda_graph);
        Action action;
        action.kind = kind;
        action.cuda_graph = cuda_graph;
        execute_by_tensors(*graph, *handle, tensors, device_pointers, count, workspace, action);
    });
}

}  // namespace

FE_EXPORT fe_status fe_graph_populate_cuda_graph(fe_graph *graph, fe_handle *handle, fe_tensor *const *tensors,
                                                 void *const *device_pointers, size_t count, void *workspace,
                                                 void *cuda_graph) {
    return cuda_graph_call("fe_graph_populate_cuda_graph", Action::Populate, graph, handle, tensors, device_pointers,
                           count, workspace, cuda_graph);
}

FE_EXPORT fe_status fe_graph_update_cuda_graph(fe_graph *graph, fe_handle *handle, fe_tensor *const *tensors,
                                               void *const *device_pointers, size_t count, void *workspace,
                                               void *cuda_graph) {
    return cuda_graph_call("fe_graph_update_cuda_graph", Action::Update, graph, handle, tensors, device_pointers,
                           count, workspace, cuda_graph);
}
