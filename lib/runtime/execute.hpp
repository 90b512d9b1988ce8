// Execution of a built graph: bind pointers to slots, reuse or make the variant pack, run it
// or add its work to a CUDA graph.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cudnnfe.h"

namespace fe {

// What is done with the bound plan: run it on the handle's stream, or add its work to a CUDA
// graph (populate an empty one, or update one populated before with new pointers).
struct Action {
    enum Kind { Execute, Populate, Update } kind = Execute;
    void *cuda_graph = nullptr;  // cudaGraph_t
};

void execute_by_tensors(fe_graph &graph, fe_handle &handle, fe_tensor *const *tensors, void *const *pointers,
                        size_t count, void *workspace, const Action &action = Action());
void execute_by_buffers(fe_graph &graph, fe_handle &handle, fe_tensor *const *tensors, fe_buffer *const *buffers,
                        size_t count, void *workspace, const Action &action = Action());
void execute_by_uids(fe_graph &graph, fe_handle &handle, const int64_t *uids, void *const *pointers, size_t count,
                     void *workspace, const Action &action = Action());
void execute_positional(fe_graph &graph, fe_handle &handle, void *const *pointers, size_t count, void *workspace,
                        const Action &action = Action());

// The work of a first execute done now: the managed workspace grown to the graph's need.
void warmup(fe_graph &graph, fe_handle &handle);

}  // namespace fe
