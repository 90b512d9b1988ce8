// GPU tier: execute real graphs and compare with references computed on the CPU in double
// from the same (rounded) inputs. Inputs are fresh random numbers every run; outputs are
// poisoned (all bits set: NaN in every float format) before each run.
#pragma once

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "common/half.hpp"
#include "test_support.hpp"

namespace cudnnfe_test {

// A tensor with its device buffer and the host copy of what the device holds, indexed by
// element offset (strides applied), as float.
struct Bound {
    fe_tensor *tensor = nullptr;
    fe_buffer *buffer = nullptr;
    std::vector<int64_t> dims, strides;
    fe_data_type type = FE_DATA_FLOAT;
    std::vector<float> host;  // span-sized

    int64_t span() const {
        int64_t last = 0;
        for (size_t i = 0; i < dims.size(); ++i) last += (dims[i] - 1) * strides[i];
        return last + 1;
    }
    int64_t offset(const std::vector<int64_t> &index) const {
        int64_t o = 0;
        for (size_t i = 0; i < index.size(); ++i) o += index[i] * strides[i];
        return o;
    }
    float at(const std::vector<int64_t> &index) const { return host[static_cast<size_t>(offset(index))]; }
};

inline float round_to(fe_data_type type, float v) {
    if (type == FE_DATA_HALF) return fe::half_to_float(fe::float_to_half(v));
    if (type == FE_DATA_BFLOAT16) return fe::bfloat16_to_float(fe::float_to_bfloat16(v));
    if (type == FE_DATA_FP8_E4M3) return fe::fp8_e4m3_to_float(fe::float_to_fp8_e4m3(v));
    if (type == FE_DATA_FP8_E5M2) return fe::fp8_e5m2_to_float(fe::float_to_fp8_e5m2(v));
    return v;
}

// Relative error norm ||out - ref|| / ||ref|| and element checks, as cudnn-frontend's tests do.
struct Comparison {
    double relative_norm = 0, max_abs = 0;
    int64_t mismatches = 0, non_finite = 0, count = 0;
    std::string first_bad;
};

class Gpu : public GraphOwningTest {
  protected:
    void SetUp() override {
        if (!cudnn_available()) GTEST_SKIP() << "cuDNN is not loadable here: " << fe_last_error_message();
        if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine; the gpu tier runs on one";
        ASSERT_FE_OK(fe_handle_create(0, &handle_));
        rng_.seed(std::random_device{}());
    }
    void TearDown() override {
        for (Bound &b : bound_) fe_buffer_destroy(b.buffer);
        destroy_graphs();
        fe_handle_destroy(handle_);
    }

    // Allocate a buffer for a (validated) tensor; inputs get random data in [lo, hi], outputs
    // are poisoned. Returns the index into bound_.
    Bound &bind(fe_tensor *t, bool input, float lo = -1.f, float hi = 1.f) {
        Bound &b = allocate(t);
        if (input) {
            std::uniform_real_distribution<float> dist(lo, hi);
            for (float &v : b.host) v = round_to(b.type, dist(rng_));
            EXPECT_FE_OK(fe_buffer_upload_float(b.buffer, b.host.data(), b.span(), b.type));
        } else {
            EXPECT_FE_OK(fe_buffer_fill_bytes(b.buffer, 0xFF));
        }
        return b;
    }

    // An int8 input of random integers in [-range, range], uploaded as raw bytes.
    Bound &int8_input(fe_tensor *t, int range) {
        Bound &b = allocate(t);
        std::uniform_int_distribution<int> dist(-range, range);
        std::vector<int8_t> bytes(b.host.size());
        for (size_t i = 0; i < bytes.size(); ++i) b.host[i] = bytes[i] = static_cast<int8_t>(dist(rng_));
        EXPECT_FE_OK(fe_buffer_upload(b.buffer, bytes.data(), static_cast<int64_t>(bytes.size())));
        return b;
    }

    // A device buffer for a (validated) tensor, its shape and type, and zeroed host values; the
    // caller fills or poisons it.
    Bound &allocate(fe_tensor *t) {
        Bound b;
        b.tensor = t;
        size_t n = 0;
        EXPECT_FE_OK(fe_tensor_get_ndims(t, &n));
        b.dims.resize(n);
        b.strides.resize(n);
        EXPECT_FE_OK(fe_tensor_get_dims(t, b.dims.data(), n));
        EXPECT_FE_OK(fe_tensor_get_strides(t, b.strides.data(), n));
        EXPECT_FE_OK(fe_tensor_get_data_type(t, &b.type));
        EXPECT_FE_OK(fe_buffer_create_for_tensor(0, t, &b.buffer));
        b.host.assign(static_cast<size_t>(b.span()), 0.f);
        bound_.push_back(b);
        return bound_.back();
    }

    void build(fe_graph *g) {
        ASSERT_FE_OK(fe_graph_build(g, handle_, nullptr));
        keep_plan(g);
    }

    // With CUDNNFE_GPU_TEST_PLANS=DIR, each plan a test builds is written there as
    // Suite.Test[-N].fegraph: real plans of every family for the deviceless tier's plan checks.
    static void keep_plan(const fe_graph *g) {
        const char *dir = std::getenv("CUDNNFE_GPU_TEST_PLANS");
        if (!dir || !*dir) return;
        size_t n = 0;
        if (fe_graph_serialize(g, nullptr, 0, &n) != FE_STATUS_BUFFER_TOO_SMALL) return;
        std::vector<unsigned char> bytes(n);
        if (fe_graph_serialize(g, bytes.data(), n, &n) != FE_OK) return;
        const ::testing::TestInfo *t = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = t ? std::string(t->test_suite_name()) + "." + t->name() : "plan";
        for (char &c : name)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_') c = '-';
        static int count = 0;
        std::string path = std::string(dir) + "/" + name + "-" + std::to_string(count++) + ".fegraph";
        if (FILE *f = std::fopen(path.c_str(), "wb")) {
            std::fwrite(bytes.data(), 1, n, f);
            std::fclose(f);
        }
    }

    // Builds g; true when the build was refused before cuDNN ran, by a known-bad entry of the
    // capability table (a cuDNN that computes it wrongly): the deviceless tier checks the
    // refusal, a newer cuDNN runs the test.
    bool refused_by_the_capability_table(fe_graph *g) {
        fe_status s = fe_graph_build(g, handle_, nullptr);
        if (s == FE_OK) {
            keep_plan(g);
            return false;
        }
        EXPECT_EQ(s, FE_STATUS_NOT_SUPPORTED) << fe_last_error_message();
        return std::strstr(fe_last_error_message(), "(known bad through") != nullptr;
    }

    // Execute with buffers for every bound tensor of graph g, wait, download outputs. The
    // workspace is poisoned too (all bits set), so a plan that needs part of it cleared must
    // clear it itself.
    void execute(fe_graph *g, std::vector<Bound *> all) {
        std::vector<fe_tensor *> tensors;
        std::vector<fe_buffer *> buffers;
        for (Bound *b : all) {
            tensors.push_back(b->tensor);
            buffers.push_back(b->buffer);
        }
        int64_t bytes = 0;
        ASSERT_FE_OK(fe_graph_workspace_size(g, &bytes));
        fe_buffer *workspace = nullptr;
        void *workspace_pointer = nullptr;
        if (bytes > 0) {
            ASSERT_FE_OK(fe_buffer_create(0, bytes, &workspace));
            std::vector<unsigned char> poison(static_cast<size_t>(bytes), 0xFF);
            ASSERT_FE_OK(fe_buffer_upload(workspace, poison.data(), bytes));
            ASSERT_FE_OK(fe_buffer_device_pointer(workspace, &workspace_pointer));
        }
        fe_status s = fe_graph_execute_buffers(g, handle_, tensors.data(), buffers.data(), tensors.size(),
                                               workspace_pointer);
        std::string message = s == FE_OK ? "" : fe_last_error_message();
        fe_status synced = fe_handle_synchronize(handle_);
        fe_buffer_destroy(workspace);
        ASSERT_EQ(s, FE_OK) << message;
        ASSERT_FE_OK(synced);
    }

    void download(Bound &b) { ASSERT_FE_OK(fe_buffer_download_float(b.buffer, b.host.data(), b.span(), b.type)); }

    // Compare every logical element of `out` with `ref` (same logical order, row-major over dims).
    Comparison compare(const Bound &out, const std::vector<double> &ref, double atol, double rtol) {
        Comparison c;
        double diff2 = 0, ref2 = 0;
        std::vector<int64_t> index(out.dims.size(), 0);
        for (size_t i = 0; i < ref.size(); ++i) {
            double got = out.at(index);
            double want = ref[i];
            ++c.count;
            if (!std::isfinite(got)) {
                if (c.non_finite++ == 0 && c.first_bad.empty())
                    c.first_bad = "element " + std::to_string(i) + " is not finite (unwritten or overflow)";
            } else {
                double d = std::fabs(got - want);
                diff2 += d * d;
                ref2 += want * want;
                if (d > c.max_abs) c.max_abs = d;
                if (d > atol + rtol * std::fabs(want) && c.mismatches++ == 0)
                    c.first_bad = "element " + std::to_string(i) + ": got " + std::to_string(got) + ", want " +
                                  std::to_string(want);
            }
            for (size_t d = index.size(); d-- > 0;) {
                if (++index[d] < out.dims[d]) break;
                index[d] = 0;
            }
        }
        c.relative_norm = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
        return c;
    }

    void expect_close(const Bound &out, const std::vector<double> &ref, double atol, double rtol, double max_norm) {
        Comparison c = compare(out, ref, atol, rtol);
        EXPECT_EQ(c.non_finite, 0) << c.first_bad;
        EXPECT_EQ(c.mismatches, 0) << c.mismatches << " of " << c.count << " outside tolerance; first: " << c.first_bad;
        EXPECT_LE(c.relative_norm, max_norm) << "relative error norm";
        RecordProperty("relative_norm", std::to_string(c.relative_norm));
        std::printf("    %lld elements, max abs err %.3g, relative norm %.3g\n", static_cast<long long>(c.count),
                    c.max_abs, c.relative_norm);
    }

    fe_handle *handle_ = nullptr;
    std::mt19937 rng_;
    std::deque<Bound> bound_;  // deque: references handed out stay valid
};

// Tolerances by io type (cudnn-frontend's tests use about 2e-2 for fp16/bf16).
inline double atol_for(fe_data_type t) { return t == FE_DATA_FLOAT ? 5e-3 : (t == FE_DATA_HALF ? 2e-2 : 5e-2); }
inline double rtol_for(fe_data_type t) { return t == FE_DATA_FLOAT ? 5e-3 : 2e-2; }
inline double norm_for(fe_data_type t) { return t == FE_DATA_FLOAT ? 2e-3 : (t == FE_DATA_HALF ? 5e-3 : 1.5e-2); }

}  // namespace cudnnfe_test
