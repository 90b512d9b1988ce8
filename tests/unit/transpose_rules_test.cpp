// Transpose without cuDNN: the permuted dims, packed strides, and every error path.
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

fe_tensor *const kUntouched = reinterpret_cast<fe_tensor *>(0x1);

// Each test builds on a fresh graph with the library's default options.
class Transpose : public cudnnfe_test::GraphTest {};

TEST_F(Transpose, PermutesDimsAndPacksTheResult) {
    fe_tensor *x = cudnnfe_test::make_tensor(g, "x", {2, 3, 4, 5}, false, FE_DATA_FLOAT);
    const int64_t perm[4] = {0, 2, 3, 1};
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_transpose(g, x, 4, perm, nullptr, &y));
    std::vector<int64_t> dims(4), strides(4);
    ASSERT_FE_OK(fe_tensor_get_dims(y, dims.data(), 4));
    ASSERT_FE_OK(fe_tensor_get_strides(y, strides.data(), 4));
    EXPECT_EQ(dims, (std::vector<int64_t>{2, 4, 5, 3}));
    EXPECT_EQ(strides, (std::vector<int64_t>{60, 15, 3, 1}));
    EXPECT_STREQ(name_of(y), "transpose_0::Y");
}

TEST_F(Transpose, Errors) {
    fe_tensor *x = cudnnfe_test::make_tensor(g, "x", {2, 3, 4}, false, FE_DATA_FLOAT);
    fe_tensor *y = kUntouched;
    const int64_t repeated[3] = {0, 1, 1}, outside[3] = {0, 1, 3}, two[2] = {1, 0};
    EXPECT_EQ(fe_graph_transpose(g, x, 3, repeated, nullptr, &y), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(fe_last_error_message()).find("fe_graph_transpose: perm [0,1,1] is not a permutation"),
              std::string::npos)
        << fe_last_error_message();
    EXPECT_EQ(fe_graph_transpose(g, x, 3, outside, nullptr, &y), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(fe_graph_transpose(g, x, 2, two, nullptr, &y), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(fe_last_error_message()).find("perm has 2 entries"), std::string::npos);
    EXPECT_EQ(fe_graph_transpose(g, x, 0, two, nullptr, &y), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(fe_graph_transpose(nullptr, x, 2, two, nullptr, &y), FE_STATUS_NULL_POINTER);
    EXPECT_EQ(fe_graph_transpose(g, nullptr, 2, two, nullptr, &y), FE_STATUS_NULL_POINTER);
    EXPECT_EQ(fe_graph_transpose(g, x, 2, nullptr, nullptr, &y), FE_STATUS_NULL_POINTER);
    EXPECT_EQ(fe_graph_transpose(g, x, 2, two, nullptr, nullptr), FE_STATUS_NULL_POINTER);
    EXPECT_EQ(y, kUntouched);
}

}  // namespace
