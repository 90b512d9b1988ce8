// Execution of a built graph: bind pointers to slots, reuse or make the variant pack, run.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cudnnfe.h"

namespace fe {

void execute_by_tensors(fe_graph &graph, fe_handle &handle, fe_tensor *const *tensors, void *const *pointers,
                        size_t count, void *workspace);
void execute_by_buffers(fe_graph &graph, fe_handle &handle, fe_tensor *const *tensors, fe_buffer *const *buffers,
                        size_t count, void *workspace);
void execute_by_uids(fe_graph &graph, fe_handle &handle, const int64_t *uids, void *const *pointers, size_t count,
                     void *workspace);
void execute_positional(fe_graph &graph, fe_handle &handle, void *const *pointers, size_t count, void *workspace);

}  // namespace fe
