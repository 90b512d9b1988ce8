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
    EXPECT_FE_REFUSED(fe_graph_engine_count(g, &engines), FE_STATUS_BAD_STATE,
                      "fe_graph_engine_count: graph 'bad' has no operation graph yet");
    EXPECT_FE_REFUSED(fe_graph_add_candidate(g, 0, nullptr, 0), FE_STATUS_BAD_STATE,
                      "fe_graph_add_candidate: graph 'bad': candidates are added after");

    g = lowered("bad");
    ASSERT_FE_OK(fe_graph_engine_count(g, &engines));
    size_t count = 0;
    EXPECT_FE_REFUSED(fe_graph_engine_knobs(g, static_cast<int64_t>(engines), nullptr, 0, &count),
                      FE_STATUS_INVALID_ARGUMENT, "fe_graph_engine_knobs: graph 'bad': engine");
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
    EXPECT_FE_REFUSED(fe_graph_add_candidate(g, engine_of_tag(tag), &unknown, 1), FE_STATUS_INVALID_ARGUMENT,
                      "unknown knob type 99");
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
    EXPECT_FE_REFUSED(fe_graph_build(g, nullptr, &o), FE_STATUS_INVALID_ARGUMENT, "options.autotune_knob_search is -1");
    o.autotune_knob_search = 2;
    EXPECT_FE_REFUSED(fe_graph_build(g, nullptr, &o), FE_STATUS_BAD_STATE, "autotuning times plans on a GPU");
}

}  // namespace

namespace {

class EngineNotes : public EngineKnobs {
  protected:
    fe_graph *with_candidates(const char *name) {
        fe_graph *g = conv(name);
        EXPECT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
        EXPECT_FE_OK(fe_graph_validate(g));
        EXPECT_FE_OK(fe_graph_build_operation_graph(g, nullptr));
        EXPECT_FE_OK(fe_graph_create_execution_plans(g, nullptr, 0));
        return g;
    }
};

// Every candidate's engine notes are readable before a plan is built; deselecting the
// runtime-compiled engines leaves the precompiled ones, which build a whole plan without a GPU.
TEST_F(EngineNotes, CandidatesCarryTheirNotesAndAreSelectedByThem) {
    fe_graph *g = with_candidates("notes");
    size_t count = 0;
    ASSERT_FE_OK(fe_graph_candidate_count(g, &count));
    ASSERT_GT(count, 1u);
    size_t compiled = 0;
    std::vector<int64_t> behavior(count);
    for (size_t i = 0; i < count; ++i) {
        const char *tag = nullptr;
        int64_t numerical = 0;
        ASSERT_FE_OK(fe_graph_candidate_notes(g, i, &tag, &numerical, &behavior[i]));
        EXPECT_EQ(std::string(tag).rfind("eng", 0), 0u) << tag;
        EXPECT_EQ(numerical & ~int64_t(1023), 0) << tag;
        EXPECT_EQ(behavior[i] & ~int64_t(15), 0) << tag;
        if (behavior[i] & FE_BEHAVIOR_NOTE_RUNTIME_COMPILATION) ++compiled;
    }
    ASSERT_GT(compiled, 0u) << "no runtime-compiled candidate for this convolution on the H100";
    ASSERT_LT(compiled, count) << "no precompiled candidate for this convolution on the H100";
    ASSERT_FE_OK(fe_graph_select_by_notes(g, 0, FE_BEHAVIOR_NOTE_RUNTIME_COMPILATION, 0, 0));
    size_t viable = 0;
    ASSERT_FE_OK(fe_graph_viable_count(g, &viable));
    EXPECT_EQ(viable, count - compiled);
    ASSERT_FE_OK(fe_graph_check_support(g));
    ASSERT_FE_OK(fe_graph_build_plans(g, FE_BUILD_POLICY_HEURISTICS_CHOICE));
    int64_t engine = -1;
    ASSERT_FE_OK(fe_graph_engine_index(g, &engine));
    for (size_t i = 0; i < count; ++i) {
        const char *tag = nullptr;
        ASSERT_FE_OK(fe_graph_candidate_notes(g, i, &tag, nullptr, nullptr));
        if (std::string(tag) == engine_tag_of(g))
            EXPECT_EQ(behavior[i] & FE_BEHAVIOR_NOTE_RUNTIME_COMPILATION, 0) << "the plan is runtime-compiled: " << tag;
    }
    std::printf("    %zu candidates, %zu runtime-compiled; built %s without them\n", count, compiled, engine_tag_of(g));
}

// A required note no candidate has leaves none, and the support check says why.
TEST_F(EngineNotes, RequiringANoteNoEngineHasLeavesNone) {
    fe_graph *g = with_candidates("required");
    size_t count = 0;
    ASSERT_FE_OK(fe_graph_candidate_count(g, &count));
    ASSERT_FE_OK(fe_graph_select_by_notes(g, 0, 0, FE_NUMERICAL_NOTE_FFT | FE_NUMERICAL_NOTE_WINOGRAD_TILE_13X13, 0));
    size_t viable = 0;
    ASSERT_FE_OK(fe_graph_viable_count(g, &viable));
    EXPECT_EQ(viable, 0u);
    EXPECT_FE_STATUS(fe_graph_check_support(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("lack a required note")) << fe_last_error_message();
}

// The same selection as a build option: a plan from a precompiled engine; the option is part of
// the plan cache's key; a bit that is no note is refused.
TEST_F(EngineNotes, TheBuildOptionsSelectByNotesToo) {
    fe_build_options o = FE_BUILD_OPTIONS_INIT;
    o.device_properties_json = json_.c_str();
    fe_plan_cache_clear();
    int64_t memory_before = 0, disk = 0, misses_before = 0, rejected = 0;
    ASSERT_FE_OK(fe_plan_cache_stats(&memory_before, &disk, &misses_before, &rejected));
    ASSERT_FE_OK(fe_graph_build(conv("plain"), nullptr, &o));
    o.deselect_behavior_notes = FE_BEHAVIOR_NOTE_RUNTIME_COMPILATION;
    fe_graph *g = conv("precompiled");
    ASSERT_FE_OK(fe_graph_build(g, nullptr, &o));
    int64_t memory = 0, misses = 0;
    ASSERT_FE_OK(fe_plan_cache_stats(&memory, &disk, &misses, &rejected));
    EXPECT_EQ(misses - misses_before, 2) << "the build with notes reused the plan built without them";
    EXPECT_EQ(memory, memory_before);
    size_t count = 0;
    ASSERT_FE_OK(fe_graph_candidate_count(g, &count));
    for (size_t i = 0; i < count; ++i) {
        const char *tag = nullptr;
        int64_t behavior = 0;
        ASSERT_FE_OK(fe_graph_candidate_notes(g, i, &tag, nullptr, &behavior));
        if (std::string(tag) == engine_tag_of(g)) EXPECT_EQ(behavior & FE_BEHAVIOR_NOTE_RUNTIME_COMPILATION, 0) << tag;
    }
    o.require_numerical_notes = int64_t(1) << 40;
    EXPECT_FE_STATUS(fe_graph_build(conv("bad_mask"), nullptr, &o), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("fe_graph_build: options.require_numerical_notes is 0x10000000000"))
        << fe_last_error_message();
}

TEST_F(EngineNotes, BadRequestsAreRefused) {
    fe_graph *early = conv("early");
    EXPECT_FE_STATUS(fe_graph_select_by_notes(early, 0, FE_BEHAVIOR_NOTE_RUNTIME_COMPILATION, 0, 0),
                     FE_STATUS_BAD_STATE);
    EXPECT_TRUE(LastErrorContains("fe_graph_select_by_notes: graph 'early' has no candidates yet"));
    EXPECT_FE_STATUS(fe_graph_candidate_notes(early, 0, nullptr, nullptr, nullptr), FE_STATUS_BAD_STATE);
    fe_graph *g = with_candidates("bad");
    EXPECT_FE_REFUSED(fe_graph_select_by_notes(g, 1024, 0, 0, 0), FE_STATUS_INVALID_ARGUMENT,
                      "deselect_numerical is 0x400; its bits must be fe_numerical_note values");
    EXPECT_FE_REFUSED(fe_graph_select_by_notes(g, 0, 0, 0, 16), FE_STATUS_INVALID_ARGUMENT, "require_behavior is 0x10");
    size_t count = 0;
    ASSERT_FE_OK(fe_graph_candidate_count(g, &count));
    EXPECT_FE_REFUSED(fe_graph_candidate_notes(g, count, nullptr, nullptr, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "past the");
}

}  // namespace
