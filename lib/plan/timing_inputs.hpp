// The pure parts of timing plans (PlanTimer): what the scratch inputs hold and how long a
// back-to-back timing runs. Kept apart so that they are tested without a GPU.
#pragma once

#include <cstdint>
#include <vector>

#include "cudnnfe.h"

namespace fe {

// Host bytes of `count` values of `type` (`element_bytes` each) spread over [-1, 1], zeros for
// integer, boolean and scale-factor types (counts, offsets, indices and masks stay valid), from
// a fixed seed so that every build times the same data.
std::vector<unsigned char> timing_values(fe_data_type type, size_t element_bytes, size_t count);

// How a back-to-back timing of a plan whose cold time is `cold_us` runs: `runs` per burst and
// `bursts` timed (after one untimed). Short kernels take the longest bursts (up to 20 runs,
// about 2 ms), so that the runs, not the launches, fill them, and `iterations` bursts; a long
// kernel needs no burst for that, and bounding the busy time of each timing (about 15 ms,
// never fewer than 4 runs and 3 bursts) keeps a build of a slow layer from taking seconds.
struct BurstShape {
    int32_t runs = 0;
    int32_t bursts = 0;
};
BurstShape burst_shape(double cold_us, int32_t iterations);

// The median of some timings (the upper one of an even count); they must not be empty.
double median_of(std::vector<double> values);

}  // namespace fe
