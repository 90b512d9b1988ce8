// Dynamic shapes with a kernel cache: graphs of one structure and several dims built from one
// cache compute what a CPU reference in double computes, for matmul + bias + gelu (token counts)
// and conv + bias + relu (image sizes); the cache written to a directory and read back serves a
// new graph; the other operation families are tried and the result printed.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kernel_cache_fixture.hpp"
#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

class KernelCache : public KernelCacheGpu {
  protected:
    // Build with the kernel cache (the plan cache off, so each graph really builds); returns ms.
    double build_dynamic(fe_graph *g, fe_kernel_cache *cache) {
        fe_build_options o = FE_BUILD_OPTIONS_INIT;
        o.kernel_cache = cache;
        o.use_plan_cache = 0;
        auto start = std::chrono::steady_clock::now();
        fe_status s = fe_graph_build(g, handle_, &o);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        EXPECT_EQ(s, FE_OK) << fe_last_error_message();
        return ms;
    }
    // y = gelu(a x b + bias), bf16, a [1, m, 256], b [1, 256, 384].
    void matmul_bias_gelu(int64_t m, fe_kernel_cache *cache) {
        fe_graph *g = graph("ffn_up", FE_DATA_BFLOAT16);
        fe_tensor *a = tensor(g, "a", {1, m, 256}), *b = tensor(g, "b", {1, 256, 384});
        fe_tensor *bias = tensor(g, "bias", {1, 1, 384});
        fe_tensor *ab = nullptr, *biased = nullptr, *y = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &ab));
        ASSERT_FE_OK(fe_graph_bias(g, ab, bias, nullptr, &biased));
        ASSERT_FE_OK(fe_graph_gelu(g, biased, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        double ms = build_dynamic(g, cache);
        std::printf("    m %lld: built in %.1f ms with %s\n", static_cast<long long>(m), ms, engine_tag_of(g));
        Bound &ba = bind(a, true), &bb = bind(b, true), &bbias = bind(bias, true), &by = bind(y, false);
        execute(g, {&ba, &bb, &bbias, &by});
        download(by);
        std::vector<double> ref = matmul_reference(ba, bb, by.dims);
        std::vector<int64_t> index(3, 0);
        for (double &v : ref) {
            v = gelu(v + broadcast_at(bbias, index));
            for (size_t k = 3; k-- > 0;) {
                if (++index[k] < by.dims[k]) break;
                index[k] = 0;
            }
        }
        expect_close(by, ref, atol_for(FE_DATA_BFLOAT16) * 4, rtol_for(FE_DATA_BFLOAT16), norm_for(FE_DATA_BFLOAT16));
    }
};

TEST_F(KernelCache, MatmulBiasGeluOfSeveralTokenCountsBuildsFromOneCache) {
    for (int64_t m : {64, 200, 17, 512}) {
        SCOPED_TRACE("m " + std::to_string(m));
        matmul_bias_gelu(m, cache_);
    }
    size_t length = 0;
    EXPECT_FE_STATUS(fe_kernel_cache_serialize(cache_, nullptr, 0, &length), FE_STATUS_BUFFER_TOO_SMALL);
    EXPECT_GT(length, 2u);
}

// A new shape is built from an engine config whose kernels the cache holds, when one runs it.
TEST_F(KernelCache, ANewShapeUsesAConfigTheCacheHolds) {
    std::vector<std::string> tags;
    for (int64_t m : {64, 1024, 333, 2000}) {
        SCOPED_TRACE("m " + std::to_string(m));
        fe_graph *g = graph("ffn_up_tag", FE_DATA_BFLOAT16);
        fe_tensor *a = tensor(g, "a", {1, m, 256}), *b = tensor(g, "b", {1, 256, 384}), *c = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
        ASSERT_FE_OK(fe_tensor_set_output(c, 1));
        build_dynamic(g, cache_);
        tags.push_back(engine_tag_of(g));
    }
    for (const std::string &tag : tags) EXPECT_EQ(tag, tags.front()) << "a later shape compiled another config";
}

// One cache shared by graphs of two structures: the matmul's configs are tried for the
// convolution (no engine of theirs runs it) before heuristics, and both build and compute.
TEST_F(KernelCache, OneCacheServesGraphsOfTwoStructures) {
    matmul_bias_gelu(64, cache_);
    fe_graph *g = graph("conv_after_matmul", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {2, 32, 12, 12}, true), *w = tensor(g, "w", {32, 32, 3, 3}, true), *y = nullptr;
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    o.pre_padding[0] = o.pre_padding[1] = o.post_padding[0] = o.post_padding[1] = 1;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build_dynamic(g, cache_);
    Bound &bx = bind(x, true), &bw = bind(w, true), &by = bind(y, false);
    execute(g, {&bx, &bw, &by});
    download(by);
    ConvParams p{{1, 1}, {1, 1}, {1, 1}};
    expect_close(by, conv_reference(bx, bw, by.dims, p), atol_for(FE_DATA_HALF) * 4, rtol_for(FE_DATA_HALF),
                 norm_for(FE_DATA_HALF));
    matmul_bias_gelu(100, cache_);
}

TEST_F(KernelCache, ConvBiasReluOfSeveralImageSizesBuildsFromOneCache) {
    for (int64_t hw : {14, 28, 9}) {
        SCOPED_TRACE("image " + std::to_string(hw));
        fe_graph *g = graph("conv_bias_relu", FE_DATA_HALF);
        fe_tensor *x = tensor(g, "x", {4, 32, hw, hw}, true), *w = tensor(g, "w", {64, 32, 3, 3}, true);
        fe_tensor *bias = tensor(g, "bias", {1, 64, 1, 1}, true);
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        o.pre_padding[0] = o.pre_padding[1] = o.post_padding[0] = o.post_padding[1] = 1;
        fe_tensor *c = nullptr, *biased = nullptr, *y = nullptr;
        ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &c));
        ASSERT_FE_OK(fe_graph_bias(g, c, bias, nullptr, &biased));
        ASSERT_FE_OK(fe_graph_relu(g, biased, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        double ms = build_dynamic(g, cache_);
        std::printf("    %lldx%lld: built in %.1f ms with %s\n", static_cast<long long>(hw), static_cast<long long>(hw), ms,
                    engine_tag_of(g));
        Bound &bx = bind(x, true), &bw = bind(w, true), &bbias = bind(bias, true), &by = bind(y, false);
        execute(g, {&bx, &bw, &bbias, &by});
        download(by);
        ConvParams p{{1, 1}, {1, 1}, {1, 1}};
        std::vector<double> ref = conv_reference(bx, bw, by.dims, p);
        std::vector<int64_t> index(4, 0);
        for (double &v : ref) {
            v = std::max(0.0, v + broadcast_at(bbias, index));
            for (size_t k = 4; k-- > 0;) {
                if (++index[k] < by.dims[k]) break;
                index[k] = 0;
            }
        }
        expect_close(by, ref, atol_for(FE_DATA_HALF) * 4, rtol_for(FE_DATA_HALF), norm_for(FE_DATA_HALF));
    }
}

TEST_F(KernelCache, ACacheStoredInTheDirectoryAndLoadedBackServesANewShape) {
    matmul_bias_gelu(64, cache_);
    char dir_template[] = "/tmp/cudnnfe-kernel-cache-XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    std::string dir = dir_template;
    ASSERT_FE_OK(fe_handle_set_cache_directory(handle_, dir.c_str()));
    ASSERT_FE_OK(fe_kernel_cache_store(cache_, handle_, "ffn-up"));
    fe_kernel_cache *loaded = nullptr;
    ASSERT_FE_OK(fe_kernel_cache_load(handle_, "ffn-up", &loaded)) << fe_last_error_message();
    matmul_bias_gelu(96, loaded);
    fe_kernel_cache_destroy(loaded);
    EXPECT_FE_STATUS(fe_kernel_cache_load(handle_, "other", &loaded), FE_STATUS_NOT_FOUND);
    EXPECT_EQ(loaded, nullptr);

    // An entry edited on disk is refused and removed, never given to cuDNN as it is.
    // (The directory also holds the plans built with the handle: find the kernel cache's entry.)
    std::string entry, bytes;
    for (const auto &file : std::filesystem::directory_iterator(dir)) {
        std::ifstream in(file.path(), std::ios::binary);
        std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (content.rfind("cudnnfe kernel cache", 0) == 0) {
            entry = file.path().string();
            bytes = std::move(content);
        }
    }
    ASSERT_FALSE(entry.empty()) << "no kernel cache entry in " << dir;
    size_t configs = bytes.find("configs ");
    ASSERT_NE(configs, std::string::npos);
    for (const std::string &forged : {bytes.substr(0, bytes.size() / 2), bytes.substr(0, configs) + "configs ../x\n" +
                                                                           bytes.substr(bytes.find('\n', configs) + 1),
                                      std::string("not a cache at all")}) {
        {
            std::ofstream out(entry, std::ios::binary | std::ios::trunc);
            out << forged;
        }
        EXPECT_FE_STATUS(fe_kernel_cache_load(handle_, "ffn-up", &loaded), FE_STATUS_NOT_FOUND);
        EXPECT_TRUE(LastErrorContains("was not usable")) << fe_last_error_message();
        EXPECT_FALSE(std::filesystem::exists(entry)) << "a rejected entry is removed";
    }
    std::system(("rm -rf " + dir).c_str());
}

TEST_F(KernelCache, ASerializedCacheReadBackServesANewShape) {
    matmul_bias_gelu(64, cache_);
    size_t length = 0;
    fe_kernel_cache_serialize(cache_, nullptr, 0, &length);
    std::string json(length + 1, '\0');
    ASSERT_FE_OK(fe_kernel_cache_serialize(cache_, &json[0], json.size(), &length));
    json.resize(length);
    fe_kernel_cache *read = nullptr;
    ASSERT_FE_OK(fe_kernel_cache_deserialize(json.data(), json.size(), &read));
    matmul_bias_gelu(128, read);
    fe_kernel_cache_destroy(read);
}

}  // namespace
