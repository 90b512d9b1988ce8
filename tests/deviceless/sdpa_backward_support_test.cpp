// Attention backward: lowered to one operation graph that cuDNN's fused attention backward
// engines take (runtime-compiled: support-checked here, executed on the GPU tier).
#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

struct BackwardCase {
    const char *name;
    fe_data_type type;
    int64_t b, h_q, h_k, s, d;
    fe_causal_mask causal;
};

class SdpaBackwardSupport : public Deviceless, public ::testing::WithParamInterface<BackwardCase> {};

TEST_P(SdpaBackwardSupport, IsSupported) {
    const BackwardCase &c = GetParam();
    fe_graph *g = graph(c.name, c.type);
    fe_tensor *q = tensor(g, "q", {c.b, c.h_q, c.s, c.d}), *k = tensor(g, "k", {c.b, c.h_k, c.s, c.d});
    fe_tensor *v = tensor(g, "v", {c.b, c.h_k, c.s, c.d}), *o = tensor(g, "o", {c.b, c.h_q, c.s, c.d});
    fe_tensor *d_o = tensor(g, "dO", {c.b, c.h_q, c.s, c.d});
    fe_tensor *stats = tensor(g, "stats", {c.b, c.h_q, c.s, 1}, false, FE_DATA_FLOAT);
    fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
    opts.attn_scale = 0.125;
    opts.causal_mask = c.causal;
    fe_tensor *dq = nullptr, *dk = nullptr, *dv = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa_backward(g, q, k, v, o, d_o, stats, &opts, &dq, &dk, &dv));
    for (fe_tensor *t : {dq, dk, dv}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    EXPECT_STREQ(name_of(dk), "sdpa_backward_0::dK");
    int64_t dk_dims[4];
    ASSERT_FE_OK(fe_tensor_get_dims(dk, dk_dims, 4));
    EXPECT_EQ(dk_dims[1], c.h_k);
    expect_supported(g);
}

INSTANTIATE_TEST_SUITE_P(
    Deviceless, SdpaBackwardSupport,
    ::testing::Values(BackwardCase{"bf16_causal", FE_DATA_BFLOAT16, 2, 6, 6, 512, 64, FE_CAUSAL_MASK_TOP_LEFT},
                      BackwardCase{"fp16_d128", FE_DATA_HALF, 1, 8, 8, 256, 128, FE_CAUSAL_MASK_NONE},
                      BackwardCase{"bf16_gqa_4to1", FE_DATA_BFLOAT16, 1, 8, 2, 256, 128, FE_CAUSAL_MASK_BOTTOM_RIGHT}),
    [](const ::testing::TestParamInfo<BackwardCase> &info) { return std::string(info.param.name); });

TEST_F(Deviceless, SdpaBackwardChecksItsInputs) {
    fe_graph *g = graph("bad_backward", FE_DATA_HALF);
    fe_tensor *q = tensor(g, "q", {1, 2, 64, 64}), *k = tensor(g, "k", {1, 2, 64, 64});
    fe_tensor *v = tensor(g, "v", {1, 2, 64, 64}), *o = tensor(g, "o", {1, 2, 64, 32});
    fe_tensor *stats = tensor(g, "stats", {1, 2, 64, 1}, false, FE_DATA_FLOAT);
    fe_tensor *dq, *dk, *dv;
    EXPECT_FE_STATUS(fe_graph_sdpa_backward(g, q, k, v, o, o, stats, nullptr, &dq, &dk, &dv),
                     FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("fe_graph_sdpa_backward: O 'o' is [1,2,64,32]; it must be [1,2,64,64]"));
    EXPECT_FE_STATUS(fe_graph_sdpa_backward(g, q, k, v, o, o, nullptr, nullptr, &dq, &dk, &dv),
                     FE_STATUS_NULL_POINTER);
}

}  // namespace

namespace {

// A [2, 4, 256, 64] backward pass with the given options (bias of `bias_dims` when non-empty).
fe_status backward_with(fe_graph *g, fe_sdpa_backward_options opts,
                        std::vector<int64_t> bias_dims) {
    fe_tensor *q = cudnnfe_test::make_tensor(g, "q", {2, 4, 256, 64}, false, FE_DATA_NOT_SET), *k = cudnnfe_test::make_tensor(g, "k", {2, 4, 256, 64}, false, FE_DATA_NOT_SET);
    fe_tensor *v = cudnnfe_test::make_tensor(g, "v", {2, 4, 256, 64}, false, FE_DATA_NOT_SET), *o = cudnnfe_test::make_tensor(g, "o", {2, 4, 256, 64}, false, FE_DATA_NOT_SET);
    fe_tensor *d_o = cudnnfe_test::make_tensor(g, "dO", {2, 4, 256, 64}, false, FE_DATA_NOT_SET);
    fe_tensor *stats = cudnnfe_test::make_tensor(g, "stats", {2, 4, 256, 1}, false, FE_DATA_FLOAT);
    if (!bias_dims.empty()) opts.bias = cudnnfe_test::make_tensor(g, "bias", bias_dims, false, FE_DATA_NOT_SET);
    opts.attn_scale = 0.125;
    fe_tensor *dq, *dk, *dv;
    fe_status s = fe_graph_sdpa_backward(g, q, k, v, o, d_o, stats, &opts, &dq, &dk, &dv);
    if (s != FE_OK) return s;
    for (fe_tensor *out : {dq, dk, dv}) EXPECT_FE_OK(fe_tensor_set_output(out, 1));
    return FE_OK;
}

}  // namespace

TEST_F(Deviceless, SdpaBackwardWithDbiasIsSupported) {
    fe_graph *g = graph("dbias", FE_DATA_BFLOAT16);
    fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
    opts.output_dbias = 1;
    opts.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    ASSERT_FE_OK(backward_with(g, opts, {1, 4, 256, 256}));
    fe_tensor *dbias = nullptr;
    ASSERT_FE_OK(fe_graph_tensor_by_name(g, "sdpa_backward_0::dBias", &dbias));
    ASSERT_FE_OK(fe_tensor_set_output(dbias, 1));
    int64_t dims[4];
    ASSERT_FE_OK(fe_tensor_get_dims(dbias, dims, 4));
    EXPECT_EQ(dims[0], 1);
    EXPECT_EQ(dims[3], 256);
    expect_supported(g);
    fe_data_type type;
    ASSERT_FE_OK(fe_tensor_get_data_type(dbias, &type));
    EXPECT_EQ(type, FE_DATA_BFLOAT16);
    EXPECT_NE(describe(g).find("dbias"), std::string::npos);
}

TEST_F(Deviceless, SdpaBackwardDeterministicIsSupported) {
    fe_graph *g = graph("deterministic", FE_DATA_HALF);
    fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
    opts.deterministic = 1;
    ASSERT_FE_OK(backward_with(g, opts, {}));
    expect_supported(g);
    EXPECT_NE(describe(g).find("deterministic"), std::string::npos);
}

// dBias needs the forward's bias; of a bias per batch or shared by heads, dS is reduced into the
// bias's dims (the values checked on a GPU by the conformance suite's attention_bwd family).
TEST_F(Deviceless, SdpaBackwardDbiasOfABroadcastBiasIsSupported) {
    fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
    opts.output_dbias = 1;
    EXPECT_EQ(backward_with(graph("no_bias", FE_DATA_HALF), opts, {}), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(fe_last_error_message()).find("output_dbias needs the forward's bias"), std::string::npos);
    for (const std::vector<int64_t> &dims : {std::vector<int64_t>{2, 4, 256, 256}, {2, 1, 256, 256}, {1, 1, 256, 256}}) {
        fe_graph *g = graph("broadcast_bias", FE_DATA_HALF);
        ASSERT_FE_OK(backward_with(g, opts, dims));
        fe_tensor *dbias = nullptr;
        ASSERT_FE_OK(fe_graph_tensor_by_name(g, "sdpa_backward_0::dBias", &dbias));
        ASSERT_FE_OK(fe_tensor_set_output(dbias, 1));
        expect_supported(g);
    }
}
