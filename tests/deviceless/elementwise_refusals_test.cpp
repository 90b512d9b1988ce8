// Pointwise and reduction configurations the conformance runs found cuDNN 9.19 computing wrongly
// are refused at build with the capability table's reason, before cuDNN sees them; the same
// graphs without the offending shape or layout still build their operation graph.
#include "known_bad_support.hpp"

using cudnnfe_test::packed_strides;

namespace {

using ElementwiseRefusals = cudnnfe_test::KnownBadRefusal;

// Rank-3 operands broadcast along the last dim ([N, C, 1], [1, C, 1]) or along both first dims
// ([1, 1, W]) are refused; [N, 1, W] and [1, C, W] build.
TEST_F(ElementwiseRefusals, Rank3OperandBroadcastAlongTheLastDim) {
    struct Case {
        std::vector<int64_t> dims;
        bool refused;
    };
    const Case cases[] = {{{5, 67, 1}, true}, {{1, 67, 1}, true}, {{1, 1, 3}, true},
                          {{5, 1, 3}, false}, {{1, 67, 3}, false}};
    for (const Case &c : cases) {
        SCOPED_TRACE(::testing::PrintToString(c.dims));
        fe_graph *g = graph("pointwise_rank3_broadcast", FE_DATA_FLOAT);
        fe_tensor *x = tensor(g, "x", {5, 67, 3});
        fe_tensor *s = tensor(g, "s", c.dims), *y = nullptr;
        ASSERT_FE_OK(fe_graph_mul(g, x, s, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, c.refused, "broadcast along the last dim");
    }
}

// Softplus backward of a by-value scalar dy over an x [1, 2] read from memory (conformance seed
// 26 case 193): refused; over a computed x, and swish backward of the same dy, refused by the rule
// of rank 2 (seed 55 case 176).
TEST_F(ElementwiseRefusals, SoftplusBackwardOfAScalarDyOverAnInput) {
    for (int variant : {0, 1, 2}) {
        SCOPED_TRACE(variant);
        fe_graph *g = graph("softplus_backward_scalar", FE_DATA_HALF);
        fe_tensor *x = tensor(g, "x", {1, 2}), *dy = nullptr, *read = x, *y = nullptr;
        ASSERT_FE_OK(fe_graph_scalar(g, "dy", -0.3125, FE_DATA_FLOAT, &dy));
        if (variant == 1) ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_ABS, x, nullptr, nullptr, nullptr, &read));
        fe_pointwise_options o = FE_POINTWISE_OPTIONS_INIT;
        o.softplus_beta = 2.87;
        const fe_pointwise_mode mode = variant == 2 ? FE_POINTWISE_SWISH_BWD : FE_POINTWISE_SOFTPLUS_BWD;
        if (variant == 2) o.softplus_beta = 1.0;
        ASSERT_FE_OK(fe_graph_pointwise(g, mode, dy, read, nullptr, &o, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        // Over a computed x, or swish's backward, the rank-2 rule of one dy value for every element
        // refuses them (pointwise_backward_uniform_dy).
        if (variant == 0)
            expect_refused(g, "softplus backward (SOFTPLUS_BWD) of a by-value scalar dy");
        else
            expect_refused(g, "whose dy is one value for every element");
    }
}

// The index along dim 1 of a rank-3 value varies along that dim only, as a [1, C, 1] operand:
// refused; the index along the last dim builds.
TEST_F(ElementwiseRefusals, Rank3IndexAlongTheMiddleDim) {
    for (int64_t axis : {1, 2}) {
        SCOPED_TRACE(axis);
        fe_graph *g = graph("pointwise_rank3_index", FE_DATA_FLOAT);
        fe_tensor *x = tensor(g, "x", {5, 67, 3}), *index = nullptr, *y = nullptr;
        fe_pointwise_options o = FE_POINTWISE_OPTIONS_INIT;
        o.axis = axis;
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_GEN_INDEX, x, nullptr, nullptr, &o, &index));
        ASSERT_FE_OK(fe_tensor_set_data_type(index, FE_DATA_FLOAT));
        ASSERT_FE_OK(fe_graph_mul(g, index, x, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, axis == 1, "broadcast along the last dim");
    }
}

// A rank-3 input laid out channels-last (NWC), or a rank-3 result given a permuted layout, is
// refused; the same operation on row-major tensors builds.
TEST_F(ElementwiseRefusals, Rank3PointwiseInAPermutedLayout) {
    for (int variant : {0, 1, 2}) {
        SCOPED_TRACE(variant);
        fe_graph *g = graph("pointwise_rank3_layout", FE_DATA_FLOAT);
        fe_tensor *x = tensor(g, "x", {6, 7, 8}, variant == 1), *y = nullptr;
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_COS, x, nullptr, nullptr, nullptr, &y));
        if (variant == 2) {
            const int64_t transposed[3] = {1, 48, 6};  // dim 0 innermost
            ASSERT_FE_OK(fe_tensor_set_strides(y, 3, transposed));
        }
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, variant != 0, "not laid out dim 0 outermost");
    }
}

// gelu(x0 * x1) over [1, 1, 103] (seed 62 case 70): refused when x0's last dim is strided (a unit
// dim innermost, strides [1, 927, 9], or [927, 927, 9]); x0 packed, or with only its unit dims'
// strides odd, builds.
TEST_F(ElementwiseRefusals, Rank3PointwiseOverAStridedLastDim) {
    struct Form {
        const char *name;
        std::vector<int64_t> strides;
        bool refused;
    };
    for (const Form &f : {Form{"strides [1, 927, 9]", {1, 927, 9}, true}, Form{"strides [927, 927, 9]", {927, 927, 9}, true},
                          Form{"packed", {103, 103, 1}, false}, Form{"odd unit strides", {5, 7, 1}, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("pointwise_strided_row", FE_DATA_FLOAT);
        fe_tensor *x0 = cudnnfe_test::strided(g, "x0", {1, 1, 103}, f.strides), *x1 = tensor(g, "x1", {1, 1, 103});
        fe_tensor *product = nullptr, *y = nullptr;
        ASSERT_FE_OK(fe_graph_mul(g, x0, x1, nullptr, &product));
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_GELU_FWD, product, nullptr, nullptr, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, f.refused, "whose last dim is longer than one and not contiguous");
    }
}

// relu of a slice [1, 14, 6] of x [15, 22, 17] (layout seed 109 case 66: 65 of 84 wrong): refused
// when x's dim 0 is innermost (the slice's last dim strided, strides [1, 255, 15]); x row-major, and
// a slice of x keeping its last dim innermost, build.
TEST_F(ElementwiseRefusals, Rank3PointwiseOverASliceWithAStridedLastDim) {
    struct Form {
        const char *name;
        std::vector<int64_t> strides;
        bool refused;
    };
    for (const Form &f : {Form{"dim 0 innermost", {1, 255, 15}, true}, Form{"row-major", {374, 17, 1}, false},
                          Form{"dim 1 outermost, dim 2 innermost", {17, 255, 1}, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("slice_strided_row", FE_DATA_HALF);
        fe_tensor *x = cudnnfe_test::strided(g, "x", {15, 22, 17}, f.strides), *view = nullptr, *y = nullptr;
        const int64_t start[3] = {11, 7, 5}, end[3] = {12, 21, 11};
        ASSERT_FE_OK(fe_graph_slice(g, x, 3, start, end, nullptr, &view));
        ASSERT_FE_OK(fe_graph_relu(g, view, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, f.refused, "whose last dim is longer than one and not contiguous");
    }
}

// An activation's backward at rank 4 with a per-pixel x ([N, 1, H, W]) or a by-value dy is
// refused; a per-channel x ([1, C, 1, 1]) builds.
TEST_F(ElementwiseRefusals, BackwardModeWithAnOperandBroadcastAlongTheChannels) {
    for (int variant : {0, 1, 2}) {
        SCOPED_TRACE(variant);
        fe_graph *g = graph("pointwise_backward_broadcast", FE_DATA_HALF);
        fe_tensor *dy = nullptr, *x = nullptr, *dx = nullptr;
        if (variant == 2) {
            ASSERT_FE_OK(fe_graph_scalar(g, "dy", 1.5, FE_DATA_FLOAT, &dy));
            x = tensor(g, "x", {2, 8, 4, 4}, true);
        } else {
            dy = tensor(g, "dy", {2, 8, 4, 4}, true);
            x = variant == 0 ? tensor(g, "x", {1, 8, 1, 1}, true) : tensor(g, "x", {2, 1, 4, 4}, true);
        }
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_GELU_BWD, dy, x, nullptr, nullptr, &dx));
        ASSERT_FE_OK(fe_tensor_set_output(dx, 1));
        expect_refused_or_lowered(g, variant != 0, "broadcast along the channels");
    }
}

// At rank 2, relu's backward with a per-row [51, 1] x is refused; a per-column [1, 6] x lowers.
TEST_F(ElementwiseRefusals, Rank2BackwardModeWithAPerRowOperand) {
    for (bool per_row : {true, false}) {
        SCOPED_TRACE(per_row ? "[51, 1]" : "[1, 6]");
        fe_graph *g = graph("pointwise_backward_rank2", FE_DATA_FLOAT);
        fe_tensor *dy = tensor(g, "dy", {51, 6}), *dx = nullptr;
        fe_tensor *x = per_row ? tensor(g, "x", {51, 1}) : tensor(g, "x", {1, 6});
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_RELU_BWD, dy, x, nullptr, nullptr, &dx));
        ASSERT_FE_OK(fe_tensor_set_output(dx, 1));
        expect_refused_or_lowered(g, per_row, "per-row [M, 1] dy or x");
    }
}

// A reduction over the channels of a channels-last tensor into a result with a gap after its
// batch dim, or with its dims in another order, is refused; the packed result builds.
TEST_F(ElementwiseRefusals, ReductionIntoAnUnpackedResult) {
    const std::vector<int64_t> packed = packed_strides({8, 1, 4, 4}), gap = {32, 32, 4, 1},
                               reordered = {4, 4, 32, 1};
    for (const std::vector<int64_t> *strides : {&packed, &gap, &reordered}) {
        SCOPED_TRACE(::testing::PrintToString(*strides));
        fe_graph *g = graph("reduction_result_layout", FE_DATA_FLOAT);
        fe_tensor *x = tensor(g, "x", {8, 64, 4, 4}, true), *y = nullptr;
        fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
        o.reduce_axes = 0x2u;
        ASSERT_FE_OK(fe_graph_reduction(g, x, FE_REDUCTION_MAX, &o, &y));
        ASSERT_FE_OK(fe_tensor_set_strides(y, 4, strides->data()));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, strides != &packed, "packed in the input's order");
    }
}

// A reduction of a rank-3 channels-last (NWC) graph input is refused; of a row-major one it
// builds its operation graph.
TEST_F(ElementwiseRefusals, ReductionOfAPermutedRank3Input) {
    for (bool channels_last : {true, false}) {
        SCOPED_TRACE(channels_last ? "NWC" : "NCW");
        fe_graph *g = graph("reduction_rank3_layout", FE_DATA_FLOAT);
        fe_tensor *x = tensor(g, "x", {16, 24, 8}, channels_last), *y = nullptr;
        fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
        o.reduce_axes = 0x6u;
        ASSERT_FE_OK(fe_graph_reduction(g, x, FE_REDUCTION_MIN, &o, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, channels_last, "rank-3 graph input");
    }
}

}  // namespace
