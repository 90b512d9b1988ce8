// Host conversions between float and the 16-bit device formats, so bindings can move data
// without any other CUDA library. Round-to-nearest-even, NaN and infinity preserved.
#pragma once

#include <cstdint>

namespace fe {

uint16_t float_to_half(float value);
float half_to_float(uint16_t bits);
uint16_t float_to_bfloat16(float value);
float bfloat16_to_float(uint16_t bits);

}  // namespace fe
