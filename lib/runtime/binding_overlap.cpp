#include "runtime/binding_overlap.hpp"

#include <algorithm>

namespace fe {

namespace {

bool ranges_overlap(const BoundSlots &slots, size_t a, size_t b) {
    uintptr_t begin_a = reinterpret_cast<uintptr_t>(slots.pointers[a]);
    uintptr_t begin_b = reinterpret_cast<uintptr_t>(slots.pointers[b]);
    // A size not known at build (a ragged tensor) still occupies its first byte.
    uintptr_t size_a = static_cast<uintptr_t>(std::max<int64_t>(slots.bytes[a], 1));
    uintptr_t size_b = static_cast<uintptr_t>(std::max<int64_t>(slots.bytes[b], 1));
    return begin_a < begin_b ? begin_b - begin_a < size_a : begin_a - begin_b < size_b;
}

bool may_share(const std::vector<std::pair<int32_t, int32_t>> &shared, size_t input, size_t output) {
    return std::binary_search(shared.begin(), shared.end(),
                              std::make_pair(static_cast<int32_t>(input), static_cast<int32_t>(output)));
}

}  // namespace

std::pair<int32_t, int32_t> find_overlapping_slots(const BoundSlots &slots,
                                                   const std::vector<std::pair<int32_t, int32_t>> &shared) {
    for (size_t out = slots.inputs; out < slots.total; ++out)
        for (size_t other = 0; other < out; ++other)
            if (ranges_overlap(slots, other, out) && !(other < slots.inputs && may_share(shared, other, out)))
                return {static_cast<int32_t>(other), static_cast<int32_t>(out)};
    return {-1, -1};
}

}  // namespace fe
