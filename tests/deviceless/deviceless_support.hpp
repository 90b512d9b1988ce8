// Deviceless tier: real cuDNN lowering, heuristics and plan finalization for the captured H100
// description, on a machine with no GPU. Skips (saying why) when cuDNN or the JSON is absent.
#pragma once

#include <string>
#include <vector>

#include "test_support.hpp"

namespace cudnnfe_test {

class Deviceless : public GraphOwningTest {
  protected:
    void SetUp() override {
        if (!cudnn_available()) GTEST_SKIP() << "cuDNN is not loadable here: " << fe_last_error_message();
        json_ = device_json();
        if (json_.empty()) GTEST_SKIP() << "no device description: set CUDNNFE_DEVICE_JSON";
    }
    void TearDown() override {
        destroy_graphs();
    }

    // One-call build for the H100 description, no handle.
    fe_status build(fe_graph *g, fe_build_policy policy = FE_BUILD_POLICY_HEURISTICS_CHOICE) {
        fe_build_options o = FE_BUILD_OPTIONS_INIT;
        o.device_properties_json = json_.c_str();
        o.policy = policy;
        return fe_graph_build(g, nullptr, &o);
    }

    // A precompiled engine must finalize a whole plan.
    void expect_full_plan(fe_graph *g) {
        ASSERT_FE_OK(build(g));
        size_t plans = 0;
        int64_t ws = -1, engine = -1;
        EXPECT_FE_OK(fe_graph_plan_count(g, &plans));
        EXPECT_GE(plans, 1);
        EXPECT_FE_OK(fe_graph_workspace_size(g, &ws));
        EXPECT_GE(ws, 0);
        EXPECT_FE_OK(fe_graph_engine_index(g, &engine));
        EXPECT_GE(engine, 0);
        EXPECT_EQ(std::string(engine_tag_of(g)).rfind("eng", 0), 0u);
    }

    // Runtime-compiled engines: heuristics and the support check must pass; the final plan
    // build needs a CUDA driver and fails with the toolkit's stub as this machine's answer,
    // FE_STATUS_CANNOT_TELL (it builds where a driver is), never as the graph's.
    int64_t expect_supported(fe_graph *g) {
        EXPECT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
        EXPECT_FE_OK(fe_graph_validate(g));
        size_t viable = expect_viable_configs(g);
        fe_status s = fe_graph_build_plans(g, FE_BUILD_POLICY_HEURISTICS_CHOICE);
        if (s != FE_OK) {
            EXPECT_EQ(s, FE_STATUS_CANNOT_TELL) << fe_last_error_message();
            std::string message = fe_last_error_message();
            EXPECT_TRUE(message.find("cuLibraryLoadData") != std::string::npos ||
                        message.find("CUDA_DRIVER") != std::string::npos)
                << "the plan build failed for a reason other than the missing driver: " << message;
        }
        return viable;
    }

    // The steps up to the support check, for a graph given its device properties: the operation
    // graph, the engine configs, and at least one viable among them. Returns how many are viable.
    // (The plan build is the caller's: deviceless, runtime-compiled engines need a driver for it.)
    size_t expect_viable_configs(fe_graph *g) {
        EXPECT_FE_OK(fe_graph_build_operation_graph(g, nullptr));
        EXPECT_FE_OK(fe_graph_create_execution_plans(g, nullptr, 0));
        EXPECT_FE_OK(fe_graph_check_support(g));
        size_t viable = 0;
        EXPECT_FE_OK(fe_graph_viable_count(g, &viable));
        EXPECT_GE(viable, 1);
        return viable;
    }

    // The steps up to the support check for the H100 description (or `json`'s GPU): the first
    // status that is not FE_OK (NOT_SUPPORTED where cuDNN has no engine, saying why), else FE_OK.
    fe_status support_status(fe_graph *g) { return support_status(g, json_); }
    fe_status support_status(fe_graph *g, const std::string &json) {
        EXPECT_FE_OK(fe_graph_set_device_properties(g, json.c_str()));
        fe_status s = fe_graph_validate(g);
        if (s == FE_OK) s = fe_graph_build_operation_graph(g, nullptr);
        if (s == FE_OK) s = fe_graph_create_execution_plans(g, nullptr, 0);
        if (s == FE_OK) s = fe_graph_check_support(g);
        return s;
    }

    std::string describe(fe_graph *g) { return graph_text(fe_graph_describe, g); }

    std::string json_;
};

// Pooling of `mode` over n spatial dims: one window, stride and symmetric padding for all.
inline fe_resample_options pool_options(fe_resample_mode mode, size_t n, int64_t window, int64_t stride,
                                        int64_t pad) {
    fe_resample_options o = FE_RESAMPLE_OPTIONS_INIT;
    o.mode = mode;
    for (size_t i = 0; i < n; ++i) {
        o.window[i] = window;
        o.stride[i] = stride;
        o.pre_padding[i] = o.post_padding[i] = pad;
    }
    return o;
}

}  // namespace cudnnfe_test
