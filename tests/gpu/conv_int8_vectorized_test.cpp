// Vectorized int8 convolutions (fe_tensor_set_vectorization): INT8x4 and INT8x32 images and
// filters (NCHW_VECT_C) into a vectorized int8 result, int32 math, an INT8x32 filter also in the
// order of cuDNN's INT8x32 kernels (fe_tensor_set_reordering, written by
// fe_handle_reorder_filter_int8x32), against an integer convolution on the CPU. Inputs are small whole numbers so that no sum leaves int8's range; the
// result is poisoned with 127 first, which no sum reaches.
#include <cstdint>
#include <cstring>
#include <vector>

#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

struct VectorizedCase {
    const char *name;
    int32_t count;
    int64_t n, c, h, w, k, r, pad, stride;
    bool reordered = false;  // the filter bound in the INT8x32 kernels' order
};

class VectorizedConv : public Gpu, public ::testing::WithParamInterface<VectorizedCase> {
  protected:
    static fe_tensor *vectorized(fe_graph *g, const char *name, int64_t n, int64_t channels, int64_t h, int64_t w,
                                 int32_t count) {
        return make_vectorized_int8(g, name, n, channels, h, w, count);
    }
    // Whole numbers in {-1, 0, 1}, uploaded as int8 bytes.
    std::vector<int8_t> small_values(const Bound &b, size_t count) {
        std::uniform_int_distribution<int> value(-1, 1);
        std::vector<int8_t> bytes(count);
        for (int8_t &e : bytes) e = static_cast<int8_t>(value(rng_));
        EXPECT_FE_OK(fe_buffer_upload(b.buffer, bytes.data(), static_cast<int64_t>(bytes.size())));
        return bytes;
    }
};

TEST_P(VectorizedConv, MatchesTheIntegerConvolution) {
    const VectorizedCase &p = GetParam();
    const int64_t out = (p.h + 2 * p.pad - p.r) / p.stride + 1;
    fe_graph *g = graph(p.name, FE_DATA_INT8);
    fe_tensor *x = vectorized(g, "x", p.n, p.c, p.h, p.w, p.count);
    fe_tensor *w = vectorized(g, "w", p.k, p.c, p.r, p.r, p.count), *y = nullptr;
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    o.compute_data_type = FE_DATA_INT32;
    const int64_t pads[] = {p.pad, p.pad}, strides[] = {p.stride, p.stride};
    ASSERT_FE_OK(fe_conv_options_set_padding(&o, 2, pads));
    ASSERT_FE_OK(fe_conv_options_set_stride(&o, 2, strides));
    if (p.reordered) ASSERT_FE_OK(fe_tensor_set_reordering(w, FE_TENSOR_REORDERING_INT8X32));
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build(g);
    std::printf("    plan %s\n", engine_tag_of(g));
    Bound &bx = allocate(x), &bw = allocate(w), &by = allocate(y);
    const std::vector<int8_t> hx = small_values(bx, static_cast<size_t>(p.n * p.c * p.h * p.w));
    const std::vector<int8_t> hw = small_values(bw, static_cast<size_t>(p.k * p.c * p.r * p.r));
    if (p.reordered) {
        // The filter as uploaded, reordered into a buffer of its own, which the execute binds.
        fe_buffer *as_given = bw.buffer;
        ASSERT_FE_OK(fe_buffer_create_for_tensor(0, w, &bw.buffer));
        void *from = nullptr, *to = nullptr;
        ASSERT_FE_OK(fe_buffer_device_pointer(as_given, &from));
        ASSERT_FE_OK(fe_buffer_device_pointer(bw.buffer, &to));
        ASSERT_FE_OK(fe_handle_reorder_filter_int8x32(handle_, w, from, to));
        ASSERT_FE_OK(fe_handle_synchronize(handle_));
        fe_buffer_destroy(as_given);
    }
    ASSERT_FE_OK(fe_buffer_fill_bytes(by.buffer, 0x7F));
    execute(g, {&bx, &bw, &by});
    std::vector<int8_t> got(static_cast<size_t>(p.n * p.k * out * out));
    ASSERT_FE_OK(fe_buffer_download(by.buffer, got.data(), static_cast<int64_t>(got.size())));

    int64_t wrong = 0;
    for (int64_t n = 0; n < p.n; ++n)
        for (int64_t k = 0; k < p.k; ++k)
            for (int64_t i = 0; i < out; ++i)
                for (int64_t j = 0; j < out; ++j) {
                    int sum = 0;
                    for (int64_t c = 0; c < p.c; ++c)
                        for (int64_t r = 0; r < p.r; ++r)
                            for (int64_t s = 0; s < p.r; ++s) {
                                const int64_t yi = i * p.stride + r - p.pad, xj = j * p.stride + s - p.pad;
                                if (yi < 0 || yi >= p.h || xj < 0 || xj >= p.w) continue;
                                sum += hx[static_cast<size_t>(vect_c_offset(n, c, yi, xj, p.c, p.h, p.w, p.count))] *
                                       hw[static_cast<size_t>(vect_c_offset(k, c, r, s, p.c, p.r, p.r, p.count))];
                            }
                    const int want = sum < -128 ? -128 : sum > 127 ? 127 : sum;
                    const int8_t value = got[static_cast<size_t>(vect_c_offset(n, k, i, j, p.k, out, out, p.count))];
                    if (value != want && wrong++ < 3)
                        ADD_FAILURE() << "y(" << n << ", " << k << ", " << i << ", " << j << ") is " << int(value)
                                      << ", want " << want;
                }
    std::printf("    %lld of %zu values wrong\n", static_cast<long long>(wrong), got.size());
    EXPECT_EQ(wrong, 0);
}

// Float math: no engine on cuDNN 9.19 (the capability table's observed entry), and the build says
// what to set.
TEST_F(Gpu, VectorizedConvInFloatMathHasNoEngineAndSaysWhatToSet) {
    fe_graph *g = graph("int8x32_float_math", FE_DATA_INT8);
    fe_tensor *t[2] = {};
    const int64_t xd[] = {2, 2, 8, 8}, xs[] = {128, 64, 8, 1}, wd[] = {32, 2, 3, 3}, ws[] = {18, 9, 3, 1};
    ASSERT_FE_OK(fe_graph_tensor(g, "x", 4, xd, xs, FE_DATA_INT8, &t[0]));
    ASSERT_FE_OK(fe_graph_tensor(g, "w", 4, wd, ws, FE_DATA_INT8, &t[1]));
    for (fe_tensor *v : t) ASSERT_FE_OK(fe_tensor_set_vectorization(v, 32, 1));
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    o.compute_data_type = FE_DATA_FLOAT;
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, t[0], t[1], &o, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    fe_status s = fe_graph_build(g, handle_, nullptr);
    ASSERT_EQ(s, FE_STATUS_NOT_SUPPORTED) << "float math built: the observed entry can go";
    EXPECT_NE(std::strstr(fe_last_error_message(), "set fe_conv_options.compute_data_type to FE_DATA_INT32"), nullptr)
        << fe_last_error_message();
}

// The reordering takes what cuDNN's legacy function reorders: a packed filter of 32-value vectors,
// into memory of its own; anything else is refused naming why, before cuDNN sees it.
TEST_F(Gpu, ReorderingRefusesWhatItCannotReorder) {
    fe_graph *g = graph("reorder_refusals", FE_DATA_INT8);
    fe_tensor *w4 = make_vectorized_int8(g, "w4", 32, 64, 3, 3, 4), *w = make_vectorized_int8(g, "w", 32, 64, 3, 3, 32);
    fe_tensor *strided = nullptr;
    const int64_t dims[] = {32, 2, 3, 3}, gapped[] = {36, 18, 3, 1};
    ASSERT_FE_OK(fe_graph_tensor(g, "strided", 4, dims, gapped, FE_DATA_INT8, &strided));
    ASSERT_FE_OK(fe_tensor_set_vectorization(strided, 32, 1));
    int64_t bytes = 0;
    ASSERT_FE_OK(fe_tensor_size_bytes(w, &bytes));
    fe_buffer *buffer = nullptr;
    ASSERT_FE_OK(fe_buffer_create(0, 2 * bytes, &buffer));
    void *base = nullptr;
    ASSERT_FE_OK(fe_buffer_device_pointer(buffer, &base));
    char *from = static_cast<char *>(base), *to = from + bytes;
    EXPECT_FE_REFUSED(fe_handle_reorder_filter_int8x32(handle_, w4, from, to), FE_STATUS_INVALID_ARGUMENT,
                      "fe_handle_reorder_filter_int8x32: 'w4' is in vectors of 4 values");
    EXPECT_FE_REFUSED(fe_handle_reorder_filter_int8x32(handle_, strided, from, to), FE_STATUS_INVALID_ARGUMENT,
                      "'strided' has strides [36,18,3,1]: cuDNN reorders a packed filter");
    EXPECT_FE_REFUSED(fe_handle_reorder_filter_int8x32(handle_, w, from, from + bytes / 2), FE_STATUS_INVALID_ARGUMENT,
                      "the reordered filter's memory");
    EXPECT_FE_OK(fe_handle_reorder_filter_int8x32(handle_, w, from, to));
    EXPECT_FE_OK(fe_handle_synchronize(handle_));
    fe_buffer_destroy(buffer);
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, VectorizedConv,
    ::testing::Values(VectorizedCase{"int8x4_3x3", 4, 2, 64, 8, 8, 32, 3, 1, 1},
                      VectorizedCase{"int8x32_3x3", 32, 2, 64, 8, 8, 32, 3, 1, 1},
                      VectorizedCase{"int8x32_1x1_stride_2", 32, 1, 128, 14, 14, 64, 1, 0, 2},
                      VectorizedCase{"int8x4_5x5", 4, 3, 16, 12, 12, 8, 5, 2, 1},
                      VectorizedCase{"int8x32_reordered_3x3", 32, 2, 64, 8, 8, 32, 3, 1, 1, true},
                      VectorizedCase{"int8x32_reordered_1x1", 32, 1, 128, 14, 14, 64, 1, 0, 2, true}),
    [](const ::testing::TestParamInfo<VectorizedCase> &info) { return info.param.name; });

}  // namespace
