// Engine and plan control without a GPU: the ranked candidates with their notes and shared
// memory, deselection by engine name and by shared memory, the deterministic switch, building
// one plan by index or all of them on several threads, and running any plan by its index.
#include <cstddef>
#include <cstring>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

class EngineControl : public Deviceless {
  protected:
    // A bf16 channels-last 3x3 convolution: many precompiled engines build whole plans here.
    fe_graph *conv(const char *name) {
        fe_graph *g = graph(name, FE_DATA_BFLOAT16);
        fe_tensor *x = tensor(g, "x", {16, 64, 28, 28}, true);
        fe_tensor *w = tensor(g, "w", {64, 64, 3, 3}, true);
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        o.pre_padding[0] = o.pre_padding[1] = 1;
        o.post_padding[0] = o.post_padding[1] = 1;
        fe_tensor *y = nullptr;
        EXPECT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        EXPECT_FE_OK(fe_tensor_set_output(y, 1));
        return g;
    }
    // Lowered, with heuristics' candidates.
    fe_graph *with_candidates(const char *name) {
        fe_graph *g = conv(name);
        EXPECT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
        EXPECT_FE_OK(fe_graph_build_operation_graph(g, nullptr));
        EXPECT_FE_OK(fe_graph_create_execution_plans(g, nullptr, 0));
        return g;
    }
    std::vector<fe_config_info> candidates(fe_graph *g) {
        size_t n = 0;
        EXPECT_FE_OK(fe_graph_candidate_count(g, &n));
        std::vector<fe_config_info> out;
        for (size_t i = 0; i < n; ++i) {
            fe_config_info info = FE_CONFIG_INFO_INIT;
            EXPECT_FE_OK(fe_graph_candidate_info(g, i, &info));
            out.push_back(info);
        }
        return out;
    }
    std::vector<std::string> plan_tags(fe_graph *g) {
        size_t n = 0;
        EXPECT_FE_OK(fe_graph_plan_count(g, &n));
        std::vector<std::string> tags;
        for (size_t i = 0; i < n; ++i) {
            fe_config_info info = FE_CONFIG_INFO_INIT;
            EXPECT_FE_OK(fe_graph_plan_info(g, i, &info));
            tags.push_back(info.tag);
        }
        return tags;
    }
};

TEST_F(EngineControl, CandidatesReportTheirEngineWorkspaceSharedMemoryAndNotes) {
    fe_graph *g = with_candidates("info");
    std::vector<fe_config_info> list = candidates(g);
    ASSERT_GE(list.size(), 2u);
    int reported = 0;
    for (const fe_config_info &c : list) {
        EXPECT_EQ(std::string(c.tag).rfind("eng" + std::to_string(c.engine_index), 0), 0u) << c.tag;
        EXPECT_GE(c.workspace_bytes, 0) << c.tag;
        EXPECT_GE(c.shared_memory_bytes, -1) << c.tag;
        EXPECT_LE(c.shared_memory_bytes, 228 * 1024) << c.tag << ": more than an H100 SM has";
        if (c.shared_memory_bytes >= 0) ++reported;
        EXPECT_EQ(c.viable, 1);
        const char *tag = nullptr;
        int64_t numerical = -1, behavior = -1;
        EXPECT_FE_OK(fe_graph_candidate_notes(g, static_cast<size_t>(&c - list.data()), &tag, &numerical, &behavior));
        EXPECT_STREQ(tag, c.tag);
        EXPECT_EQ(numerical, c.numerical_notes);
        EXPECT_EQ(behavior, c.behavior_notes);
    }
    // cuDNN 9.19 reports the shared memory of the engines it compiles at run time (here eng71).
    EXPECT_GE(reported, 1);
    fe_config_info info = FE_CONFIG_INFO_INIT;
    EXPECT_FE_STATUS(fe_graph_candidate_info(g, list.size(), &info), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("past the")) << fe_last_error_message();
    info.struct_size = 0;
    EXPECT_FE_STATUS(fe_graph_candidate_info(g, 0, &info), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("FE_CONFIG_INFO_INIT")) << fe_last_error_message();
}

TEST_F(EngineControl, AnOlderCallersConfigInfoIsFilledOnlyAsFarAsItsSize) {
    fe_graph *g = with_candidates("older");
    struct {
        fe_config_info info;
        unsigned char guard[8];
    } padded;
    std::memset(&padded, 0xAB, sizeof padded);
    padded.info.struct_size = static_cast<uint32_t>(offsetof(fe_config_info, workspace_bytes));
    ASSERT_FE_OK(fe_graph_candidate_info(g, 0, &padded.info));
    EXPECT_NE(padded.info.tag, nullptr);
    unsigned char untouched[sizeof(fe_config_info) - offsetof(fe_config_info, workspace_bytes)];
    std::memset(untouched, 0xAB, sizeof untouched);
    EXPECT_EQ(std::memcmp(reinterpret_cast<unsigned char *>(&padded.info) + offsetof(fe_config_info, workspace_bytes),
                          untouched, sizeof untouched),
              0);
}

TEST_F(EngineControl, AnEngineNameDeselectsEverySettingOfItAndATagOnlyThatOne) {
    fe_graph *g = with_candidates("by_name");
    std::vector<fe_config_info> list = candidates(g);
    ASSERT_GE(list.size(), 2u);
    std::string first_engine = "eng" + std::to_string(list[0].engine_index);
    std::string second_tag = list[1].tag;
    ASSERT_FE_OK(fe_graph_deselect_engines(g, (first_engine + ", " + second_tag).c_str()));
    for (const fe_config_info &c : candidates(g)) {
        bool named = c.engine_index == list[0].engine_index || second_tag == c.tag;
        EXPECT_EQ(c.viable, named ? 0 : 1) << c.tag;
    }
    // A name no candidate has deselects nothing.
    fe_graph *other = with_candidates("unknown_name");
    ASSERT_FE_OK(fe_graph_deselect_engines(other, "eng99999,eng5_k2=-1"));
    for (const fe_config_info &c : candidates(other)) EXPECT_EQ(c.viable, 1) << c.tag;
}

TEST_F(EngineControl, AMalformedEngineNameIsRefused) {
    fe_graph *g = with_candidates("malformed");
    for (const char *bad : {"", "eng", "engine6", "6", "eng6_", "eng6_k24", "eng6_k=1", "eng6_x24=1", "eng6,,eng7",
                            "eng6;eng7", "eng-6"}) {
        EXPECT_FE_STATUS(fe_graph_deselect_engines(g, bad), FE_STATUS_INVALID_ARGUMENT) << bad;
        EXPECT_TRUE(LastErrorContains("is not an engine name")) << bad << ": " << fe_last_error_message();
    }
    for (const fe_config_info &c : candidates(g)) EXPECT_EQ(c.viable, 1) << "a refused list deselected " << c.tag;
    fe_graph *early = conv("early");
    EXPECT_FE_STATUS(fe_graph_deselect_engines(early, "eng0"), FE_STATUS_BAD_STATE);
}

TEST_F(EngineControl, ASharedMemoryLimitDeselectsTheConfigsReportedOverIt) {
    fe_graph *g = with_candidates("shared_memory");
    std::vector<fe_config_info> list = candidates(g);
    int64_t most = -1;
    for (const fe_config_info &c : list) most = std::max(most, c.shared_memory_bytes);
    ASSERT_GT(most, 0) << "no candidate reports its shared memory: pick a graph with a runtime-compiled engine";
    ASSERT_FE_OK(fe_graph_deselect_shared_memory_greater_than(g, most - 1));
    size_t kept = 0;
    for (const fe_config_info &c : candidates(g)) {
        // Over the limit: deselected. Not reported (-1): kept, as the reference frontend does.
        EXPECT_EQ(c.viable, c.shared_memory_bytes < most ? 1 : 0) << c.tag << " " << c.shared_memory_bytes;
        kept += c.viable;
    }
    EXPECT_LT(kept, list.size());
    EXPECT_FE_STATUS(fe_graph_deselect_shared_memory_greater_than(g, -1), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("a shared-memory limit is 0 or more")) << fe_last_error_message();
}

TEST_F(EngineControl, PlansBuiltOnSeveralThreadsAreThoseBuiltOnOne) {
    fe_graph *one = with_candidates("one_thread");
    ASSERT_FE_OK(fe_graph_check_support(one));
    ASSERT_FE_OK(fe_graph_build_plans(one, FE_BUILD_POLICY_ALL));
    fe_graph *four = with_candidates("four_threads");
    ASSERT_FE_OK(fe_graph_check_support(four));
    ASSERT_FE_OK(fe_graph_build_plans_on_threads(four, FE_BUILD_POLICY_ALL, 4));
    EXPECT_GE(plan_tags(one).size(), 2u);
    EXPECT_EQ(plan_tags(one), plan_tags(four));
    EXPECT_EQ(std::string(engine_tag_of(one)), std::string(engine_tag_of(four)));

    fe_graph *bad = with_candidates("bad_threads");
    ASSERT_FE_OK(fe_graph_check_support(bad));
    for (int32_t threads : {0, -1, 65}) {
        EXPECT_FE_STATUS(fe_graph_build_plans_on_threads(bad, FE_BUILD_POLICY_ALL, threads), FE_STATUS_INVALID_ARGUMENT)
            << threads;
        EXPECT_TRUE(LastErrorContains("threads")) << fe_last_error_message();
    }
}

TEST_F(EngineControl, OnePlanIsBuiltByItsCandidateIndexAndAnyPlanCanBeTheOneThatRuns) {
    fe_graph *g = with_candidates("by_index");
    ASSERT_FE_OK(fe_graph_check_support(g));
    std::vector<fe_config_info> list = candidates(g);
    ASSERT_GE(list.size(), 3u);
    EXPECT_FE_STATUS(fe_graph_select_plan(g, 0), FE_STATUS_BAD_STATE);
    // Candidates that need a runtime compilation fail without a driver; take two that build.
    std::vector<size_t> built;
    for (size_t i = list.size(); i-- > 0 && built.size() < 2;) {
        fe_status s = fe_graph_build_plan_at_index(g, i);
        if (s == FE_OK) {
            built.push_back(i);
        } else {
            EXPECT_EQ(s, FE_STATUS_NOT_SUPPORTED) << fe_last_error_message();
            EXPECT_TRUE(LastErrorContains("did not build a plan")) << fe_last_error_message();
        }
    }
    ASSERT_EQ(built.size(), 2u);
    std::vector<std::string> tags = plan_tags(g);
    ASSERT_EQ(tags.size(), 2u);
    EXPECT_EQ(tags[0], list[built[0]].tag);
    EXPECT_EQ(tags[1], list[built[1]].tag);
    EXPECT_EQ(std::string(engine_tag_of(g)), tags[0]) << "the first plan built runs";

    ASSERT_FE_OK(fe_graph_select_plan(g, 1));
    EXPECT_EQ(std::string(engine_tag_of(g)), tags[1]);
    fe_config_info info = FE_CONFIG_INFO_INIT;
    ASSERT_FE_OK(fe_graph_plan_info(g, 1, &info));
    int64_t workspace = -1;
    ASSERT_FE_OK(fe_graph_workspace_size(g, &workspace));
    EXPECT_EQ(workspace, info.workspace_bytes);
    EXPECT_EQ(info.numerical_notes, list[built[1]].numerical_notes);
    EXPECT_EQ(info.shared_memory_bytes, list[built[1]].shared_memory_bytes);
    EXPECT_TRUE(describe(g).find(tags[1]) != std::string::npos) << describe(g);

    EXPECT_FE_STATUS(fe_graph_select_plan(g, 2), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_FE_STATUS(fe_graph_plan_info(g, 2, &info), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_FE_STATUS(fe_graph_build_plan_at_index(g, built[0]), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("has a plan already")) << fe_last_error_message();
    EXPECT_FE_STATUS(fe_graph_build_plan_at_index(g, list.size()), FE_STATUS_INVALID_ARGUMENT);

    // A deselected candidate is not built.
    fe_graph *h = with_candidates("deselected_index");
    ASSERT_FE_OK(fe_graph_deselect_engines(h, list[built[0]].tag));
    ASSERT_FE_OK(fe_graph_check_support(h));
    EXPECT_FE_STATUS(fe_graph_build_plan_at_index(h, built[0]), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("is not viable: its engine is deselected by name")) << fe_last_error_message();
}

TEST_F(EngineControl, TheSelectedPlanIsTheOneSerialized) {
    fe_graph *g = with_candidates("serialized_choice");
    ASSERT_FE_OK(fe_graph_check_support(g));
    ASSERT_FE_OK(fe_graph_build_plans(g, FE_BUILD_POLICY_ALL));
    std::vector<std::string> tags = plan_tags(g);
    ASSERT_GE(tags.size(), 2u);
    ASSERT_FE_OK(fe_graph_select_plan(g, tags.size() - 1));
    size_t n = 0;
    fe_graph_serialize(g, nullptr, 0, &n);
    std::vector<unsigned char> blob(n);
    ASSERT_FE_OK(fe_graph_serialize(g, blob.data(), blob.size(), &n));
    fe_graph *back = nullptr;
    fe_deserialize_options options = FE_DESERIALIZE_OPTIONS_INIT;
    options.device_properties_json = json_.c_str();
    ASSERT_FE_OK(fe_graph_deserialize(nullptr, blob.data(), n, &options, &back));
    graphs_.push_back(back);
    EXPECT_EQ(std::string(engine_tag_of(back)), tags.back());
    // The notes of a plan read back come from cuDNN's own record of its engine config.
    fe_config_info info = FE_CONFIG_INFO_INIT, built = FE_CONFIG_INFO_INIT;
    ASSERT_FE_OK(fe_graph_plan_info(back, 0, &info)) << fe_last_error_message();
    ASSERT_FE_OK(fe_graph_plan_info(g, tags.size() - 1, &built));
    EXPECT_EQ(info.numerical_notes, built.numerical_notes);
    EXPECT_EQ(info.behavior_notes, built.behavior_notes);
    EXPECT_EQ(info.shared_memory_bytes, built.shared_memory_bytes);
}

TEST_F(EngineControl, BuildOptionsDeselectByNameSharedMemoryAndNondeterminism) {
    fe_graph *probe = with_candidates("probe");
    std::vector<fe_config_info> list = candidates(probe);
    ASSERT_GE(list.size(), 2u);

    fe_graph *g = conv("options");
    fe_build_options o = FE_BUILD_OPTIONS_INIT;
    o.device_properties_json = json_.c_str();
    std::string avoid = "eng" + std::to_string(list[0].engine_index);
    o.deselect_engines = avoid.c_str();
    o.deterministic = 1;
    o.max_shared_memory_bytes = 32 * 1024;  // deselects eng71, the runtime-compiled engine
    o.build_threads = 3;
    o.policy = FE_BUILD_POLICY_ALL;
    o.use_plan_cache = 0;
    ASSERT_FE_OK(fe_graph_build(g, nullptr, &o));
    size_t plans = 0;
    ASSERT_FE_OK(fe_graph_plan_count(g, &plans));
    for (size_t i = 0; i < plans; ++i) {
        fe_config_info info = FE_CONFIG_INFO_INIT;
        ASSERT_FE_OK(fe_graph_plan_info(g, i, &info));
        EXPECT_NE(info.engine_index, list[0].engine_index) << info.tag;
        EXPECT_EQ(info.numerical_notes & FE_NUMERICAL_NOTE_NONDETERMINISTIC, 0) << info.tag;
        EXPECT_LE(info.shared_memory_bytes, 32 * 1024) << info.tag;
    }
}

TEST_F(EngineControl, BuildOptionsOutOfRangeAreRefused) {
    struct Case {
        const char *field;
        void (*set)(fe_build_options &);
    } cases[] = {
        {"options.max_shared_memory_bytes", [](fe_build_options &o) { o.max_shared_memory_bytes = -1; }},
        {"options.deterministic", [](fe_build_options &o) { o.deterministic = 2; }},
        {"options.build_threads", [](fe_build_options &o) { o.build_threads = 65; }},
        {"options.build_threads", [](fe_build_options &o) { o.build_threads = -1; }},
    };
    for (const Case &c : cases) {
        fe_graph *g = conv("refused_option");
        fe_build_options o = FE_BUILD_OPTIONS_INIT;
        o.device_properties_json = json_.c_str();
        c.set(o);
        EXPECT_FE_STATUS(fe_graph_build(g, nullptr, &o), FE_STATUS_INVALID_ARGUMENT) << c.field;
        EXPECT_TRUE(LastErrorContains(c.field)) << fe_last_error_message();
    }
    fe_graph *g = conv("bad_name_option");
    fe_build_options o = FE_BUILD_OPTIONS_INIT;
    o.device_properties_json = json_.c_str();
    o.deselect_engines = "eng6;eng7";
    EXPECT_FE_STATUS(fe_graph_build(g, nullptr, &o), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("is not an engine name")) << fe_last_error_message();
}

}  // namespace
