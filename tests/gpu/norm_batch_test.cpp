// Batch and instance normalization on the GPU against the double references: batchnorm training
// with the running-statistics update done in place, inference, backward; instancenorm forward
// and backward. Channels-last half images with float scale, bias and statistics.
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
        Bound &bx = bind(x, true, -1, 3), &bdy = bind(dy, true, -1, 1), &bs = bind(s, true, 0.5f, 1.5f);
        NormSpec spec;
        spec.stats = stats;
        NormForwardRef fwd = norm_forward_reference(bx, bs, nullptr, spec);
        Bound &bm = bind_values(m, fwd.mean), &bv = bind_values(v, fwd.inv);
        Bound &bdx = bind(dx, false), &bds = bind(ds, false), &bdb = bind(db, false);
        execute(g, {&bx, &bdy, &bs, &bm, &bv, &bdx, &bds, &bdb});
        for (Bound *out : {&bdx, &bds, &bdb}) download(*out);
        NormBackwardRef ref = norm_backward_reference(bdy, bx, bs, &bm, bv, spec);
        expect_close(bdx, ref.dx, norm_atol(FE_DATA_HALF), norm_rtol(FE_DATA_HALF), norm_for(FE_DATA_HALF));
        expect_close(bds, ref.dscale, 2e-2, 1e-2, 2e-3);
        expect_close(bdb, ref.dbias, 2e-2, 1e-2, 2e-3);
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
