// Refusals made from conformance runs 27 to 32 (seeds 50 to 55) and the sweeps beside them on an
// H200: a widened int8 or half single row whose unit dim has an unaligned stride, a rank-2 or 3
// activation backward of one dy value for every element, a rank-4 pointwise tensor with
// permuted dims, and a matmul epilogue into a single column whose unit dim is strided. Each refused
// graph names the capability table's reason; the nearest graphs the runs found right still lower.
#include <string>

#include "known_bad_support.hpp"

using cudnnfe_test::channels_last_strides;
using cudnnfe_test::matmul_output;
using cudnnfe_test::packed_strides;
using cudnnfe_test::strided;

namespace {

using UnitStrideAndScalarDyRefusals = cudnnfe_test::KnownBadRefusal;

// int8 A [7, 1, 112] widened for a half B [7, 112, 62], A's unit dim M given a stride of 81 (seed
// 50 case 248) or 1: refused; 112 (a multiple of 16): taken.
TEST_F(UnitStrideAndScalarDyRefusals, MatmulWideningAnInt8RowWhoseUnitDimHasAnUnalignedStride) {
    for (int64_t m_stride : {int64_t{81}, int64_t{1}, int64_t{112}}) {
        SCOPED_TRACE("M stride " + std::to_string(m_stride));
        fe_graph *g = graph("matmul_int8_unit_stride", FE_DATA_NOT_SET);
        const std::vector<int64_t> da = {7, 1, 112}, db = {7, 112, 62};
        fe_tensor *a = strided(g, "a", da, {896, m_stride, 1}, FE_DATA_INT8);
        fe_tensor *b = strided(g, "b", db, {6944, 1, 112}, FE_DATA_HALF);
        matmul_output(g, a, b, FE_DATA_HALF);
        expect_refused_or_lowered(g, m_stride % 16 != 0, "whose unit dim has a stride that is not");
    }
}

// A half A [7, 1, K] widened for a float B [7, K, 17], A's unit dim M given a stride of 23 (seed 54
// case 382, K 160): refused; that stride 16, or K of 32, taken.
TEST_F(UnitStrideAndScalarDyRefusals, MatmulWideningAHalfRowWhoseUnitDimHasAnUnalignedStride) {
    struct Form {
        int64_t k, m_stride;
        bool refused;
    };
    for (const Form &f : {Form{160, 23, true}, Form{160, 16, false}, Form{32, 23, false}}) {
        SCOPED_TRACE("K " + std::to_string(f.k) + ", M stride " + std::to_string(f.m_stride));
        fe_graph *g = graph("matmul_half_unit_stride", FE_DATA_NOT_SET);
        fe_tensor *a = strided(g, "a", {7, 1, f.k}, {f.k + 8, f.m_stride, 1}, FE_DATA_HALF);
        fe_tensor *b = strided(g, "b", {7, f.k, 17}, {f.k * 17, 17, 1}, FE_DATA_FLOAT);
        matmul_output(g, a, b, FE_DATA_FLOAT);
        expect_refused_or_lowered(g, f.refused, "a single row or column whose unit dim has a stride that is not");
    }
}

// tanh backward of one dy value for every element over x [4, 2, 12] (seed 65 case 46) and x [56,
// 41] (as seed 55 case 176: sigmoid backward): refused with a by-value scalar dy, over an x read
// from memory or computed, and at rank 2 with a [1, 1] dy input; with dy a full tensor, taken, as
// is a [1, 1, 1] dy input at rank 3 (right in 28 randomized cases).
TEST_F(UnitStrideAndScalarDyRefusals, BackwardOfOneDyValueForEveryElement) {
    enum Dy { scalar, unit_input, full };
    struct Form {
        const char *name;
        std::vector<int64_t> dims;
        Dy dy;
        fe_pointwise_mode x_from;  // IDENTITY, TANH_FWD, or ADD for the input itself
        bool refused;
    };
    for (const Form &f : {Form{"rank 3, x an input", {4, 2, 12}, scalar, FE_POINTWISE_ADD, true},
                          Form{"rank 3, x an identity of an input", {4, 2, 12}, scalar, FE_POINTWISE_IDENTITY, true},
                          Form{"rank 3, x computed", {4, 2, 12}, scalar, FE_POINTWISE_TANH_FWD, true},
                          Form{"rank 2, x computed", {56, 41}, scalar, FE_POINTWISE_TANH_FWD, true},
                          Form{"rank 2, a [1, 1] dy", {56, 41}, unit_input, FE_POINTWISE_ADD, true},
                          Form{"rank 3, a [1, 1, 1] dy", {4, 2, 12}, unit_input, FE_POINTWISE_ADD, false},
                          Form{"rank 2, dy a full tensor", {56, 41}, full, FE_POINTWISE_ADD, false},
                          Form{"rank 3, dy a full tensor", {4, 2, 12}, full, FE_POINTWISE_ADD, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("backward_uniform_dy", FE_DATA_HALF);
        fe_tensor *x = strided(g, "x", f.dims, packed_strides(f.dims)), *dy = nullptr, *y = nullptr;
        if (f.x_from != FE_POINTWISE_ADD)
            ASSERT_FE_OK(fe_graph_pointwise(g, f.x_from, x, nullptr, nullptr, nullptr, &x));
        if (f.dy == scalar) {
            ASSERT_FE_OK(fe_graph_scalar(g, "dy", -0.4375, FE_DATA_FLOAT, &dy));
        } else {
            std::vector<int64_t> dims = f.dy == full ? f.dims : std::vector<int64_t>(f.dims.size(), 1);
            dy = strided(g, "dy", dims, packed_strides(dims));
        }
        fe_pointwise_options o = FE_POINTWISE_OPTIONS_INIT;
        o.compute_data_type = FE_DATA_FLOAT;
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_TANH_BWD, dy, x, nullptr, &o, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, f.refused, "whose dy is one value for every element");
    }
}

// erf of a half x [2, 5, 21, 6] laid out with its batch innermost into a channels-last result
// (seed 52 case 21): refused; x channels-last, taken.
TEST_F(UnitStrideAndScalarDyRefusals, Rank4PointwiseOverATensorWithPermutedDims) {
    for (bool permuted : {true, false}) {
        SCOPED_TRACE(permuted ? "batch innermost" : "channels-last");
        fe_graph *g = graph("rank4_permuted", FE_DATA_HALF);
        const std::vector<int64_t> dims = {2, 5, 21, 6};
        const std::vector<int64_t> batch_innermost = {1, 252, 12, 2};  // dim order 1, 2, 3, 0
        fe_tensor *x = strided(g, "x", dims, permuted ? batch_innermost : channels_last_strides(dims)), *y = nullptr;
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_ERF, x, nullptr, nullptr, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_strides(y, 4, channels_last_strides(dims).data()));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, permuted, "not in channels-last order");
    }
}

// A float [7, 48] x [48, 1] (B's unit dim at stride 48), scaled, into a result with strides
// [1, 7] (seed 51 case 561): refused; the result's strides [1, 1], B's unit dim at stride 1, or no
// epilogue, taken.
TEST_F(UnitStrideAndScalarDyRefusals, MatmulEpilogueIntoASingleColumnWhoseUnitDimIsStrided) {
    struct Form {
        const char *name;
        int64_t c_unit_stride, b_unit_stride;
        bool epilogue;
        bool refused;
    };
    for (const Form &f : {Form{"as drawn", 7, 48, true, true}, Form{"C strides [1, 1]", 1, 48, true, false},
                          Form{"B strides [1, 1]", 7, 1, true, false}, Form{"no epilogue", 7, 48, false, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("matmul_single_column", FE_DATA_FLOAT);
        fe_tensor *a = strided(g, "a", {7, 48}, {48, 1}), *b = strided(g, "b", {48, 1}, {1, f.b_unit_stride});
        fe_tensor *c = nullptr, *alpha = nullptr, *out = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
        if (f.epilogue) {
            ASSERT_FE_OK(fe_graph_scalar(g, "alpha", 1.886, FE_DATA_FLOAT, &alpha));
            ASSERT_FE_OK(fe_graph_scale(g, c, alpha, nullptr, &out));
        } else {
            out = c;
        }
        const int64_t strides[2] = {1, f.c_unit_stride};
        ASSERT_FE_OK(fe_tensor_set_strides(out, 2, strides));
        ASSERT_FE_OK(fe_tensor_set_output(out, 1));
        expect_refused_or_lowered(g, f.refused, "into a single-column result");
    }
}

}  // namespace
