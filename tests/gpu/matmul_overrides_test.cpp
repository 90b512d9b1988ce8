// A padded batch of variable-length matrices as one matmul: per-batch M, N and K overrides and
// the padding value, against a CPU reference in double. cuDNN 9.19 computes a lone matmul's
// overrides wrongly on an H100 (capability standalone_matmul_overrides): refused there, and
// these tests skip saying so until a cuDNN that runs them.
#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

struct OverrideCase {
    const char *name;
    bool m, n, k;
    double padding;
};

class MatmulOverrides : public Gpu, public ::testing::WithParamInterface<OverrideCase> {};

TEST_P(MatmulOverrides, MatchesCpuReference) {
    const OverrideCase &c = GetParam();
    const int64_t B = 4, M = 128, N = 256, K = 192;
    fe_graph *g = graph(c.name, FE_DATA_BFLOAT16);
    fe_tensor *a = tensor(g, "a", {B, M, K}), *b = tensor(g, "b", {B, K, N});
    fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
    fe_tensor *sizes[3] = {nullptr, nullptr, nullptr};
    const char *names[3] = {"m", "n", "k"};
    const bool used[3] = {c.m, c.n, c.k};
    for (int i = 0; i < 3; ++i)
        if (used[i]) sizes[i] = tensor(g, names[i], {B, 1, 1}, false, FE_DATA_INT32);
    o.m_override = sizes[0];
    o.n_override = sizes[1];
    o.k_override = sizes[2];
    o.padding_value = c.padding;
    fe_tensor *out = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, &o, &out));
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
    if (refused_by_the_capability_table(g)) GTEST_SKIP() << fe_last_error_message();
    std::printf("    %s plan %s\n", c.name, engine_tag_of(g));

    Bound &ba = bind(a, true), &bb = bind(b, true), &bc = bind(out, false);
    std::vector<Bound *> all = {&ba, &bb, &bc};
    // Actual sizes: at least half of each maximum, so every batch has work.
    const int64_t full[3] = {M, N, K};
    std::vector<int32_t> actual[3];
    for (int i = 0; i < 3; ++i) {
        actual[i].assign(B, static_cast<int32_t>(full[i]));
        if (!used[i]) continue;
        for (int64_t x = 0; x < B; ++x)
            actual[i][static_cast<size_t>(x)] =
                static_cast<int32_t>(full[i] / 2 + static_cast<int64_t>(rng_() % static_cast<uint32_t>(full[i] / 2 + 1)));
        Bound &s = bind(sizes[i], false);
        ASSERT_FE_OK(fe_buffer_upload(s.buffer, actual[i].data(), 4 * B));
        all.push_back(&s);
    }
    execute(g, all);
    download(bc);

    std::vector<double> ref(static_cast<size_t>(B * M * N));
    for (int64_t x = 0; x < B; ++x)
        for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j) {
                double v = c.padding;
                if (i < actual[0][static_cast<size_t>(x)] && j < actual[1][static_cast<size_t>(x)]) {
                    v = 0;
                    for (int64_t k = 0; k < actual[2][static_cast<size_t>(x)]; ++k)
                        v += static_cast<double>(ba.at({x, i, k})) * bb.at({x, k, j});
                }
                ref[static_cast<size_t>((x * M + i) * N + j)] = v;
            }
    expect_close(bc, ref, 2e-2, 2e-2, 1e-2);
}

INSTANTIATE_TEST_SUITE_P(Gpu, MatmulOverrides,
                         ::testing::Values(OverrideCase{"m_override_padding", true, false, false, -7.5},
                                           OverrideCase{"m_n_k_overrides", true, true, true, 0.0},
                                           OverrideCase{"k_override", false, false, true, 0.0},
                                           OverrideCase{"n_override_padding", false, true, false, 3.0}),
                         [](const ::testing::TestParamInfo<OverrideCase> &info) { return std::string(info.param.name); });

}  // namespace
