// Static plans built in the background for graphs built with dynamic shapes
// (fe_build_options.background_static): executes run the dynamic plan until the static one is
// ready, then switch to it, and both compute what a double reference computes; a stream capture in
// progress keeps the plan it started with; destroying a graph while its static plan builds is safe;
// a later build of the same graph takes the static plan from the plan cache at once.
#include <string>
#include <vector>

#include "cuda_graph_api.hpp"
#include "kernel_cache_fixture.hpp"
#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

class BackgroundStatic : public KernelCacheGpu {
  protected:
    // y = gelu(a x b + bias), bf16, a [1, m, 256], b [1, 256, 384]; built with dynamic shapes and
    // the static plan in the background. The graph is the caller's to destroy when `owned` is false.
    struct Built {
        fe_graph *g = nullptr;
        fe_tensor *a = nullptr, *b = nullptr, *bias = nullptr, *y = nullptr;
    };
    Built ffn(int64_t m, bool use_plan_cache, bool owned = true) {
        Built f;
        if (owned) {
            f.g = graph("ffn_up", FE_DATA_BFLOAT16);
        } else {
            fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
            go.name = "ffn_up";
            go.io_data_type = FE_DATA_BFLOAT16;
            EXPECT_FE_OK(fe_graph_create(&go, &f.g));
        }
        f.a = tensor(f.g, "a", {1, m, 256});
        f.b = tensor(f.g, "b", {1, 256, 384});
        f.bias = tensor(f.g, "bias", {1, 1, 384});
        fe_tensor *ab = nullptr, *biased = nullptr;
        EXPECT_FE_OK(fe_graph_matmul(f.g, f.a, f.b, nullptr, &ab));
        EXPECT_FE_OK(fe_graph_bias(f.g, ab, f.bias, nullptr, &biased));
        EXPECT_FE_OK(fe_graph_gelu(f.g, biased, nullptr, &f.y));
        EXPECT_FE_OK(fe_tensor_set_output(f.y, 1));
        fe_build_options o = FE_BUILD_OPTIONS_INIT;
        o.kernel_cache = cache_;
        o.background_static = 1;
        o.use_plan_cache = use_plan_cache;
        EXPECT_FE_OK(fe_graph_build(f.g, handle_, &o));
        return f;
    }

    fe_background_state state(const fe_graph *g) {
        fe_background_state s = FE_BACKGROUND_NONE;
        EXPECT_FE_OK(fe_graph_background_state(g, &s));
        return s;
    }

    // Fresh random inputs and a poisoned output.
    struct Ffn {
        Bound *a, *b, *bias, *y;
    };
    Ffn bind_ffn(const Built &f) { return {&bind(f.a, true), &bind(f.b, true), &bind(f.bias, true), &bind(f.y, false)}; }
    // Execute with the handle's managed workspace (where the switch may grow it).
    void execute_managed(fe_graph *g, const Ffn &f) {
        fe_tensor *tensors[4] = {f.a->tensor, f.b->tensor, f.bias->tensor, f.y->tensor};
        fe_buffer *buffers[4] = {f.a->buffer, f.b->buffer, f.bias->buffer, f.y->buffer};
        ASSERT_FE_OK(fe_graph_execute_buffers(g, handle_, tensors, buffers, 4, nullptr));
    }
    void expect_right(const Ffn &f) {
        ASSERT_FE_OK(fe_handle_synchronize(handle_));
        download(*f.y);
        std::vector<double> ref = matmul_reference(*f.a, *f.b, f.y->dims);
        std::vector<int64_t> index(3, 0);
        for (double &v : ref) {
            v = gelu(v + broadcast_at(*f.bias, index));
            for (size_t k = 3; k-- > 0;) {
                if (++index[k] < f.y->dims[k]) break;
                index[k] = 0;
            }
        }
        expect_close(*f.y, ref, atol_for(FE_DATA_BFLOAT16) * 4, rtol_for(FE_DATA_BFLOAT16), norm_for(FE_DATA_BFLOAT16));
    }
};

TEST_F(BackgroundStatic, ExecutesSwitchToTheStaticPlanAndStayRight) {
    const Built built = ffn(200, false);
    fe_graph *g = built.g;
    std::printf("    dynamic plan %s\n", engine_tag_of(g));
    const Ffn before = bind_ffn(built);
    execute_managed(g, before);  // the dynamic plan, or the static one if it was that quick
    expect_right(before);
    ASSERT_FE_OK(fe_graph_wait_background(g)) << fe_last_error_message();
    const fe_background_state ready = state(g);
    EXPECT_TRUE(ready == FE_BACKGROUND_READY || ready == FE_BACKGROUND_SWITCHED) << ready;
    const Ffn after = bind_ffn(built);
    execute_managed(g, after);
    EXPECT_EQ(state(g), FE_BACKGROUND_SWITCHED);
    expect_right(after);
    const Ffn again = bind_ffn(built);
    execute_managed(g, again);
    expect_right(again);
}

TEST_F(BackgroundStatic, ACaptureInProgressKeepsThePlanItStartedWith) {
    if (!cuda_graphs().loaded) GTEST_SKIP() << "the CUDA runtime's graph calls are not loadable here";
    const Built built = ffn(136, false);
    fe_graph *g = built.g;
    ASSERT_FE_OK(fe_graph_wait_background(g)) << fe_last_error_message();
    ASSERT_EQ(state(g), FE_BACKGROUND_READY);
    void *stream = nullptr, *captured = nullptr, *exec = nullptr;
    ASSERT_EQ(cuda_graphs().cudaStreamCreate(&stream), 0);
    ASSERT_FE_OK(fe_handle_set_stream(handle_, stream));
    ASSERT_FE_OK(fe_graph_warmup(g, handle_));
    const Ffn f = bind_ffn(built);
    ASSERT_EQ(cuda_graphs().cudaStreamBeginCapture(stream, kCaptureModeThreadLocal), 0);
    fe_tensor *tensors[4] = {f.a->tensor, f.b->tensor, f.bias->tensor, f.y->tensor};
    fe_buffer *buffers[4] = {f.a->buffer, f.b->buffer, f.bias->buffer, f.y->buffer};
    const fe_status captured_execute = fe_graph_execute_buffers(g, handle_, tensors, buffers, 4, nullptr);
    const std::string message = captured_execute == FE_OK ? "" : fe_last_error_message();
    ASSERT_EQ(cuda_graphs().cudaStreamEndCapture(stream, &captured), 0);
    ASSERT_EQ(captured_execute, FE_OK) << message;
    EXPECT_EQ(state(g), FE_BACKGROUND_READY) << "the switch happened inside a capture";
    ASSERT_EQ(cuda_graphs().cudaGraphInstantiate(&exec, captured, 0), 0);
    ASSERT_EQ(cuda_graphs().cudaGraphLaunch(exec, stream), 0);
    expect_right(f);
    // The first execute outside the capture switches.
    const Ffn after = bind_ffn(built);
    execute_managed(g, after);
    EXPECT_EQ(state(g), FE_BACKGROUND_SWITCHED);
    expect_right(after);
    cuda_graphs().cudaGraphExecDestroy(exec);
    cuda_graphs().cudaGraphDestroy(captured);
    ASSERT_FE_OK(fe_handle_set_stream(handle_, nullptr));
    cuda_graphs().cudaStreamDestroy(stream);
}

TEST_F(BackgroundStatic, DestroyingAGraphWhileItsStaticPlanBuildsIsSafe) {
    for (int64_t m : {72, 88, 104}) {
        fe_graph *g = ffn(m, false, false).g;
        fe_background_state s = state(g);
        EXPECT_TRUE(s == FE_BACKGROUND_BUILDING || s == FE_BACKGROUND_READY) << s;
        fe_graph_destroy(g);  // waits for its background build
    }
    fe_graph *g = ffn(120, false).g;
    ASSERT_FE_OK(fe_graph_wait_background(g)) << fe_last_error_message();
    EXPECT_EQ(state(g), FE_BACKGROUND_READY);
}

TEST_F(BackgroundStatic, ALaterBuildTakesTheStaticPlanFromThePlanCache) {
    fe_graph *first = ffn(152, true).g;
    ASSERT_FE_OK(fe_graph_wait_background(first)) << fe_last_error_message();
    const Built built = ffn(152, true);
    fe_graph *later = built.g;
    EXPECT_EQ(state(later), FE_BACKGROUND_READY) << "the static plan was not taken from the plan cache";
    const Ffn f = bind_ffn(built);
    execute_managed(later, f);
    EXPECT_EQ(state(later), FE_BACKGROUND_SWITCHED);
    expect_right(f);
}

}  // namespace
