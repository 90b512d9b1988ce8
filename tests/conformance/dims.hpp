// What the family and probe files do with a tensor's dims: count its elements, print them as
// "[a,b,c]" in reports, and visit every logical index in row-major order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace conformance {

using Dims = std::vector<int64_t>;

inline int64_t product(const Dims &d) {
    int64_t n = 1;
    for (int64_t v : d) n *= v;
    return n;
}

inline std::string list(const Dims &d) {
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
    return s + "]";
}

// Calls f(index) for every logical index of dims, in row-major order.
template <typename F>
void for_each_index(const Dims &dims, F f) {
    Dims index(dims.size(), 0);
    for (int64_t e = 0, total = product(dims); e < total; ++e) {
        f(index);
        for (size_t d = dims.size(); d-- > 0;) {
            if (++index[d] < dims[d]) break;
            index[d] = 0;
        }
    }
}

}  // namespace conformance
