// CPU references in double for every normalization family, and the fixture helpers the norm
// tests share. One formulation covers them all: the statistics have x's dims with the normalized
// dims set to 1, and scale/bias broadcast over x; the families differ only in those dims.
//
// Forward, over each statistics group of n elements:
//   layer-like: mean = sum(x) / n, var = sum((x - mean)^2) / n, inv = 1 / sqrt(var + eps),
//               xhat = (x - mean) * inv
//   rms:        inv = 1 / sqrt(sum(x^2) / n + eps), xhat = x * inv
//   y = xhat * gamma + beta, gamma = scale (or 1 + scale with zero-centred gamma)
// Backward, with g = dy * gamma and the group means <.> over the same n elements:
//   layer-like: dx = inv * (g - <g> - xhat * <g * xhat>)
//   rms:        dx = inv * (g - xhat * <g * xhat>)
//   (from d xhat_i / d x_j = inv * (delta_ij - 1/n - xhat_i xhat_j / n), the 1/n term absent
//   for rms), and dscale = sum(dy * xhat), dbias = sum(dy) over every element sharing the
//   scale's index.
#pragma once

#include <cmath>
#include <vector>

#include "reference.hpp"

namespace cudnnfe_test {

inline int64_t element_count(const std::vector<int64_t> &dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
}

// Row-major position of `index` in a tensor of `dims` that broadcasts (dims of 1 read index 0).
inline size_t broadcast_flat(const std::vector<int64_t> &dims, const std::vector<int64_t> &index) {
    int64_t flat = 0;
    for (size_t d = 0; d < dims.size(); ++d) flat = flat * dims[d] + (dims[d] == 1 ? 0 : index[d]);
    return static_cast<size_t>(flat);
}

// Call f(index) for every logical index of dims, in row-major order.
template <typename F>
void for_each_index(const std::vector<int64_t> &dims, F f) {
    std::vector<int64_t> index(dims.size(), 0);
    for (int64_t e = 0, total = element_count(dims); e < total; ++e) {
        f(index);
        for (size_t d = dims.size(); d-- > 0;) {
            if (++index[d] < dims[d]) break;
            index[d] = 0;
        }
    }
}

struct NormSpec {
    std::vector<int64_t> stats;  // x's dims with the normalized dims set to 1
    bool rms = false;
    bool zero_centered = false;
    double epsilon = 1e-5;
};

inline double gamma_at(const Bound &scale, const std::vector<int64_t> &index, const NormSpec &spec) {
    return broadcast_at(scale, index) + (spec.zero_centered ? 1.0 : 0.0);
}

struct NormForwardRef {
    std::vector<double> y, mean, var, inv;  // var: the population (biased) variance
    std::vector<int64_t> count;             // elements per statistics group
};

inline NormForwardRef norm_forward_reference(const Bound &x, const Bound &scale, const Bound *bias,
                                             const NormSpec &spec) {
    size_t groups = static_cast<size_t>(element_count(spec.stats));
    NormForwardRef r;
    r.mean.assign(groups, 0.0);
    r.var.assign(groups, 0.0);
    r.inv.assign(groups, 0.0);
    r.count.assign(groups, 0);
    for_each_index(x.dims, [&](const std::vector<int64_t> &i) {
        size_t g = broadcast_flat(spec.stats, i);
        r.mean[g] += x.at(i);
        ++r.count[g];
    });
    for (size_t g = 0; g < groups; ++g) r.mean[g] /= static_cast<double>(r.count[g]);
    for_each_index(x.dims, [&](const std::vector<int64_t> &i) {
        size_t g = broadcast_flat(spec.stats, i);
        double d = spec.rms ? x.at(i) : x.at(i) - r.mean[g];
        r.var[g] += d * d;
    });
    for (size_t g = 0; g < groups; ++g) {
        r.var[g] /= static_cast<double>(r.count[g]);
        r.inv[g] = 1.0 / std::sqrt(r.var[g] + spec.epsilon);
    }
    for_each_index(x.dims, [&](const std::vector<int64_t> &i) {
        size_t g = broadcast_flat(spec.stats, i);
        double xhat = ((spec.rms ? x.at(i) : x.at(i) - r.mean[g])) * r.inv[g];
        r.y.push_back(xhat * gamma_at(scale, i, spec) + (bias ? broadcast_at(*bias, i) : 0.0));
    });
    return r;
}

struct NormBackwardRef {
    std::vector<double> dx, dscale, dbias;
};

// mean is nullptr for rms. The statistics are read from the bound tensors, as the GPU reads them.
inline NormBackwardRef norm_backward_reference(const Bound &dy, const Bound &x, const Bound &scale, const Bound *mean,
                                               const Bound &inv, const NormSpec &spec) {
    size_t groups = static_cast<size_t>(element_count(spec.stats));
    std::vector<double> sum_g(groups, 0.0), sum_gx(groups, 0.0);
    std::vector<int64_t> count(groups, 0);
    auto xhat_at = [&](const std::vector<int64_t> &i) {
        double centered = spec.rms ? x.at(i) : x.at(i) - broadcast_at(*mean, i);
        return centered * broadcast_at(inv, i);
    };
    NormBackwardRef r;
    r.dscale.assign(static_cast<size_t>(element_count(scale.dims)), 0.0);
    r.dbias.assign(r.dscale.size(), 0.0);
    for_each_index(x.dims, [&](const std::vector<int64_t> &i) {
        size_t g = broadcast_flat(spec.stats, i);
        double xhat = xhat_at(i), grad = dy.at(i) * gamma_at(scale, i, spec);
        sum_g[g] += grad;
        sum_gx[g] += grad * xhat;
        ++count[g];
        size_t p = broadcast_flat(scale.dims, i);
        r.dscale[p] += dy.at(i) * xhat;
        r.dbias[p] += dy.at(i);
    });
    for_each_index(x.dims, [&](const std::vector<int64_t> &i) {
        size_t g = broadcast_flat(spec.stats, i);
        double n = static_cast<double>(count[g]);
        double grad = dy.at(i) * gamma_at(scale, i, spec);
        double centered_grad = spec.rms ? grad : grad - sum_g[g] / n;
        r.dx.push_back(broadcast_at(inv, i) * (centered_grad - xhat_at(i) * sum_gx[g] / n));
    });
    return r;
}

// Tolerances of a result written in `type` (its rounding dominates for half and bfloat16).
inline double norm_atol(fe_data_type t) { return atol_for(t); }
inline double norm_rtol(fe_data_type t) { return rtol_for(t); }

// The fixture of the norm tests: the gpu tier's, plus inputs with chosen values.
class NormGpu : public Gpu {
  protected:
    // Bind an input and upload `values` (logical row-major order), rounded to its type.
    Bound &bind_values(fe_tensor *t, const std::vector<double> &values) {
        Bound &b = bind(t, true);
        size_t e = 0;
        for_each_index(b.dims, [&](const std::vector<int64_t> &i) {
            b.host[static_cast<size_t>(b.offset(i))] = round_to(b.type, static_cast<float>(values[e++]));
        });
        EXPECT_FE_OK(fe_buffer_upload_float(b.buffer, b.host.data(), b.span(), b.type));
        return b;
    }

    fe_tensor *float_tensor(fe_graph *g, const char *name, std::vector<int64_t> dims, bool channels_last = false) {
        return tensor(g, name, dims, channels_last, FE_DATA_FLOAT);
    }

    static void set_outputs(std::initializer_list<fe_tensor *> tensors) {
        for (fe_tensor *t : tensors) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    }

    // Statistics are float and computed in float: close to the double reference.
    void expect_stats_close(const Bound &out, const std::vector<double> &ref) { expect_close(out, ref, 1e-3, 1e-3, 1e-4); }

    // A norm forward's downloaded y (written in `io`), mean and inverse variance against the
    // double reference of `spec` on the same x, scale and bias.
    void expect_forward_close(fe_data_type io, const NormSpec &spec, const Bound &bx, const Bound &bs, const Bound &bb,
                              const Bound &by, const Bound &bm, const Bound &bi) {
        NormForwardRef ref = norm_forward_reference(bx, bs, &bb, spec);
        expect_close(by, ref.y, norm_atol(io), norm_rtol(io), norm_for(io));
        expect_stats_close(bm, ref.mean);
        expect_stats_close(bi, ref.inv);
    }

    // Runs a built norm backward graph (I/O type `io`) on random x, dy and scale and the mean and
    // inverse variance its forward computes (of `stats` dims), and checks dx, dscale and dbias
    // against the double reference.
    void check_backward(fe_graph *g, fe_data_type io, const std::vector<int64_t> &stats, fe_tensor *x, fe_tensor *dy,
                        fe_tensor *s, fe_tensor *m, fe_tensor *v, fe_tensor *dx, fe_tensor *ds, fe_tensor *db) {
        Bound &bx = bind(x, true, -1, 3), &bdy = bind(dy, true, -1, 1), &bs = bind(s, true, 0.5f, 1.5f);
        NormSpec spec;
        spec.stats = stats;
        NormForwardRef fwd = norm_forward_reference(bx, bs, nullptr, spec);
        Bound &bm = bind_values(m, fwd.mean), &bv = bind_values(v, fwd.inv);
        Bound &bdx = bind(dx, false), &bds = bind(ds, false), &bdb = bind(db, false);
        execute(g, {&bx, &bdy, &bs, &bm, &bv, &bdx, &bds, &bdb});
        for (Bound *out : {&bdx, &bds, &bdb}) download(*out);
        NormBackwardRef ref = norm_backward_reference(bdy, bx, bs, &bm, bv, spec);
        expect_close(bdx, ref.dx, norm_atol(io), norm_rtol(io), norm_for(io));
        expect_close(bds, ref.dscale, 2e-2, 1e-2, 2e-3);
        expect_close(bdb, ref.dbias, 2e-2, 1e-2, 2e-3);
    }
};

}  // namespace cudnnfe_test
