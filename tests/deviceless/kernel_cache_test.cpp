// The kernel cache without a GPU: a dynamic-shape operation graph binds the cache, which then
// serializes to cuDNN's JSON and reads back; what is read is checked before cuDNN sees it; the
// cache is stored in the cache directory under a plain name. (Building plans from it compiles
// kernels: the GPU tier does that.)
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

class KernelCacheDeviceless : public Deviceless {
  protected:
    void SetUp() override {
        Deviceless::SetUp();
        if (IsSkipped()) return;
        ASSERT_FE_OK(fe_kernel_cache_create(&cache_));
    }
    void TearDown() override {
        fe_kernel_cache_destroy(cache_);
        Deviceless::TearDown();
    }
    // A matmul lowered with dynamic shapes from the cache: binds the cache to its operation graph.
    fe_graph *lowered_with_cache(const char *name, int64_t m) {
        fe_graph *g = graph(name, FE_DATA_HALF);
        fe_tensor *a = tensor(g, "a", {1, m, 64}), *b = tensor(g, "b", {1, 64, 32});
        fe_tensor *c = nullptr;
        EXPECT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
        EXPECT_FE_OK(fe_tensor_set_output(c, 1));
        EXPECT_FE_OK(fe_graph_set_kernel_cache(g, cache_));
        EXPECT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
        EXPECT_FE_OK(fe_graph_build_operation_graph(g, nullptr));
        return g;
    }
    std::string serialized(fe_kernel_cache *cache) {
        size_t n = 0;
        EXPECT_FE_STATUS(fe_kernel_cache_serialize(cache, nullptr, 0, &n), FE_STATUS_BUFFER_TOO_SMALL);
        std::string text(n + 1, '\0');
        EXPECT_FE_OK(fe_kernel_cache_serialize(cache, &text[0], text.size(), &n));
        text.resize(n);
        return text;
    }
    fe_kernel_cache *cache_ = nullptr;
};

TEST_F(KernelCacheDeviceless, AnUnusedCacheHasNothingToSerialize) {
    size_t n = 0;
    EXPECT_FE_STATUS(fe_kernel_cache_serialize(cache_, nullptr, 0, &n), FE_STATUS_BAD_STATE);
    EXPECT_TRUE(LastErrorContains("build a graph with it")) << fe_last_error_message();
}

TEST_F(KernelCacheDeviceless, ADynamicShapeGraphBindsTheCacheWhichThenReadsBack) {
    fe_graph *g = lowered_with_cache("first", 64);
    ASSERT_FE_OK(fe_graph_create_execution_plans(g, nullptr, 0));
    size_t candidates = 0;
    ASSERT_FE_OK(fe_graph_candidate_count(g, &candidates));
    EXPECT_GE(candidates, 1u);
    // Dynamic-shape kernels are compiled at run time.
    fe_config_info info = FE_CONFIG_INFO_INIT;
    ASSERT_FE_OK(fe_graph_candidate_info(g, 0, &info));
    EXPECT_NE(info.behavior_notes & FE_BEHAVIOR_NOTE_RUNTIME_COMPILATION, 0) << info.tag;

    std::string json = serialized(cache_);
    ASSERT_GT(json.size(), 2u);
    EXPECT_EQ(json.front(), '{');
    EXPECT_NE(json.find("operationGraph"), std::string::npos) << json.substr(0, 200);
    fe_kernel_cache *back = nullptr;
    ASSERT_FE_OK(fe_kernel_cache_deserialize(json.data(), json.size(), &back));
    ASSERT_NE(back, nullptr);
    fe_kernel_cache_destroy(back);

    // A second graph of other dims shares it; a built graph does not take another cache.
    fe_graph *second = lowered_with_cache("second", 200);
    EXPECT_FE_STATUS(fe_graph_set_kernel_cache(second, nullptr), FE_STATUS_BAD_STATE);
}

TEST_F(KernelCacheDeviceless, WhatIsReadIsCheckedBeforeCudnnSeesIt) {
    struct {
        const char *text;
        const char *cause;
    } cases[] = {
        {"", "line 1"},
        {"not json", "line 1"},
        {"[1, 2]", "is an array, not a JSON object"},
        {"{\"a\": 1,}", "line 1"},
        {"\"text\"", "is a string, not a JSON object"},
    };
    for (const auto &c : cases) {
        fe_kernel_cache *out = reinterpret_cast<fe_kernel_cache *>(0x1);
        EXPECT_FE_STATUS(fe_kernel_cache_deserialize(c.text, std::strlen(c.text), &out), FE_STATUS_INVALID_ARGUMENT)
            << c.text;
        EXPECT_TRUE(LastErrorContains(c.cause)) << c.text << ": " << fe_last_error_message();
        EXPECT_EQ(out, nullptr);
    }
    // A well-formed object that is no cache: cuDNN reads it when the cache is first bound to an
    // operation graph, and that build step refuses it.
    fe_kernel_cache *out = nullptr;
    const char forged[] = "{\"cudnnVersion\": 1, \"kernels\": [1, 2, 3]}";
    ASSERT_FE_OK(fe_kernel_cache_deserialize(forged, sizeof forged - 1, &out));
    {
        fe_graph *g = graph("forged", FE_DATA_HALF);
        fe_tensor *a = tensor(g, "a", {1, 64, 64}), *b = tensor(g, "b", {1, 64, 32}), *c = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
        ASSERT_FE_OK(fe_tensor_set_output(c, 1));
        ASSERT_FE_OK(fe_graph_set_kernel_cache(g, out));
        ASSERT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
        EXPECT_FE_STATUS(fe_graph_build_operation_graph(g, nullptr), FE_STATUS_INVALID_ARGUMENT);
        EXPECT_TRUE(LastErrorContains("binding the kernel cache to the operation graph")) << fe_last_error_message();
        fe_kernel_cache_destroy(out);
    }
}

TEST_F(KernelCacheDeviceless, ItIsStoredInTheCacheDirectoryUnderAPlainName) {
    fe_graph *g = lowered_with_cache("stored", 64);
    (void)g;
    char dir_template[] = "/tmp/cudnnfe-kernel-store-XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    std::string dir = dir_template;
    setenv("CUDNNFE_CACHE_DIR", dir.c_str(), 1);
    ASSERT_FE_OK(fe_kernel_cache_store(cache_, nullptr, "ffn-up_v1.2"));
    std::string listing;
    {
        FILE *p = popen(("ls " + dir).c_str(), "r");
        char line[256];
        while (p && fgets(line, sizeof line, p)) listing += line;
        if (p) pclose(p);
    }
    EXPECT_NE(listing.find(".fegraph"), std::string::npos) << listing;
    for (const char *bad : {"", "../escape", "a/b", "name with space", "x\n"}) {
        EXPECT_FE_STATUS(fe_kernel_cache_store(cache_, nullptr, bad), FE_STATUS_INVALID_ARGUMENT) << bad;
        EXPECT_TRUE(LastErrorContains("name")) << fe_last_error_message();
    }
    std::string long_name(65, 'a');
    EXPECT_FE_STATUS(fe_kernel_cache_store(cache_, nullptr, long_name.c_str()), FE_STATUS_INVALID_ARGUMENT);
    unsetenv("CUDNNFE_CACHE_DIR");
    EXPECT_FE_STATUS(fe_kernel_cache_store(cache_, nullptr, "ffn-up"), FE_STATUS_BAD_STATE);
    EXPECT_TRUE(LastErrorContains("CUDNNFE_CACHE_DIR")) << fe_last_error_message();
    // An unused cache has nothing to store.
    fe_kernel_cache *empty = nullptr;
    ASSERT_FE_OK(fe_kernel_cache_create(&empty));
    setenv("CUDNNFE_CACHE_DIR", dir.c_str(), 1);
    EXPECT_FE_STATUS(fe_kernel_cache_store(empty, nullptr, "empty"), FE_STATUS_BAD_STATE);
    unsetenv("CUDNNFE_CACHE_DIR");
    fe_kernel_cache_destroy(empty);
    std::system(("rm -rf " + dir).c_str());
}

}  // namespace

namespace {

// The background static build's option is checked before anything builds: 0 or 1, a kernel
// cache, a handle; a graph without one reports no background build, and waiting for none returns.
TEST_F(KernelCacheDeviceless, BackgroundStaticIsRefusedWithoutWhatItNeeds) {
    fe_graph *g = graph("background", FE_DATA_HALF);
    fe_tensor *a = tensor(g, "a", {1, 64, 64}), *b = tensor(g, "b", {1, 64, 32}), *c = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    fe_build_options o = FE_BUILD_OPTIONS_INIT;
    o.device_properties_json = json_.c_str();
    o.background_static = 2;
    EXPECT_FE_STATUS(fe_graph_build(g, nullptr, &o), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("options.background_static is 2: 0 or 1")) << fe_last_error_message();
    o.background_static = 1;
    EXPECT_FE_STATUS(fe_graph_build(g, nullptr, &o), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("give options.kernel_cache")) << fe_last_error_message();
    o.kernel_cache = cache_;
    EXPECT_FE_STATUS(fe_graph_build(g, nullptr, &o), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("options.background_static needs a handle")) << fe_last_error_message();

    fe_background_state state = FE_BACKGROUND_FAILED;
    ASSERT_FE_OK(fe_graph_background_state(g, &state));
    EXPECT_EQ(state, FE_BACKGROUND_NONE);
    EXPECT_FE_OK(fe_graph_wait_background(g));
    EXPECT_FE_STATUS(fe_graph_background_state(g, nullptr), FE_STATUS_NULL_POINTER);
    EXPECT_FE_STATUS(fe_graph_background_state(nullptr, &state), FE_STATUS_NULL_POINTER);
    EXPECT_FE_STATUS(fe_graph_wait_background(nullptr), FE_STATUS_NULL_POINTER);
}

}  // namespace
