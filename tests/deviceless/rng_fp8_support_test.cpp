// Random draws and FP8 matmuls for the H100 description: which forms cuDNN 9.19 takes.
#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

class RngSupport : public Deviceless {
  protected:
    // y = x * draw, the draw [4, 256, 1024] of the given distribution.
    fe_graph *masked(const char *name, fe_rng_distribution distribution, bool with_consumer) {
        fe_graph *g = graph(name, FE_DATA_HALF);
        fe_tensor *seed = tensor(g, "seed", {1, 1, 1}, false, FE_DATA_INT64);
        fe_tensor *offset = tensor(g, "offset", {1, 1, 1}, false, FE_DATA_INT64);
        fe_rng_options o = FE_RNG_OPTIONS_INIT;
        o.distribution = distribution;
        o.probability = 0.9;
        o.ndims = 3;
        o.dims[0] = 4;
        o.dims[1] = 256;
        o.dims[2] = 1024;
        o.data_type = FE_DATA_FLOAT;
        fe_tensor *draw = nullptr;
        EXPECT_FE_OK(fe_graph_rng(g, seed, offset, &o, &draw));
        if (!with_consumer) {
            EXPECT_FE_OK(fe_tensor_set_output(draw, 1));
            return g;
        }
        fe_tensor *x = tensor(g, "x", {4, 256, 1024}), *y = nullptr;
        EXPECT_FE_OK(fe_graph_mul(g, x, draw, &y));
        EXPECT_FE_OK(fe_tensor_set_output(y, 1));
        return g;
    }
};

// Whether cuDNN has an engine; when it has none, the message must say why.
fe_status support(fe_graph *g, const std::string &json) {
    EXPECT_FE_OK(fe_graph_set_device_properties(g, json.c_str()));
    fe_status s = fe_graph_validate(g);
    if (s == FE_OK) s = fe_graph_build_operation_graph(g, nullptr);
    if (s == FE_OK) s = fe_graph_create_execution_plans(g, nullptr, 0);
    if (s == FE_OK) s = fe_graph_check_support(g);
    return s;
}

// cuDNN 9.19 has no engine for a graph-level draw on the H100: the lowering is accepted by
// cuDNN (descriptors finalize), heuristics return nothing, and the message names the cause.
TEST_F(RngSupport, DrawTimesInputHasNoEngineAndSaysWhy) {
    for (fe_rng_distribution d : {FE_RNG_BERNOULLI, FE_RNG_UNIFORM, FE_RNG_NORMAL}) {
        fe_graph *g = masked("rng_mul", d, true);
        EXPECT_FE_STATUS(support(g, json_), FE_STATUS_NOT_SUPPORTED);
        EXPECT_TRUE(LastErrorContains("no engine for a graph-level random draw"));
        EXPECT_TRUE(LastErrorContains("dropout_probability"));
    }
}

TEST_F(RngSupport, StandaloneDrawHasNoEngineAndSaysWhy) {
    fe_graph *g = masked("rng_alone", FE_RNG_BERNOULLI, false);
    EXPECT_FE_STATUS(support(g, json_), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("rng 'rng_0'"));
    EXPECT_TRUE(LastErrorContains("no engine for a graph-level random draw"));
}

TEST_F(RngSupport, MatmulTimesDrawHasNoEngineAndSaysWhy) {
    fe_graph *g = graph("rng_matmul", FE_DATA_HALF);
    fe_tensor *seed = nullptr, *offset = nullptr;
    ASSERT_FE_OK(fe_graph_scalar(g, "seed", 7, FE_DATA_INT64, &seed));
    ASSERT_FE_OK(fe_graph_scalar(g, "offset", 0, FE_DATA_INT64, &offset));
    fe_rng_options o = FE_RNG_OPTIONS_INIT;
    o.ndims = 4;
    o.dims[0] = 1;
    o.dims[1] = 4;
    o.dims[2] = 128;
    o.dims[3] = 128;
    o.data_type = FE_DATA_FLOAT;
    fe_tensor *draw = nullptr, *c = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_rng(g, seed, offset, &o, &draw));
    fe_tensor *a = tensor(g, "a", {1, 4, 128, 64}), *b = tensor(g, "b", {1, 4, 64, 128});
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
    ASSERT_FE_OK(fe_graph_mul(g, c, draw, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    EXPECT_FE_STATUS(support(g, json_), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("no engine for a graph-level random draw"));
}

}  // namespace

