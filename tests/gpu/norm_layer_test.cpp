// Layer and RMS normalization on the GPU against the double references of norm_reference.hpp:
// forward in training (with the statistics) and inference, backward, zero-centred gamma, an
// epsilon scalar, and the shapes transformers and images use.
#include "norm_reference.hpp"

using namespace cudnnfe_test;

namespace {

struct LayerCase {
    const char *name;
    fe_data_type io;
    bool training;
};

std::string case_name(const ::testing::TestParamInfo<LayerCase> &info) { return info.param.name; }

const auto kLayerCases = ::testing::Values(
    LayerCase{"fp16_training", FE_DATA_HALF, true}, LayerCase{"bf16_training", FE_DATA_BFLOAT16, true},
    LayerCase{"fp32_training", FE_DATA_FLOAT, true}, LayerCase{"fp16_inference", FE_DATA_HALF, false},
    LayerCase{"bf16_inference", FE_DATA_BFLOAT16, false}, LayerCase{"fp32_inference", FE_DATA_FLOAT, false});

class LayernormForward : public NormGpu, public ::testing::WithParamInterface<LayerCase> {};

TEST_P(LayernormForward, MatchesCpuReference) {
    const LayerCase &c = GetParam();
    fe_graph *g = graph("layernorm", c.io);
    fe_tensor *x = tensor(g, "x", {256, 768}), *s = float_tensor(g, "scale", {1, 768});
    fe_tensor *b = float_tensor(g, "bias", {1, 768}), *y = nullptr, *mean = nullptr, *inv = nullptr;
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    o.phase = c.training ? FE_NORM_PHASE_TRAINING : FE_NORM_PHASE_INFERENCE;
    ASSERT_FE_OK(fe_graph_layernorm(g, x, s, b, &o, &y, &mean, &inv));
    set_outputs({y});
    if (c.training) set_outputs({mean, inv});
    build(g);
    Bound &bx = bind(x, true, -1, 3), &bs = bind(s, true, 0.5f, 1.5f), &bb = bind(b, true, -1, 1);
    Bound &by = bind(y, false);
    std::vector<Bound *> all = {&bx, &bs, &bb, &by};
    Bound *bm = c.training ? &bind(mean, false) : nullptr, *bi = c.training ? &bind(inv, false) : nullptr;
    if (c.training) all.insert(all.end(), {bm, bi});
    execute(g, all);
    download(by);
    NormSpec spec;
    spec.stats = {256, 1};
    NormForwardRef ref = norm_forward_reference(bx, bs, &bb, spec);
    expect_close(by, ref.y, norm_atol(c.io), norm_rtol(c.io), norm_for(c.io));
    if (c.training) {
        download(*bm);
        download(*bi);
        expect_stats_close(*bm, ref.mean);
        expect_stats_close(*bi, ref.inv);
    }
}

INSTANTIATE_TEST_SUITE_P(Gpu, LayernormForward, kLayerCases, case_name);

class RmsnormForward : public NormGpu, public ::testing::WithParamInterface<LayerCase> {};

TEST_P(RmsnormForward, MatchesCpuReferenceWithAndWithoutBias) {
    const LayerCase &c = GetParam();
    for (bool with_bias : {false, true}) {
        SCOPED_TRACE(with_bias ? "bias" : "no bias");
        fe_graph *g = graph("rmsnorm", c.io);
        fe_tensor *x = tensor(g, "x", {512, 1024}), *s = float_tensor(g, "scale", {1, 1024});
        fe_tensor *b = with_bias ? float_tensor(g, "bias", {1, 1024}) : nullptr, *y = nullptr, *inv = nullptr;
        fe_norm_options o = FE_NORM_OPTIONS_INIT;
        o.phase = c.training ? FE_NORM_PHASE_TRAINING : FE_NORM_PHASE_INFERENCE;
        o.epsilon = 1e-6;
        ASSERT_FE_OK(fe_graph_rmsnorm(g, x, s, b, &o, &y, &inv));
        set_outputs({y});
        if (c.training) set_outputs({inv});
        build(g);
        Bound &bx = bind(x, true, -2, 2), &bs = bind(s, true, 0.5f, 1.5f), &by = bind(y, false);
        std::vector<Bound *> all = {&bx, &bs, &by};
        Bound *bb = with_bias ? &bind(b, true, -1, 1) : nullptr, *bi = c.training ? &bind(inv, false) : nullptr;
        if (bb) all.push_back(bb);
        if (bi) all.push_back(bi);
        execute(g, all);
        download(by);
        NormSpec spec;
        spec.stats = {512, 1};
        spec.rms = true;
        spec.epsilon = 1e-6;
        NormForwardRef ref = norm_forward_reference(bx, bs, bb, spec);
        expect_close(by, ref.y, norm_atol(c.io), norm_rtol(c.io), norm_for(c.io));
        if (bi) {
            download(*bi);
            expect_stats_close(*bi, ref.inv);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Gpu, RmsnormForward, kLayerCases, case_name);

// Backward from the statistics the forward would return (computed here, uploaded as float).
struct BackwardCase {
    const char *name;
    fe_data_type io;
    bool rms;
    bool zero_centered;
};

class LayerNormBackward : public NormGpu, public ::testing::WithParamInterface<BackwardCase> {};

TEST_P(LayerNormBackward, MatchesCpuReference) {
    const BackwardCase &c = GetParam();
    const int64_t rows = 384, hidden = 512;
    fe_graph *g = graph(c.rms ? "rmsnorm_backward" : "layernorm_backward", c.io);
    fe_tensor *x = tensor(g, "x", {rows, hidden}), *dy = tensor(g, "dy", {rows, hidden});
    fe_tensor *s = float_tensor(g, "scale", {1, hidden});
    fe_tensor *mean = c.rms ? nullptr : float_tensor(g, "mean", {rows, 1});
    fe_tensor *inv = float_tensor(g, c.rms ? "inv_rms" : "inv_variance", {rows, 1});
    fe_tensor *dx = nullptr, *ds = nullptr, *db = nullptr;
    fe_norm_backward_options o = FE_NORM_BACKWARD_OPTIONS_INIT;
    o.zero_centered_gamma = c.zero_centered;
    if (c.rms) {
        ASSERT_FE_OK(fe_graph_rmsnorm_backward(g, dy, x, s, inv, &o, &dx, &ds, &db));
    } else {
        ASSERT_FE_OK(fe_graph_layernorm_backward(g, dy, x, s, mean, inv, &o, &dx, &ds, &db));
    }
    set_outputs({dx, ds, db});
    build(g);
    Bound &bx = bind(x, true, -1, 3), &bdy = bind(dy, true, -1, 1);
    Bound &bs = c.zero_centered ? bind(s, true, -0.5f, 0.5f) : bind(s, true, 0.5f, 1.5f);
    NormSpec spec;
    spec.stats = {rows, 1};
    spec.rms = c.rms;
    spec.zero_centered = c.zero_centered;
    NormForwardRef stats = norm_forward_reference(bx, bs, nullptr, spec);
    Bound &bi = bind_values(inv, stats.inv);
    Bound *bm = c.rms ? nullptr : &bind_values(mean, stats.mean);
    Bound &bdx = bind(dx, false), &bds = bind(ds, false), &bdb = bind(db, false);
    std::vector<Bound *> all = {&bx, &bdy, &bs, &bi, &bdx, &bds, &bdb};
    if (bm) all.push_back(bm);
    execute(g, all);
    download(bdx);
    download(bds);
    download(bdb);
    NormBackwardRef ref = norm_backward_reference(bdy, bx, bs, bm, bi, spec);
    expect_close(bdx, ref.dx, norm_atol(c.io), norm_rtol(c.io), norm_for(c.io));
    // Sums over the rows, written in float.
    expect_close(bds, ref.dscale, 2e-2, 1e-2, 2e-3);
    expect_close(bdb, ref.dbias, 2e-2, 1e-2, 2e-3);
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, LayerNormBackward,
    ::testing::Values(BackwardCase{"layernorm_fp16", FE_DATA_HALF, false, false},
                      BackwardCase{"layernorm_bf16", FE_DATA_BFLOAT16, false, false},
                      BackwardCase{"layernorm_fp32", FE_DATA_FLOAT, false, false},
                      BackwardCase{"rmsnorm_fp16", FE_DATA_HALF, true, false},
                      BackwardCase{"rmsnorm_bf16", FE_DATA_BFLOAT16, true, false},
                      BackwardCase{"rmsnorm_fp32", FE_DATA_FLOAT, true, false},
                      BackwardCase{"layernorm_zero_centered_bf16", FE_DATA_BFLOAT16, false, true},
                      BackwardCase{"rmsnorm_zero_centered_bf16", FE_DATA_BFLOAT16, true, true}),
    [](const ::testing::TestParamInfo<BackwardCase> &info) { return std::string(info.param.name); });

TEST_F(NormGpu, RmsnormBackwardWithoutBiasGradient) {
    fe_graph *g = graph("rmsnorm_backward_no_dbias", FE_DATA_BFLOAT16);
    fe_tensor *x = tensor(g, "x", {256, 1024}), *dy = tensor(g, "dy", {256, 1024});
    fe_tensor *s = float_tensor(g, "scale", {1, 1024}), *inv = float_tensor(g, "inv_rms", {256, 1});
    fe_tensor *dx = nullptr, *ds = nullptr;
    ASSERT_FE_OK(fe_graph_rmsnorm_backward(g, dy, x, s, inv, nullptr, &dx, &ds, nullptr));
    set_outputs({dx, ds});
    build(g);
    Bound &bx = bind(x, true, -2, 2), &bdy = bind(dy, true, -1, 1), &bs = bind(s, true, 0.5f, 1.5f);
    NormSpec spec;
    spec.stats = {256, 1};
    spec.rms = true;
    Bound &bi = bind_values(inv, norm_forward_reference(bx, bs, nullptr, spec).inv);
    Bound &bdx = bind(dx, false), &bds = bind(ds, false);
    execute(g, {&bx, &bdy, &bs, &bi, &bdx, &bds});
    download(bdx);
    download(bds);
    NormBackwardRef ref = norm_backward_reference(bdy, bx, bs, nullptr, bi, spec);
    expect_close(bdx, ref.dx, norm_atol(FE_DATA_BFLOAT16), norm_rtol(FE_DATA_BFLOAT16), norm_for(FE_DATA_BFLOAT16));
    expect_close(bds, ref.dscale, 2e-2, 1e-2, 2e-3);
}

// Zero-centred gamma: y uses (1 + scale); with scale 0 the norm is the plain normalization.
TEST_F(NormGpu, ZeroCenteredGammaForward) {
    for (bool rms : {false, true}) {
        SCOPED_TRACE(rms ? "rmsnorm" : "layernorm");
        fe_graph *g = graph("zero_centered", FE_DATA_BFLOAT16);
        fe_tensor *x = tensor(g, "x", {512, 768}), *s = float_tensor(g, "scale", {1, 768});
        fe_tensor *b = float_tensor(g, "bias", {1, 768}), *y = nullptr, *mean = nullptr, *inv = nullptr;
        fe_norm_options o = FE_NORM_OPTIONS_INIT;
        o.phase = FE_NORM_PHASE_TRAINING;
        o.zero_centered_gamma = 1;
        if (rms) {
            ASSERT_FE_OK(fe_graph_rmsnorm(g, x, s, b, &o, &y, &inv));
            set_outputs({y, inv});
        } else {
            ASSERT_FE_OK(fe_graph_layernorm(g, x, s, b, &o, &y, &mean, &inv));
            set_outputs({y, mean, inv});
        }
        build(g);
        Bound &bx = bind(x, true, -1, 3), &bs = bind(s, true, -0.5f, 0.5f), &bb = bind(b, true, -1, 1);
        Bound &by = bind(y, false), &bi = bind(inv, false);
        std::vector<Bound *> all = {&bx, &bs, &bb, &by, &bi};
        Bound *bm = rms ? nullptr : &bind(mean, false);
        if (bm) all.push_back(bm);
        execute(g, all);
        download(by);
        download(bi);
        NormSpec spec;
        spec.stats = {512, 1};
        spec.rms = rms;
        spec.zero_centered = true;
        NormForwardRef ref = norm_forward_reference(bx, bs, &bb, spec);
        expect_close(by, ref.y, norm_atol(FE_DATA_BFLOAT16), norm_rtol(FE_DATA_BFLOAT16), norm_for(FE_DATA_BFLOAT16));
        expect_stats_close(bi, ref.inv);
    }
}

// The transformer layout [b, s, hidden] normalized over hidden, and an image layernorm over
// [C, H, W] in channels-last memory; epsilon as a scalar tensor.
TEST_F(NormGpu, LayernormOverLastDimAndOverImages) {
    struct Shape {
        std::vector<int64_t> x, scale, stats;
        bool channels_last;
    };
    for (const Shape &shape : {Shape{{4, 96, 320}, {1, 1, 320}, {4, 96, 1}, false},
                               Shape{{8, 16, 8, 8}, {1, 16, 8, 8}, {8, 1, 1, 1}, true}}) {
        SCOPED_TRACE(shape.channels_last ? "image" : "tokens");
        fe_graph *g = graph("layernorm_shapes", FE_DATA_HALF);
        fe_tensor *x = tensor(g, "x", shape.x, shape.channels_last);
        fe_tensor *s = float_tensor(g, "scale", shape.scale, shape.channels_last);
        fe_tensor *b = float_tensor(g, "bias", shape.scale, shape.channels_last), *eps = nullptr;
        ASSERT_FE_OK(fe_graph_scalar(g, "eps", 1e-3, FE_DATA_FLOAT, &eps));
        fe_norm_options o = FE_NORM_OPTIONS_INIT;
        o.phase = FE_NORM_PHASE_TRAINING;
        o.epsilon_tensor = eps;
        fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr;
        ASSERT_FE_OK(fe_graph_layernorm(g, x, s, b, &o, &y, &mean, &inv));
        set_outputs({y, mean, inv});
        build(g);
        Bound &bx = bind(x, true, -1, 3), &bs = bind(s, true, 0.5f, 1.5f), &bb = bind(b, true, -1, 1);
        Bound &by = bind(y, false), &bm = bind(mean, false), &bi = bind(inv, false);
        execute(g, {&bx, &bs, &bb, &by, &bm, &bi});
        download(by);
        download(bm);
        download(bi);
        NormSpec spec;
        spec.stats = shape.stats;
        spec.epsilon = 1e-3;
        expect_forward_close(FE_DATA_HALF, spec, bx, bs, bb, by, bm, bi);
    }
}

}  // namespace
