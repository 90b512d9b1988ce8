#include "plan/timing_inputs.hpp"

#include <algorithm>
#include <cstring>

#include "common/half.hpp"

namespace fe {

std::vector<unsigned char> timing_values(fe_data_type type, size_t element_bytes, size_t count) {
    std::vector<unsigned char> bytes(count * element_bytes, 0);
    uint32_t state = 0x9e3779b9u;  // xorshift32
    for (size_t i = 0; i < count; ++i) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        float v = static_cast<float>(state >> 8) / static_cast<float>(1u << 23) - 1.0f;  // [-1, 1)
        unsigned char *at = bytes.data() + i * element_bytes;
        switch (type) {
            case FE_DATA_FLOAT: std::memcpy(at, &v, 4); break;
            case FE_DATA_DOUBLE: {
                double d = v;
                std::memcpy(at, &d, 8);
                break;
            }
            case FE_DATA_HALF: {
                uint16_t h = float_to_half(v);
                std::memcpy(at, &h, 2);
                break;
            }
            case FE_DATA_BFLOAT16: {
                uint16_t h = float_to_bfloat16(v);
                std::memcpy(at, &h, 2);
                break;
            }
            case FE_DATA_FP8_E4M3: *at = float_to_fp8_e4m3(v); break;
            case FE_DATA_FP8_E5M2: *at = float_to_fp8_e5m2(v); break;
            default: break;
        }
    }
    return bytes;
}

BurstShape burst_shape(double cold_us, int32_t iterations) {
    constexpr double kBurstTargetUs = 2000, kTimingBudgetUs = 15000;
    constexpr double kMaxRuns = 20, kMinRuns = 4, kMinBursts = 3;
    double per_run = std::max(cold_us, 1.0);
    BurstShape shape;
    shape.runs = static_cast<int32_t>(std::clamp(kBurstTargetUs / per_run, kMinRuns, kMaxRuns));
    double most = std::max(static_cast<double>(iterations), kMinBursts);
    shape.bursts = static_cast<int32_t>(std::clamp(kTimingBudgetUs / (shape.runs * per_run), kMinBursts, most));
    return shape;
}

double median_of(std::vector<double> values) {
    std::nth_element(values.begin(), values.begin() + static_cast<ptrdiff_t>(values.size() / 2), values.end());
    return values[values.size() / 2];
}

}  // namespace fe
