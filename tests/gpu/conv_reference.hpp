// CPU references in double for the three directions of a (grouped) convolution. All three walk
// the product terms of ONE forward relation,
//   y[n, k, o...] += x[n, g*Cg + c, o*stride - pad + f*dilation] * w[k, c, f...],  g = k / Kg,
// so that fprop, dgrad and wgrad cannot disagree on the index math: fprop accumulates x*w into y,
// dgrad dy*w into x's position, wgrad x*dy into w's position. Arrays are logical (row-major over
// their dims), as expect_close compares them.
#pragma once

#include <vector>

#include "reference.hpp"

namespace cudnnfe_test {

// A bound tensor's values in logical row-major order.
inline std::vector<double> logical(const Bound &b) {
    return elementwise(b.dims, [&](const std::vector<int64_t> &index) { return static_cast<double>(b.at(index)); });
}

// A host-only tensor (packed strides, no device buffer) holding `values` in logical order: for
// references built from other references' results.
inline Bound host_bound(const std::vector<int64_t> &dims, std::vector<float> values) {
    Bound b;
    b.dims = dims;
    b.strides.assign(dims.size(), 1);
    for (size_t i = dims.size() - 1; i-- > 0;) b.strides[i] = b.strides[i + 1] * dims[i + 1];
    b.host = std::move(values);
    return b;
}

inline int64_t element_count(const std::vector<int64_t> &dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
}

// Call term(x_index, w_index, y_index) (flat logical indices) for every product of the forward
// relation y = conv(x, w) with `groups` groups; 1 to 3 spatial dims (missing ones count as 1).
template <typename Term>
void for_each_conv_term(const std::vector<int64_t> &x, const std::vector<int64_t> &w, const std::vector<int64_t> &y,
                        const ConvParams &p, int64_t groups, Term term) {
    size_t spatial = x.size() - 2;
    int64_t in[3] = {1, 1, 1}, filter[3] = {1, 1, 1}, out[3] = {1, 1, 1};
    int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dilation[3] = {1, 1, 1};
    for (size_t s = 0; s < spatial; ++s) {
        size_t d = 3 - spatial + s;  // unit dims go first: the flat indices stay those of the real rank
        in[d] = x[2 + s];
        filter[d] = w[2 + s];
        out[d] = y[2 + s];
        stride[d] = p.stride[s];
        pad[d] = p.pad[s];
        dilation[d] = p.dilation[s];
    }
    const int64_t batch = x[0], channels = x[1], outputs = w[0], per_group = w[1];
    const int64_t outputs_per_group = outputs / groups;
    for (int64_t n = 0; n < batch; ++n)
        for (int64_t k = 0; k < outputs; ++k) {
            const int64_t first_channel = (k / outputs_per_group) * per_group;
            for (int64_t o0 = 0; o0 < out[0]; ++o0)
                for (int64_t o1 = 0; o1 < out[1]; ++o1)
                    for (int64_t o2 = 0; o2 < out[2]; ++o2) {
                        const int64_t yi = (((n * outputs + k) * out[0] + o0) * out[1] + o1) * out[2] + o2;
                        for (int64_t c = 0; c < per_group; ++c)
                            for (int64_t f0 = 0; f0 < filter[0]; ++f0) {
                                const int64_t i0 = o0 * stride[0] - pad[0] + f0 * dilation[0];
                                if (i0 < 0 || i0 >= in[0]) continue;
                                for (int64_t f1 = 0; f1 < filter[1]; ++f1) {
                                    const int64_t i1 = o1 * stride[1] - pad[1] + f1 * dilation[1];
                                    if (i1 < 0 || i1 >= in[1]) continue;
                                    for (int64_t f2 = 0; f2 < filter[2]; ++f2) {
                                        const int64_t i2 = o2 * stride[2] - pad[2] + f2 * dilation[2];
                                        if (i2 < 0 || i2 >= in[2]) continue;
                                        const int64_t xi =
                                            (((n * channels + first_channel + c) * in[0] + i0) * in[1] + i1) * in[2] +
                                            i2;
                                        const int64_t wi =
                                            (((k * per_group + c) * filter[0] + f0) * filter[1] + f1) * filter[2] + f2;
                                        term(xi, wi, yi);
                                    }
                                }
                            }
                    }
        }
}

// y = conv(x, w)
inline std::vector<double> conv_fprop_reference(const Bound &x, const Bound &w, const std::vector<int64_t> &ydims,
                                                const ConvParams &p, int64_t groups) {
    std::vector<double> xv = logical(x), wv = logical(w), y(static_cast<size_t>(element_count(ydims)), 0.0);
    for_each_conv_term(x.dims, w.dims, ydims, p, groups,
                       [&](int64_t xi, int64_t wi, int64_t yi) { y[yi] += xv[xi] * wv[wi]; });
    return y;
}

// dx = d(sum dy * conv(x, w)) / dx
inline std::vector<double> conv_dgrad_reference(const Bound &dy, const Bound &w, const std::vector<int64_t> &xdims,
                                                const ConvParams &p, int64_t groups) {
    std::vector<double> dyv = logical(dy), wv = logical(w), dx(static_cast<size_t>(element_count(xdims)), 0.0);
    for_each_conv_term(xdims, w.dims, dy.dims, p, groups,
                       [&](int64_t xi, int64_t wi, int64_t yi) { dx[xi] += dyv[yi] * wv[wi]; });
    return dx;
}

// dw = d(sum dy * conv(x, w)) / dw
inline std::vector<double> conv_wgrad_reference(const Bound &x, const Bound &dy, const std::vector<int64_t> &wdims,
                                                const ConvParams &p, int64_t groups) {
    std::vector<double> xv = logical(x), dyv = logical(dy), dw(static_cast<size_t>(element_count(wdims)), 0.0);
    for_each_conv_term(x.dims, wdims, dy.dims, p, groups,
                       [&](int64_t xi, int64_t wi, int64_t yi) { dw[wi] += xv[xi] * dyv[yi]; });
    return dw;
}

}  // namespace cudnnfe_test
