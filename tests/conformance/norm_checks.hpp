// The check the norm family and the norm probes share for sums over many rows.
#pragma once

#include <algorithm>
#include <vector>

#include "harness.hpp"

namespace conformance {

// Sums over many rows (dscale, dbias, per-channel sums): the tolerance scales with the sum of the
// terms' magnitudes (what float accumulation errs by), plus the rounding of the written type.
inline void check_norm_sums(Case &k, const char *what, const Bound &out, const std::vector<double> &ref,
                            const std::vector<double> &magnitude) {
    double largest = 0;
    for (double m : magnitude) largest = std::max(largest, m);
    const fe_data_type t = out.type;
    k.check(what, out, ref, 2e-4 * largest + 1e-3, t == FE_DATA_BFLOAT16 ? 1e-2 : 5e-3,
            t == FE_DATA_BFLOAT16 ? 1e-2 : 2e-3);
}

}  // namespace conformance
