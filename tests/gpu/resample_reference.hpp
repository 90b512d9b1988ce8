// CPU references of pooling, forward and backward, in double, written from the definitions:
// y[n, c, o...] = max or mean over the window at o * stride - pre_padding (padding positions
// count in the mean's divisor only with include-padding), and the gradients routed back the same
// way (max: to the window's maximum; mean: dy / divisor to every position of the window).
#pragma once

#include <limits>
#include <vector>

#include "gpu_support.hpp"

namespace cudnnfe_test {

struct PoolShape {
    std::vector<int64_t> window, stride, pre, post;
};

// Calls f(n, c, out_index, in_positions) for every output element, in row-major output order;
// in_positions are the window positions inside the image, and `total` the window's size.
template <typename F>
void for_each_window(const std::vector<int64_t> &xdims, const std::vector<int64_t> &ydims, const PoolShape &p,
                     F f) {
    size_t n_spatial = xdims.size() - 2;
    std::vector<int64_t> out(ydims.size(), 0);
    int64_t total = 1;
    for (size_t i = 0; i < n_spatial; ++i) total *= p.window[i];
    for (;;) {
        std::vector<std::vector<int64_t>> inside;
        std::vector<int64_t> w(n_spatial, 0);
        for (int64_t k = 0; k < total; ++k) {
            std::vector<int64_t> pos = {out[0], out[1]};
            bool ok = true;
            for (size_t i = 0; i < n_spatial; ++i) {
                int64_t at = out[i + 2] * p.stride[i] - p.pre[i] + w[i];
                if (at < 0 || at >= xdims[i + 2]) ok = false;
                pos.push_back(at);
            }
            if (ok) inside.push_back(pos);
            for (size_t i = n_spatial; i-- > 0;) {
                if (++w[i] < p.window[i]) break;
                w[i] = 0;
            }
        }
        f(out, inside, total);
        size_t d = out.size();
        while (d-- > 0) {
            if (++out[d] < ydims[d]) break;
            out[d] = 0;
        }
        if (d == static_cast<size_t>(-1)) return;
    }
}

inline std::vector<double> pool_forward_reference(const Bound &x, const std::vector<int64_t> &ydims,
                                                  fe_resample_mode mode, const PoolShape &p) {
    std::vector<double> y;
    for_each_window(x.dims, ydims, p, [&](const std::vector<int64_t> &, const std::vector<std::vector<int64_t>> &in,
                                          int64_t total) {
        if (mode == FE_RESAMPLE_MAXPOOL) {
            double m = -std::numeric_limits<double>::infinity();
            for (const auto &pos : in) m = std::max(m, static_cast<double>(x.at(pos)));
            y.push_back(m);
        } else {
            double s = 0;
            for (const auto &pos : in) s += x.at(pos);
            double divisor = mode == FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING ? static_cast<double>(total)
                                                                          : static_cast<double>(in.size());
            y.push_back(s / divisor);
        }
    });
    return y;
}

// dx in row-major order of x's dims.
inline std::vector<double> pool_backward_reference(const Bound &x, const Bound &dy, fe_resample_mode mode,
                                                   const PoolShape &p) {
    std::vector<int64_t> rowmajor(x.dims.size(), 1);
    for (size_t i = x.dims.size() - 1; i-- > 0;) rowmajor[i] = rowmajor[i + 1] * x.dims[i + 1];
    int64_t count = rowmajor[0] * x.dims[0];
    std::vector<double> dx(static_cast<size_t>(count), 0.0);
    auto flat = [&](const std::vector<int64_t> &pos) {
        int64_t o = 0;
        for (size_t i = 0; i < pos.size(); ++i) o += pos[i] * rowmajor[i];
        return static_cast<size_t>(o);
    };
    for_each_window(x.dims, dy.dims, p, [&](const std::vector<int64_t> &out,
                                            const std::vector<std::vector<int64_t>> &in, int64_t total) {
        double g = dy.at(out);
        if (mode == FE_RESAMPLE_MAXPOOL) {
            size_t best = 0;
            for (size_t k = 1; k < in.size(); ++k)
                if (x.at(in[k]) > x.at(in[best])) best = k;
            dx[flat(in[best])] += g;
        } else {
            double divisor = mode == FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING ? static_cast<double>(total)
                                                                          : static_cast<double>(in.size());
            for (const auto &pos : in) dx[flat(pos)] += g / divisor;
        }
    });
    return dx;
}

}  // namespace cudnnfe_test
