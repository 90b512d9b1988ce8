// Every value the public API takes is checked at the call that takes it: non-finite numbers,
// numbers a type cannot hold, sizes that overflow int64, unknown enum values, names that are
// not UTF-8 and outputs whose strides overlap are refused with a message naming the call and
// the cause, instead of reaching cuDNN, the graph JSON or undefined behaviour.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

class Values : public cudnnfe_test::GraphTest {
  protected:
    Values() : GraphTest("g", FE_DATA_HALF) {}
    fe_tensor *scalar(const char *name, double value = 1.0, fe_data_type type = FE_DATA_FLOAT) {
        fe_tensor *t = nullptr;
        EXPECT_FE_OK(fe_graph_scalar(g, name, value, type, &t));
        return t;
    }
    // Q, K, V of a small attention in `type`.
    void qkv(fe_data_type type = FE_DATA_HALF) {
        q = tensor("q", {1, 2, 8, 64}, type);
        k = tensor("k", {1, 2, 8, 64}, type);
        v = tensor("v", {1, 2, 8, 64}, type);
    }
    fe_status sdpa(const fe_sdpa_options &o) {
        fe_tensor *out = nullptr, *stats = nullptr;
        return fe_graph_sdpa(g, q, k, v, &o, &out, &stats);
    }
    fe_tensor *q = nullptr, *k = nullptr, *v = nullptr;
};

// ---- numbers that must be finite or in range ----

TEST_F(Values, SdpaRefusesANonFiniteAttnScale) {
    qkv();
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = kNan;
    EXPECT_FE_REFUSED(sdpa(o), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_sdpa: options.attn_scale is nan; it must be finite");
    o.attn_scale = -kInf;
    EXPECT_FE_REFUSED(sdpa(o), FE_STATUS_INVALID_ARGUMENT, "options.attn_scale is -inf");
    o.attn_scale = 0.125;
    EXPECT_FE_OK(sdpa(o));
}

TEST_F(Values, SdpaBackwardRefusesANonFiniteAttnScale) {
    qkv();
    fe_tensor *o = tensor("o", {1, 2, 8, 64}), *d_o = tensor("do", {1, 2, 8, 64});
    fe_tensor *stats = tensor("stats", {1, 2, 8, 1}, FE_DATA_FLOAT);
    fe_sdpa_backward_options b = FE_SDPA_BACKWARD_OPTIONS_INIT;
    b.attn_scale = kInf;
    fe_tensor *dq = nullptr, *dk = nullptr, *dv = nullptr;
    EXPECT_FE_STATUS(fe_graph_sdpa_backward(g, q, k, v, o, d_o, stats, &b, &dq, &dk, &dv),
                     FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("fe_graph_sdpa_backward: options.attn_scale is inf; it must be finite"));
}

TEST_F(Values, Fp8AttentionRefusesANonFiniteAttnScale) {
    qkv(FE_DATA_FP8_E4M3);
    fe_sdpa_fp8_scales s = FE_SDPA_FP8_SCALES_INIT;
    s.descale_q = scalar("dq_scale");
    s.descale_k = scalar("dk_scale");
    s.descale_v = scalar("dv_scale");
    s.descale_s = scalar("ds_scale");
    s.scale_s = scalar("s_scale");
    s.scale_o = scalar("o_scale");
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = kNan;
    fe_tensor *out = nullptr, *stats = nullptr, *amax_s = nullptr, *amax_o = nullptr;
    EXPECT_FE_STATUS(fe_graph_sdpa_fp8(g, q, k, v, &s, &o, &out, &stats, &amax_s, &amax_o),
                     FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("fe_graph_sdpa_fp8: options.attn_scale is nan; it must be finite"));

    fe_tensor *o_in = tensor("o", {1, 2, 8, 64}, FE_DATA_FP8_E4M3), *d_o = tensor("do", {1, 2, 8, 64}, FE_DATA_FP8_E4M3);
    fe_tensor *st = tensor("stats", {1, 2, 8, 1}, FE_DATA_FLOAT);
    fe_sdpa_fp8_backward_scales bs = FE_SDPA_FP8_BACKWARD_SCALES_INIT;
    fe_tensor **fields[] = {&bs.descale_q, &bs.descale_k, &bs.descale_v, &bs.descale_o, &bs.descale_do, &bs.descale_s,
                            &bs.descale_dp, &bs.scale_s, &bs.scale_dp, &bs.scale_dq, &bs.scale_dk, &bs.scale_dv};
    int i = 0;
    for (fe_tensor **f : fields) *f = scalar(("b" + std::to_string(i++)).c_str());
    fe_sdpa_backward_options b = FE_SDPA_BACKWARD_OPTIONS_INIT;
    b.attn_scale = kInf;
    fe_tensor *outs[7] = {};
    EXPECT_FE_STATUS(fe_graph_sdpa_fp8_backward(g, q, k, v, o_in, d_o, st, &bs, &b, &outs[0], &outs[1], &outs[2],
                                                &outs[3], &outs[4], &outs[5], &outs[6]),
                     FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("fe_graph_sdpa_fp8_backward: options.attn_scale is inf; it must be finite"));
}

TEST_F(Values, SdpaRefusesANonFiniteDropoutScaleEvenWithoutAMask) {
    qkv();
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.dropout_scale = kInf;
    EXPECT_FE_REFUSED(sdpa(o), FE_STATUS_INVALID_ARGUMENT, "options.dropout_scale is inf; it must be finite");
    o.dropout_scale = 1.0;
    o.dropout_probability = kNan;
    EXPECT_FE_REFUSED(sdpa(o), FE_STATUS_INVALID_ARGUMENT, "dropout_probability is nan");
}

TEST_F(Values, PointwiseRefusesNanParametersAndKeepsInfiniteClips) {
    fe_tensor *x = tensor("x", {4, 4});
    fe_tensor *y = nullptr;
    fe_pointwise_options o = FE_POINTWISE_OPTIONS_INIT;
    o.relu_upper_clip = kInf;  // +inf: no upper clip, as documented
    EXPECT_FE_OK(fe_graph_relu(g, x, &o, &y));
    o.relu_upper_clip = kNan;
    EXPECT_FE_REFUSED(fe_graph_relu(g, x, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_relu: options.relu_upper_clip is nan; it must be finite or +inf");
    o = FE_POINTWISE_OPTIONS_INIT;
    o.relu_lower_clip = kNan;
    EXPECT_FE_REFUSED(fe_graph_relu(g, x, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "options.relu_lower_clip is nan; it must be finite or -inf");
    o.relu_lower_clip = kInf;
    EXPECT_FE_STATUS(fe_graph_relu(g, x, &o, &y), FE_STATUS_INVALID_ARGUMENT);
    o.relu_lower_clip = -kInf;  // -inf: no lower clip
    EXPECT_FE_OK(fe_graph_relu(g, x, &o, &y));
    o = FE_POINTWISE_OPTIONS_INIT;
    o.elu_alpha = kInf;
    EXPECT_FE_STATUS(fe_graph_pointwise(g, FE_POINTWISE_ELU_FWD, x, nullptr, nullptr, &o, &y),
                     FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("options.elu_alpha is inf; it must be finite"));
    o = FE_POINTWISE_OPTIONS_INIT;
    o.swish_beta = kNan;
    EXPECT_FE_REFUSED(fe_graph_silu(g, x, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "options.swish_beta is nan; it must be finite");
}

TEST_F(Values, RngRefusesNonFiniteParameters) {
    fe_tensor *seed = scalar("seed", 1, FE_DATA_INT64), *offset = scalar("offset", 0, FE_DATA_INT64), *y = nullptr;
    fe_rng_options o = FE_RNG_OPTIONS_INIT;
    o.ndims = 2;
    o.dims[0] = o.dims[1] = 4;
    o.distribution = FE_RNG_NORMAL;
    o.mean = kNan;
    EXPECT_FE_REFUSED(fe_graph_rng(g, seed, offset, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_rng: options.mean is nan; it must be finite");
    o.mean = 0.0;
    o.std = kInf;
    EXPECT_FE_REFUSED(fe_graph_rng(g, seed, offset, &o, &y), FE_STATUS_INVALID_ARGUMENT, "options.std is inf");
    o.distribution = FE_RNG_UNIFORM;
    o.std = 1.0;
    o.min = -kInf;
    EXPECT_FE_REFUSED(fe_graph_rng(g, seed, offset, &o, &y), FE_STATUS_INVALID_ARGUMENT, "options.min is -inf");
}

// ---- scalars the type cannot hold ----

TEST_F(Values, ScalarsMustFitTheirType) {
    fe_tensor *t = nullptr;
    EXPECT_FE_REFUSED(fe_graph_scalar(g, "a", 1e30, FE_DATA_INT32, &t), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_scalar: scalar 'a' is 1e+30, which int32 cannot hold");
    EXPECT_FE_STATUS(fe_graph_scalar(g, "b", 2.5, FE_DATA_INT64, &t), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_FE_STATUS(fe_graph_scalar(g, "c", kNan, FE_DATA_INT64, &t), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_FE_STATUS(fe_graph_scalar(g, "d", 9.3e18, FE_DATA_INT64, &t), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_FE_REFUSED(fe_graph_scalar(g, "e", 1e300, FE_DATA_FLOAT, &t), FE_STATUS_INVALID_ARGUMENT,
                      "which float cannot hold");
    EXPECT_FE_STATUS(fe_graph_scalar(g, "f", 1e5, FE_DATA_HALF, &t), FE_STATUS_INVALID_ARGUMENT);
    // What the types hold is accepted, infinities of the floating types (masks use -inf) too.
    EXPECT_FE_OK(fe_graph_scalar(g, "i32", -2147483648.0, FE_DATA_INT32, &t));
    EXPECT_FE_OK(fe_graph_scalar(g, "i64", -9.2e18, FE_DATA_INT64, &t));
    EXPECT_FE_OK(fe_graph_scalar(g, "h", 65504.0, FE_DATA_HALF, &t));
    EXPECT_FE_OK(fe_graph_scalar(g, "minf", -kInf, FE_DATA_FLOAT, &t));
    EXPECT_FE_OK(fe_graph_scalar(g, "dbl", 1e300, FE_DATA_DOUBLE, &t));
}

// A scalar passed by value is one value: its shape cannot be changed (the graph JSON does not
// record one, so a transpose of a scalar given dims [7] validated and then did not read back).
TEST_F(Values, AScalarKeepsItsShape) {
    fe_tensor *t = nullptr;
    ASSERT_FE_OK(fe_graph_scalar(g, "s", 1e-5, FE_DATA_FLOAT, &t));
    int64_t seven[1] = {7}, one[1] = {1}, two[1] = {2};
    EXPECT_FE_REFUSED(fe_tensor_set_dims(t, 1, seven), FE_STATUS_INVALID_ARGUMENT,
                      "fe_tensor_set_dims: 's' is a scalar passed by value: its dims stay [1]");
    EXPECT_FE_REFUSED(fe_tensor_set_strides(t, 1, two), FE_STATUS_INVALID_ARGUMENT, "its strides stay [1]");
    EXPECT_FE_OK(fe_tensor_set_dims(t, 1, one));
    EXPECT_FE_OK(fe_tensor_set_strides(t, 1, one));
}

// ---- ALiBi's heads ----

TEST_F(Values, AlibiSlopesBoundTheHeadsCount) {
    std::vector<float> out(FE_MAX_ALIBI_HEADS);
    EXPECT_FE_REFUSED(fe_alibi_slopes(int64_t(1) << 62, out.data()), FE_STATUS_INVALID_ARGUMENT,
                      "fe_alibi_slopes: heads is 4611686018427387904; 1 to 65536 are allowed");
    EXPECT_FE_STATUS(fe_alibi_slopes(FE_MAX_ALIBI_HEADS + 1, out.data()), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_FE_OK(fe_alibi_slopes(FE_MAX_ALIBI_HEADS, out.data()));
    EXPECT_FLOAT_EQ(out[0], std::pow(2.0f, -8.0f / 65536.0f));
    EXPECT_FE_OK(fe_alibi_slopes(12, out.data()));
    EXPECT_FLOAT_EQ(out[0], 0.5f);
    EXPECT_FLOAT_EQ(out[8], std::pow(2.0f, -0.5f));
}

// ---- sizes that overflow int64 ----

TEST_F(Values, StrideHelpersRefuseWhatTheyCannotLayOut) {
    int64_t big[3] = {int64_t(1) << 32, int64_t(1) << 32, int64_t(1) << 32}, s[3];
    EXPECT_FE_REFUSED(fe_strides_channels_last(3, big, s), FE_STATUS_INVALID_ARGUMENT,
                      "fe_strides_channels_last: dims");
    EXPECT_FE_STATUS(fe_strides_packed(3, big, s), FE_STATUS_INVALID_ARGUMENT);
    int64_t negative[2] = {4, -3};
    EXPECT_FE_REFUSED(fe_strides_packed(2, negative, s), FE_STATUS_INVALID_ARGUMENT,
                      "fe_strides_packed: dim 1 is -3; dims must be positive");
    int64_t zero[3] = {2, 0, 3};
    EXPECT_FE_STATUS(fe_strides_channels_last(3, zero, s), FE_STATUS_INVALID_ARGUMENT);
}

TEST_F(Values, ATensorSpanningMoreThanInt64IsRefused) {
    fe_tensor *t = nullptr;
    int64_t dims[1] = {2}, strides[1] = {INT64_MAX};
    EXPECT_FE_REFUSED(fe_graph_tensor(g, "t", 1, dims, strides, FE_DATA_HALF, &t), FE_STATUS_INVALID_ARGUMENT,
                      "span more than 2^63");
}

TEST_F(Values, SetDimsChecksTheSpanAsCreationDoes) {
    fe_tensor *t = tensor("t", {4, int64_t(1) << 40});
    int64_t huge[2] = {int64_t(1) << 40, int64_t(1) << 40};
    EXPECT_FE_REFUSED(fe_tensor_set_dims(t, 2, huge), FE_STATUS_INVALID_ARGUMENT, "fe_tensor_set_dims:");
    int64_t fine[2] = {8, int64_t(1) << 40};
    EXPECT_FE_OK(fe_tensor_set_dims(t, 2, fine));
}

TEST_F(Values, OneElementOperandsWithOverflowingDimProductsAreRefused) {
    qkv();
    // Stride 1 everywhere: the span is small, the element count overflows int64.
    int64_t dims[4] = {int64_t(1) << 31, int64_t(1) << 31, int64_t(1) << 31, 1}, strides[4] = {1, 1, 1, 1};
    fe_tensor *scale = nullptr;
    ASSERT_FE_OK(fe_graph_tensor(g, "scale", 4, dims, strides, FE_DATA_FLOAT, &scale));
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale_tensor = scale;
    EXPECT_FE_REFUSED(sdpa(o), FE_STATUS_INVALID_ARGUMENT, "attn_scale_tensor 'scale' must hold one element");

    fe_tensor *seed = nullptr, *offset = scalar("offset", 0, FE_DATA_INT64), *y = nullptr;
    ASSERT_FE_OK(fe_graph_tensor(g, "seed", 4, dims, strides, FE_DATA_INT64, &seed));
    fe_rng_options r = FE_RNG_OPTIONS_INIT;
    r.ndims = 1;
    r.dims[0] = 4;
    EXPECT_FE_REFUSED(fe_graph_rng(g, seed, offset, &r, &y), FE_STATUS_INVALID_ARGUMENT,
                      "seed 'seed' must be one int64 element");
}

TEST_F(Values, SlidingWindowIsBoundedByWhatCudnnTakes) {
    qkv();
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    o.sliding_window = int64_t(1) << 40;
    EXPECT_FE_REFUSED(sdpa(o), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_sdpa: options.sliding_window is 1099511627776; it must be 0 to 2147483647");
    o.sliding_window = 4;
    EXPECT_FE_OK(sdpa(o));
}

// ---- enum values ----

TEST_F(Values, AttentionRefusesAnUnknownImplementation) {
    qkv();
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.implementation = static_cast<fe_sdpa_implementation>(7);
    EXPECT_FE_REFUSED(sdpa(o), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_sdpa: options.implementation is 7, not an fe_sdpa_implementation");
}

// One check, one message for every enumeration an entry point takes, an option or a parameter
// (schema::check_enum_value), whichever op takes it.
TEST_F(Values, UnknownEnumValuesAreRefusedNamingTheEnumAndItsValues) {
    qkv();
    fe_sdpa_options attention = FE_SDPA_OPTIONS_INIT;
    attention.diagonal_alignment = static_cast<fe_diagonal_alignment>(5);
    EXPECT_FE_REFUSED(sdpa(attention), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_sdpa: options.diagonal_alignment is 5, not an fe_diagonal_alignment (top_left, "
                      "bottom_right)");
    fe_tensor *image = tensor("image", {1, 8, 6, 6}), *weight = tensor("weight", {8, 8, 3, 3}), *y = nullptr;
    fe_conv_options conv = FE_CONV_OPTIONS_INIT;
    conv.mode = static_cast<fe_conv_mode>(9);
    EXPECT_FE_REFUSED(fe_graph_conv_fprop(g, image, weight, &conv, &y), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_conv_fprop: options.mode is 9, not an fe_conv_mode");
    fe_resample_options pool = FE_RESAMPLE_OPTIONS_INIT;
    pool.window[0] = pool.window[1] = 2;
    pool.padding_mode = static_cast<fe_resample_padding>(-1);
    EXPECT_FE_REFUSED(fe_graph_resample(g, image, &pool, &y, nullptr), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_resample: options.padding_mode is -1, not an fe_resample_padding");
    fe_reduction_options sum = FE_REDUCTION_OPTIONS_INIT;
    sum.reduce_axes = 1;
    EXPECT_FE_REFUSED(fe_graph_reduction(g, image, static_cast<fe_reduction_mode>(99), &sum, &y),
                      FE_STATUS_INVALID_ARGUMENT, "fe_graph_reduction: mode is 99, not an fe_reduction_mode (add, mul");
    EXPECT_FE_REFUSED(fe_graph_reduction(g, image, FE_REDUCTION_ADD, nullptr, &y), FE_STATUS_NULL_POINTER,
                      "fe_graph_reduction: argument 'options' is NULL: a reduction needs its reduced dims");
    EXPECT_EQ(y, nullptr);
}

// ---- names ----

TEST_F(Values, NamesMustBeUtf8) {
    fe_graph *other = nullptr;
    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.name = "bad\xff";
    EXPECT_FE_REFUSED(fe_graph_create(&go, &other), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_create: options.name is not valid UTF-8 (byte 3 is 0xff)");

    fe_tensor *t = nullptr;
    int64_t dims[2] = {4, 4};
    EXPECT_FE_REFUSED(fe_graph_tensor(g, "x\xc3", 2, dims, nullptr, FE_DATA_HALF, &t), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_tensor: tensor name");
    EXPECT_FE_STATUS(fe_graph_scalar(g, "\xed\xa0\x80", 1.0, FE_DATA_FLOAT, &t), FE_STATUS_INVALID_ARGUMENT);
    ASSERT_FE_OK(fe_graph_tensor(g, "x", 2, dims, nullptr, FE_DATA_HALF, &t));
    EXPECT_FE_REFUSED(fe_tensor_set_name(t, "\xc0\xaf"), FE_STATUS_INVALID_ARGUMENT, "fe_tensor_set_name: tensor name");

    fe_pointwise_options po = FE_POINTWISE_OPTIONS_INIT;
    po.name = "relu\xfe";
    fe_tensor *y = nullptr;
    EXPECT_FE_REFUSED(fe_graph_relu(g, t, &po, &y), FE_STATUS_INVALID_ARGUMENT, "fe_graph_relu: operation name");
    po.name = "r\xc3\xa9lu \xe2\x9c\x93";  // UTF-8 beyond ASCII is fine
    EXPECT_FE_OK(fe_graph_relu(g, t, &po, &y));
    EXPECT_STREQ(name_of(y), "r\xc3\xa9lu \xe2\x9c\x93::Y");
}

// ---- outputs whose elements would overlap ----

TEST_F(Values, ValidationRefusesAnOutputWithOverlappingStrides) {
    fe_tensor *x = tensor("x", {4, 4}), *y = nullptr;
    ASSERT_FE_OK(fe_graph_relu(g, x, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    int64_t overlapping[2] = {2, 1};
    ASSERT_FE_OK(fe_tensor_set_strides(y, 2, overlapping));
    EXPECT_FE_REFUSED(fe_graph_validate(g), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_validate: output 'relu_0::Y' has dims [4,4] and strides [2,1]");
    int64_t column_major[2] = {1, 4};
    ASSERT_FE_OK(fe_tensor_set_strides(y, 2, column_major));
    EXPECT_FE_OK(fe_graph_validate(g));
}

TEST_F(Values, InputsMayOverlapThemselves) {
    // A broadcast input (stride 0 is refused, but overlapping positive strides read the same
    // element twice, which is fine for an input).
    fe_tensor *x = nullptr, *y = nullptr;
    int64_t dims[2] = {4, 4}, strides[2] = {1, 1};
    ASSERT_FE_OK(fe_graph_tensor(g, "x", 2, dims, strides, FE_DATA_HALF, &x));
    ASSERT_FE_OK(fe_graph_relu(g, x, nullptr, &y));
    int64_t packed[2] = {4, 1};
    ASSERT_FE_OK(fe_tensor_set_strides(y, 2, packed));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    EXPECT_FE_OK(fe_graph_validate(g));
}

// ---- what the API-call fuzz target found: tensors reshaped after the op that reads them ----

std::string describe_text(const fe_graph *graph) {
    size_t n = 0;
    fe_graph_describe(graph, nullptr, 0, &n);
    std::string text(n + 1, '\0');
    EXPECT_FE_OK(fe_graph_describe(graph, &text[0], text.size(), &n));
    return text;
}

// A convolution's or pooling's image given rank 1 after the op was added: describing the op
// reads no spatial dims past the options' arrays, and validation refuses the rank.
TEST_F(Values, ImagesReshapedAfterTheirOpAreDescribedSafelyAndRefused) {
    fe_tensor *x = tensor("x", {8, 64, 56, 56}), *w = tensor("w", {32, 64, 3, 3}), *y = nullptr, *p = nullptr;
    fe_conv_options conv = FE_CONV_OPTIONS_INIT;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &conv, &y));
    fe_resample_options pool = FE_RESAMPLE_OPTIONS_INIT;
    int64_t window[2] = {2, 2};
    ASSERT_FE_OK(fe_resample_options_set_window(&pool, 2, window));
    ASSERT_FE_OK(fe_resample_options_set_stride(&pool, 2, window));
    ASSERT_FE_OK(fe_graph_resample(g, x, &pool, &p, nullptr));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    ASSERT_FE_OK(fe_tensor_set_output(p, 1));
    int64_t one[1] = {16};
    ASSERT_FE_OK(fe_tensor_set_dims(x, 1, one));
    EXPECT_NE(describe_text(g).find("conv_fprop"), std::string::npos);
    EXPECT_NE(fe_graph_validate(g), FE_OK);
}

// New dims of another rank on a tensor whose strides were given: validation asks for strides of
// the new rank instead of writing a graph whose JSON cannot be read back.
TEST_F(Values, DimsOfANewRankNeedStridesOfThatRank) {
    int64_t dims[4] = {8, 64, 56, 56}, strides[4] = {200704, 1, 3584, 64};
    fe_tensor *x = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_tensor(g, "x", 4, dims, strides, FE_DATA_NOT_SET, &x));
    ASSERT_FE_OK(fe_graph_relu(g, x, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    int64_t flat[1] = {8 * 64 * 56 * 56};
    ASSERT_FE_OK(fe_tensor_set_dims(x, 1, flat));
    EXPECT_EQ(fe_graph_validate(g), FE_STATUS_VALIDATION);
    EXPECT_TRUE(LastErrorContains("'x' has 1 dims but 4 strides: give it strides of its new rank"));
}

}  // namespace
