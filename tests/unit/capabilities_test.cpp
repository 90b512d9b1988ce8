// The capability table: every gate at the versions around its edges (versions are passed in, so
// no cuDNN is needed), the words of its messages, and docs/capabilities.md kept equal to it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "backend/capabilities.hpp"
#include "common/error.hpp"

namespace {

using fe::Capability;
using fe::Feature;
using fe::Gate;

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

// The next minor release after `version`'s (9.19.x -> 9.20.0).
int64_t next_minor(int64_t version) { return (version / 100 + 1) * 100; }

TEST(Capabilities, EveryFeatureHasOneEntryInOrder) {
    const std::vector<Capability> &table = fe::capabilities();
    for (size_t i = 0; i < table.size(); ++i) {
        EXPECT_EQ(static_cast<size_t>(table[i].feature), i) << table[i].name;
        EXPECT_EQ(&fe::capability(table[i].feature), &table[i]) << table[i].name;
        EXPECT_NE(std::string(table[i].subject), "") << table[i].name;
        EXPECT_NE(table[i].problem, nullptr) << table[i].name;
    }
    EXPECT_EQ(table.back().feature, Feature::vectorized_conv_float_math) << "a feature lacks its entry";
}

TEST(Capabilities, MinimumVersionsRefuseBelowAndAllowAtTheMinimum) {
    for (const Capability &c : fe::capabilities()) {
        if (c.gate != Gate::minimum_version || c.minimum == 0) continue;
        SCOPED_TRACE(c.name);
        std::string below = fe::refusal(c.feature, c.minimum - 1);
        EXPECT_NE(below, "");
        EXPECT_TRUE(contains(below, c.subject)) << below;
        EXPECT_TRUE(contains(below, "needs cuDNN >= " + fe::version_text(c.minimum))) << below;
        EXPECT_TRUE(contains(below, "cuDNN " + fe::version_text(c.minimum - 1) + " is loaded")) << below;
        EXPECT_EQ(fe::refusal(c.feature, c.minimum), "");
        EXPECT_EQ(fe::refusal(c.feature, c.minimum + 10000), "");
    }
}

TEST(Capabilities, KnownBadVersionsAreRefusedInTheirRangeAndAllowedAfterIt) {
    int ranges = 0;
    for (const Capability &c : fe::capabilities()) {
        if (c.gate != Gate::known_bad) continue;
        SCOPED_TRACE(c.name);
        ++ranges;
        for (int64_t bad : {c.bad_from, c.bad_through, c.bad_through + 3}) {
            std::string why = fe::refusal(c.feature, bad);
            EXPECT_TRUE(contains(why, c.subject)) << why;
            EXPECT_TRUE(contains(why, "refused with cuDNN " + fe::version_text(bad))) << why;
            EXPECT_TRUE(contains(why, "through " + fe::minor_version_text(c.bad_through) + ", verified on " +
                                          c.seen_on))
                << why;
            EXPECT_THROW(fe::require(c.feature, bad), fe::Error);
        }
        EXPECT_EQ(fe::refusal(c.feature, next_minor(c.bad_through)), "");
        EXPECT_NO_THROW(fe::require(c.feature, next_minor(c.bad_through)));
        if (c.bad_from > 90000) {
            EXPECT_EQ(fe::refusal(c.feature, c.bad_from - 1), "");
        }
    }
    EXPECT_GE(ranges, 5);
}

TEST(Capabilities, ChainedMatmulsAreRefusedOnTheVersionThatGaveWrongResults) {
    std::string why = fe::refusal(Feature::chained_matmuls, 91900);
    EXPECT_EQ(why, "two chained matmuls in one graph (through pointwise steps only): refused with cuDNN 9.19.0, which "
                   "fuses them into a runtime-compiled kernel that gave wrong results (chains through a reduction, "
                   "as in attention, were verified good) (known bad through 9.19, verified on H100)");
    EXPECT_NE(fe::refusal(Feature::chained_matmuls, 91401), "");
    EXPECT_EQ(fe::refusal(Feature::chained_matmuls, 92000), "");
}

TEST(Capabilities, NativeSdpaBackwardIsRefusedFromItsFirstVersionThroughTheLastVerified) {
    EXPECT_TRUE(contains(fe::refusal(Feature::native_sdpa_backward, 91301), "known bad from 9.13.1 through 9.19"));
    EXPECT_EQ(fe::refusal(Feature::native_sdpa_backward, 92000), "");
}

TEST(Capabilities, MessagesNameTheFeatureAndBothVersions) {
    EXPECT_EQ(fe::refusal(Feature::adalayernorm, 90701), "adalayernorm needs cuDNN >= 9.9.0 (cuDNN 9.7.1 is loaded)");
    EXPECT_EQ(fe::refusal(Feature::native_sdpa, 91300),
              "the native SDPA operation needs cuDNN >= 9.13.1 (cuDNN 9.13.0 is loaded)");
    try {
        fe::require(Feature::zero_centered_gamma, 90600);
        FAIL() << "9.6 has no zero-centred gamma";
    } catch (const fe::Error &e) {
        EXPECT_EQ(e.status(), FE_STATUS_NOT_SUPPORTED);
        EXPECT_STREQ(e.what(), "zero-centred gamma needs cuDNN >= 9.7.0 (cuDNN 9.6.0 is loaded)");
    }
    EXPECT_EQ(fe::refusal(Feature::cudnn_9, 8907), "cudnnfe needs cuDNN >= 9.0.0 (cuDNN 8.9.7 is loaded)");
}

TEST(Capabilities, GpuGenerationsAreCheckedWhereTheGpuIsKnown) {
    EXPECT_EQ(fe::refusal(Feature::block_scaling, 91900, 90),
              "MXFP8 block scaling needs a Blackwell (sm100) or later GPU; the target is Hopper (sm90)");
    EXPECT_EQ(fe::refusal(Feature::block_scaling, 91900, 100), "");
    EXPECT_EQ(fe::refusal(Feature::block_scaling, 91900, 120), "");
    EXPECT_EQ(fe::refusal(Feature::block_scaling, 91900), "") << "an unknown GPU is left to cuDNN";
    EXPECT_TRUE(contains(fe::refusal(Feature::block_scaling, 90600, 100), "needs cuDNN >= 9.7.0"));
    EXPECT_NE(fe::refusal(Feature::fp8_matmul, 91900, 89), "");
    EXPECT_EQ(fe::refusal(Feature::fp8_matmul, 91900, 90), "");
    EXPECT_EQ(fe::explanation(Feature::block_scaling, 91900),
              "cuDNN's engines for MXFP8 block scaling run on Blackwell (sm100) and later GPUs; Hopper (sm90) and "
              "earlier have none (cuDNN 9.19.0 is loaded)");
}

TEST(Capabilities, ObservationsNeverRefuseAndSayWhereTheyWereSeen) {
    for (const Capability &c : fe::capabilities()) {
        if (c.gate != Gate::observed) continue;
        SCOPED_TRACE(c.name);
        EXPECT_EQ(fe::refusal(c.feature, 91900), "");
        std::string text = fe::explanation(c.feature, 92100);
        EXPECT_TRUE(contains(text, "cuDNN " + fe::minor_version_text(c.bad_through) + " " + c.problem)) << text;
        EXPECT_TRUE(contains(text, std::string("seen on ") + c.seen_on + "; cuDNN 9.21.0 is loaded")) << text;
    }
}

TEST(Capabilities, OptionsNotLoweredNativelySayWhichVersionHasThem) {
    EXPECT_EQ(fe::not_lowered(Feature::native_sdpa_score_modifiers, "causal mask", 91900),
              "the native SDPA operation takes no causal mask before cuDNN 9.21 (cuDNN 9.19.0 is loaded)");
    EXPECT_TRUE(contains(fe::not_lowered(Feature::native_sdpa_dropout, "dropout", 92200),
                         "takes the dropout from cuDNN 9.22 as a score subgraph, which this library does not build"));
}

// docs/capabilities.md is the table rendered; regenerate it with the command its header gives.
TEST(CapabilitiesDoc, MatchesTheTable) {
    const std::string path = std::string(CUDNNFE_SOURCE_ROOT) + "/docs/capabilities.md";
    const std::string rendered = fe::capabilities_markdown();
    if (std::getenv("CUDNNFE_WRITE_CAPABILITIES_DOC")) {
        std::ofstream(path, std::ios::binary) << rendered;
        GTEST_SKIP() << "wrote " << path;
    }
    std::ifstream in(path, std::ios::binary);
    std::stringstream committed;
    committed << in.rdbuf();
    EXPECT_TRUE(committed.str() == rendered)
        << "docs/capabilities.md differs from the capability table (lib/backend/capabilities.cpp); regenerate it "
           "with: CUDNNFE_WRITE_CAPABILITIES_DOC=1 build/tests/unit/cudnnfe_unit_tests "
           "--gtest_filter='CapabilitiesDoc.*'";
}

}  // namespace
