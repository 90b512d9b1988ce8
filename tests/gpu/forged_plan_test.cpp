// Forged plans on the GPU: a serialized graph whose plan was edited by a writer who fixes the
// checksum (tensors moved to other ports, loosely written names, decoy members, vectorized or
// enlarged tensors, a scaled result) is refused before cuDNN runs it; should one load, it is
// executed here so the test shows what it would have done to the caller's buffers. The untouched
// blob of each graph loads, computes what the original computed bit for bit, and leaves the
// caller's inputs as they were.
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "blob_editor.hpp"
#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

// A built graph, its bound tensors (inputs first), and its serialized bytes.
struct Built {
    fe_graph *graph = nullptr;
    std::vector<Bound *> inputs, outputs;
    std::vector<unsigned char> bytes;
};

class ForgedPlansOnGpu : public Gpu {
  protected:
    void SetUp() override {
        Gpu::SetUp();
        if (IsSkipped()) return;
        fe_plan_cache_clear();
    }

    int64_t uid(const Bound &b) {
        int64_t u = 0;
        EXPECT_FE_OK(fe_tensor_get_uid(b.tensor, &u));
        return u;
    }

    void finish(Built &built, std::vector<Bound *> inputs, std::vector<Bound *> outputs) {
        built.inputs = std::move(inputs);
        built.outputs = std::move(outputs);
        std::vector<Bound *> all = built.inputs;
        all.insert(all.end(), built.outputs.begin(), built.outputs.end());
        execute(built.graph, all);
        for (Bound *o : built.outputs) download(*o);
        size_t n = 0;
        EXPECT_EQ(fe_graph_serialize(built.graph, nullptr, 0, &n), FE_STATUS_BUFFER_TOO_SMALL);
        built.bytes.resize(n);
        EXPECT_FE_OK(fe_graph_serialize(built.graph, built.bytes.data(), n, &n));
    }

    // X [2,16,8,8] NHWC half, W [16,16,3,3], padding 1: Y has X's dims, so only the ports tell
    // them apart.
    Built convolution() {
        Built b;
        b.graph = graph("forged_conv", FE_DATA_HALF);
        fe_tensor *x = tensor(b.graph, "X", {2, 16, 8, 8}, true), *w = tensor(b.graph, "W", {16, 16, 3, 3}, true);
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        o.pre_padding[0] = o.pre_padding[1] = o.post_padding[0] = o.post_padding[1] = 1;
        fe_tensor *y = nullptr;
        EXPECT_FE_OK(fe_graph_conv_fprop(b.graph, x, w, &o, &y));
        EXPECT_FE_OK(fe_tensor_set_output(y, 1));
        build(b.graph);
        finish(b, {&bind(x, true), &bind(w, true)}, {&bind(y, false)});
        return b;
    }

    // X [2,16,8,8] convolved, then a per-channel B [1,16,1,1] added or subtracted.
    Built convolution_then(fe_pointwise_mode mode) {
        Built b;
        b.graph = graph(mode == FE_POINTWISE_ADD ? "forged_conv_add" : "forged_conv_sub", FE_DATA_HALF);
        fe_tensor *x = tensor(b.graph, "X", {2, 16, 8, 8}, true), *w = tensor(b.graph, "W", {16, 16, 3, 3}, true);
        fe_tensor *c = tensor(b.graph, "B", {1, 16, 1, 1}, true), *y = nullptr, *z = nullptr;
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        EXPECT_FE_OK(fe_graph_conv_fprop(b.graph, x, w, &o, &y));
        EXPECT_FE_OK(fe_graph_pointwise(b.graph, mode, y, c, nullptr, nullptr, &z));
        EXPECT_FE_OK(fe_tensor_set_output(z, 1));
        build(b.graph);
        finish(b, {&bind(x, true), &bind(w, true), &bind(c, true)}, {&bind(z, false)});
        return b;
    }

    // The pointwise node's X and B references exchanged.
    static std::vector<unsigned char> pointwise_operands_swapped(const std::vector<unsigned char> &bytes) {
        EditableBlob blob(bytes);
        std::string text = blob.text(EditableBlob::kPlan);
        size_t node = text.find("CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR");
        size_t end = text.find('}', node), x = text.find("\"X\":\"", node), b = text.find("\"B\":\"", node);
        EXPECT_TRUE(node != std::string::npos && x < end && b < end) << "no pointwise node with X and B";
        if (node == std::string::npos || x >= end || b >= end) return bytes;
        text[x + 1] = 'B';
        text[b + 1] = 'X';
        blob.set_text(EditableBlob::kPlan, text);
        return blob.bytes();
    }

    // Square A and B: swapped, every tensor keeps its dims.
    Built matmul() {
        Built b;
        b.graph = graph("forged_matmul", FE_DATA_HALF);
        fe_tensor *a = tensor(b.graph, "A", {1, 64, 64}), *m = tensor(b.graph, "B", {1, 64, 64}), *c = nullptr;
        EXPECT_FE_OK(fe_graph_matmul(b.graph, a, m, nullptr, &c));
        EXPECT_FE_OK(fe_tensor_set_output(c, 1));
        build(b.graph);
        finish(b, {&bind(a, true), &bind(m, true)}, {&bind(c, false)});
        return b;
    }

    // Q, K, V and O of one shape: K and V swapped keep every dim.
    Built attention() {
        Built b;
        b.graph = graph("forged_sdpa", FE_DATA_BFLOAT16);
        fe_tensor *q = tensor(b.graph, "Q", {1, 2, 128, 64}), *k = tensor(b.graph, "K", {1, 2, 128, 64}),
                  *v = tensor(b.graph, "V", {1, 2, 128, 64});
        fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
        o.attn_scale = 0.125;
        fe_tensor *out = nullptr, *stats = nullptr;
        EXPECT_FE_OK(fe_graph_sdpa(b.graph, q, k, v, &o, &out, &stats));
        EXPECT_FE_OK(fe_tensor_set_output(out, 1));
        build(b.graph);
        finish(b, {&bind(q, true), &bind(k, true), &bind(v, true)}, {&bind(out, false)});
        return b;
    }

    // Loads bytes and executes them by uid over the original's buffers (outputs poisoned first).
    // Returns the status of the load; on success the caller's inputs must be unchanged.
    fe_status load_and_run(Built &built, const std::vector<unsigned char> &bytes, fe_graph **out) {
        *out = nullptr;
        fe_status s = fe_graph_deserialize(handle_, bytes.data(), bytes.size(), nullptr, out);
        if (s != FE_OK) return s;
        graphs_.push_back(*out);
        std::vector<int64_t> uids;
        std::vector<void *> pointers;
        for (Bound *o : built.outputs) EXPECT_FE_OK(fe_buffer_fill_bytes(o->buffer, 0xFF));
        std::vector<Bound *> all = built.inputs;
        all.insert(all.end(), built.outputs.begin(), built.outputs.end());
        for (Bound *b : all) {
            void *p = nullptr;
            EXPECT_FE_OK(fe_buffer_device_pointer(b->buffer, &p));
            uids.push_back(uid(*b));
            pointers.push_back(p);
        }
        int64_t bytes_needed = 0;
        EXPECT_FE_OK(fe_graph_workspace_size(*out, &bytes_needed));
        fe_buffer *workspace = nullptr;
        void *workspace_pointer = nullptr;
        if (bytes_needed > 0) {
            EXPECT_FE_OK(fe_buffer_create(0, bytes_needed, &workspace));
            EXPECT_FE_OK(fe_buffer_device_pointer(workspace, &workspace_pointer));
        }
        fe_status ran = fe_graph_execute_by_uid(*out, handle_, uids.data(), pointers.data(), uids.size(),
                                                workspace_pointer);
        EXPECT_FE_OK(fe_handle_synchronize(handle_));
        fe_buffer_destroy(workspace);
        EXPECT_FE_OK(ran) << fe_last_error_message();
        return FE_OK;
    }

    // Each input still holds what the test uploaded.
    void expect_inputs_unchanged(const Built &built, const std::string &what) {
        for (Bound *in : built.inputs) {
            std::vector<float> now(in->host.size());
            ASSERT_FE_OK(fe_buffer_download_float(in->buffer, now.data(), in->span(), in->type));
            size_t changed = 0;
            for (size_t i = 0; i < now.size(); ++i)
                if (std::memcmp(&now[i], &in->host[i], sizeof(float)) != 0) ++changed;
            EXPECT_EQ(changed, 0u) << what << " wrote " << changed << " of " << now.size()
                                   << " elements of an input";
        }
    }

    // A forgery is refused with the plan check's message; one that loads is run, to show what it
    // does to the caller's buffers.
    void expect_refused(Built &built, const std::vector<unsigned char> &forged, const std::string &what) {
        SCOPED_TRACE(what);
        fe_graph *loaded = nullptr;
        fe_status s = load_and_run(built, forged, &loaded);
        EXPECT_EQ(s, FE_STATUS_INVALID_ARGUMENT) << "a forged plan loaded";
        if (s == FE_OK) {
            expect_inputs_unchanged(built, what);
            return;
        }
        EXPECT_TRUE(LastErrorContains("the plan does not match its graph")) << fe_last_error_message();
    }

    // The untouched blob runs, bit for bit as the original did, and writes no input.
    void expect_genuine_runs(Built &built) {
        std::vector<std::vector<float>> first;
        for (Bound *o : built.outputs) first.push_back(o->host);
        fe_graph *loaded = nullptr;
        ASSERT_FE_OK(load_and_run(built, built.bytes, &loaded)) << fe_last_error_message();
        for (size_t i = 0; i < built.outputs.size(); ++i) {
            download(*built.outputs[i]);
            EXPECT_EQ(std::memcmp(built.outputs[i]->host.data(), first[i].data(), first[i].size() * sizeof(float)), 0)
                << "the loaded plan computed something else";
        }
        expect_inputs_unchanged(built, "the genuine plan");
    }

    // The plan with every reference to tensor a made to b and every reference to b made to a
    // (the tensors' own declarations stay): the same tensors on each other's ports.
    static std::vector<unsigned char> swap_tensors(const std::vector<unsigned char> &bytes, int64_t a, int64_t b) {
        EditableBlob blob(bytes);
        std::string text = blob.text(EditableBlob::kPlan), out;
        const std::string ra = ":\"" + std::to_string(a) + "\"", rb = ":\"" + std::to_string(b) + "\"";
        size_t swaps = 0;
        for (size_t at = 0; at < text.size();) {
            bool is_a = text.compare(at, ra.size(), ra) == 0, is_b = text.compare(at, rb.size(), rb) == 0;
            bool declaration = at >= 6 && text.compare(at - 6, 6, "\"name\"") == 0;
            if ((is_a || is_b) && !declaration) {
                out += is_a ? rb : ra;
                at += is_a ? ra.size() : rb.size();
                ++swaps;
            } else {
                out += text[at++];
            }
        }
        EXPECT_GT(swaps, 0u) << "no reference to tensor " << a << " or " << b << " in the plan";
        blob.set_text(EditableBlob::kPlan, out);
        return blob.bytes();
    }

    static std::vector<unsigned char> edited(const std::vector<unsigned char> &bytes, const std::string &from,
                                             const std::string &to) {
        EditableBlob blob(bytes);
        blob.replace(EditableBlob::kPlan, from, to);
        return blob.bytes();
    }
};

TEST_F(ForgedPlansOnGpu, AConvolutionWithItsTensorsOnOtherPortsIsRefused) {
    Built conv = convolution();
    const int64_t x = uid(*conv.inputs[0]), w = uid(*conv.inputs[1]), y = uid(*conv.outputs[0]);
    expect_refused(conv, swap_tensors(conv.bytes, x, y), "X and Y swapped");
    expect_refused(conv, swap_tensors(conv.bytes, x, w), "X and W swapped");
    expect_genuine_runs(conv);
}

TEST_F(ForgedPlansOnGpu, AConvolutionWithLooseNamesOrDecoysIsRefused) {
    Built conv = convolution();
    const std::string y = std::to_string(uid(*conv.outputs[0])), x = std::to_string(uid(*conv.inputs[0]));
    for (const std::string &spelling : {"0" + y, "+" + y, y + "x", " " + y})
        expect_refused(conv, edited(conv.bytes, "\"Y\":\"" + y + "\"", "\"Y\":\"" + spelling + "\""),
                       "Y written as '" + spelling + "'");
    expect_refused(conv, edited(conv.bytes, "\"Y\":\"" + y + "\"", "\"Y\":\"" + x + "x\",\"Z\":\"" + y + "\""),
                   "Y redirected beside a decoy");
    expect_refused(conv, edited(conv.bytes, "\"reordering\"", "\"decoy\":1,\"reordering\""), "a decoy tensor member");
    expect_genuine_runs(conv);
}

TEST_F(ForgedPlansOnGpu, AConvolutionWithOtherTensorsOrAttributesIsRefused) {
    Built conv = convolution();
    expect_refused(conv, edited(conv.bytes, "\"dim\":[2,16,8,8]", "\"dim\":[64,16,8,8]"), "enlarged X and Y");
    expect_refused(conv, edited(conv.bytes, "\"vectCount\":1", "\"vectCount\":4"), "vectorized tensors");
    expect_refused(conv, edited(conv.bytes, "CUDNN_TENSOR_REORDERING_NONE", "CUDNN_TENSOR_REORDERING_F16x16"),
                   "reordered tensors");
    expect_refused(conv, edited(conv.bytes, "\"alpha\":1.0", "\"alpha\":2.0"), "a scaled result");
    expect_refused(conv, edited(conv.bytes, "\"pad\":[1,1]", "\"pad\":[0,0]"), "no padding");
    expect_genuine_runs(conv);
}

// An add's operands may trade places (cuDNN itself writes some adds so): the plan loads and
// computes the same values. A subtraction's may not.
TEST_F(ForgedPlansOnGpu, OnlyACommutativeModesOperandsMayTradePlaces) {
    Built add = convolution_then(FE_POINTWISE_ADD);
    std::vector<unsigned char> genuine = add.bytes;
    add.bytes = pointwise_operands_swapped(genuine);
    expect_genuine_runs(add);
    Built sub = convolution_then(FE_POINTWISE_SUB);
    expect_refused(sub, pointwise_operands_swapped(sub.bytes), "the subtraction's operands swapped");
    expect_genuine_runs(sub);
}

TEST_F(ForgedPlansOnGpu, AMatmulWithItsOperandsSwappedIsRefused) {
    Built mm = matmul();
    expect_refused(mm, swap_tensors(mm.bytes, uid(*mm.inputs[0]), uid(*mm.inputs[1])), "A and B swapped");
    expect_refused(mm, swap_tensors(mm.bytes, uid(*mm.inputs[0]), uid(*mm.outputs[0])), "A and C swapped");
    expect_genuine_runs(mm);
}

// Whatever the lowering (cuDNN's attention operation or its composite of matmuls and softmax),
// K and V, or Q and O, on each other's ports are refused.
TEST_F(ForgedPlansOnGpu, AnAttentionPlanWithItsTensorsSwappedIsRefused) {
    Built sdpa = attention();
    expect_refused(sdpa, swap_tensors(sdpa.bytes, uid(*sdpa.inputs[1]), uid(*sdpa.inputs[2])), "K and V swapped");
    expect_refused(sdpa, swap_tensors(sdpa.bytes, uid(*sdpa.inputs[0]), uid(*sdpa.outputs[0])), "Q and O swapped");
    std::printf("    attention plan %s\n", engine_tag_of(sdpa.graph));
    expect_genuine_runs(sdpa);
}

}  // namespace
