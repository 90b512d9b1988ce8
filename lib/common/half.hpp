// Host conversions between float and the 16- and 8-bit device formats, so bindings can move data
// without any other CUDA library. Round-to-nearest-even, NaN and infinity preserved.
#pragma once

#include <cstdint>

namespace fe {

uint16_t float_to_half(float value);
float half_to_float(uint16_t bits);
uint16_t float_to_bfloat16(float value);
float bfloat16_to_float(uint16_t bits);
// The 8-bit formats (E4M3 with no infinity, max 448; E5M2 with infinity, max 57344): nearest
// even, finite values past the largest saturate to it, NaN stays NaN.
uint8_t float_to_fp8_e4m3(float value);
float fp8_e4m3_to_float(uint8_t bits);
uint8_t float_to_fp8_e5m2(float value);
float fp8_e5m2_to_float(uint8_t bits);

}  // namespace fe
