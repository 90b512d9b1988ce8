// Refusals made from the conformance run of seed 43 on an H200: a matmul epilogue operand laid
// out with its batch inside its matrix or with a stride on its unit N, the index of a gapped graph
// input, and the weight gradient of a grouped 3-D convolution with asymmetric padding. Each
// refused graph names the capability table's reason; the nearest graphs the run found right
// still lower.
#include <string>

#include "known_bad_support.hpp"

using cudnnfe_test::channels_last_strides;
using cudnnfe_test::packed_strides;
using cudnnfe_test::strided;

namespace {

using OperandLayoutRefusals = cudnnfe_test::KnownBadRefusal;

// C = A [b, M, K] x B [b, K, N] plus an operand of `bias_dims` and `bias_strides`.
void matmul_plus(fe_graph *g, int64_t b, int64_t m, int64_t n, const std::vector<int64_t> &bias_dims,
                 const std::vector<int64_t> &bias_strides) {
    const int64_t k = 16;
    const std::vector<int64_t> da = {b, m, k}, db = {b, k, n};
    fe_tensor *a = strided(g, "a", da, packed_strides(da)), *bm = strided(g, "b", db, packed_strides(db));
    fe_tensor *bias = strided(g, "bias", bias_dims, bias_strides), *c = nullptr, *y = nullptr;
    EXPECT_FE_OK(fe_graph_matmul(g, a, bm, nullptr, &c));
    EXPECT_FE_OK(fe_graph_add(g, c, bias, nullptr, &y));
    EXPECT_FE_OK(fe_tensor_set_output(y, 1));
}

// A bias [3, 358, 4] with its batch innermost (seed 43 case 495): refused; batch outermost, taken.
TEST_F(OperandLayoutRefusals, MatmulOperandWithItsBatchInsideTheMatrix) {
    for (bool inside : {true, false}) {
        SCOPED_TRACE(inside ? "batch innermost" : "batch outermost");
        fe_graph *g = graph("matmul_full_bias", FE_DATA_BFLOAT16);
        const std::vector<int64_t> dims = {3, 358, 4};
        matmul_plus(g, 3, 358, 4, dims, inside ? std::vector<int64_t>{1, 12, 3} : packed_strides(dims));
        expect_refused_or_lowered(g, inside, "or an epilogue operand of C's shape, has neither M nor N contiguous");
    }
}

// A column operand [5, 909, 1] whose unit N has the stride 55 (seed 43 case 653): refused; the
// stride 1, or one batch, taken.
TEST_F(OperandLayoutRefusals, MatmulColumnOperandPerBatchWithAStrideOnItsUnitN) {
    struct Form {
        const char *name;
        int64_t batch, n_stride;
        bool refused;
    };
    for (const Form &f : {Form{"5 batches, N stride 55", 5, 55, true}, Form{"5 batches, N stride 1", 5, 1, false},
                          Form{"1 batch, N stride 55", 1, 55, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("matmul_column", FE_DATA_HALF);
        matmul_plus(g, f.batch, 909, 1, {f.batch, 909, 1}, {909, 1, f.n_stride});
        expect_refused_or_lowered(g, f.refused, "whose unit N dim has a stride other than 1");
    }
}

// The index along each dim of a float [37, 204] input with a gap of 8 after each row (seed 43
// case 86): refused; of a packed input, taken.
TEST_F(OperandLayoutRefusals, IndexOfAGappedInput) {
    for (bool gap : {true, false}) {
        SCOPED_TRACE(gap ? "rows 212 apart" : "packed");
        fe_graph *g = graph("gen_index", FE_DATA_FLOAT);
        const std::vector<int64_t> dims = {37, 204};
        fe_tensor *x = strided(g, "x", dims, gap ? std::vector<int64_t>{212, 1} : packed_strides(dims));
        fe_pointwise_options o = FE_POINTWISE_OPTIONS_INIT;
        o.axis = 0;
        fe_tensor *index = nullptr, *y = nullptr;
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_GEN_INDEX, x, nullptr, nullptr, &o, &index));
        ASSERT_FE_OK(fe_tensor_set_data_type(index, FE_DATA_FLOAT));
        ASSERT_FE_OK(fe_graph_add(g, x, index, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, gap, "(GEN_INDEX) of a graph input laid out with a gap");
    }
}

// The bfloat16 weight gradient of a 3-D convolution of 4 groups of 2 channels padded (1, 0, 4)
// before and (3, 0, 3) after (seed 43 case 742): refused; padded symmetrically, taken.
TEST_F(OperandLayoutRefusals, GroupedWgradOf3dWithAsymmetricPadding) {
    for (bool asymmetric : {true, false}) {
        SCOPED_TRACE(asymmetric ? "asymmetric" : "symmetric");
        fe_graph *g = graph("wgrad_grouped_3d", FE_DATA_BFLOAT16);
        const std::vector<int64_t> dx = {1, 8, 10, 15, 6};
        fe_tensor *x = strided(g, "x", dx, channels_last_strides(dx));
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        o.groups = 4;
        const int64_t pre[3] = {1, 0, 4}, post[3] = {3, 0, 3}, same[3] = {1, 0, 3}, stride[3] = {2, 2, 2},
                      dilation[3] = {2, 2, 2};
        ASSERT_FE_OK(fe_conv_options_set_pre_padding(&o, 3, asymmetric ? pre : same));
        ASSERT_FE_OK(fe_conv_options_set_post_padding(&o, 3, asymmetric ? post : same));
        ASSERT_FE_OK(fe_conv_options_set_stride(&o, 3, stride));
        ASSERT_FE_OK(fe_conv_options_set_dilation(&o, 3, dilation));
        // Output extents: (in + pre + post - 5) / 2 + 1.
        const std::vector<int64_t> ddy = {1, 4, asymmetric ? 5 : 4, 6, asymmetric ? 5 : 4};
        fe_tensor *dy = strided(g, "dy", ddy, packed_strides(ddy));
        const int64_t dw_dims[5] = {4, 2, 3, 3, 3};
        fe_tensor *dw = nullptr;
        ASSERT_FE_OK(fe_graph_conv_wgrad(g, x, dy, 5, dw_dims, &o, &dw));
        ASSERT_FE_OK(fe_tensor_set_output(dw, 1));
        expect_refused_or_lowered(g, asymmetric, "3-D grouped or depthwise convolution with asymmetric padding");
    }
}

}  // namespace
