// Batch and instance normalization on the GPU against the double references: batchnorm training
// with the running-statistics update done in place, inference, backward, bn_finalize from
// per-channel sums, dbn_weight fused after dgrad and ReLU backward; instancenorm forward and
// backward. Channels-last half images with float scale, bias and statistics.
#include <algorithm>

#include "norm_reference.hpp"

using namespace cudnnfe_test;

namespace {

const std::vector<int64_t> kImage = {4, 32, 4, 4}, kChannel = {1, 32, 1, 1};

TEST_F(NormGpu, BatchnormTrainingUpdatesRunningStatisticsInPlace) {
    const double momentum = 0.25, epsilon = 1e-4;
    fe_graph *g = graph("batchnorm", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", kImage, true), *s = float_tensor(g, "scale", kChannel, true);
    fe_tensor *b = float_tensor(g, "bias", kChannel, true);
    fe_batchnorm_options o = FE_BATCHNORM_OPTIONS_INIT;
    o.epsilon = epsilon;
    o.momentum = momentum;
    o.running_mean = float_tensor(g, "running_mean", kChannel, true);
    o.running_var = float_tensor(g, "running_var", kChannel, true);
    fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr, *next_mean = nullptr, *next_var = nullptr;
    ASSERT_FE_OK(fe_graph_batchnorm(g, x, s, b, &o, &y, &mean, &inv, &next_mean, &next_var));
    set_outputs({y, mean, inv, next_mean, next_var});
    build(g);
    Bound &bx = bind(x, true, -1, 3), &bs = bind(s, true, 0.5f, 1.5f), &bb = bind(b, true, -1, 1);
    Bound &brm = bind(o.running_mean, true, -1, 1), &brv = bind(o.running_var, true, 0.5f, 2);
    Bound &by = bind(y, false), &bm = bind(mean, false), &bi = bind(inv, false);
    // The next running statistics overwrite the running ones: same buffers.
    Bound next_mean_alias = brm, next_var_alias = brv;
    next_mean_alias.tensor = next_mean;
    next_var_alias.tensor = next_var;
    const Bound running_mean_before = brm, running_var_before = brv;
    execute(g, {&bx, &bs, &bb, &brm, &brv, &by, &bm, &bi, &next_mean_alias, &next_var_alias});
    for (Bound *out : {&by, &bm, &bi, &brm, &brv}) download(*out);

    NormSpec spec;
    spec.stats = kChannel;
    spec.epsilon = epsilon;
    NormForwardRef ref = norm_forward_reference(bx, bs, &bb, spec);
    expect_close(by, ref.y, norm_atol(FE_DATA_HALF), norm_rtol(FE_DATA_HALF), norm_for(FE_DATA_HALF));
    expect_stats_close(bm, ref.mean);
    expect_stats_close(bi, ref.inv);
    // next = (1 - momentum) * running + momentum * batch statistic; the variance unbiased.
    std::vector<double> want_mean, want_var, want_var_biased;
    for (int64_t c = 0; c < kChannel[1]; ++c) {
        std::vector<int64_t> i = {0, c, 0, 0};
        size_t k = static_cast<size_t>(c);
        double n = static_cast<double>(ref.count[k]);
        want_mean.push_back((1 - momentum) * running_mean_before.at(i) + momentum * ref.mean[k]);
        want_var.push_back((1 - momentum) * running_var_before.at(i) + momentum * ref.var[k] * n / (n - 1));
        want_var_biased.push_back((1 - momentum) * running_var_before.at(i) + momentum * ref.var[k]);
    }
    expect_stats_close(brm, want_mean);
    Comparison biased = compare(brv, want_var_biased, 1e-4, 1e-4);
    EXPECT_EQ(compare(brv, want_var, 1e-4, 1e-4).mismatches, 0)
        << "the running variance does not follow the unbiased update"
        << (biased.mismatches == 0 ? " (it matches the biased one: update the header and this test)" : "");
    expect_stats_close(brv, want_var);
}

// The same batchnorm built with an SM carveout (fe_build_options.sm_count_target: heuristics
// pick configs for 8 of the H100's 132 SMs): still right.
TEST_F(NormGpu, BatchnormTrainingWithAnSmCarveout) {
    fe_graph *g = graph("batchnorm_carveout", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", kImage, true), *s = float_tensor(g, "scale", kChannel, true);
    fe_tensor *b = float_tensor(g, "bias", kChannel, true);
    fe_batchnorm_options o = FE_BATCHNORM_OPTIONS_INIT;
    o.running_mean = float_tensor(g, "running_mean", kChannel, true);
    o.running_var = float_tensor(g, "running_var", kChannel, true);
    fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr, *next_mean = nullptr, *next_var = nullptr;
    ASSERT_FE_OK(fe_graph_batchnorm(g, x, s, b, &o, &y, &mean, &inv, &next_mean, &next_var));
    set_outputs({y, mean, inv, next_mean, next_var});
    fe_build_options bo = FE_BUILD_OPTIONS_INIT;
    bo.sm_count_target = 8;
    ASSERT_FE_OK(fe_graph_build(g, handle_, &bo));
    std::printf("    batchnorm on 8 SMs: plan %s\n", engine_tag_of(g));
    Bound &bx = bind(x, true, -1, 3), &bs = bind(s, true, 0.5f, 1.5f), &bb = bind(b, true, -1, 1);
    Bound &brm = bind(o.running_mean, true, -1, 1), &brv = bind(o.running_var, true, 0.5f, 2);
    Bound &by = bind(y, false), &bm = bind(mean, false), &bi = bind(inv, false);
    Bound &bnm = bind(next_mean, false), &bnv = bind(next_var, false);
    execute(g, {&bx, &bs, &bb, &brm, &brv, &by, &bm, &bi, &bnm, &bnv});
    for (Bound *out : {&by, &bm, &bi}) download(*out);
    NormSpec spec;
    spec.stats = kChannel;
    expect_forward_close(FE_DATA_HALF, spec, bx, bs, bb, by, bm, bi);
}

// bn_finalize from genstats-like sums of `count` values per channel: sums drawn so that every
// channel's mean is in [-1, 1] and its mean square in [2, 3] (a variance of 1 to 3).
TEST_F(NormGpu, BnFinalizeFoldsStatisticsIntoScaleAndBias) {
    const double momentum = 0.25, epsilon = 1e-4, count = 4 * 8 * 8;
    fe_graph *g = graph("bn_finalize", FE_DATA_FLOAT);
    fe_tensor *sum = float_tensor(g, "sum", kChannel, true), *sq = float_tensor(g, "sq_sum", kChannel, true);
    fe_tensor *s = float_tensor(g, "scale", kChannel, true), *b = float_tensor(g, "bias", kChannel, true);
    fe_tensor *rm = float_tensor(g, "running_mean", kChannel, true);
    fe_tensor *rv = float_tensor(g, "running_var", kChannel, true);
    fe_bn_finalize_options o = FE_BN_FINALIZE_OPTIONS_INIT;
    o.accum_count = static_cast<int64_t>(count);
    o.epsilon = epsilon;
    o.momentum = momentum;
    fe_tensor *eq_scale = nullptr, *eq_bias = nullptr, *mean = nullptr, *inv = nullptr, *next_mean = nullptr,
              *next_var = nullptr;
    ASSERT_FE_OK(fe_graph_bn_finalize(g, sum, sq, s, b, rm, rv, &o, &eq_scale, &eq_bias, &mean, &inv, &next_mean,
                                      &next_var));
    set_outputs({eq_scale, eq_bias, mean, inv, next_mean, next_var});
    build(g);
    std::printf("    plan %s\n", engine_tag_of(g));
    Bound &bsum = bind(sum, true, static_cast<float>(-count), static_cast<float>(count));
    Bound &bsq = bind(sq, true, static_cast<float>(2 * count), static_cast<float>(3 * count));
    Bound &bs = bind(s, true, 0.5f, 1.5f), &bb = bind(b, true, -1, 1);
    Bound &brm = bind(rm, true, -1, 1), &brv = bind(rv, true, 0.5f, 2);
    Bound &bes = bind(eq_scale, false), &beb = bind(eq_bias, false), &bm = bind(mean, false);
    Bound &bi = bind(inv, false), &bnm = bind(next_mean, false), &bnv = bind(next_var, false);
    execute(g, {&bsum, &bsq, &bs, &bb, &brm, &brv, &bes, &beb, &bm, &bi, &bnm, &bnv});
    for (Bound *out : {&bes, &beb, &bm, &bi, &bnm, &bnv}) download(*out);

    std::vector<double> want_scale, want_bias, want_mean, want_inv, want_next_mean, want_next_var, biased_next_var;
    for (int64_t c = 0; c < kChannel[1]; ++c) {
        std::vector<int64_t> i = {0, c, 0, 0};
        double m = bsum.at(i) / count, var = bsq.at(i) / count - m * m, r = 1.0 / std::sqrt(var + epsilon);
        want_mean.push_back(m);
        want_inv.push_back(r);
        want_scale.push_back(bs.at(i) * r);
        want_bias.push_back(bb.at(i) - m * bs.at(i) * r);
        want_next_mean.push_back((1 - momentum) * brm.at(i) + momentum * m);
        want_next_var.push_back((1 - momentum) * brv.at(i) + momentum * var * count / (count - 1));
        biased_next_var.push_back((1 - momentum) * brv.at(i) + momentum * var);
    }
    expect_stats_close(bm, want_mean);
    expect_stats_close(bi, want_inv);
    expect_stats_close(bes, want_scale);
    expect_stats_close(beb, want_bias);
    expect_stats_close(bnm, want_next_mean);
    Comparison biased = compare(bnv, biased_next_var, 1e-4, 1e-4);
    EXPECT_EQ(compare(bnv, want_next_var, 1e-4, 1e-4).mismatches, 0)
        << "the running variance does not follow the unbiased update"
        << (biased.mismatches == 0 ? " (it matches the biased one: update the header and this test)" : "");
}

// The ResNet backward block as the reference frontend's "Dgrad Drelu DBNweight" sample builds it:
// dx_pre = dgrad(dy, w) (3x3, pad 1), drelu = dx_pre where the recomputed batchnorm output
// (x - mean) * inv_var * scale + bias is positive, then dbn_weight(drelu, x, mean, inv_var,
// scale). Every output against a double reference, and the Eq* factors applied to drelu and x
// against batchnorm's dx.
TEST_F(NormGpu, DgradDreluDbnWeightMatchesTheReference) {
    const std::vector<int64_t> dy_dims = {4, 64, 16, 16}, w_dims = {64, 32, 3, 3}, x_dims = {4, 32, 16, 16};
    const std::vector<int64_t> channel = {1, 32, 1, 1};
    fe_graph *g = graph("dgrad_drelu_dbn_weight", FE_DATA_HALF);
    fe_tensor *dy = tensor(g, "dy", dy_dims, true), *w = tensor(g, "w", w_dims, true), *x = tensor(g, "x", x_dims, true);
    fe_tensor *m = float_tensor(g, "mean", channel, true), *v = float_tensor(g, "inv_var", channel, true);
    fe_tensor *s = float_tensor(g, "scale", channel, true), *b = float_tensor(g, "bias", channel, true);
    fe_conv_options co = FE_CONV_OPTIONS_INIT;
    int64_t pad[2] = {1, 1};
    ASSERT_FE_OK(fe_conv_options_set_padding(&co, 2, pad));
    fe_tensor *dx_pre = nullptr, *centered = nullptr, *normalized = nullptr, *scaled = nullptr, *y = nullptr;
    fe_tensor *drelu = nullptr, *grads[5] = {};
    ASSERT_FE_OK(fe_graph_conv_dgrad(g, dy, w, x_dims.size(), x_dims.data(), &co, &dx_pre));
    ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_SUB, x, m, nullptr, nullptr, &centered));
    ASSERT_FE_OK(fe_graph_mul(g, centered, v, nullptr, &normalized));
    ASSERT_FE_OK(fe_graph_mul(g, normalized, s, nullptr, &scaled));
    ASSERT_FE_OK(fe_graph_add(g, scaled, b, nullptr, &y));
    ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_RELU_BWD, dx_pre, y, nullptr, nullptr, &drelu));
    ASSERT_FE_OK(fe_graph_dbn_weight(g, drelu, x, m, v, s, nullptr, &grads[0], &grads[1], &grads[2], &grads[3],
                                     &grads[4]));
    set_outputs({drelu, grads[0], grads[1], grads[2], grads[3], grads[4]});
    build(g);
    std::printf("    plan %s\n", engine_tag_of(g));
    Bound &bdy = bind(dy, true), &bw = bind(w, true), &bx = bind(x, true, -2, 2);
    Bound &bm = bind(m, true, -0.5f, 0.5f), &bv = bind(v, true, 0.5f, 2), &bs = bind(s, true, 0.5f, 1.5f);
    Bound &bb = bind(b, true, -1, 1), &bdrelu = bind(drelu, false);
    Bound &bdscale = bind(grads[0], false), &bdbias = bind(grads[1], false), &beq_dy = bind(grads[2], false);
    Bound &beq_x = bind(grads[3], false), &beq_bias = bind(grads[4], false);
    execute(g, {&bdy, &bw, &bx, &bm, &bv, &bs, &bb, &bdrelu, &bdscale, &bdbias, &beq_dy, &beq_x, &beq_bias});
    for (Bound *out : {&bdrelu, &bdscale, &bdbias, &beq_dy, &beq_x, &beq_bias}) download(*out);

    // The dgrad, then the ReLU's gradient passed where the batchnorm output is positive. Within
    // 1e-4 of zero the GPU's float recomputation may fall on either side: its choice is taken.
    // dgrad of the 3x3 pad-1 correlation: x[h, w] met dy[h + 1 - r, w + 1 - s] through w[r, s].
    auto dgrad_at = [&](const std::vector<int64_t> &i) {
        double sum = 0;
        for (int64_t k = 0; k < dy_dims[1]; ++k)
            for (int64_t r = 0; r < 3; ++r)
                for (int64_t t = 0; t < 3; ++t) {
                    int64_t h = i[2] + 1 - r, v = i[3] + 1 - t;
                    if (h < 0 || h >= dy_dims[2] || v < 0 || v >= dy_dims[3]) continue;
                    sum += static_cast<double>(bdy.at({i[0], k, h, v})) * bw.at({k, i[1], r, t});
                }
        return sum;
    };
    std::vector<double> ref_drelu = elementwise(x_dims, [&](const std::vector<int64_t> &i) {
        double bn = (bx.at(i) - broadcast_at(bm, i)) * broadcast_at(bv, i) * broadcast_at(bs, i) + broadcast_at(bb, i);
        double passed = dgrad_at(i);
        if (std::fabs(bn) < 1e-4) return bdrelu.at(i) == 0.0f ? 0.0 : passed;
        return bn > 0 ? passed : 0.0;
    });
    expect_close(bdrelu, ref_drelu, norm_atol(FE_DATA_HALF), norm_rtol(FE_DATA_HALF), 2e-2);

    // Per channel over M = N x H x W values: dbias = sum(drelu), dscale = sum(drelu * xhat).
    const int64_t channels = x_dims[1];
    const double count = static_cast<double>(x_dims[0] * x_dims[2] * x_dims[3]);
    std::vector<double> dscale(static_cast<size_t>(channels), 0.0), dbias(dscale);
    size_t e = 0;
    for_each_index(x_dims, [&](const std::vector<int64_t> &i) {
        size_t c = static_cast<size_t>(i[1]);
        double xhat = (bx.at(i) - broadcast_at(bm, i)) * broadcast_at(bv, i);
        dbias[c] += ref_drelu[e];
        dscale[c] += ref_drelu[e++] * xhat;
    });
    std::vector<double> eq_dy, eq_x, eq_bias;
    for (int64_t c = 0; c < channels; ++c) {
        std::vector<int64_t> i = {0, c, 0, 0};
        size_t k = static_cast<size_t>(c);
        double scale = bs.at(i), inv = bv.at(i), mean = bm.at(i);
        eq_dy.push_back(scale * inv);
        eq_x.push_back(-scale * inv * inv * dscale[k] / count);
        eq_bias.push_back(scale * inv * (inv * dscale[k] * mean - dbias[k]) / count);
    }
    // Sums of 1024 half-rounded terms of either sign: tolerances relative to the largest value.
    auto expect_channels_close = [&](const Bound &out, const std::vector<double> &ref) {
        double largest = 0;
        for (double r : ref) largest = std::max(largest, std::fabs(r));
        expect_close(out, ref, 1e-2 * largest, 1e-2, 1e-2);
    };
    expect_channels_close(bdscale, dscale);
    expect_channels_close(bdbias, dbias);
    expect_channels_close(beq_dy, eq_dy);
    expect_channels_close(beq_x, eq_x);
    expect_channels_close(beq_bias, eq_bias);

    // What the factors mean: batchnorm's dx = scale * inv_var * (dy - dbias / M - xhat * dscale / M)
    // equals eq_scale_dy * dy + eq_scale_x * x + eq_bias with the GPU's factors.
    e = 0;
    std::vector<double> want_dx = elementwise(x_dims, [&](const std::vector<int64_t> &i) {
        size_t c = static_cast<size_t>(i[1]);
        double xhat = (bx.at(i) - broadcast_at(bm, i)) * broadcast_at(bv, i);
        return broadcast_at(bs, i) * broadcast_at(bv, i) * (ref_drelu[e++] - dbias[c] / count - xhat * dscale[c] / count);
    });
    e = 0;
    std::vector<double> eq_dx = elementwise(x_dims, [&](const std::vector<int64_t> &i) {
        return broadcast_at(beq_dy, i) * ref_drelu[e++] + broadcast_at(beq_x, i) * bx.at(i) + broadcast_at(beq_bias, i);
    });
    Bound eq;  // host only, packed
    eq.dims = x_dims;
    eq.strides = {x_dims[1] * x_dims[2] * x_dims[3], x_dims[2] * x_dims[3], x_dims[3], 1};
    eq.host.assign(eq_dx.begin(), eq_dx.end());
    expect_close(eq, want_dx, norm_atol(FE_DATA_HALF), norm_rtol(FE_DATA_HALF), 2e-2);
}

TEST_F(NormGpu, BatchnormInferenceFromGivenStatistics) {
    fe_graph *g = graph("batchnorm_inference", FE_DATA_HALF);
    const std::vector<int64_t> image = {4, 32, 8, 8};
    fe_tensor *x = tensor(g, "x", image, true), *m = float_tensor(g, "mean", kChannel, true);
    fe_tensor *v = float_tensor(g, "inv_variance", kChannel, true), *s = float_tensor(g, "scale", kChannel, true);
    fe_tensor *b = float_tensor(g, "bias", kChannel, true), *y = nullptr;
    ASSERT_FE_OK(fe_graph_batchnorm_inference(g, x, m, v, s, b, nullptr, &y));
    set_outputs({y});
    build(g);
    Bound &bx = bind(x, true, -2, 2), &bm = bind(m, true, -1, 1), &bv = bind(v, true, 0.5f, 2);
    Bound &bs = bind(s, true, 0.5f, 1.5f), &bb = bind(b, true, -1, 1), &by = bind(y, false);
    execute(g, {&bx, &bm, &bv, &bs, &bb, &by});
    download(by);
    std::vector<double> ref = elementwise(by.dims, [&](const std::vector<int64_t> &i) {
        return (bx.at(i) - broadcast_at(bm, i)) * broadcast_at(bv, i) * broadcast_at(bs, i) + broadcast_at(bb, i);
    });
    expect_close(by, ref, norm_atol(FE_DATA_HALF), norm_rtol(FE_DATA_HALF), norm_for(FE_DATA_HALF));
}

// The backward pass of a channel norm from the statistics its forward returns.
class ChannelNormBackward : public NormGpu {
  protected:
    void run(bool instance) {
        std::vector<int64_t> stats = instance ? std::vector<int64_t>{kImage[0], kImage[1], 1, 1} : kChannel;
        fe_graph *g = graph(instance ? "instancenorm_backward" : "batchnorm_backward", FE_DATA_HALF);
        fe_tensor *x = tensor(g, "x", kImage, true), *dy = tensor(g, "dy", kImage, true);
        fe_tensor *s = float_tensor(g, "scale", kChannel, true), *m = float_tensor(g, "mean", stats, true);
        fe_tensor *v = float_tensor(g, "inv_variance", stats, true), *dx = nullptr, *ds = nullptr, *db = nullptr;
        if (instance) {
            ASSERT_FE_OK(fe_graph_instancenorm_backward(g, dy, x, s, m, v, nullptr, &dx, &ds, &db));
        } else {
            ASSERT_FE_OK(fe_graph_batchnorm_backward(g, dy, x, s, m, v, nullptr, &dx, &ds, &db));
        }
        set_outputs({dx, ds, db});
        build(g);
        check_backward(g, FE_DATA_HALF, stats, x, dy, s, m, v, dx, ds, db);
    }
};

TEST_F(ChannelNormBackward, Batchnorm) { run(false); }
TEST_F(ChannelNormBackward, Instancenorm) { run(true); }

TEST_F(NormGpu, InstancenormForwardTrainingAndInference) {
    for (fe_norm_phase phase : {FE_NORM_PHASE_TRAINING, FE_NORM_PHASE_INFERENCE}) {
        bool training = phase == FE_NORM_PHASE_TRAINING;
        SCOPED_TRACE(training ? "training" : "inference");
        fe_graph *g = graph("instancenorm", FE_DATA_HALF);
        fe_tensor *x = tensor(g, "x", {2, 16, 8, 8}, true), *s = float_tensor(g, "scale", {1, 16, 1, 1}, true);
        fe_tensor *b = float_tensor(g, "bias", {1, 16, 1, 1}, true), *y = nullptr, *mean = nullptr, *inv = nullptr;
        fe_norm_options o = FE_NORM_OPTIONS_INIT;
        o.phase = phase;
        ASSERT_FE_OK(fe_graph_instancenorm(g, x, s, b, &o, &y, &mean, &inv));
        set_outputs({y});
        if (training) set_outputs({mean, inv});
        build(g);
        Bound &bx = bind(x, true, -1, 3), &bs = bind(s, true, 0.5f, 1.5f), &bb = bind(b, true, -1, 1);
        Bound &by = bind(y, false);
        std::vector<Bound *> all = {&bx, &bs, &bb, &by};
        Bound *bm = training ? &bind(mean, false) : nullptr, *bi = training ? &bind(inv, false) : nullptr;
        if (training) all.insert(all.end(), {bm, bi});
        execute(g, all);
        download(by);
        NormSpec spec;
        spec.stats = {2, 16, 1, 1};
        NormForwardRef ref = norm_forward_reference(bx, bs, &bb, spec);
        expect_close(by, ref.y, norm_atol(FE_DATA_HALF), norm_rtol(FE_DATA_HALF), norm_for(FE_DATA_HALF));
        if (training) {
            download(*bm);
            download(*bi);
            expect_stats_close(*bm, ref.mean);
            expect_stats_close(*bi, ref.inv);
        }
    }
}

}  // namespace
