// Matmul, pointwise and reduction graphs run on runtime-compiled engines: with no GPU they are
// lowered, queried and support-checked for real; their kernels are compiled on the GPU.
#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

struct MatmulCase {
    const char *name;
    fe_data_type type;
};

class MatmulSupport : public Deviceless, public ::testing::WithParamInterface<MatmulCase> {};

TEST_P(MatmulSupport, SeedMatmulBiasIsSupported) {
    // The seed: C = A x B + D with B=16, M=N=128, K=512, bias 1xMxN.
    fe_graph *g = graph(GetParam().name, GetParam().type);
    fe_tensor *a = tensor(g, "a", {16, 128, 512});
    fe_tensor *b = tensor(g, "b", {16, 512, 128});
    fe_tensor *d = tensor(g, "d", {1, 128, 128});
    fe_tensor *ab = nullptr, *c = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &ab));
    ASSERT_FE_OK(fe_graph_bias(g, ab, d, nullptr, &c));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    expect_supported(g);
    EXPECT_NE(describe(g).find("cuDNN: 2 operation(s)"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Deviceless, MatmulSupport,
                         ::testing::Values(MatmulCase{"fp16", FE_DATA_HALF}, MatmulCase{"bf16", FE_DATA_BFLOAT16},
                                           MatmulCase{"fp32", FE_DATA_FLOAT}),
                         [](const ::testing::TestParamInfo<MatmulCase> &info) { return std::string(info.param.name); });

// A half matmul alone is supported: batched, two-dimensional (lowered with a batch of one), and
// with A's batch of one broadcast over B's.
TEST_F(Deviceless, LoneMatmulsAreSupported) {
    struct Shapes {
        const char *name;
        std::vector<int64_t> a, b;
    };
    for (const Shapes &m : {Shapes{"matmul", {4, 256, 128}, {4, 128, 64}}, Shapes{"matmul_2d", {256, 128}, {128, 64}},
                            Shapes{"matmul_broadcast", {1, 128, 64}, {8, 64, 32}}}) {
        SCOPED_TRACE(m.name);
        fe_graph *g = graph(m.name, FE_DATA_HALF);
        fe_tensor *a = tensor(g, "a", m.a), *b = tensor(g, "b", m.b), *c = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
        ASSERT_FE_OK(fe_tensor_set_output(c, 1));
        expect_supported(g);
    }
}

TEST_F(Deviceless, MatmulBiasGeluIsOneOperationGraph) {
    fe_graph *g = graph("matmul_bias_gelu", FE_DATA_BFLOAT16);
    fe_tensor *a = tensor(g, "a", {8, 128, 256});
    fe_tensor *b = tensor(g, "b", {8, 256, 512});
    fe_tensor *bias = tensor(g, "bias", {1, 1, 512});
    fe_tensor *ab = nullptr, *biased = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &ab));
    ASSERT_FE_OK(fe_graph_bias(g, ab, bias, nullptr, &biased));
    ASSERT_FE_OK(fe_graph_gelu(g, biased, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    expect_supported(g);
    EXPECT_NE(describe(g).find("cuDNN: 3 operation(s)"), std::string::npos);
}

TEST_F(Deviceless, PointwiseChainWithScalarIsSupported) {
    // y = silu(x + r) * 0.5: add, swish and a by-value scalar multiply in one graph.
    fe_graph *g = graph("pointwise_chain", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {4, 256, 1024});
    fe_tensor *r = tensor(g, "r", {4, 256, 1024});
    fe_tensor *half = nullptr, *sum = nullptr, *act = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_scalar(g, "half", 0.5, FE_DATA_FLOAT, &half));
    ASSERT_FE_OK(fe_graph_add(g, x, r, nullptr, &sum));
    ASSERT_FE_OK(fe_graph_silu(g, sum, nullptr, &act));
    ASSERT_FE_OK(fe_graph_scale(g, act, half, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    expect_supported(g);
}

TEST_F(Deviceless, MatmulRowMaxReductionIsSupported) {
    fe_graph *g = graph("matmul_rowmax", FE_DATA_HALF);
    fe_tensor *a = tensor(g, "a", {4, 1024, 64});
    fe_tensor *b = tensor(g, "b", {4, 64, 1024});
    fe_tensor *s = nullptr, *m = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &s));
    fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
    o.reduce_axes = 1u << 2;
    ASSERT_FE_OK(fe_graph_reduction(g, s, FE_REDUCTION_MAX, &o, &m));
    ASSERT_FE_OK(fe_tensor_set_data_type(m, FE_DATA_FLOAT));
    ASSERT_FE_OK(fe_tensor_set_output(m, 1));
    expect_supported(g);
}

// A reduction on its own, fp32, as the reference frontend runs it: over every dim, and over the
// channels of a channels-last tensor. (cuDNN 9.19 has no engine for one over W alone.)
TEST_F(Deviceless, ALoneReductionIsSupportedOverEveryDimAndOverTheChannels) {
    for (uint32_t axes : {0xFu, 0x2u}) {
        fe_graph *g = graph("lone_reduction", FE_DATA_FLOAT);
        fe_tensor *x = tensor(g, "x", {16, 64, 32, 32}, true), *y = nullptr;
        fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
        o.reduce_axes = axes;
        ASSERT_FE_OK(fe_graph_reduction(g, x, FE_REDUCTION_MAX, &o, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        SCOPED_TRACE(axes);
        expect_supported(g);
    }
}

// What cuDNN 9.19 cannot build is refused before cuDNN sees it, with the capability table's
// words: the product of the non-zero elements, the mean and the norms, and a deterministic
// reduction.
TEST_F(Deviceless, ReductionModesAndADeterministicReductionAreRefusedWithTheirReason) {
    struct Case {
        fe_reduction_mode mode;
        int32_t deterministic;
        const char *reason;
    } cases[] = {{FE_REDUCTION_MUL_NO_ZEROS, 0, "the product of the non-zero elements (FE_REDUCTION_MUL_NO_ZEROS): refused"},
                 {FE_REDUCTION_AVG, 0, "the mean and the norms of a reduction (FE_REDUCTION_AVG, "},
                 {FE_REDUCTION_NORM1, 0, "then scale by 1 / n (the mean), add the absolute values (NORM1)"},
                 {FE_REDUCTION_NORM2, 0, "add the squares and take the square root (NORM2)"},
                 {FE_REDUCTION_ADD, 1, "a deterministic reduction on its own (fe_reduction_options.deterministic, of a graph "
                                         "input): refused"}};
    for (const Case &c : cases) {
        fe_graph *g = graph("refused_reduction", FE_DATA_FLOAT);
        fe_tensor *x = tensor(g, "x", {8, 64, 4, 4}, true), *y = nullptr;
        fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
        o.reduce_axes = 0x2u;
        o.deterministic = c.deterministic;
        ASSERT_FE_OK(fe_graph_reduction(g, x, c.mode, &o, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        EXPECT_FE_STATUS(build(g), FE_STATUS_NOT_SUPPORTED);
        EXPECT_TRUE(LastErrorContains(c.reason)) << fe_last_error_message();
        EXPECT_TRUE(LastErrorContains("known bad through 9.19")) << fe_last_error_message();
    }
}

// Fused after the matmul that produces its input, a deterministic reduction is taken (the
// probe deterministic_reduction_kernels:fused ran it right on an H200).
TEST_F(Deviceless, ADeterministicReductionAfterAMatmulIsSupported) {
    fe_graph *g = graph("matmul_deterministic_sum", FE_DATA_HALF);
    fe_tensor *a = tensor(g, "a", {1, 256, 64}), *b = tensor(g, "b", {1, 64, 128}), *c = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
    ASSERT_FE_OK(fe_tensor_set_data_type(c, FE_DATA_FLOAT));
    fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
    o.reduce_axes = 0x4u;
    o.deterministic = 1;
    ASSERT_FE_OK(fe_graph_reduction(g, c, FE_REDUCTION_ADD, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_data_type(y, FE_DATA_FLOAT));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    expect_supported(g);
}

// Every pointwise mode lowers (its descriptors finalize in cuDNN); unary and binary modes are
// taken through heuristics as one graph each.
TEST_F(Deviceless, EveryPointwiseModeLowers) {
    struct Mode {
        fe_pointwise_mode mode;
        int arity;
        fe_data_type out;
    };
    const Mode modes[] = {
        {FE_POINTWISE_ADD, 2, FE_DATA_HALF},        {FE_POINTWISE_SUB, 2, FE_DATA_HALF},
        {FE_POINTWISE_MUL, 2, FE_DATA_HALF},        {FE_POINTWISE_DIV, 2, FE_DATA_HALF},
        {FE_POINTWISE_MIN, 2, FE_DATA_HALF},        {FE_POINTWISE_MAX, 2, FE_DATA_HALF},
        {FE_POINTWISE_POW, 2, FE_DATA_HALF},        {FE_POINTWISE_ADD_SQUARE, 2, FE_DATA_HALF},
        {FE_POINTWISE_RELU_FWD, 1, FE_DATA_HALF},   {FE_POINTWISE_GELU_FWD, 1, FE_DATA_HALF},
        {FE_POINTWISE_GELU_APPROX_TANH_FWD, 1, FE_DATA_HALF}, {FE_POINTWISE_SWISH_FWD, 1, FE_DATA_HALF},
        {FE_POINTWISE_SIGMOID_FWD, 1, FE_DATA_HALF}, {FE_POINTWISE_TANH_FWD, 1, FE_DATA_HALF},
        {FE_POINTWISE_ELU_FWD, 1, FE_DATA_HALF},    {FE_POINTWISE_SOFTPLUS_FWD, 1, FE_DATA_HALF},
        {FE_POINTWISE_EXP, 1, FE_DATA_HALF},        {FE_POINTWISE_LOG, 1, FE_DATA_HALF},
        {FE_POINTWISE_SQRT, 1, FE_DATA_HALF},       {FE_POINTWISE_RSQRT, 1, FE_DATA_HALF},
        {FE_POINTWISE_RECIPROCAL, 1, FE_DATA_HALF}, {FE_POINTWISE_ABS, 1, FE_DATA_HALF},
        {FE_POINTWISE_NEG, 1, FE_DATA_HALF},        {FE_POINTWISE_CEIL, 1, FE_DATA_HALF},
        {FE_POINTWISE_FLOOR, 1, FE_DATA_HALF},      {FE_POINTWISE_SIN, 1, FE_DATA_HALF},
        {FE_POINTWISE_COS, 1, FE_DATA_HALF},        {FE_POINTWISE_TAN, 1, FE_DATA_HALF},
        {FE_POINTWISE_ERF, 1, FE_DATA_HALF},        {FE_POINTWISE_IDENTITY, 1, FE_DATA_HALF},
        {FE_POINTWISE_CMP_GT, 2, FE_DATA_BOOLEAN},  {FE_POINTWISE_CMP_EQ, 2, FE_DATA_BOOLEAN},
        {FE_POINTWISE_RELU_BWD, 2, FE_DATA_HALF},   {FE_POINTWISE_GELU_BWD, 2, FE_DATA_HALF},
    };
    for (const Mode &m : modes) {
        SCOPED_TRACE(std::to_string(static_cast<int>(m.mode)));
        fe_graph *g = graph("pointwise_mode", FE_DATA_HALF);
        fe_tensor *x = tensor(g, "x", {2, 64, 256});
        fe_tensor *b = m.arity > 1 ? tensor(g, "b", {2, 64, 256}) : nullptr;
        fe_tensor *y = nullptr;
        ASSERT_FE_OK(fe_graph_pointwise(g, m.mode, x, b, nullptr, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_data_type(y, m.out));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        ASSERT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
        ASSERT_FE_OK(fe_graph_build_operation_graph(g, nullptr));
    }
}

TEST_F(Deviceless, BinarySelectAndGenIndexLower) {
    fe_graph *g = graph("select", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {2, 64, 256});
    fe_tensor *b = tensor(g, "b", {2, 64, 256});
    fe_tensor *mask = tensor(g, "mask", {2, 64, 256}, false, FE_DATA_BOOLEAN);
    fe_tensor *y = nullptr, *index = nullptr;
    ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_BINARY_SELECT, x, b, mask, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    fe_pointwise_options o = FE_POINTWISE_OPTIONS_INIT;
    o.axis = 2;
    ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_GEN_INDEX, x, nullptr, nullptr, &o, &index));
    ASSERT_FE_OK(fe_tensor_set_data_type(index, FE_DATA_INT32));
    ASSERT_FE_OK(fe_tensor_set_output(index, 1));
    ASSERT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
    ASSERT_FE_OK(fe_graph_build_operation_graph(g, nullptr));
}

}  // namespace

// matmul -> gelu -> matmul in one graph is refused at build (cuDNN 9.19's fused kernel for the
// chain gave wrong results on an H100); the message says how to split it.
TEST_F(Deviceless, ChainedMatmulsAreRefusedWithTheWayOut) {
    fe_graph *g = graph("chained_matmuls", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {2, 64, 128}), *w1 = tensor(g, "w1", {1, 128, 256}), *w2 = tensor(g, "w2", {1, 256, 128});
    fe_tensor *hidden, *h, *out;
    ASSERT_FE_OK(fe_graph_matmul(g, x, w1, nullptr, &hidden));
    ASSERT_FE_OK(fe_graph_gelu(g, hidden, nullptr, &h));
    ASSERT_FE_OK(fe_graph_matmul(g, h, w2, nullptr, &out));
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
    ASSERT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
    EXPECT_EQ(fe_graph_build_operation_graph(g, nullptr), FE_STATUS_NOT_SUPPORTED);
    std::string message = fe_last_error_message();
    EXPECT_NE(message.find("two chained matmuls"), std::string::npos) << message;
    EXPECT_NE(message.find("mark 'gelu_0::Y' as an output"), std::string::npos) << message;
}

namespace {

// Batchnorm statistics of a convolution's output run in the convolution's plan; genstats on its
// own has no engine, and the support check says where it runs.
TEST_F(Deviceless, GenstatsAfterAConvolutionIsSupportedAndAloneIsExplained) {
    for (fe_data_type type : {FE_DATA_HALF, FE_DATA_BFLOAT16}) {
        fe_graph *g = graph("conv_genstats", type);
        fe_tensor *x = tensor(g, "x", {4, 32, 32, 32}, true), *w = tensor(g, "w", {64, 32, 3, 3}, true);
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        int64_t one = 1;
        ASSERT_FE_OK(fe_conv_options_set_padding(&o, 1, &one));
        fe_tensor *y = nullptr, *sum = nullptr, *sq_sum = nullptr;
        ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        ASSERT_FE_OK(fe_graph_genstats(g, y, nullptr, &sum, &sq_sum));
        for (fe_tensor *t : {y, sum, sq_sum}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        expect_supported(g);
        EXPECT_NE(describe(g).find("cuDNN: 2 operation(s)"), std::string::npos);
        int64_t dims[4] = {0};
        fe_data_type stats_type = FE_DATA_NOT_SET;
        ASSERT_FE_OK(fe_tensor_get_dims(sum, dims, 4));
        ASSERT_FE_OK(fe_tensor_get_data_type(sq_sum, &stats_type));
        EXPECT_EQ(dims[1], 64);
        EXPECT_EQ(dims[0] * dims[2] * dims[3], 1);
        EXPECT_EQ(stats_type, FE_DATA_FLOAT);
    }
    fe_graph *g = graph("genstats_alone", FE_DATA_HALF);
    fe_tensor *y = tensor(g, "y", {4, 64, 32, 32}, true), *sum = nullptr, *sq_sum = nullptr;
    ASSERT_FE_OK(fe_graph_genstats(g, y, nullptr, &sum, &sq_sum));
    for (fe_tensor *t : {sum, sq_sum}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    ASSERT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
    ASSERT_FE_OK(fe_graph_build_operation_graph(g, nullptr));
    EXPECT_FE_OK(fe_graph_create_execution_plans(g, nullptr, 0));
    EXPECT_EQ(fe_graph_check_support(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("runs genstats fused after the convolution whose result it reads"));
}

}  // namespace

// An alignment promise reaches cuDNN (the tensors' byte alignment): a matmul whose operands and
// result promise 256 bytes has engines on the H100 description.
TEST_F(Deviceless, MatmulWithAnAlignmentPromise) {
    fe_graph *g = graph("aligned_matmul", FE_DATA_HALF);
    fe_tensor *a = tensor(g, "a", {1, 256, 512}), *b = tensor(g, "b", {1, 512, 128}), *c = nullptr;
    ASSERT_FE_OK(fe_tensor_set_alignment(a, 256));
    ASSERT_FE_OK(fe_tensor_set_alignment(b, 256));
    fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, &o, &c));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    ASSERT_FE_OK(fe_tensor_set_alignment(c, 256));
    expect_supported(g);
}

// A mixed matmul (int8 or FP8 weights, half activations): the narrower operand is converted in
// the same graph, which cuDNN's engines take.
TEST_F(Deviceless, MixedMatmulsConvertTheNarrowerOperand) {
    struct Mixed {
        const char *name;
        fe_data_type a, b;
    };
    for (Mixed m : {Mixed{"int8_half", FE_DATA_INT8, FE_DATA_HALF}, Mixed{"fp8_half", FE_DATA_FP8_E4M3, FE_DATA_HALF},
                    Mixed{"half_bfloat16", FE_DATA_HALF, FE_DATA_BFLOAT16}}) {
        SCOPED_TRACE(m.name);
        fe_graph *g = graph(m.name, FE_DATA_HALF);
        fe_tensor *a = tensor(g, "a", {1, 64, 128}, false, m.a), *b = tensor(g, "b", {1, 128, 64}, false, m.b);
        fe_tensor *c = nullptr;
        fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
        o.compute_data_type = FE_DATA_FLOAT;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, &o, &c));
        ASSERT_FE_OK(fe_tensor_set_output(c, 1));
        expect_supported(g);
    }
}

// A convolution writing into a concatenation along the channels (its output beside a skip
// tensor, copied or already in place): cuDNN 9.19 lists engines for it whose plans write wrong
// values on Hopper, so the capability table refuses it at build, saying what to do instead.
TEST_F(Deviceless, ConvolutionIntoAConcatenation) {
    for (int64_t in_place : {-1, 0}) {
        SCOPED_TRACE(in_place < 0 ? "copied" : "in place");
        fe_graph *g = graph("conv_concat", FE_DATA_HALF);
        fe_tensor *x = tensor(g, "x", {8, 64, 56, 56}, true), *w = tensor(g, "w", {32, 64, 3, 3}, true);
        fe_tensor *skip = tensor(g, "skip", {8, 32, 56, 56}, true, FE_DATA_HALF), *y = nullptr, *cat = nullptr;
        fe_conv_options co = FE_CONV_OPTIONS_INIT;
        int64_t pad[2] = {1, 1};
        ASSERT_FE_OK(fe_conv_options_set_padding(&co, 2, pad));
        ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &co, &y));
        ASSERT_FE_OK(fe_tensor_set_data_type(y, FE_DATA_HALF));
        fe_concatenate_options o = FE_CONCATENATE_OPTIONS_INIT;
        o.in_place_index = in_place;
        fe_tensor *parts[2] = {skip, y};
        ASSERT_FE_OK(fe_graph_concatenate(g, 2, parts, 1, &o, &cat));
        int64_t dims[4] = {8, 64, 56, 56}, strides[4];
        ASSERT_FE_OK(fe_strides_channels_last(4, dims, strides));
        ASSERT_FE_OK(fe_tensor_set_strides(cat, 4, strides));
        ASSERT_FE_OK(fe_tensor_set_output(cat, 1));
        fe_build_options bo = FE_BUILD_OPTIONS_INIT;
        bo.device_properties_json = json_.c_str();
        EXPECT_FE_STATUS(fe_graph_build(g, nullptr, &bo), FE_STATUS_NOT_SUPPORTED);
        EXPECT_TRUE(LastErrorContains("a concatenation of an operation's result")) << fe_last_error_message();
        EXPECT_TRUE(LastErrorContains("known bad through")) << fe_last_error_message();
    }
}

namespace {

// A compile-time constant is lowered only where cuDNN compiles constants into its kernels (9.22):
// before, the build names the version; the same graph with a scalar passed by value builds.
TEST_F(Deviceless, ACompileTimeConstantNeedsTheCudnnThatCompilesIt) {
    for (bool constant : {true, false}) {
        fe_graph *g = graph(constant ? "constant" : "scalar", FE_DATA_HALF);
        fe_tensor *a = tensor(g, "a", {4, 256, 128}), *b = tensor(g, "b", {4, 128, 64});
        fe_tensor *c = nullptr, *scale = nullptr, *y = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
        ASSERT_FE_OK(constant ? fe_graph_constant(g, "scale", 0.5, FE_DATA_FLOAT, &scale)
                              : fe_graph_scalar(g, "scale", 0.5, FE_DATA_FLOAT, &scale));
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_MUL, c, scale, nullptr, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        if (!constant) {
            expect_supported(g);
            continue;
        }
        EXPECT_NE(describe(g).find("value=0.5 (compile-time constant)"), std::string::npos) << describe(g);
        EXPECT_FE_REFUSED(build(g), FE_STATUS_NOT_SUPPORTED,
                          "compile-time constant scalars (fe_graph_constant) needs cuDNN >= 9.22.0");
    }
}

}  // namespace
