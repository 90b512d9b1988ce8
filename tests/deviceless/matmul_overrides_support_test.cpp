// A matmul's M, N and K overrides and padding value: kept in the graph JSON, refused with the
// reason when malformed, and refused at build on the cuDNN versions that compute them wrongly.
#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

TEST_F(Deviceless, MatmulOverridesRoundTripAndAreRefusedWhereCudnnComputesThemWrongly) {
    fe_graph *g = graph("matmul_overrides", FE_DATA_BFLOAT16);
    fe_tensor *a = tensor(g, "a", {4, 128, 192}), *b = tensor(g, "b", {4, 192, 256});
    fe_tensor *m = tensor(g, "m", {4, 1, 1}), *k = tensor(g, "k", {4, 1, 1}, false, FE_DATA_INT32);
    fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
    o.m_override = m;
    o.k_override = k;
    o.padding_value = -7.5;
    fe_tensor *c = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, &o, &c));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    EXPECT_NE(describe(g).find("M=m K=k padding=-7.5"), std::string::npos) << describe(g);
    fe_data_type type;
    ASSERT_FE_OK(fe_tensor_get_data_type(m, &type));
    EXPECT_EQ(type, FE_DATA_INT32);

    size_t n = 0;
    EXPECT_FE_STATUS(fe_graph_to_json(g, nullptr, 0, &n), FE_STATUS_BUFFER_TOO_SMALL);
    std::string json(n + 1, '\0');
    ASSERT_FE_OK(fe_graph_to_json(g, &json[0], json.size(), &n));
    json.resize(n);
    EXPECT_NE(json.find("\"m_override\":\"m\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"padding_value\":-7.5"), std::string::npos) << json;
    fe_graph *back = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(json.c_str(), json.size(), &back));
    graphs_.push_back(back);
    std::string again(json.size() + 1, '\0');
    ASSERT_FE_OK(fe_graph_to_json(back, &again[0], again.size(), &n));
    again.resize(n);
    EXPECT_EQ(again, json);

    EXPECT_FE_STATUS(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("writes wrong values")) << fe_last_error_message();
    EXPECT_TRUE(LastErrorContains("known bad through")) << fe_last_error_message();
}

TEST_F(Deviceless, MalformedMatmulOverridesAreRefused) {
    fe_graph *g = graph("bad_overrides", FE_DATA_BFLOAT16);
    fe_tensor *a = tensor(g, "a", {4, 128, 192}), *b = tensor(g, "b", {4, 192, 256}), *c = nullptr;
    fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
    o.m_override = tensor(g, "m_wrong", {4, 128, 1}, false, FE_DATA_INT32);
    EXPECT_FE_STATUS(fe_graph_matmul(g, a, b, &o, &c), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("options.m_override 'm_wrong' is [4,128,1]; it must be [4,1,1]")) << fe_last_error_message();
    o.m_override = tensor(g, "m_long", {4, 1, 1}, false, FE_DATA_INT64);
    EXPECT_FE_STATUS(fe_graph_matmul(g, a, b, &o, &c), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("the sizes are int32")) << fe_last_error_message();
    o = FE_MATMUL_OPTIONS_INIT;
    o.k_override = tensor(g, "k", {4, 1, 1}, false, FE_DATA_INT32);
    o.padding_value = 1.0;
    EXPECT_FE_STATUS(fe_graph_matmul(g, a, b, &o, &c), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("it fills what an M or N override leaves out")) << fe_last_error_message();

    // FP8 matmuls take no overrides.
    fe_graph *f = graph("fp8_overrides", FE_DATA_FP8_E4M3);
    fe_tensor *fa = tensor(f, "a", {4, 128, 192}), *fb = tensor(f, "b", {4, 192, 256});
    fe_matmul_fp8_scales scales = FE_MATMUL_FP8_SCALES_INIT;
    scales.descale_a = tensor(f, "da", {1, 1, 1}, false, FE_DATA_FLOAT);
    scales.descale_b = tensor(f, "db", {1, 1, 1}, false, FE_DATA_FLOAT);
    scales.scale_c = tensor(f, "sc", {1, 1, 1}, false, FE_DATA_FLOAT);
    fe_matmul_options fo = FE_MATMUL_OPTIONS_INIT;
    fo.m_override = tensor(f, "m", {4, 1, 1}, false, FE_DATA_INT32);
    fe_tensor *amax = nullptr;
    EXPECT_FE_STATUS(fe_graph_matmul_fp8(f, fa, fb, &scales, &fo, &c, &amax), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("options.m_override is not taken by matmul_fp8")) << fe_last_error_message();
}

}  // namespace
