// Serialized, cached and autotuned plans execute correctly on the GPU: a deserialized graph
// gives bit-identical results to the graph it came from (which matches a CPU reference), a
// plan loaded from the cache directory runs, a forged plan is refused, and autotuning keeps the
// fastest correct plan.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "blob_editor.hpp"
#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

class PlansOnGpu : public Gpu {
  protected:
    void SetUp() override {
        Gpu::SetUp();
        if (IsSkipped()) return;
        fe_plan_cache_clear();
    }

    std::vector<unsigned char> serialize(fe_graph *g) {
        size_t n = 0;
        EXPECT_EQ(fe_graph_serialize(g, nullptr, 0, &n), FE_STATUS_BUFFER_TOO_SMALL);
        std::vector<unsigned char> bytes(n);
        EXPECT_FE_OK(fe_graph_serialize(g, bytes.data(), n, &n));
        return bytes;
    }

    fe_graph *deserialize(const std::vector<unsigned char> &bytes) {
        fe_graph *g = nullptr;
        EXPECT_FE_OK(fe_graph_deserialize(handle_, bytes.data(), bytes.size(), nullptr, &g));
        if (g) graphs_.push_back(g);
        return g;
    }

    // Execute a graph by uid with the buffers of another graph's tensors of the same uids.
    void execute_by_uid(fe_graph *g, const std::vector<Bound *> &all) {
        std::vector<int64_t> uids;
        std::vector<void *> pointers;
        for (Bound *b : all) {
            int64_t uid = 0;
            EXPECT_FE_OK(fe_tensor_get_uid(b->tensor, &uid));
            void *p = nullptr;
            EXPECT_FE_OK(fe_buffer_device_pointer(b->buffer, &p));
            uids.push_back(uid);
            pointers.push_back(p);
        }
        ASSERT_FE_OK(fe_graph_execute_by_uid(g, handle_, uids.data(), pointers.data(), uids.size(), nullptr));
        ASSERT_FE_OK(fe_handle_synchronize(handle_));
    }

    // Each plan's autotuned time is positive and no plan is faster than one ranked before it;
    // returns the slowest.
    double expect_times_rise(fe_graph *g, size_t plans) {
        double previous = 0;
        for (size_t i = 0; i < plans; ++i) {
            double us = 0;
            EXPECT_FE_OK(fe_graph_plan_time_us(g, i, &us));
            EXPECT_GT(us, 0);
            EXPECT_GE(us, previous) << "plan " << i << " is faster than the one chosen before it";
            previous = us;
        }
        return previous;
    }

    // y against the CPU reference of a 2-D convolution with stride 1 and this padding.
    void expect_conv_matches(const Bound &y, const Bound &x, const Bound &w, int64_t pad, fe_data_type type) {
        ConvParams p;
        p.pad = {pad, pad};
        p.stride = {1, 1};
        p.dilation = {1, 1};
        expect_close(y, conv_reference(x, w, y.dims, p), atol_for(type) * 4, rtol_for(type), norm_for(type));
    }

    static bool same_bits(const Bound &a, const Bound &b) {
        return a.host.size() == b.host.size() &&
               std::memcmp(a.host.data(), b.host.data(), a.host.size() * sizeof(float)) == 0;
    }
};

TEST_F(PlansOnGpu, DeserializedMatmulMatchesTheOriginalBitForBit) {
    fe_graph *g = graph("matmul_bias", FE_DATA_HALF);
    fe_tensor *a = tensor(g, "a", {4, 128, 256}), *b = tensor(g, "b", {4, 256, 64}), *d = tensor(g, "d", {1, 1, 64});
    fe_tensor *ab = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &ab));
    ASSERT_FE_OK(fe_graph_bias(g, ab, d, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build(g);
    Bound &ba = bind(a, true), &bb = bind(b, true), &bd = bind(d, true), &by = bind(y, false);
    execute(g, {&ba, &bb, &bd, &by});
    download(by);
    std::vector<double> ref = matmul_reference(ba, bb, by.dims);
    std::vector<int64_t> index(by.dims.size(), 0);
    for (double &v : ref) {
        v += broadcast_at(bd, index);
        for (size_t k = index.size(); k-- > 0;) {
            if (++index[k] < by.dims[k]) break;
            index[k] = 0;
        }
    }
    expect_close(by, ref, atol_for(FE_DATA_HALF) * 4, rtol_for(FE_DATA_HALF), norm_for(FE_DATA_HALF));
    Bound first = by;

    fe_graph *back = deserialize(serialize(g));
    ASSERT_NE(back, nullptr);
    ASSERT_FE_OK(fe_buffer_fill_bytes(by.buffer, 0xFF));
    execute_by_uid(back, {&ba, &bb, &bd, &by});
    download(by);
    EXPECT_TRUE(same_bits(by, first)) << "the deserialized plan computed something else";
}

TEST_F(PlansOnGpu, DeserializedAttentionRunsWithoutCompiling) {
    // A runtime-compiled engine: its serialized plan carries the compiled kernel.
    fe_graph *g = graph("sdpa", FE_DATA_BFLOAT16);
    fe_tensor *q = tensor(g, "q", {1, 2, 256, 64}), *k = tensor(g, "k", {1, 2, 256, 64}),
              *v = tensor(g, "v", {1, 2, 256, 64});
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    o.attn_scale = 0.125;
    fe_tensor *out = nullptr, *stats = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &o, &out, &stats));
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
    build(g);
    Bound &bq = bind(q, true), &bk = bind(k, true), &bv = bind(v, true), &bo = bind(out, false);
    execute(g, {&bq, &bk, &bv, &bo});
    download(bo);
    Bound first = bo;
    for (float f : first.host) ASSERT_TRUE(std::isfinite(f)) << "the original graph left outputs unwritten";

    std::vector<unsigned char> bytes = serialize(g);
    auto t0 = std::chrono::steady_clock::now();
    fe_graph *back = deserialize(bytes);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_NE(back, nullptr);
    std::printf("    serialized %zu bytes; deserialized in %.2f ms (plan %s)\n", bytes.size(), ms, engine_tag_of(back));
    ASSERT_FE_OK(fe_buffer_fill_bytes(bo.buffer, 0xFF));
    execute_by_uid(back, {&bq, &bk, &bv, &bo});
    download(bo);
    EXPECT_TRUE(same_bits(bo, first)) << "the deserialized attention plan computed something else";
}

// A runtime-compiled attention plan whose tensors were enlarged, checksum fixed: refused before
// it could read and write past the caller's buffers; the untouched blob still runs.
TEST_F(PlansOnGpu, AForgedAttentionPlanIsRefused) {
    fe_graph *g = graph("sdpa_forged", FE_DATA_BFLOAT16);
    fe_tensor *q = tensor(g, "q", {1, 2, 256, 64}), *k = tensor(g, "k", {1, 2, 256, 64}),
              *v = tensor(g, "v", {1, 2, 256, 64});
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    fe_tensor *out = nullptr, *stats = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &o, &out, &stats));
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
    build(g);
    std::vector<unsigned char> bytes = serialize(g);
    EditableBlob blob(bytes);
    blob.replace(EditableBlob::kPlan, "\"dim\":[1,2,256,64]", "\"dim\":[64,2,256,64]");
    fe_deserialize_options options = FE_DESERIALIZE_OPTIONS_INIT;
    std::vector<unsigned char> forged = blob.bytes();
    fe_graph *back = nullptr;
    EXPECT_EQ(fe_graph_deserialize(handle_, forged.data(), forged.size(), &options, &back), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("the plan does not match its graph")) << fe_last_error_message();
    fe_graph *loaded = deserialize(bytes);
    ASSERT_NE(loaded, nullptr);
}

TEST_F(PlansOnGpu, ThePlanFromTheCacheDirectoryRuns) {
    char pattern[] = "/tmp/cudnnfe-gpu-cache-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    std::string dir = pattern;
    ASSERT_FE_OK(fe_handle_set_cache_directory(handle_, dir.c_str()));
    auto make = [&](fe_tensor **a, fe_tensor **b, fe_tensor **y) {
        fe_graph *g = graph("cached_matmul", FE_DATA_BFLOAT16);
        *a = tensor(g, "a", {2, 64, 128});
        *b = tensor(g, "b", {2, 128, 32});
        EXPECT_FE_OK(fe_graph_matmul(g, *a, *b, nullptr, y));
        EXPECT_FE_OK(fe_tensor_set_output(*y, 1));
        return g;
    };
    fe_tensor *a, *b, *y;
    build(make(&a, &b, &y));
    fe_plan_cache_clear();
    int64_t disk_before = 0, disk_after = 0;
    fe_plan_cache_stats(nullptr, &disk_before, nullptr, nullptr);
    fe_graph *g = make(&a, &b, &y);
    build(g);
    fe_plan_cache_stats(nullptr, &disk_after, nullptr, nullptr);
    EXPECT_EQ(disk_after - disk_before, 1) << "the second build did not load from " << dir;
    Bound &ba = bind(a, true), &bb = bind(b, true), &by = bind(y, false);
    execute(g, {&ba, &bb, &by});
    download(by);
    expect_close(by, matmul_reference(ba, bb, by.dims), atol_for(FE_DATA_BFLOAT16) * 4, rtol_for(FE_DATA_BFLOAT16),
                 norm_for(FE_DATA_BFLOAT16));
    std::string cleanup = "rm -rf " + dir;
    EXPECT_EQ(std::system(cleanup.c_str()), 0);
}

TEST_F(PlansOnGpu, ACacheDirectoryOthersCanWriteIsRefused) {
    char pattern[] = "/tmp/cudnnfe-gpu-cache-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    std::string dir = pattern;
    ASSERT_EQ(chmod(dir.c_str(), 0777), 0);
    EXPECT_EQ(fe_handle_set_cache_directory(handle_, dir.c_str()), FE_STATUS_INVALID_ARGUMENT);
    std::string message = fe_last_error_message();
    EXPECT_EQ(message, "fe_handle_set_cache_directory: " + dir + ": other users can write to it and it has no sticky bit");
    ASSERT_EQ(chmod(dir.c_str(), 01777), 0);
    EXPECT_FE_OK(fe_handle_set_cache_directory(handle_, dir.c_str()));
    EXPECT_FE_OK(fe_handle_set_cache_directory(handle_, nullptr));
    rmdir(dir.c_str());
}

// With a shared secret the same directory is accepted; a secret others may read is refused,
// naming the file and the cause.
TEST_F(PlansOnGpu, ACacheSecretDecidesWhetherASharedDirectoryIsUsable) {
    char pattern[] = "/tmp/cudnnfe-gpu-cache-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    std::string dir = pattern, secret = dir + "-secret";
    ASSERT_EQ(chmod(dir.c_str(), 0777), 0);
    {
        FILE *f = std::fopen(secret.c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fputs("a secret the team shares, 32 b", f);
        std::fclose(f);
    }
    ASSERT_EQ(chmod(secret.c_str(), 0600), 0);
    setenv("CUDNNFE_CACHE_SECRET", secret.c_str(), 1);
    EXPECT_FE_OK(fe_handle_set_cache_directory(handle_, dir.c_str()));
    ASSERT_EQ(chmod(secret.c_str(), 0640), 0);
    EXPECT_EQ(fe_handle_set_cache_directory(handle_, dir.c_str()), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("CUDNNFE_CACHE_SECRET " + secret + ": others may read or write it (mode 640)"))
        << fe_last_error_message();
    unsetenv("CUDNNFE_CACHE_SECRET");
    EXPECT_FE_OK(fe_handle_set_cache_directory(handle_, nullptr));
    std::remove(secret.c_str());
    rmdir(dir.c_str());
}

TEST_F(PlansOnGpu, AutotuningKeepsTheFastestCorrectPlan) {
    fe_graph *g = graph("autotuned_conv", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {16, 64, 28, 28}, true), *w = tensor(g, "w", {64, 64, 3, 3}, true);
    fe_conv_options co = FE_CONV_OPTIONS_INIT;
    co.pre_padding[0] = co.pre_padding[1] = co.post_padding[0] = co.post_padding[1] = 1;
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &co, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    fe_build_options bo = FE_BUILD_OPTIONS_INIT;
    bo.autotune = 1;
    bo.autotune_candidates = 4;
    ASSERT_FE_OK(fe_graph_build(g, handle_, &bo));
    size_t plans = 0;
    ASSERT_FE_OK(fe_graph_plan_count(g, &plans));
    EXPECT_GE(plans, 1);
    EXPECT_LE(plans, 4);
    expect_times_rise(g, plans);
    std::printf("    %lld plans timed; chose %s\n", static_cast<long long>(plans), engine_tag_of(g));
    double us = 0;
    EXPECT_EQ(fe_graph_plan_time_us(g, plans, &us), FE_STATUS_INVALID_ARGUMENT);
    Bound &bx = bind(x, true), &bw = bind(w, true), &by = bind(y, false);
    execute(g, {&bx, &bw, &by});
    download(by);
    expect_conv_matches(by, bx, bw, 1, FE_DATA_HALF);
    // The autotuned choice survives serialization.
    std::vector<unsigned char> bytes = serialize(g);
    fe_graph *back = deserialize(bytes);
    ASSERT_NE(back, nullptr);
    EXPECT_STREQ(engine_tag_of(back), engine_tag_of(g));
}

TEST_F(PlansOnGpu, KnobSearchTimesMorePlansAndKeepsACorrectOne) {
    // A 1x1 reduction in bf16, channels-last: the kind of layer whose fastest tile and cluster
    // shape heuristics leave out.
    fe_graph *g = graph("knob_search_conv", FE_DATA_BFLOAT16);
    fe_tensor *x = tensor(g, "x", {8, 1024, 14, 14}, true), *w = tensor(g, "w", {256, 1024, 1, 1}, true);
    fe_conv_options co = FE_CONV_OPTIONS_INIT;
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &co, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    fe_build_options bo = FE_BUILD_OPTIONS_INIT;
    bo.autotune = 1;
    bo.autotune_candidates = 4;
    bo.autotune_knob_search = 2;
    ASSERT_FE_OK(fe_graph_build(g, handle_, &bo));
    size_t plans = 0, candidates = 0;
    ASSERT_FE_OK(fe_graph_plan_count(g, &plans));
    ASSERT_FE_OK(fe_graph_candidate_count(g, &candidates));
    EXPECT_GT(plans, 4) << "the knob search timed no plan beyond the heuristics' four";
    double slowest = expect_times_rise(g, plans);
    double best = 0;
    ASSERT_FE_OK(fe_graph_plan_time_us(g, 0, &best));
    std::printf("    %lld candidates, %lld plans timed; chose %s at %.2f us (slowest %.2f us)\n",
                static_cast<long long>(candidates), static_cast<long long>(plans), engine_tag_of(g), best,
                slowest);
    Bound &bx = bind(x, true), &bw = bind(w, true), &by = bind(y, false);
    execute(g, {&bx, &bw, &by});
    download(by);
    expect_conv_matches(by, bx, bw, 0, FE_DATA_BFLOAT16);
    // The searched plan survives serialization, knobs and all.
    fe_graph *back = deserialize(serialize(g));
    ASSERT_NE(back, nullptr);
    EXPECT_STREQ(engine_tag_of(back), engine_tag_of(g));
    Bound &again = bind(y, false);
    execute_by_uid(back, {&bx, &bw, &again});
    download(again);
    EXPECT_TRUE(same_bits(by, again)) << "the deserialized searched plan computes something else";
}

TEST_F(PlansOnGpu, AutotuningAGraphWithoutPlansIsAnError) {
    fe_graph *g = graph("unbuilt", FE_DATA_HALF);
    tensor(g, "a", {2, 8, 8});
    EXPECT_EQ(fe_graph_autotune(g, handle_, 1, 1, nullptr), FE_STATUS_BAD_STATE);
    double us = 0;
    EXPECT_EQ(fe_graph_plan_time_us(g, 0, &us), FE_STATUS_BAD_STATE);
}

}  // namespace
