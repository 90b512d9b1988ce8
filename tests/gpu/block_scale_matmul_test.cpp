// Block-scaled matmuls (general block scaling): A dequantized with one scale per 1 x 128 block,
// B with one per 128 x 128 block (DeepSeek-style FP8 GEMM operands), then multiplied, in one
// graph; against double products of the stored values times their blocks' scales.
#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

struct BlockScaledCase {
    const char *name;
    fe_data_type operands;     // A and B as stored
    fe_data_type dequantized;  // the dequantized operands and C
};

class BlockScaledMatmul : public Gpu, public ::testing::WithParamInterface<BlockScaledCase> {};

TEST_P(BlockScaledMatmul, MatchesTheScaledProduct) {
    const BlockScaledCase &p = GetParam();
    const int64_t M = 256, K = 512, N = 256;
    fe_graph *g = graph(p.name, p.dequantized);
    fe_tensor *a = tensor(g, "a", {1, M, K}, false, p.operands), *b = tensor(g, "b", {1, K, N}, false, p.operands);
    fe_tensor *sa = tensor(g, "scale_a", {1, M, K / 128}, false, FE_DATA_FLOAT);
    fe_tensor *sb = tensor(g, "scale_b", {1, K / 128, N / 128}, false, FE_DATA_FLOAT);
    fe_block_scale_options oa = FE_BLOCK_SCALE_OPTIONS_INIT, ob = FE_BLOCK_SCALE_OPTIONS_INIT;
    oa.block_size = 128;
    ob.block_rows = 128;
    ob.block_size = 128;
    fe_tensor *da = nullptr, *db = nullptr, *c = nullptr;
    ASSERT_FE_OK(fe_graph_block_scale_dequantize(g, a, sa, &oa, &da));
    ASSERT_FE_OK(fe_graph_block_scale_dequantize(g, b, sb, &ob, &db));
    ASSERT_FE_OK(fe_tensor_set_data_type(da, p.dequantized));
    ASSERT_FE_OK(fe_tensor_set_data_type(db, p.dequantized));
    ASSERT_FE_OK(fe_graph_matmul(g, da, db, nullptr, &c));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    ASSERT_FE_OK(fe_tensor_set_data_type(c, p.dequantized));
    build(g);
    std::printf("    plan %s\n", engine_tag_of(g));
    Bound &ba = bind(a, true), &bb = bind(b, true), &bsa = bind(sa, true, 0.25f, 2.f), &bsb = bind(sb, true, 0.25f, 2.f);
    Bound &bc = bind(c, false);
    execute(g, {&ba, &bb, &bsa, &bsb, &bc});
    download(bc);

    std::vector<double> want(static_cast<size_t>(M * N), 0.0);
    for (int64_t m = 0; m < M; ++m)
        for (int64_t k = 0; k < K; ++k) {
            double av = static_cast<double>(ba.at({0, m, k})) * bsa.at({0, m, k / 128});
            for (int64_t n = 0; n < N; ++n)
                want[static_cast<size_t>(m * N + n)] += av * bb.at({0, k, n}) * bsb.at({0, k / 128, n / 128});
        }
    // The dequantized operands are rounded to the graph's type before the matmul.
    double tolerance = p.dequantized == FE_DATA_HALF ? 5e-3 : 1.5e-2;
    expect_close(bc, want, 0.1, 2e-2, tolerance);
}

INSTANTIATE_TEST_SUITE_P(Gpu, BlockScaledMatmul,
                         ::testing::Values(BlockScaledCase{"half_operands", FE_DATA_HALF, FE_DATA_HALF},
                                           BlockScaledCase{"fp8_operands_to_bfloat16", FE_DATA_FP8_E4M3,
                                                           FE_DATA_BFLOAT16}),
                         [](const ::testing::TestParamInfo<BlockScaledCase> &info) { return info.param.name; });

}  // namespace
