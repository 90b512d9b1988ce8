// The result shape of a matmul's A [..., M, K] times B [..., K, N], shared by the plain and the
// FP8 matmul: the checks of ranks, K and the batch dims (equal, or 1 to broadcast), one message
// each.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/tensor.hpp"

namespace fe {

// [batch..., M, N]: each batch dim the larger of A's and B's. Throws INVALID_ARGUMENT naming the
// mismatch.
std::vector<int64_t> matmul_result_dims(const fe_tensor *a, const fe_tensor *b);

}  // namespace fe
