// Whether the buffers bound to a graph's inputs and outputs overlap where they must not: an
// output that shares bytes with an input or another output is a data race inside cuDNN's
// kernels, unless the op documents the pair as updated in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace fe {

struct BoundSlots {
    void *const *pointers;  // per slot, inputs first
    const int64_t *bytes;   // per slot: the bytes its tensor spans (0: unknown, counted as 1)
    size_t inputs;          // slots [0, inputs) are inputs, the rest outputs
    size_t total;
};

// The first pair (a, b), a < b, of slots whose byte ranges overlap, with b an output and the
// pair not in `shared` (sorted (input slot, output slot) pairs allowed to overlap); {-1, -1}
// when none does. O(inputs x outputs + outputs^2) comparisons, no allocation.
std::pair<int32_t, int32_t> find_overlapping_slots(const BoundSlots &slots,
                                                   const std::vector<std::pair<int32_t, int32_t>> &shared);

}  // namespace fe
