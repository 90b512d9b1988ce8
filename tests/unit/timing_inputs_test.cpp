// What autotuning times plans on, and for how long: the scratch inputs' values and the shape of
// a back-to-back timing, checked without a GPU.
#include <gtest/gtest.h>

#include <cstring>

#include "common/half.hpp"
#include "plan/timing_inputs.hpp"

namespace {

TEST(TimingValues, FloatingTypesSpreadOverMinusOneToOne) {
    std::vector<unsigned char> f = fe::timing_values(FE_DATA_FLOAT, 4, 4096);
    ASSERT_EQ(f.size(), 4096u * 4);
    float lowest = 2, highest = -2;
    int zeros = 0;
    for (size_t i = 0; i < 4096; ++i) {
        float v;
        std::memcpy(&v, f.data() + i * 4, 4);
        lowest = std::min(lowest, v);
        highest = std::max(highest, v);
        zeros += v == 0.0f;
    }
    EXPECT_GE(lowest, -1.0f);
    EXPECT_LE(highest, 1.0f);
    EXPECT_LT(lowest, -0.9f) << "values should spread over the whole range";
    EXPECT_GT(highest, 0.9f);
    EXPECT_LT(zeros, 4) << "zeros lower a tensor core's power draw and misrepresent its clock";

    std::vector<unsigned char> h = fe::timing_values(FE_DATA_HALF, 2, 1024),
                               b = fe::timing_values(FE_DATA_BFLOAT16, 2, 1024);
    ASSERT_EQ(h.size(), 2048u);
    ASSERT_EQ(b.size(), 2048u);
    for (size_t i = 0; i < 1024; ++i) {
        uint16_t hb, bb;
        std::memcpy(&hb, h.data() + i * 2, 2);
        std::memcpy(&bb, b.data() + i * 2, 2);
        float hv = fe::half_to_float(hb), bv = fe::bfloat16_to_float(bb);
        float fv;
        std::memcpy(&fv, f.data() + i * 4, 4);
        EXPECT_NEAR(hv, fv, 1e-3f) << "element " << i;  // the same sequence in every type
        EXPECT_NEAR(bv, fv, 1e-2f) << "element " << i;
    }
    std::vector<unsigned char> e4 = fe::timing_values(FE_DATA_FP8_E4M3, 1, 256);
    ASSERT_EQ(e4.size(), 256u);
    for (unsigned char bits : e4) EXPECT_LE(std::abs(fe::fp8_e4m3_to_float(bits)), 1.0f);
}

TEST(TimingValues, IntegerAndScaleFactorTypesAreZero) {
    for (auto [type, size] : {std::pair<fe_data_type, size_t>{FE_DATA_INT32, 4}, {FE_DATA_INT64, 8}, {FE_DATA_INT8, 1},
                              {FE_DATA_UINT8, 1}, {FE_DATA_BOOLEAN, 1}, {FE_DATA_FP8_E8M0, 1}}) {
        std::vector<unsigned char> v = fe::timing_values(type, size, 100);
        ASSERT_EQ(v.size(), 100 * size) << "type " << type;
        for (unsigned char byte : v) ASSERT_EQ(byte, 0) << "type " << type;
    }
}

TEST(TimingValues, AreTheSameOnEveryCall) {
    EXPECT_EQ(fe::timing_values(FE_DATA_HALF, 2, 777), fe::timing_values(FE_DATA_HALF, 2, 777));
}

TEST(BurstShape, ShortKernelsGetFullBurstsAndAllIterations) {
    for (double us : {0.0, 3.0, 14.0, 50.0, 75.0}) {
        fe::BurstShape s = fe::burst_shape(us, 10);
        EXPECT_EQ(s.runs, 20) << us << " us";
        EXPECT_EQ(s.bursts, 10) << us << " us";
    }
    EXPECT_EQ(fe::burst_shape(14.0, 25).bursts, 25) << "more iterations asked, more bursts";
}

TEST(BurstShape, LongKernelsAreBoundedInTime) {
    for (double us : {100.0, 160.0, 450.0, 900.0, 5000.0, 1e6}) {
        fe::BurstShape s = fe::burst_shape(us, 10);
        EXPECT_GE(s.runs, 4) << us << " us";
        EXPECT_LE(s.runs, 20) << us << " us";
        EXPECT_GE(s.bursts, 3) << us << " us";
        EXPECT_LE(s.bursts, 10) << us << " us";
        if (us >= 900) EXPECT_LE((s.bursts + 1) * s.runs * us, 4 * 5 * us) << "at most 5 bursts of 4 runs";
        if (us <= 450) EXPECT_LE(s.bursts * s.runs * us, 16000.0) << us << " us";
    }
    fe::BurstShape conv1_dgrad = fe::burst_shape(877.0, 10);  // ResNet-50's slowest layer
    EXPECT_EQ(conv1_dgrad.runs, 4);
    EXPECT_EQ(conv1_dgrad.bursts, 4);
}

TEST(BurstShape, FewIterationsStillGiveAMedianOfThree) {
    EXPECT_EQ(fe::burst_shape(10.0, 1).bursts, 3);
    EXPECT_EQ(fe::burst_shape(10.0, 0).bursts, 3);
}

TEST(MedianOf, TakesTheMiddleOrTheUpperOfTwo) {
    EXPECT_EQ(fe::median_of({3.0, 1.0, 2.0}), 2.0);
    EXPECT_EQ(fe::median_of({5.0}), 5.0);
    EXPECT_EQ(fe::median_of({4.0, 1.0, 3.0, 2.0}), 3.0);
}

}  // namespace
