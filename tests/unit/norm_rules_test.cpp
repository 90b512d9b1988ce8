// Normalizations and softmax without cuDNN: shape and type inference, and every error path of
// their entry points (with the message naming the call and the cause, outputs untouched).
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

fe_tensor *const kUntouched = reinterpret_cast<fe_tensor *>(0x1);

class Norms : public cudnnfe_test::GraphTest {
  protected:
    Norms() : GraphTest("g", FE_DATA_BFLOAT16) {}
    size_t outputs() {
        size_t n = 0;
        fe_graph_output_count(g, &n);
        return n;
    }
    static fe_norm_options training() {
        fe_norm_options o = FE_NORM_OPTIONS_INIT;
        o.phase = FE_NORM_PHASE_TRAINING;
        return o;
    }
};

TEST_F(Norms, LayernormTrainingInfersStatisticsPerToken) {
    fe_tensor *x = tensor("x", {1024, 512}), *s = tensor("s", {1, 512}, FE_DATA_FLOAT),
              *b = tensor("b", {1, 512}, FE_DATA_FLOAT);
    fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr;
    fe_norm_options o = training();
    ASSERT_FE_OK(fe_graph_layernorm(g, x, s, b, &o, &y, &mean, &inv));
    EXPECT_EQ(dims(y), (std::vector<int64_t>{1024, 512}));
    EXPECT_EQ(dims(mean), (std::vector<int64_t>{1024, 1}));
    EXPECT_EQ(dims(inv), (std::vector<int64_t>{1024, 1}));
    EXPECT_EQ(type(mean), FE_DATA_FLOAT);
    EXPECT_EQ(type(inv), FE_DATA_FLOAT);
    EXPECT_STREQ(name_of(y), "layernorm_0::Y");
    EXPECT_STREQ(name_of(mean), "layernorm_0::Mean");
    EXPECT_STREQ(name_of(inv), "layernorm_0::InvVariance");
}

TEST_F(Norms, LayernormOverTheLastDimOfThreeAndImages) {
    fe_tensor *x = tensor("x", {4, 128, 256}), *s = tensor("s", {1, 1, 256}), *b = tensor("b", {1, 1, 256});
    fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr;
    fe_norm_options o = training();
    ASSERT_FE_OK(fe_graph_layernorm(g, x, s, b, &o, &y, &mean, &inv));
    EXPECT_EQ(dims(mean), (std::vector<int64_t>{4, 128, 1}));
    fe_tensor *img = tensor("img", {8, 16, 4, 4}, FE_DATA_NOT_SET, true), *si = tensor("si", {1, 16, 4, 4}),
              *bi = tensor("bi", {1, 16, 4, 4});
    ASSERT_FE_OK(fe_graph_layernorm(g, img, si, bi, &o, &y, &mean, &inv));
    EXPECT_EQ(dims(mean), (std::vector<int64_t>{8, 1, 1, 1}));
    EXPECT_EQ(strides(y), strides(img)) << "y keeps x's layout";
}

TEST_F(Norms, InferenceReturnsNoStatisticsAndSetsThemToNull) {
    fe_tensor *x = tensor("x", {64, 32}), *s = tensor("s", {1, 32}), *b = tensor("b", {1, 32});
    fe_tensor *y = nullptr, *mean = kUntouched, *inv = kUntouched;
    ASSERT_FE_OK(fe_graph_layernorm(g, x, s, b, nullptr, &y, &mean, &inv));
    EXPECT_EQ(mean, nullptr);
    EXPECT_EQ(inv, nullptr);
    ASSERT_FE_OK(fe_graph_layernorm(g, x, s, b, nullptr, &y, nullptr, nullptr));
    fe_tensor *r = kUntouched;
    ASSERT_FE_OK(fe_graph_rmsnorm(g, x, s, nullptr, nullptr, &y, &r));
    EXPECT_EQ(r, nullptr);
}

TEST_F(Norms, RmsnormHasOnlyTheInverseRms) {
    fe_tensor *x = tensor("x", {2, 64, 128}), *s = tensor("s", {1, 1, 128}, FE_DATA_FLOAT);
    fe_tensor *y = nullptr, *inv = nullptr;
    fe_norm_options o = training();
    ASSERT_FE_OK(fe_graph_rmsnorm(g, x, s, nullptr, &o, &y, &inv));
    EXPECT_STREQ(name_of(inv), "rmsnorm_0::InvRms");
    EXPECT_EQ(dims(inv), (std::vector<int64_t>{2, 64, 1}));
    // Zero-centred gamma with every dim after the first normalized.
    fe_tensor *rows = tensor("rows", {128, 128}), *s2 = tensor("s2", {1, 128}, FE_DATA_FLOAT);
    o.zero_centered_gamma = 1;
    ASSERT_FE_OK(fe_graph_rmsnorm(g, rows, s2, nullptr, &o, &y, &inv));
    EXPECT_EQ(dims(inv), (std::vector<int64_t>{128, 1}));
}

TEST_F(Norms, ChannelNormsTakePerChannelScale) {
    fe_tensor *x = tensor("x", {8, 32, 16, 16}, FE_DATA_HALF, true), *s = tensor("s", {1, 32, 1, 1}, FE_DATA_FLOAT),
              *b = tensor("b", {1, 32, 1, 1}, FE_DATA_FLOAT);
    fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr, *nm = kUntouched, *nv = kUntouched;
    fe_norm_options o = training();
    ASSERT_FE_OK(fe_graph_instancenorm(g, x, s, b, &o, &y, &mean, &inv));
    EXPECT_EQ(dims(mean), (std::vector<int64_t>{8, 32, 1, 1}));
    ASSERT_FE_OK(fe_graph_batchnorm(g, x, s, b, nullptr, &y, &mean, &inv, &nm, &nv));
    EXPECT_EQ(dims(mean), (std::vector<int64_t>{1, 32, 1, 1}));
    EXPECT_EQ(nm, nullptr);
    EXPECT_EQ(nv, nullptr);
    fe_batchnorm_options bo = FE_BATCHNORM_OPTIONS_INIT;
    bo.running_mean = tensor("rm", {1, 32, 1, 1}, FE_DATA_FLOAT);
    bo.running_var = tensor("rv", {1, 32, 1, 1}, FE_DATA_FLOAT);
    ASSERT_FE_OK(fe_graph_batchnorm(g, x, s, b, &bo, &y, &mean, &inv, &nm, &nv));
    EXPECT_STREQ(name_of(nm), "batchnorm_1::NextRunningMean");
    EXPECT_EQ(dims(nv), (std::vector<int64_t>{1, 32, 1, 1}));
    EXPECT_EQ(type(nv), FE_DATA_FLOAT);
}

TEST_F(Norms, AdalayernormTakesPerSampleScale) {
    fe_tensor *x = tensor("x", {4, 64, 128}), *s = tensor("s", {4, 1, 128}, FE_DATA_FLOAT);
    fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr;
    fe_norm_options o = training();
    ASSERT_FE_OK(fe_graph_adalayernorm(g, x, s, nullptr, &o, &y, &mean, &inv));
    EXPECT_EQ(dims(mean), (std::vector<int64_t>{4, 64, 1}));
    fe_tensor *dy = tensor("dy", {4, 64, 128}), *dx = nullptr, *ds = nullptr;
    ASSERT_FE_OK(fe_graph_adalayernorm_backward(g, dy, x, s, mean, inv, nullptr, &dx, &ds, nullptr));
    EXPECT_EQ(dims(ds), (std::vector<int64_t>{4, 1, 128}));
}

TEST_F(Norms, BackwardGradientsTakeScalesShapeAndType) {
    fe_tensor *x = tensor("x", {256, 64}), *dy = tensor("dy", {256, 64}), *s = tensor("s", {1, 64}, FE_DATA_FLOAT);
    fe_tensor *mean = tensor("mean", {256, 1}, FE_DATA_FLOAT), *inv = tensor("inv", {256, 1}, FE_DATA_FLOAT);
    fe_tensor *dx = nullptr, *ds = nullptr, *db = nullptr;
    ASSERT_FE_OK(fe_graph_layernorm_backward(g, dy, x, s, mean, inv, nullptr, &dx, &ds, &db));
    EXPECT_EQ(dims(dx), (std::vector<int64_t>{256, 64}));
    EXPECT_EQ(dims(ds), (std::vector<int64_t>{1, 64}));
    EXPECT_EQ(type(ds), FE_DATA_FLOAT);
    EXPECT_EQ(type(db), FE_DATA_FLOAT);
    EXPECT_STREQ(name_of(db), "layernorm_backward_0::DBias");
    // rmsnorm without a bias gradient: two results only.
    fe_tensor *dx2 = nullptr, *ds2 = nullptr;
    ASSERT_FE_OK(fe_graph_rmsnorm_backward(g, dy, x, s, inv, nullptr, &dx2, &ds2, nullptr));
    fe_tensor *found = nullptr;
    EXPECT_FE_STATUS(fe_graph_tensor_by_name(g, "rmsnorm_backward_0::DBias", &found), FE_STATUS_NOT_FOUND);
}

TEST_F(Norms, EpsilonTensorIsReshapedAndTakenAsFloat) {
    fe_tensor *x = tensor("x", {64, 32}), *s = tensor("s", {1, 32}), *b = tensor("b", {1, 32});
    fe_tensor *eps = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_scalar(g, "eps", 1e-6, FE_DATA_FLOAT, &eps));
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    o.epsilon_tensor = eps;
    ASSERT_FE_OK(fe_graph_layernorm(g, x, s, b, &o, &y, nullptr, nullptr));
    EXPECT_EQ(dims(eps), (std::vector<int64_t>{1, 1}));
    fe_tensor *img = tensor("img", {8, 4, 2, 2}), *cs = tensor("cs", {1, 4, 1, 1});
    fe_batchnorm_options bo = FE_BATCHNORM_OPTIONS_INIT;
    bo.running_mean = tensor("rm", {1, 4, 1, 1}, FE_DATA_FLOAT);
    bo.running_var = tensor("rv", {1, 4, 1, 1}, FE_DATA_FLOAT);
    ASSERT_FE_OK(fe_graph_scalar(g, "momentum", 0.01, FE_DATA_FLOAT, &bo.momentum_tensor));
    fe_tensor *m = nullptr, *v = nullptr, *nm = nullptr, *nv = nullptr;
    ASSERT_FE_OK(fe_graph_batchnorm(g, img, cs, cs, &bo, &y, &m, &v, &nm, &nv));
    EXPECT_EQ(dims(bo.momentum_tensor), (std::vector<int64_t>{1, 1, 1, 1}));
    bo.momentum_tensor = tensor("device_momentum", {1}, FE_DATA_FLOAT);
    EXPECT_FE_REFUSED(fe_graph_batchnorm(g, img, cs, cs, &bo, &y, &m, &v, &nm, &nv), FE_STATUS_INVALID_ARGUMENT,
                      "momentum_tensor 'device_momentum' is a device tensor");
}

TEST_F(Norms, MismatchedScaleAndBiasAreRefused) {
    fe_tensor *x = tensor("x", {64, 512}), *y = kUntouched;
    fe_tensor *wrong = tensor("wrong", {1, 256}), *s = tensor("s", {1, 512}), *b3 = tensor("b3", {1, 1, 512});
    EXPECT_FE_REFUSED(fe_graph_layernorm(g, x, wrong, wrong, nullptr, &y, nullptr, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_layernorm: scale 'wrong' is [1,256] for x [64,512]: dim 1 must be 512");
    EXPECT_FE_REFUSED(fe_graph_layernorm(g, x, s, b3, nullptr, &y, nullptr, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "bias 'b3' is [1,1,512]; it must be [1,512]");
    EXPECT_FE_REFUSED(fe_graph_layernorm(g, x, b3, b3, nullptr, &y, nullptr, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "scale needs x's rank");
    fe_tensor *batched = tensor("batched", {64, 512});
    EXPECT_FE_STATUS(fe_graph_layernorm(g, x, batched, batched, nullptr, &y, nullptr, nullptr),
                     FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("its dim 0 must be 1"));
    fe_tensor *none = tensor("none", {1, 1});
    EXPECT_FE_REFUSED(fe_graph_rmsnorm(g, x, none, nullptr, nullptr, &y, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "it names no dim to normalize over");
    fe_tensor *img = tensor("img", {8, 32, 4, 4}), *cs = tensor("cs", {1, 32, 4, 4});
    fe_tensor *m = kUntouched, *v = kUntouched, *nm = kUntouched, *nv = kUntouched;
    EXPECT_FE_REFUSED(fe_graph_batchnorm(g, img, cs, cs, nullptr, &y, &m, &v, &nm, &nv), FE_STATUS_INVALID_ARGUMENT,
                      "scale 'cs' is [1,32,4,4]; for x [8,32,4,4] it must be [1,32,1,1]");
    EXPECT_EQ(y, kUntouched);
    EXPECT_EQ(m, kUntouched);
    EXPECT_EQ(outputs(), 0u);
}

TEST_F(Norms, BadEpsilonIsRefused) {
    fe_tensor *x = tensor("x", {64, 32}), *s = tensor("s", {1, 32}), *b = tensor("b", {1, 32}), *y = kUntouched;
    for (double bad : {-1e-5, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
        fe_norm_options o = FE_NORM_OPTIONS_INIT;
        o.epsilon = bad;
        EXPECT_FE_REFUSED(fe_graph_layernorm(g, x, s, b, &o, &y, nullptr, nullptr), FE_STATUS_INVALID_ARGUMENT,
                          "fe_graph_layernorm: options.epsilon is");
        EXPECT_TRUE(LastErrorContains("it must be finite and at least 0 (added to the variance)"));
    }
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    o.epsilon_tensor = tensor("eps_device", {1}, FE_DATA_FLOAT);
    EXPECT_FE_REFUSED(fe_graph_layernorm(g, x, s, b, &o, &y, nullptr, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "epsilon_tensor 'eps_device' is a device tensor, but cuDNN reads it only by value: "
                      "make it with fe_graph_scalar");
    ASSERT_FE_OK(fe_graph_scalar(g, "eps_half", 1e-5, FE_DATA_HALF, &o.epsilon_tensor));
    EXPECT_FE_REFUSED(fe_graph_layernorm(g, x, s, b, &o, &y, nullptr, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "epsilon_tensor 'eps_half' is half; it must be float");
    fe_batchnorm_options bo = FE_BATCHNORM_OPTIONS_INIT;
    bo.epsilon = -1;
    fe_tensor *img = tensor("img", {8, 4, 2, 2}), *cs = tensor("cs", {1, 4, 1, 1}), *m = nullptr, *v = nullptr;
    EXPECT_FE_STATUS(fe_graph_batchnorm(g, img, cs, cs, &bo, &y, &m, &v, nullptr, nullptr),
                     FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("fe_graph_batchnorm: options.epsilon is -1"));
    EXPECT_EQ(y, kUntouched);
}

TEST_F(Norms, WrongRanksAndTypesAreRefused) {
    fe_tensor *x1 = tensor("x1", {512}), *s1 = tensor("s1", {512}), *y = kUntouched;
    EXPECT_FE_REFUSED(fe_graph_layernorm(g, x1, s1, s1, nullptr, &y, nullptr, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "x 'x1' has rank 1; a normalization takes [batch, ...] with at least 2 dims");
    fe_tensor *x2 = tensor("x2", {64, 32}), *s2 = tensor("s2", {1, 32});
    fe_tensor *m = kUntouched, *v = kUntouched;
    EXPECT_FE_REFUSED(fe_graph_instancenorm(g, x2, s2, s2, nullptr, &y, &m, &v), FE_STATUS_INVALID_ARGUMENT,
                      "has rank 2; this normalization takes [N, C, spatial...]");
    fe_tensor *xi = tensor("xi", {64, 32}, FE_DATA_INT32);
    EXPECT_FE_REFUSED(fe_graph_layernorm(g, xi, s2, s2, nullptr, &y, nullptr, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "x 'xi' is int32; it must be half, bfloat16 or float");
    fe_tensor *dy = tensor("dy", {64, 32}), *half_mean = tensor("half_mean", {64, 1}, FE_DATA_HALF);
    fe_tensor *inv = tensor("inv", {64, 1}, FE_DATA_FLOAT), *dx = kUntouched, *ds = kUntouched, *db = kUntouched;
    EXPECT_FE_STATUS(fe_graph_layernorm_backward(g, dy, x2, s2, half_mean, inv, nullptr, &dx, &ds, &db),
                     FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("mean 'half_mean' is half; it must be float"));
    fe_tensor *short_inv = tensor("short_inv", {32, 1}, FE_DATA_FLOAT);
    EXPECT_FE_STATUS(fe_graph_rmsnorm_backward(g, dy, x2, s2, short_inv, nullptr, &dx, &ds, nullptr),
                     FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("inv_rms 'short_inv' is [32,1]; it must be [64,1]"));
    fe_tensor *dy_wrong = tensor("dy_wrong", {64, 16});
    EXPECT_FE_STATUS(fe_graph_layernorm_backward(g, dy_wrong, x2, s2, inv, inv, nullptr, &dx, &ds, &db),
                     FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("dy 'dy_wrong' is [64,16]; it must be [64,32]"));
    EXPECT_EQ(dx, kUntouched);
    // Types left to the graph's defaults are checked at validation.
    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.io_data_type = FE_DATA_INT8;
    fe_graph *int_graph = nullptr;
    ASSERT_FE_OK(fe_graph_create(&go, &int_graph));
    int64_t xd[2] = {64, 32}, sd[2] = {1, 32};
    fe_tensor *xq = nullptr, *sq = nullptr, *yq = nullptr;
    ASSERT_FE_OK(fe_graph_tensor(int_graph, "x", 2, xd, nullptr, FE_DATA_NOT_SET, &xq));
    ASSERT_FE_OK(fe_graph_tensor(int_graph, "s", 2, sd, nullptr, FE_DATA_FLOAT, &sq));
    ASSERT_FE_OK(fe_graph_rmsnorm(int_graph, xq, sq, nullptr, nullptr, &yq, nullptr));
    ASSERT_FE_OK(fe_tensor_set_output(yq, 1));
    EXPECT_FE_REFUSED(fe_graph_validate(int_graph), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_validate: rmsnorm 'rmsnorm_0': x 'x' is int8");
    fe_graph_destroy(int_graph);
}

TEST_F(Norms, TrainingNeedsItsStatisticsOutputs) {
    fe_tensor *x = tensor("x", {64, 32}), *s = tensor("s", {1, 32}), *b = tensor("b", {1, 32});
    fe_tensor *y = kUntouched, *mean = kUntouched, *inv = kUntouched;
    fe_norm_options o = training();
    EXPECT_FE_REFUSED(fe_graph_layernorm(g, x, s, b, &o, &y, nullptr, &inv), FE_STATUS_NULL_POINTER,
                      "fe_graph_layernorm: options.phase asks for the Mean output, but out_mean is NULL");
    EXPECT_FE_REFUSED(fe_graph_layernorm(g, x, s, b, &o, &y, &mean, nullptr), FE_STATUS_NULL_POINTER,
                      "out_inv_variance is NULL");
    EXPECT_FE_REFUSED(fe_graph_rmsnorm(g, x, s, nullptr, &o, &y, nullptr), FE_STATUS_NULL_POINTER,
                      "fe_graph_rmsnorm: options.phase asks for the InvRms output, but out_inv_rms is NULL");
    fe_tensor *img = tensor("img", {8, 4, 2, 2}), *cs = tensor("cs", {1, 4, 1, 1});
    fe_batchnorm_options bo = FE_BATCHNORM_OPTIONS_INIT;
    bo.running_mean = tensor("rm", {1, 4, 1, 1}, FE_DATA_FLOAT);
    bo.running_var = tensor("rv", {1, 4, 1, 1}, FE_DATA_FLOAT);
    fe_tensor *nm = kUntouched;
    EXPECT_FE_REFUSED(fe_graph_batchnorm(g, img, cs, cs, &bo, &y, &mean, &inv, &nm, nullptr), FE_STATUS_NULL_POINTER,
                      "options.running_var asks for the NextRunningVar output, but out_next_running_var is NULL");
    EXPECT_EQ(y, kUntouched);
    EXPECT_EQ(mean, kUntouched);
    EXPECT_EQ(nm, kUntouched);
}

TEST_F(Norms, TrainingStatisticsLeftUnmarkedFailValidation) {
    fe_tensor *x = tensor("x", {64, 32}), *s = tensor("s", {1, 32}), *b = tensor("b", {1, 32});
    fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr;
    fe_norm_options o = training();
    ASSERT_FE_OK(fe_graph_layernorm(g, x, s, b, &o, &y, &mean, &inv));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    ASSERT_FE_OK(fe_tensor_set_output(inv, 1));
    EXPECT_FE_REFUSED(fe_graph_validate(g), FE_STATUS_VALIDATION,
                      "result 'layernorm_0::Mean' is neither used nor marked as an output");
    ASSERT_FE_OK(fe_tensor_set_output(mean, 1));
    EXPECT_FE_OK(fe_graph_validate(g));
}

TEST_F(Norms, OptionsAreChecked) {
    fe_tensor *x = tensor("x", {64, 32}), *s = tensor("s", {1, 32}), *b = tensor("b", {1, 32}), *y = kUntouched;
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    o.struct_size = 0;
    EXPECT_FE_REFUSED(fe_graph_layernorm(g, x, s, b, &o, &y, nullptr, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "initialize options with their _INIT macro");
    o = FE_NORM_OPTIONS_INIT;
    o.phase = static_cast<fe_norm_phase>(7);
    EXPECT_FE_REFUSED(fe_graph_layernorm(g, x, s, b, &o, &y, nullptr, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "options.phase is 7, not an fe_norm_phase (inference, training)");
    fe_tensor *img = tensor("img", {8, 4, 2, 2}), *cs = tensor("cs", {1, 4, 1, 1});
    o = FE_NORM_OPTIONS_INIT;
    o.zero_centered_gamma = 1;
    fe_tensor *m = nullptr, *v = nullptr;
    EXPECT_FE_REFUSED(fe_graph_instancenorm(g, img, cs, cs, &o, &y, &m, &v), FE_STATUS_INVALID_ARGUMENT,
                      "options.zero_centered_gamma is not taken by instancenorm");
    fe_tensor *x3 = tensor("x3", {4, 16, 32}), *s3 = tensor("s3", {1, 1, 32}), *s3b = tensor("s3b", {4, 1, 32});
    EXPECT_FE_REFUSED(fe_graph_rmsnorm(g, x3, s3, nullptr, &o, &y, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "zero_centered_gamma needs every dim after the first normalized (statistics [4,16,1] "
                      "would be per index of dim 1 too); view x as [rows, normalized...]");
    EXPECT_FE_REFUSED(fe_graph_adalayernorm(g, x3, s3b, nullptr, &o, &y, &m, &v), FE_STATUS_INVALID_ARGUMENT,
                      "options.zero_centered_gamma is not taken by adalayernorm");
    fe_norm_backward_options bo = FE_NORM_BACKWARD_OPTIONS_INIT;
    bo.zero_centered_gamma = 1;
    fe_tensor *dx = kUntouched, *ds = nullptr, *db = nullptr, *stats = tensor("stats", {1, 4, 1, 1}, FE_DATA_FLOAT);
    EXPECT_FE_STATUS(fe_graph_batchnorm_backward(g, img, img, cs, stats, stats, &bo, &dx, &ds, &db),
                     FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("options.zero_centered_gamma is not taken by batchnorm_backward"));

    fe_batchnorm_options bn = FE_BATCHNORM_OPTIONS_INIT;
    bn.running_mean = tensor("rm", {1, 4, 1, 1}, FE_DATA_FLOAT);
    fe_tensor *nm = nullptr, *nv = nullptr;
    EXPECT_FE_REFUSED(fe_graph_batchnorm(g, img, cs, cs, &bn, &y, &m, &v, &nm, &nv), FE_STATUS_INVALID_ARGUMENT,
                      "give both running_mean and running_var, or neither");
    bn.running_var = tensor("rv", {1, 4, 1, 1}, FE_DATA_FLOAT);
    bn.momentum = 1.5;
    EXPECT_FE_REFUSED(fe_graph_batchnorm(g, img, cs, cs, &bn, &y, &m, &v, &nm, &nv), FE_STATUS_INVALID_ARGUMENT,
                      "options.momentum is 1.5; it must be 0 to 1");
    bn = FE_BATCHNORM_OPTIONS_INIT;
    ASSERT_FE_OK(fe_graph_scalar(g, "momentum", 0.1, FE_DATA_FLOAT, &bn.momentum_tensor));
    EXPECT_FE_REFUSED(fe_graph_batchnorm(g, img, cs, cs, &bn, &y, &m, &v, &nm, &nv), FE_STATUS_INVALID_ARGUMENT,
                      "momentum_tensor is given without running statistics to update");
    bn = FE_BATCHNORM_OPTIONS_INIT;
    bn.running_mean = tensor("rm_half", {1, 4, 1, 1}, FE_DATA_HALF);
    bn.running_var = tensor("rv_wide", {1, 8, 1, 1}, FE_DATA_FLOAT);
    EXPECT_FE_REFUSED(fe_graph_batchnorm(g, img, cs, cs, &bn, &y, &m, &v, &nm, &nv), FE_STATUS_INVALID_ARGUMENT,
                      "running_mean 'rm_half' is half; it must be float");
    bn.running_mean = tensor("rm2", {1, 4, 1, 1}, FE_DATA_FLOAT);
    EXPECT_FE_REFUSED(fe_graph_batchnorm(g, img, cs, cs, &bn, &y, &m, &v, &nm, &nv), FE_STATUS_INVALID_ARGUMENT,
                      "running_var 'rv_wide' is [1,8,1,1]; it must be [1,4,1,1]");
    EXPECT_EQ(y, kUntouched);
    EXPECT_EQ(dx, kUntouched);
}

// Synchronized batchnorm's peer statistics: set only through the setters (which count them),
// one float [2, 4 * C, 1, 1] buffer per GPU of a group of 2 to 8, batchnorm's alone.
TEST_F(Norms, PeerStatsAreChecked) {
    fe_tensor *img = tensor("img", {8, 4, 2, 2}), *cs = tensor("cs", {1, 4, 1, 1}, FE_DATA_FLOAT);
    fe_tensor *peers[9];
    for (int i = 0; i < 9; ++i) peers[i] = tensor(("peer" + std::to_string(i)).c_str(), {2, 16, 1, 1}, FE_DATA_FLOAT);
    fe_batchnorm_options bn = FE_BATCHNORM_OPTIONS_INIT;
    EXPECT_FE_STATUS(fe_batchnorm_options_set_peer_stats(&bn, 9, peers), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("fe_batchnorm_options_set_peer_stats: 9 peer statistics buffers; at most 8 GPUs"))
        << fe_last_error_message();
    fe_tensor *with_null[2] = {peers[0], nullptr};
    EXPECT_FE_REFUSED(fe_batchnorm_options_set_peer_stats(&bn, 2, with_null), FE_STATUS_NULL_POINTER,
                      "peer_stats[1] is NULL");
    EXPECT_EQ(bn.peer_stats_count, 0u);
    fe_batchnorm_options old = FE_BATCHNORM_OPTIONS_INIT;
    old.struct_size = static_cast<uint32_t>(offsetof(fe_batchnorm_options, peer_stats_count));
    EXPECT_FE_REFUSED(fe_batchnorm_options_set_peer_stats(&old, 2, peers), FE_STATUS_INVALID_ARGUMENT,
                      "these options predate peer statistics");

    fe_tensor *y = kUntouched, *m = nullptr, *v = nullptr, *nm = nullptr, *nv = nullptr;
    ASSERT_FE_OK(fe_batchnorm_options_set_peer_stats(&bn, 1, peers));
    EXPECT_FE_REFUSED(fe_graph_batchnorm(g, img, cs, cs, &bn, &y, &m, &v, &nm, &nv), FE_STATUS_INVALID_ARGUMENT,
                      "peer_stats_count is 1: synchronizing needs a buffer per GPU of the group");
    fe_tensor *narrow[2] = {peers[0], tensor("narrow", {2, 8, 1, 1}, FE_DATA_FLOAT)};
    ASSERT_FE_OK(fe_batchnorm_options_set_peer_stats(&bn, 2, narrow));
    EXPECT_FE_STATUS(fe_graph_batchnorm(g, img, cs, cs, &bn, &y, &m, &v, &nm, &nv), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("peer_stats_1 'narrow' is [2,8,1,1]; it must be [2,16,1,1]")) << fe_last_error_message();
    fe_tensor *halves[2] = {peers[0], tensor("half_peer", {2, 16, 1, 1}, FE_DATA_HALF)};
    ASSERT_FE_OK(fe_batchnorm_options_set_peer_stats(&bn, 2, halves));
    EXPECT_FE_STATUS(fe_graph_batchnorm(g, img, cs, cs, &bn, &y, &m, &v, &nm, &nv), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("peer_stats_1 'half_peer' is half; it must be float")) << fe_last_error_message();
    EXPECT_EQ(y, kUntouched);
    ASSERT_FE_OK(fe_batchnorm_options_set_peer_stats(&bn, 2, peers));
    ASSERT_FE_OK(fe_graph_batchnorm(g, img, cs, cs, &bn, &y, &m, &v, &nm, &nv));
    char text[4096];
    size_t length = 0;
    ASSERT_FE_OK(fe_graph_describe(g, text, sizeof text, &length));
    EXPECT_NE(std::string(text).find("peers=2"), std::string::npos) << text;

    fe_norm_backward_options bo = FE_NORM_BACKWARD_OPTIONS_INIT;
    ASSERT_FE_OK(fe_norm_backward_options_set_peer_stats(&bo, 2, peers));
    fe_tensor *stats = tensor("stats", {1, 4, 1, 1}, FE_DATA_FLOAT), *dx = kUntouched, *ds = nullptr, *db = nullptr;
    fe_tensor *x2 = tensor("x2", {64, 32}), *s2 = tensor("s2", {1, 32}), *st2 = tensor("st2", {64, 1}, FE_DATA_FLOAT);
    EXPECT_FE_STATUS(fe_graph_layernorm_backward(g, x2, x2, s2, st2, st2, &bo, &dx, &ds, &db), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("options.peer_stats_count is not taken by layernorm_backward")) << fe_last_error_message();
    EXPECT_EQ(dx, kUntouched);
    ASSERT_FE_OK(fe_graph_batchnorm_backward(g, img, img, cs, stats, stats, &bo, &dx, &ds, &db));
    ASSERT_FE_OK(fe_norm_backward_options_set_peer_stats(&bo, 0, nullptr));
    EXPECT_EQ(bo.peer_stats_count, 0u);
    EXPECT_EQ(bo.peer_stats[0], nullptr);

    // The graph JSON names them peer_stats_0, peer_stats_1 and reads them back in that order.
    std::string json(1 << 16, '\0');
    ASSERT_FE_OK(fe_graph_to_json(g, &json[0], json.size(), &length));
    json.resize(length);
    EXPECT_NE(json.find("\"peer_stats_1\":\"peer1\""), std::string::npos) << json;
    fe_graph *back = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(json.data(), json.size(), &back));
    std::string again(1 << 16, '\0');
    ASSERT_FE_OK(fe_graph_to_json(back, &again[0], again.size(), &length));
    again.resize(length);
    EXPECT_EQ(again, json);
    fe_graph_destroy(back);
}

TEST_F(Norms, FailedCallsAddNothingAndKeepAutomaticNames) {
    fe_tensor *x = tensor("x", {64, 32}), *s = tensor("s", {1, 32}), *wrong = tensor("wrong", {1, 16});
    fe_tensor *y = nullptr;
    EXPECT_FE_STATUS(fe_graph_rmsnorm(g, x, wrong, nullptr, nullptr, &y, nullptr), FE_STATUS_INVALID_ARGUMENT);
    ASSERT_FE_OK(fe_graph_rmsnorm(g, x, s, nullptr, nullptr, &y, nullptr));
    EXPECT_STREQ(name_of(y), "rmsnorm_0::Y");
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    o.name = "ln";
    fe_tensor *b = tensor("b", {1, 32});
    ASSERT_FE_OK(fe_graph_layernorm(g, x, s, b, &o, &y, nullptr, nullptr));
    EXPECT_STREQ(name_of(y), "ln::Y");
    EXPECT_FE_STATUS(fe_graph_layernorm(g, x, s, b, &o, &y, nullptr, nullptr), FE_STATUS_DUPLICATE);
}

TEST_F(Norms, DescribeShowsPhaseEpsilonAndZeroCenteredGamma) {
    fe_tensor *x = tensor("x", {64, 32}), *s = tensor("s", {1, 32}), *y = nullptr, *inv = nullptr;
    fe_norm_options o = training();
    o.epsilon = 1e-6;
    o.zero_centered_gamma = 1;
    ASSERT_FE_OK(fe_graph_rmsnorm(g, x, s, nullptr, &o, &y, &inv));
    size_t n = 0;
    fe_graph_describe(g, nullptr, 0, &n);
    std::string text(n + 1, '\0');
    ASSERT_FE_OK(fe_graph_describe(g, &text[0], text.size(), &n));
    EXPECT_NE(text.find("rmsnorm 'rmsnorm_0' (X=x, scale=s) phase=training epsilon=1e-06 zero_centered_gamma"),
              std::string::npos)
        << text;
}

TEST_F(Norms, SoftmaxInfersRowStatistics) {
    fe_tensor *x = tensor("x", {2, 8, 128, 64}), *y = nullptr, *stats = kUntouched;
    ASSERT_FE_OK(fe_graph_softmax(g, x, nullptr, &y, &stats));
    EXPECT_EQ(stats, nullptr);
    fe_softmax_options o = FE_SOFTMAX_OPTIONS_INIT;
    o.generate_stats = 1;
    ASSERT_FE_OK(fe_graph_softmax(g, x, &o, &y, &stats));
    EXPECT_EQ(dims(stats), (std::vector<int64_t>{2, 8, 128, 1}));
    EXPECT_EQ(type(stats), FE_DATA_FLOAT);
    EXPECT_STREQ(name_of(stats), "softmax_1::Stats");
    fe_tensor *before = y;
    EXPECT_FE_REFUSED(fe_graph_softmax(g, x, &o, &y, nullptr), FE_STATUS_NULL_POINTER,
                      "fe_graph_softmax: options.generate_stats asks for the Stats output, but out_stats is NULL");
    fe_tensor *x1 = tensor("x1", {64});
    EXPECT_FE_REFUSED(fe_graph_softmax(g, x1, nullptr, &y, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "x 'x1' has rank 1; softmax takes [rows..., n] with at least 2 dims");
    EXPECT_EQ(y, before);
}

// Every required pointer of the norm entry points.
// bn_finalize: six per-channel inputs, six float per-channel outputs, and the count of summed
// values, epsilon and momentum checked.
TEST_F(Norms, BnFinalizeInfersPerChannelFloatOutputsAndChecksItsOptions) {
    fe_tensor *sum = tensor("sum", {1, 16, 1, 1}, FE_DATA_FLOAT), *sq = tensor("sq", {1, 16, 1, 1}, FE_DATA_FLOAT);
    fe_tensor *scale = tensor("scale", {1, 16, 1, 1}), *bias = tensor("bias", {1, 16, 1, 1});
    fe_tensor *rm = tensor("rm", {1, 16, 1, 1}, FE_DATA_FLOAT), *rv = tensor("rv", {1, 16, 1, 1}, FE_DATA_FLOAT);
    fe_tensor *out[6] = {kUntouched, kUntouched, kUntouched, kUntouched, kUntouched, kUntouched};
    auto finalize = [&](fe_tensor *s, fe_tensor *b, fe_tensor *m, const fe_bn_finalize_options *o) {
        return fe_graph_bn_finalize(g, s, sq, b, bias, m, rv, o, &out[0], &out[1], &out[2], &out[3], &out[4], &out[5]);
    };
    // Without the count, the statistics cannot be finalized.
    EXPECT_FE_REFUSED(finalize(sum, scale, rm, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_bn_finalize: options.accum_count is 0; it must be at least 2");
    EXPECT_EQ(out[0], kUntouched);
    fe_bn_finalize_options o = FE_BN_FINALIZE_OPTIONS_INIT;
    o.accum_count = 8 * 28 * 28;
    fe_tensor *image_sized = tensor("image_sized", {8, 16, 28, 28}, FE_DATA_FLOAT);
    EXPECT_FE_REFUSED(finalize(image_sized, scale, rm, &o), FE_STATUS_INVALID_ARGUMENT,
                      "sum 'image_sized' is [8,16,28,28]; the statistics are per channel");
    fe_tensor *narrow = tensor("narrow", {1, 8, 1, 1});
    EXPECT_FE_REFUSED(finalize(sum, narrow, rm, &o), FE_STATUS_INVALID_ARGUMENT,
                      "scale 'narrow' is [1,8,1,1]; it must be [1,16,1,1]");
    fe_tensor *half_mean = tensor("half_mean", {1, 16, 1, 1}, FE_DATA_HALF);
    EXPECT_FE_REFUSED(finalize(sum, scale, half_mean, &o), FE_STATUS_INVALID_ARGUMENT,
                      "running_mean 'half_mean' is half; it must be float");
    o.momentum = 1.5;
    EXPECT_FE_REFUSED(finalize(sum, scale, rm, &o), FE_STATUS_INVALID_ARGUMENT,
                      "options.momentum is 1.5; it must be 0 to 1");
    o.momentum = 0.1;
    o.epsilon = -1.0;
    EXPECT_FE_REFUSED(finalize(sum, scale, rm, &o), FE_STATUS_INVALID_ARGUMENT,
                      "options.epsilon is -1; it must be finite and at least 0");
    o.epsilon = 1e-5;
    o.epsilon_tensor = tensor("device_eps", {1}, FE_DATA_FLOAT);
    EXPECT_FE_REFUSED(finalize(sum, scale, rm, &o), FE_STATUS_INVALID_ARGUMENT,
                      "epsilon_tensor 'device_eps' is a device tensor");
    EXPECT_EQ(out[0], kUntouched);
    ASSERT_FE_OK(fe_graph_scalar(g, "eps", 1e-3, FE_DATA_FLOAT, &o.epsilon_tensor));
    ASSERT_FE_OK(finalize(sum, scale, rm, &o));
    for (fe_tensor *t : out) {
        EXPECT_EQ(dims(t), (std::vector<int64_t>{1, 16, 1, 1}));
        EXPECT_EQ(type(t), FE_DATA_FLOAT);
    }
    EXPECT_STREQ(name_of(out[0]), "bn_finalize_0::EQ_SCALE");
}

// dbn_weight: dy and x alike, per-channel float statistics and scale, five float per-channel
// outputs named after their ports.
TEST_F(Norms, DbnWeightInfersPerChannelFloatOutputsAndChecksItsInputs) {
    fe_tensor *dy = tensor("dy", {4, 32, 16, 16}), *x = tensor("x", {4, 32, 16, 16});
    fe_tensor *mean = tensor("mean", {1, 32, 1, 1}, FE_DATA_FLOAT), *inv = tensor("inv", {1, 32, 1, 1}, FE_DATA_FLOAT);
    fe_tensor *scale = tensor("scale", {1, 32, 1, 1}, FE_DATA_FLOAT);
    fe_tensor *out[5] = {kUntouched, kUntouched, kUntouched, kUntouched, kUntouched};
    auto dbn = [&](fe_tensor *a, fe_tensor *m, fe_tensor *s, const fe_dbn_weight_options *o) {
        return fe_graph_dbn_weight(g, dy, a, m, inv, s, o, &out[0], &out[1], &out[2], &out[3], &out[4]);
    };
    fe_tensor *smaller = tensor("smaller", {4, 32, 8, 8}), *wide = tensor("wide", {1, 64, 1, 1}, FE_DATA_FLOAT);
    fe_tensor *per_image = tensor("per_image", {4, 32, 1, 1}, FE_DATA_FLOAT);
    fe_tensor *half_mean = tensor("half_mean", {1, 32, 1, 1}, FE_DATA_HALF);
    fe_tensor *int_x = tensor("int_x", {4, 32, 16, 16}, FE_DATA_INT8);
    // One bad input at a time, in place of x, mean or scale.
    struct Bad {
        fe_tensor *x, *mean, *scale;
        const char *reason;
    };
    for (const Bad &b : {Bad{smaller, mean, scale, "fe_graph_dbn_weight: x 'smaller' is [4,32,8,8]; it must be [4,32,16,16]"},
                         Bad{x, mean, wide, "scale 'wide' is [1,64,1,1]; for x [4,32,16,16] it must be [1,32,1,1]"},
                         Bad{x, per_image, scale, "mean 'per_image' is [4,32,1,1]; it must be [1,32,1,1]"},
                         Bad{x, half_mean, scale, "mean 'half_mean' is half; it must be float"},
                         Bad{int_x, mean, scale, "x 'int_x' is int8; it must be half, bfloat16 or float"}}) {
        SCOPED_TRACE(b.reason);
        EXPECT_FE_REFUSED(dbn(b.x, b.mean, b.scale, nullptr), FE_STATUS_INVALID_ARGUMENT, b.reason);
    }
    fe_dbn_weight_options o = FE_DBN_WEIGHT_OPTIONS_INIT;
    o.compute_data_type = FE_DATA_HALF;
    EXPECT_FE_REFUSED(dbn(x, mean, scale, &o), FE_STATUS_INVALID_ARGUMENT,
                      "compute_data_type is half; dbn_weight computes in float");
    EXPECT_EQ(out[0], kUntouched);
    ASSERT_FE_OK(dbn(x, mean, scale, nullptr));
    for (fe_tensor *t : out) {
        EXPECT_EQ(dims(t), (std::vector<int64_t>{1, 32, 1, 1}));
        EXPECT_EQ(type(t), FE_DATA_FLOAT);
    }
    EXPECT_STREQ(name_of(out[0]), "dbn_weight_0::DScale");
    EXPECT_STREQ(name_of(out[4]), "dbn_weight_0::EqBias");
}

TEST_F(Norms, NullArgumentsAreRefusedWithTheFunctionsName) {
    fe_tensor *x = tensor("x", {8, 4, 2, 2}), *s = tensor("s", {1, 4, 1, 1}), *stats = tensor("st", {1, 4, 1, 1});
    fe_tensor *t = nullptr, *u = nullptr, *v = nullptr, *w = nullptr, *z = nullptr;
    fe_norm_options train = training();
    struct Call {
        const char *function;
        std::function<fe_status()> run;
    };
    std::vector<Call> calls = {
        {"fe_graph_layernorm", [&] { return fe_graph_layernorm(nullptr, x, s, s, nullptr, &t, &u, &v); }},
        {"fe_graph_layernorm", [&] { return fe_graph_layernorm(g, nullptr, s, s, nullptr, &t, &u, &v); }},
        {"fe_graph_layernorm", [&] { return fe_graph_layernorm(g, x, nullptr, s, nullptr, &t, &u, &v); }},
        {"fe_graph_layernorm", [&] { return fe_graph_layernorm(g, x, s, nullptr, nullptr, &t, &u, &v); }},
        {"fe_graph_layernorm", [&] { return fe_graph_layernorm(g, x, s, s, nullptr, nullptr, &u, &v); }},
        {"fe_graph_layernorm", [&] { return fe_graph_layernorm(g, x, s, s, &train, &t, nullptr, &v); }},
        {"fe_graph_rmsnorm", [&] { return fe_graph_rmsnorm(g, x, nullptr, nullptr, nullptr, &t, &v); }},
        {"fe_graph_rmsnorm", [&] { return fe_graph_rmsnorm(g, x, s, nullptr, nullptr, nullptr, &v); }},
        {"fe_graph_instancenorm", [&] { return fe_graph_instancenorm(g, x, s, nullptr, nullptr, &t, &u, &v); }},
        {"fe_graph_instancenorm", [&] { return fe_graph_instancenorm(nullptr, x, s, s, nullptr, &t, &u, &v); }},
        {"fe_graph_adalayernorm", [&] { return fe_graph_adalayernorm(g, nullptr, s, s, nullptr, &t, &u, &v); }},
        {"fe_graph_adalayernorm", [&] { return fe_graph_adalayernorm(g, x, s, s, &train, &t, &u, nullptr); }},
        {"fe_graph_batchnorm", [&] { return fe_graph_batchnorm(g, x, s, nullptr, nullptr, &t, &u, &v, &w, &z); }},
        {"fe_graph_batchnorm", [&] { return fe_graph_batchnorm(g, x, s, s, nullptr, &t, nullptr, &v, &w, &z); }},
        {"fe_graph_batchnorm", [&] { return fe_graph_batchnorm(g, x, s, s, nullptr, &t, &u, nullptr, &w, &z); }},
        {"fe_graph_bn_finalize",
         [&] { return fe_graph_bn_finalize(g, s, s, s, nullptr, s, s, nullptr, &t, &u, &v, &w, &z, &t); }},
        {"fe_graph_bn_finalize",
         [&] { return fe_graph_bn_finalize(g, s, s, s, s, s, s, nullptr, &t, &u, &v, &w, nullptr, &t); }},
        {"fe_graph_batchnorm_inference",
         [&] { return fe_graph_batchnorm_inference(g, x, nullptr, stats, s, s, nullptr, &t); }},
        {"fe_graph_batchnorm_inference",
         [&] { return fe_graph_batchnorm_inference(g, x, stats, stats, s, s, nullptr, nullptr); }},
        {"fe_graph_layernorm_backward",
         [&] { return fe_graph_layernorm_backward(g, x, x, s, nullptr, stats, nullptr, &t, &u, &v); }},
        {"fe_graph_layernorm_backward",
         [&] { return fe_graph_layernorm_backward(g, x, x, s, stats, stats, nullptr, &t, &u, nullptr); }},
        {"fe_graph_rmsnorm_backward",
         [&] { return fe_graph_rmsnorm_backward(g, x, x, s, nullptr, nullptr, &t, &u, &v); }},
        {"fe_graph_rmsnorm_backward",
         [&] { return fe_graph_rmsnorm_backward(g, nullptr, x, s, stats, nullptr, &t, &u, &v); }},
        {"fe_graph_instancenorm_backward",
         [&] { return fe_graph_instancenorm_backward(g, x, x, s, stats, stats, nullptr, nullptr, &u, &v); }},
        {"fe_graph_adalayernorm_backward",
         [&] { return fe_graph_adalayernorm_backward(g, x, x, s, stats, stats, nullptr, &t, nullptr, &v); }},
        {"fe_graph_batchnorm_backward",
         [&] { return fe_graph_batchnorm_backward(g, x, nullptr, s, stats, stats, nullptr, &t, &u, &v); }},
        {"fe_graph_softmax", [&] { return fe_graph_softmax(g, nullptr, nullptr, &t, &u); }},
        {"fe_graph_softmax", [&] { return fe_graph_softmax(g, x, nullptr, nullptr, &u); }},
    };
    for (const Call &call : calls) {
        SCOPED_TRACE(call.function);
        t = u = v = w = z = kUntouched;
        EXPECT_EQ(call.run(), FE_STATUS_NULL_POINTER) << fe_last_error_message();
        std::string message = fe_last_error_message();
        EXPECT_EQ(message.rfind(std::string(call.function) + ": ", 0), 0u) << message;
        EXPECT_NE(message.find("is NULL"), std::string::npos) << message;
        for (fe_tensor *out : {t, u, v, w, z}) EXPECT_EQ(out, kUntouched) << "an output was written on failure";
    }
    EXPECT_EQ(outputs(), 0u);
}

}  // namespace
