#include "graph/tensor.hpp"

#include "common/error.hpp"

#include <algorithm>
#include <numeric>

namespace fe {

size_t data_type_bits(fe_data_type type) {
    switch (type) {
        case FE_DATA_INT4:
        case FE_DATA_UINT4: return 4;
        default: return 8 * data_type_size(type);
    }
}

size_t data_type_size(fe_data_type type) {
    switch (type) {
        case FE_DATA_DOUBLE:
        case FE_DATA_INT64:
        case FE_DATA_COMPLEX_FP32: return 8;
        case FE_DATA_FLOAT:
        case FE_DATA_INT32: return 4;
        case FE_DATA_HALF:
        case FE_DATA_BFLOAT16: return 2;
        case FE_DATA_INT8:
        case FE_DATA_UINT8:
        case FE_DATA_BOOLEAN:
        case FE_DATA_FP8_E4M3:
        case FE_DATA_FP8_E5M2:
        case FE_DATA_FP8_E8M0: return 1;
        default: return 0;
    }
}

const char *data_type_name(fe_data_type type) {
    switch (type) {
        case FE_DATA_NOT_SET: return "not_set";
        case FE_DATA_FLOAT: return "float";
        case FE_DATA_DOUBLE: return "double";
        case FE_DATA_HALF: return "half";
        case FE_DATA_INT8: return "int8";
        case FE_DATA_INT32: return "int32";
        case FE_DATA_UINT8: return "uint8";
        case FE_DATA_BFLOAT16: return "bfloat16";
        case FE_DATA_INT64: return "int64";
        case FE_DATA_BOOLEAN: return "boolean";
        case FE_DATA_FP8_E4M3: return "fp8_e4m3";
        case FE_DATA_FP8_E5M2: return "fp8_e5m2";
        case FE_DATA_FP8_E8M0: return "fp8_e8m0";
        case FE_DATA_INT4: return "int4";
        case FE_DATA_UINT4: return "uint4";
        case FE_DATA_COMPLEX_FP32: return "complex_fp32";
        default: return "invalid";
    }
}

bool data_type_valid(fe_data_type type) { return data_type_bits(type) != 0; }

namespace {

// a * b for sizes that must fit an int64 (element counts, strides, spans).
int64_t size_product(int64_t a, int64_t b, const std::vector<int64_t> &dims) {
    int64_t out = 0;
    FE_CHECK(!__builtin_mul_overflow(a, b, &out), FE_STATUS_INVALID_ARGUMENT,
             "dims %s hold more elements than a tensor can address (2^63)", dims_string(dims).c_str());
    return out;
}

}  // namespace

std::vector<int64_t> packed_strides(const std::vector<int64_t> &dims) {
    std::vector<int64_t> strides(dims.size());
    int64_t running = 1;
    for (size_t i = dims.size(); i-- > 0;) {
        strides[i] = running;
        running = size_product(running, std::max<int64_t>(dims[i], 1), dims);
    }
    return strides;
}

std::vector<int64_t> channels_last_strides(const std::vector<int64_t> &dims) {
    std::vector<int64_t> strides(dims.size());
    int64_t running = 1;
    strides[1] = running;
    running = size_product(running, dims[1], dims);
    for (size_t i = dims.size(); i-- > 2;) {
        strides[i] = running;
        running = size_product(running, dims[i], dims);
    }
    strides[0] = running;
    size_product(running, dims[0], dims);  // the whole tensor must be addressable too
    return strides;
}

void require_positive_dims(const std::vector<int64_t> &dims) {
    for (size_t i = 0; i < dims.size(); ++i)
        FE_CHECK(dims[i] > 0, FE_STATUS_INVALID_ARGUMENT, "dim %zu is %lld; dims must be positive", i,
                 static_cast<long long>(dims[i]));
}

bool single_pixel(const std::vector<int64_t> &dims, bool channels) {
    if (dims.size() < 3 || (channels && dims[1] <= 1)) return false;
    for (size_t d = 2; d < dims.size(); ++d)
        if (dims[d] != 1) return false;
    return true;
}

int image_layout_class(const fe_tensor *t, size_t rank) {
    if (t->dims.size() != rank || t->strides.size() != rank || rank < 3 || t->dims[1] <= 1) return -1;
    bool spatial = false;
    for (size_t d = 2; d < rank; ++d) spatial = spatial || t->dims[d] > 1;
    if (!spatial) return -1;
    return t->strides[1] == 1 ? 1 : 0;
}

int64_t element_count(const std::vector<int64_t> &dims) {
    int64_t n = 1;
    for (int64_t x : dims)
        if (__builtin_mul_overflow(n, x, &n)) return INT64_MAX;
    return n;
}

void require_distinct_elements(const std::string &name, const std::vector<int64_t> &dims,
                               const std::vector<int64_t> &strides) {
    // Innermost first; dims of one element take no room. Each dim's stride must step past every
    // element of the dims inside it: then no two indices share an address. (Layouts that
    // interleave dims without overlapping fail this too; cuDNN takes none of them.)
    std::vector<size_t> order;
    for (size_t i = 0; i < dims.size() && i < strides.size(); ++i)
        if (dims[i] > 1) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return strides[a] < strides[b]; });
    int64_t extent = 1;  // one past the last offset the inner dims reach
    for (size_t i : order) {
        FE_CHECK(strides[i] >= extent, FE_STATUS_INVALID_ARGUMENT,
                 "output '%s' has dims %s and strides %s: stride %zu is %lld, but the dims inside it reach offset "
                 "%lld, so distinct elements would share memory",
                 name.c_str(), dims_string(dims).c_str(), dims_string(strides).c_str(), i,
                 static_cast<long long>(strides[i]), static_cast<long long>(extent - 1));
        FE_CHECK(!__builtin_add_overflow(extent, size_product(dims[i] - 1, strides[i], dims), &extent),
                 FE_STATUS_INVALID_ARGUMENT, "output '%s' has dims %s and strides %s, which span more than 2^63 elements",
                 name.c_str(), dims_string(dims).c_str(), dims_string(strides).c_str());
    }
}

std::vector<int64_t> strides_in_order_of(const std::vector<int64_t> &dims,
                                         const std::vector<int64_t> &like) {
    if (like.size() != dims.size()) return packed_strides(dims);
    std::vector<size_t> order(dims.size());
    std::iota(order.begin(), order.end(), 0);
    // Innermost first: smallest stride; ties keep the later dimension inner (row-major).
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (like[a] != like[b]) return like[a] < like[b];
        return a > b;
    });
    std::vector<int64_t> strides(dims.size());
    int64_t running = 1;
    for (size_t idx : order) {
        strides[idx] = running;
        running = size_product(running, std::max<int64_t>(dims[idx], 1), dims);
    }
    return strides;
}

void assign_inferred_shape(fe_tensor *tensor, const std::vector<int64_t> &dims,
                           const std::vector<int64_t> &layout_like) {
    if (tensor->user_dims) {
        FE_CHECK(tensor->dims == dims, FE_STATUS_VALIDATION,
                 "'%s' was given dims %s but the operation produces %s", tensor->name.c_str(),
                 dims_string(tensor->dims).c_str(), dims_string(dims).c_str());
    } else {
        tensor->dims = dims;
    }
    if (tensor->user_strides) {
        FE_CHECK(tensor->strides.size() == dims.size(), FE_STATUS_VALIDATION,
                 "'%s' was given %zu strides for %zu dims", tensor->name.c_str(),
                 tensor->strides.size(), dims.size());
    } else {
        tensor->strides = strides_in_order_of(dims, layout_like);
    }
}

int64_t span_bytes(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides,
                   fe_data_type type) {
    int64_t last = 0;
    for (size_t i = 0; i < dims.size() && i < strides.size(); ++i) {
        if (dims[i] == 0) return 0;
        FE_CHECK(!__builtin_add_overflow(last, size_product(dims[i] - 1, strides[i], dims), &last),
                 FE_STATUS_INVALID_ARGUMENT, "dims %s with strides %s span more than 2^63 elements",
                 dims_string(dims).c_str(), dims_string(strides).c_str());
    }
    FE_CHECK(last < INT64_MAX, FE_STATUS_INVALID_ARGUMENT, "dims %s with strides %s span more than 2^63 elements",
             dims_string(dims).c_str(), dims_string(strides).c_str());
    // In bits, so that 4-bit types take half a byte an element (a last odd one takes a whole byte).
    const int64_t bits = size_product(last + 1, static_cast<int64_t>(data_type_bits(type)), dims);
    return bits / 8 + (bits % 8 != 0);
}

int64_t tensor_bytes(const fe_tensor &t) {
    const int64_t bytes = span_bytes(t.dims, t.strides, t.data_type);
    int64_t total = 0;
    FE_CHECK(!__builtin_mul_overflow(bytes, static_cast<int64_t>(t.vector_count), &total), FE_STATUS_INVALID_ARGUMENT,
             "'%s' spans more than 2^63 bytes", t.name.c_str());
    return total;
}

void shape_single_element(fe_tensor *tensor, const char *what, size_t rank) {
    int64_t n = element_count(tensor->dims);
    FE_CHECK(n == 1, FE_STATUS_INVALID_ARGUMENT, "%s '%s' must hold one element, not %lld", what, tensor->name.c_str(),
             static_cast<long long>(n));
    if (tensor->dims.size() != rank) {
        tensor->dims.assign(rank, 1);
        tensor->strides.assign(rank, 1);
    }
}

std::string dims_string(const std::vector<int64_t> &dims) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i) s += ",";
        s += std::to_string(dims[i]);
    }
    return s + "]";
}

}  // namespace fe
