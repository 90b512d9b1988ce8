// fe_graph_rng, fe_graph_matmul_fp8 and block scaling without cuDNN: inference and the message
// of each failure.
#include <string>
#include <vector>

#include "test_support.hpp"


namespace {

class RngRules : public cudnnfe_test::GraphTest {
  protected:
    RngRules() : GraphTest("rng", FE_DATA_HALF) {}
    void declare_inputs() override {
        seed = cudnnfe_test::make_tensor(g, "seed", {1}, false, FE_DATA_INT64);
        offset = cudnnfe_test::make_tensor(g, "offset", {1}, false, FE_DATA_INT64);
        opts.ndims = 3;
        opts.dims[0] = 2;
        opts.dims[1] = 64;
        opts.dims[2] = 128;
    }
    fe_tensor *seed = nullptr, *offset = nullptr, *y = nullptr;
    fe_rng_options opts = FE_RNG_OPTIONS_INIT;
};

TEST_F(RngRules, EachDistributionInfersItsDimsAndType) {
    opts.data_type = FE_DATA_FLOAT;
    ASSERT_FE_OK(fe_graph_rng(g, seed, offset, &opts, &y));
    EXPECT_EQ(dims(y), (std::vector<int64_t>{2, 64, 128}));
    EXPECT_STREQ(name_of(y), "rng_0::Y");
    fe_data_type t = FE_DATA_NOT_SET;
    ASSERT_FE_OK(fe_tensor_get_data_type(y, &t));
    EXPECT_EQ(t, FE_DATA_FLOAT);
    opts.distribution = FE_RNG_UNIFORM;
    opts.min = -1.0;
    opts.max = 1.0;
    ASSERT_FE_OK(fe_graph_rng(g, seed, offset, &opts, &y));
    opts.distribution = FE_RNG_NORMAL;
    opts.mean = 0.5;
    opts.std = 2.0;
    ASSERT_FE_OK(fe_graph_rng(g, seed, offset, &opts, &y));
    EXPECT_STREQ(name_of(y), "rng_2::Y");
}

TEST_F(RngRules, ScalarSeedAndOffsetAreAccepted) {
    fe_tensor *s = nullptr, *o = nullptr;
    ASSERT_FE_OK(fe_graph_scalar(g, "s", 1234, FE_DATA_INT64, &s));
    ASSERT_FE_OK(fe_graph_scalar(g, "o", 0, FE_DATA_INT64, &o));
    ASSERT_FE_OK(fe_graph_rng(g, s, o, &opts, &y));
}

TEST_F(RngRules, BadProbabilityIsRefused) {
    for (double p : {-0.1, 1.5}) {
        opts.probability = p;
        EXPECT_FE_REFUSED(fe_graph_rng(g, seed, offset, &opts, &y), FE_STATUS_INVALID_ARGUMENT, "fe_graph_rng");
        EXPECT_TRUE(LastErrorContains("probability"));
    }
}

TEST_F(RngRules, UniformMinMustBeBelowMax) {
    opts.distribution = FE_RNG_UNIFORM;
    opts.min = 2.0;
    opts.max = 2.0;
    EXPECT_FE_REFUSED(fe_graph_rng(g, seed, offset, &opts, &y), FE_STATUS_INVALID_ARGUMENT, "min 2 is not below max 2");
}

TEST_F(RngRules, NormalStdMustBePositive) {
    opts.distribution = FE_RNG_NORMAL;
    for (double s : {0.0, -1.0}) {
        opts.std = s;
        EXPECT_FE_REFUSED(fe_graph_rng(g, seed, offset, &opts, &y), FE_STATUS_INVALID_ARGUMENT,
                          "standard deviation must be positive");
    }
}

TEST_F(RngRules, UnknownDistributionIsRefused) {
    opts.distribution = static_cast<fe_rng_distribution>(7);
    EXPECT_FE_REFUSED(fe_graph_rng(g, seed, offset, &opts, &y), FE_STATUS_INVALID_ARGUMENT, "options.distribution is 7, not an fe_rng_distribution");
}

TEST_F(RngRules, MissingSeedOffsetOrOptionsIsRefused) {
    EXPECT_FE_REFUSED(fe_graph_rng(g, nullptr, offset, &opts, &y), FE_STATUS_NULL_POINTER, "'seed' is NULL");
    EXPECT_FE_REFUSED(fe_graph_rng(g, seed, nullptr, &opts, &y), FE_STATUS_NULL_POINTER, "'offset' is NULL");
    EXPECT_FE_REFUSED(fe_graph_rng(g, seed, offset, nullptr, &y), FE_STATUS_NULL_POINTER, "'options' is NULL");
    EXPECT_FE_STATUS(fe_graph_rng(g, seed, offset, &opts, nullptr), FE_STATUS_NULL_POINTER);
    // A failed call uses no automatic name.
    ASSERT_FE_OK(fe_graph_rng(g, seed, offset, &opts, &y));
    EXPECT_STREQ(name_of(y), "rng_0::Y");
}

TEST_F(RngRules, SeedMustBeOneInt64Element) {
    fe_tensor *wide = cudnnfe_test::make_tensor(g, "wide", {2}, false, FE_DATA_INT64);
    EXPECT_FE_REFUSED(fe_graph_rng(g, wide, offset, &opts, &y), FE_STATUS_INVALID_ARGUMENT,
                      "seed 'wide' must be one int64 element");
    fe_tensor *f = cudnnfe_test::make_tensor(g, "f", {1}, false, FE_DATA_FLOAT);
    EXPECT_FE_REFUSED(fe_graph_rng(g, seed, f, &opts, &y), FE_STATUS_INVALID_ARGUMENT,
                      "offset 'f' must be one int64 element");
}

TEST_F(RngRules, BadDimsAreRefused) {
    opts.ndims = 0;
    EXPECT_FE_REFUSED(fe_graph_rng(g, seed, offset, &opts, &y), FE_STATUS_INVALID_ARGUMENT, "ndims is 0");
    opts.ndims = 9;
    EXPECT_FE_STATUS(fe_graph_rng(g, seed, offset, &opts, &y), FE_STATUS_INVALID_ARGUMENT);
    opts.ndims = 3;
    opts.dims[1] = 0;
    EXPECT_FE_REFUSED(fe_graph_rng(g, seed, offset, &opts, &y), FE_STATUS_INVALID_ARGUMENT, "dims[1] is 0");
}

class MatmulFp8Rules : public cudnnfe_test::GraphTest {
  protected:
    MatmulFp8Rules() : GraphTest("fp8", FE_DATA_HALF) {}
    void declare_inputs() override {
        a = cudnnfe_test::make_tensor(g, "a", {4, 128, 64}, false, FE_DATA_FP8_E4M3);
        b = cudnnfe_test::make_tensor(g, "b", {4, 64, 256}, false, FE_DATA_FP8_E4M3);
        ASSERT_FE_OK(fe_graph_scalar(g, "da", 0.5, FE_DATA_FLOAT, &scales.descale_a));
        ASSERT_FE_OK(fe_graph_scalar(g, "db", 0.25, FE_DATA_FLOAT, &scales.descale_b));
        scales.scale_c = cudnnfe_test::make_tensor(g, "sc", {1}, false, FE_DATA_FLOAT);
    }
    fe_tensor *a = nullptr, *b = nullptr, *c = nullptr, *amax = nullptr;
    fe_matmul_fp8_scales scales = FE_MATMUL_FP8_SCALES_INIT;
};

TEST_F(MatmulFp8Rules, InfersCAndAmax) {
    ASSERT_FE_OK(fe_graph_matmul_fp8(g, a, b, &scales, nullptr, &c, &amax));
    EXPECT_EQ(dims(c), (std::vector<int64_t>{4, 128, 256}));
    EXPECT_EQ(dims(amax), (std::vector<int64_t>{1, 1, 1}));
    EXPECT_STREQ(name_of(c), "matmul_fp8_0::C");
    EXPECT_STREQ(name_of(amax), "matmul_fp8_0::Amax");
    EXPECT_EQ(type(c), FE_DATA_FP8_E4M3);
    EXPECT_EQ(type(amax), FE_DATA_FLOAT);
    ASSERT_FE_OK(fe_tensor_set_data_type(c, FE_DATA_BFLOAT16));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    ASSERT_FE_OK(fe_tensor_set_output(amax, 1));
    EXPECT_FE_OK(fe_graph_validate(g));
}

// Fast accumulation is an FP8 matmul's option: taken by it (and written in its graph JSON only
// when set), refused on a plain matmul, which would ignore it.
TEST_F(MatmulFp8Rules, FastAccumulationIsAnFp8MatmulsOption) {
    fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
    o.fast_accumulate = 1;
    ASSERT_FE_OK(fe_graph_matmul_fp8(g, a, b, &scales, &o, &c, &amax));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    ASSERT_FE_OK(fe_tensor_set_output(amax, 1));
    const std::string json = graph_text(fe_graph_to_json, g);
    EXPECT_NE(json.find("\"fast_accumulate\":true"), std::string::npos) << json;
    fe_tensor *plain = nullptr;
    EXPECT_FE_REFUSED(fe_graph_matmul(g, cudnnfe_test::make_tensor(g, "x", {4, 128, 64}, false, FE_DATA_HALF),
                                      cudnnfe_test::make_tensor(g, "w", {4, 64, 256}, false, FE_DATA_HALF), &o, &plain),
                      FE_STATUS_INVALID_ARGUMENT, "options.fast_accumulate is not taken by matmul");
}

TEST_F(MatmulFp8Rules, MissingArgumentsAreRefused) {
    EXPECT_FE_REFUSED(fe_graph_matmul_fp8(g, a, b, nullptr, nullptr, &c, &amax), FE_STATUS_NULL_POINTER,
                      "fe_graph_matmul_fp8");
    EXPECT_TRUE(LastErrorContains("'scales' is NULL"));
    EXPECT_FE_REFUSED(fe_graph_matmul_fp8(g, a, b, &scales, nullptr, &c, nullptr), FE_STATUS_NULL_POINTER,
                      "'out_amax' is NULL");
    for (fe_tensor **missing : {&scales.descale_a, &scales.descale_b, &scales.scale_c}) {
        fe_tensor *kept = *missing;
        *missing = nullptr;
        EXPECT_FE_REFUSED(fe_graph_matmul_fp8(g, a, b, &scales, nullptr, &c, &amax), FE_STATUS_NULL_POINTER,
                          "scales->");
        *missing = kept;
    }
    ASSERT_FE_OK(fe_graph_matmul_fp8(g, a, b, &scales, nullptr, &c, &amax));
    EXPECT_STREQ(name_of(c), "matmul_fp8_0::C");
}

TEST_F(MatmulFp8Rules, ShapesMustAgree) {
    fe_tensor *b_bad = cudnnfe_test::make_tensor(g, "b_bad", {4, 32, 256}, false, FE_DATA_FP8_E4M3);
    EXPECT_FE_REFUSED(fe_graph_matmul_fp8(g, a, b_bad, &scales, nullptr, &c, &amax), FE_STATUS_INVALID_ARGUMENT,
                      "K=64");
    fe_tensor *b_rank = cudnnfe_test::make_tensor(g, "b_rank", {64, 256}, false, FE_DATA_FP8_E4M3);
    EXPECT_FE_REFUSED(fe_graph_matmul_fp8(g, a, b_rank, &scales, nullptr, &c, &amax), FE_STATUS_INVALID_ARGUMENT,
                      "must match");
    fe_tensor *b_batch = cudnnfe_test::make_tensor(g, "b_batch", {3, 64, 256}, false, FE_DATA_FP8_E4M3);
    EXPECT_FE_REFUSED(fe_graph_matmul_fp8(g, a, b_batch, &scales, nullptr, &c, &amax), FE_STATUS_INVALID_ARGUMENT,
                      "batch dim 0");
}

TEST_F(MatmulFp8Rules, ScalesMustBeOneFloatElement) {
    scales.descale_b = cudnnfe_test::make_tensor(g, "wide", {2}, false, FE_DATA_FLOAT);
    EXPECT_FE_REFUSED(fe_graph_matmul_fp8(g, a, b, &scales, nullptr, &c, &amax), FE_STATUS_INVALID_ARGUMENT,
                      "descale_b 'wide' must hold one element, not 2");
    scales.descale_b = cudnnfe_test::make_tensor(g, "half_scale", {1}, false, FE_DATA_HALF);
    EXPECT_FE_REFUSED(fe_graph_matmul_fp8(g, a, b, &scales, nullptr, &c, &amax), FE_STATUS_INVALID_ARGUMENT,
                      "descale_b 'half_scale' must be one float element");
}

class BlockScaleRules : public cudnnfe_test::GraphTest {
  protected:
    BlockScaleRules() : GraphTest("mx", FE_DATA_BFLOAT16) {}
    void declare_inputs() override {
        x = cudnnfe_test::make_tensor(g, "x", {2, 128, 256}, false, FE_DATA_BFLOAT16);
    }
    fe_tensor *x = nullptr, *y = nullptr, *scale = nullptr;
};

TEST_F(BlockScaleRules, QuantizeInfersValuesAndScales) {
    ASSERT_FE_OK(fe_graph_block_scale_quantize(g, x, nullptr, &y, &scale));
    EXPECT_EQ(dims(y), (std::vector<int64_t>{2, 128, 256}));
    EXPECT_EQ(dims(scale), (std::vector<int64_t>{2, 128, 8}));
    EXPECT_EQ(type(y), FE_DATA_FP8_E4M3);
    EXPECT_EQ(type(scale), FE_DATA_FP8_E8M0);
    EXPECT_STREQ(name_of(scale), "block_scale_quantize_0::Scale");
    fe_block_scale_options o = FE_BLOCK_SCALE_OPTIONS_INIT;
    o.block_size = 16;
    ASSERT_FE_OK(fe_graph_block_scale_quantize(g, x, &o, &y, &scale));
    EXPECT_EQ(dims(scale), (std::vector<int64_t>{2, 128, 16}));
}

TEST_F(BlockScaleRules, QuantizeRefusesABadBlockSize) {
    fe_block_scale_options o = FE_BLOCK_SCALE_OPTIONS_INIT;
    o.block_size = 0;
    EXPECT_FE_REFUSED(fe_graph_block_scale_quantize(g, x, &o, &y, &scale), FE_STATUS_INVALID_ARGUMENT,
                      "block_size is 0");
    o.block_size = 24;
    EXPECT_FE_REFUSED(fe_graph_block_scale_quantize(g, x, &o, &y, &scale), FE_STATUS_INVALID_ARGUMENT,
                      "not a multiple of block_size 24");
    EXPECT_FE_REFUSED(fe_graph_block_scale_quantize(g, x, nullptr, &y, nullptr), FE_STATUS_NULL_POINTER,
                      "fe_graph_block_scale_quantize");
}

TEST_F(BlockScaleRules, DequantizeChecksTheScaleDims) {
    fe_tensor *q = cudnnfe_test::make_tensor(g, "q", {2, 128, 256}, false, FE_DATA_FP8_E4M3);
    fe_tensor *s = cudnnfe_test::make_tensor(g, "s", {2, 128, 8}, false, FE_DATA_FP8_E8M0);
    ASSERT_FE_OK(fe_graph_block_scale_dequantize(g, q, s, nullptr, &y));
    EXPECT_EQ(dims(y), (std::vector<int64_t>{2, 128, 256}));
    fe_tensor *wrong = cudnnfe_test::make_tensor(g, "wrong", {2, 128, 16}, false, FE_DATA_FP8_E8M0);
    EXPECT_FE_REFUSED(fe_graph_block_scale_dequantize(g, q, wrong, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "it must be [2,128,8]");
    EXPECT_FE_REFUSED(fe_graph_block_scale_dequantize(g, q, nullptr, nullptr, &y), FE_STATUS_NULL_POINTER,
                      "'scale' is NULL");
}

// General block scaling: 2-D blocks of the last two dims (rounded up at the edges) with float,
// half or bfloat16 scales; MXFP8's fp8_e8m0 scales stay one row per block; quantize takes no rows.
TEST_F(BlockScaleRules, GeneralBlocksCoverTheLastTwoDims) {
    fe_tensor *b = cudnnfe_test::make_tensor(g, "b", {2, 512, 300}, false, FE_DATA_FP8_E4M3);
    fe_block_scale_options o = FE_BLOCK_SCALE_OPTIONS_INIT;
    o.block_rows = 128;
    o.block_size = 128;
    fe_tensor *s = cudnnfe_test::make_tensor(g, "s", {2, 4, 3}, false, FE_DATA_FLOAT);
    ASSERT_FE_OK(fe_graph_block_scale_dequantize(g, b, s, &o, &y));
    EXPECT_EQ(dims(y), (std::vector<int64_t>{2, 512, 300}));
    fe_tensor *rows = cudnnfe_test::make_tensor(g, "rows", {2, 512, 3}, false, FE_DATA_HALF);
    EXPECT_FE_STATUS(fe_graph_block_scale_dequantize(g, b, rows, &o, &y), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("for X [2,512,300] and 128 x 128 blocks it must be [2,4,3]")) << fe_last_error_message();
    fe_tensor *e8 = cudnnfe_test::make_tensor(g, "e8", {2, 4, 3}, false, FE_DATA_FP8_E8M0);
    EXPECT_FE_STATUS(fe_graph_block_scale_dequantize(g, b, e8, &o, &y), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("MXFP8 scales (fp8_e8m0) cover one row each")) << fe_last_error_message();
    o.block_rows = 0;
    EXPECT_FE_REFUSED(fe_graph_block_scale_dequantize(g, b, s, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "options.block_rows is 0; it must be 1 to 2147483647");
    o.block_rows = 2;
    EXPECT_FE_STATUS(fe_graph_block_scale_quantize(g, x, &o, &y, &scale), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("options.block_rows is not taken by block_scale_quantize")) << fe_last_error_message();
}

}  // namespace
