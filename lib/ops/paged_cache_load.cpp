// Paged cache load: gathers each sequence's K or V pages from a page container through its
// page table (decoding with paged K/V caches).
#include <cudnn_graph.h>

#include "common/error.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"

namespace fe {

void emit_paged_cache_load(Lowering &lowering, const Descriptor &container, const Descriptor &page_table,
                           const Descriptor &sequence_lengths, const Descriptor &y, const std::string &label) {
    lowering.add_operation(CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR,
                           {{CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC, container, "paged cache container"},
                            {CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC, page_table, "paged cache page table"},
                            {CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC, sequence_lengths, "paged cache lengths"},
                            {CUDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC, y, "paged cache Y"}},
                           "finalizing " + label);
}

}  // namespace fe
