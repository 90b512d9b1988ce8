// What the plan cache's key tells apart. The key is taken from the graph in memory, not from its
// JSON, yet it must hold exactly the JSON's facts: each change below (a fact of the graph, a tensor,
// an op or an attribute) changes the JSON and must miss the cache; the same graph made again, or
// read back from its JSON, must hit it.
#include <functional>
#include <string>
#include <vector>

#include "plans_that_last.hpp"

using namespace cudnnfe_test;

namespace {

// The graph the cases vary: Y = conv(X, W), the seed's convolution (a precompiled engine builds
// it without a GPU; a fused epilogue would need one to compile).
struct Variant {
    std::string graph_name = "keyed";
    std::string x_name = "X";
    fe_data_type io = FE_DATA_HALF;
    int64_t batch = 4;
    int64_t padding = 1;
    const char *conv_name = "conv";
    int64_t x_uid = 0;        // 0: left to the build
    int64_t x_alignment = 0;  // 0: the default (16)
    fe_data_type conv_compute = FE_DATA_NOT_SET;
    bool x_channels_last = true;
};

class PlanCacheKey : public PlansThatLast {
  protected:
    fe_graph *make(const Variant &v) {
        fe_graph *g = graph(v.graph_name.c_str(), v.io);
        fe_tensor *x = tensor(g, v.x_name.c_str(), {v.batch, 32, 16, 16}, v.x_channels_last);
        fe_tensor *w = tensor(g, "W", {32, 32, 3, 3}, true);
        if (v.x_uid) EXPECT_FE_OK(fe_tensor_set_uid(x, v.x_uid));
        if (v.x_alignment) EXPECT_FE_OK(fe_tensor_set_alignment(x, v.x_alignment));
        fe_conv_options c = FE_CONV_OPTIONS_INIT;
        c.name = v.conv_name;
        c.pre_padding[0] = c.pre_padding[1] = c.post_padding[0] = c.post_padding[1] = v.padding;
        c.compute_data_type = v.conv_compute;
        fe_tensor *y = nullptr;
        EXPECT_FE_OK(fe_graph_conv_fprop(g, x, w, &c, &y));
        EXPECT_FE_OK(fe_tensor_set_output(y, 1));
        return g;
    }

    std::string json_of(fe_graph *g) { return graph_text(fe_graph_to_json, g); }

    // Builds with the in-process cache; true when the plan came from it.
    bool hit(fe_graph *g) {
        fe_build_options o = options();
        Stats before = stats();
        EXPECT_FE_OK(fe_graph_build(g, nullptr, &o)) << json_of(g);
        return stats().memory > before.memory;
    }
};

TEST_F(PlanCacheKey, EveryFactOfTheJsonChangesItAndNothingElseDoes) {
    const Variant base;
    fe_graph *first = make(base);
    const std::string base_json = json_of(first);
    EXPECT_FALSE(hit(first));
    EXPECT_TRUE(hit(make(base))) << "the same graph made again";

    fe_graph *read = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(base_json.data(), base_json.size(), &read));
    graphs_.push_back(read);
    EXPECT_TRUE(hit(read)) << "the graph read back from its JSON";

    struct Change {
        const char *what;
        std::function<void(Variant &)> apply;
    };
    const std::vector<Change> changes = {
        {"the graph's name", [](Variant &v) { v.graph_name = "keyed2"; }},
        {"a tensor's name", [](Variant &v) { v.x_name = "X2"; }},
        {"the io type", [](Variant &v) { v.io = FE_DATA_BFLOAT16; }},
        {"a dim", [](Variant &v) { v.batch = 2; }},
        {"an op's name", [](Variant &v) { v.conv_name = "conv2"; }},
        {"an attribute (padding)", [](Variant &v) { v.padding = 0; }},
        {"a uid set", [](Variant &v) { v.x_uid = 77; }},
        {"an alignment", [](Variant &v) { v.x_alignment = 64; }},
        {"an op's compute type given", [](Variant &v) { v.conv_compute = FE_DATA_FLOAT; }},
    };
    for (const Change &change : changes) {
        SCOPED_TRACE(change.what);
        Variant v = base;
        change.apply(v);
        fe_graph *g = make(v);
        ASSERT_NE(json_of(g), base_json) << "the change is not a change of the graph";
        EXPECT_FALSE(hit(g));
        EXPECT_TRUE(hit(make(v))) << "the changed graph made again";
    }
}

// Two graphs whose strides differ (one input channels-first) differ in the key too, though their
// dims and everything else agree.
TEST_F(PlanCacheKey, StridesAreInTheKey) {
    Variant v;
    v.graph_name = "strides";
    EXPECT_FALSE(hit(make(v)));
    v.x_channels_last = false;
    fe_graph *other = make(v);
    fe_build_options o = options();
    Stats before = stats();
    fe_graph_build(other, nullptr, &o);  // built or refused, never taken from the cache
    EXPECT_EQ(stats().memory, before.memory);
}

}  // namespace
