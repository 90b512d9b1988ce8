// The graph IR without cuDNN: inference, validation and the messages of each failure.
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace {

class Graph : public cudnnfe_test::GraphTest {
  protected:
    Graph() : GraphTest("g", FE_DATA_HALF) {}
    fe_tensor *tensor(const char *name, std::vector<int64_t> dims, bool channels_last = false,
                      fe_data_type type = FE_DATA_NOT_SET) {
        return cudnnfe_test::make_tensor(g, name, dims, channels_last, type);
    }
    // The seed convolution: channels-last x [8, 64, 56, 56] and w [32, 64, 3, 3], padded by 1.
    // Returns its result y (nullptr, with a failure, if the call is refused).
    fe_tensor *seed_conv() {
        fe_tensor *x = tensor("x", {8, 64, 56, 56}, true), *w = tensor("w", {32, 64, 3, 3}, true), *y = nullptr;
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        int64_t pad[2] = {1, 1};
        fe_conv_options_set_padding(&o, 2, pad);
        EXPECT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        return y;
    }
};

TEST_F(Graph, StrideHelpers) {
    int64_t d[4] = {8, 64, 56, 56}, s[4];
    ASSERT_FE_OK(fe_strides_channels_last(4, d, s));
    EXPECT_EQ(std::vector<int64_t>(s, s + 4), (std::vector<int64_t>{200704, 1, 3584, 64}));
    ASSERT_FE_OK(fe_strides_packed(4, d, s));
    EXPECT_EQ(std::vector<int64_t>(s, s + 4), (std::vector<int64_t>{200704, 3136, 56, 1}));
    int64_t d5[5] = {2, 3, 4, 5, 6}, s5[5];
    ASSERT_FE_OK(fe_strides_channels_last(5, d5, s5));
    EXPECT_EQ(std::vector<int64_t>(s5, s5 + 5), (std::vector<int64_t>{360, 1, 90, 18, 3}));
    EXPECT_FE_STATUS(fe_strides_channels_last(2, d, s), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_FE_STATUS(fe_strides_packed(9, d5, s5), FE_STATUS_INVALID_ARGUMENT);
}

TEST_F(Graph, ConvInfersTheSeedsShapeAndKeepsChannelsLast) {
    fe_tensor *y = seed_conv();
    ASSERT_NE(y, nullptr);
    EXPECT_EQ(dims(y), (std::vector<int64_t>{8, 32, 56, 56}));
    EXPECT_EQ(strides(y), (std::vector<int64_t>{100352, 1, 1792, 32}));
    EXPECT_STREQ(name_of(y), "conv_fprop_0::Y");
    fe_tensor *found = nullptr;
    ASSERT_FE_OK(fe_graph_tensor_by_name(g, "conv_fprop_0::Y", &found));
    EXPECT_EQ(found, y);
}

TEST_F(Graph, ConvStrideDilationAndRanks) {
    fe_tensor *x = tensor("x", {2, 3, 224, 224}), *w = tensor("w", {64, 3, 7, 7}), *y = nullptr;
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    int64_t pad[2] = {3, 3};
    fe_conv_options_set_padding(&o, 2, pad);
    o.stride[0] = o.stride[1] = 2;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    EXPECT_EQ(dims(y), (std::vector<int64_t>{2, 64, 112, 112}));
    fe_tensor *x1 = tensor("x1", {4, 8, 100}), *w1 = tensor("w1", {16, 8, 5}), *y1 = nullptr;
    fe_conv_options o1 = FE_CONV_OPTIONS_INIT;
    o1.dilation[0] = 2;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x1, w1, &o1, &y1));
    EXPECT_EQ(dims(y1), (std::vector<int64_t>{4, 16, 92}));
}

TEST_F(Graph, ConvErrorsNameTheCause) {
    fe_tensor *x = tensor("x", {8, 64, 56, 56}), *w = tensor("w", {32, 32, 3, 3}), *y = nullptr;
    EXPECT_FE_REFUSED(fe_graph_conv_fprop(g, x, w, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_conv_fprop: weight has 32 input channels, image has 64");
    EXPECT_EQ(y, nullptr);
    fe_tensor *big = tensor("big", {32, 64, 9, 9});
    fe_tensor *small = tensor("small", {1, 64, 4, 4});
    EXPECT_FE_REFUSED(fe_graph_conv_fprop(g, small, big, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "the dilated filter spans 9 but the padded image has 4");
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    o.stride[0] = 0;
    fe_tensor *w2 = tensor("w2", {32, 64, 3, 3});
    EXPECT_FE_REFUSED(fe_graph_conv_fprop(g, x, w2, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "options.stride[0] is 0; it must be 1 to 2147483647");
    o = FE_CONV_OPTIONS_INIT;
    o.mode = static_cast<fe_conv_mode>(5);
    EXPECT_FE_STATUS(fe_graph_conv_fprop(g, x, w2, &o, &y), FE_STATUS_INVALID_ARGUMENT);
    o = FE_CONV_OPTIONS_INIT;
    o.struct_size = 0;
    EXPECT_FE_REFUSED(fe_graph_conv_fprop(g, x, w2, &o, &y), FE_STATUS_INVALID_ARGUMENT, "_INIT macro");
    // Nothing was added by the failed calls, not even a used-up automatic name.
    fe_tensor *none = nullptr;
    EXPECT_FE_STATUS(fe_graph_tensor_by_name(g, "conv_fprop_0::Y", &none), FE_STATUS_NOT_FOUND);
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w2, nullptr, &y));
    EXPECT_STREQ(name_of(y), "conv_fprop_0::Y");
}

TEST_F(Graph, MatmulInferenceAndBroadcast) {
    fe_tensor *a = tensor("a", {16, 128, 512}), *b = tensor("b", {16, 512, 128}), *c = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
    EXPECT_EQ(dims(c), (std::vector<int64_t>{16, 128, 128}));
    EXPECT_STREQ(name_of(c), "matmul_0::C");
    fe_tensor *a1 = tensor("a1", {1, 64, 32}), *b1 = tensor("b1", {6, 32, 48}), *c1 = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a1, b1, nullptr, &c1));
    EXPECT_EQ(dims(c1), (std::vector<int64_t>{6, 64, 48}));
    fe_tensor *bad = tensor("bad", {16, 256, 128});
    EXPECT_FE_REFUSED(fe_graph_matmul(g, a, bad, nullptr, &c), FE_STATUS_INVALID_ARGUMENT,
                      "A has K=512 columns, B has 256 rows");
    fe_tensor *b3 = tensor("b3", {3, 512, 8});
    EXPECT_FE_REFUSED(fe_graph_matmul(g, a, b3, nullptr, &c), FE_STATUS_INVALID_ARGUMENT,
                      "batch dim 0 is 16 in A and 3 in B");
}

TEST_F(Graph, PointwiseBroadcastArityAndNames) {
    fe_tensor *x = tensor("x", {8, 32, 56, 56}, true), *b = tensor("b", {1, 32, 1, 1}), *y = nullptr;
    ASSERT_FE_OK(fe_graph_bias(g, x, b, nullptr, &y));
    EXPECT_EQ(dims(y), (std::vector<int64_t>{8, 32, 56, 56}));
    EXPECT_EQ(strides(y), strides(x));  // laid out like the full-shape operand
    EXPECT_STREQ(name_of(y), "bias_0::Y");
    fe_tensor *r = nullptr;
    ASSERT_FE_OK(fe_graph_relu(g, y, nullptr, &r));
    EXPECT_STREQ(name_of(r), "relu_0::Y");
    fe_tensor *rank2 = tensor("rank2", {32, 1});
    EXPECT_FE_REFUSED(fe_graph_add(g, x, rank2, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "pointwise operands need the same rank");
    fe_tensor *odd = tensor("odd", {1, 31, 1, 1});
    EXPECT_FE_REFUSED(fe_graph_mul(g, x, odd, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "dim 1 is 32 in 'x' and 31 in 'odd'");
    EXPECT_FE_REFUSED(fe_graph_pointwise(g, FE_POINTWISE_EXP, x, b, nullptr, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "exp takes 1 input(s); input 1 must be NULL");
    EXPECT_FE_REFUSED(fe_graph_pointwise(g, static_cast<fe_pointwise_mode>(9999), x, nullptr, nullptr, nullptr, &y),
                      FE_STATUS_INVALID_ARGUMENT, "fe_graph_pointwise: mode 9999 is not an fe_pointwise_mode");
    EXPECT_FE_REFUSED(fe_graph_pointwise(g, static_cast<fe_pointwise_mode>(INT32_MIN), x, nullptr, nullptr, nullptr, &y),
                      FE_STATUS_INVALID_ARGUMENT, "is not an fe_pointwise_mode");
    EXPECT_FE_REFUSED(fe_graph_pointwise(g, FE_POINTWISE_EXP, nullptr, nullptr, nullptr, nullptr, &y),
                      FE_STATUS_NULL_POINTER, "fe_graph_pointwise: argument 'in_0' is NULL");
    // Another mode's parameter would be ignored: refused, naming the mode.
    fe_pointwise_options swish = FE_POINTWISE_OPTIONS_INIT;
    swish.swish_beta = 1.702;
    EXPECT_FE_REFUSED(fe_graph_pointwise(g, FE_POINTWISE_RELU_FWD, x, nullptr, nullptr, &swish, &y),
                      FE_STATUS_INVALID_ARGUMENT, "options.swish_beta is not taken by relu; leave it at its default");
    ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_SWISH_FWD, x, nullptr, nullptr, &swish, &y));
    fe_pointwise_options named = FE_POINTWISE_OPTIONS_INIT;
    named.name = "my_exp";
    ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_EXP, x, nullptr, nullptr, &named, &y));
    EXPECT_STREQ(name_of(y), "my_exp::Y");
    EXPECT_FE_STATUS(fe_graph_pointwise(g, FE_POINTWISE_EXP, x, nullptr, nullptr, &named, &y), FE_STATUS_DUPLICATE);
}

// The conveniences take the pointwise options too: a name, and the mode's own parameters.
TEST_F(Graph, PointwiseConveniencesTakeOptions) {
    fe_tensor *x = tensor("x", {8, 32, 56, 56}, true), *b = tensor("b", {1, 32, 1, 1}), *y = nullptr;
    fe_pointwise_options o = FE_POINTWISE_OPTIONS_INIT;
    o.name = "shift";
    ASSERT_FE_OK(fe_graph_bias(g, x, b, &o, &y));
    EXPECT_STREQ(name_of(y), "shift::Y");
    o.name = "relu6";
    o.relu_upper_clip = 6;
    fe_tensor *r = nullptr;
    ASSERT_FE_OK(fe_graph_relu(g, y, &o, &r));
    EXPECT_STREQ(name_of(r), "relu6::Y");
    size_t n = 0;
    ASSERT_EQ(fe_graph_describe(g, nullptr, 0, &n), FE_STATUS_BUFFER_TOO_SMALL);
    std::string text(n + 1, '\0');
    ASSERT_FE_OK(fe_graph_describe(g, &text[0], text.size(), &n));
    EXPECT_NE(text.find("upper_clip=6 "), std::string::npos) << text;
    o = FE_POINTWISE_OPTIONS_INIT;
    o.struct_size = 0;
    EXPECT_FE_REFUSED(fe_graph_silu(g, x, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_silu: options.struct_size is 0");
    // Their mode's checks are pointwise's, under their own names: another mode's parameter, a value
    // out of range, a NULL operand named as the convenience names it.
    o = FE_POINTWISE_OPTIONS_INIT;
    o.swish_beta = 1.702;
    EXPECT_FE_REFUSED(fe_graph_relu(g, x, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_relu: options.swish_beta is not taken by relu; leave it at its default");
    o = FE_POINTWISE_OPTIONS_INIT;
    o.relu_lower_clip = 1.0 / 0.0;
    EXPECT_FE_STATUS(fe_graph_relu(g, x, &o, &y), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_FE_REFUSED(fe_graph_scale(g, x, nullptr, nullptr, &y), FE_STATUS_NULL_POINTER,
                      "fe_graph_scale: argument 'scale' is NULL");
    ASSERT_FE_OK(fe_graph_silu(g, x, nullptr, &y));
    EXPECT_STREQ(name_of(y), "silu_0::Y");
}

TEST_F(Graph, ReductionAxes) {
    fe_tensor *x = tensor("x", {4, 256, 1024}), *y = nullptr;
    fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
    EXPECT_FE_REFUSED(fe_graph_reduction(g, x, FE_REDUCTION_ADD, &o, &y), FE_STATUS_INVALID_ARGUMENT,
                      "no axis to reduce");
    o.reduce_axes = 1u << 5;
    EXPECT_FE_STATUS(fe_graph_reduction(g, x, FE_REDUCTION_ADD, &o, &y), FE_STATUS_INVALID_ARGUMENT);
    o.reduce_axes = (1u << 1) | (1u << 2);
    ASSERT_FE_OK(fe_graph_reduction(g, x, FE_REDUCTION_AMAX, &o, &y));
    EXPECT_EQ(dims(y), (std::vector<int64_t>{4, 1, 1}));
    EXPECT_FE_STATUS(fe_graph_reduction(g, x, static_cast<fe_reduction_mode>(99), &o, &y), FE_STATUS_INVALID_ARGUMENT);
}

TEST_F(Graph, ATensorLikeAnotherHasItsDimsStridesAndTypeOnly) {
    fe_tensor *x = tensor("x", {2, 64, 8, 8}, true, FE_DATA_BFLOAT16), *like = nullptr;
    ASSERT_FE_OK(fe_graph_tensor_like(g, x, "x_again", &like));
    EXPECT_EQ(dims(like), dims(x));
    EXPECT_EQ(strides(like), strides(x));
    fe_data_type type = FE_DATA_NOT_SET;
    ASSERT_FE_OK(fe_tensor_get_data_type(like, &type));
    EXPECT_EQ(type, FE_DATA_BFLOAT16);
    const char *name = nullptr;
    ASSERT_FE_OK(fe_tensor_get_name(like, &name));
    EXPECT_STREQ(name, "x_again");

    // From another graph: an op's result, with the shape inference gave it.
    fe_graph_options o = FE_GRAPH_OPTIONS_INIT;
    o.io_data_type = FE_DATA_HALF;
    fe_graph *other = nullptr;
    ASSERT_FE_OK(fe_graph_create(&o, &other));
    fe_tensor *a = cudnnfe_test::make_tensor(other, "a", {3, 40, 24}, false, FE_DATA_NOT_SET);
    fe_tensor *b = cudnnfe_test::make_tensor(other, "b", {3, 24, 56}, false, FE_DATA_NOT_SET);
    fe_tensor *c = nullptr, *c_like = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(other, a, b, nullptr, &c));
    ASSERT_FE_OK(fe_graph_tensor_like(g, c, "c_in", &c_like));
    EXPECT_EQ(dims(c_like), (std::vector<int64_t>{3, 40, 56}));
    EXPECT_EQ(strides(c_like), strides(c));

    EXPECT_FE_STATUS(fe_graph_tensor_like(g, x, "x_again", &like), FE_STATUS_DUPLICATE);
    fe_tensor *s = nullptr;
    ASSERT_FE_OK(fe_graph_scalar(other, "s", 2.0, FE_DATA_FLOAT, &s));
    EXPECT_FE_STATUS(fe_graph_tensor_like(g, s, "s_like", &like), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("fe_graph_tensor_like: 's' is a scalar passed by value")) << fe_last_error_message();
    fe_graph_destroy(other);
}

TEST_F(Graph, ReductionMulNoZerosAndTheDeterministicFlag) {
    fe_tensor *x = tensor("x", {4, 256, 1024}), *y = nullptr;
    fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
    o.reduce_axes = 1u << 2;
    o.deterministic = 1;
    ASSERT_FE_OK(fe_graph_reduction(g, x, FE_REDUCTION_MUL_NO_ZEROS, &o, &y));
    EXPECT_EQ(dims(y), (std::vector<int64_t>{4, 256, 1}));
    size_t n = 0;
    ASSERT_EQ(fe_graph_describe(g, nullptr, 0, &n), FE_STATUS_BUFFER_TOO_SMALL);
    std::string text(n + 1, '\0');
    ASSERT_FE_OK(fe_graph_describe(g, &text[0], text.size(), &n));
    EXPECT_NE(text.find("mode=mul_no_zeros axes=[2] deterministic"), std::string::npos) << text;
}

TEST_F(Graph, ValidationResolvesTypesAndRejectsLooseEnds) {
    fe_tensor *a = tensor("a", {2, 8, 16}), *b = tensor("b", {2, 16, 4}), *c = nullptr, *r = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
    ASSERT_FE_OK(fe_graph_relu(g, c, nullptr, &r));
    EXPECT_FE_REFUSED(fe_graph_validate(g), FE_STATUS_VALIDATION, "graph 'g' has no outputs");
    ASSERT_FE_OK(fe_tensor_set_output(r, 1));
    fe_tensor *unused = tensor("unused", {1});
    EXPECT_FE_REFUSED(fe_graph_validate(g), FE_STATUS_VALIDATION, "input 'unused' is not used by any operation");
    (void)unused;
}

TEST_F(Graph, ValidationTypesAndOverrides) {
    fe_tensor *a = tensor("a", {2, 8, 16}), *b = tensor("b", {2, 16, 4}), *c = nullptr, *r = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
    ASSERT_FE_OK(fe_graph_relu(g, c, nullptr, &r));
    ASSERT_FE_OK(fe_tensor_set_output(r, 1));
    ASSERT_FE_OK(fe_graph_validate(g));
    fe_data_type t;
    fe_tensor_get_data_type(a, &t);
    EXPECT_EQ(t, FE_DATA_HALF);  // io default
    fe_tensor_get_data_type(c, &t);
    EXPECT_EQ(t, FE_DATA_FLOAT);  // intermediate default
    fe_tensor_get_data_type(r, &t);
    EXPECT_EQ(t, FE_DATA_HALF);  // output: io default
    int64_t wrong[3] = {2, 8, 5};
    ASSERT_FE_OK(fe_tensor_set_dims(r, 3, wrong));
    EXPECT_FE_REFUSED(fe_graph_validate(g), FE_STATUS_VALIDATION,
                      "'relu_0::Y' was given dims [2,8,5] but the operation produces [2,8,4]");
    int64_t uid = 0;
    EXPECT_FE_STATUS(fe_tensor_get_uid(a, &uid), FE_STATUS_BAD_STATE);
    ASSERT_FE_OK(fe_tensor_set_uid(a, 5));
    EXPECT_FE_REFUSED(fe_tensor_set_uid(b, 5), FE_STATUS_DUPLICATE, "uid 5 is already used by 'a'");
    EXPECT_FE_STATUS(fe_tensor_set_output(a, 1), FE_STATUS_INVALID_ARGUMENT);
    int64_t bytes = 0;
    ASSERT_FE_OK(fe_tensor_size_bytes(a, &bytes));
    EXPECT_EQ(bytes, 2 * 8 * 16 * 2);
    int64_t small[2];
    EXPECT_FE_STATUS(fe_tensor_get_dims(a, small, 2), FE_STATUS_BUFFER_TOO_SMALL);
}

// 4-bit tensors take half a byte an element (an odd count rounds up), have no host conversion
// and no slices (which could start inside a byte); their names read back from the graph JSON.
TEST_F(Graph, FourBitTensorsAreSizedInHalfBytes) {
    const int64_t dims[] = {1, 3, 5}, k_contiguous[] = {15, 1, 3};
    fe_tensor *w = nullptr, *u = nullptr;
    ASSERT_FE_OK(fe_graph_tensor(g, "w", 3, dims, k_contiguous, FE_DATA_INT4, &w));
    ASSERT_FE_OK(fe_graph_tensor(g, "u", 3, dims, nullptr, FE_DATA_UINT4, &u));
    int64_t bytes = 0;
    ASSERT_FE_OK(fe_tensor_size_bytes(w, &bytes));
    EXPECT_EQ(bytes, 8);
    ASSERT_FE_OK(fe_tensor_size_bytes(u, &bytes));
    EXPECT_EQ(bytes, 8);
    EXPECT_EQ(fe_data_type_bits(FE_DATA_INT4), 4u);
    EXPECT_EQ(fe_data_type_bits(FE_DATA_FLOAT), 32u);
    EXPECT_EQ(fe_data_type_bits(FE_DATA_NOT_SET), 0u);
    EXPECT_EQ(fe_data_type_size(FE_DATA_UINT4), 0u);
    EXPECT_STREQ(fe_data_type_string(FE_DATA_INT4), "int4");
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_IDENTITY, w, nullptr, nullptr, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    size_t length = 0;
    fe_graph_to_json(g, nullptr, 0, &length);
    std::string json(length + 1, '\0');
    ASSERT_FE_OK(fe_graph_to_json(g, &json[0], json.size(), &length));
    json.resize(length);
    EXPECT_NE(json.find("\"data_type\":\"int4\""), std::string::npos) << json;
    fe_graph *back = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(json.data(), json.size(), &back));
    fe_tensor *w_back = nullptr;
    ASSERT_FE_OK(fe_graph_tensor_by_name(back, "w", &w_back));
    fe_data_type type = FE_DATA_NOT_SET;
    ASSERT_FE_OK(fe_tensor_get_data_type(w_back, &type));
    EXPECT_EQ(type, FE_DATA_INT4);
    fe_graph_destroy(back);
}

// An alignment promise: a power of two from 16 to 4096, on memory a caller binds (not a scalar
// passed by value, not a virtual tensor); it is part of the graph's JSON.
TEST_F(Graph, AlignmentPromises) {
    fe_tensor *a = tensor("a", {1, 32, 64}), *b = tensor("b", {1, 64, 16}), *c = nullptr, *s = nullptr;
    for (int64_t bad : {0, 8, 48, 8192}) {
        EXPECT_FE_STATUS(fe_tensor_set_alignment(a, bad), FE_STATUS_INVALID_ARGUMENT);
        EXPECT_TRUE(LastErrorContains("fe_tensor_set_alignment: an alignment of " + std::to_string(bad) +
                                      " bytes for 'a': give a power of two from 16"))
            << fe_last_error_message();
    }
    ASSERT_FE_OK(fe_graph_scalar(g, "alpha", 2.0, FE_DATA_FLOAT, &s));
    EXPECT_FE_REFUSED(fe_tensor_set_alignment(s, 64), FE_STATUS_INVALID_ARGUMENT,
                      "'alpha' is a scalar passed by value");
    ASSERT_FE_OK(fe_tensor_set_alignment(a, 256));
    fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, &o, &c));
    fe_tensor *d = nullptr;
    ASSERT_FE_OK(fe_graph_relu(g, c, nullptr, &d));
    ASSERT_FE_OK(fe_tensor_set_output(d, 1));
    ASSERT_FE_OK(fe_tensor_set_alignment(c, 64));
    EXPECT_FE_STATUS(fe_graph_validate(g), FE_STATUS_VALIDATION);
    EXPECT_TRUE(LastErrorContains("promises 64-byte alignment but is virtual")) << fe_last_error_message();
    ASSERT_FE_OK(fe_tensor_set_alignment(c, 16));
    ASSERT_FE_OK(fe_graph_validate(g));
    std::string json(1 << 14, '\0');
    size_t length = 0;
    ASSERT_FE_OK(fe_graph_to_json(g, &json[0], json.size(), &length));
    json.resize(length);
    EXPECT_NE(json.find("\"alignment\":256"), std::string::npos) << json;
    EXPECT_EQ(json.find("\"alignment\":16"), std::string::npos) << json;
}

// A GPU description is checked before cuDNN reads it (cuDNN's own complaint names no cause).
TEST_F(Graph, DeviceDescriptionsAreChecked) {
    EXPECT_FE_STATUS(fe_graph_set_device_properties(g, "{\"deviceName\": \"x\", "), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("fe_graph_set_device_properties: the device properties: not JSON (line 1"))
        << fe_last_error_message();
    EXPECT_FE_REFUSED(fe_graph_set_device_properties(g, "[1, 2]"), FE_STATUS_INVALID_ARGUMENT,
                      "the device properties: not a JSON object");
    EXPECT_FE_STATUS(fe_graph_set_device_properties(g, "{\"name\": \"H100\"}"), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("not a GPU description: it lacks \"deviceName\" or \"deviceVer\""));
    ASSERT_FE_OK(fe_graph_set_device_properties(g, "{\"deviceName\": \"NVIDIA H100\", \"deviceVer\": 900}"));
}

TEST_F(Graph, UntypedInputNeedsAGraphDefault) {
    fe_graph *bare = nullptr;
    ASSERT_FE_OK(fe_graph_create(nullptr, &bare));
    int64_t d[2] = {4, 4};
    fe_tensor *x = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_tensor(bare, "x", 2, d, nullptr, FE_DATA_NOT_SET, &x));
    ASSERT_FE_OK(fe_graph_relu(bare, x, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    EXPECT_FE_REFUSED(fe_graph_validate(bare), FE_STATUS_VALIDATION,
                      "input 'x' has no data type and the graph has no io_data_type");
    // A tensor of another graph is refused.
    fe_tensor *z = nullptr;
    EXPECT_FE_REFUSED(fe_graph_relu(g, x, nullptr, &z), FE_STATUS_INVALID_ARGUMENT, "belongs to another graph");
    fe_graph_destroy(bare);
}

TEST_F(Graph, NamesAndLookups) {
    fe_tensor *x = tensor("x", {4});
    fe_tensor *dup = nullptr;
    int64_t d[1] = {4};
    EXPECT_FE_STATUS(fe_graph_tensor(g, "x", 1, d, nullptr, FE_DATA_HALF, &dup), FE_STATUS_DUPLICATE);
    EXPECT_FE_STATUS(fe_graph_tensor(g, "y", 1, d, nullptr, static_cast<fe_data_type>(77), &dup),
                     FE_STATUS_INVALID_ARGUMENT);
    int64_t zero[1] = {0};
    EXPECT_FE_REFUSED(fe_graph_tensor(g, "z", 1, zero, nullptr, FE_DATA_HALF, &dup), FE_STATUS_INVALID_ARGUMENT,
                      "dims must be positive");
    ASSERT_FE_OK(fe_tensor_set_name(x, "renamed"));
    fe_tensor *found = nullptr;
    ASSERT_FE_OK(fe_graph_tensor_by_name(g, "renamed", &found));
    EXPECT_EQ(found, x);
    EXPECT_FE_STATUS(fe_graph_tensor_by_name(g, "x", &found), FE_STATUS_NOT_FOUND);
    size_t n = 0;
    ASSERT_FE_OK(fe_graph_input_count(g, &n));
    EXPECT_EQ(n, 1u);
    EXPECT_FE_STATUS(fe_graph_input(g, 1, &found), FE_STATUS_INVALID_ARGUMENT);
    fe_tensor *s = nullptr;
    ASSERT_FE_OK(fe_graph_scalar(g, "half", 0.5, FE_DATA_FLOAT, &s));
    EXPECT_FE_STATUS(fe_graph_scalar(g, "bad", 0.5, FE_DATA_BOOLEAN, &s), FE_STATUS_INVALID_ARGUMENT);
}

TEST_F(Graph, DescribeShowsShapesOperationsAndUsesTheBufferProtocol) {
    fe_tensor *y = seed_conv();
    ASSERT_NE(y, nullptr);
    size_t length = 0;
    EXPECT_FE_STATUS(fe_graph_describe(g, nullptr, 0, &length), FE_STATUS_BUFFER_TOO_SMALL);
    ASSERT_GT(length, 0u);
    std::string text(length + 1, '\0');
    ASSERT_FE_OK(fe_graph_describe(g, &text[0], text.size(), &length));
    text.resize(length);
    EXPECT_NE(text.find("conv_fprop 'conv_fprop_0' (image=x, weight=w) pre_padding=[1,1]"), std::string::npos) << text;
    EXPECT_NE(text.find("dims=[8,32,56,56]"), std::string::npos) << text;
}

TEST(Info, VersionsStatusesAndTypes) {
    EXPECT_EQ(fe_version(), static_cast<uint32_t>(FE_VERSION));
    EXPECT_STREQ(fe_version_string(), "1.4.0");
    EXPECT_STREQ(fe_status_string(FE_STATUS_NOT_SUPPORTED), "FE_STATUS_NOT_SUPPORTED");
    EXPECT_STREQ(fe_status_string(FE_OK), "FE_OK");
    for (int s = 0; s <= FE_STATUS_INTERNAL; ++s)
        EXPECT_STRNE(fe_status_string(static_cast<fe_status>(s)), "FE_STATUS_UNKNOWN") << s;
    EXPECT_STREQ(fe_status_string(static_cast<fe_status>(1234)), "FE_STATUS_UNKNOWN");
    EXPECT_STREQ(fe_data_type_string(FE_DATA_BFLOAT16), "bfloat16");
    EXPECT_EQ(fe_data_type_size(FE_DATA_HALF), 2u);
    EXPECT_EQ(fe_data_type_size(FE_DATA_FP8_E4M3), 1u);
    EXPECT_EQ(fe_data_type_size(FE_DATA_NOT_SET), 0u);
    EXPECT_FE_OK(fe_log_set_level(FE_LOG_OFF));
    EXPECT_FE_STATUS(fe_log_set_level(static_cast<fe_log_level>(9)), FE_STATUS_INVALID_ARGUMENT);
}

TEST(Info, LastErrorIsPerThread) {
    fe_graph *g = nullptr;
    EXPECT_FE_STATUS(fe_graph_validate(nullptr), FE_STATUS_NULL_POINTER);
    std::string here = fe_last_error_message();
    std::thread other([] { fe_graph_build(nullptr, nullptr, nullptr); });
    other.join();
    EXPECT_EQ(here, fe_last_error_message());
    (void)g;
}

}  // namespace

namespace {

// A uid of INT64_MAX once made the build's own numbering overflow (and wrap into the caller's
// uids): uids are 0 to FE_MAX_USER_UID, from the API and from graph JSON.
TEST(UserUids, AreBoundedBelowTheLibrarysOwn) {
    fe_graph *g = nullptr;
    ASSERT_FE_OK(fe_graph_create(nullptr, &g));
    fe_tensor *a = cudnnfe_test::make_tensor(g, "a", {2, 8}, false, FE_DATA_FLOAT);
    EXPECT_FE_STATUS(fe_tensor_set_uid(a, INT64_MAX), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("outside 0 to FE_MAX_USER_UID")) << fe_last_error_message();
    EXPECT_FE_STATUS(fe_tensor_set_uid(a, -1), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_FE_STATUS(fe_tensor_set_uid(a, FE_MAX_USER_UID + 1), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_FE_OK(fe_tensor_set_uid(a, FE_MAX_USER_UID));
    EXPECT_FE_OK(fe_tensor_set_uid(a, 0));
    fe_graph_destroy(g);
    std::string text = "{\"format\":\"cudnnfe.graph\",\"version\":1,\"name\":\"u\",\"tensors\":[{\"name\":\"x\",\"uid\":"
                       "9223372036854775807,\"dims\":[1,8],\"data_type\":\"float\"}],\"ops\":[{\"op\":\"relu\",\"inputs\":"
                       "{\"IN_0\":\"x\"},\"outputs\":{\"Y\":\"y\"}}],\"outputs\":[\"y\"]}";
    fe_graph *from_json = nullptr;
    EXPECT_FE_STATUS(fe_graph_from_json(text.data(), text.size(), &from_json), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("FE_MAX_USER_UID")) << fe_last_error_message();
}

// pages * page_size overflowed int64 (2^55 pages of 1024 keys): the check divides instead. Run
// under UndefinedBehaviorSanitizer (the sanitized unit suite), the overflow stops the program.
TEST(PagedAttention, TheTableSizeCheckCannotOverflow) {
    auto attempt = [](int64_t pages, int64_t max_seq_len_kv) {
        fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
        go.io_data_type = FE_DATA_HALF;
        fe_graph *g = nullptr;
        EXPECT_FE_OK(fe_graph_create(&go, &g));
        fe_tensor *q = cudnnfe_test::make_tensor(g, "q", {2, 8, 1, 64}, false, FE_DATA_NOT_SET);
        fe_tensor *k = cudnnfe_test::make_tensor(g, "k", {1, 2, 1024, 64}, false, FE_DATA_NOT_SET);
        fe_tensor *v = cudnnfe_test::make_tensor(g, "v", {1, 2, 1024, 64}, false, FE_DATA_NOT_SET);
        fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
        o.seq_len_q = cudnnfe_test::make_tensor(g, "sq", {2, 1, 1, 1}, false, FE_DATA_INT32);
        o.seq_len_kv = cudnnfe_test::make_tensor(g, "skv", {2, 1, 1, 1}, false, FE_DATA_INT32);
        o.page_table_k = cudnnfe_test::make_tensor(g, "pk", {2, 1, pages, 1}, false, FE_DATA_INT32);
        o.page_table_v = cudnnfe_test::make_tensor(g, "pv", {2, 1, pages, 1}, false, FE_DATA_INT32);
        o.max_seq_len_kv = max_seq_len_kv;
        fe_tensor *out = nullptr;
        fe_status s = fe_graph_sdpa(g, q, k, v, &o, &out, nullptr);
        if (s == FE_OK) s = fe_tensor_set_output(out, 1);
        if (s == FE_OK) s = fe_graph_validate(g);
        std::string message = s == FE_OK ? "" : fe_last_error_message();
        fe_graph_destroy(g);
        return message;
    };
    attempt(int64_t(1) << 55, INT64_MAX);  // enough pages: only that it returns matters here
    EXPECT_NE(attempt(8, INT64_MAX).find("with pages * 1024 >= 9223372036854775807"), std::string::npos);
    EXPECT_EQ(attempt(8, 8 * 1024), "");
    EXPECT_NE(attempt(8, 8 * 1024 + 1).find("page table 'pk'"), std::string::npos);
}

}  // namespace
