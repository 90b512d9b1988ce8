#include "runtime/reorder.hpp"

#include <cstdint>
#include <vector>

#include "backend/descriptor.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"

namespace fe {

namespace {

// cudnn_cnn.h's values, which the backend headers do not carry.
constexpr int kDataInt8x32 = 8;        // CUDNN_DATA_INT8x32
constexpr int kTensorNchwVectC = 2;    // CUDNN_TENSOR_NCHW_VECT_C
constexpr int kDefaultReorder = 0;     // CUDNN_DEFAULT_REORDER

// The legacy API takes a filter of packed NCHW_VECT_C values only.
void require_packed_int8x32_filter(const fe_tensor &f) {
    FE_CHECK(f.vector_count == 32 && f.vector_dim == 1, FE_STATUS_INVALID_ARGUMENT,
             "'%s' is in vectors of %d values: the INT8x32 order is that of a filter vectorized in 32 along dim 1",
             f.name.c_str(), f.vector_count);
    FE_CHECK(f.data_type == FE_DATA_INT8, FE_STATUS_INVALID_ARGUMENT, "'%s' is %s: an INT8x32 filter is int8",
             f.name.c_str(), data_type_name(f.data_type));
    FE_CHECK(f.dims.size() == 4 || f.dims.size() == 5, FE_STATUS_INVALID_ARGUMENT,
             "'%s' has rank %zu: an INT8x32 filter has rank 4 or 5", f.name.c_str(), f.dims.size());
    FE_CHECK(f.strides == packed_strides(f.dims), FE_STATUS_INVALID_ARGUMENT,
             "'%s' has strides %s: cuDNN reorders a packed filter (strides %s)", f.name.c_str(),
             dims_string(f.strides).c_str(), dims_string(packed_strides(f.dims)).c_str());
}

}  // namespace

void reorder_filter_int8x32(fe_handle &handle, const fe_tensor &filter, const void *data, void *reordered) {
    require_packed_int8x32_filter(filter);
    const int64_t bytes = tensor_bytes(filter);
    const uintptr_t from = reinterpret_cast<uintptr_t>(data), to = reinterpret_cast<uintptr_t>(reordered);
    const uintptr_t span = static_cast<uintptr_t>(bytes);
    FE_CHECK(from + span <= to || to + span <= from, FE_STATUS_INVALID_ARGUMENT,
             "the reordered filter's memory (%p) overlaps its values' (%p, %lld bytes)", reordered, data,
             static_cast<long long>(bytes));
    const Cudnn &api = cudnn();
    FE_CHECK(api.cudnnReorderFilterAndBias && api.cudnnCreateFilterDescriptor && api.cudnnSetFilterNdDescriptor &&
                 api.cudnnDestroyFilterDescriptor,
             FE_STATUS_NOT_SUPPORTED, "the loaded cuDNN lacks cudnnReorderFilterAndBias");
    std::vector<int> dims;
    for (size_t d = 0; d < filter.dims.size(); ++d) {
        const int64_t extent = d == 1 ? filter.dims[d] * 32 : filter.dims[d];  // the legacy API counts channels
        FE_CHECK(extent <= INT32_MAX, FE_STATUS_INVALID_ARGUMENT, "'%s' dim %zu (%lld) is larger than cuDNN reorders",
                 filter.name.c_str(), d, static_cast<long long>(extent));
        dims.push_back(static_cast<int>(extent));
    }
    handle.make_current();
    void *descriptor = nullptr;
    check_cudnn(api.cudnnCreateFilterDescriptor(&descriptor), "cudnnCreateFilterDescriptor");
    cudnnStatus_t st = api.cudnnSetFilterNdDescriptor(descriptor, kDataInt8x32, kTensorNchwVectC,
                                                      static_cast<int>(dims.size()), dims.data());
    if (st == CUDNN_STATUS_SUCCESS)
        st = api.cudnnReorderFilterAndBias(handle.cudnn, descriptor, kDefaultReorder, data, reordered, 0, nullptr,
                                           nullptr);
    api.cudnnDestroyFilterDescriptor(descriptor);
    check_cudnn(st, "cudnnReorderFilterAndBias");
}

}  // namespace fe
