// Helpers shared by the test tiers: status assertions, the device description, GPU presence.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cudnnfe.h"

// Assert a call's status; on mismatch show the library's message.
#define EXPECT_FE_OK(call) EXPECT_EQ((call), FE_OK) << fe_last_error_message()
#define ASSERT_FE_OK(call) ASSERT_EQ((call), FE_OK) << fe_last_error_message()
#define EXPECT_FE_STATUS(call, status) EXPECT_EQ((call), (status)) << fe_last_error_message()

// The message of the last failure contains `needle`.
inline ::testing::AssertionResult LastErrorContains(const std::string &needle) {
    std::string message = fe_last_error_message();
    if (message.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "last error \"" << message << "\" lacks \"" << needle << "\"";
}

// A tensor's or graph's name and a built graph's engine tag, for messages and comparisons: the
// library's string, or "" with a test failure when the query fails.
inline const char *name_of(const fe_tensor *tensor) {
    const char *name = nullptr;
    EXPECT_EQ(fe_tensor_get_name(tensor, &name), FE_OK) << fe_last_error_message();
    return name ? name : "";
}
inline const char *name_of(const fe_graph *graph) {
    const char *name = nullptr;
    EXPECT_EQ(fe_graph_get_name(graph, &name), FE_OK) << fe_last_error_message();
    return name ? name : "";
}
// A graph's text through the library's two-call protocol (size, then fill): fe_graph_to_json,
// fe_graph_describe, fe_graph_key.
inline std::string graph_text(fe_status (*read)(const fe_graph *, char *, size_t, size_t *), const fe_graph *graph) {
    size_t n = 0;
    read(graph, nullptr, 0, &n);
    std::string text(n + 1, '\0');
    EXPECT_EQ(read(graph, &text[0], text.size(), &n), FE_OK) << fe_last_error_message();
    text.resize(n);
    return text;
}

inline const char *engine_tag_of(const fe_graph *graph) {
    const char *tag = nullptr;
    EXPECT_EQ(fe_graph_engine_tag(graph, &tag), FE_OK) << fe_last_error_message();
    return tag ? tag : "";
}

namespace cudnnfe_test {

// The captured H100 description: $CUDNNFE_DEVICE_JSON, else the shared/devices copy.
inline std::string device_json() {
    const char *candidates[] = {std::getenv("CUDNNFE_DEVICE_JSON"), "../shared/devices/h100-sxm-80gb.json",
                                "../../shared/devices/h100-sxm-80gb.json"};
    for (const char *path : candidates) {
        if (!path) continue;
        std::ifstream in(path);
        if (!in) continue;
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }
    return "";
}

// A graph input with packed (or channels-last) strides.
inline fe_tensor *make_tensor(fe_graph *g, const char *name, const std::vector<int64_t> &dims, bool channels_last,
                              fe_data_type type) {
    std::vector<int64_t> strides(dims.size());
    if (channels_last)
        EXPECT_FE_OK(fe_strides_channels_last(dims.size(), dims.data(), strides.data()));
    else
        EXPECT_FE_OK(fe_strides_packed(dims.size(), dims.data(), strides.data()));
    fe_tensor *t = nullptr;
    EXPECT_FE_OK(fe_graph_tensor(g, name, dims.size(), dims.data(), strides.data(), type, &t));
    return t;
}

inline bool cudnn_available() {
    int64_t version = 0;
    return fe_cudnn_version(&version) == FE_OK;
}

inline bool gpu_available() {
    int32_t count = 0;
    return fe_device_count(&count) == FE_OK && count > 0;
}

}  // namespace cudnnfe_test
