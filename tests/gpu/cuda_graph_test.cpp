// CUDA graphs: executes captured on a stream replay with the results of direct execution; a
// capture that would grow the managed workspace is refused until fe_graph_warmup; and cuDNN's
// own nodes, added by fe_graph_populate_cuda_graph and rebound by fe_graph_update_cuda_graph,
// compute what direct execution computes, for a matmul, a convolution and attention.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cuda_graph_api.hpp"
#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

class CudaGraphs : public Gpu {
  protected:
    void SetUp() override {
        Gpu::SetUp();
        if (IsSkipped()) return;
        if (!cuda_graphs().loaded) GTEST_SKIP() << "the CUDA runtime's graph calls are not loadable here";
        ASSERT_EQ(cuda_graphs().cudaStreamCreate(&stream_), 0);
        ASSERT_FE_OK(fe_handle_set_stream(handle_, stream_));
    }
    void TearDown() override {
        if (exec_) cuda_graphs().cudaGraphExecDestroy(exec_);
        if (cuda_graph_) cuda_graphs().cudaGraphDestroy(cuda_graph_);
        Gpu::TearDown();
        if (stream_) cuda_graphs().cudaStreamDestroy(stream_);
    }

    void *pointer(const Bound &b) {
        void *p = nullptr;
        EXPECT_FE_OK(fe_buffer_device_pointer(b.buffer, &p));
        return p;
    }
    std::vector<unsigned char> bytes_of(const Bound &b) {
        int64_t n = 0;
        EXPECT_FE_OK(fe_buffer_size(b.buffer, &n));
        std::vector<unsigned char> out(static_cast<size_t>(n));
        EXPECT_FE_OK(fe_buffer_download(b.buffer, out.data(), n));
        return out;
    }
    void poison(const Bound &b) {
        int64_t n = 0;
        ASSERT_FE_OK(fe_buffer_size(b.buffer, &n));
        std::vector<unsigned char> ones(static_cast<size_t>(n), 0xFF);
        ASSERT_FE_OK(fe_buffer_upload(b.buffer, ones.data(), n));
    }
    // A workspace of the graph's size (nullptr when it needs none), kept until the test ends.
    void *workspace_for(fe_graph *g) {
        int64_t bytes = 0;
        EXPECT_FE_OK(fe_graph_workspace_size(g, &bytes));
        if (bytes == 0) return nullptr;
        fe_buffer *b = nullptr;
        EXPECT_FE_OK(fe_buffer_create(0, bytes, &b));
        workspaces_.emplace_back(b);
        void *p = nullptr;
        EXPECT_FE_OK(fe_buffer_device_pointer(b, &p));
        return p;
    }

    // Direct execution's outputs, then cuDNN's own nodes in a CUDA graph on poisoned outputs (the
    // same bytes), then the CUDA graph rebound to second outputs (the same bytes again).
    void expect_populated_graph_matches_execute(fe_graph *g, std::vector<Bound *> inputs, std::vector<Bound *> outputs) {
        std::vector<fe_tensor *> tensors;
        std::vector<void *> pointers;
        for (Bound *b : inputs) {
            tensors.push_back(b->tensor);
            pointers.push_back(pointer(*b));
        }
        for (Bound *b : outputs) {
            tensors.push_back(b->tensor);
            pointers.push_back(pointer(*b));
        }
        void *workspace = workspace_for(g);
        ASSERT_FE_OK(fe_graph_execute(g, handle_, tensors.data(), pointers.data(), tensors.size(), workspace));
        ASSERT_FE_OK(fe_handle_synchronize(handle_));
        std::vector<std::vector<unsigned char>> direct;
        for (Bound *b : outputs) {
            direct.push_back(bytes_of(*b));
            poison(*b);
        }

        ASSERT_EQ(cuda_graphs().cudaGraphCreate(&cuda_graph_, 0), 0);
        fe_status s = fe_graph_populate_cuda_graph(g, handle_, tensors.data(), pointers.data(), tensors.size(),
                                                   workspace, cuda_graph_);
        ASSERT_EQ(s, FE_OK) << engine_tag_of(g) << ": " << fe_last_error_message();
        size_t nodes = 0;
        ASSERT_EQ(cuda_graphs().cudaGraphGetNodes(cuda_graph_, nullptr, &nodes), 0);
        EXPECT_GT(nodes, 0u);
        ASSERT_EQ(cuda_graphs().cudaGraphInstantiate(&exec_, cuda_graph_, 0), 0);
        ASSERT_EQ(cuda_graphs().cudaGraphLaunch(exec_, stream_), 0);
        ASSERT_EQ(cuda_graphs().cudaStreamSynchronize(stream_), 0);
        for (size_t i = 0; i < outputs.size(); ++i)
            EXPECT_EQ(bytes_of(*outputs[i]), direct[i]) << "output " << i << " of the populated CUDA graph";

        // Rebound to new outputs: the first ones keep their bytes, the new ones get the results.
        std::vector<Bound *> seconds;
        for (Bound *b : outputs) {
            Bound &second = bind(b->tensor, false);
            seconds.push_back(&second);
            pointers[tensors.size() - outputs.size() + seconds.size() - 1] = pointer(second);
        }
        for (Bound *b : outputs) poison(*b);
        ASSERT_FE_OK(fe_graph_update_cuda_graph(g, handle_, tensors.data(), pointers.data(), tensors.size(), workspace,
                                                cuda_graph_));
        struct {
            int result;
            void *error_node, *error_from_node;
        } info{};
        ASSERT_EQ(cuda_graphs().cudaGraphExecUpdate(exec_, cuda_graph_, &info), 0) << "update result " << info.result;
        ASSERT_EQ(cuda_graphs().cudaGraphLaunch(exec_, stream_), 0);
        ASSERT_EQ(cuda_graphs().cudaStreamSynchronize(stream_), 0);
        for (size_t i = 0; i < outputs.size(); ++i) {
            EXPECT_EQ(bytes_of(*seconds[i]), direct[i]) << "output " << i << " after the update";
            EXPECT_EQ(bytes_of(*outputs[i]), std::vector<unsigned char>(direct[i].size(), 0xFF))
                << "output " << i << ": the updated CUDA graph still wrote the first buffer";
        }
        std::printf("    %s: %zu nodes populated, rebound and replayed\n", engine_tag_of(g), nodes);
    }

    // C = A x B + D, half.
    fe_graph *matmul_bias(std::vector<Bound *> *inputs, std::vector<Bound *> *outputs) {
        fe_graph *g = graph("matmul_bias", FE_DATA_HALF);
        fe_tensor *a = tensor(g, "a", {2, 64, 32}), *b = tensor(g, "b", {2, 32, 48}), *d = tensor(g, "d", {1, 64, 48});
        fe_tensor *ab = nullptr, *c = nullptr;
        EXPECT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &ab));
        EXPECT_FE_OK(fe_graph_bias(g, ab, d, nullptr, &c));
        EXPECT_FE_OK(fe_tensor_set_output(c, 1));
        build(g);
        *inputs = {&bind(a, true), &bind(b, true), &bind(d, true)};
        *outputs = {&bind(c, false)};
        return g;
    }

    void *stream_ = nullptr;
    void *cuda_graph_ = nullptr;
    void *exec_ = nullptr;
    struct BufferDeleter {
        void operator()(fe_buffer *b) const { fe_buffer_destroy(b); }
    };
    std::vector<std::unique_ptr<fe_buffer, BufferDeleter>> workspaces_;
};

// A hundred executes captured on the handle's stream replay to the bytes direct execution gives.
TEST_F(CudaGraphs, AHundredCapturedExecutesReplayAsDirectExecution) {
    std::vector<Bound *> in, out;
    fe_graph *g = matmul_bias(&in, &out);
    Bound &y = *out[0];
    void *p[] = {pointer(*in[0]), pointer(*in[1]), pointer(*in[2]), pointer(y)};
    ASSERT_FE_OK(fe_graph_warmup(g, handle_));
    ASSERT_FE_OK(fe_graph_execute_positional(g, handle_, p, 4, nullptr));
    ASSERT_FE_OK(fe_handle_synchronize(handle_));
    std::vector<unsigned char> direct = bytes_of(y);
    std::vector<double> ref = matmul_reference(*in[0], *in[1], y.dims);
    poison(y);

    ASSERT_EQ(cuda_graphs().cudaStreamBeginCapture(stream_, kCaptureModeThreadLocal), 0);
    fe_status s = FE_OK;
    for (int i = 0; i < 100 && s == FE_OK; ++i) s = fe_graph_execute_positional(g, handle_, p, 4, nullptr);
    std::string message = s == FE_OK ? "" : fe_last_error_message();
    ASSERT_EQ(cuda_graphs().cudaStreamEndCapture(stream_, &cuda_graph_), 0);
    ASSERT_EQ(s, FE_OK) << message;
    size_t nodes = 0;
    ASSERT_EQ(cuda_graphs().cudaGraphGetNodes(cuda_graph_, nullptr, &nodes), 0);
    EXPECT_GE(nodes, 100u) << "each execute adds at least one node";
    ASSERT_EQ(cuda_graphs().cudaGraphInstantiate(&exec_, cuda_graph_, 0), 0);
    ASSERT_EQ(bytes_of(y), std::vector<unsigned char>(direct.size(), 0xFF)) << "capturing ran something";
    ASSERT_EQ(cuda_graphs().cudaGraphLaunch(exec_, stream_), 0);
    ASSERT_EQ(cuda_graphs().cudaStreamSynchronize(stream_), 0);
    EXPECT_EQ(bytes_of(y), direct) << "the replay differs from direct execution";
    // And direct execution matches the double reference (plus D).
    download(y);
    std::vector<int64_t> index(3, 0);
    for (double &v : ref) {
        v += broadcast_at(*in[2], index);
        for (size_t k = 3; k-- > 0;) {
            if (++index[k] < y.dims[k]) break;
            index[k] = 0;
        }
    }
    expect_close(y, ref, 0.05, 0.02, 5e-3);
}

// Attention backward needs a workspace; on a fresh handle a capture cannot grow it, and says so,
// until fe_graph_warmup has.
TEST_F(CudaGraphs, ACaptureThatWouldGrowTheWorkspaceIsRefusedUntilWarmup) {
    const int64_t B = 1, H = 2, S = 64, D = 64;
    fe_graph *g = graph("attention_backward", FE_DATA_HALF);
    fe_tensor *q = tensor(g, "q", {B, H, S, D}), *k = tensor(g, "k", {B, H, S, D}), *v = tensor(g, "v", {B, H, S, D});
    fe_tensor *o = tensor(g, "o", {B, H, S, D}), *d_o = tensor(g, "dO", {B, H, S, D});
    fe_tensor *stats = tensor(g, "stats", {B, H, S, 1}, false, FE_DATA_FLOAT);
    fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
    opts.attn_scale = 0.125;
    fe_tensor *dq = nullptr, *dk = nullptr, *dv = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa_backward(g, q, k, v, o, d_o, stats, &opts, &dq, &dk, &dv));
    for (fe_tensor *t : {dq, dk, dv}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    build(g);
    int64_t need = 0;
    ASSERT_FE_OK(fe_graph_workspace_size(g, &need));
    ASSERT_GT(need, 0);
    std::vector<fe_tensor *> tensors = {q, k, v, o, d_o, stats, dq, dk, dv};
    std::vector<void *> pointers;
    for (fe_tensor *t : tensors) pointers.push_back(pointer(bind(t, t != dq && t != dk && t != dv, -0.5f, 0.5f)));

    ASSERT_EQ(cuda_graphs().cudaStreamBeginCapture(stream_, kCaptureModeThreadLocal), 0);
    fe_status refused = fe_graph_execute(g, handle_, tensors.data(), pointers.data(), tensors.size(), nullptr);
    std::string message = fe_last_error_message();
    ASSERT_EQ(cuda_graphs().cudaStreamEndCapture(stream_, &cuda_graph_), 0);
    EXPECT_EQ(refused, FE_STATUS_BAD_STATE);
    EXPECT_NE(message.find("is capturing a CUDA graph"), std::string::npos) << message;
    EXPECT_NE(message.find("fe_graph_warmup"), std::string::npos) << message;
    cuda_graphs().cudaGraphDestroy(cuda_graph_);
    cuda_graph_ = nullptr;

    ASSERT_FE_OK(fe_graph_warmup(g, handle_));
    int64_t have = 0;
    ASSERT_FE_OK(fe_handle_workspace_size(handle_, &have));
    EXPECT_GE(have, need);
    ASSERT_EQ(cuda_graphs().cudaStreamBeginCapture(stream_, kCaptureModeThreadLocal), 0);
    fe_status captured = fe_graph_execute(g, handle_, tensors.data(), pointers.data(), tensors.size(), nullptr);
    message = captured == FE_OK ? "" : fe_last_error_message();
    ASSERT_EQ(cuda_graphs().cudaStreamEndCapture(stream_, &cuda_graph_), 0);
    EXPECT_EQ(captured, FE_OK) << message;
    ASSERT_EQ(cuda_graphs().cudaGraphInstantiate(&exec_, cuda_graph_, 0), 0);
    ASSERT_EQ(cuda_graphs().cudaGraphLaunch(exec_, stream_), 0);
    ASSERT_EQ(cuda_graphs().cudaStreamSynchronize(stream_), 0);
}

TEST_F(CudaGraphs, PopulateAndUpdateAMatmul) {
    std::vector<Bound *> in, out;
    fe_graph *g = matmul_bias(&in, &out);
    expect_populated_graph_matches_execute(g, in, out);
}

// The convolution engine cuDNN 9.19's heuristics choose on the H100 (eng47) has no native
// CUDA-graph support: populate says so and names the alternative, and that alternative (an
// execute captured on the stream) replays to the bytes of direct execution.
TEST_F(CudaGraphs, AConvolutionPopulatesOrIsRefusedWithTheAlternativeThatWorks) {
    fe_graph *g = graph("conv", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {4, 64, 28, 28}, true), *w = tensor(g, "w", {32, 64, 3, 3}, true), *y = nullptr;
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    o.pre_padding[0] = o.pre_padding[1] = o.post_padding[0] = o.post_padding[1] = 1;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build(g);
    Bound &bx = bind(x, true), &bw = bind(w, true), &by = bind(y, false);
    fe_tensor *tensors[] = {x, w, y};
    void *pointers[] = {pointer(bx), pointer(bw), pointer(by)};
    void *workspace = workspace_for(g);
    ASSERT_EQ(cuda_graphs().cudaGraphCreate(&cuda_graph_, 0), 0);
    fe_status s = fe_graph_populate_cuda_graph(g, handle_, tensors, pointers, 3, workspace, cuda_graph_);
    std::string message = s == FE_OK ? "" : fe_last_error_message();
    cuda_graphs().cudaGraphDestroy(cuda_graph_);
    cuda_graph_ = nullptr;
    if (s == FE_OK) {
        expect_populated_graph_matches_execute(g, {&bx, &bw}, {&by});
        return;
    }
    EXPECT_EQ(s, FE_STATUS_NOT_SUPPORTED) << message;
    EXPECT_NE(message.find("cannot add its work to a CUDA graph itself"), std::string::npos) << message;
    EXPECT_NE(message.find("capture fe_graph_execute on a stream instead"), std::string::npos) << message;
    std::printf("    %s: %s\n", engine_tag_of(g), message.c_str());

    ASSERT_FE_OK(fe_graph_execute(g, handle_, tensors, pointers, 3, workspace));
    ASSERT_FE_OK(fe_handle_synchronize(handle_));
    std::vector<unsigned char> direct = bytes_of(by);
    poison(by);
    ASSERT_EQ(cuda_graphs().cudaStreamBeginCapture(stream_, kCaptureModeThreadLocal), 0);
    s = fe_graph_execute(g, handle_, tensors, pointers, 3, workspace);
    message = s == FE_OK ? "" : fe_last_error_message();
    ASSERT_EQ(cuda_graphs().cudaStreamEndCapture(stream_, &cuda_graph_), 0);
    ASSERT_EQ(s, FE_OK) << message;
    ASSERT_EQ(cuda_graphs().cudaGraphInstantiate(&exec_, cuda_graph_, 0), 0);
    ASSERT_EQ(cuda_graphs().cudaGraphLaunch(exec_, stream_), 0);
    ASSERT_EQ(cuda_graphs().cudaStreamSynchronize(stream_), 0);
    EXPECT_EQ(bytes_of(by), direct) << "the captured convolution differs from direct execution";

    // Among the candidates, those whose engine supports it populate the CUDA graph themselves.
    fe_graph *native = graph("conv_native", FE_DATA_HALF);
    fe_tensor *nx = tensor(native, "x", {4, 64, 28, 28}, true), *nw = tensor(native, "w", {32, 64, 3, 3}, true);
    fe_tensor *ny = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(native, nx, nw, &o, &ny));
    ASSERT_FE_OK(fe_tensor_set_output(ny, 1));
    ASSERT_FE_OK(fe_graph_validate(native));
    ASSERT_FE_OK(fe_graph_build_operation_graph(native, handle_));
    ASSERT_FE_OK(fe_graph_create_execution_plans(native, nullptr, 0));
    ASSERT_FE_OK(fe_graph_select_by_notes(native, 0, 0, 0, FE_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API));
    if (fe_graph_check_support(native) != FE_OK) {
        std::printf("    no candidate engine of this convolution supports native CUDA graphs: %s\n",
                    fe_last_error_message());
        return;
    }
    ASSERT_FE_OK(fe_graph_build_plans(native, FE_BUILD_POLICY_HEURISTICS_CHOICE));
    expect_populated_graph_matches_execute(native, {&bind(nx, true), &bind(nw, true)}, {&bind(ny, false)});
}

TEST_F(CudaGraphs, PopulateAndUpdateAttention) {
    const int64_t B = 2, H = 4, S = 128, D = 64;
    fe_graph *g = graph("attention", FE_DATA_HALF);
    fe_tensor *q = tensor(g, "q", {B, H, S, D}), *k = tensor(g, "k", {B, H, S, D}), *v = tensor(g, "v", {B, H, S, D});
    fe_sdpa_options opts = FE_SDPA_OPTIONS_INIT;
    opts.attn_scale = 0.125;
    opts.generate_stats = 1;
    fe_tensor *o = nullptr, *stats = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &opts, &o, &stats));
    ASSERT_FE_OK(fe_tensor_set_output(o, 1));
    ASSERT_FE_OK(fe_tensor_set_output(stats, 1));
    build(g);
    expect_populated_graph_matches_execute(g, {&bind(q, true), &bind(k, true), &bind(v, true)},
                                           {&bind(o, false), &bind(stats, false)});
}

TEST_F(CudaGraphs, PopulateRefusesAGraphThatIsNotEmptyAndUpdateAnotherGraphsNodes) {
    std::vector<Bound *> in, out;
    fe_graph *g = matmul_bias(&in, &out);
    fe_tensor *tensors[] = {in[0]->tensor, in[1]->tensor, in[2]->tensor, out[0]->tensor};
    void *pointers[] = {pointer(*in[0]), pointer(*in[1]), pointer(*in[2]), pointer(*out[0])};
    void *workspace = workspace_for(g);
    ASSERT_EQ(cuda_graphs().cudaGraphCreate(&cuda_graph_, 0), 0);
    ASSERT_FE_OK(fe_graph_populate_cuda_graph(g, handle_, tensors, pointers, 4, workspace, cuda_graph_));
    EXPECT_FE_STATUS(fe_graph_populate_cuda_graph(g, handle_, tensors, pointers, 4, workspace, cuda_graph_),
                     FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("already has")) << fe_last_error_message();
    EXPECT_FE_STATUS(fe_graph_populate_cuda_graph(g, handle_, tensors, pointers, 4, workspace, nullptr),
                     FE_STATUS_NULL_POINTER);
    EXPECT_TRUE(LastErrorContains("fe_graph_populate_cuda_graph: argument 'cuda_graph' is NULL")) << fe_last_error_message();
    // An empty CUDA graph was not populated by this graph's plan.
    void *empty = nullptr;
    ASSERT_EQ(cuda_graphs().cudaGraphCreate(&empty, 0), 0);
    fe_status s = fe_graph_update_cuda_graph(g, handle_, tensors, pointers, 4, workspace, empty);
    std::string message = fe_last_error_message();
    cuda_graphs().cudaGraphDestroy(empty);
    EXPECT_NE(s, FE_OK);
    EXPECT_NE(message.find("fe_graph_update_cuda_graph"), std::string::npos) << message;
}

}  // namespace
