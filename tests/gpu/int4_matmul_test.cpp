// Weight-only INT4 matmuls: half activations times 4-bit weights (stored two to a byte, K
// contiguous), converted in the graph as-is, scaled per output column, or dequantized with one
// scale per group of K rows; against double products of the stored integers and their scales.
// uint4 weights are refused by the capability table (their kernels fault on cuDNN 9.19): those
// cases skip with its message, and run on a cuDNN the table lets through.
#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

enum class Scaling { none, per_column, per_group };

struct Int4Case {
    const char *name;
    fe_data_type weights;  // int4 or uint4
    Scaling scaling;
    fe_data_type scale_type;
    int64_t group = 0;  // rows of K per scale (per_group)
};

class Int4Matmul : public Gpu, public ::testing::WithParamInterface<Int4Case> {
  protected:
    // Random 4-bit values for `t` (dims [1, K, N], K contiguous), packed two to a byte with
    // the element at the even offset in the low four bits; `host` gets the values by offset.
    Bound &int4_input(fe_tensor *t, bool is_signed) {
        Bound &b = allocate(t);
        std::uniform_int_distribution<int> dist(is_signed ? -8 : 0, is_signed ? 7 : 15);
        std::vector<uint8_t> bytes(static_cast<size_t>((b.span() + 1) / 2), 0);
        for (size_t e = 0; e < b.host.size(); ++e) {
            int v = dist(rng_);
            b.host[e] = static_cast<float>(v);
            bytes[e / 2] |= static_cast<uint8_t>((v & 0xF) << (e % 2 ? 4 : 0));
        }
        EXPECT_FE_OK(fe_buffer_upload(b.buffer, bytes.data(), static_cast<int64_t>(bytes.size())));
        return b;
    }
};

TEST_P(Int4Matmul, MatchesTheScaledProduct) {
    const Int4Case &p = GetParam();
    const int64_t M = 64, K = 256, N = 128;
    fe_graph *g = graph(p.name, FE_DATA_HALF);
    fe_tensor *a = tensor(g, "a", {1, M, K});
    const int64_t dims[] = {1, K, N}, k_contiguous[] = {K * N, 1, K};
    fe_tensor *b = nullptr;
    ASSERT_FE_OK(fe_graph_tensor(g, "b", 3, dims, k_contiguous, p.weights, &b));
    fe_tensor *scale = nullptr, *weights = b, *c = nullptr;
    if (p.scaling == Scaling::per_column) {
        scale = tensor(g, "scale", {1, 1, N}, false, p.scale_type);
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_MUL, b, scale, nullptr, nullptr, &weights));
        ASSERT_FE_OK(fe_tensor_set_data_type(weights, FE_DATA_HALF));
    } else if (p.scaling == Scaling::per_group) {
        scale = tensor(g, "scale", {1, K / p.group, N}, false, p.scale_type);
        fe_block_scale_options o = FE_BLOCK_SCALE_OPTIONS_INIT;
        o.block_rows = static_cast<int32_t>(p.group);
        o.block_size = 1;
        ASSERT_FE_OK(fe_graph_block_scale_dequantize(g, b, scale, &o, &weights));
        ASSERT_FE_OK(fe_tensor_set_data_type(weights, FE_DATA_HALF));
    }
    ASSERT_FE_OK(fe_graph_matmul(g, a, weights, nullptr, &c));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    if (refused_by_the_capability_table(g)) GTEST_SKIP() << fe_last_error_message();
    std::printf("    plan %s\n", engine_tag_of(g));
    Bound &ba = bind(a, true), &bb = int4_input(b, p.weights == FE_DATA_INT4), &bc = bind(c, false);
    std::vector<Bound *> all = {&ba, &bb, &bc};
    Bound *bs = scale ? &bind(scale, true, 0.01f, 0.1f) : nullptr;
    if (bs) all.push_back(bs);
    execute(g, all);
    download(bc);

    // The dequantized weight is rounded to half before the matmul, as the graph does.
    auto weight = [&](int64_t k, int64_t n, bool swapped_nibbles) {
        int64_t e = bb.offset({0, k, n});
        if (swapped_nibbles) e ^= 1;  // the other nibble order, to say which one cuDNN reads
        double w = bb.host[static_cast<size_t>(e)];
        if (p.scaling == Scaling::per_column) w *= bs->at({0, 0, n});
        if (p.scaling == Scaling::per_group) w *= bs->at({0, k / p.group, n});
        return static_cast<double>(round_to(FE_DATA_HALF, static_cast<float>(w)));
    };
    auto product = [&](bool swapped_nibbles) {
        std::vector<double> want(static_cast<size_t>(M * N), 0.0);
        for (int64_t m = 0; m < M; ++m)
            for (int64_t k = 0; k < K; ++k) {
                double av = ba.at({0, m, k});
                for (int64_t n = 0; n < N; ++n) want[static_cast<size_t>(m * N + n)] += av * weight(k, n, swapped_nibbles);
            }
        return want;
    };
    Comparison swapped = compare(bc, product(true), 0.05, 2e-2);
    std::printf("    against the other nibble order: relative norm %.3g\n", swapped.relative_norm);
    expect_close(bc, product(false), 0.05, 2e-2, 5e-3);
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, Int4Matmul,
    ::testing::Values(Int4Case{"int4_as_is", FE_DATA_INT4, Scaling::none, FE_DATA_HALF},
                      Int4Case{"int4_half_scale_per_column", FE_DATA_INT4, Scaling::per_column, FE_DATA_HALF},
                      Int4Case{"int4_float_scale_per_group_32", FE_DATA_INT4, Scaling::per_group, FE_DATA_FLOAT, 32},
                      Int4Case{"uint4_half_scale_per_group_128", FE_DATA_UINT4, Scaling::per_group, FE_DATA_HALF,
                               128},
                      Int4Case{"uint4_float_scale_per_group_32", FE_DATA_UINT4, Scaling::per_group, FE_DATA_FLOAT, 32},
                      Int4Case{"int4_half_scale_per_group_128", FE_DATA_INT4, Scaling::per_group, FE_DATA_HALF, 128},
                      Int4Case{"int4_float_scale_per_group_128", FE_DATA_INT4, Scaling::per_group, FE_DATA_FLOAT, 128},
                      Int4Case{"int4_half_scale_per_group_32", FE_DATA_INT4, Scaling::per_group, FE_DATA_HALF, 32},
                      Int4Case{"uint4_as_is", FE_DATA_UINT4, Scaling::none, FE_DATA_HALF}),
    [](const ::testing::TestParamInfo<Int4Case> &info) { return info.param.name; });

}  // namespace
