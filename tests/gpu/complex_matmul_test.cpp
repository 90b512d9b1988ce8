// Complex fp32 matmuls (cuDNN >= 9.14): random complex A and B, either row- or column-major; C
// poisoned first, against the complex products summed in double. A cuDNN older than 9.14 refuses
// the build naming the version (the capability table). A batch broadcast has no engine on 9.19, and
// the build says what to do instead.
#include <cmath>
#include <cstring>

#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

struct ComplexCase {
    const char *name;
    int64_t batch_a, batch_b, m, n, k;
    bool a_column_major, b_column_major;
};

class ComplexMatmul : public Gpu, public ::testing::WithParamInterface<ComplexCase> {
  protected:
    // Pairs of floats (real, imaginary), uniform in [-1, 1], uploaded to `b`'s buffer.
    std::vector<float> random_complex(const Bound &b) {
        std::uniform_real_distribution<float> dist(-1.f, 1.f);
        std::vector<float> values(static_cast<size_t>(2 * b.span()));
        for (float &v : values) v = dist(rng_);
        EXPECT_FE_OK(fe_buffer_upload(b.buffer, values.data(), static_cast<int64_t>(values.size() * sizeof(float))));
        return values;
    }
};

TEST_P(ComplexMatmul, MatchesTheDoubleProduct) {
    const ComplexCase &p = GetParam();
    fe_graph *g = graph(p.name, FE_DATA_COMPLEX_FP32);
    const int64_t a_dims[] = {p.batch_a, p.m, p.k};
    const int64_t a_strides[] = {p.m * p.k, p.a_column_major ? 1 : p.k, p.a_column_major ? p.m : 1};
    const int64_t b_dims[] = {p.batch_b, p.k, p.n};
    const int64_t b_strides[] = {p.k * p.n, p.b_column_major ? 1 : p.n, p.b_column_major ? p.k : 1};
    fe_tensor *a = nullptr, *b = nullptr, *c = nullptr;
    ASSERT_FE_OK(fe_graph_tensor(g, "A", 3, a_dims, a_strides, FE_DATA_NOT_SET, &a));
    ASSERT_FE_OK(fe_graph_tensor(g, "B", 3, b_dims, b_strides, FE_DATA_NOT_SET, &b));
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));

    fe_status built = fe_graph_build(g, handle_, nullptr);
    if (built != FE_OK && std::strstr(fe_last_error_message(), "complex_fp32_matmul")) {
        ASSERT_EQ(built, FE_STATUS_NOT_SUPPORTED);
        GTEST_SKIP() << "this cuDNN refuses complex matmuls: " << fe_last_error_message();
    }
    if (p.batch_a != p.batch_b) {
        // No engine for it on cuDNN 9.19 (53 of 53 randomized cases): the build says so and why.
        ASSERT_EQ(built, FE_STATUS_NOT_SUPPORTED) << "a broadcast batch built: time to run it here";
        EXPECT_NE(std::strstr(fe_last_error_message(), "give both operands the whole batch"), nullptr)
            << fe_last_error_message();
        return;
    }
    ASSERT_FE_OK(built);
    fe_data_type c_type = FE_DATA_NOT_SET;
    ASSERT_FE_OK(fe_tensor_get_data_type(c, &c_type));
    EXPECT_EQ(c_type, FE_DATA_COMPLEX_FP32) << "a product of complex operands is complex";
    keep_plan(g);
    std::printf("    plan %s\n", engine_tag_of(g));
    Bound &ba = allocate(a), &bb = allocate(b), &bc = allocate(c);
    const std::vector<float> av = random_complex(ba), bv = random_complex(bb);
    ASSERT_FE_OK(fe_buffer_fill_bytes(bc.buffer, 0xFF));
    execute(g, {&ba, &bb, &bc});
    std::vector<float> cv(static_cast<size_t>(2 * bc.span()));
    ASSERT_FE_OK(fe_buffer_download(bc.buffer, cv.data(), static_cast<int64_t>(cv.size() * sizeof(float))));

    const int64_t batch = std::max(p.batch_a, p.batch_b);
    double diff2 = 0, ref2 = 0;
    int64_t outside = 0;
    for (int64_t i = 0; i < batch; ++i)
        for (int64_t m = 0; m < p.m; ++m)
            for (int64_t n = 0; n < p.n; ++n) {
                double re = 0, im = 0, size = 0;
                for (int64_t j = 0; j < p.k; ++j) {
                    const size_t ea = static_cast<size_t>(ba.offset({p.batch_a > 1 ? i : 0, m, j}));
                    const size_t eb = static_cast<size_t>(bb.offset({p.batch_b > 1 ? i : 0, j, n}));
                    const double ar = av[2 * ea], ai = av[2 * ea + 1], br = bv[2 * eb], bi = bv[2 * eb + 1];
                    re += ar * br - ai * bi;
                    im += ar * bi + ai * br;
                    size += (std::fabs(ar) + std::fabs(ai)) * (std::fabs(br) + std::fabs(bi));
                }
                const size_t ec = static_cast<size_t>(bc.offset({i, m, n}));
                const double got[2] = {cv[2 * ec], cv[2 * ec + 1]}, want[2] = {re, im};
                for (int part = 0; part < 2; ++part) {
                    const double d = std::fabs(got[part] - want[part]);
                    diff2 += d * d;
                    ref2 += want[part] * want[part];
                    // TF32-sized rounding of each term, as the float matmul's engines allow.
                    if (!(d <= 1e-4 + 5e-3 * std::fabs(want[part]) + std::ldexp(size, -9))) ++outside;
                }
            }
    const double relative_norm = std::sqrt(diff2 / ref2);
    std::printf("    relative norm %.3g, %lld of %lld parts outside\n", relative_norm, static_cast<long long>(outside),
                static_cast<long long>(2 * batch * p.m * p.n));
    EXPECT_EQ(outside, 0);
    EXPECT_LT(relative_norm, 2e-3);
}

INSTANTIATE_TEST_SUITE_P(Gpu, ComplexMatmul,
                         ::testing::Values(ComplexCase{"batched_b_column_major", 16, 16, 32, 64, 128, false, true},
                                           ComplexCase{"single_b_row_major", 1, 1, 64, 48, 96, false, false},
                                           ComplexCase{"a_column_major", 4, 4, 40, 24, 72, true, false},
                                           ComplexCase{"weights_broadcast_has_no_engine", 4, 1, 40, 24, 72, false,
                                                       true}),
                         [](const ::testing::TestParamInfo<ComplexCase> &info) { return info.param.name; });

}  // namespace
