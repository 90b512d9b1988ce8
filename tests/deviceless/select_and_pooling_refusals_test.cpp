// Refusals made from the conformance runs of seeds 44 and 61 on an H200: a select on a computed
// condition broadcast along the result's innermost dim or on a comparison that broadcast its
// operands, and bfloat16 pooling of one channel laid out with a
// channel stride of 1. Each refused graph names the capability table's reason; the nearest graphs
// the runs found right still lower.
#include <string>

#include "known_bad_support.hpp"

using cudnnfe_test::channels_last_strides;
using cudnnfe_test::packed_strides;
using cudnnfe_test::strided;

namespace {

using SelectAndPoolingRefusals = cudnnfe_test::KnownBadRefusal;

// select(x [7, 16], z, a < b) with a and b of `condition_dims` (seed 44 case 3: [7, 1] columns):
// refused; a condition that varies along the rows' innermost dim ([1, 16]), or a full one, taken.
TEST_F(SelectAndPoolingRefusals, SelectOnAComputedConditionBroadcastAlongTheInnermostDim) {
    struct Form {
        const char *name;
        std::vector<int64_t> condition_dims;
        bool refused;
    };
    for (const Form &f : {Form{"[7, 1] condition", {7, 1}, true}, Form{"[1, 16] condition", {1, 16}, false},
                          Form{"[7, 16] condition", {7, 16}, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("select", FE_DATA_FLOAT);
        const std::vector<int64_t> dims = {7, 16};
        fe_tensor *x = strided(g, "x", dims, packed_strides(dims)), *z = strided(g, "z", dims, packed_strides(dims));
        fe_tensor *a = strided(g, "a", f.condition_dims, packed_strides(f.condition_dims));
        fe_tensor *b = strided(g, "b", f.condition_dims, packed_strides(f.condition_dims));
        fe_tensor *less = nullptr, *y = nullptr;
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_CMP_LT, a, b, nullptr, nullptr, &less));
        ASSERT_FE_OK(fe_tensor_set_data_type(less, FE_DATA_BOOLEAN));
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_BINARY_SELECT, x, z, less, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, f.refused, "whose condition is computed in the graph (a comparison, say) and broadcast along");
    }
}

// select(x [21, 32, 32], z, a < b) (seed 61 case 28): refused when the comparison broadcast a
// [1, 1, 32] against a [1, 32, 32]; the condition from two [1, 32, 32], broadcast along the batch
// dim as well, taken (probed right on an H200).
TEST_F(SelectAndPoolingRefusals, SelectOnAComparisonThatBroadcastItsOperands) {
    struct Form {
        const char *name;
        std::vector<int64_t> a_dims;
        bool refused;
    };
    for (const Form &f : {Form{"[1, 1, 32] < [1, 32, 32]", {1, 1, 32}, true},
                          Form{"[1, 32, 32] < [1, 32, 32]", {1, 32, 32}, false}}) {
        SCOPED_TRACE(f.name);
        fe_graph *g = graph("select", FE_DATA_FLOAT);
        const std::vector<int64_t> dims = {21, 32, 32}, b_dims = {1, 32, 32};
        fe_tensor *x = strided(g, "x", dims, packed_strides(dims)), *z = strided(g, "z", dims, packed_strides(dims));
        fe_tensor *a = strided(g, "a", f.a_dims, packed_strides(f.a_dims));
        fe_tensor *b = strided(g, "b", b_dims, packed_strides(b_dims));
        fe_tensor *less = nullptr, *y = nullptr;
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_CMP_LT, a, b, nullptr, nullptr, &less));
        ASSERT_FE_OK(fe_tensor_set_data_type(less, FE_DATA_BOOLEAN));
        ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_BINARY_SELECT, x, z, less, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, f.refused, "or along another dim when the comparison broadcast one of its operands");
    }
}

// Average pooling 2 x 2 of a bfloat16 x [5, 1, 16, 2] (seed 44 case 111): refused with the
// channel's stride 1, as channels-last; with the stride of the whole image (NCHW), taken.
TEST_F(SelectAndPoolingRefusals, BfloatPoolingOfOneChannelWithAUnitChannelStride) {
    for (bool unit_stride : {true, false}) {
        SCOPED_TRACE(unit_stride ? "channel stride 1" : "channel stride 32");
        fe_graph *g = graph("pooling", FE_DATA_BFLOAT16);
        const std::vector<int64_t> dims = {5, 1, 16, 2};
        fe_tensor *x = strided(g, "x", dims, unit_stride ? std::vector<int64_t>{32, 1, 2, 1} : packed_strides(dims));
        fe_resample_options o = FE_RESAMPLE_OPTIONS_INIT;
        o.mode = FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING;
        o.window[0] = o.window[1] = 2;
        o.stride[0] = o.stride[1] = 2;
        fe_tensor *y = nullptr, *index = nullptr;
        ASSERT_FE_OK(fe_graph_resample(g, x, &o, &y, &index));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, unit_stride, "(one channel of stride 1 among them)");
    }
}

}  // namespace
