// conv_int8_vectorized: forward convolutions of vectorized int8 tensors (fe_tensor_set_vectorization,
// cuDNN's NCHW_VECT_C): INT8x4 or INT8x32 image and filter into a vectorized int8 result, int32
// math; 1 to 4 images, 1 to 4 vectors of input and output channels, 1 to 24 pixels a side, square
// filters of 1, 3 or 5 (never wider than the padded image), padding up to half the filter, stride 1
// or 2, dilation 1 or 2; half the INT8x32 filters in the order of cuDNN's INT8x32 kernels
// (fe_tensor_set_reordering, written by fe_handle_reorder_filter_int8x32). Values -1, 0 and 1, so
// that sums rarely saturate. Reference: the integer convolution on the CPU, saturated to int8.
#include <algorithm>
#include <cstdio>
#include <string>

#include "dims.hpp"
#include "families.hpp"

namespace conformance {
namespace {

struct VectorizedConfig {
    int32_t count = 4;
    int64_t n = 1, c = 4, h = 1, w = 1, k = 4, r = 1, pad = 0, stride = 1, dilation = 1;
    bool reordered = false;
    int64_t out_h() const { return (h + 2 * pad - dilation * (r - 1) - 1) / stride + 1; }
    int64_t out_w() const { return (w + 2 * pad - dilation * (r - 1) - 1) / stride + 1; }
};

VectorizedConfig draw(Rng &rng) {
    VectorizedConfig c;
    c.count = rng.chance(0.5) ? 4 : 32;
    c.n = rng.range(1, 4);
    c.c = c.count * rng.range(1, 4);
    c.k = c.count * rng.range(1, 4);
    c.h = rng.size(1, 24);
    c.w = rng.size(1, 24);
    c.r = rng.pick(std::vector<int64_t>{1, 3, 5});
    c.dilation = rng.chance(0.2) ? 2 : 1;
    c.pad = rng.range(0, c.r / 2);
    c.stride = rng.chance(0.3) ? 2 : 1;
    c.reordered = c.count == 32 && rng.chance(0.5);
    // The dilated filter fits the padded image.
    const int64_t span = c.dilation * (c.r - 1) + 1;
    c.h = std::max(c.h, span - 2 * c.pad);
    c.w = std::max(c.w, span - 2 * c.pad);
    return c;
}

std::string describe(const VectorizedConfig &c) {
    char text[256];
    std::snprintf(text, sizeof text, "int8x%d%s x=[%lld,%lld,%lld,%lld] w=[%lld,%lld,%lld,%lld] pad=%lld stride=%lld dilation=%lld",
                  c.count, c.reordered ? " reordered" : "", static_cast<long long>(c.n), static_cast<long long>(c.c), static_cast<long long>(c.h),
                  static_cast<long long>(c.w), static_cast<long long>(c.k), static_cast<long long>(c.c),
                  static_cast<long long>(c.r), static_cast<long long>(c.r), static_cast<long long>(c.pad),
                  static_cast<long long>(c.stride), static_cast<long long>(c.dilation));
    return text;
}

// Offset of value (n, c, y, x) of a [n, c, height, width] tensor stored NCHW_VECT_C in vectors of v.
size_t vect_c(int64_t n, int64_t c, int64_t y, int64_t x, int64_t channels, int64_t height, int64_t width, int64_t v) {
    return static_cast<size_t>((((n * (channels / v) + c / v) * height + y) * width + x) * v + c % v);
}

// A vectorized tensor's bytes: [n, c / v, h, w] in vectors of v, packed.
fe_tensor *vectorized(Case &k, const char *name, int64_t n, int64_t c, int64_t h, int64_t w, int32_t v) {
    fe_tensor *t = k.tensor(name, {n, c / v, h, w}, {c / v * h * w, h * w, w, 1}, FE_DATA_INT8);
    if (t && !k.ok(fe_tensor_set_vectorization(t, v, 1), "fe_tensor_set_vectorization")) return nullptr;
    return t;
}

void conv_vectorized_case(Case &k) {
    const VectorizedConfig c = draw(k.rng);
    k.describe(describe(c));
    if (!k.graph(FE_DATA_INT8, FE_DATA_INT32, FE_DATA_INT32)) return;
    fe_tensor *x = vectorized(k, "x", c.n, c.c, c.h, c.w, c.count);
    fe_tensor *w = x ? vectorized(k, "w", c.k, c.c, c.r, c.r, c.count) : nullptr;
    if (!w) return;
    if (c.reordered && !k.ok(fe_tensor_set_reordering(w, FE_TENSOR_REORDERING_INT8X32), "fe_tensor_set_reordering"))
        return;
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    o.compute_data_type = FE_DATA_INT32;
    const int64_t pads[] = {c.pad, c.pad}, strides[] = {c.stride, c.stride}, dilations[] = {c.dilation, c.dilation};
    if (!k.ok(fe_conv_options_set_padding(&o, 2, pads), "fe_conv_options_set_padding") ||
        !k.ok(fe_conv_options_set_stride(&o, 2, strides), "fe_conv_options_set_stride") ||
        !k.ok(fe_conv_options_set_dilation(&o, 2, dilations), "fe_conv_options_set_dilation"))
        return;
    fe_tensor *y = nullptr;
    if (!k.ok(fe_graph_conv_fprop(k.graph_handle(), x, w, &o, &y), "fe_graph_conv_fprop") ||
        !k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    Bound &bx = k.input_int8(x, 1), &bw = k.input_int8(w, 1), &by = k.output(y);
    if (c.reordered) {
        // The filter as drawn, reordered into a buffer of its own, which the execute binds.
        fe_buffer *as_drawn = bw.buffer;
        void *from = nullptr, *to = nullptr;
        int32_t device = 0;
        fe_handle_get_device(k.handle(), &device);
        bool reordered = k.ok(fe_buffer_create_for_tensor(device, w, &bw.buffer), "fe_buffer_create_for_tensor") &&
                         k.ok(fe_buffer_device_pointer(as_drawn, &from), "fe_buffer_device_pointer") &&
                         k.ok(fe_buffer_device_pointer(bw.buffer, &to), "fe_buffer_device_pointer") &&
                         k.ok(fe_handle_reorder_filter_int8x32(k.handle(), w, from, to),
                              "fe_handle_reorder_filter_int8x32") &&
                         k.ok(fe_handle_synchronize(k.handle()), "fe_handle_synchronize");
        fe_buffer_destroy(as_drawn);
        if (!reordered) return;
    }
    if (!k.execute()) return;

    // y as a plain [n, k, oh, ow] tensor, value by value, beside the integer convolution.
    const int64_t oh = c.out_h(), ow = c.out_w();
    Bound plain = by;
    plain.dims = {c.n, c.k, oh, ow};
    plain.strides = {c.k * oh * ow, oh * ow, ow, 1};
    plain.host.assign(static_cast<size_t>(c.n * c.k * oh * ow), 0.f);
    std::vector<double> want(plain.host.size(), 0.0);
    for (int64_t n = 0; n < c.n; ++n)
        for (int64_t kk = 0; kk < c.k; ++kk)
            for (int64_t i = 0; i < oh; ++i)
                for (int64_t j = 0; j < ow; ++j) {
                    double sum = 0;
                    for (int64_t ch = 0; ch < c.c; ++ch)
                        for (int64_t r = 0; r < c.r; ++r)
                            for (int64_t s = 0; s < c.r; ++s) {
                                const int64_t yi = i * c.stride + r * c.dilation - c.pad;
                                const int64_t xj = j * c.stride + s * c.dilation - c.pad;
                                if (yi < 0 || yi >= c.h || xj < 0 || xj >= c.w) continue;
                                sum += bx.host[vect_c(n, ch, yi, xj, c.c, c.h, c.w, c.count)] *
                                       bw.host[vect_c(kk, ch, r, s, c.c, c.r, c.r, c.count)];
                            }
                    const size_t e = static_cast<size_t>(((n * c.k + kk) * oh + i) * ow + j);
                    want[e] = std::min(127.0, std::max(-128.0, sum));
                    plain.host[e] = by.host[vect_c(n, kk, i, j, c.k, oh, ow, c.count)];
                }
    k.check("y", plain, want, 0.5, 0, 1e-6);
}

}  // namespace

void register_conv_vectorized(std::vector<Family> &out) {
    out.push_back({"conv_int8_vectorized", 300, conv_vectorized_case});
}

}  // namespace conformance
