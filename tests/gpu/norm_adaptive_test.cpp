// Adaptive layer normalization (per-sample scale and shift) on the GPU: forward in training and
// backward, against the double references.
#include "norm_reference.hpp"

using namespace cudnnfe_test;

namespace {

const std::vector<int64_t> kX = {2, 64, 256}, kScale = {2, 1, 256}, kStats = {2, 64, 1};

TEST_F(NormGpu, AdaptiveLayernormForwardTraining) {
    fe_graph *g = graph("adalayernorm", FE_DATA_BFLOAT16);
    fe_tensor *x = tensor(g, "x", kX), *s = float_tensor(g, "scale", kScale), *b = float_tensor(g, "bias", kScale);
    fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr;
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    o.phase = FE_NORM_PHASE_TRAINING;
    ASSERT_FE_OK(fe_graph_adalayernorm(g, x, s, b, &o, &y, &mean, &inv));
    set_outputs({y, mean, inv});
    build(g);
    Bound &bx = bind(x, true, -1, 3), &bs = bind(s, true, 0.5f, 1.5f), &bb = bind(b, true, -1, 1);
    Bound &by = bind(y, false), &bm = bind(mean, false), &bi = bind(inv, false);
    execute(g, {&bx, &bs, &bb, &by, &bm, &bi});
    for (Bound *out : {&by, &bm, &bi}) download(*out);
    NormSpec spec;
    spec.stats = kStats;
    expect_forward_close(FE_DATA_BFLOAT16, spec, bx, bs, bb, by, bm, bi);
}

TEST_F(NormGpu, AdaptiveLayernormBackward) {
    fe_graph *g = graph("adalayernorm_backward", FE_DATA_BFLOAT16);
    fe_tensor *x = tensor(g, "x", kX), *dy = tensor(g, "dy", kX), *s = float_tensor(g, "scale", kScale);
    fe_tensor *m = float_tensor(g, "mean", kStats), *v = float_tensor(g, "inv_variance", kStats);
    fe_tensor *dx = nullptr, *ds = nullptr, *db = nullptr;
    ASSERT_FE_OK(fe_graph_adalayernorm_backward(g, dy, x, s, m, v, nullptr, &dx, &ds, &db));
    set_outputs({dx, ds, db});
    build(g);
    check_backward(g, FE_DATA_BFLOAT16, kStats, x, dy, s, m, v, dx, ds, db);
}

}  // namespace
