#include "common/half.hpp"

#include <cmath>
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

namespace {

// One sign bit, exponent bits with `bias`, `mantissa_bits`; `largest` is the largest finite value.
uint8_t encode_fp8(float value, int mantissa_bits, int bias, double largest, bool has_infinity) {
    const uint8_t sign = std::signbit(value) ? 0x80 : 0x00;
    if (std::isnan(value)) return static_cast<uint8_t>(sign | 0x7f);
    double a = std::fabs(static_cast<double>(value));
    if (std::isinf(value) && has_infinity) return static_cast<uint8_t>(sign | (0x7f & ~((1 << mantissa_bits) - 1)));
    if (a > largest) a = largest;
    const double smallest_normal = std::ldexp(1.0, 1 - bias);
    if (a < smallest_normal) {
        // Subnormal: a multiple of the smallest step; rounding up to 2^mantissa_bits steps lands
        // exactly on the smallest normal's encoding.
        double steps = std::nearbyint(std::ldexp(a, bias - 1 + mantissa_bits));
        return static_cast<uint8_t>(sign | static_cast<uint8_t>(steps));
    }
    int exponent = 0;
    std::frexp(a, &exponent);  // a = m * 2^exponent, m in [0.5, 1)
    exponent -= 1;
    double fraction = std::nearbyint(std::ldexp(std::ldexp(a, -exponent) - 1.0, mantissa_bits));
    if (fraction >= std::ldexp(1.0, mantissa_bits)) {
        fraction = 0;
        ++exponent;
    }
    double rounded = std::ldexp(1.0 + std::ldexp(fraction, -mantissa_bits), exponent);
    if (rounded > largest) return encode_fp8(static_cast<float>(std::copysign(largest, value)), mantissa_bits, bias,
                                             largest, has_infinity);
    return static_cast<uint8_t>(sign | ((exponent + bias) << mantissa_bits) | static_cast<int>(fraction));
}

float decode_fp8(uint8_t bits, int mantissa_bits, int bias, bool has_infinity) {
    const int exponent_mask = (0x7f >> mantissa_bits);
    int exponent = (bits & 0x7f) >> mantissa_bits;
    int fraction = bits & ((1 << mantissa_bits) - 1);
    double sign = (bits & 0x80) ? -1.0 : 1.0;
    if (has_infinity && exponent == exponent_mask)
        return static_cast<float>(fraction == 0 ? sign * INFINITY : NAN);
    if (!has_infinity && (bits & 0x7f) == 0x7f) return NAN;
    if (exponent == 0) return static_cast<float>(sign * std::ldexp(fraction, 1 - bias - mantissa_bits));
    return static_cast<float>(sign * std::ldexp(1.0 + std::ldexp(fraction, -mantissa_bits), exponent - bias));
}

}  // namespace

uint8_t float_to_fp8_e4m3(float value) { return encode_fp8(value, 3, 7, 448.0, false); }
float fp8_e4m3_to_float(uint8_t bits) { return decode_fp8(bits, 3, 7, false); }
uint8_t float_to_fp8_e5m2(float value) { return encode_fp8(value, 2, 15, 57344.0, true); }
float fp8_e5m2_to_float(uint8_t bits) { return decode_fp8(bits, 2, 15, true); }

}  // namespace fe
