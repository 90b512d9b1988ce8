// Tensors of more than 2^31 elements on the GPU: a matmul whose A holds 2.29e9 bf16 elements and a
// 3-D convolution whose image and result hold 2.15e9 fp16 elements each, on random data, against
// double references of sampled outputs (a full CPU reference would take hours). The samples
// include rows and voxels whose inputs lie past element 2^31, where a 32-bit index would wrap.
// About 14 GB of device memory; a GPU without it skips, saying so.
#include <cstdint>
#include <random>
#include <vector>

#include "gpu_support.hpp"

using namespace cudnnfe_test;

namespace {

class LargeTensors : public Gpu {
  protected:
    void TearDown() override {
        for (fe_buffer *b : buffers_) fe_buffer_destroy(b);
        Gpu::TearDown();
    }

    // A device buffer for t holding `host` (16-bit values, logical order = memory order here), or
    // nullptr when the GPU has no room for it.
    fe_buffer *upload(fe_tensor *t, const std::vector<uint16_t> &host) {
        fe_buffer *b = nullptr;
        fe_status s = fe_buffer_create_for_tensor(0, t, &b);
        if (s == FE_STATUS_OUT_OF_MEMORY) return nullptr;
        EXPECT_FE_OK(s);
        buffers_.push_back(b);
        EXPECT_FE_OK(fe_buffer_upload(b, host.data(), static_cast<int64_t>(host.size() * 2)));
        return b;
    }
    fe_buffer *output(fe_tensor *t) {
        fe_buffer *b = nullptr;
        fe_status s = fe_buffer_create_for_tensor(0, t, &b);
        if (s == FE_STATUS_OUT_OF_MEMORY) return nullptr;
        EXPECT_FE_OK(s);
        buffers_.push_back(b);
        EXPECT_FE_OK(fe_buffer_fill_bytes(b, 0xFF));
        return b;
    }

    // Random 16-bit values in [-1, 1): bfloat16 or half bit patterns, drawn fast.
    static std::vector<uint16_t> random_values(size_t n, bool bf16, uint64_t seed) {
        std::vector<uint16_t> v(n);
        uint64_t s = seed | 1;
        for (size_t i = 0; i < n; ++i) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            const float f = static_cast<float>(s >> 40) / static_cast<float>(1 << 24) * 2.f - 1.f;
            v[i] = bf16 ? fe::float_to_bfloat16(f) : fe::float_to_half(f);
        }
        return v;
    }

    void run(fe_graph *g, std::vector<fe_tensor *> tensors, std::vector<fe_buffer *> buffers) {
        int64_t bytes = 0;
        ASSERT_FE_OK(fe_graph_workspace_size(g, &bytes));
        fe_buffer *workspace = nullptr;
        void *pointer = nullptr;
        if (bytes > 0) {
            ASSERT_FE_OK(fe_buffer_create(0, bytes, &workspace));
            buffers_.push_back(workspace);
            ASSERT_FE_OK(fe_buffer_device_pointer(workspace, &pointer));
        }
        ASSERT_FE_OK(fe_graph_execute_buffers(g, handle_, tensors.data(), buffers.data(), tensors.size(), pointer));
        ASSERT_FE_OK(fe_handle_synchronize(handle_));
    }

    std::vector<fe_buffer *> buffers_;
    std::mt19937_64 pick_{std::random_device{}()};
};

// C [1, M, N] = A [1, M, K] x B [1, K, N], bf16 with float math: A has M * K = 2.29e9 elements.
TEST_F(LargeTensors, MatmulOverTwoToTheThirtyOneElements) {
    const int64_t M = 70000, K = 32768, N = 64;
    fe_graph *g = graph("large_matmul", FE_DATA_BFLOAT16);
    fe_tensor *a = tensor(g, "a", {1, M, K}), *b = tensor(g, "b", {1, K, N}), *c = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    build(g);
    const std::vector<uint16_t> ha = random_values(static_cast<size_t>(M * K), true, pick_());
    const std::vector<uint16_t> hb = random_values(static_cast<size_t>(K * N), true, pick_());
    fe_buffer *ba = upload(a, ha), *bb = upload(b, hb), *bc = output(c);
    if (!ba || !bb || !bc) GTEST_SKIP() << "the GPU has no room for the 4.6 GB A and its result";
    run(g, {a, b, c}, {ba, bb, bc});
    std::vector<uint16_t> hc(static_cast<size_t>(M * N));
    ASSERT_FE_OK(fe_buffer_download(bc, hc.data(), static_cast<int64_t>(hc.size() * 2)));
    // Rows past 2^31 / K = 65536 read A beyond element 2^31: half the samples come from there.
    std::uniform_int_distribution<int64_t> any(0, M - 1), past(65536, M - 1);
    int64_t wrong = 0, checked = 0;
    double worst = 0;
    for (int s = 0; s < 256; ++s) {
        const int64_t m = s % 2 ? past(pick_) : any(pick_);
        for (int64_t n = 0; n < N; ++n) {
            double want = 0, magnitude = 0;
            for (int64_t k = 0; k < K; ++k) {
                const double p = static_cast<double>(fe::bfloat16_to_float(ha[static_cast<size_t>(m * K + k)])) *
                                 fe::bfloat16_to_float(hb[static_cast<size_t>(k * N + n)]);
                want += p;
                magnitude += std::fabs(p);
            }
            const double got = fe::bfloat16_to_float(hc[static_cast<size_t>(m * N + n)]);
            const double err = std::fabs(got - want);
            // bf16's rounding of the result, and float accumulation over K terms.
            if (!(err <= 8e-3 * std::fabs(want) + 1e-4 * magnitude)) ++wrong;
            worst = std::max(worst, err / (magnitude > 0 ? magnitude : 1));
            ++checked;
        }
    }
    EXPECT_EQ(wrong, 0) << wrong << " of " << checked << " sampled elements outside tolerance";
    std::printf("    %lld sampled elements, worst error %.3g of the summed magnitude\n", static_cast<long long>(checked),
                worst);
}

// y = conv3d(x, w), fp16 channels-last, 3x3x3, padding 1: x and y each hold 4 * 32 * 256^3 = 2.15e9
// elements.
TEST_F(LargeTensors, Conv3dOverTwoToTheThirtyOneElements) {
    const int64_t N = 4, C = 32, Kc = 32, S = 256;
    fe_graph *g = graph("large_conv3d", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {N, C, S, S, S}, true), *w = tensor(g, "w", {Kc, C, 3, 3, 3}, true), *y = nullptr;
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    const int64_t pad[3] = {1, 1, 1};
    ASSERT_FE_OK(fe_conv_options_set_padding(&o, 3, pad));
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build(g);
    const std::vector<uint16_t> hx = random_values(static_cast<size_t>(N * C * S * S * S), false, pick_());
    const std::vector<uint16_t> hw = random_values(static_cast<size_t>(Kc * C * 27), false, pick_());
    fe_buffer *bx = upload(x, hx), *bw = upload(w, hw), *by = output(y);
    if (!bx || !bw || !by) GTEST_SKIP() << "the GPU has no room for the 4.3 GB image and its result";
    run(g, {x, w, y}, {bx, bw, by});
    // Channels-last: element (n, c, d, h, w) at ((((n * S + d) * S + h) * S + w) * C + c).
    auto at = [&](int64_t n, int64_t d, int64_t h, int64_t v, int64_t ch, int64_t channels) {
        return static_cast<size_t>((((n * S + d) * S + h) * S + v) * channels + ch);
    };
    std::uniform_int_distribution<int64_t> batch(0, N - 1), last(2, N - 1), pos(0, S - 1), chan(0, Kc - 1);
    std::vector<uint16_t> hy(hx.size());
    ASSERT_FE_OK(fe_buffer_download(by, hy.data(), static_cast<int64_t>(hy.size() * 2)));
    int64_t wrong = 0, checked = 0;
    for (int s = 0; s < 512; ++s) {
        // Batch elements 2 and 3 lie past element 2^31 of x and y.
        const int64_t n = s % 2 ? last(pick_) : batch(pick_), d = pos(pick_), h = pos(pick_), v = pos(pick_),
                      k = chan(pick_);
        double want = 0, magnitude = 0;
        for (int64_t c = 0; c < C; ++c)
            for (int64_t fd = 0; fd < 3; ++fd)
                for (int64_t fh = 0; fh < 3; ++fh)
                    for (int64_t fw = 0; fw < 3; ++fw) {
                        const int64_t id = d + fd - 1, ih = h + fh - 1, iw = v + fw - 1;
                        if (id < 0 || ih < 0 || iw < 0 || id >= S || ih >= S || iw >= S) continue;
                        // w [K, C, 3, 3, 3] channels-last: (((k * 3 + fd) * 3 + fh) * 3 + fw) * C + c.
                        const size_t wi = static_cast<size_t>((((k * 3 + fd) * 3 + fh) * 3 + fw) * C + c);
                        const double p =
                            static_cast<double>(fe::half_to_float(hx[at(n, id, ih, iw, c, C)])) * fe::half_to_float(hw[wi]);
                        want += p;
                        magnitude += std::fabs(p);
                    }
        const double got = fe::half_to_float(hy[at(n, d, h, v, k, Kc)]);
        if (!(std::fabs(got - want) <= 2e-3 * std::fabs(want) + 2e-3 * magnitude)) ++wrong;
        ++checked;
    }
    EXPECT_EQ(wrong, 0) << wrong << " of " << checked << " sampled voxels outside tolerance";
}

}  // namespace
