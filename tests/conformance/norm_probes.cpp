// Probes of the capability table's norm, batchnorm-fusion, resampling and MoE entries: each
// builds the one configuration its entry refuses or reports no engine for, and checks every
// output against a double reference on the CPU (as the norm, resample and moe families check
// their cases).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "dims.hpp"
#include "norm_checks.hpp"
#include "probes.hpp"

namespace conformance {
namespace {

Dims packed_strides(const Dims &dims) {
    std::vector<size_t> order(dims.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    return strides_in_order(dims, order, {});
}

// [N, C, spatial...] with C innermost (NHWC, NDHWC).
Dims channels_last_strides(const Dims &dims) {
    std::vector<size_t> order = {0};
    for (size_t i = 2; i < dims.size(); ++i) order.push_back(i);
    order.push_back(1);
    return strides_in_order(dims, order, {});
}

// A bound tensor read at a larger tensor's index, broadcasting over its dims of 1.
double read(const Bound &b, const Dims &index) {
    int64_t o = 0;
    for (size_t d = 0; d < index.size(); ++d) o += (b.dims[d] == 1 ? 0 : index[d]) * b.strides[d];
    return b.host[static_cast<size_t>(o)];
}

// Tolerances of a value written in type t (the norm family's).
double atol_for(fe_data_type t) { return t == FE_DATA_FLOAT ? 2e-3 : t == FE_DATA_HALF ? 2e-2 : 3e-2; }
double rtol_for(fe_data_type t) { return t == FE_DATA_FLOAT ? 2e-3 : 2e-2; }
double norm_for(fe_data_type t) { return t == FE_DATA_FLOAT ? 5e-4 : t == FE_DATA_HALF ? 5e-3 : 1.5e-2; }

void check_stats(Case &k, const char *what, const Bound &out, const std::vector<double> &ref) {
    k.check(what, out, ref, 1e-3, 1e-3, 1e-3);
}

// ---------------------------------------------------------------------------------------------
// Layer-like norms over rows x [rows..., d] (the last dim normalized).

struct RowStats {
    std::vector<double> mean, inv;
};

// Per row of x (all dims but the last): mean and 1 / sqrt(var + eps) (rms: mean of squares).
RowStats row_stats(const std::vector<double> &x, int64_t d, bool rms, double epsilon) {
    RowStats s;
    const size_t rows = x.size() / static_cast<size_t>(d);
    for (size_t r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        for (int64_t j = 0; j < d; ++j) mean += x[r * static_cast<size_t>(d) + static_cast<size_t>(j)];
        mean /= static_cast<double>(d);
        for (int64_t j = 0; j < d; ++j) {
            double v = x[r * static_cast<size_t>(d) + static_cast<size_t>(j)] - (rms ? 0.0 : mean);
            var += v * v;
        }
        var /= static_cast<double>(d);
        s.mean.push_back(mean);
        s.inv.push_back(1.0 / std::sqrt(var + epsilon));
    }
    return s;
}

// Layernorm or rmsnorm backward over x [1, d] (one row), dx, dscale and (layernorm) dbias.
void single_row_backward(Case &k, bool rms) {
    const int64_t d = 1024;
    const fe_data_type type = FE_DATA_BFLOAT16;
    const Dims xd = {1, d}, sd = {1, d}, st = {1, 1};
    k.describe(std::string(rms ? "rmsnorm" : "layernorm") +
               " backward bf16 params=fp32 x=[1,1024] scale=[1,1024] stats=[1,1]" + (rms ? " no_dbias" : ""));
    if (!k.graph(type)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.tensor("x", xd, packed_strides(xd)), *dy = k.tensor("dy", xd, packed_strides(xd));
    fe_tensor *scale = k.tensor("scale", sd, packed_strides(sd), FE_DATA_FLOAT);
    fe_tensor *mean = rms ? nullptr : k.tensor("mean", st, packed_strides(st), FE_DATA_FLOAT);
    fe_tensor *inv = k.tensor(rms ? "inv_rms" : "inv_variance", st, packed_strides(st), FE_DATA_FLOAT);
    if (!x || !dy || !scale || (!rms && !mean) || !inv) return;
    fe_tensor *dx = nullptr, *dscale = nullptr, *dbias = nullptr;
    fe_norm_backward_options bo = FE_NORM_BACKWARD_OPTIONS_INIT;
    if (rms) {
        if (!k.ok(fe_graph_rmsnorm_backward(g, dy, x, scale, inv, &bo, &dx, &dscale, nullptr), "fe_graph_rmsnorm_backward"))
            return;
    } else if (!k.ok(fe_graph_layernorm_backward(g, dy, x, scale, mean, inv, &bo, &dx, &dscale, &dbias),
                     "fe_graph_layernorm_backward")) {
        return;
    }
    for (fe_tensor *t : {dx, dscale, dbias})
        if (t && !k.ok(fe_tensor_set_output(t, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;

    Bound &bx = k.input(x, -1.f, 2.f), &bdy = k.input(dy, -1.f, 1.f), &bs = k.input(scale, 0.5f, 1.5f);
    std::vector<double> xv = logical(bx);
    RowStats s = row_stats(xv, d, rms, 1e-5);
    Bound *bm = mean ? &k.input_values(mean, {static_cast<float>(s.mean[0])}) : nullptr;
    Bound &bi = k.input_values(inv, {static_cast<float>(s.inv[0])});
    Bound &bdx = k.output(dx), &bds = k.output(dscale);
    Bound *bdb = dbias ? &k.output(dbias) : nullptr;
    if (!k.execute()) return;

    // g = dy * scale; dx = inv * (g - <g> - xhat * <g * xhat>) (rms: without <g>);
    // dscale = dy * xhat, dbias = dy (one row: nothing to sum).
    const double m = bm ? bm->host[0] : 0.0, iv = bi.host[0];
    double sum_g = 0, sum_gx = 0;
    std::vector<double> xhat(static_cast<size_t>(d)), grad(static_cast<size_t>(d));
    std::vector<double> ref_ds, ref_db, mag_ds, mag_db;
    for (int64_t j = 0; j < d; ++j) {
        size_t e = static_cast<size_t>(j);
        xhat[e] = (xv[e] - m) * iv;
        grad[e] = bdy.at({0, j}) * bs.at({0, j});
        sum_g += grad[e];
        sum_gx += grad[e] * xhat[e];
        ref_ds.push_back(bdy.at({0, j}) * xhat[e]);
        ref_db.push_back(bdy.at({0, j}));
        mag_ds.push_back(std::fabs(ref_ds.back()));
        mag_db.push_back(std::fabs(ref_db.back()));
    }
    std::vector<double> ref_dx;
    for (size_t e = 0; e < static_cast<size_t>(d); ++e)
        ref_dx.push_back(iv * ((rms ? grad[e] : grad[e] - sum_g / static_cast<double>(d)) -
                               xhat[e] * sum_gx / static_cast<double>(d)));
    k.check("dx", bdx, ref_dx, atol_for(type), rtol_for(type), norm_for(type));
    check_norm_sums(k, "dscale", bds, ref_ds, mag_ds);
    if (bdb) check_norm_sums(k, "dbias", *bdb, ref_db, mag_db);
}

// Adaptive layernorm with zero-centred gamma: adalayernorm does not offer the option, so the
// (1 + scale) is written as the library lowers it for layernorm and rmsnorm: a float pointwise
// add of a by-value 1 to the per-sample scale, feeding the norm's scale in the same graph.
// x [2, 128, 256] bf16, scale and bias [2, 1, 256] float; forward (training) or backward.
void ada_zero_centered(Case &k, bool backward) {
    const int64_t b = 2, s = 128, d = 256;
    const fe_data_type type = FE_DATA_BFLOAT16;
    const Dims xd = {b, s, d}, sd = {b, 1, d}, st = {b, s, 1};
    k.describe(std::string("adalayernorm ") + (backward ? "backward" : "training") +
               " bf16 params=fp32 x=[2,128,256] scale=[2,1,256] zero_centered_gamma (scale + 1 by a pointwise add "
               "in the graph)" + (backward ? " dbias" : " bias"));
    if (!k.graph(type)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.tensor("x", xd, packed_strides(xd));
    fe_tensor *scale = k.tensor("scale", sd, packed_strides(sd), FE_DATA_FLOAT);
    fe_tensor *one = nullptr, *gamma = nullptr;
    if (!x || !scale || !k.ok(fe_graph_scalar(g, "one", 1.0, FE_DATA_FLOAT, &one), "fe_graph_scalar")) return;
    fe_pointwise_options po = FE_POINTWISE_OPTIONS_INIT;
    po.compute_data_type = FE_DATA_FLOAT;
    if (!k.ok(fe_graph_add(g, scale, one, &po, &gamma), "fe_graph_add")) return;
    if (!k.ok(fe_tensor_set_data_type(gamma, FE_DATA_FLOAT), "fe_tensor_set_data_type")) return;

    if (!backward) {
        fe_tensor *bias = k.tensor("bias", sd, packed_strides(sd), FE_DATA_FLOAT);
        if (!bias) return;
        fe_norm_options o = FE_NORM_OPTIONS_INIT;
        o.phase = FE_NORM_PHASE_TRAINING;
        fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr;
        if (!k.ok(fe_graph_adalayernorm(g, x, gamma, bias, &o, &y, &mean, &inv), "fe_graph_adalayernorm")) return;
        for (fe_tensor *t : {y, mean, inv})
            if (!k.ok(fe_tensor_set_output(t, 1), "fe_tensor_set_output")) return;
        if (!k.build()) return;
        Bound &bx = k.input(x, -1.f, 2.f), &bs = k.input(scale, -0.5f, 0.5f), &bb = k.input(bias, -1.f, 1.f);
        Bound &by = k.output(y), &bm = k.output(mean), &bi = k.output(inv);
        if (!k.execute()) return;
        std::vector<double> xv = logical(bx);
        RowStats rs = row_stats(xv, d, false, 1e-5);
        std::vector<double> ref;
        size_t e = 0;
        for_each_index(xd, [&](const Dims &i) {
            size_t r = e / static_cast<size_t>(d);
            double xhat = (xv[e++] - rs.mean[r]) * rs.inv[r];
            ref.push_back(xhat * (read(bs, i) + 1.0) + read(bb, i));
        });
        k.check("y", by, ref, atol_for(type), rtol_for(type), norm_for(type));
        check_stats(k, "mean", bm, rs.mean);
        check_stats(k, "inv_variance", bi, rs.inv);
        return;
    }

    fe_tensor *dy = k.tensor("dy", xd, packed_strides(xd));
    fe_tensor *mean = k.tensor("mean", st, packed_strides(st), FE_DATA_FLOAT);
    fe_tensor *inv = k.tensor("inv_variance", st, packed_strides(st), FE_DATA_FLOAT);
    if (!dy || !mean || !inv) return;
    fe_norm_backward_options bo = FE_NORM_BACKWARD_OPTIONS_INIT;
    fe_tensor *dx = nullptr, *dscale = nullptr, *dbias = nullptr;
    if (!k.ok(fe_graph_adalayernorm_backward(g, dy, x, gamma, mean, inv, &bo, &dx, &dscale, &dbias),
              "fe_graph_adalayernorm_backward"))
        return;
    for (fe_tensor *t : {dx, dscale, dbias})
        if (!k.ok(fe_tensor_set_output(t, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;
    Bound &bx = k.input(x, -1.f, 2.f), &bs = k.input(scale, -0.5f, 0.5f), &bdy = k.input(dy, -1.f, 1.f);
    std::vector<double> xv = logical(bx);
    RowStats rs = row_stats(xv, d, false, 1e-5);
    Bound &bm = k.input_values(mean, std::vector<float>(rs.mean.begin(), rs.mean.end()));
    Bound &bi = k.input_values(inv, std::vector<float>(rs.inv.begin(), rs.inv.end()));
    Bound &bdx = k.output(dx), &bds = k.output(dscale), &bdb = k.output(dbias);
    if (!k.execute()) return;
    // Per row: g = dy * (1 + scale[b]); dx = inv * (g - <g> - xhat * <g * xhat>); per sample b:
    // dscale[b] = sum over s of dy * xhat, dbias[b] = sum over s of dy.
    const size_t rows = static_cast<size_t>(b * s), params = static_cast<size_t>(b * d);
    std::vector<double> sum_g(rows, 0.0), sum_gx(rows, 0.0), ref_ds(params, 0.0), ref_db(params, 0.0);
    std::vector<double> mag_ds(params, 0.0), mag_db(params, 0.0), xhat(xv.size()), grad(xv.size());
    size_t e = 0;
    for_each_index(xd, [&](const Dims &i) {
        size_t r = e / static_cast<size_t>(d), p = static_cast<size_t>(i[0] * d + i[2]);
        xhat[e] = (xv[e] - bm.host[r]) * bi.host[r];
        double dyv = bdy.at(i);
        grad[e] = dyv * (read(bs, i) + 1.0);
        sum_g[r] += grad[e];
        sum_gx[r] += grad[e] * xhat[e];
        ref_ds[p] += dyv * xhat[e];
        ref_db[p] += dyv;
        mag_ds[p] += std::fabs(dyv * xhat[e]);
        mag_db[p] += std::fabs(dyv);
        ++e;
    });
    std::vector<double> ref_dx;
    for (e = 0; e < xv.size(); ++e) {
        size_t r = e / static_cast<size_t>(d);
        ref_dx.push_back(bi.host[r] * (grad[e] - sum_g[r] / d - xhat[e] * sum_gx[r] / d));
    }
    k.check("dx", bdx, ref_dx, atol_for(type), rtol_for(type), norm_for(type));
    check_norm_sums(k, "dscale", bds, ref_ds, mag_ds);
    check_norm_sums(k, "dbias", bdb, ref_db, mag_db);
}

// bf16 layernorm (inference) whose Y stays virtual and feeds a relu: x [256, 1024], scale and
// bias [1, 1024] float; the relu's result the one output.
void norm_relu(Case &k) {
    const int64_t rows = 256, d = 1024;
    const fe_data_type type = FE_DATA_BFLOAT16;
    const Dims xd = {rows, d}, sd = {1, d};
    k.describe("layernorm inference bf16 params=fp32 x=[256,1024] scale=[1,1024] y virtual -> relu (output)");
    if (!k.graph(type)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.tensor("x", xd, packed_strides(xd));
    fe_tensor *scale = k.tensor("scale", sd, packed_strides(sd), FE_DATA_FLOAT);
    fe_tensor *bias = k.tensor("bias", sd, packed_strides(sd), FE_DATA_FLOAT);
    if (!x || !scale || !bias) return;
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    fe_tensor *y = nullptr, *out = nullptr;
    if (!k.ok(fe_graph_layernorm(g, x, scale, bias, &o, &y, nullptr, nullptr), "fe_graph_layernorm")) return;
    if (!k.ok(fe_graph_relu(g, y, nullptr, &out), "fe_graph_relu")) return;
    if (!k.ok(fe_tensor_set_output(out, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;
    Bound &bx = k.input(x, -1.f, 2.f), &bs = k.input(scale, 0.5f, 1.5f), &bb = k.input(bias, -1.f, 1.f);
    Bound &bo = k.output(out);
    if (!k.execute()) return;
    std::vector<double> xv = logical(bx);
    RowStats rs = row_stats(xv, d, false, 1e-5);
    std::vector<double> ref;
    size_t e = 0;
    for_each_index(xd, [&](const Dims &i) {
        size_t r = e / static_cast<size_t>(d);
        double yv = (xv[e++] - rs.mean[r]) * rs.inv[r] * read(bs, i) + read(bb, i);
        ref.push_back(std::max(0.0, yv));
    });
    k.check("relu(y)", bo, ref, atol_for(type), rtol_for(type), norm_for(type));
}

// rmsnorm inference of x [1, 77, 768] laid out [B, D, S] (strides [59136, 1, 77]) with a
// row-major scale: the conformance run's case.
void rmsnorm_transposed(Case &k) {
    const int64_t rows = 77, d = 768;
    const fe_data_type type = FE_DATA_FLOAT;
    const Dims xd = {1, rows, d}, xs = {rows * d, 1, rows};
    k.describe("rmsnorm inference fp32 x=[1,77,768]/[59136,1,77] scale=[1,77,768] row-major y like x");
    if (!k.graph(type)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.tensor("x", xd, xs);
    fe_tensor *scale = k.tensor("scale", xd, packed_strides(xd), FE_DATA_FLOAT);
    if (!x || !scale) return;
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    fe_tensor *y = nullptr;
    if (!k.ok(fe_graph_rmsnorm(g, x, scale, nullptr, &o, &y, nullptr), "fe_graph_rmsnorm")) return;
    if (!k.ok(fe_tensor_set_strides(y, 3, xs.data()), "fe_tensor_set_strides")) return;
    if (!k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;
    Bound &bx = k.input(x, -1.f, 2.f), &bs = k.input(scale, 0.5f, 1.5f);
    Bound &by = k.output(y);
    if (!k.execute()) return;
    std::vector<double> xv = logical(bx), sv = logical(bs);
    // The whole [77, 768] sample is normalized: one RMS per batch element.
    double sum2 = 0;
    for (double v : xv) sum2 += v * v;
    const double inv = 1.0 / std::sqrt(sum2 / static_cast<double>(xv.size()) + 1e-5);
    std::vector<double> ref(xv.size());
    for (size_t e = 0; e < xv.size(); ++e) ref[e] = xv[e] * inv * sv[e];
    k.check("y", by, ref, atol_for(type), rtol_for(type), norm_for(type));
}

// ---------------------------------------------------------------------------------------------
// Batchnorm's pieces: genstats and dbn_weight, alone and in the ResNet backward block.

// genstats alone over x [4, 32, 16, 16] fp16 NHWC: per-channel sum and sum of squares.
void genstats_alone(Case &k) {
    const Dims xd = {4, 32, 16, 16};
    k.describe("genstats alone fp16 x=[4,32,16,16] channels-last sum,sq_sum float [1,32,1,1]");
    if (!k.graph(FE_DATA_HALF)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.tensor("x", xd, channels_last_strides(xd));
    if (!x) return;
    fe_tensor *sum = nullptr, *sq = nullptr;
    if (!k.ok(fe_graph_genstats(g, x, nullptr, &sum, &sq), "fe_graph_genstats")) return;
    for (fe_tensor *t : {sum, sq})
        if (!k.ok(fe_tensor_set_output(t, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;
    Bound &bx = k.input(x, -2.f, 2.f);
    Bound &bsum = k.output(sum), &bsq = k.output(sq);
    if (!k.execute()) return;
    const size_t channels = static_cast<size_t>(xd[1]);
    std::vector<double> ref_sum(channels, 0.0), ref_sq(channels, 0.0), mag_sum(channels, 0.0);
    for_each_index(xd, [&](const Dims &i) {
        double v = bx.at(i);
        size_t c = static_cast<size_t>(i[1]);
        ref_sum[c] += v;
        ref_sq[c] += v * v;
        mag_sum[c] += std::fabs(v);
    });
    check_norm_sums(k, "sum", bsum, ref_sum, mag_sum);
    check_norm_sums(k, "sq_sum", bsq, ref_sq, ref_sq);
}

// Per-channel dbn_weight results from dy (logical values) and x, over M = N x spatial values.
struct DbnRef {
    std::vector<double> dscale, dbias, eq_dy, eq_x, eq_bias;
};

DbnRef dbn_reference(const Dims &xd, const std::vector<double> &dy, const Bound &x, const Bound &mean,
                     const Bound &inv, const Bound &scale) {
    const size_t channels = static_cast<size_t>(xd[1]);
    const double count = static_cast<double>(product(xd) / xd[1]);
    DbnRef r;
    r.dscale.assign(channels, 0.0);
    r.dbias.assign(channels, 0.0);
    size_t e = 0;
    for_each_index(xd, [&](const Dims &i) {
        size_t c = static_cast<size_t>(i[1]);
        double xhat = (x.at(i) - read(mean, i)) * read(inv, i);
        r.dbias[c] += dy[e];
        r.dscale[c] += dy[e++] * xhat;
    });
    for (size_t c = 0; c < channels; ++c) {
        Dims i = {0, static_cast<int64_t>(c), 0, 0};
        double s = read(scale, i), iv = read(inv, i), m = read(mean, i);
        r.eq_dy.push_back(s * iv);
        r.eq_x.push_back(-s * iv * iv * r.dscale[c] / count);
        r.eq_bias.push_back(s * iv * (iv * r.dscale[c] * m - r.dbias[c]) / count);
    }
    return r;
}

// Sums of many half-rounded terms of either sign: tolerances relative to the largest value (the
// GPU suite's dgrad + drelu + dbn_weight test).
void check_channels(Case &k, const char *what, const Bound &out, const std::vector<double> &ref) {
    double largest = 0;
    for (double r : ref) largest = std::max(largest, std::fabs(r));
    k.check(what, out, ref, 1e-2 * largest, 1e-2, 1e-2);
}

void check_dbn(Case &k, const DbnRef &r, Bound *const out[5]) {
    check_channels(k, "dscale", *out[0], r.dscale);
    check_channels(k, "dbias", *out[1], r.dbias);
    check_channels(k, "eq_scale_dy", *out[2], r.eq_dy);
    check_channels(k, "eq_scale_x", *out[3], r.eq_x);
    check_channels(k, "eq_bias", *out[4], r.eq_bias);
}

// dbn_weight alone (dy a graph input): fp16 NHWC dy and x [4, 32, 16, 16], float mean,
// inv_variance and scale [1, 32, 1, 1].
void dbn_weight_alone(Case &k) {
    const Dims xd = {4, 32, 16, 16}, cd = {1, 32, 1, 1};
    k.describe("dbn_weight alone fp16 dy,x=[4,32,16,16] channels-last mean,inv_variance,scale float [1,32,1,1]");
    if (!k.graph(FE_DATA_HALF)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *dy = k.tensor("dy", xd, channels_last_strides(xd)), *x = k.tensor("x", xd, channels_last_strides(xd));
    fe_tensor *m = k.tensor("mean", cd, channels_last_strides(cd), FE_DATA_FLOAT);
    fe_tensor *v = k.tensor("inv_variance", cd, channels_last_strides(cd), FE_DATA_FLOAT);
    fe_tensor *s = k.tensor("scale", cd, channels_last_strides(cd), FE_DATA_FLOAT);
    if (!dy || !x || !m || !v || !s) return;
    fe_tensor *out[5] = {};
    if (!k.ok(fe_graph_dbn_weight(g, dy, x, m, v, s, nullptr, &out[0], &out[1], &out[2], &out[3], &out[4]),
              "fe_graph_dbn_weight"))
        return;
    for (fe_tensor *t : out)
        if (!k.ok(fe_tensor_set_output(t, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;
    Bound &bdy = k.input(dy, -1.f, 1.f), &bx = k.input(x, -2.f, 2.f), &bm = k.input(m, -0.5f, 0.5f);
    Bound &bv = k.input(v, 0.5f, 2.f), &bs = k.input(s, 0.5f, 1.5f);
    Bound *bout[5];
    for (int i = 0; i < 5; ++i) bout[i] = &k.output(out[i]);
    if (!k.execute()) return;
    check_dbn(k, dbn_reference(xd, logical(bdy), bx, bm, bv, bs), bout);
}

// The ResNet backward block (the reference frontend's "Dgrad Drelu DBNweight" sample): dx_pre =
// dgrad(dy, w) (3x3, pad 1), drelu = dx_pre where the recomputed batchnorm output
// (x - mean) * inv_var * scale + bias is positive, then dbn_weight(drelu, x, mean, inv_var,
// scale). fp16, every image-shaped tensor channels-last.
void dgrad_drelu_dbn_weight(Case &k) {
    const Dims dyd = {4, 64, 16, 16}, wd = {64, 32, 3, 3}, xd = {4, 32, 16, 16}, cd = {1, 32, 1, 1};
    k.describe("dgrad(dy [4,64,16,16], w [64,32,3,3], pad 1) -> relu backward against (x - mean) * inv_var * "
               "scale + bias -> dbn_weight, fp16 channels-last, float per-channel tensors; drelu and the 5 "
               "dbn_weight results as outputs");
    if (!k.graph(FE_DATA_HALF)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *dy = k.tensor("dy", dyd, channels_last_strides(dyd)), *w = k.tensor("w", wd, channels_last_strides(wd));
    fe_tensor *x = k.tensor("x", xd, channels_last_strides(xd));
    fe_tensor *m = k.tensor("mean", cd, channels_last_strides(cd), FE_DATA_FLOAT);
    fe_tensor *v = k.tensor("inv_var", cd, channels_last_strides(cd), FE_DATA_FLOAT);
    fe_tensor *s = k.tensor("scale", cd, channels_last_strides(cd), FE_DATA_FLOAT);
    fe_tensor *b = k.tensor("bias", cd, channels_last_strides(cd), FE_DATA_FLOAT);
    if (!dy || !w || !x || !m || !v || !s || !b) return;
    fe_conv_options co = FE_CONV_OPTIONS_INIT;
    const int64_t pad[2] = {1, 1};
    if (!k.ok(fe_conv_options_set_padding(&co, 2, pad), "fe_conv_options_set_padding")) return;
    fe_tensor *dx_pre = nullptr, *centered = nullptr, *normalized = nullptr, *scaled = nullptr, *y = nullptr;
    fe_tensor *drelu = nullptr, *out[5] = {};
    if (!k.ok(fe_graph_conv_dgrad(g, dy, w, xd.size(), xd.data(), &co, &dx_pre), "fe_graph_conv_dgrad") ||
        !k.ok(fe_graph_pointwise(g, FE_POINTWISE_SUB, x, m, nullptr, nullptr, &centered), "fe_graph_pointwise") ||
        !k.ok(fe_graph_mul(g, centered, v, nullptr, &normalized), "fe_graph_mul") ||
        !k.ok(fe_graph_mul(g, normalized, s, nullptr, &scaled), "fe_graph_mul") ||
        !k.ok(fe_graph_add(g, scaled, b, nullptr, &y), "fe_graph_add") ||
        !k.ok(fe_graph_pointwise(g, FE_POINTWISE_RELU_BWD, dx_pre, y, nullptr, nullptr, &drelu), "fe_graph_pointwise") ||
        !k.ok(fe_graph_dbn_weight(g, drelu, x, m, v, s, nullptr, &out[0], &out[1], &out[2], &out[3], &out[4]),
              "fe_graph_dbn_weight"))
        return;
    if (!k.ok(fe_tensor_set_output(drelu, 1), "fe_tensor_set_output")) return;
    for (fe_tensor *t : out)
        if (!k.ok(fe_tensor_set_output(t, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;
    Bound &bdy = k.input(dy, -1.f, 1.f), &bw = k.input(w, -1.f, 1.f), &bx = k.input(x, -2.f, 2.f);
    Bound &bm = k.input(m, -0.5f, 0.5f), &bv = k.input(v, 0.5f, 2.f), &bs = k.input(s, 0.5f, 1.5f);
    Bound &bb = k.input(b, -1.f, 1.f);
    Bound &bdrelu = k.output(drelu);
    Bound *bout[5];
    for (int i = 0; i < 5; ++i) bout[i] = &k.output(out[i]);
    if (!k.execute()) return;

    // dgrad of the 3x3 pad-1 correlation: x[h, w] met dy[h + 1 - r, w + 1 - t] through w[r, t].
    // Within 1e-4 of zero the GPU's float recomputation of the batchnorm output may fall on
    // either side: its choice is taken there.
    std::vector<double> ref_drelu;
    for_each_index(xd, [&](const Dims &i) {
        double bn = (bx.at(i) - read(bm, i)) * read(bv, i) * read(bs, i) + read(bb, i);
        double passed = 0;
        for (int64_t kk = 0; kk < dyd[1]; ++kk)
            for (int64_t r = 0; r < 3; ++r)
                for (int64_t t = 0; t < 3; ++t) {
                    int64_t h = i[2] + 1 - r, ww = i[3] + 1 - t;
                    if (h < 0 || h >= dyd[2] || ww < 0 || ww >= dyd[3]) continue;
                    passed += static_cast<double>(bdy.at({i[0], kk, h, ww})) * bw.at({kk, i[1], r, t});
                }
        if (std::fabs(bn) < 1e-4) ref_drelu.push_back(bdrelu.at(i) == 0.0f ? 0.0 : passed);
        else ref_drelu.push_back(bn > 0 ? passed : 0.0);
    });
    k.check("drelu", bdrelu, ref_drelu, atol_for(FE_DATA_HALF), rtol_for(FE_DATA_HALF), 2e-2);
    check_dbn(k, dbn_reference(xd, ref_drelu, bx, bm, bv, bs), bout);
}

// ---------------------------------------------------------------------------------------------
// Resampling over 2-D images [N, C, H, W]: the same window, stride and padding in both dims.

struct Pool {
    fe_resample_mode mode = FE_RESAMPLE_MAXPOOL;
    int64_t window = 0, stride = 1, pre = 0, post = 0;  // upsampling: stride is the factor
};

bool is_pool(const Pool &p) { return p.mode != FE_RESAMPLE_NEAREST && p.mode != FE_RESAMPLE_BILINEAR; }

Dims pooled_dims(const Pool &p, const Dims &x) {
    Dims y = x;
    for (size_t i = 2; i < 4; ++i)
        y[i] = is_pool(p) ? (x[i] + p.pre + p.post - p.window) / p.stride + 1 : x[i] * p.stride;
    return y;
}

void set_pool(const Pool &p, fe_resample_options &o) {
    o.mode = p.mode;
    for (size_t i = 0; i < 2; ++i) {
        o.window[i] = p.window;
        o.stride[i] = p.stride;
        o.pre_padding[i] = p.pre;
        o.post_padding[i] = p.post;
    }
}

// One input of an output element: x's element at row-major position src (-1: the padding) and
// its place in the window, row-major over the window's dims, padded positions counted.
struct Tap {
    int64_t src;
    int64_t place;
};

// The taps of output o (n, c, oh, ow) of x's dims, and the divisor of an average.
std::vector<Tap> taps_of(const Pool &p, const Dims &x, const Dims &o, double *divisor) {
    std::vector<Tap> taps;
    if (p.mode == FE_RESAMPLE_NEAREST) {
        int64_t h = o[2] / p.stride, w = o[3] / p.stride;
        taps.push_back({((o[0] * x[1] + o[1]) * x[2] + h) * x[3] + w, 0});
        *divisor = 1;
        return taps;
    }
    int64_t inside = 0;
    for (int64_t r = 0; r < p.window; ++r)
        for (int64_t t = 0; t < p.window; ++t) {
            int64_t h = o[2] * p.stride - p.pre + r, w = o[3] * p.stride - p.pre + t;
            bool in = h >= 0 && h < x[2] && w >= 0 && w < x[3];
            inside += in;
            taps.push_back({in ? ((o[0] * x[1] + o[1]) * x[2] + h) * x[3] + w : -1, r * p.window + t});
        }
    *divisor = p.mode == FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING ? static_cast<double>(inside)
                                                             : static_cast<double>(p.window * p.window);
    return taps;
}

// The forward in double over x's logical values: y; for max pooling the winning tap (first of
// equal maxima; padding is -inf), whether the maximum is tied (the index is then ambiguous) and
// whether it is tied between different elements of x.
struct PoolForward {
    std::vector<double> y;
    std::vector<Tap> best;
    std::vector<char> tied;
};

PoolForward pool_forward(const Pool &p, const Dims &x, const std::vector<double> &xv) {
    PoolForward f;
    const double minus_inf = -std::numeric_limits<double>::infinity();
    for_each_index(pooled_dims(p, x), [&](const Dims &o) {
        double divisor = 1;
        std::vector<Tap> taps = taps_of(p, x, o, &divisor);
        auto value = [&](const Tap &t) { return t.src >= 0 ? xv[static_cast<size_t>(t.src)] : minus_inf; };
        if (p.mode == FE_RESAMPLE_MAXPOOL) {
            size_t best = 0;
            for (size_t i = 1; i < taps.size(); ++i)
                if (value(taps[i]) > value(taps[best])) best = i;
            bool tied = false;
            for (size_t i = 0; i < taps.size(); ++i)
                if (i != best && value(taps[i]) == value(taps[best])) tied = true;
            f.y.push_back(value(taps[best]));
            f.best.push_back(taps[best]);
            f.tied.push_back(tied);
        } else {
            double acc = 0;
            for (const Tap &t : taps)
                if (t.src >= 0) acc += xv[static_cast<size_t>(t.src)];
            f.y.push_back(acc / divisor);
        }
    });
    return f;
}

// Averages and interpolations round once (the resample family's tolerances).
double pool_atol(fe_data_type t) { return t == FE_DATA_FLOAT ? 1e-5 : t == FE_DATA_HALF ? 1e-3 : 8e-3; }

// A forward resample of x (dims, strides) and its check: y, and the index where generated.
void resample_forward(Case &k, fe_data_type type, const Pool &p, const Dims &xd, const Dims &xs, bool index) {
    if (!k.graph(type)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.tensor("x", xd, xs);
    if (!x) return;
    fe_resample_options o = FE_RESAMPLE_OPTIONS_INIT;
    set_pool(p, o);
    o.generate_index = index;
    fe_tensor *y = nullptr, *idx = nullptr;
    if (!k.ok(fe_graph_resample(g, x, &o, &y, index ? &idx : nullptr), "fe_graph_resample")) return;
    if (!k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output")) return;
    if (idx && !k.ok(fe_tensor_set_output(idx, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;
    Bound &bx = k.input(x, -2.f, 2.f);
    Bound &by = k.output(y);
    Bound *bi = idx ? &k.output(idx) : nullptr;
    if (!k.execute()) return;
    PoolForward f = pool_forward(p, xd, logical(bx));
    // Max pooling and nearest upsampling select a value: exact.
    if (p.mode == FE_RESAMPLE_MAXPOOL || p.mode == FE_RESAMPLE_NEAREST)
        k.check("y", by, f.y, 1e-6, 0, 1e-6);
    else
        k.check("y", by, f.y, pool_atol(type), pool_atol(type), pool_atol(type));
    if (bi) {
        std::vector<double> places;
        std::vector<char> defined;
        for (size_t e = 0; e < f.best.size(); ++e) {
            places.push_back(static_cast<double>(f.best[e].place));
            defined.push_back(!f.tied[e]);
        }
        k.check("index", *bi, places, 0.5, 0, 0, &defined);
    }
}

// nearest 2x upsampling, fp16 NCHW x [2, 16, 16, 16].
void nearest_upsampling(Case &k) {
    Pool p;
    p.mode = FE_RESAMPLE_NEAREST;
    p.stride = 2;
    const Dims xd = {2, 16, 16, 16};
    k.describe("forward nearest fp16 x=[2,16,16,16] NCHW factor=2 -> y=[2,16,32,32]");
    resample_forward(k, FE_DATA_HALF, p, xd, packed_strides(xd), false);
}

// ResNet's stem max pooling: 3x3 window, stride 2, padding 1.
Pool resnet_max_pool() {
    Pool p;
    p.window = 3;
    p.stride = 2;
    p.pre = p.post = 1;
    return p;
}

// Max pooling backward, fp16 [2, 32, 16, 16] -> [2, 32, 8, 8], 3x3 stride 2 pad 1: from the
// index (int32, dy's layout) in the given layout, or from x and y (no index).
void max_pool_backward(Case &k, bool channels_last, bool from_index) {
    const Pool p = resnet_max_pool();
    const fe_data_type type = FE_DATA_HALF;
    const Dims xd = {2, 32, 16, 16}, yd = pooled_dims(p, xd);
    const Dims xs = channels_last ? channels_last_strides(xd) : packed_strides(xd);
    const Dims ys = channels_last ? channels_last_strides(yd) : packed_strides(yd);
    k.describe(std::string("backward max fp16 x=[2,32,16,16] y=[2,32,8,8] ") + (channels_last ? "channels-last" : "NCHW") +
               " window=3 stride=2 pad=1 " + (from_index ? "from=index(int32) dx_dims" : "from=x,y"));
    if (!k.graph(type)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *dy = k.tensor("dy", yd, ys), *x = nullptr, *y = nullptr, *index = nullptr, *dx = nullptr;
    if (from_index) {
        index = k.tensor("index", yd, ys, FE_DATA_INT32);
    } else {
        x = k.tensor("x", xd, xs);
        y = k.tensor("y", yd, ys);
    }
    if (!dy || (from_index && !index) || (!from_index && (!x || !y))) return;
    fe_resample_options o = FE_RESAMPLE_OPTIONS_INIT;
    set_pool(p, o);
    if (!k.ok(fe_graph_resample_backward(g, dy, x, y, index, from_index ? xd.size() : 0, from_index ? xd.data() : nullptr,
                                         &o, &dx),
              "fe_graph_resample_backward"))
        return;
    if (!k.ok(fe_tensor_set_output(dx, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;

    // x decides the routing: bound where the graph reads it, else drawn here.
    Bound *bx = x ? &k.input(x, -2.f, 2.f) : nullptr;
    std::vector<double> xv;
    if (bx) {
        xv = logical(*bx);
    } else {
        std::uniform_real_distribution<float> value(-2.f, 2.f);
        for (int64_t e = 0; e < product(xd); ++e) xv.push_back(round_to(type, value(k.rng.engine())));
    }
    PoolForward f = pool_forward(p, xd, xv);
    Bound &bdy = k.input(dy, -1.f, 1.f);
    if (y) {
        // y as the forward wrote it (max pooling selects: exact).
        std::vector<float> memory(static_cast<size_t>(bdy.span()), 0.f);
        size_t e = 0;
        for_each_index(yd, [&](const Dims &i) { memory[static_cast<size_t>(bdy.offset(i))] = static_cast<float>(f.y[e++]); });
        k.input_values(y, memory);
    }
    if (index) {
        std::vector<int32_t> places(static_cast<size_t>(bdy.span()), 0);
        size_t e = 0;
        for_each_index(yd, [&](const Dims &i) {
            places[static_cast<size_t>(bdy.offset(i))] = static_cast<int32_t>(f.best[e++].place);
        });
        k.input_int32(index, places);
    }
    Bound &bdx = k.output(dx);
    if (!k.execute()) return;

    // dx: each dy to its window's maximum. From x and y, a maximum tied between elements of x may
    // send its gradient to either: those elements are not compared.
    std::vector<double> ref(static_cast<size_t>(product(xd)), 0.0);
    std::vector<char> defined(ref.size(), 1);
    size_t e = 0;
    for_each_index(yd, [&](const Dims &i) {
        const Tap &best = f.best[e];
        if (!from_index && f.tied[e]) {
            double divisor = 1;
            for (const Tap &t : taps_of(p, xd, i, &divisor))
                if (t.src >= 0 && xv[static_cast<size_t>(t.src)] == f.y[e]) defined[static_cast<size_t>(t.src)] = 0;
        }
        if (best.src >= 0) ref[static_cast<size_t>(best.src)] += bdy.at(i);
        ++e;
    });
    k.check("dx", bdx, ref, 2 * pool_atol(type), 2 * pool_atol(type), 2 * pool_atol(type), &defined);
}

// Average pooling counting the padding, more padding after than before, NCHW fp16:
// x [2, 16, 16, 16], 3x3 window, stride 2, pre 0, post 1 (the last window reaches the padding).
Pool post_padded_average() {
    Pool p;
    p.mode = FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING;
    p.window = 3;
    p.stride = 2;
    p.pre = 0;
    p.post = 1;
    return p;
}

// ---------------------------------------------------------------------------------------------
// The MoE grouped matmul with top-k routing: 4 experts (one group each), 64 tokens routed to 2
// distinct experts each, K = N = 128, bf16, the weight K-contiguous.

void moe_routed(Case &k, fe_moe_mode mode) {
    const int64_t experts = 4, tokens = 64, top_k = 2, K = 128, N = 128;
    const fe_data_type type = FE_DATA_BFLOAT16;
    struct Row {
        int32_t token, slot;
        int64_t expert;
    };
    std::vector<Row> rows;
    std::vector<int64_t> order(static_cast<size_t>(experts));
    for (int64_t t = 0; t < tokens; ++t) {
        for (int64_t e = 0; e < experts; ++e) order[static_cast<size_t>(e)] = e;
        std::shuffle(order.begin(), order.end(), k.rng.engine());
        for (int64_t s = 0; s < top_k; ++s)
            rows.push_back({static_cast<int32_t>(t), static_cast<int32_t>(s), order[static_cast<size_t>(s)]});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) { return a.expert < b.expert; });
    const int64_t routed = static_cast<int64_t>(rows.size());
    std::vector<int32_t> first, token_of, slot_of;
    std::vector<int64_t> counts(static_cast<size_t>(experts), 0);
    for (const Row &r : rows) {
        token_of.push_back(r.token);
        slot_of.push_back(r.slot);
        ++counts[static_cast<size_t>(r.expert)];
    }
    int32_t at = 0;
    for (int64_t n : counts) {
        first.push_back(at);
        at += static_cast<int32_t>(n);
    }
    const bool gather = mode == FE_MOE_MODE_GATHER;
    const int64_t token_rows = gather ? tokens : routed;
    std::string rows_text = "[";
    for (size_t e = 0; e < counts.size(); ++e) rows_text += (e ? "," : "") + std::to_string(counts[e]);
    k.describe(std::string("mode=") + (gather ? "gather" : "scatter") + " bf16 experts=4 groups=4 K=128 N=128 tokens=64 "
               "top_k=2 rows_per_group=" + rows_text + "] token=[1," + std::to_string(token_rows) +
               ",128] weight=K-contiguous");
    if (!k.graph(type)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *token = k.tensor("token", {1, token_rows, K}, {token_rows * K, K, 1});
    fe_tensor *weight = k.tensor("weight", {experts, K, N}, {K * N, 1, K});
    fe_tensor *offsets = k.packed("first_token_offset", {experts, 1, 1}, FE_DATA_INT32);
    fe_tensor *index = k.packed("token_index", {1, routed, 1}, FE_DATA_INT32);
    fe_tensor *ks = gather ? nullptr : k.packed("token_ks", {1, routed, 1}, FE_DATA_INT32);
    if (!token || !weight || !offsets || !index || (!gather && !ks)) return;
    fe_moe_grouped_matmul_options o = FE_MOE_GROUPED_MATMUL_OPTIONS_INIT;
    o.mode = mode;
    o.token_index = index;
    if (!gather) {
        o.token_ks = ks;
        o.top_k = static_cast<int32_t>(top_k);
    }
    fe_tensor *y = nullptr;
    if (!k.ok(fe_graph_moe_grouped_matmul(g, token, weight, offsets, &o, &y), "fe_graph_moe_grouped_matmul")) return;
    if (!k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;
    Bound &bt = k.input(token), &bw = k.input(weight);
    k.input_int32(offsets, first);
    k.input_int32(index, token_of);
    if (ks) k.input_int32(ks, slot_of);
    Bound &by = k.output(y);
    if (!k.execute()) return;
    // Routed row r of expert e: (token row token_of[r] with GATHER, r with SCATTER) x weight[e],
    // written to row r (GATHER) or token_of[r] * top_k + slot_of[r] (SCATTER): every row of y.
    std::vector<double> ref(static_cast<size_t>(routed * N), 0.0);
    for (int64_t r = 0; r < routed; ++r) {
        const size_t ri = static_cast<size_t>(r);
        const int64_t e = rows[ri].expert;
        const int64_t source = gather ? token_of[ri] : r;
        const int64_t target = gather ? r : token_of[ri] * top_k + slot_of[ri];
        for (int64_t j = 0; j < N; ++j) {
            double acc = 0;
            for (int64_t x = 0; x < K; ++x) acc += static_cast<double>(bt.at({0, source, x})) * bw.at({e, x, j});
            ref[static_cast<size_t>(target * N + j)] = acc;
        }
    }
    k.check("y", by, ref, 1e-3 * std::sqrt(static_cast<double>(K)), 2e-2, 2.5e-2);
}

}  // namespace

void register_norm_probes(std::vector<Probe> &out) {
    out.push_back({"norm_backward_single_row",
                   "bf16 layernorm backward over one row: x [1, 1024], float scale and statistics; dx, dscale, dbias",
                   [](Case &k) { single_row_backward(k, false); }});
    out.push_back({"norm_backward_single_row:rms",
                   "bf16 rmsnorm backward over one row: x [1, 1024], float scale and inv_rms; dx, dscale (no bias)",
                   [](Case &k) { single_row_backward(k, true); }});
    out.push_back({"adalayernorm_zero_centered_gamma",
                   "bf16 adalayernorm training, x [2, 128, 256], float per-sample scale [2, 1, 256] with (1 + scale) "
                   "as a pointwise add in the graph (adalayernorm refuses the option), bias; y, mean, inv_variance",
                   [](Case &k) { ada_zero_centered(k, false); }});
    out.push_back({"adalayernorm_zero_centered_gamma:backward",
                   "bf16 adalayernorm backward, x [2, 128, 256], (1 + scale) [2, 1, 256] as a pointwise add in the "
                   "graph; dx, dscale, dbias",
                   [](Case &k) { ada_zero_centered(k, true); }});
    out.push_back({"norm_pointwise_epilogue",
                   "bf16 layernorm inference, x [256, 1024], float scale and bias, whose virtual y feeds a relu "
                   "(the relu's result the output)",
                   norm_relu});
    out.push_back({"standalone_genstats",
                   "genstats alone: fp16 x [4, 32, 16, 16] channels-last, float per-channel sum and sum of squares",
                   genstats_alone});
    out.push_back({"standalone_dbn_weight",
                   "dbn_weight alone: fp16 dy and x [4, 32, 16, 16] channels-last, float mean, inv_variance, scale; "
                   "dscale, dbias and the three dx factors",
                   dbn_weight_alone});
    out.push_back({"dbn_weight",
                   "the ResNet backward block: fp16 channels-last dgrad (dy [4, 64, 16, 16], w [64, 32, 3, 3], pad 1), "
                   "ReLU backward against the recomputed batchnorm output, dbn_weight; drelu and the five results",
                   dgrad_drelu_dbn_weight});
    out.push_back({"upsampling", "nearest 2x upsampling, fp16 NCHW x [2, 16, 16, 16]", nearest_upsampling});
    out.push_back({"max_pool_backward_from_x_and_y_channels_last",
                   "max pooling backward from x and y (no index), fp16 channels-last x [2, 32, 16, 16], 3x3 stride 2 "
                   "pad 1",
                   [](Case &k) { max_pool_backward(k, true, false); }});
    out.push_back({"max_pool_backward_layout",
                   "max pooling backward from the int32 index, fp16 NCHW dy, index and dx, x [2, 32, 16, 16], 3x3 "
                   "stride 2 pad 1",
                   [](Case &k) { max_pool_backward(k, false, true); }});
    out.push_back({"moe_grouped_matmul_gather",
                   "MoE grouped matmul, mode GATHER: bf16, 4 experts, 64 tokens routed top-2, K = N = 128",
                   [](Case &k) { moe_routed(k, FE_MOE_MODE_GATHER); }});
    out.push_back({"moe_grouped_matmul_scatter",
                   "MoE grouped matmul, mode SCATTER: bf16, 4 experts, 64 tokens routed top-2, K = N = 128",
                   [](Case &k) { moe_routed(k, FE_MOE_MODE_SCATTER); }});
    out.push_back({"pooling_bf16_channels_last",
                   "max pooling forward, bf16 channels-last x [2, 12, 16, 16] (channels not a multiple of 8), 3x3 "
                   "stride 2 pad 1",
                   [](Case &k) {
                       const Dims xd = {2, 12, 16, 16};
                       k.describe("forward max bf16 x=[2,12,16,16] channels-last window=3 stride=2 pad=1");
                       resample_forward(k, FE_DATA_BFLOAT16, resnet_max_pool(), xd, channels_last_strides(xd), false);
                   }});
    out.push_back({"pooling_bf16_channels_last:c32",
                   "max pooling forward, bf16 channels-last x [2, 32, 16, 16] (channels a multiple of 8), 3x3 "
                   "stride 2 pad 1, no index",
                   [](Case &k) {
                       const Dims xd = {2, 32, 16, 16};
                       k.describe("forward max bf16 x=[2,32,16,16] channels-last window=3 stride=2 pad=1");
                       resample_forward(k, FE_DATA_BFLOAT16, resnet_max_pool(), xd, channels_last_strides(xd), false);
                   }});
    out.push_back({"norm_forward_transposed_layout",
                   "rmsnorm inference, fp32 x [1, 77, 768] laid out [B, D, S], row-major scale, y like x (the "
                   "conformance run's case)",
                   rmsnorm_transposed});
    out.push_back({"pooling_index_layout",
                   "max pooling forward with the index (int8), fp16 NCHW x [2, 32, 16, 16], 3x3 stride 2 pad 1; y "
                   "and the index",
                   [](Case &k) {
                       const Dims xd = {2, 32, 16, 16};
                       k.describe("forward max fp16 x=[2,32,16,16] NCHW window=3 stride=2 pad=1 index=int8");
                       resample_forward(k, FE_DATA_HALF, resnet_max_pool(), xd, packed_strides(xd), true);
                   }});
    out.push_back({"pooling_avg_post_padding_layout",
                   "average pooling including the padding, forward, fp16 NCHW x [2, 16, 16, 16], 3x3 stride 2, "
                   "pre 0, post 1",
                   [](Case &k) {
                       const Dims xd = {2, 16, 16, 16};
                       k.describe("forward avg_include_padding fp16 x=[2,16,16,16] NCHW window=3 stride=2 pre=0 post=1");
                       resample_forward(k, FE_DATA_HALF, post_padded_average(), xd, packed_strides(xd), false);
                   }});
}

}  // namespace conformance
