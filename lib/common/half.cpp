#include "common/half.hpp"

#include <cstring>

namespace fe {

namespace {
uint32_t bits_of(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
float float_of(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}
}  // namespace

uint16_t float_to_half(float value) {
    uint32_t x = bits_of(value);
    uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u) {  // inf or NaN (keep NaN quiet and non-zero)
        return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    }
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
    if (abs < 0x38800000u) {
        // Subnormal half (or zero): scale into the subnormal range with float arithmetic,
        // which rounds to nearest even for us.
        float f = float_of(abs) * 16777216.0f;  // 2^24: one half-subnormal ulp becomes 1.0
        uint32_t r = static_cast<uint32_t>(f);
        float rem = f - static_cast<float>(r);
        if (rem > 0.5f || (rem == 0.5f && (r & 1u))) ++r;
        return static_cast<uint16_t>(sign | r);
    }
    uint32_t mantissa = abs & 0x7fffffu;
    uint32_t exponent = (abs >> 23) - 127 + 15;
    uint32_t half = (exponent << 10) | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into exponent
    return static_cast<uint16_t>(sign | half);
}

float half_to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0) {
        float f = static_cast<float>(mantissa) / 16777216.0f;  // mantissa * 2^-24
        return float_of(bits_of(f) | sign);
    }
    if (exponent == 31) return float_of(sign | 0x7f800000u | (mantissa << 13));
    return float_of(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

uint16_t float_to_bfloat16(float value) {
    uint32_t x = bits_of(value);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
    uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>((x + rounding) >> 16);
}

float bfloat16_to_float(uint16_t bits) { return float_of(static_cast<uint32_t>(bits) << 16); }

}  // namespace fe
