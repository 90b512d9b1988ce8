#include "ops/matmul_shape.hpp"

#include "common/error.hpp"

namespace fe {

std::vector<int64_t> matmul_result_dims(const fe_tensor *a, const fe_tensor *b) {
    const size_t rank = a->dims.size();
    FE_CHECK(rank >= 2, FE_STATUS_INVALID_ARGUMENT, "A has rank %zu; a matmul takes [..., M, K]", rank);
    FE_CHECK(b->dims.size() == rank, FE_STATUS_INVALID_ARGUMENT, "A has rank %zu and B has rank %zu; they must match",
             rank, b->dims.size());
    const int64_t m = a->dims[rank - 2], k = a->dims[rank - 1], kb = b->dims[rank - 2], n = b->dims[rank - 1];
    FE_CHECK(k == kb, FE_STATUS_INVALID_ARGUMENT, "A is %s and B is %s: A has K=%lld columns, B has %lld rows",
             dims_string(a->dims).c_str(), dims_string(b->dims).c_str(), static_cast<long long>(k),
             static_cast<long long>(kb));
    std::vector<int64_t> out;
    for (size_t i = 0; i + 2 < rank; ++i) {
        const int64_t da = a->dims[i], db = b->dims[i];
        FE_CHECK(da == db || da == 1 || db == 1, FE_STATUS_INVALID_ARGUMENT,
                 "batch dim %zu is %lld in A and %lld in B; they must be equal or 1", i, static_cast<long long>(da),
                 static_cast<long long>(db));
        out.push_back(da > db ? da : db);
    }
    out.push_back(m);
    out.push_back(n);
    return out;
}

}  // namespace fe
