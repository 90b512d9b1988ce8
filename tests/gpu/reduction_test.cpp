// Reductions on their own (as the reference frontend runs them: fp32, over every dim or over the
// channels of a channels-last tensor), the product of the non-zero elements, and the
// deterministic flag (two runs give the same bits), against CPU references in double.
#include <cmath>
#include <cstring>
#include <vector>

#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

// The reduction of x over `axes` (bit i: dim i) in logical row-major order of the result.
std::vector<double> reduce_reference(const Bound &x, uint32_t axes, double init, double (*combine)(double, double),
                                     bool (*keep)(double) = nullptr) {
    std::vector<int64_t> out_dims = x.dims;
    for (size_t i = 0; i < out_dims.size(); ++i)
        if (axes & (1u << i)) out_dims[i] = 1;
    int64_t out_count = 1, count = 1;
    for (int64_t d : out_dims) out_count *= d;
    for (int64_t d : x.dims) count *= d;
    std::vector<double> out(static_cast<size_t>(out_count), init);
    std::vector<int64_t> index(x.dims.size(), 0);
    for (int64_t e = 0; e < count; ++e) {
        int64_t o = 0;
        for (size_t i = 0; i < index.size(); ++i) o = o * out_dims[i] + ((axes & (1u << i)) ? 0 : index[i]);
        double v = x.at(index);
        if (!keep || keep(v)) out[static_cast<size_t>(o)] = combine(out[static_cast<size_t>(o)], v);
        for (size_t d = index.size(); d-- > 0;) {
            if (++index[d] < x.dims[d]) break;
            index[d] = 0;
        }
    }
    return out;
}

double max_of(double a, double b) { return a > b ? a : b; }
double sum_of(double a, double b) { return a + b; }
double product_of(double a, double b) { return a * b; }
bool non_zero(double v) { return v != 0.0; }

TEST_F(Gpu, ALoneMaxReductionOverEveryDimAndOverTheChannels) {
    for (uint32_t axes : {0xFu, 0x2u}) {
        SCOPED_TRACE(axes);
        fe_graph *g = graph("lone_max", FE_DATA_FLOAT);
        fe_tensor *x = tensor(g, "x", {16, 64, 32, 32}, true), *y = nullptr;
        fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
        o.reduce_axes = axes;
        ASSERT_FE_OK(fe_graph_reduction(g, x, FE_REDUCTION_MAX, &o, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        build(g);
        Bound &bx = bind(x, true), &by = bind(y, false);
        execute(g, {&bx, &by});
        download(by);
        std::printf("    axes %#x with %s:\n", axes, engine_tag_of(g));
        expect_close(by, reduce_reference(bx, axes, -INFINITY, max_of), 0, 0, 0);
    }
}

TEST_F(Gpu, TheProductOfTheNonZeroElements) {
    fe_graph *g = graph("mul_no_zeros", FE_DATA_FLOAT);
    fe_tensor *x = tensor(g, "x", {8, 64, 4, 4}, true), *y = nullptr;
    fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
    o.reduce_axes = 0x2u;
    ASSERT_FE_OK(fe_graph_reduction(g, x, FE_REDUCTION_MUL_NO_ZEROS, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    if (refused_by_the_capability_table(g)) GTEST_SKIP() << fe_last_error_message();
    Bound &bx = bind(x, true, 0.9f, 1.1f), &by = bind(y, false);
    // A quarter of the elements zero: a plain product would be 0 almost everywhere.
    for (size_t i = 0; i < bx.host.size(); i += 4) bx.host[i] = 0.f;
    ASSERT_FE_OK(fe_buffer_upload_float(bx.buffer, bx.host.data(), bx.span(), bx.type));
    execute(g, {&bx, &by});
    download(by);
    std::printf("    %s:\n", engine_tag_of(g));
    expect_close(by, reduce_reference(bx, 0x2u, 1.0, product_of, non_zero), 1e-5, 1e-4, 1e-5);
}

TEST_F(Gpu, ADeterministicSumGivesTheSameBitsTwice) {
    fe_graph *g = graph("deterministic_sum", FE_DATA_FLOAT);
    fe_tensor *x = tensor(g, "x", {16, 256, 32, 32}, true), *y = nullptr;
    fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
    o.reduce_axes = 0xFu;
    o.deterministic = 1;
    ASSERT_FE_OK(fe_graph_reduction(g, x, FE_REDUCTION_ADD, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    if (refused_by_the_capability_table(g)) GTEST_SKIP() << fe_last_error_message();
    Bound &bx = bind(x, true), &by = bind(y, false);
    std::vector<float> runs[2];
    for (std::vector<float> &run : runs) {
        ASSERT_FE_OK(fe_buffer_fill_bytes(by.buffer, 0xFF));
        execute(g, {&bx, &by});
        download(by);
        run = by.host;
    }
    EXPECT_EQ(std::memcmp(runs[0].data(), runs[1].data(), runs[0].size() * sizeof(float)), 0)
        << runs[0][0] << " then " << runs[1][0];
    std::printf("    %s, sum of %d elements:\n", engine_tag_of(g), 16 * 256 * 32 * 32);
    expect_close(by, reduce_reference(bx, 0xFu, 0.0, sum_of), 1e-2, 1e-5, 1e-5);
}

}  // namespace
