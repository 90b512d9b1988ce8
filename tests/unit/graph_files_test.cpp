// The graph files under examples/graphs/ read, validate with the dims their comments in
// docs/graph-json.md give, and survive a round trip through fe_graph_to_json.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

std::string read_example(const char *name) {
    std::ifstream in(std::string(CUDNNFE_SOURCE_ROOT) + "/examples/graphs/" + name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string to_json(const fe_graph *g) { return graph_text(fe_graph_to_json, g); }

std::vector<int64_t> dims_of(fe_graph *g, const char *name) {
    fe_tensor *t = nullptr;
    EXPECT_FE_OK(fe_graph_tensor_by_name(g, name, &t));
    if (!t) return {};
    size_t n = 0;
    EXPECT_FE_OK(fe_tensor_get_ndims(t, &n));
    std::vector<int64_t> dims(n);
    EXPECT_FE_OK(fe_tensor_get_dims(t, dims.data(), n));
    return dims;
}

struct Example {
    const char *file;
    const char *result;
    std::vector<int64_t> dims;
};

class GraphFiles : public ::testing::TestWithParam<Example> {};

TEST_P(GraphFiles, ReadValidateAndRoundTrip) {
    const Example &e = GetParam();
    std::string text = read_example(e.file);
    ASSERT_FALSE(text.empty()) << "cannot read examples/graphs/" << e.file;
    fe_graph *g = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(text.data(), text.size(), &g));
    EXPECT_FE_OK(fe_graph_validate(g));
    EXPECT_EQ(dims_of(g, e.result), e.dims);
    std::string canonical = to_json(g);
    fe_graph *back = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(canonical.data(), canonical.size(), &back));
    EXPECT_FE_OK(fe_graph_validate(back));
    EXPECT_EQ(to_json(back), canonical);
    fe_graph_destroy(back);
    fe_graph_destroy(g);
}

INSTANTIATE_TEST_SUITE_P(Examples, GraphFiles,
                         ::testing::Values(Example{"conv_seed.json", "y", {16, 128, 56, 56}},
                                           Example{"matmul_bias_relu.json", "y", {4, 128, 512}},
                                           Example{"sdpa_forward.json", "o", {2, 6, 1024, 64}}),
                         [](const ::testing::TestParamInfo<Example> &info) {
                             std::string name = info.param.file;
                             return name.substr(0, name.find('.'));
                         });

}  // namespace
