// SwiGLU in one graph, the feed-forward of Llama, Mistral and Qwen: the gate and up projections
// (two matmuls reading the same X) joined by silu(gate) * up.
#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

struct SwigluCase {
    const char *name;
    fe_data_type type;
    int64_t batch, tokens, model, hidden;
};

class Swiglu : public Gpu, public ::testing::WithParamInterface<SwigluCase> {};

TEST_P(Swiglu, OneGraphMatchesCpuReference) {
    const SwigluCase &c = GetParam();
    fe_graph *g = graph(c.name, c.type);
    fe_tensor *x = tensor(g, "x", {c.batch, c.tokens, c.model});
    fe_tensor *w_gate = tensor(g, "w_gate", {1, c.model, c.hidden}), *w_up = tensor(g, "w_up", {1, c.model, c.hidden});
    fe_tensor *gate = nullptr, *up = nullptr, *activated = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, x, w_gate, nullptr, &gate));
    ASSERT_FE_OK(fe_graph_matmul(g, x, w_up, nullptr, &up));
    ASSERT_FE_OK(fe_graph_silu(g, gate, nullptr, &activated));
    ASSERT_FE_OK(fe_graph_mul(g, activated, up, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build(g);
    std::printf("    %s plan %s\n", c.name, engine_tag_of(g));
    Bound &bx = bind(x, true), &bg = bind(w_gate, true), &bu = bind(w_up, true), &by = bind(y, false);
    execute(g, {&bx, &bg, &bu, &by});
    download(by);
    // The projections are kept in float inside the graph (its compute type); the reference keeps
    // them in double.
    std::vector<double> want = matmul_reference(bx, bg, by.dims), up_ref = matmul_reference(bx, bu, by.dims);
    for (size_t i = 0; i < want.size(); ++i) want[i] = silu(want[i]) * up_ref[i];
    expect_close(by, want, atol_for(c.type) * 4, rtol_for(c.type), norm_for(c.type));
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, Swiglu,
    ::testing::Values(SwigluCase{"bf16_llama_slice", FE_DATA_BFLOAT16, 1, 256, 512, 1376},
                      SwigluCase{"bf16_batched", FE_DATA_BFLOAT16, 4, 64, 256, 688},
                      SwigluCase{"fp16", FE_DATA_HALF, 2, 128, 384, 1024},
                      SwigluCase{"bf16_odd_tokens", FE_DATA_BFLOAT16, 1, 37, 128, 344}),
    [](const ::testing::TestParamInfo<SwigluCase> &info) { return std::string(info.param.name); });

}  // namespace
