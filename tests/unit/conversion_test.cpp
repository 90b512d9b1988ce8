// Host conversions between float and the device's 16- and 8-bit formats (what
// fe_buffer_upload_float / download_float use), checked against exact known encodings.
#include <gtest/gtest.h>

#include <cmath>

#include "common/half.hpp"

namespace {

TEST(Fp8E4M3, EncodesKnownValues) {
    EXPECT_EQ(fe::float_to_fp8_e4m3(0.f), 0x00);
    EXPECT_EQ(fe::float_to_fp8_e4m3(-0.f), 0x80);
    EXPECT_EQ(fe::float_to_fp8_e4m3(1.f), 0x38);      // exponent 7 (bias 7), fraction 0
    EXPECT_EQ(fe::float_to_fp8_e4m3(-2.f), 0xC0);
    EXPECT_EQ(fe::float_to_fp8_e4m3(448.f), 0x7E);    // the largest finite value
    EXPECT_EQ(fe::float_to_fp8_e4m3(1000.f), 0x7E);   // saturates
    EXPECT_EQ(fe::float_to_fp8_e4m3(INFINITY), 0x7E); // no infinity in E4M3: saturates
    EXPECT_EQ(fe::float_to_fp8_e4m3(0.001953125f), 0x01);  // 2^-9, the smallest subnormal
    EXPECT_EQ(fe::float_to_fp8_e4m3(1.0625f), 0x38);  // halfway between 1 and 1.125: to even
    EXPECT_EQ(fe::float_to_fp8_e4m3(1.1875f), 0x3A);  // halfway between 1.125 and 1.25: to even
    EXPECT_EQ(fe::float_to_fp8_e4m3(NAN) & 0x7F, 0x7F);
}

TEST(Fp8E5M2, EncodesKnownValues) {
    EXPECT_EQ(fe::float_to_fp8_e5m2(1.f), 0x3C);  // the top byte of half's 1.0 (0x3C00)
    EXPECT_EQ(fe::float_to_fp8_e5m2(57344.f), 0x7B);
    EXPECT_EQ(fe::float_to_fp8_e5m2(1e6f), 0x7B);
    EXPECT_EQ(fe::float_to_fp8_e5m2(INFINITY), 0x7C);
    EXPECT_EQ(fe::float_to_fp8_e5m2(-INFINITY), 0xFC);
    EXPECT_EQ(fe::float_to_fp8_e5m2(1.5258789e-05f), 0x01);  // 2^-16, the smallest subnormal
}

TEST(Fp8, EveryEncodingRoundTrips) {
    for (int bits = 0; bits < 256; ++bits) {
        float e4m3 = fe::fp8_e4m3_to_float(static_cast<uint8_t>(bits));
        if (std::isnan(e4m3)) {
            EXPECT_EQ(bits & 0x7F, 0x7F);
        } else if (!(e4m3 == 0.f && bits == 0x80)) {
            EXPECT_EQ(fe::float_to_fp8_e4m3(e4m3), bits) << "e4m3 " << bits << " = " << e4m3;
        }
        float e5m2 = fe::fp8_e5m2_to_float(static_cast<uint8_t>(bits));
        if (!std::isnan(e5m2) && !(e5m2 == 0.f && bits == 0x80)) {
            EXPECT_EQ(fe::float_to_fp8_e5m2(e5m2), bits) << "e5m2 " << bits << " = " << e5m2;
        }
        // E5M2 is half's top byte: the same value.
        if (!std::isnan(e5m2)) {
            EXPECT_EQ(e5m2, fe::half_to_float(static_cast<uint16_t>(bits << 8)));
        }
    }
}

TEST(Half, EncodesKnownValues) {
    EXPECT_EQ(fe::float_to_half(1.f), 0x3C00);
    EXPECT_EQ(fe::float_to_half(65504.f), 0x7BFF);
    EXPECT_EQ(fe::float_to_bfloat16(1.f), 0x3F80);
    EXPECT_EQ(fe::bfloat16_to_float(0xC000), -2.f);
}

}  // namespace
