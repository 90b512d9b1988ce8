// Helpers shared by the serialization and plan cache tests: the seed's convolution graph
// (built devicelessly: a precompiled engine finalizes a whole plan here) and byte blobs.
#pragma once

#include <string>
#include <vector>

#include "deviceless_support.hpp"

namespace cudnnfe_test {

class PlansThatLast : public Deviceless {
  protected:
    void SetUp() override {
        Deviceless::SetUp();
        if (IsSkipped()) return;
        fe_graph *probe = graph("probe", FE_DATA_HALF);
        size_t n = 0;
        if (fe_graph_to_json(probe, nullptr, 0, &n) == FE_STATUS_NOT_SUPPORTED)
            GTEST_SKIP() << "this build has no graph JSON codec: " << fe_last_error_message();
        fe_plan_cache_clear();
    }

    // X [n,64,56,56] NHWC half, W [32,64,3,3], padding 1: the seed's first graph.
    fe_graph *seed_conv(const char *name, int64_t n = 8) {
        fe_graph *g = graph(name, FE_DATA_HALF);
        fe_tensor *x = tensor(g, "X", {n, 64, 56, 56}, true);
        fe_tensor *w = tensor(g, "W", {32, 64, 3, 3}, true);
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        o.pre_padding[0] = o.pre_padding[1] = o.post_padding[0] = o.post_padding[1] = 1;
        fe_tensor *y = nullptr;
        EXPECT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        EXPECT_FE_OK(fe_tensor_set_output(y, 1));
        return g;
    }

    fe_build_options options() {
        fe_build_options o = FE_BUILD_OPTIONS_INIT;
        o.device_properties_json = json_.c_str();
        return o;
    }

    std::vector<unsigned char> serialize(fe_graph *g) {
        size_t n = 0;
        EXPECT_EQ(fe_graph_serialize(g, nullptr, 0, &n), FE_STATUS_BUFFER_TOO_SMALL);
        std::vector<unsigned char> bytes(n);
        EXPECT_FE_OK(fe_graph_serialize(g, bytes.data(), bytes.size(), &n));
        EXPECT_EQ(n, bytes.size());
        return bytes;
    }

    fe_status deserialize(const std::vector<unsigned char> &bytes, fe_graph **out,
                          const std::string &device = "", fe_mismatch_policy policy = FE_MISMATCH_REFUSE) {
        fe_deserialize_options o = FE_DESERIALIZE_OPTIONS_INIT;
        o.device_properties_json = device.empty() ? json_.c_str() : device.c_str();
        o.on_mismatch = policy;
        fe_status s = fe_graph_deserialize(nullptr, bytes.data(), bytes.size(), &o, out);
        if (s == FE_OK) graphs_.push_back(*out);
        return s;
    }

    struct Stats {
        int64_t memory = 0, disk = 0, misses = 0, rejected = 0;
    };
    Stats stats() {
        Stats s;
        EXPECT_FE_OK(fe_plan_cache_stats(&s.memory, &s.disk, &s.misses, &s.rejected));
        return s;
    }
};

}  // namespace cudnnfe_test
