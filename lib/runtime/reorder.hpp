// An INT8x32 convolution filter's values in the order cuDNN's INT8x32 kernels read them.
#pragma once

#include "graph/tensor.hpp"
#include "runtime/handle.hpp"

namespace fe {

// fe_handle_reorder_filter_int8x32: `filter`'s values at `data` reordered into `reordered`, on
// the handle's stream.
void reorder_filter_int8x32(fe_handle &handle, const fe_tensor &filter, const void *data, void *reordered);

}  // namespace fe
