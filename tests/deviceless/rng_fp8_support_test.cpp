// Random draws and FP8 matmuls for the H100 description: which forms cuDNN 9.19 takes.
#include <functional>

#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

class RngSupport : public Deviceless {
  protected:
    // y = x * draw, the draw [4, 256, 1024] of the given distribution.
    fe_graph *masked(const char *name, fe_rng_distribution distribution, bool with_consumer) {
        fe_graph *g = graph(name, FE_DATA_HALF);
        fe_tensor *seed = tensor(g, "seed", {1, 1, 1}, false, FE_DATA_INT64);
        fe_tensor *offset = tensor(g, "offset", {1, 1, 1}, false, FE_DATA_INT64);
        fe_rng_options o = FE_RNG_OPTIONS_INIT;
        o.distribution = distribution;
        o.probability = 0.9;
        o.ndims = 3;
        o.dims[0] = 4;
        o.dims[1] = 256;
        o.dims[2] = 1024;
        o.data_type = FE_DATA_FLOAT;
        fe_tensor *draw = nullptr;
        EXPECT_FE_OK(fe_graph_rng(g, seed, offset, &o, &draw));
        if (!with_consumer) {
            EXPECT_FE_OK(fe_tensor_set_output(draw, 1));
            return g;
        }
        fe_tensor *x = tensor(g, "x", {4, 256, 1024}), *y = nullptr;
        EXPECT_FE_OK(fe_graph_mul(g, x, draw, nullptr, &y));
        EXPECT_FE_OK(fe_tensor_set_output(y, 1));
        return g;
    }
};

// cuDNN 9.19 has no engine for a graph-level draw on the H100: the lowering is accepted by
// cuDNN (descriptors finalize), heuristics return nothing, and the message names the cause.
TEST_F(RngSupport, DrawTimesInputHasNoEngineAndSaysWhy) {
    for (fe_rng_distribution d : {FE_RNG_BERNOULLI, FE_RNG_UNIFORM, FE_RNG_NORMAL}) {
        fe_graph *g = masked("rng_mul", d, true);
        EXPECT_FE_REFUSED(support_status(g), FE_STATUS_NOT_SUPPORTED, "no engine for a graph-level random draw");
        EXPECT_TRUE(LastErrorContains("dropout_probability"));
    }
}

TEST_F(RngSupport, StandaloneDrawHasNoEngineAndSaysWhy) {
    fe_graph *g = masked("rng_alone", FE_RNG_BERNOULLI, false);
    EXPECT_FE_REFUSED(support_status(g), FE_STATUS_NOT_SUPPORTED, "rng 'rng_0'");
    EXPECT_TRUE(LastErrorContains("no engine for a graph-level random draw"));
}

TEST_F(RngSupport, MatmulTimesDrawHasNoEngineAndSaysWhy) {
    fe_graph *g = graph("rng_matmul", FE_DATA_HALF);
    fe_tensor *seed = nullptr, *offset = nullptr;
    ASSERT_FE_OK(fe_graph_scalar(g, "seed", 7, FE_DATA_INT64, &seed));
    ASSERT_FE_OK(fe_graph_scalar(g, "offset", 0, FE_DATA_INT64, &offset));
    fe_rng_options o = FE_RNG_OPTIONS_INIT;
    o.ndims = 4;
    o.dims[0] = 1;
    o.dims[1] = 4;
    o.dims[2] = 128;
    o.dims[3] = 128;
    o.data_type = FE_DATA_FLOAT;
    fe_tensor *draw = nullptr, *c = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_rng(g, seed, offset, &o, &draw));
    fe_tensor *a = tensor(g, "a", {1, 4, 128, 64}), *b = tensor(g, "b", {1, 4, 64, 128});
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
    ASSERT_FE_OK(fe_graph_mul(g, c, draw, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    EXPECT_FE_REFUSED(support_status(g), FE_STATUS_NOT_SUPPORTED, "no engine for a graph-level random draw");
}

// C = (A.B) * descale_a * descale_b * scale_c with amax, A [4, 256, 128] row-major and B
// [4, 128, 512] with K contiguous (column-major, the layout of Hopper's FP8 GEMMs) or row-major.
class MatmulFp8Support : public Deviceless {
  protected:
    fe_graph *fp8_graph(const char *name, fe_data_type ab, fe_data_type c_type, bool b_column_major,
                        fe_tensor **c_out = nullptr) {
        fe_graph *g = graph(name, FE_DATA_HALF);
        fe_tensor *a = tensor(g, "a", {4, 256, 128}, false, ab);
        int64_t b_dims[3] = {4, 128, 512}, b_strides[3] = {128 * 512, 1, 128};
        fe_tensor *b = nullptr;
        EXPECT_FE_OK(fe_graph_tensor(g, "b", 3, b_dims, b_column_major ? b_strides : nullptr, ab, &b));
        fe_matmul_fp8_scales s = FE_MATMUL_FP8_SCALES_INIT;
        s.descale_a = tensor(g, "descale_a", {1, 1, 1}, false, FE_DATA_FLOAT);
        s.descale_b = tensor(g, "descale_b", {1, 1, 1}, false, FE_DATA_FLOAT);
        s.scale_c = tensor(g, "scale_c", {1, 1, 1}, false, FE_DATA_FLOAT);
        fe_tensor *c = nullptr, *amax = nullptr;
        EXPECT_FE_OK(fe_graph_matmul_fp8(g, a, b, &s, nullptr, &c, &amax));
        if (c_type != FE_DATA_NOT_SET) {
            EXPECT_FE_OK(fe_tensor_set_data_type(c, c_type));
        }
        EXPECT_FE_OK(fe_tensor_set_output(c, 1));
        EXPECT_FE_OK(fe_tensor_set_output(amax, 1));
        if (c_out) *c_out = c;
        return g;
    }
};

TEST_F(MatmulFp8Support, E4m3ToE4m3WithAmaxIsSupported) {
    fe_graph *g = fp8_graph("fp8_e4m3", FE_DATA_FP8_E4M3, FE_DATA_NOT_SET, true);
    expect_supported(g);
    EXPECT_NE(describe(g).find("cuDNN: 5 operation(s)"), std::string::npos) << describe(g);
}

// FAST_FLOAT_FOR_FP8 math for the product: heuristics list engines for it, and the graph says so.
TEST_F(MatmulFp8Support, FastAccumulationIsSupported) {
    fe_graph *g = graph("fp8_fast", FE_DATA_HALF);
    const int64_t a_dims[3] = {4, 256, 128}, b_dims[3] = {4, 128, 512}, b_strides[3] = {128 * 512, 1, 128};
    fe_tensor *a = nullptr, *b = nullptr, *c = nullptr, *amax = nullptr;
    ASSERT_FE_OK(fe_graph_tensor(g, "a", 3, a_dims, nullptr, FE_DATA_FP8_E4M3, &a));
    ASSERT_FE_OK(fe_graph_tensor(g, "b", 3, b_dims, b_strides, FE_DATA_FP8_E4M3, &b));
    fe_matmul_fp8_scales s = FE_MATMUL_FP8_SCALES_INIT;
    s.descale_a = tensor(g, "descale_a", {1, 1, 1}, false, FE_DATA_FLOAT);
    s.descale_b = tensor(g, "descale_b", {1, 1, 1}, false, FE_DATA_FLOAT);
    s.scale_c = tensor(g, "scale_c", {1, 1, 1}, false, FE_DATA_FLOAT);
    fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
    o.fast_accumulate = 1;
    ASSERT_FE_OK(fe_graph_matmul_fp8(g, a, b, &s, &o, &c, &amax));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    ASSERT_FE_OK(fe_tensor_set_output(amax, 1));
    expect_supported(g);
    EXPECT_NE(describe(g).find("fast_accumulate"), std::string::npos) << describe(g);
}

TEST_F(MatmulFp8Support, E4m3ToBfloat16IsSupported) {
    expect_supported(fp8_graph("fp8_bf16", FE_DATA_FP8_E4M3, FE_DATA_BFLOAT16, true));
}

TEST_F(MatmulFp8Support, E4m3ToHalfIsSupported) {
    expect_supported(fp8_graph("fp8_half", FE_DATA_FP8_E4M3, FE_DATA_HALF, true));
}

TEST_F(MatmulFp8Support, E5m2IsSupported) {
    expect_supported(fp8_graph("fp8_e5m2", FE_DATA_FP8_E5M2, FE_DATA_NOT_SET, true));
}

TEST_F(MatmulFp8Support, RowMajorBIsSupported) {
    expect_supported(fp8_graph("fp8_row_major_b", FE_DATA_FP8_E4M3, FE_DATA_NOT_SET, false));
}

// The same graph for an Ampere (the H100 description with deviceVer 800): the capability table
// refuses FP8 before cuDNN sees it, naming the generations.
TEST_F(MatmulFp8Support, AnAmpereTargetIsRefusedByGeneration) {
    std::string ampere = json_;
    size_t at = ampere.find("\"deviceVer\":900");
    ASSERT_NE(at, std::string::npos);
    ampere.replace(at, 15, "\"deviceVer\":800");
    fe_graph *g = fp8_graph("fp8_on_ampere", FE_DATA_FP8_E4M3, FE_DATA_NOT_SET, true);
    EXPECT_FE_REFUSED(support_status(g, ampere), FE_STATUS_NOT_SUPPORTED,
                      "FP8 matmuls needs a Hopper (sm90) or later GPU; the target is Ampere (sm80)");
}

TEST_F(MatmulFp8Support, NonFp8OperandsAreRefusedAtLowering) {
    fe_graph *g = fp8_graph("fp8_half_inputs", FE_DATA_HALF, FE_DATA_NOT_SET, true);
    EXPECT_FE_REFUSED(support_status(g), FE_STATUS_NOT_SUPPORTED, "fp8_e4m3 or fp8_e5m2 A and B; A 'a' is half");
}

// x dequantized with `scale` in blocks of `block_rows` x `block_size`, its result written as half;
// nullptr, with a failure, when a call is refused.
fe_tensor *dequantized_to_half(fe_graph *g, fe_tensor *x, fe_tensor *scale, int32_t block_rows, int32_t block_size) {
    fe_block_scale_options o = FE_BLOCK_SCALE_OPTIONS_INIT;
    o.block_rows = block_rows;
    o.block_size = block_size;
    fe_tensor *y = nullptr;
    if (fe_graph_block_scale_dequantize(g, x, scale, &o, &y) != FE_OK ||
        fe_tensor_set_data_type(y, FE_DATA_HALF) != FE_OK) {
        ADD_FAILURE() << fe_last_error_message();
        return nullptr;
    }
    return y;
}

// MXFP8 block scaling on the H100 description: cuDNN's block-scale engines target Blackwell, so
// the capability table refuses it when lowering for a Hopper, saying which GPUs run it.
const char *const kBlockScalingNeedsBlackwell =
    "MXFP8 block scaling needs a Blackwell (sm100) or later GPU; the target is Hopper (sm90)";

TEST_F(Deviceless, BlockScaleQuantizeOnHopperSaysWhy) {
    fe_graph *g = graph("mxfp8_quantize", FE_DATA_BFLOAT16);
    fe_tensor *x = tensor(g, "x", {1, 1, 256, 512}), *y = nullptr, *scale = nullptr;
    ASSERT_FE_OK(fe_graph_block_scale_quantize(g, x, nullptr, &y, &scale));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    ASSERT_FE_OK(fe_tensor_set_output(scale, 1));
    EXPECT_FE_REFUSED(support_status(g), FE_STATUS_NOT_SUPPORTED, kBlockScalingNeedsBlackwell);
}

TEST_F(Deviceless, BlockScaleDequantizeOnHopperSaysWhy) {
    fe_graph *g = graph("mxfp8_dequantize", FE_DATA_BFLOAT16);
    fe_tensor *x = tensor(g, "x", {1, 256, 512}, false, FE_DATA_FP8_E4M3);
    fe_tensor *scale = tensor(g, "scale", {1, 256, 16}, false, FE_DATA_FP8_E8M0), *y = nullptr;
    ASSERT_FE_OK(fe_graph_block_scale_dequantize(g, x, scale, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    EXPECT_FE_REFUSED(support_status(g), FE_STATUS_NOT_SUPPORTED, kBlockScalingNeedsBlackwell);
}

TEST_F(Deviceless, BlockScaleQuantizeOfRankThreeSaysWhy) {
    fe_graph *g = graph("mxfp8_quantize_rank3", FE_DATA_BFLOAT16);
    fe_tensor *x = tensor(g, "x", {2, 256, 512}), *y = nullptr, *scale = nullptr;
    ASSERT_FE_OK(fe_graph_block_scale_quantize(g, x, nullptr, &y, &scale));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    ASSERT_FE_OK(fe_tensor_set_output(scale, 1));
    EXPECT_FE_REFUSED(support_status(g), FE_STATUS_NOT_SUPPORTED, "give X as rank 4 (e.g. [1, 2, 256, 512])");
}

// General block scaling on Hopper: a block-scaled matmul (A with 1 x 128 blocks, B with
// 128 x 128 blocks, float scales, dequantized to the given type) is supported on the H100.
fe_graph *block_scaled_matmul(fe_graph *g, fe_data_type operands, fe_data_type dequantized,
                              const std::function<fe_tensor *(const char *, std::vector<int64_t>, fe_data_type)> &make) {
    fe_tensor *a = make("a", {1, 256, 512}, operands), *b = make("b", {1, 512, 256}, operands);
    fe_tensor *sa = make("scale_a", {1, 256, 4}, FE_DATA_FLOAT), *sb = make("scale_b", {1, 4, 2}, FE_DATA_FLOAT);
    fe_block_scale_options oa = FE_BLOCK_SCALE_OPTIONS_INIT, ob = FE_BLOCK_SCALE_OPTIONS_INIT;
    oa.block_size = 128;
    ob.block_rows = 128;
    ob.block_size = 128;
    fe_tensor *da = nullptr, *db = nullptr, *c = nullptr;
    EXPECT_FE_OK(fe_graph_block_scale_dequantize(g, a, sa, &oa, &da));
    EXPECT_FE_OK(fe_graph_block_scale_dequantize(g, b, sb, &ob, &db));
    EXPECT_FE_OK(fe_tensor_set_data_type(da, dequantized));
    EXPECT_FE_OK(fe_tensor_set_data_type(db, dequantized));
    EXPECT_FE_OK(fe_graph_matmul(g, da, db, nullptr, &c));
    EXPECT_FE_OK(fe_tensor_set_output(c, 1));
    EXPECT_FE_OK(fe_tensor_set_data_type(c, dequantized));
    return g;
}

TEST_F(Deviceless, BlockScaledMatmulOfHalfOperands) {
    fe_graph *g = graph("block_scaled_half", FE_DATA_HALF);
    block_scaled_matmul(g, FE_DATA_HALF, FE_DATA_HALF, [&](const char *n, std::vector<int64_t> d, fe_data_type t) {
        return tensor(g, n, d, false, t);
    });
    expect_supported(g);
}

TEST_F(Deviceless, BlockScaledMatmulOfFp8Operands) {
    fe_graph *g = graph("block_scaled_fp8", FE_DATA_BFLOAT16);
    block_scaled_matmul(g, FE_DATA_FP8_E4M3, FE_DATA_BFLOAT16,
                        [&](const char *n, std::vector<int64_t> d, fe_data_type t) { return tensor(g, n, d, false, t); });
    expect_supported(g);
}

// B dequantized in blocks of one row has no engine on cuDNN 9.19; the refusal says so, and B in
// blocks of 16 rows is supported.
TEST_F(Deviceless, BlockScaledMatmulWithBInOneRowBlocksSaysWhy) {
    for (int32_t rows : {1, 16}) {
        SCOPED_TRACE(rows);
        fe_graph *g = graph(rows == 1 ? "b_row_blocks" : "b_16_row_blocks", FE_DATA_HALF);
        fe_tensor *a = tensor(g, "a", {1, 40, 128}, false), *b = tensor(g, "b", {1, 128, 64}, false);
        fe_tensor *sb = tensor(g, "scale_b", {1, 128 / rows, 1}, false, FE_DATA_FLOAT);
        fe_tensor *db = dequantized_to_half(g, b, sb, rows, 64), *c = nullptr;
        ASSERT_NE(db, nullptr);
        ASSERT_FE_OK(fe_graph_matmul(g, a, db, nullptr, &c));
        ASSERT_FE_OK(fe_tensor_set_output(c, 1));
        if (rows == 16) {
            expect_supported(g);
            continue;
        }
        EXPECT_FE_STATUS(support_status(g), FE_STATUS_NOT_SUPPORTED);
        EXPECT_TRUE(LastErrorContains("no engine for a matmul's B dequantized in blocks of one row")) << fe_last_error_message();
    }
}

// An FP8 operand whose dims are not multiples of 128 (A [1, 39, 566] in blocks of 128 x 32): cuDNN
// 9.19 computed most of such results as 0 or faulted on an H200; refused with the table's reason.
TEST_F(Deviceless, BlockScaledMatmulOfAPartialFp8OperandIsRefused) {
    fe_graph *g = graph("block_scaled_fp8_partial", FE_DATA_HALF);
    fe_tensor *a = tensor(g, "a", {1, 39, 566}, false, FE_DATA_FP8_E4M3), *b = tensor(g, "b", {1, 566, 5}, false);
    fe_tensor *sa = tensor(g, "scale_a", {1, 1, 18}, false, FE_DATA_BFLOAT16);
    fe_tensor *da = dequantized_to_half(g, a, sa, 128, 32), *c = nullptr;
    ASSERT_NE(da, nullptr);
    ASSERT_FE_OK(fe_graph_matmul(g, da, b, nullptr, &c));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    EXPECT_FE_STATUS(support_status(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("general block scaling of an FP8 operand whose last two dims are not both multiples "
                                  "of 128"))
        << fe_last_error_message();
}

}  // namespace


// Two-dimensional operands: A [256, 128], B [128, 512] with K contiguous; the scales [1, 1].
TEST_F(MatmulFp8Support, TwoDimensionalOperandsAreSupported) {
    fe_graph *g = graph("fp8_2d", FE_DATA_HALF);
    fe_tensor *a = tensor(g, "a", {256, 128}, false, FE_DATA_FP8_E4M3), *b = nullptr;
    const int64_t b_dims[2] = {128, 512}, b_strides[2] = {1, 128};
    ASSERT_FE_OK(fe_graph_tensor(g, "b", 2, b_dims, b_strides, FE_DATA_FP8_E4M3, &b));
    fe_matmul_fp8_scales s = FE_MATMUL_FP8_SCALES_INIT;
    s.descale_a = tensor(g, "descale_a", {1, 1}, false, FE_DATA_FLOAT);
    s.descale_b = tensor(g, "descale_b", {1, 1}, false, FE_DATA_FLOAT);
    s.scale_c = tensor(g, "scale_c", {1, 1}, false, FE_DATA_FLOAT);
    fe_tensor *c = nullptr, *amax = nullptr;
    ASSERT_FE_OK(fe_graph_matmul_fp8(g, a, b, &s, nullptr, &c, &amax));
    ASSERT_FE_OK(fe_tensor_set_data_type(c, FE_DATA_BFLOAT16));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    ASSERT_FE_OK(fe_tensor_set_output(amax, 1));
    expect_supported(g);
}
