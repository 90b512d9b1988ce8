// Engines and knobs: cuDNN's search space beyond the heuristics' configs, made candidates by
// hand (what autotuning's knob search does on a GPU), and the errors of each call.
#include <cstdlib>
#include <string>
#include <vector>

#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

// "eng58_k25=0_k2=3" -> {{25, 0}, {2, 3}}
std::vector<fe_knob_choice> knobs_of_tag(const std::string &tag) {
    std::vector<fe_knob_choice> knobs;
    for (size_t at = tag.find("_k"); at != std::string::npos; at = tag.find("_k", at + 1)) {
        fe_knob_choice k;
        k.type = std::atoi(tag.c_str() + at + 2);
        k.value = std::atoll(tag.c_str() + tag.find('=', at) + 1);
        knobs.push_back(k);
    }
    return knobs;
}

int64_t engine_of_tag(const std::string &tag) { return std::atoll(tag.c_str() + 3); }

class EngineKnobs : public Deviceless {
  protected:
    // ResNet-50's l3 1x1 reduction, bf16 channels-last: a layer whose best plan heuristics
    // do not rank first.
    fe_graph *conv(const char *name) {
        fe_graph *g = graph(name, FE_DATA_BFLOAT16);
        fe_tensor *x = tensor(g, "x", {64, 1024, 14, 14}, true);
        fe_tensor *w = tensor(g, "w", {256, 1024, 1, 1}, true);
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        fe_tensor *y = nullptr;
        EXPECT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        EXPECT_FE_OK(fe_tensor_set_output(y, 1));
        return g;
    }
    fe_graph *lowered(const char *name) {
        fe_graph *g = conv(name);
        EXPECT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
        EXPECT_FE_OK(fe_graph_build_operation_graph(g, nullptr));
        return g;
    }
    // The tag of the plan the default build picks.
    std::string heuristics_choice() {
        fe_graph *g = conv("choice");
        EXPECT_FE_OK(build(g));
        return engine_tag_of(g);
    }
};

TEST_F(EngineKnobs, TheHeuristicsChoiceIsWithinItsEnginesKnobRanges) {
    std::string tag = heuristics_choice();
    fe_graph *g = lowered("ranges");
    size_t engines = 0;
    ASSERT_FE_OK(fe_graph_engine_count(g, &engines));
    int64_t engine = engine_of_tag(tag);
    ASSERT_LT(engine, static_cast<int64_t>(engines)) << tag;
    size_t count = 0;
    EXPECT_FE_STATUS(fe_graph_engine_knobs(g, engine, nullptr, 0, &count), FE_STATUS_BUFFER_TOO_SMALL);
    ASSERT_GT(count, 0u) << tag;
    std::vector<fe_knob_range> ranges(count);
    ASSERT_FE_OK(fe_graph_engine_knobs(g, engine, ranges.data(), ranges.size(), &count));
    for (size_t i = 1; i < ranges.size(); ++i) EXPECT_LT(ranges[i - 1].type, ranges[i].type);
    for (const fe_knob_choice &k : knobs_of_tag(tag)) {
        bool found = false;
        for (const fe_knob_range &r : ranges)
            if (r.type == k.type) {
                found = true;
                EXPECT_GE(k.value, r.min_value) << tag;
                EXPECT_LE(k.value, r.max_value) << tag;
            }
        EXPECT_TRUE(found) << "knob " << k.type << " of " << tag << " is not among the engine's knobs";
    }
}

TEST_F(EngineKnobs, AnAddedConfigBuildsThePlanItNames) {
    std::string tag = heuristics_choice();
    fe_graph *g = lowered("added");
    std::vector<fe_knob_choice> knobs = knobs_of_tag(tag);
    ASSERT_FE_OK(fe_graph_add_candidate(g, engine_of_tag(tag), knobs.data(), knobs.size()));
    size_t candidates = 0;
    ASSERT_FE_OK(fe_graph_candidate_count(g, &candidates));
    EXPECT_EQ(candidates, 1);
    ASSERT_FE_OK(fe_graph_check_support(g));
    ASSERT_FE_OK(fe_graph_build_plans(g, FE_BUILD_POLICY_ALL));
    EXPECT_EQ(std::string(engine_tag_of(g)), tag);
}

TEST_F(EngineKnobs, NeighboursOfTheChoiceBuildPlansOfTheirOwn) {
    std::string tag = heuristics_choice();
    int64_t engine = engine_of_tag(tag);
    fe_graph *g = lowered("neighbours");
    ASSERT_FE_OK(fe_graph_create_execution_plans(g, nullptr, 0));
    size_t from_heuristics = 0;
    ASSERT_FE_OK(fe_graph_candidate_count(g, &from_heuristics));
    size_t count = 0;
    std::vector<fe_knob_range> ranges(64);
    ASSERT_FE_OK(fe_graph_engine_knobs(g, engine, ranges.data(), ranges.size(), &count));
    ranges.resize(count);
    std::vector<fe_knob_choice> base = knobs_of_tag(tag);
    int added = 0, refused = 0, duplicates = 0;
    for (size_t i = 0; i < base.size(); ++i) {
        for (const fe_knob_range &r : ranges) {
            if (r.type != base[i].type) continue;
            for (int64_t v = r.min_value; v <= r.max_value && v < r.min_value + 8 * r.stride; v += r.stride) {
                if (v == base[i].value) continue;
                std::vector<fe_knob_choice> next = base;
                next[i].value = v;
                fe_status s = fe_graph_add_candidate(g, engine, next.data(), next.size());
                if (s == FE_OK) {
                    ++added;
                } else if (s == FE_STATUS_INVALID_ARGUMENT) {  // heuristics offered it already
                    EXPECT_TRUE(LastErrorContains("a duplicate")) << fe_last_error_message();
                    ++duplicates;
                } else {
                    EXPECT_EQ(s, FE_STATUS_NOT_SUPPORTED) << fe_last_error_message();
                    EXPECT_TRUE(LastErrorContains("fe_graph_add_candidate: graph 'neighbours': engine config eng"));
                    ++refused;
                }
            }
        }
    }
    ASSERT_GT(added, 0) << "no neighbour of " << tag << " was accepted (" << refused << " refused, " << duplicates
                        << " duplicates)";
    size_t candidates = 0;
    ASSERT_FE_OK(fe_graph_candidate_count(g, &candidates));
    EXPECT_EQ(candidates, from_heuristics + added);
    ASSERT_FE_OK(fe_graph_check_support(g));
    ASSERT_FE_OK(fe_graph_build_plans(g, FE_BUILD_POLICY_ALL));
    size_t plans = 0;
    ASSERT_FE_OK(fe_graph_plan_count(g, &plans));
    EXPECT_GT(plans, 1);
    std::printf("[ info ] %s: %lld heuristic candidates, %d neighbours added, %d refused, %d duplicates, %lld plans\n",
                tag.c_str(), static_cast<long long>(from_heuristics), added, refused, duplicates,
                static_cast<long long>(plans));
}

TEST_F(EngineKnobs, BadRequestsAreRefused) {
    fe_graph *g = conv("bad");
    size_t engines = 0;
    EXPECT_FE_STATUS(fe_graph_engine_count(g, &engines), FE_STATUS_BAD_STATE);
    EXPECT_TRUE(LastErrorContains("fe_graph_engine_count: graph 'bad' has no operation graph yet"));
    EXPECT_FE_STATUS(fe_graph_add_candidate(g, 0, nullptr, 0), FE_STATUS_BAD_STATE);
    EXPECT_TRUE(LastErrorContains("fe_graph_add_candidate: graph 'bad': candidates are added after"));

    g = lowered("bad");
    ASSERT_FE_OK(fe_graph_engine_count(g, &engines));
    size_t count = 0;
    EXPECT_FE_STATUS(fe_graph_engine_knobs(g, static_cast<int64_t>(engines), nullptr, 0, &count), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("fe_graph_engine_knobs: graph 'bad': engine"));
    EXPECT_TRUE(LastErrorContains("is out of range"));
    EXPECT_FE_STATUS(fe_graph_engine_knobs(g, 0, nullptr, 4, &count), FE_STATUS_NULL_POINTER);
    EXPECT_FE_STATUS(fe_graph_add_candidate(g, -1, nullptr, 0), FE_STATUS_INVALID_ARGUMENT);

    // An engine that does not run a bf16 convolution.
    int64_t foreign = -1;
    for (int64_t e = 0; e < static_cast<int64_t>(engines) && foreign < 0; ++e)
        if (fe_graph_engine_knobs(g, e, nullptr, 0, &count) == FE_STATUS_NOT_SUPPORTED) foreign = e;
    ASSERT_GE(foreign, 0) << "every one of " << engines << " engines runs the convolution";
    EXPECT_TRUE(LastErrorContains("does not run it"));
    EXPECT_FE_STATUS(fe_graph_add_candidate(g, foreign, nullptr, 0), FE_STATUS_NOT_SUPPORTED);

    std::string tag = heuristics_choice();
    std::vector<fe_knob_choice> knobs = knobs_of_tag(tag);
    ASSERT_FALSE(knobs.empty()) << tag;
    std::vector<fe_knob_choice> twice = knobs;
    twice.push_back(knobs.front());
    EXPECT_FE_STATUS(fe_graph_add_candidate(g, engine_of_tag(tag), twice.data(), twice.size()),
                     FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("is set twice"));
    fe_knob_choice unknown = {99, 1};
    EXPECT_FE_STATUS(fe_graph_add_candidate(g, engine_of_tag(tag), &unknown, 1), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("unknown knob type 99"));
    ASSERT_FE_OK(fe_graph_add_candidate(g, engine_of_tag(tag), knobs.data(), knobs.size()));
    EXPECT_FE_STATUS(fe_graph_add_candidate(g, engine_of_tag(tag), knobs.data(), knobs.size()),
                     FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("a duplicate of an existing candidate"));
    ASSERT_FE_OK(fe_graph_check_support(g));
    EXPECT_FE_STATUS(fe_graph_add_candidate(g, engine_of_tag(tag), knobs.data(), knobs.size()), FE_STATUS_BAD_STATE);
}

TEST_F(EngineKnobs, KnobSearchOptionIsCheckedAndNeedsAGpu) {
    fe_graph *g = conv("search");
    fe_build_options o = FE_BUILD_OPTIONS_INIT;
    o.device_properties_json = json_.c_str();
    o.autotune = 1;
    o.autotune_knob_search = -1;
    EXPECT_FE_STATUS(fe_graph_build(g, nullptr, &o), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("options.autotune_knob_search is -1"));
    o.autotune_knob_search = 2;
    EXPECT_FE_STATUS(fe_graph_build(g, nullptr, &o), FE_STATUS_BAD_STATE);
    EXPECT_TRUE(LastErrorContains("autotuning times plans on a GPU"));
}

}  // namespace
