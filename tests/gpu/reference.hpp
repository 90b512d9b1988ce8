// CPU references in double, over logical (row-major) element order.
#pragma once

#include <cmath>
#include <vector>

#include "gpu_support.hpp"

namespace cudnnfe_test {

struct ConvParams {
    std::vector<int64_t> pad, stride, dilation;
};

// y[n,k,o...] = sum_c,r... x[n,c,o*s - p + r*d] * w[k,c,r...]; any spatial rank 1..3.
inline std::vector<double> conv_reference(const Bound &x, const Bound &w, const std::vector<int64_t> &ydims,
                                          const ConvParams &p) {
    size_t spatial = x.dims.size() - 2;
    int64_t total = 1;
    for (int64_t d : ydims) total *= d;
    std::vector<double> y(static_cast<size_t>(total), 0.0);
    std::vector<int64_t> yi(ydims.size(), 0), xi(x.dims.size()), wi(w.dims.size());
    int64_t filter = 1;
    for (size_t s = 0; s < spatial; ++s) filter *= w.dims[2 + s];
    for (int64_t e = 0; e < total; ++e) {
        double acc = 0;
        int64_t n = yi[0], k = yi[1];
        for (int64_t c = 0; c < x.dims[1]; ++c) {
            for (int64_t f = 0; f < filter; ++f) {
                int64_t rem = f;
                bool inside = true;
                for (size_t s = spatial; s-- > 0;) {
                    int64_t r = rem % w.dims[2 + s];
                    rem /= w.dims[2 + s];
                    wi[2 + s] = r;
                    int64_t pos = yi[2 + s] * p.stride[s] - p.pad[s] + r * p.dilation[s];
                    if (pos < 0 || pos >= x.dims[2 + s]) inside = false;
                    xi[2 + s] = pos;
                }
                if (!inside) continue;
                xi[0] = n;
                xi[1] = c;
                wi[0] = k;
                wi[1] = c;
                acc += static_cast<double>(x.at(xi)) * static_cast<double>(w.at(wi));
            }
        }
        y[static_cast<size_t>(e)] = acc;
        for (size_t d = yi.size(); d-- > 0;) {
            if (++yi[d] < ydims[d]) break;
            yi[d] = 0;
        }
    }
    return y;
}

// C[..., m, n] = sum_k A[..., m, k] B[..., k, n], batch dims broadcast.
inline std::vector<double> matmul_reference(const Bound &a, const Bound &b, const std::vector<int64_t> &cdims) {
    size_t rank = cdims.size();
    int64_t total = 1;
    for (int64_t d : cdims) total *= d;
    std::vector<double> c(static_cast<size_t>(total));
    std::vector<int64_t> ci(rank, 0), ai(rank), bi(rank);
    int64_t kdim = a.dims[rank - 1];
    for (int64_t e = 0; e < total; ++e) {
        for (size_t d = 0; d + 2 < rank; ++d) {
            ai[d] = a.dims[d] == 1 ? 0 : ci[d];
            bi[d] = b.dims[d] == 1 ? 0 : ci[d];
        }
        double acc = 0;
        for (int64_t k = 0; k < kdim; ++k) {
            ai[rank - 2] = ci[rank - 2];
            ai[rank - 1] = k;
            bi[rank - 2] = k;
            bi[rank - 1] = ci[rank - 1];
            acc += static_cast<double>(a.at(ai)) * static_cast<double>(b.at(bi));
        }
        c[static_cast<size_t>(e)] = acc;
        for (size_t d = rank; d-- > 0;) {
            if (++ci[d] < cdims[d]) break;
            ci[d] = 0;
        }
    }
    return c;
}

// Value of a (broadcast) operand at the logical index of a result of dims `out`.
inline double broadcast_at(const Bound &t, const std::vector<int64_t> &index) {
    std::vector<int64_t> i(index.size());
    for (size_t d = 0; d < index.size(); ++d) i[d] = t.dims[d] == 1 ? 0 : index[d];
    return t.at(i);
}

// Apply f elementwise over the logical elements of dims.
template <typename F>
std::vector<double> elementwise(const std::vector<int64_t> &dims, F f) {
    int64_t total = 1;
    for (int64_t d : dims) total *= d;
    std::vector<double> out(static_cast<size_t>(total));
    std::vector<int64_t> index(dims.size(), 0);
    for (int64_t e = 0; e < total; ++e) {
        out[static_cast<size_t>(e)] = f(index);
        for (size_t d = dims.size(); d-- > 0;) {
            if (++index[d] < dims[d]) break;
            index[d] = 0;
        }
    }
    return out;
}

inline double gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
inline double silu(double x) { return x / (1.0 + std::exp(-x)); }

}  // namespace cudnnfe_test
