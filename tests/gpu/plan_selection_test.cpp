// Every plan by its index: a matmul built with all its plans (on several threads) runs each one,
// selected by index, to the CPU reference; the deterministic switch keeps only engines without
// the nondeterministic note.
#include <string>
#include <vector>

#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

TEST_F(Gpu, EveryPlanOfAMatmulRunsWhenSelectedByItsIndex) {
    fe_graph *g = graph("every_plan", FE_DATA_HALF);
    fe_tensor *a = tensor(g, "a", {2, 96, 64}), *b = tensor(g, "b", {2, 64, 80});
    fe_tensor *c = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    fe_build_options o = FE_BUILD_OPTIONS_INIT;
    o.policy = FE_BUILD_POLICY_ALL;
    o.build_threads = 8;
    o.deterministic = 1;
    o.use_plan_cache = 0;
    ASSERT_FE_OK(fe_graph_build(g, handle_, &o));
    size_t plans = 0;
    ASSERT_FE_OK(fe_graph_plan_count(g, &plans));
    ASSERT_GE(plans, 2u);
    Bound &ba = bind(a, true), &bb = bind(b, true), &bc = bind(c, false);
    std::vector<double> ref = matmul_reference(ba, bb, bc.dims);
    for (size_t i = 0; i < plans; ++i) {
        fe_config_info info = FE_CONFIG_INFO_INIT;
        ASSERT_FE_OK(fe_graph_plan_info(g, i, &info));
        EXPECT_EQ(info.numerical_notes & FE_NUMERICAL_NOTE_NONDETERMINISTIC, 0) << info.tag;
        ASSERT_FE_OK(fe_graph_select_plan(g, i));
        EXPECT_STREQ(engine_tag_of(g), info.tag);
        SCOPED_TRACE(info.tag);
        ASSERT_FE_OK(fe_buffer_fill_bytes(bc.buffer, 0xFF));
        execute(g, {&ba, &bb, &bc});
        download(bc);
        std::printf("    plan %zu %s (workspace %lld, shared memory %lld):\n", i, info.tag,
                    static_cast<long long>(info.workspace_bytes), static_cast<long long>(info.shared_memory_bytes));
        expect_close(bc, ref, atol_for(FE_DATA_HALF), rtol_for(FE_DATA_HALF), norm_for(FE_DATA_HALF));
    }
}

}  // namespace
