// Several GPUs in one process: a handle per device used from its own thread, graphs that run
// only on the device they were built for, plans shared between GPUs of one kind (in-process and
// through a cache directory), and synchronized batchnorm across two GPUs against a reference
// over the whole batch. Each test skips, saying so, on a machine with fewer than two GPUs.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <deque>
#include <functional>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/half.hpp"
#include "test_support.hpp"

using namespace cudnnfe_test;

namespace {

using Clock = std::chrono::steady_clock;

double milliseconds(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

int32_t device_count() {
    int32_t n = 0;
    return fe_device_count(&n) == FE_OK ? n : 0;
}

std::string describe(const fe_graph *g) {
    std::string text(1 << 16, '\0');
    size_t length = 0;
    if (fe_graph_describe(g, &text[0], text.size(), &length) != FE_OK) return fe_last_error_message();
    text.resize(length);
    return text;
}

// Host values as the device holds them (rounded to the tensor's type), and a buffer on `device`.
struct DeviceTensor {
    fe_tensor *tensor = nullptr;
    fe_buffer *buffer = nullptr;
    std::vector<float> host;
    fe_data_type type = FE_DATA_HALF;
};

class MultiGpu : public cudnnfe_test::GraphOwningTest {
  protected:
    void SetUp() override {
        if (!cudnn_available()) GTEST_SKIP() << "cuDNN is not loadable here: " << fe_last_error_message();
        if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine; the gpu tier runs on one";
        devices_ = device_count();
        if (devices_ < 2)
            GTEST_SKIP() << "needs two GPUs; this machine has " << devices_
                         << " (the multi-GPU tests run on a machine with several)";
        rng_.seed(std::random_device{}());
    }
    void TearDown() override {
        for (DeviceTensor &t : tensors_) fe_buffer_destroy(t.buffer);
        destroy_graphs();
        for (fe_handle *h : handles_) fe_handle_destroy(h);
    }

    fe_handle *handle(int32_t device) {
        fe_handle *h = nullptr;
        EXPECT_FE_OK(fe_handle_create(device, &h));
        handles_.push_back(h);
        return h;
    }

    // y = x @ w + bias (half, [1, 256, 512] @ [1, 512, 128]), the same graph on every device.
    fe_graph *matmul_graph(fe_tensor **x, fe_tensor **w, fe_tensor **y) {
        fe_graph_options o = FE_GRAPH_OPTIONS_INIT;
        o.name = "matmul";
        o.io_data_type = FE_DATA_HALF;
        fe_graph *g = nullptr;
        EXPECT_FE_OK(fe_graph_create(&o, &g));
        *x = cudnnfe_test::make_tensor(g, "x", {1, 256, 512}, false, FE_DATA_NOT_SET);
        *w = cudnnfe_test::make_tensor(g, "w", {1, 512, 128}, false, FE_DATA_NOT_SET);
        fe_matmul_options mo = FE_MATMUL_OPTIONS_INIT;
        EXPECT_FE_OK(fe_graph_matmul(g, *x, *w, &mo, y));
        EXPECT_FE_OK(fe_tensor_set_output(*y, 1));
        return g;
    }

    DeviceTensor &tensor_on(int32_t device, fe_tensor *t, bool input, float lo = -1, float hi = 1) {
        DeviceTensor d;
        d.tensor = t;
        EXPECT_FE_OK(fe_tensor_get_data_type(t, &d.type));
        int64_t bytes = 0;
        EXPECT_FE_OK(fe_tensor_size_bytes(t, &bytes));
        int64_t count = bytes / (d.type == FE_DATA_FLOAT ? 4 : 2);
        d.host.assign(static_cast<size_t>(count), 0.f);
        EXPECT_FE_OK(fe_buffer_create_for_tensor(device, t, &d.buffer));
        if (input) {
            std::uniform_real_distribution<float> dist(lo, hi);
            for (float &v : d.host) v = dist(rng_);
            EXPECT_FE_OK(fe_buffer_upload_float(d.buffer, d.host.data(), count, d.type));
            EXPECT_FE_OK(fe_buffer_download_float(d.buffer, d.host.data(), count, d.type));  // as rounded
        } else {
            EXPECT_FE_OK(fe_buffer_fill_bytes(d.buffer, 0xFF));  // NaN until written
        }
        tensors_.push_back(d);
        return tensors_.back();
    }

    void download(DeviceTensor &t) {
        EXPECT_FE_OK(fe_buffer_download_float(t.buffer, t.host.data(), static_cast<int64_t>(t.host.size()), t.type));
    }

    // Runs the matmul graph on `device` (built with h) and checks every element against double.
    void run_matmul(fe_graph *g, fe_handle *h, int32_t device, fe_tensor *x, fe_tensor *w, fe_tensor *y) {
        DeviceTensor &bx = tensor_on(device, x, true), &bw = tensor_on(device, w, true), &by = tensor_on(device, y, false);
        fe_tensor *ts[] = {x, w, y};
        fe_buffer *bs[] = {bx.buffer, bw.buffer, by.buffer};
        ASSERT_FE_OK(fe_graph_execute_buffers(g, h, ts, bs, 3, nullptr));
        ASSERT_FE_OK(fe_handle_synchronize(h));
        download(by);
        double worst = 0;
        int64_t bad = 0;
        for (int64_t m = 0; m < 256; ++m)
            for (int64_t n = 0; n < 128; ++n) {
                double want = 0;
                for (int64_t k = 0; k < 512; ++k)
                    want += static_cast<double>(bx.host[static_cast<size_t>(m * 512 + k)]) * bw.host[static_cast<size_t>(k * 128 + n)];
                double got = by.host[static_cast<size_t>(m * 128 + n)];
                double err = std::fabs(got - want);
                if (!(err <= 2e-2 + 2e-2 * std::fabs(want))) ++bad;
                if (err > worst || std::isnan(got)) worst = std::isnan(got) ? INFINITY : err;
            }
        EXPECT_EQ(bad, 0) << "device " << device << ": " << bad << " of 32768 elements outside tolerance";
        std::printf("    device %d: max abs err %.3g\n", device, worst);
    }

    int32_t devices_ = 0;
    std::mt19937 rng_;
    std::vector<fe_handle *> handles_;
    std::deque<DeviceTensor> tensors_;
};

// A handle per device, each used by its own thread at the same time: every GPU builds and runs
// the graph on its own buffers, and each result is right.
TEST_F(MultiGpu, EachGpuRunsItsOwnHandleFromItsOwnThread) {
    std::vector<fe_handle *> hs;
    for (int32_t d = 0; d < devices_; ++d) hs.push_back(handle(d));
    std::vector<std::string> failures(static_cast<size_t>(devices_));
    std::vector<std::thread> threads;
    for (int32_t d = 0; d < devices_; ++d) {
        threads.emplace_back([&, d] {
            fe_tensor *x, *w, *y;
            fe_graph *g = matmul_graph(&x, &w, &y);
            fe_buffer *bx = nullptr, *bw = nullptr, *by = nullptr;
            std::vector<float> hx(256 * 512), hw(512 * 128), hy(256 * 128);
            std::mt19937 rng(static_cast<unsigned>(d) * 7919u + 1);
            std::uniform_real_distribution<float> dist(-1, 1);
            for (float &v : hx) v = dist(rng);
            for (float &v : hw) v = dist(rng);
            std::string &failure = failures[static_cast<size_t>(d)];
            auto ok = [&](fe_status s, const char *what) {
                if (s != FE_OK && failure.empty()) failure = std::string(what) + ": " + fe_last_error_message();
                return s == FE_OK;
            };
            if (ok(fe_graph_build(g, hs[static_cast<size_t>(d)], nullptr), "build") &&
                ok(fe_buffer_create_for_tensor(d, x, &bx), "buffer") && ok(fe_buffer_create_for_tensor(d, w, &bw), "buffer") &&
                ok(fe_buffer_create_for_tensor(d, y, &by), "buffer") &&
                ok(fe_buffer_upload_float(bx, hx.data(), 256 * 512, FE_DATA_HALF), "upload") &&
                ok(fe_buffer_upload_float(bw, hw.data(), 512 * 128, FE_DATA_HALF), "upload") &&
                ok(fe_buffer_download_float(bx, hx.data(), 256 * 512, FE_DATA_HALF), "download") &&
                ok(fe_buffer_download_float(bw, hw.data(), 512 * 128, FE_DATA_HALF), "download") &&
                ok(fe_buffer_fill_bytes(by, 0xFF), "poison")) {
                fe_tensor *ts[] = {x, w, y};
                fe_buffer *bs[] = {bx, bw, by};
                for (int i = 0; i < 20 && failure.empty(); ++i) {
                    ok(fe_graph_execute_buffers(g, hs[static_cast<size_t>(d)], ts, bs, 3, nullptr), "execute");
                }
                ok(fe_handle_synchronize(hs[static_cast<size_t>(d)]), "synchronize");
                ok(fe_buffer_download_float(by, hy.data(), 256 * 128, FE_DATA_HALF), "download");
                for (int64_t m = 0; m < 256 && failure.empty(); ++m)
                    for (int64_t n = 0; n < 128; ++n) {
                        double want = 0;
                        for (int64_t k = 0; k < 512; ++k)
                            want += static_cast<double>(hx[static_cast<size_t>(m * 512 + k)]) * hw[static_cast<size_t>(k * 128 + n)];
                        double got = hy[static_cast<size_t>(m * 128 + n)];
                        if (!(std::fabs(got - want) <= 2e-2 + 2e-2 * std::fabs(want))) {
                            failure = "y[" + std::to_string(m) + "," + std::to_string(n) + "] is " + std::to_string(got) +
                                      ", want " + std::to_string(want);
                            break;
                        }
                    }
            }
            fe_buffer_destroy(bx);
            fe_buffer_destroy(bw);
            fe_buffer_destroy(by);
            fe_graph_destroy(g);
        });
    }
    for (std::thread &t : threads) t.join();
    for (int32_t d = 0; d < devices_; ++d) EXPECT_EQ(failures[static_cast<size_t>(d)], "") << "device " << d;
}

// A graph runs only on the device it was built for; buffers must be on the handle's device.
TEST_F(MultiGpu, AGraphRunsOnlyOnTheDeviceItWasBuiltFor) {
    fe_handle *h0 = handle(0), *h1 = handle(1);
    fe_tensor *x, *w, *y;
    fe_graph *g = matmul_graph(&x, &w, &y);
    graphs_.push_back(g);
    ASSERT_FE_OK(fe_graph_build(g, h0, nullptr));
    DeviceTensor &bx = tensor_on(0, x, true), &bw = tensor_on(0, w, true), &by = tensor_on(0, y, false);
    fe_tensor *ts[] = {x, w, y};
    fe_buffer *bs[] = {bx.buffer, bw.buffer, by.buffer};
    EXPECT_FE_STATUS(fe_graph_execute_buffers(g, h1, ts, bs, 3, nullptr), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("fe_graph_execute_buffers: graph 'matmul' was built for CUDA device 0 and the handle "
                                  "is on device 1"))
        << fe_last_error_message();
    void *pointers[3];
    for (int i = 0; i < 3; ++i) ASSERT_FE_OK(fe_buffer_device_pointer(bs[i], &pointers[i]));
    EXPECT_FE_STATUS(fe_graph_execute(g, h1, ts, pointers, 3, nullptr), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_FE_STATUS(fe_graph_warmup(g, h1), FE_STATUS_INVALID_ARGUMENT);
    DeviceTensor &other = tensor_on(1, x, true);
    fe_buffer *mixed[] = {other.buffer, bw.buffer, by.buffer};
    EXPECT_FE_STATUS(fe_graph_execute_buffers(g, h0, ts, mixed, 3, nullptr), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("the buffer for 'x' is on device 1, the handle on device 0")) << fe_last_error_message();
    // Rebuilt with the other device's handle, the same graph runs there.
    ASSERT_FE_OK(fe_graph_build(g, h1, nullptr));
    run_matmul(g, h1, 1, x, w, y);

    // A kernel cache serves the device of its first build.
    fe_kernel_cache *cache = nullptr;
    ASSERT_FE_OK(fe_kernel_cache_create(&cache));
    fe_build_options dynamic = FE_BUILD_OPTIONS_INIT;
    dynamic.kernel_cache = cache;
    dynamic.use_plan_cache = 0;  // else the second build takes the first one's plan, finalized for its device
    fe_tensor *x2, *w2, *y2;
    fe_graph *g2 = matmul_graph(&x2, &w2, &y2), *g3 = matmul_graph(&x2, &w2, &y2);
    graphs_.push_back(g2);
    graphs_.push_back(g3);
    ASSERT_FE_OK(fe_graph_build(g2, h0, &dynamic));
    EXPECT_FE_STATUS(fe_graph_build(g3, h1, &dynamic), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("kernel cache holds kernels loaded on CUDA device 0 and this build is for device 1"))
        << fe_last_error_message();
    fe_kernel_cache_destroy(cache);
}

// A second GPU of the same kind reuses the first one's plan from the in-process cache (no
// heuristics, no compilation) and from a cache directory, each finalized for its own device.
TEST_F(MultiGpu, GpusOfOneKindSharePlans) {
    fe_handle *h0 = handle(0), *h1 = handle(1);
    ASSERT_FE_OK(fe_plan_cache_clear());
    int64_t hits_before = 0, disk_before = 0, misses_before = 0;
    ASSERT_FE_OK(fe_plan_cache_stats(&hits_before, &disk_before, &misses_before, nullptr));

    // A runtime-compiled fusion (matmul + bias + GELU), whose build compiles kernels.
    auto fused = [&](fe_tensor **x, fe_tensor **w, fe_tensor **y) {
        fe_graph *g = matmul_graph(x, w, y);
        fe_tensor *bias = cudnnfe_test::make_tensor(g, "bias", {1, 1, 128}, false, FE_DATA_NOT_SET), *sum = nullptr;
        fe_pointwise_options po = FE_POINTWISE_OPTIONS_INIT;
        EXPECT_FE_OK(fe_tensor_set_output(*y, 0));
        EXPECT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_ADD, *y, bias, nullptr, &po, &sum));
        EXPECT_FE_OK(fe_tensor_set_output(sum, 1));
        graphs_.push_back(g);
        *y = sum;
        return g;
    };
    fe_tensor *x0, *w0, *y0, *x1, *w1, *y1, *x2, *w2, *y2;
    fe_graph *g0 = fused(&x0, &w0, &y0), *g1 = fused(&x1, &w1, &y1), *g2 = fused(&x2, &w2, &y2);
    Clock::time_point start = Clock::now();
    ASSERT_FE_OK(fe_graph_build(g0, h0, nullptr));
    double first = milliseconds(start);
    start = Clock::now();
    ASSERT_FE_OK(fe_graph_build(g1, h1, nullptr));
    double second = milliseconds(start);
    fe_build_options uncached = FE_BUILD_OPTIONS_INIT;
    uncached.use_plan_cache = 0;
    start = Clock::now();
    ASSERT_FE_OK(fe_graph_build(g2, h1, &uncached));
    double second_uncached = milliseconds(start);
    std::printf("    build on GPU 0: %.1f ms; the same graph on GPU 1: %.1f ms from the shared plan, %.1f ms built "
                "again without the cache\n",
                first, second, second_uncached);
    RecordProperty("first_gpu_build_ms", std::to_string(first));
    RecordProperty("second_gpu_build_ms", std::to_string(second));
    RecordProperty("second_gpu_uncached_build_ms", std::to_string(second_uncached));
    EXPECT_NE(describe(g1).find("built for another GPU of this kind"), std::string::npos) << describe(g1);
    EXPECT_STREQ(engine_tag_of(g1), engine_tag_of(g0));
    int64_t hits = 0, disk = 0, misses = 0;
    ASSERT_FE_OK(fe_plan_cache_stats(&hits, &disk, &misses, nullptr));
    EXPECT_EQ(hits - hits_before, 1);

    // Each runs on its own device with right results; the shared one refuses device 0.
    auto run_fused = [&](fe_graph *g, fe_handle *h, int32_t device, fe_tensor *x, fe_tensor *w, fe_tensor *y) {
        fe_tensor *bias = nullptr;
        ASSERT_FE_OK(fe_graph_tensor_by_name(g, "bias", &bias));
        DeviceTensor &bx = tensor_on(device, x, true), &bw = tensor_on(device, w, true);
        DeviceTensor &bb = tensor_on(device, bias, true), &by = tensor_on(device, y, false);
        fe_tensor *ts[] = {x, w, bias, y};
        fe_buffer *bs[] = {bx.buffer, bw.buffer, bb.buffer, by.buffer};
        ASSERT_FE_OK(fe_graph_execute_buffers(g, h, ts, bs, 4, nullptr));
        ASSERT_FE_OK(fe_handle_synchronize(h));
        download(by);
        int64_t bad = 0;
        for (int64_t m = 0; m < 256; ++m)
            for (int64_t n = 0; n < 128; ++n) {
                double want = bb.host[static_cast<size_t>(n)];
                for (int64_t k = 0; k < 512; ++k)
                    want += static_cast<double>(bx.host[static_cast<size_t>(m * 512 + k)]) * bw.host[static_cast<size_t>(k * 128 + n)];
                double got = by.host[static_cast<size_t>(m * 128 + n)];
                if (!(std::fabs(got - want) <= 2e-2 + 2e-2 * std::fabs(want))) ++bad;
            }
        EXPECT_EQ(bad, 0) << "device " << device;
    };
    run_fused(g0, h0, 0, x0, w0, y0);
    run_fused(g1, h1, 1, x1, w1, y1);
    EXPECT_FE_STATUS(fe_graph_warmup(g1, h0), FE_STATUS_INVALID_ARGUMENT);

    // Through a cache directory: GPU 0 writes the entry, GPU 1 (no in-process cache) reads it.
    std::string directory = (std::filesystem::temp_directory_path() / ("cudnnfe-multi-gpu-" + std::to_string(::getpid()))).string();
    std::filesystem::remove_all(directory);
    ASSERT_FE_OK(fe_handle_set_cache_directory(h0, directory.c_str()));
    ASSERT_FE_OK(fe_handle_set_cache_directory(h1, directory.c_str()));
    fe_tensor *x3, *w3, *y3, *x4, *w4, *y4;
    fe_graph *g3 = fused(&x3, &w3, &y3), *g4 = fused(&x4, &w4, &y4);
    ASSERT_FE_OK(fe_graph_build(g3, h0, &uncached));
    start = Clock::now();
    ASSERT_FE_OK(fe_graph_build(g4, h1, &uncached));
    double from_directory = milliseconds(start);
    std::printf("    GPU 1 from GPU 0's cache directory entry: %.1f ms\n", from_directory);
    EXPECT_NE(describe(g4).find("cache directory"), std::string::npos) << describe(g4);
    run_fused(g4, h1, 1, x4, w4, y4);
    std::filesystem::remove_all(directory);
}

// ---- synchronized batchnorm ----

constexpr int64_t kN = 4, kC = 32, kH = 8, kW = 8;

// One GPU's share of a synchronized batchnorm: its graph, its half of the batch, its buffers.
struct BatchnormShare {
    fe_handle *handle = nullptr;
    fe_graph *graph = nullptr;
    fe_tensor *x = nullptr, *scale = nullptr, *bias = nullptr, *peers[2] = {nullptr, nullptr};
    fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr;
    fe_tensor *dy = nullptr, *dx = nullptr, *dscale = nullptr, *dbias = nullptr;
};

fe_tensor *channels_last(fe_graph *g, const char *name, std::vector<int64_t> dims, fe_data_type type) {
    return cudnnfe_test::make_tensor(g, name, dims, true, type);
}

// Runs `work(device)` on every device at once and waits at most 60 s: the GPUs of a
// synchronized batchnorm wait for each other, so a protocol error hangs rather than fails.
void run_together(int32_t devices, const std::function<std::string(int32_t)> &work) {
    std::vector<std::future<std::string>> results;
    for (int32_t d = 0; d < devices; ++d) results.push_back(std::async(std::launch::async, work, d));
    for (int32_t d = 0; d < devices; ++d) {
        if (results[static_cast<size_t>(d)].wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
            std::printf("synchronized batchnorm on device %d did not finish in 60 s (the GPUs wait for each other's "
                        "statistics): stopping the test program\n",
                        d);
            std::fflush(stdout);
            std::_Exit(3);
        }
        EXPECT_EQ(results[static_cast<size_t>(d)].get(), "") << "device " << d;
    }
}

class SynchronizedBatchnorm : public MultiGpu {
  protected:
    void SetUp() override {
        MultiGpu::SetUp();
        if (IsSkipped()) return;
        for (int32_t a = 0; a < 2; ++a)
            for (int32_t b = 0; b < 2; ++b)
                if (a != b) {
                    ASSERT_FE_OK(fe_device_enable_peer_access(a, b));
                }
        // One exchange buffer per GPU, on that GPU, zeroed once.
        for (int32_t d = 0; d < 2; ++d) {
            ASSERT_FE_OK(fe_buffer_create(d, 2 * 4 * kC * 4, &exchange_[d]));
            ASSERT_FE_OK(fe_buffer_fill_bytes(exchange_[d], 0));
        }
    }
    void TearDown() override {
        for (fe_buffer *b : exchange_) fe_buffer_destroy(b);
        MultiGpu::TearDown();
    }

    fe_graph *share_graph(const char *name) { return graph(name, FE_DATA_HALF); }

    fe_buffer *exchange_[2] = {nullptr, nullptr};
};

// Per channel over both GPUs' images: the mean and the biased variance.
void whole_batch_statistics(const std::vector<float> *x, std::vector<double> *mean, std::vector<double> *var) {
    mean->assign(kC, 0);
    var->assign(kC, 0);
    const double count = 2.0 * kN * kH * kW;
    for (int d = 0; d < 2; ++d)
        for (size_t i = 0; i < x[d].size(); ++i) (*mean)[i % kC] += x[d][i];
    for (double &m : *mean) m /= count;
    for (int d = 0; d < 2; ++d)
        for (size_t i = 0; i < x[d].size(); ++i) {
            double c = x[d][i] - (*mean)[i % kC];
            (*var)[i % kC] += c * c;
        }
    for (double &v : *var) v /= count;
}

TEST_F(SynchronizedBatchnorm, ForwardNormalizesWithTheWholeBatchsStatistics) {
    const double epsilon = 1e-5;
    BatchnormShare share[2];
    DeviceTensor *bx[2], *bs[2], *bb[2], *by[2], *bm[2], *bi[2];
    for (int32_t d = 0; d < 2; ++d) {
        BatchnormShare &s = share[d];
        s.handle = handle(d);
        s.graph = share_graph("sync_batchnorm");
        s.x = channels_last(s.graph, "x", {kN, kC, kH, kW}, FE_DATA_NOT_SET);
        s.scale = channels_last(s.graph, "scale", {1, kC, 1, 1}, FE_DATA_FLOAT);
        s.bias = channels_last(s.graph, "bias", {1, kC, 1, 1}, FE_DATA_FLOAT);
        for (int p = 0; p < 2; ++p)
            s.peers[p] = channels_last(s.graph, p == 0 ? "peer_stats_gpu0" : "peer_stats_gpu1", {2, 4 * kC, 1, 1},
                                       FE_DATA_FLOAT);
        fe_batchnorm_options o = FE_BATCHNORM_OPTIONS_INIT;
        o.epsilon = epsilon;
        ASSERT_FE_OK(fe_batchnorm_options_set_peer_stats(&o, 2, s.peers));
        fe_tensor *nm = nullptr, *nv = nullptr;
        ASSERT_FE_OK(fe_graph_batchnorm(s.graph, s.x, s.scale, s.bias, &o, &s.y, &s.mean, &s.inv, &nm, &nv));
        for (fe_tensor *t : {s.y, s.mean, s.inv}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        ASSERT_FE_OK(fe_graph_build(s.graph, s.handle, nullptr));
        // The two halves of the batch differ in mean, so local statistics would be visibly wrong.
        bx[d] = &tensor_on(d, s.x, true, d == 0 ? -1.f : 0.f, d == 0 ? 2.f : 4.f);
        bs[d] = &tensor_on(d, s.scale, true, 0.5f, 1.5f);
        bb[d] = &tensor_on(d, s.bias, true, -1, 1);
        by[d] = &tensor_on(d, s.y, false);
        bm[d] = &tensor_on(d, s.mean, false);
        bi[d] = &tensor_on(d, s.inv, false);
    }
    std::printf("    plan %s on both GPUs\n", engine_tag_of(share[0].graph));
    // The same scale and bias on both GPUs (data parallel).
    bs[1]->host = bs[0]->host;
    bb[1]->host = bb[0]->host;
    ASSERT_FE_OK(fe_buffer_upload_float(bs[1]->buffer, bs[1]->host.data(), kC, FE_DATA_FLOAT));
    ASSERT_FE_OK(fe_buffer_upload_float(bb[1]->buffer, bb[1]->host.data(), kC, FE_DATA_FLOAT));

    for (int round = 0; round < 3; ++round) {
        // The exchange buffers are zeroed between executions of the group (its previous one
        // finished on every GPU): cuDNN's kernels mark what they wrote as ready and leave it so.
        if (round > 0)
            for (int32_t d = 0; d < 2; ++d) ASSERT_FE_OK(fe_buffer_fill_bytes(exchange_[d], 0));
        if (round > 0)
            for (int32_t d = 0; d < 2; ++d) {
                std::uniform_real_distribution<float> dist(d == 0 ? -1.f : 0.f, d == 0 ? 2.f : 4.f);
                for (float &v : bx[d]->host) v = dist(rng_);
                ASSERT_FE_OK(fe_buffer_upload_float(bx[d]->buffer, bx[d]->host.data(),
                                                    static_cast<int64_t>(bx[d]->host.size()), FE_DATA_HALF));
                ASSERT_FE_OK(fe_buffer_download_float(bx[d]->buffer, bx[d]->host.data(),
                                                      static_cast<int64_t>(bx[d]->host.size()), FE_DATA_HALF));
                for (DeviceTensor *out : {by[d], bm[d], bi[d]}) ASSERT_FE_OK(fe_buffer_fill_bytes(out->buffer, 0xFF));
            }
        run_together(2, [&](int32_t d) -> std::string {
            BatchnormShare &s = share[d];
            fe_tensor *ts[] = {s.x, s.scale, s.bias, s.peers[0], s.peers[1], s.y, s.mean, s.inv};
            fe_buffer *buffers[] = {bx[d]->buffer, bs[d]->buffer, bb[d]->buffer, exchange_[0], exchange_[1],
                                    by[d]->buffer, bm[d]->buffer, bi[d]->buffer};
            if (fe_graph_execute_buffers(s.graph, s.handle, ts, buffers, 8, nullptr) != FE_OK ||
                fe_handle_synchronize(s.handle) != FE_OK)
                return fe_last_error_message();
            return "";
        });
        std::vector<float> xs[2] = {bx[0]->host, bx[1]->host};
        std::vector<double> mean, var;
        whole_batch_statistics(xs, &mean, &var);
        for (int32_t d = 0; d < 2; ++d) {
            for (DeviceTensor *out : {by[d], bm[d], bi[d]}) download(*out);
            double worst_mean = 0, worst_inv = 0, worst_y = 0;
            for (int64_t c = 0; c < kC; ++c) {
                double inv = 1.0 / std::sqrt(var[static_cast<size_t>(c)] + epsilon);
                worst_mean = std::fmax(worst_mean, std::fabs(bm[d]->host[static_cast<size_t>(c)] - mean[static_cast<size_t>(c)]));
                worst_inv = std::fmax(worst_inv, std::fabs(bi[d]->host[static_cast<size_t>(c)] - inv) / inv);
            }
            for (size_t i = 0; i < bx[d]->host.size(); ++i) {
                size_t c = i % kC;
                double want = (bx[d]->host[i] - mean[c]) / std::sqrt(var[c] + epsilon) * bs[d]->host[c] + bb[d]->host[c];
                double got = by[d]->host[i];
                worst_y = std::isnan(got) ? INFINITY : std::fmax(worst_y, std::fabs(got - want) / (1 + std::fabs(want)));
            }
            std::printf("    round %d, GPU %d: mean err %.3g, inv_variance rel err %.3g, y err %.3g\n", round, d, worst_mean,
                        worst_inv, worst_y);
            EXPECT_LE(worst_mean, 1e-3) << "GPU " << d << " round " << round;
            EXPECT_LE(worst_inv, 1e-3) << "GPU " << d << " round " << round;
            EXPECT_LE(worst_y, 2e-2) << "GPU " << d << " round " << round;
        }
    }
}

TEST_F(SynchronizedBatchnorm, BackwardSumsTheGradientsOverTheWholeBatch) {
    BatchnormShare share[2];
    DeviceTensor *bx[2], *bdy[2], *bs[2], *bm[2], *bi[2], *bdx[2], *bds[2], *bdb[2];
    for (int32_t d = 0; d < 2; ++d) {
        BatchnormShare &s = share[d];
        s.handle = handle(d);
        s.graph = share_graph("sync_batchnorm_backward");
        s.dy = channels_last(s.graph, "dy", {kN, kC, kH, kW}, FE_DATA_NOT_SET);
        s.x = channels_last(s.graph, "x", {kN, kC, kH, kW}, FE_DATA_NOT_SET);
        s.scale = channels_last(s.graph, "scale", {1, kC, 1, 1}, FE_DATA_FLOAT);
        s.mean = channels_last(s.graph, "mean", {1, kC, 1, 1}, FE_DATA_FLOAT);
        s.inv = channels_last(s.graph, "inv_variance", {1, kC, 1, 1}, FE_DATA_FLOAT);
        for (int p = 0; p < 2; ++p)
            s.peers[p] = channels_last(s.graph, p == 0 ? "peer_stats_gpu0" : "peer_stats_gpu1", {2, 4 * kC, 1, 1},
                                       FE_DATA_FLOAT);
        fe_norm_backward_options o = FE_NORM_BACKWARD_OPTIONS_INIT;
        ASSERT_FE_OK(fe_norm_backward_options_set_peer_stats(&o, 2, s.peers));
        ASSERT_FE_OK(fe_graph_batchnorm_backward(s.graph, s.dy, s.x, s.scale, s.mean, s.inv, &o, &s.dx, &s.dscale,
                                                 &s.dbias));
        for (fe_tensor *t : {s.dx, s.dscale, s.dbias}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        ASSERT_FE_OK(fe_graph_build(s.graph, s.handle, nullptr));
        bx[d] = &tensor_on(d, s.x, true, d == 0 ? -1.f : 0.f, d == 0 ? 2.f : 4.f);
        bdy[d] = &tensor_on(d, s.dy, true);
        bs[d] = &tensor_on(d, s.scale, true, 0.5f, 1.5f);
        bm[d] = &tensor_on(d, s.mean, true);
        bi[d] = &tensor_on(d, s.inv, true);
        bdx[d] = &tensor_on(d, s.dx, false);
        bds[d] = &tensor_on(d, s.dscale, false);
        bdb[d] = &tensor_on(d, s.dbias, false);
    }
    // The forward's statistics of the whole batch, and the same scale, on both GPUs.
    std::vector<float> xs[2] = {bx[0]->host, bx[1]->host};
    std::vector<double> mean, var;
    whole_batch_statistics(xs, &mean, &var);
    for (int32_t d = 0; d < 2; ++d) {
        bs[d]->host = bs[0]->host;
        for (int64_t c = 0; c < kC; ++c) {
            bm[d]->host[static_cast<size_t>(c)] = static_cast<float>(mean[static_cast<size_t>(c)]);
            bi[d]->host[static_cast<size_t>(c)] = static_cast<float>(1.0 / std::sqrt(var[static_cast<size_t>(c)] + 1e-5));
        }
        ASSERT_FE_OK(fe_buffer_upload_float(bs[d]->buffer, bs[d]->host.data(), kC, FE_DATA_FLOAT));
        ASSERT_FE_OK(fe_buffer_upload_float(bm[d]->buffer, bm[d]->host.data(), kC, FE_DATA_FLOAT));
        ASSERT_FE_OK(fe_buffer_upload_float(bi[d]->buffer, bi[d]->host.data(), kC, FE_DATA_FLOAT));
    }
    run_together(2, [&](int32_t d) -> std::string {
        BatchnormShare &s = share[d];
        fe_tensor *ts[] = {s.dy, s.x, s.scale, s.mean, s.inv, s.peers[0], s.peers[1], s.dx, s.dscale, s.dbias};
        fe_buffer *buffers[] = {bdy[d]->buffer, bx[d]->buffer, bs[d]->buffer, bm[d]->buffer, bi[d]->buffer,
                                exchange_[0], exchange_[1], bdx[d]->buffer, bds[d]->buffer, bdb[d]->buffer};
        if (fe_graph_execute_buffers(s.graph, s.handle, ts, buffers, 10, nullptr) != FE_OK ||
            fe_handle_synchronize(s.handle) != FE_OK)
            return fe_last_error_message();
        return "";
    });
    // dx = scale * inv / M * (M dy - dbias - xhat dscale) with the sums over both GPUs
    // (dbias = sum dy, dscale = sum dy * xhat). Every GPU's DScale and DBias are those sums
    // divided by the group's size, so that adding them across the group (as data-parallel
    // training adds weight gradients) gives the whole batch's; neither is this GPU's own share.
    std::vector<double> dbias(kC, 0), dscale(kC, 0);
    const double count = 2.0 * kN * kH * kW;
    for (int32_t d = 0; d < 2; ++d)
        for (size_t i = 0; i < bx[d]->host.size(); ++i) {
            size_t c = i % kC;
            double xhat = (bx[d]->host[i] - bm[d]->host[c]) * bi[d]->host[c];
            dbias[c] += bdy[d]->host[i];
            dscale[c] += bdy[d]->host[i] * xhat;
        }
    for (int32_t d = 0; d < 2; ++d) {
        for (DeviceTensor *out : {bdx[d], bds[d], bdb[d]}) download(*out);
        double worst_ds = 0, worst_db = 0, worst_dx = 0;
        for (size_t c = 0; c < static_cast<size_t>(kC); ++c) {
            double ds = dscale[c] / 2, db = dbias[c] / 2;
            if (std::isnan(bds[d]->host[c]) || std::isnan(bdb[d]->host[c])) worst_ds = INFINITY;
            worst_ds = std::fmax(worst_ds, std::fabs(bds[d]->host[c] - ds) / (1 + std::fabs(ds)));
            worst_db = std::fmax(worst_db, std::fabs(bdb[d]->host[c] - db) / (1 + std::fabs(db)));
        }
        for (size_t i = 0; i < bx[d]->host.size(); ++i) {
            size_t c = i % kC;
            double xhat = (bx[d]->host[i] - bm[d]->host[c]) * bi[d]->host[c];
            double want = bs[d]->host[c] * bi[d]->host[c] / count * (count * bdy[d]->host[i] - dbias[c] - xhat * dscale[c]);
            double got = bdx[d]->host[i];
            worst_dx = std::isnan(got) ? INFINITY : std::fmax(worst_dx, std::fabs(got - want) / (1 + std::fabs(want)));
        }
        std::printf("    GPU %d: dscale err %.3g, dbias err %.3g, dx err %.3g\n", d, worst_ds, worst_db, worst_dx);
        EXPECT_LE(worst_ds, 1e-2) << "GPU " << d;
        EXPECT_LE(worst_db, 1e-2) << "GPU " << d;
        EXPECT_LE(worst_dx, 2e-2) << "GPU " << d;
    }
}

}  // namespace
