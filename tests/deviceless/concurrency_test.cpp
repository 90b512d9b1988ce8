// What several threads share in one process, used at once: the first calls that load cuDNN, the
// in-process plan cache and its keyed graphs (bounded, so entries are evicted while others read
// them), a cache directory, the log level and the per-thread error message. Each graph belongs to
// one thread, as the header requires. This suite also runs built with ThreadSanitizer
// (scripts/thread_sanitized_build.sh), where any data race fails it.
#include <dirent.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "deviceless_support.hpp"

namespace {

using cudnnfe_test::device_json;

constexpr int kThreads = 8;

// Threads that start `body(thread_index)` together and are joined before returning.
template <typename Body>
void run_together(int threads, Body body) {
    std::atomic<int> ready{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            ready.fetch_add(1);
            while (ready.load() < threads) std::this_thread::yield();
            body(t);
        });
    for (std::thread &th : pool) th.join();
}

// The seed's convolution (X [n,64,56,56] NHWC half, W [32,64,3,3], padding 1): a precompiled
// engine finalizes a whole plan without a GPU. Returns the graph, or nullptr with `error` set.
fe_graph *seed_conv(int64_t n, std::string *error) {
    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.io_data_type = FE_DATA_HALF;
    go.intermediate_data_type = FE_DATA_FLOAT;
    go.compute_data_type = FE_DATA_FLOAT;
    fe_graph *g = nullptr;
    if (fe_graph_create(&go, &g) != FE_OK) {
        *error = fe_last_error_message();
        return nullptr;
    }
    int64_t xd[4] = {n, 64, 56, 56}, wd[4] = {32, 64, 3, 3}, xs[4], ws[4];
    fe_strides_channels_last(4, xd, xs);
    fe_strides_channels_last(4, wd, ws);
    fe_tensor *x = nullptr, *w = nullptr, *y = nullptr;
    fe_conv_options co = FE_CONV_OPTIONS_INIT;
    co.pre_padding[0] = co.pre_padding[1] = co.post_padding[0] = co.post_padding[1] = 1;
    if (fe_graph_tensor(g, "X", 4, xd, xs, FE_DATA_NOT_SET, &x) != FE_OK ||
        fe_graph_tensor(g, "W", 4, wd, ws, FE_DATA_NOT_SET, &w) != FE_OK ||
        fe_graph_conv_fprop(g, x, w, &co, &y) != FE_OK || fe_tensor_set_output(y, 1) != FE_OK) {
        *error = fe_last_error_message();
        fe_graph_destroy(g);
        return nullptr;
    }
    return g;
}

class Concurrency : public ::testing::Test {
  protected:
    void SetUp() override {
        json_ = device_json();
        if (json_.empty()) GTEST_SKIP() << "no device description: set CUDNNFE_DEVICE_JSON";
    }

    fe_build_options options(const char *key = nullptr) const {
        fe_build_options o = FE_BUILD_OPTIONS_INIT;
        o.device_properties_json = json_.c_str();
        o.cache_key = key;
        return o;
    }

    // Builds the seed convolution for batch n; "" on success, else what failed.
    std::string build_conv(int64_t n, const char *key = nullptr) const {
        std::string error;
        fe_graph *g = seed_conv(n, &error);
        if (!g) return "graph: " + error;
        fe_build_options o = options(key);
        fe_status s = fe_graph_build(g, nullptr, &o);
        if (s != FE_OK) error = std::string("build n=") + std::to_string(n) + ": " + fe_last_error_message();
        int64_t engine = -1;
        if (s == FE_OK && (fe_graph_engine_index(g, &engine) != FE_OK || engine < 0)) error = "no engine index";
        fe_graph_destroy(g);
        return error;
    }

    std::string json_;
};

// The first calls of the process (loading cuDNN and NVRTC, the capability table, the cache)
// come from all threads at once. This test runs first in this program, before anything loaded.
TEST_F(Concurrency, AaFirstCallsOfTheProcessFromManyThreads) {
    std::vector<std::string> errors(kThreads);
    run_together(kThreads, [&](int t) {
        int64_t version = 0;
        fe_cudnn_version(&version);
        errors[t] = build_conv(1 + t % 2);
    });
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
}

// Threads build the same few graphs and look up keyed graphs while another clears the cache and
// reads its counters; the in-process bound is small, so entries are evicted under the readers.
TEST_F(Concurrency, ThePlanCacheAndItsKeysUnderManyThreads) {
    fe_plan_cache_clear();
    std::atomic<bool> stop{false};
    std::thread clearer([&] {
        int64_t memory = 0, disk = 0, misses = 0, rejected = 0, evictions = 0;
        while (!stop.load()) {
            fe_plan_cache_stats(&memory, &disk, &misses, &rejected);
            fe_plan_cache_evictions(&evictions);
            fe_plan_cache_clear();
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    });
    std::vector<std::string> errors(kThreads);
    run_together(kThreads, [&](int t) {
        for (int i = 0; i < 12 && errors[t].empty(); ++i) {
            int64_t n = 1 + (t + i) % 4;
            std::string key = "conv-" + std::to_string(n);
            errors[t] = build_conv(n, key.c_str());
            if (!errors[t].empty()) break;
            fe_graph *cached = nullptr;
            fe_status s = fe_graph_from_cache(nullptr, key.c_str(), &cached);
            // The clearer may have dropped the key in between: then it is a plain miss.
            if (s == FE_OK) {
                int64_t engine = -1;
                if (fe_graph_engine_index(cached, &engine) != FE_OK || engine < 0) errors[t] = "cached graph unusable";
                fe_graph_destroy(cached);
            } else if (s != FE_STATUS_NOT_FOUND) {
                errors[t] = std::string("fe_graph_from_cache: ") + fe_last_error_message();
            }
        }
    });
    stop = true;
    clearer.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
    fe_plan_cache_clear();
}

// Threads of one process fill and read one cache directory (each build after a cleared
// in-process cache reads or writes an entry); every entry left is complete.
TEST_F(Concurrency, OneCacheDirectoryUnderManyThreads) {
    char pattern[] = "/tmp/cudnnfe-threads-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    std::string dir = pattern;
    setenv("CUDNNFE_CACHE_DIR", dir.c_str(), 1);
    std::vector<std::string> errors(kThreads);
    run_together(kThreads, [&](int t) {
        for (int i = 0; i < 6 && errors[t].empty(); ++i) {
            fe_plan_cache_clear();
            errors[t] = build_conv(1 + (t + i) % 3);
        }
    });
    unsetenv("CUDNNFE_CACHE_DIR");
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
    int plans = 0;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d)) {
            std::string name = e->d_name;
            if (name == "." || name == "..") continue;
            EXPECT_EQ(name.find(".tmp"), std::string::npos) << "a temporary file was left: " << name;
            std::string path = dir + "/" + name;
            if (name.size() > 8 && name.compare(name.size() - 8, 8, ".fegraph") == 0) {
                FILE *f = std::fopen(path.c_str(), "rb");
                std::vector<unsigned char> bytes;
                int c;
                while (f && (c = std::fgetc(f)) != EOF) bytes.push_back(static_cast<unsigned char>(c));
                if (f) std::fclose(f);
                fe_deserialize_options o = FE_DESERIALIZE_OPTIONS_INIT;
                o.device_properties_json = json_.c_str();
                fe_graph *g = nullptr;
                EXPECT_EQ(fe_graph_deserialize(nullptr, bytes.data(), bytes.size(), &o, &g), FE_OK)
                    << name << ": " << fe_last_error_message();
                fe_graph_destroy(g);
                ++plans;
            }
            std::remove(path.c_str());
        }
        closedir(d);
    }
    rmdir(dir.c_str());
    EXPECT_EQ(plans, 3);
    fe_plan_cache_clear();
}

// Graphs of their own in each thread: JSON out and back, a blob out and back, a description;
// meanwhile another thread turns the log level up and down (the library logs at each build).
TEST_F(Concurrency, GraphsTextAndBlobsWhileTheLogLevelChanges) {
    std::atomic<bool> stop{false};
    std::thread logger([&] {
        while (!stop.load()) {
            fe_log_set_level(FE_LOG_OFF);
            fe_log_set_level(FE_LOG_ERROR);
        }
        fe_log_set_level(FE_LOG_OFF);
    });
    std::vector<std::string> errors(kThreads);
    run_together(kThreads, [&](int t) {
        std::string error;
        fe_graph *g = seed_conv(1 + t % 2, &error);
        fe_build_options o = options();
        if (!g || fe_graph_build(g, nullptr, &o) != FE_OK) {
            errors[t] = "build: " + error + fe_last_error_message();
            fe_graph_destroy(g);
            return;
        }
        for (int i = 0; i < 20 && errors[t].empty(); ++i) {
            size_t n = 0;
            fe_graph_to_json(g, nullptr, 0, &n);
            std::string text(n + 1, '\0');
            fe_graph *copy = nullptr;
            if (fe_graph_to_json(g, &text[0], text.size(), &n) != FE_OK ||
                fe_graph_from_json(text.c_str(), n, &copy) != FE_OK) {
                errors[t] = std::string("json: ") + fe_last_error_message();
                break;
            }
            fe_graph_destroy(copy);
            fe_graph_serialize(g, nullptr, 0, &n);
            std::vector<unsigned char> blob(n);
            fe_deserialize_options d = FE_DESERIALIZE_OPTIONS_INIT;
            d.device_properties_json = json_.c_str();
            fe_graph *back = nullptr;
            if (fe_graph_serialize(g, blob.data(), blob.size(), &n) != FE_OK ||
                fe_graph_deserialize(nullptr, blob.data(), n, &d, &back) != FE_OK) {
                errors[t] = std::string("blob: ") + fe_last_error_message();
                break;
            }
            fe_graph_destroy(back);
            fe_graph_describe(g, nullptr, 0, &n);
        }
        fe_graph_destroy(g);
    });
    stop = true;
    logger.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
}

// Graphs of one shape in every thread share one cached plan; serializing them at once reads that
// plan's JSON from cuDNN in each thread (a data race inside cuDNN until the reads were serialized).
TEST_F(Concurrency, SerializingGraphsThatShareAPlan) {
    std::vector<std::string> errors(kThreads);
    std::vector<std::vector<unsigned char>> first(kThreads);
    run_together(kThreads, [&](int t) {
        std::string error;
        fe_graph *g = seed_conv(2, &error);
        fe_build_options o = options();
        if (!g || fe_graph_build(g, nullptr, &o) != FE_OK) {
            errors[t] = "build: " + error + fe_last_error_message();
            fe_graph_destroy(g);
            return;
        }
        for (int i = 0; i < 25 && errors[t].empty(); ++i) {
            size_t n = 0;
            fe_graph_serialize(g, nullptr, 0, &n);
            std::vector<unsigned char> blob(n);
            if (fe_graph_serialize(g, blob.data(), blob.size(), &n) != FE_OK)
                errors[t] = std::string("serialize: ") + fe_last_error_message();
            else if (first[t].empty())
                first[t] = blob;
            else if (blob != first[t])
                errors[t] = "a serialization differed from the thread's first";
        }
        fe_graph_destroy(g);
    });
    for (int t = 0; t < kThreads; ++t) {
        EXPECT_EQ(errors[t], "") << "thread " << t;
        EXPECT_EQ(first[t], first[0]) << "thread " << t << " serialized the shared plan differently";
    }
}

// Each thread's failures leave their own message, never another thread's.
TEST_F(Concurrency, EachThreadReadsItsOwnError) {
    std::vector<std::string> errors(kThreads);
    run_together(kThreads, [&](int t) {
        for (int i = 0; i < 200 && errors[t].empty(); ++i) {
            std::string mine = "thread-" + std::to_string(t);
            fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
            fe_graph *g = nullptr;
            if (fe_graph_create(&go, &g) != FE_OK) {
                errors[t] = "create";
                break;
            }
            int64_t dims[2] = {-1, 4}, strides[2] = {4, 1};
            fe_tensor *x = nullptr;
            fe_status s = fe_graph_tensor(g, mine.c_str(), 2, dims, strides, FE_DATA_HALF, &x);
            std::string message = fe_last_error_message();
            if (s == FE_OK || message.find(mine) == std::string::npos)
                errors[t] = "the error read '" + message + "', not about " + mine;
            fe_graph_destroy(g);
        }
    });
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
}

}  // namespace
