// Pointwise graphs on their own: a chain with a by-value scalar, and single modes.
#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

TEST_F(Gpu, PointwiseChainWithScalarMatchesCpuReference) {
    for (fe_data_type type : {FE_DATA_HALF, FE_DATA_BFLOAT16, FE_DATA_FLOAT}) {
        SCOPED_TRACE(fe_data_type_string(type));
        fe_graph *g = graph("chain", type);
        fe_tensor *x = tensor(g, "x", {4, 64, 256}), *r = tensor(g, "r", {4, 64, 256});
        fe_tensor *k = nullptr, *sum = nullptr, *act = nullptr, *y = nullptr;
        ASSERT_FE_OK(fe_graph_scalar(g, "k", 0.5, FE_DATA_FLOAT, &k));
        ASSERT_FE_OK(fe_graph_add(g, x, r, nullptr, &sum));
        ASSERT_FE_OK(fe_graph_silu(g, sum, nullptr, &act));
        ASSERT_FE_OK(fe_graph_scale(g, act, k, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        build(g);
        Bound &bx = bind(x, true, -3, 3), &br = bind(r, true, -3, 3), &by = bind(y, false);
        execute(g, {&bx, &br, &by});
        download(by);
        std::vector<double> ref = elementwise(by.dims, [&](const std::vector<int64_t> &i) {
            return 0.5 * silu(static_cast<double>(bx.at(i)) + br.at(i));
        });
        expect_close(by, ref, atol_for(type), rtol_for(type), norm_for(type));
    }
}

struct UnaryCase {
    fe_pointwise_mode mode;
    float lo, hi;
    double (*f)(double);
};

class UnaryNumerics : public Gpu, public ::testing::WithParamInterface<UnaryCase> {};

TEST_P(UnaryNumerics, MatchesCpuReference) {
    const UnaryCase &c = GetParam();
    fe_graph *g = graph("unary", FE_DATA_FLOAT);
    fe_tensor *x = tensor(g, "x", {2, 32, 512});
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_pointwise(g, c.mode, x, nullptr, nullptr, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build(g);
    Bound &bx = bind(x, true, c.lo, c.hi), &by = bind(y, false);
    execute(g, {&bx, &by});
    download(by);
    std::vector<double> ref = elementwise(by.dims, [&](const std::vector<int64_t> &i) { return c.f(bx.at(i)); });
    expect_close(by, ref, 1e-3, 2e-3, 1e-3);
}

double relu(double x) { return x > 0 ? x : 0; }
double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double tanh_(double x) { return std::tanh(x); }
double exp_(double x) { return std::exp(x); }
double log_(double x) { return std::log(x); }
double sqrt_(double x) { return std::sqrt(x); }
double rsqrt(double x) { return 1 / std::sqrt(x); }
double neg(double x) { return -x; }
double abs_(double x) { return std::fabs(x); }
double erf_(double x) { return std::erf(x); }
double softplus(double x) { return std::log1p(std::exp(x)); }
double gelu_tanh(double x) {
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / 3.141592653589793) * (x + 0.044715 * x * x * x)));
}
double elu(double x) { return x > 0 ? x : std::expm1(x); }
double floor_(double x) { return std::floor(x); }

INSTANTIATE_TEST_SUITE_P(
    Gpu, UnaryNumerics,
    ::testing::Values(UnaryCase{FE_POINTWISE_RELU_FWD, -2, 2, relu}, UnaryCase{FE_POINTWISE_GELU_FWD, -3, 3, gelu},
                      UnaryCase{FE_POINTWISE_GELU_APPROX_TANH_FWD, -3, 3, gelu_tanh},
                      UnaryCase{FE_POINTWISE_SWISH_FWD, -4, 4, silu}, UnaryCase{FE_POINTWISE_SIGMOID_FWD, -4, 4, sigmoid},
                      UnaryCase{FE_POINTWISE_TANH_FWD, -3, 3, tanh_}, UnaryCase{FE_POINTWISE_ELU_FWD, -3, 3, elu},
                      UnaryCase{FE_POINTWISE_SOFTPLUS_FWD, -3, 3, softplus}, UnaryCase{FE_POINTWISE_EXP, -2, 2, exp_},
                      UnaryCase{FE_POINTWISE_LOG, 0.1f, 4, log_}, UnaryCase{FE_POINTWISE_SQRT, 0.01f, 4, sqrt_},
                      UnaryCase{FE_POINTWISE_RSQRT, 0.1f, 4, rsqrt}, UnaryCase{FE_POINTWISE_NEG, -2, 2, neg},
                      UnaryCase{FE_POINTWISE_ABS, -2, 2, abs_}, UnaryCase{FE_POINTWISE_ERF, -2, 2, erf_},
                      UnaryCase{FE_POINTWISE_FLOOR, -5, 5, floor_}));

}  // namespace
