// Reshape, slice and concatenate without cuDNN: the inferred dims and strides, and every error.
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

fe_tensor *const kUntouched = reinterpret_cast<fe_tensor *>(0x1);

class Layout : public cudnnfe_test::GraphTest {
  protected:
    fe_tensor *make(const char *name, const std::vector<int64_t> &dims) {
        return cudnnfe_test::make_tensor(g, name, dims, false, FE_DATA_HALF);
    }
    std::vector<int64_t> dims(fe_tensor *t) { return shape(t, fe_tensor_get_dims); }
    std::vector<int64_t> strides(fe_tensor *t) { return shape(t, fe_tensor_get_strides); }
    template <typename Getter>
    std::vector<int64_t> shape(fe_tensor *t, Getter get) {
        size_t n = 0;
        EXPECT_FE_OK(fe_tensor_get_ndims(t, &n));
        std::vector<int64_t> out(n);
        EXPECT_FE_OK(get(t, out.data(), n));
        return out;
    }
};

TEST_F(Layout, ReshapeKeepsTheElementsPacked) {
    fe_tensor *x = make("x", {2, 3, 4});
    const int64_t to[2] = {6, 4};
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_reshape(g, x, 2, to, nullptr, &y));
    EXPECT_EQ(dims(y), (std::vector<int64_t>{6, 4}));
    EXPECT_EQ(strides(y), (std::vector<int64_t>{4, 1}));
    EXPECT_STREQ(name_of(y), "reshape_0::Y");
}

TEST_F(Layout, LayoutOperationsAreNamedByTheirOptions) {
    fe_tensor *x = make("x", {2, 3, 4}), *y = nullptr;
    const int64_t to[2] = {6, 4}, perm[3] = {2, 0, 1};
    fe_reshape_options r = FE_RESHAPE_OPTIONS_INIT;
    r.name = "flat";
    ASSERT_FE_OK(fe_graph_reshape(g, x, 2, to, &r, &y));
    EXPECT_STREQ(name_of(y), "flat::Y");
    fe_transpose_options t = FE_TRANSPOSE_OPTIONS_INIT;
    t.name = "turned";
    ASSERT_FE_OK(fe_graph_transpose(g, x, 3, perm, &t, &y));
    EXPECT_STREQ(name_of(y), "turned::Y");
    t.struct_size = 2;
    EXPECT_FE_REFUSED(fe_graph_transpose(g, x, 3, perm, &t, &y), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_transpose: options.struct_size is 2");
}

TEST_F(Layout, ReshapeErrors) {
    fe_tensor *x = make("x", {2, 3, 4});
    fe_tensor *y = kUntouched;
    const int64_t wrong[2] = {5, 5}, zero[2] = {0, 24}, ok[2] = {6, 4};
    EXPECT_FE_REFUSED(fe_graph_reshape(g, x, 2, wrong, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_reshape: dims [5,5] hold 25 elements, x 'x' [2,3,4] holds 24");
    EXPECT_FE_REFUSED(fe_graph_reshape(g, x, 2, zero, nullptr, &y), FE_STATUS_INVALID_ARGUMENT, "dims[0] is 0");
    EXPECT_EQ(fe_graph_reshape(g, x, 0, ok, nullptr, &y), FE_STATUS_INVALID_ARGUMENT);
    fe_tensor *cl = cudnnfe_test::make_tensor(g, "cl", {2, 8, 4, 4}, true, FE_DATA_HALF);
    const int64_t flat[2] = {2, 128};
    EXPECT_FE_REFUSED(fe_graph_reshape(g, cl, 2, flat, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "a reshape reads a packed row-major tensor");
    EXPECT_EQ(fe_graph_reshape(nullptr, x, 2, ok, nullptr, &y), FE_STATUS_NULL_POINTER);
    EXPECT_EQ(fe_graph_reshape(g, nullptr, 2, ok, nullptr, &y), FE_STATUS_NULL_POINTER);
    EXPECT_EQ(fe_graph_reshape(g, x, 2, nullptr, nullptr, &y), FE_STATUS_NULL_POINTER);
    EXPECT_EQ(fe_graph_reshape(g, x, 2, ok, nullptr, nullptr), FE_STATUS_NULL_POINTER);
    EXPECT_EQ(y, kUntouched);
}

TEST_F(Layout, SliceIsAViewWithTheInputsStrides) {
    fe_tensor *qkv = make("qkv", {2, 64, 96});
    const int64_t start[3] = {0, 0, 32}, end[3] = {2, 64, 64};
    fe_tensor *k = nullptr;
    fe_slice_options k_options = FE_SLICE_OPTIONS_INIT;
    k_options.name = "k";
    ASSERT_FE_OK(fe_graph_slice(g, qkv, 3, start, end, &k_options, &k));
    EXPECT_EQ(dims(k), (std::vector<int64_t>{2, 64, 32}));
    EXPECT_EQ(strides(k), (std::vector<int64_t>{64 * 96, 96, 1}));
    fe_data_type type = FE_DATA_NOT_SET;
    ASSERT_FE_OK(fe_tensor_get_data_type(k, &type));
    EXPECT_EQ(type, FE_DATA_HALF);
    EXPECT_STREQ(name_of(k), "k::Y");
}

TEST_F(Layout, SliceErrors) {
    fe_tensor *x = make("x", {4, 8});
    fe_tensor *y = kUntouched;
    const int64_t s0[2] = {0, 0}, e_past[2] = {4, 9}, e_empty[2] = {0, 8}, e_ok[2] = {2, 8}, s_neg[2] = {-1, 0};
    EXPECT_FE_REFUSED(fe_graph_slice(g, x, 2, s0, e_past, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_slice: dim 1: the range [0, 9) is not a non-empty part of x's 8");
    EXPECT_EQ(fe_graph_slice(g, x, 2, s0, e_empty, nullptr, &y), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(fe_graph_slice(g, x, 2, s_neg, e_ok, nullptr, &y), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_FE_REFUSED(fe_graph_slice(g, x, 1, s0, e_ok, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "start and end have 1 entries but x 'x' has rank 2");
    EXPECT_EQ(fe_graph_slice(g, x, 0, s0, e_ok, nullptr, &y), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(fe_graph_slice(g, x, 2, nullptr, e_ok, nullptr, &y), FE_STATUS_NULL_POINTER);
    EXPECT_EQ(fe_graph_slice(g, x, 2, s0, nullptr, nullptr, &y), FE_STATUS_NULL_POINTER);
    EXPECT_EQ(fe_graph_slice(g, x, 2, s0, e_ok, nullptr, nullptr), FE_STATUS_NULL_POINTER);
    EXPECT_EQ(y, kUntouched);
    // Only a graph input can be sliced: its buffer is what the view points into.
    fe_tensor *r = nullptr;
    ASSERT_FE_OK(fe_graph_relu(g, x, nullptr, &r));
    EXPECT_FE_REFUSED(fe_graph_slice(g, r, 2, s0, e_ok, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "is the result of an operation; a slice views a graph input's buffer");
    EXPECT_EQ(y, kUntouched);
}

TEST_F(Layout, ASliceCannotBeAGraphOutput) {
    fe_tensor *x = make("x", {4, 8});
    const int64_t s0[2] = {0, 0}, e[2] = {2, 8};
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_slice(g, x, 2, s0, e, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    EXPECT_FE_REFUSED(fe_graph_validate(g), FE_STATUS_INVALID_ARGUMENT,
                      "a slice is a view that operations read, not a result");
}

TEST_F(Layout, ConcatenateAddsUpTheAxis) {
    fe_tensor *a = make("a", {2, 8, 60, 16}), *b = make("b", {2, 8, 4, 16});
    fe_tensor *xs[2] = {a, b};
    fe_tensor *y = nullptr;
    fe_concatenate_options y_options = FE_CONCATENATE_OPTIONS_INIT;
    y_options.in_place_index = 0;
    ASSERT_FE_OK(fe_graph_concatenate(g, 2, xs, 2, &y_options, &y));
    EXPECT_EQ(dims(y), (std::vector<int64_t>{2, 8, 64, 16}));
    EXPECT_EQ(strides(y), (std::vector<int64_t>{8 * 64 * 16, 64 * 16, 16, 1}));
    EXPECT_STREQ(name_of(y), "concatenate_0::Y");
}

TEST_F(Layout, ConcatenateErrors) {
    fe_tensor *a = make("a", {2, 8, 4}), *b = make("b", {2, 9, 4}), *c = make("c", {2, 8});
    fe_tensor *f = cudnnfe_test::make_tensor(g, "f", {2, 8, 4}, false, FE_DATA_FLOAT);
    fe_tensor *y = kUntouched;
    fe_tensor *ab[2] = {a, b}, *ac[2] = {a, c}, *af[2] = {a, f}, *an[2] = {a, nullptr};
    EXPECT_FE_REFUSED(fe_graph_concatenate(g, 2, ab, 2, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "'b' has dims [2,9,4], 'a' [2,8,4]: only dim 2 (the axis) may differ");
    EXPECT_FE_REFUSED(fe_graph_concatenate(g, 2, ac, 0, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "'c' has rank 2, 'a' rank 3");
    EXPECT_FE_REFUSED(fe_graph_concatenate(g, 2, af, 0, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "concatenated tensors share a data type");
    EXPECT_FE_REFUSED(fe_graph_concatenate(g, 2, ab, 3, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "axis is 3; the inputs have rank 3");
    fe_concatenate_options y_options = FE_CONCATENATE_OPTIONS_INIT;
    y_options.in_place_index = 2;
    EXPECT_FE_REFUSED(fe_graph_concatenate(g, 2, ab, 1, &y_options, &y), FE_STATUS_INVALID_ARGUMENT,
                      "in_place_index is 2; -1 (none) or 0 to 1");
    EXPECT_FE_REFUSED(fe_graph_concatenate(g, 1, ab, 1, nullptr, &y), FE_STATUS_INVALID_ARGUMENT,
                      "a concatenation takes at least 2 tensors");
    EXPECT_FE_REFUSED(fe_graph_concatenate(g, 2, an, 1, nullptr, &y), FE_STATUS_NULL_POINTER, "inputs[1] is NULL");
    EXPECT_FE_REFUSED(fe_graph_concatenate(g, 2, nullptr, 1, nullptr, &y), FE_STATUS_NULL_POINTER,
                      "fe_graph_concatenate: argument 'inputs' is NULL");
    EXPECT_EQ(fe_graph_concatenate(nullptr, 2, ab, 1, nullptr, &y), FE_STATUS_NULL_POINTER);
    EXPECT_EQ(fe_graph_concatenate(g, 2, ab, 1, nullptr, nullptr), FE_STATUS_NULL_POINTER);
    EXPECT_EQ(y, kUntouched);
}

}  // namespace
