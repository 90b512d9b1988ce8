// The step-by-step build, its ordering rules, and the errors that need cuDNN to happen.
#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

class BuildFlow : public Deviceless {
  protected:
    fe_graph *seed_conv(const char *name) {
        fe_graph *g = graph(name, FE_DATA_HALF);
        x_ = tensor(g, "x", {8, 64, 56, 56}, true);
        w_ = tensor(g, "w", {32, 64, 3, 3}, true);
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        int64_t pad[2] = {1, 1};
        fe_conv_options_set_padding(&o, 2, pad);
        EXPECT_FE_OK(fe_graph_conv_fprop(g, x_, w_, &o, &y_));
        EXPECT_FE_OK(fe_tensor_set_output(y_, 1));
        return g;
    }
    fe_tensor *x_ = nullptr, *w_ = nullptr, *y_ = nullptr;
};

TEST_F(BuildFlow, StepByStepBuildsAPlan) {
    fe_graph *g = seed_conv("steps");
    ASSERT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
    ASSERT_FE_OK(fe_graph_validate(g));
    ASSERT_FE_OK(fe_graph_build_operation_graph(g, nullptr));
    fe_heur_mode modes[] = {FE_HEUR_MODE_A, FE_HEUR_MODE_FALLBACK};
    ASSERT_FE_OK(fe_graph_create_execution_plans(g, modes, 2));
    size_t candidates = 0;
    ASSERT_FE_OK(fe_graph_candidate_count(g, &candidates));
    EXPECT_GT(candidates, 0);
    ASSERT_FE_OK(fe_graph_check_support(g));
    ASSERT_FE_OK(fe_graph_build_plans(g, FE_BUILD_POLICY_HEURISTICS_CHOICE));
    int32_t built = 0;
    ASSERT_FE_OK(fe_graph_is_built(g, &built));
    EXPECT_EQ(built, 1);
}

TEST_F(BuildFlow, StepsOutOfOrderAreRefused) {
    fe_graph *g = seed_conv("out_of_order");
    EXPECT_FE_REFUSED(fe_graph_create_execution_plans(g, nullptr, 0), FE_STATUS_BAD_STATE,
                      "fe_graph_create_execution_plans: graph 'out_of_order' has no operation graph yet");
    EXPECT_FE_STATUS(fe_graph_check_support(g), FE_STATUS_BAD_STATE);
    EXPECT_FE_STATUS(fe_graph_build_plans(g, FE_BUILD_POLICY_ALL), FE_STATUS_BAD_STATE);
    ASSERT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
    ASSERT_FE_OK(fe_graph_build_operation_graph(g, nullptr));
    EXPECT_FE_REFUSED(fe_graph_build_plans(g, FE_BUILD_POLICY_ALL), FE_STATUS_BAD_STATE,
                      "fe_graph_check_support first");
}

TEST_F(BuildFlow, EachHeuristicModeGivesCandidates) {
    for (fe_heur_mode mode : {FE_HEUR_MODE_A, FE_HEUR_MODE_B, FE_HEUR_MODE_FALLBACK}) {
        fe_graph *g = seed_conv("modes");
        fe_build_options o = FE_BUILD_OPTIONS_INIT;
        o.device_properties_json = json_.c_str();
        o.heur_modes = &mode;
        o.num_heur_modes = 1;
        EXPECT_FE_OK(fe_graph_build(g, nullptr, &o)) << "mode " << mode;
    }
}

TEST_F(BuildFlow, NoHandleAndNoDeviceDescriptionIsRefused) {
    fe_graph *g = seed_conv("no_target");
    EXPECT_FE_REFUSED(fe_graph_build(g, nullptr, nullptr), FE_STATUS_BAD_STATE,
                      "needs a handle (a GPU) or device properties");
    // The failed build leaves the graph editable and buildable.
    fe_build_options o = FE_BUILD_OPTIONS_INIT;
    o.device_properties_json = json_.c_str();
    EXPECT_FE_OK(fe_graph_build(g, nullptr, &o));
}

TEST_F(BuildFlow, MalformedDeviceDescriptionIsRefused) {
    fe_graph *g = seed_conv("bad_json");
    fe_build_options o = FE_BUILD_OPTIONS_INIT;
    o.device_properties_json = "{\"deviceName\": 3";
    fe_status s = fe_graph_build(g, nullptr, &o);
    EXPECT_EQ(s, FE_STATUS_INVALID_ARGUMENT) << fe_last_error_message();
    EXPECT_TRUE(LastErrorContains("options.device_properties_json: not JSON (line 1")) << fe_last_error_message();
    o.device_properties_json = "not json";
    EXPECT_FE_STATUS(fe_graph_build(g, nullptr, &o), FE_STATUS_INVALID_ARGUMENT);
    o.device_properties_json = "{\"deviceName\": 3}";
    EXPECT_FE_STATUS(fe_graph_build(g, nullptr, &o), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("not a GPU description")) << fe_last_error_message();
}

TEST_F(BuildFlow, UnsupportedGraphNamesTheGraphAndTheHeuristics) {
    // A lone reduction has no engine in cuDNN 9 (reductions fuse after a matmul or conv).
    fe_graph *g = graph("lonely_reduction", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {4, 256, 1024});
    fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
    o.reduce_axes = 1u << 2;
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_reduction(g, x, FE_REDUCTION_ADD, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_data_type(y, FE_DATA_FLOAT));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    fe_status s = build(g);
    if (s == FE_OK) GTEST_SKIP() << "this cuDNN supports a lone reduction";
    EXPECT_EQ(s, FE_STATUS_NOT_SUPPORTED) << fe_last_error_message();
    EXPECT_TRUE(LastErrorContains("fe_graph_build: graph 'lonely_reduction'"));
    EXPECT_TRUE(LastErrorContains("heuristics A, FALLBACK"));
}

TEST_F(BuildFlow, WorkspaceLimitDeselectsCandidates) {
    fe_graph *g = seed_conv("workspace_limit");
    ASSERT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
    ASSERT_FE_OK(fe_graph_build_operation_graph(g, nullptr));
    ASSERT_FE_OK(fe_graph_create_execution_plans(g, nullptr, 0));
    size_t before = 0, after = 0;
    ASSERT_FE_OK(fe_graph_viable_count(g, &before));
    ASSERT_FE_OK(fe_graph_deselect_workspace_greater_than(g, 0));
    ASSERT_FE_OK(fe_graph_viable_count(g, &after));
    EXPECT_LE(after, before);
    if (after > 0) {
        ASSERT_FE_OK(fe_graph_check_support(g));
        ASSERT_FE_OK(fe_graph_build_plans(g, FE_BUILD_POLICY_HEURISTICS_CHOICE));
        int64_t ws = -1;
        ASSERT_FE_OK(fe_graph_workspace_size(g, &ws));
        EXPECT_EQ(ws, 0);
    }
}

TEST_F(BuildFlow, UidsAreAssignedAroundTheUsersOnes) {
    fe_graph *g = seed_conv("uids");
    ASSERT_FE_OK(fe_tensor_set_uid(w_, 1));
    ASSERT_FE_OK(fe_tensor_set_uid(y_, 7));
    ASSERT_FE_OK(build(g));
    int64_t ux = 0, uw = 0, uy = 0;
    ASSERT_FE_OK(fe_tensor_get_uid(x_, &ux));
    ASSERT_FE_OK(fe_tensor_get_uid(w_, &uw));
    ASSERT_FE_OK(fe_tensor_get_uid(y_, &uy));
    EXPECT_EQ(uw, 1);
    EXPECT_EQ(uy, 7);
    EXPECT_NE(ux, 1);
    EXPECT_NE(ux, 7);
}

TEST_F(BuildFlow, BuiltGraphCannotChangeButCanRebuild) {
    fe_graph *g = seed_conv("frozen");
    ASSERT_FE_OK(build(g));
    EXPECT_FE_REFUSED(fe_tensor_set_uid(x_, 99), FE_STATUS_BAD_STATE, "can no longer change");
    fe_tensor *z = nullptr;
    EXPECT_FE_STATUS(fe_graph_relu(g, y_, nullptr, &z), FE_STATUS_BAD_STATE);
    EXPECT_FE_OK(build(g));  // building again starts over
}

std::string graph_json(fe_graph *g) { return graph_text(fe_graph_to_json, g); }

// A rebuild that fails (here on a malformed device description) leaves the graph as it was:
// built, with its plan and the device description it was built for.
TEST_F(BuildFlow, AFailedRebuildLeavesTheGraphAsItWas) {
    fe_graph *g = seed_conv("kept");
    ASSERT_FE_OK(build(g));
    std::string tag = engine_tag_of(g), before = graph_json(g);
    int64_t workspace = -1;
    ASSERT_FE_OK(fe_graph_workspace_size(g, &workspace));
    fe_build_options o = FE_BUILD_OPTIONS_INIT;
    o.device_properties_json = "{\"deviceName\": 3";
    o.use_plan_cache = 0;
    EXPECT_FE_STATUS(fe_graph_build(g, nullptr, &o), FE_STATUS_INVALID_ARGUMENT);
    int32_t built = 0;
    EXPECT_FE_OK(fe_graph_is_built(g, &built));
    EXPECT_EQ(built, 1) << "the failed build dropped the plan";
    EXPECT_EQ(engine_tag_of(g), tag);
    int64_t workspace_after = -2;
    EXPECT_FE_OK(fe_graph_workspace_size(g, &workspace_after));
    EXPECT_EQ(workspace_after, workspace);
    EXPECT_EQ(graph_json(g), before) << "the failed build kept the device description it was given";
    EXPECT_FE_OK(build(g));  // and it still builds
}

}  // namespace

// Peer access between GPUs that are not there is refused with the reason (no driver, no GPU, or
// a device that does not exist), never crashes; a device cannot be its own peer.
TEST(PeerAccess, IsRefusedWithTheReasonWhereTheGpusAreMissing) {
    int32_t devices = 0;
    if (fe_device_count(&devices) != FE_OK) devices = 0;
    if (devices >= 2) GTEST_SKIP() << "this machine has " << devices << " GPUs: the multi-GPU tests cover peer access";
    fe_status s = fe_device_enable_peer_access(0, 1);
    EXPECT_NE(s, FE_OK);
    EXPECT_TRUE(s == FE_STATUS_INVALID_ARGUMENT || s == FE_STATUS_NO_DEVICE || s == FE_STATUS_LIBRARY_UNAVAILABLE)
        << fe_last_error_message();
    EXPECT_TRUE(LastErrorContains("fe_device_enable_peer_access: ")) << fe_last_error_message();
    if (devices == 1) {
        EXPECT_FE_STATUS(fe_device_enable_peer_access(0, 0), FE_STATUS_INVALID_ARGUMENT);
        EXPECT_TRUE(LastErrorContains("a GPU reaches its own memory")) << fe_last_error_message();
    }
}
