// Attention lowered as cuDNN's native SDPA operation or as the composite pattern: what each
// takes, what AUTO picks for the H100, and the messages when a request cannot be met.
#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

class SdpaImplementation : public Deviceless {
  protected:
    // Q, K, V [2, 8, 512, 128] and O (and the stats) of one attention node.
    fe_graph *attention(const char *name, fe_sdpa_options o) {
        fe_graph *g = graph(name, FE_DATA_BFLOAT16);
        q_ = tensor(g, "q", {2, 8, 512, 128});
        k_ = tensor(g, "k", {2, 8, 512, 128});
        v_ = tensor(g, "v", {2, 8, 512, 128});
        o.attn_scale = 0.088;
        fe_tensor *out = nullptr, *stats = nullptr;
        EXPECT_FE_OK(fe_graph_sdpa(g, q_, k_, v_, &o, &out, &stats));
        EXPECT_FE_OK(fe_tensor_set_output(out, 1));
        if (stats) {
            EXPECT_FE_OK(fe_tensor_set_output(stats, 1));
        }
        o_ = out;
        stats_ = stats;
        return g;
    }
    fe_sdpa_implementation implementation(fe_graph *g) {
        fe_sdpa_implementation impl = FE_SDPA_IMPLEMENTATION_AUTO;
        EXPECT_FE_OK(fe_graph_attention_implementation(g, nullptr, &impl));
        return impl;
    }
    fe_tensor *q_ = nullptr, *k_ = nullptr, *v_ = nullptr, *o_ = nullptr, *stats_ = nullptr;
};

TEST_F(SdpaImplementation, NativeTakesScaleAndStats) {
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.generate_stats = 1;
    o.implementation = FE_SDPA_IMPLEMENTATION_NATIVE;
    fe_graph *g = attention("native_stats", o);
    ASSERT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
    ASSERT_FE_OK(fe_graph_build_operation_graph(g, nullptr));
    EXPECT_EQ(implementation(g), FE_SDPA_IMPLEMENTATION_NATIVE);
    EXPECT_NE(describe(g).find("native SDPA operation"), std::string::npos);
    // Whether the H100 has an engine for it is the support check's answer; either way it says so.
    ASSERT_FE_OK(fe_graph_create_execution_plans(g, nullptr, 0));
    fe_status s = fe_graph_check_support(g);
    if (s != FE_OK) {
        EXPECT_NE(std::string(fe_last_error_message()).find("no viable engine config"), std::string::npos);
    }
    std::printf("native SDPA forward on the H100 description: %s\n",
                s == FE_OK ? "supported" : fe_last_error_message());
}

TEST_F(SdpaImplementation, CompositeWhenAsked) {
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.implementation = FE_SDPA_IMPLEMENTATION_COMPOSITE;
    fe_graph *g = attention("composite", o);
    expect_supported(g);
    EXPECT_EQ(implementation(g), FE_SDPA_IMPLEMENTATION_COMPOSITE);
    EXPECT_NE(describe(g).find("composite pattern"), std::string::npos);
}

TEST_F(SdpaImplementation, AutoBuildsWhicheverHasAnEngine) {
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    fe_graph *g = attention("auto_plain", o);
    expect_supported(g);
    fe_sdpa_implementation impl = implementation(g);
    EXPECT_TRUE(impl == FE_SDPA_IMPLEMENTATION_NATIVE || impl == FE_SDPA_IMPLEMENTATION_COMPOSITE);
    EXPECT_NE(describe(g).find("(chosen automatically)"), std::string::npos);
}

TEST_F(SdpaImplementation, AutoWithACausalMaskIsComposite) {
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    fe_graph *g = attention("auto_causal", o);
    expect_supported(g);
    EXPECT_EQ(implementation(g), FE_SDPA_IMPLEMENTATION_COMPOSITE);
}

TEST_F(SdpaImplementation, NativeWithACausalMaskNamesTheOptionAndVersion) {
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.causal_mask = FE_CAUSAL_MASK_BOTTOM_RIGHT;
    o.implementation = FE_SDPA_IMPLEMENTATION_NATIVE;
    fe_graph *g = attention("native_causal", o);
    ASSERT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
    EXPECT_EQ(fe_graph_build_operation_graph(g, nullptr), FE_STATUS_NOT_SUPPORTED);
    std::string message = fe_last_error_message();
    EXPECT_NE(message.find("fe_graph_build_operation_graph"), std::string::npos) << message;
    EXPECT_NE(message.find("causal mask"), std::string::npos) << message;
    EXPECT_NE(message.find("9.21"), std::string::npos) << message;
}

TEST_F(SdpaImplementation, UnknownImplementationIsRejectedAtTheCall) {
    fe_graph *g = graph("bad_impl", FE_DATA_BFLOAT16);
    fe_tensor *q = tensor(g, "q", {2, 8, 512, 128}), *k = tensor(g, "k", {2, 8, 512, 128});
    fe_tensor *v = tensor(g, "v", {2, 8, 512, 128}), *out = nullptr, *stats = nullptr;
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.implementation = static_cast<fe_sdpa_implementation>(7);
    EXPECT_EQ(fe_graph_sdpa(g, q, k, v, &o, &out, &stats), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(fe_last_error_message()).find("options.implementation is 7, not an fe_sdpa_implementation"),
              std::string::npos)
        << fe_last_error_message();
}

TEST_F(SdpaImplementation, QueryNeedsAnOperationGraphAndAnAttentionNode) {
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    fe_graph *g = attention("query", o);
    fe_sdpa_implementation impl;
    EXPECT_EQ(fe_graph_attention_implementation(g, nullptr, &impl), FE_STATUS_BAD_STATE);
    ASSERT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
    ASSERT_FE_OK(fe_graph_build_operation_graph(g, nullptr));
    EXPECT_EQ(fe_graph_attention_implementation(g, "no_such_node", &impl), FE_STATUS_NOT_FOUND);
    EXPECT_NE(std::string(fe_last_error_message()).find("no_such_node"), std::string::npos);
    EXPECT_FE_OK(fe_graph_attention_implementation(g, "sdpa_0", &impl));
    EXPECT_EQ(fe_graph_attention_implementation(g, nullptr, nullptr), FE_STATUS_NULL_POINTER);
}

// The backward operation exists in cuDNN's header, but cuDNN 9.19's operation graphs refuse it:
// NATIVE says so at build, and AUTO lowers the composite without trying.
TEST_F(SdpaImplementation, BackwardIsCompositeUpToCudnn919) {
    int64_t version = 0;
    ASSERT_FE_OK(fe_cudnn_version(&version));
    if (version > 91900) GTEST_SKIP() << "cuDNN " << version << " may take the native backward operation";
    for (fe_sdpa_implementation requested : {FE_SDPA_IMPLEMENTATION_NATIVE, FE_SDPA_IMPLEMENTATION_AUTO}) {
        fe_graph *g = graph("backward", FE_DATA_BFLOAT16);
        fe_tensor *q = tensor(g, "q", {2, 8, 512, 128}), *k = tensor(g, "k", {2, 8, 512, 128});
        fe_tensor *v = tensor(g, "v", {2, 8, 512, 128}), *o = tensor(g, "o", {2, 8, 512, 128});
        fe_tensor *d_o = tensor(g, "dO", {2, 8, 512, 128});
        fe_tensor *stats = tensor(g, "stats", {2, 8, 512, 1}, false, FE_DATA_FLOAT);
        fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
        opts.attn_scale = 0.088;
        opts.implementation = requested;
        fe_tensor *dq, *dk, *dv;
        ASSERT_FE_OK(fe_graph_sdpa_backward(g, q, k, v, o, d_o, stats, &opts, &dq, &dk, &dv));
        for (fe_tensor *t : {dq, dk, dv}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        ASSERT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
        fe_status s = fe_graph_build_operation_graph(g, nullptr);
        if (requested == FE_SDPA_IMPLEMENTATION_NATIVE) {
            EXPECT_EQ(s, FE_STATUS_NOT_SUPPORTED);
            EXPECT_NE(std::string(fe_last_error_message()).find("native SDPA backward operation: refused with cuDNN"),
                      std::string::npos)
                << fe_last_error_message();
        } else {
            ASSERT_FE_OK(s);
            EXPECT_EQ(implementation(g), FE_SDPA_IMPLEMENTATION_COMPOSITE);
        }
    }
}

}  // namespace
