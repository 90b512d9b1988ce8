// The four ways to bind, the handle's workspace and variant-pack reuse, every binding error,
// concurrent execution from two handles, and plans built from a captured device description.
#include <thread>

#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

// A small matmul + bias graph: C = A x B + D.
class Execute : public Gpu {
  protected:
    void SetUp() override {
        Gpu::SetUp();
        if (IsSkipped()) return;
        g_ = graph("exec", FE_DATA_HALF);
        a_ = tensor(g_, "a", {2, 64, 32});
        b_ = tensor(g_, "b", {2, 32, 48});
        d_ = tensor(g_, "d", {1, 64, 48});
        fe_tensor *ab = nullptr;
        ASSERT_FE_OK(fe_graph_matmul(g_, a_, b_, nullptr, &ab));
        ASSERT_FE_OK(fe_graph_bias(g_, ab, d_, nullptr, &c_));
        ASSERT_FE_OK(fe_tensor_set_output(c_, 1));
        virtual_ = ab;
    }
    void prepare() {
        build(g_);
        ba_ = &bind(a_, true);
        bb_ = &bind(b_, true);
        bd_ = &bind(d_, true);
        bc_ = &bind(c_, false);
    }
    void check_output(Bound &out) {
        ASSERT_FE_OK(fe_handle_synchronize(handle_));
        download(out);
        std::vector<double> ref = matmul_reference(*ba_, *bb_, out.dims);
        std::vector<int64_t> index(3, 0);
        for (double &v : ref) {
            v += broadcast_at(*bd_, index);
            for (size_t k = 3; k-- > 0;) {
                if (++index[k] < out.dims[k]) break;
                index[k] = 0;
            }
        }
        expect_close(out, ref, 0.05, 0.02, 5e-3);
    }
    void *ptr(Bound *b) {
        void *p = nullptr;
        EXPECT_FE_OK(fe_buffer_device_pointer(b->buffer, &p));
        return p;
    }
    fe_graph *g_ = nullptr;
    fe_tensor *a_ = nullptr, *b_ = nullptr, *d_ = nullptr, *c_ = nullptr, *virtual_ = nullptr;
    Bound *ba_ = nullptr, *bb_ = nullptr, *bd_ = nullptr, *bc_ = nullptr;
};

TEST_F(Execute, ByTensorPointers) {
    prepare();
    fe_tensor *t[] = {a_, b_, d_, c_};
    void *p[] = {ptr(ba_), ptr(bb_), ptr(bd_), ptr(bc_)};
    ASSERT_FE_OK(fe_graph_execute(g_, handle_, t, p, 4, nullptr));
    check_output(*bc_);
}

TEST_F(Execute, ByUid) {
    ASSERT_FE_OK(fe_tensor_set_uid(a_, 10));
    ASSERT_FE_OK(fe_tensor_set_uid(b_, 11));
    ASSERT_FE_OK(fe_tensor_set_uid(d_, 12));
    ASSERT_FE_OK(fe_tensor_set_uid(c_, 13));
    prepare();
    int64_t uids[] = {13, 10, 12, 11};  // any order
    void *p[] = {ptr(bc_), ptr(ba_), ptr(bd_), ptr(bb_)};
    ASSERT_FE_OK(fe_graph_execute_by_uid(g_, handle_, uids, p, 4, nullptr));
    check_output(*bc_);
}

TEST_F(Execute, Positionally) {
    prepare();
    void *p[] = {ptr(ba_), ptr(bb_), ptr(bd_), ptr(bc_)};  // inputs in creation order, then outputs
    ASSERT_FE_OK(fe_graph_execute_positional(g_, handle_, p, 4, nullptr));
    check_output(*bc_);
}

TEST_F(Execute, CallerWorkspaceAndRepeatedCallsWithNewOutputs) {
    prepare();
    int64_t ws = 0;
    ASSERT_FE_OK(fe_graph_workspace_size(g_, &ws));
    fe_buffer *workspace = nullptr;
    ASSERT_FE_OK(fe_buffer_create(0, ws > 0 ? ws : 16, &workspace));
    void *wp = nullptr;
    fe_buffer_device_pointer(workspace, &wp);
    void *p[] = {ptr(ba_), ptr(bb_), ptr(bd_), ptr(bc_)};
    ASSERT_FE_OK(fe_graph_execute_positional(g_, handle_, p, 4, wp));
    ASSERT_FE_OK(fe_graph_execute_positional(g_, handle_, p, 4, wp));  // the cached variant pack
    check_output(*bc_);
    // A different output buffer must be honoured (the cache must not replay old pointers).
    Bound &second = bind(c_, false);
    void *q[] = {ptr(ba_), ptr(bb_), ptr(bd_), ptr(&second)};
    ASSERT_FE_OK(fe_graph_execute_positional(g_, handle_, q, 4, wp));
    check_output(second);
    fe_buffer_destroy(workspace);
}

TEST_F(Execute, BindingErrorsAreReportedAndNothingRuns) {
    prepare();
    fe_tensor *t[] = {a_, b_, d_, c_};
    void *p[] = {ptr(ba_), ptr(bb_), ptr(bd_), ptr(bc_)};
    EXPECT_FE_STATUS(fe_graph_execute(g_, handle_, t, p, 3, nullptr), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("no device pointer is bound to 'bias_0::Y'"));
    fe_tensor *dup[] = {a_, a_, d_, c_};
    EXPECT_FE_STATUS(fe_graph_execute(g_, handle_, dup, p, 4, nullptr), FE_STATUS_DUPLICATE);
    EXPECT_TRUE(LastErrorContains("'a' is bound twice"));
    fe_tensor *virt[] = {a_, b_, d_, virtual_};
    EXPECT_FE_STATUS(fe_graph_execute(g_, handle_, virt, p, 4, nullptr), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("virtual"));
    void *null_p[] = {ptr(ba_), nullptr, ptr(bd_), ptr(bc_)};
    EXPECT_FE_STATUS(fe_graph_execute(g_, handle_, t, null_p, 4, nullptr), FE_STATUS_NULL_POINTER);
    void *misaligned[] = {static_cast<char *>(ptr(ba_)) + 2, ptr(bb_), ptr(bd_), ptr(bc_)};
    EXPECT_FE_STATUS(fe_graph_execute(g_, handle_, t, misaligned, 4, nullptr), FE_STATUS_MISALIGNED);
    EXPECT_TRUE(LastErrorContains("not 16-byte aligned"));
    int64_t uids[] = {12345};
    EXPECT_FE_STATUS(fe_graph_execute_by_uid(g_, handle_, uids, p, 1, nullptr), FE_STATUS_NOT_FOUND);
    EXPECT_TRUE(LastErrorContains("no input or output with uid 12345"));
    EXPECT_FE_STATUS(fe_graph_execute_positional(g_, handle_, p, 3, nullptr), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("takes 4 pointers (3 inputs, then 1 outputs), 3 given"));
    // A buffer smaller than its tensor.
    fe_buffer *small = nullptr;
    ASSERT_FE_OK(fe_buffer_create(0, 64, &small));
    fe_buffer *bufs[] = {ba_->buffer, bb_->buffer, small, bc_->buffer};
    EXPECT_FE_STATUS(fe_graph_execute_buffers(g_, handle_, t, bufs, 4, nullptr), FE_STATUS_BUFFER_TOO_SMALL);
    EXPECT_TRUE(LastErrorContains("the buffer for 'd' has 64 bytes; the tensor needs 6144"));
    fe_buffer_destroy(small);
    // A tensor of another graph.
    fe_graph *other = graph("other", FE_DATA_HALF);
    fe_tensor *stranger = tensor(other, "a", {2, 64, 32});
    fe_tensor *foreign[] = {stranger, b_, d_, c_};
    EXPECT_FE_STATUS(fe_graph_execute(g_, handle_, foreign, p, 4, nullptr), FE_STATUS_NOT_FOUND);
    // The output was never written by the failed calls: still the poison.
    download(*bc_);
    EXPECT_TRUE(std::isnan(bc_->host[0]));
    // And the graph still runs afterwards.
    ASSERT_FE_OK(fe_graph_execute(g_, handle_, t, p, 4, nullptr));
    check_output(*bc_);
}

// An alignment promise reaches cuDNN and holds execution to it: with A, B and C promised
// 256-byte aligned the result is right, and a pointer that is only 16-byte aligned is refused.
TEST_F(Execute, AnAlignmentPromiseIsKeptAndChecked) {
    for (fe_tensor *t : {a_, b_, c_}) ASSERT_FE_OK(fe_tensor_set_alignment(t, 256));
    prepare();
    std::printf("    plan %s with 256-byte operands\n", engine_tag_of(g_));
    fe_tensor *t[] = {a_, b_, d_, c_};
    void *p[] = {ptr(ba_), ptr(bb_), ptr(bd_), ptr(bc_)};
    ASSERT_FE_OK(fe_graph_execute(g_, handle_, t, p, 4, nullptr));
    check_output(*bc_);
    void *shifted[] = {ptr(ba_), static_cast<char *>(ptr(bb_)) + 16, ptr(bd_), ptr(bc_)};
    EXPECT_FE_STATUS(fe_graph_execute(g_, handle_, t, shifted, 4, nullptr), FE_STATUS_MISALIGNED);
    EXPECT_TRUE(LastErrorContains("the device pointer bound to 'b'")) << fe_last_error_message();
    EXPECT_TRUE(LastErrorContains("is not 256-byte aligned, as the tensor promises")) << fe_last_error_message();
}

TEST_F(Execute, AnOutputOverlappingAnInputIsRefused) {
    prepare();
    fe_tensor *t[] = {a_, b_, d_, c_};
    // C written over B while B is read: a race inside the kernel, refused before it runs.
    void *on_input[] = {ptr(ba_), ptr(bb_), ptr(bd_), static_cast<char *>(ptr(bb_)) + 256};
    EXPECT_FE_STATUS(fe_graph_execute(g_, handle_, t, on_input, 4, nullptr), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("fe_graph_execute: the memory bound to input 'b'"));
    EXPECT_TRUE(LastErrorContains("overlaps the memory bound to output 'bias_0::Y'"));
    EXPECT_FE_STATUS(fe_graph_execute_positional(g_, handle_, on_input, 4, nullptr), FE_STATUS_INVALID_ARGUMENT);
    // Nothing ran: the output still holds its poison, and separate memory runs.
    download(*bc_);
    EXPECT_TRUE(std::isnan(bc_->host[0]));
    void *separate[] = {ptr(ba_), ptr(bb_), ptr(bd_), ptr(bc_)};
    ASSERT_FE_OK(fe_graph_execute(g_, handle_, t, separate, 4, nullptr));
    check_output(*bc_);
}

TEST_F(Execute, UnbuiltGraphIsRefused) {
    void *p[4] = {nullptr, nullptr, nullptr, nullptr};
    EXPECT_FE_STATUS(fe_graph_execute_positional(g_, handle_, p, 4, nullptr), FE_STATUS_BAD_STATE);
    EXPECT_TRUE(LastErrorContains("graph 'exec' is not built"));
}

TEST_F(Execute, ConcurrentlyFromTwoHandles) {
    prepare();
    fe_handle *second = nullptr;
    ASSERT_FE_OK(fe_handle_create(0, &second));
    Bound &out2 = bind(c_, false);
    void *p1[] = {ptr(ba_), ptr(bb_), ptr(bd_), ptr(bc_)};
    void *p2[] = {ptr(ba_), ptr(bb_), ptr(bd_), ptr(&out2)};
    // First one after the other: a plan built with one handle runs with another.
    ASSERT_FE_OK(fe_graph_execute_positional(g_, second, p2, 4, nullptr));
    ASSERT_FE_OK(fe_handle_synchronize(second));
    fe_status s1 = FE_OK, s2 = FE_OK;
    std::string m1, m2;
    std::thread t1([&] {
        for (int i = 0; i < 200 && s1 == FE_OK; ++i) s1 = fe_graph_execute_positional(g_, handle_, p1, 4, nullptr);
        if (s1 != FE_OK) m1 = fe_last_error_message();
    });
    std::thread t2([&] {
        for (int i = 0; i < 200 && s2 == FE_OK; ++i) s2 = fe_graph_execute_positional(g_, second, p2, 4, nullptr);
        if (s2 != FE_OK) m2 = fe_last_error_message();
        fe_handle_synchronize(second);
    });
    t1.join();
    t2.join();
    EXPECT_EQ(s1, FE_OK) << m1;
    EXPECT_EQ(s2, FE_OK) << m2;
    check_output(*bc_);
    check_output(out2);
    fe_handle_destroy(second);
}

// Sixteen threads, each with its own handle (stream) and output, execute one built graph ten
// thousand times at once; every output matches the reference.
TEST_F(Execute, SixteenThreadsTenThousandExecutesEach) {
    prepare();
    constexpr int kThreads = 16, kRuns = 10000;
    std::vector<fe_handle *> handles(kThreads, nullptr);
    std::vector<Bound *> outs;
    for (int i = 0; i < kThreads; ++i) {
        ASSERT_FE_OK(fe_handle_create(0, &handles[static_cast<size_t>(i)]));
        outs.push_back(&bind(c_, false));
    }
    std::vector<fe_status> status(kThreads, FE_OK);
    std::vector<std::string> message(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i)
        threads.emplace_back([&, i] {
            size_t n = static_cast<size_t>(i);
            void *p[] = {ptr(ba_), ptr(bb_), ptr(bd_), ptr(outs[n])};
            for (int r = 0; r < kRuns && status[n] == FE_OK; ++r)
                status[n] = fe_graph_execute_positional(g_, handles[n], p, 4, nullptr);
            if (status[n] != FE_OK) message[n] = fe_last_error_message();
            fe_handle_synchronize(handles[n]);
        });
    for (std::thread &t : threads) t.join();
    for (int i = 0; i < kThreads; ++i) {
        size_t n = static_cast<size_t>(i);
        EXPECT_EQ(status[n], FE_OK) << "thread " << i << ": " << message[n];
        check_output(*outs[n]);
        fe_handle_destroy(handles[n]);
    }
}

TEST_F(Execute, ManagedWorkspaceGrowsOnDemand) {
    prepare();
    int64_t need = 0, have = -1;
    ASSERT_FE_OK(fe_graph_workspace_size(g_, &need));
    void *p[] = {ptr(ba_), ptr(bb_), ptr(bd_), ptr(bc_)};
    ASSERT_FE_OK(fe_graph_execute_positional(g_, handle_, p, 4, nullptr));
    ASSERT_FE_OK(fe_handle_workspace_size(handle_, &have));
    EXPECT_GE(have, need);
    check_output(*bc_);
}

TEST_F(Gpu, CapturedDescriptionBuildsPlansThatRunHere) {
    size_t length = 0;
    EXPECT_FE_STATUS(fe_device_properties_capture(0, nullptr, 0, &length), FE_STATUS_BUFFER_TOO_SMALL);
    ASSERT_GT(length, 10u);
    std::string json(length + 1, '\0');
    ASSERT_FE_OK(fe_device_properties_capture(0, &json[0], json.size(), &length));
    json.resize(length);
    EXPECT_NE(json.find("\"deviceName\""), std::string::npos) << json;
    std::printf("    captured: %s\n", json.c_str());
    // Built with no handle from the description, executed on this GPU.
    fe_graph *g = graph("aot_conv", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {2, 16, 16, 16}, true), *w = tensor(g, "w", {32, 16, 3, 3}, true);
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    int64_t pad[2] = {1, 1};
    fe_conv_options_set_padding(&o, 2, pad);
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    fe_build_options bo = FE_BUILD_OPTIONS_INIT;
    bo.device_properties_json = json.c_str();
    ASSERT_FE_OK(fe_graph_build(g, nullptr, &bo));
    Bound &bx = bind(x, true), &bw = bind(w, true), &by = bind(y, false);
    execute(g, {&bx, &bw, &by});
    download(by);
    expect_close(by, conv_reference(bx, bw, by.dims, ConvParams{{1, 1}, {1, 1}, {1, 1}}), 0.08, 0.02, 5e-3);
}

TEST_F(Gpu, BuffersRoundTripAndCheckSizes) {
    fe_buffer *b = nullptr;
    ASSERT_FE_OK(fe_buffer_create(0, 64, &b));
    float in[16], out[16];
    for (int i = 0; i < 16; ++i) in[i] = 0.25f * static_cast<float>(i) - 1.5f;
    for (fe_data_type t : {FE_DATA_FLOAT, FE_DATA_HALF, FE_DATA_BFLOAT16}) {
        ASSERT_FE_OK(fe_buffer_upload_float(b, in, 16, t));
        ASSERT_FE_OK(fe_buffer_download_float(b, out, 16, t));
        for (int i = 0; i < 16; ++i) EXPECT_EQ(out[i], in[i]) << fe_data_type_string(t);  // exactly representable
    }
    EXPECT_FE_STATUS(fe_buffer_upload_float(b, in, 16, FE_DATA_DOUBLE), FE_STATUS_BUFFER_TOO_SMALL);
    EXPECT_FE_STATUS(fe_buffer_upload(b, in, 65), FE_STATUS_BUFFER_TOO_SMALL);
    EXPECT_TRUE(LastErrorContains("fe_buffer_upload: an upload of 65 bytes does not fit the buffer of 64 bytes"));
    EXPECT_FE_STATUS(fe_buffer_upload_float(b, in, 4, FE_DATA_INT8), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_FE_STATUS(fe_buffer_create(0, 0, &b), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_FE_STATUS(fe_buffer_create(99, 16, &b), FE_STATUS_INVALID_ARGUMENT);
    fe_buffer_destroy(b);
    fe_handle *h = nullptr;
    EXPECT_FE_STATUS(fe_handle_create(99, &h), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("device 99 does not exist"));
}

}  // namespace
