// Attention's sinks, Max/SumExp outputs, two-bound bands and soft-capping: cuDNN's heuristics
// take each pattern for the H100 description (run on the GPU tier), and every bad combination
// is refused with its reason.
#include <limits>

#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

struct Attention {
    fe_tensor *q, *k, *v;
};

class SdpaBandSink : public Deviceless {
  protected:
    Attention qkv(fe_graph *g, int64_t h_q = 8, int64_t h_k = 8, int64_t s_q = 256, int64_t s_kv = 256) {
        return {tensor(g, "q", {2, h_q, s_q, 64}), tensor(g, "k", {2, h_k, s_kv, 64}), tensor(g, "v", {2, h_k, s_kv, 64})};
    }
    fe_tensor *sink(fe_graph *g, int64_t heads = 8) { return tensor(g, "sink", {1, heads, 1, 1}, false, FE_DATA_FLOAT); }
    void forward_supported(fe_graph *g, const Attention &a, const fe_sdpa_options &o) {
        fe_tensor *out = nullptr, *stats = nullptr;
        ASSERT_FE_OK(fe_graph_sdpa(g, a.q, a.k, a.v, &o, &out, &stats));
        ASSERT_FE_OK(fe_tensor_set_output(out, 1));
        if (stats) ASSERT_FE_OK(fe_tensor_set_output(stats, 1));
        for (const char *port : {"sdpa_0::Max", "sdpa_0::SumExp"}) {
            fe_tensor *t = nullptr;
            if (fe_graph_tensor_by_name(g, port, &t) == FE_OK) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        }
        expect_supported(g);
    }
    fe_status backward(fe_graph *g, const Attention &a, const fe_sdpa_backward_options &o) {
        fe_tensor *out = nullptr, *d_o = nullptr, *stats = nullptr;
        if (fe_graph_tensor_by_name(g, "o", &out) != FE_OK) {
            out = tensor(g, "o", {2, 8, 256, 64});
            d_o = tensor(g, "dO", {2, 8, 256, 64});
            stats = tensor(g, "stats", {2, 8, 256, 1}, false, FE_DATA_FLOAT);
        } else {
            EXPECT_FE_OK(fe_graph_tensor_by_name(g, "dO", &d_o));
            EXPECT_FE_OK(fe_graph_tensor_by_name(g, "stats", &stats));
        }
        fe_tensor *dq = nullptr, *dk = nullptr, *dv = nullptr;
        fe_status s = fe_graph_sdpa_backward(g, a.q, a.k, a.v, out, d_o, stats, &o, &dq, &dk, &dv);
        if (s != FE_OK) return s;
        for (fe_tensor *t : {dq, dk, dv}) EXPECT_FE_OK(fe_tensor_set_output(t, 1));
        fe_tensor *dsink = nullptr;
        if (fe_graph_tensor_by_name(g, "sdpa_backward_0::dSink", &dsink) == FE_OK) {
            EXPECT_FE_OK(fe_tensor_set_output(dsink, 1));
            int64_t dims[4];
            EXPECT_FE_OK(fe_tensor_get_dims(dsink, dims, 4));
            EXPECT_EQ(dims[1], 8);
            EXPECT_EQ(dims[0] * dims[2] * dims[3], 1);
        }
        return FE_OK;
    }
};

TEST_F(SdpaBandSink, SinksWithACausalMaskAndStatsAreSupported) {
    fe_graph *g = graph("sink_causal", FE_DATA_BFLOAT16);
    Attention a = qkv(g);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    o.generate_stats = 1;
    o.sink_token = sink(g);
    forward_supported(g, a, o);
    EXPECT_NE(describe(g).find("sink=sink"), std::string::npos);
}

TEST_F(SdpaBandSink, MaxAndSumExpAreOutputInsteadOfTheStats) {
    fe_graph *g = graph("max_sum_exp", FE_DATA_HALF);
    Attention a = qkv(g, 8, 2, 128, 512);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.output_max_sum_exp = 1;
    o.generate_stats = 1;
    fe_tensor *out = nullptr, *stats = nullptr;
    EXPECT_FE_REFUSED(fe_graph_sdpa(g, a.q, a.k, a.v, &o, &out, &stats), FE_STATUS_INVALID_ARGUMENT,
                      "the stats or Max and SumExp, not both");
    o.generate_stats = 0;
    forward_supported(g, a, o);
    fe_tensor *max = nullptr;
    ASSERT_FE_OK(fe_graph_tensor_by_name(g, "sdpa_0::Max", &max));
    int64_t dims[4];
    ASSERT_FE_OK(fe_tensor_get_dims(max, dims, 4));
    EXPECT_EQ(dims[2], 128);
    EXPECT_EQ(dims[3], 1);
    fe_data_type type;
    ASSERT_FE_OK(fe_tensor_get_data_type(max, &type));
    EXPECT_EQ(type, FE_DATA_FLOAT);
}

TEST_F(SdpaBandSink, MaxAndSumExpWithSinksHaveNoEngineAndTheBuildSaysWhy) {
    fe_graph *g = graph("max_sum_exp_sink", FE_DATA_HALF);
    Attention a = qkv(g);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.output_max_sum_exp = 1;
    o.sink_token = sink(g);
    fe_tensor *out = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa(g, a.q, a.k, a.v, &o, &out, nullptr));
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
    for (const char *port : {"sdpa_0::Max", "sdpa_0::SumExp"}) {
        fe_tensor *t = nullptr;
        ASSERT_FE_OK(fe_graph_tensor_by_name(g, port, &t));
        ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    }
    EXPECT_FE_STATUS(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("no fused attention engine that outputs Max and SumExp when the softmax has sinks"))
        << fe_last_error_message();
}

TEST_F(SdpaBandSink, ABandOfBothBoundsIsSupportedInEitherAlignment) {
    for (fe_diagonal_alignment alignment : {FE_DIAGONAL_ALIGNMENT_TOP_LEFT, FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT}) {
        fe_graph *g = graph("band", FE_DATA_BFLOAT16);
        Attention a = qkv(g, 8, 8, 128, 256);
        fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
        o.attn_scale = 0.125;
        o.sliding_window = 64;
        o.right_bound = 16;
        o.diagonal_alignment = alignment;
        o.generate_stats = 1;
        forward_supported(g, a, o);
        EXPECT_NE(describe(g).find("right_bound=16"), std::string::npos);
    }
}

// Under a padding mask a bottom-right diagonal sits at each sequence's own last key: the
// lowering shifts the row index by seq_len_kv - seq_len_q, a pattern cuDNN's engines take.
TEST_F(SdpaBandSink, BottomRightMasksOverAPaddingMaskAreSupportedForwardAndBackward) {
    struct Mask {
        fe_causal_mask causal;
        int64_t window, right;
    };
    for (Mask m : {Mask{FE_CAUSAL_MASK_BOTTOM_RIGHT, 0, -1}, Mask{FE_CAUSAL_MASK_BOTTOM_RIGHT, 64, -1},
                   Mask{FE_CAUSAL_MASK_NONE, 64, 16}, Mask{FE_CAUSAL_MASK_NONE, 32, -1}}) {
        fe_graph *g = graph("bottom_right_padding", FE_DATA_BFLOAT16);
        Attention a = qkv(g, 8, 8, 256, 256);
        fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
        o.attn_scale = 0.125;
        o.causal_mask = m.causal;
        o.sliding_window = m.window;
        o.right_bound = m.right;
        o.diagonal_alignment = m.causal == FE_CAUSAL_MASK_NONE ? FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT
                                                               : FE_DIAGONAL_ALIGNMENT_TOP_LEFT;
        o.seq_len_q = tensor(g, "len_q", {2, 1, 1, 1}, false, FE_DATA_INT32);
        o.seq_len_kv = tensor(g, "len_kv", {2, 1, 1, 1}, false, FE_DATA_INT32);
        o.generate_stats = 1;
        forward_supported(g, a, o);

        fe_graph *b = graph("bottom_right_padding_backward", FE_DATA_BFLOAT16);
        Attention ab = qkv(b);
        fe_sdpa_backward_options bo = FE_SDPA_BACKWARD_OPTIONS_INIT;
        bo.attn_scale = 0.125;
        bo.causal_mask = o.causal_mask;
        bo.sliding_window = o.sliding_window;
        bo.right_bound = o.right_bound;
        bo.diagonal_alignment = o.diagonal_alignment;
        bo.seq_len_q = tensor(b, "len_q", {2, 1, 1, 1}, false, FE_DATA_INT32);
        bo.seq_len_kv = tensor(b, "len_kv", {2, 1, 1, 1}, false, FE_DATA_INT32);
        ASSERT_FE_OK(backward(b, ab, bo));
        expect_supported(b);
    }
}

TEST_F(SdpaBandSink, SoftCappingIsSupportedForwardAndBackward) {
    fe_graph *g = graph("softcap", FE_DATA_HALF);
    Attention a = qkv(g);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.softcap = 50;
    o.generate_stats = 1;
    forward_supported(g, a, o);
    EXPECT_NE(describe(g).find("softcap=50"), std::string::npos);

    fe_graph *b = graph("softcap_backward", FE_DATA_HALF);
    fe_sdpa_backward_options bo = FE_SDPA_BACKWARD_OPTIONS_INIT;
    bo.attn_scale = 0.125;
    bo.softcap = 50;
    ASSERT_FE_OK(backward(b, qkv(b), bo));
    expect_supported(b);
}

TEST_F(SdpaBandSink, DSinkIsSupportedAndNeedsTheSinks) {
    fe_graph *g = graph("dsink", FE_DATA_BFLOAT16);
    Attention a = qkv(g);
    fe_sdpa_backward_options o = FE_SDPA_BACKWARD_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    o.output_dsink = 1;
    EXPECT_FE_REFUSED(backward(g, a, o), FE_STATUS_INVALID_ARGUMENT, "output_dsink needs the forward's sinks");
    o.output_dsink = 0;
    o.sink_token = sink(g);
    EXPECT_FE_REFUSED(backward(g, a, o), FE_STATUS_INVALID_ARGUMENT, "sink_token in the backward serves only dSink");
    o.output_dsink = 1;
    ASSERT_FE_OK(backward(g, a, o));
    expect_supported(g);
}

TEST_F(SdpaBandSink, BadBandsSinksAndCapsAreRefusedWithTheirReason) {
    fe_graph *g = graph("refusals", FE_DATA_BFLOAT16);
    Attention a = qkv(g);
    fe_tensor *out = nullptr;
    auto refused = [&](fe_sdpa_options o, const char *why) {
        EXPECT_FE_STATUS(fe_graph_sdpa(g, a.q, a.k, a.v, &o, &out, nullptr), FE_STATUS_INVALID_ARGUMENT) << why;
        EXPECT_TRUE(LastErrorContains(why)) << fe_last_error_message();
    };
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
    o.right_bound = 4;
    refused(o, "a causal mask is right_bound 0: give one of them");
    o.right_bound = -1;
    o.diagonal_alignment = FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT;
    refused(o, "the causal mask sets the diagonal");
    o = FE_SDPA_OPTIONS_INIT;
    o.right_bound = -2;
    refused(o, "options.right_bound is -2");
    o.right_bound = int64_t(1) << 40;
    refused(o, "options.right_bound is 1099511627776");
    o = FE_SDPA_OPTIONS_INIT;
    o.diagonal_alignment = static_cast<fe_diagonal_alignment>(7);
    refused(o, "options.diagonal_alignment is 7");
    o = FE_SDPA_OPTIONS_INIT;
    o.softcap = -1;
    refused(o, "options.softcap is -1");
    o.softcap = std::numeric_limits<double>::quiet_NaN();
    refused(o, "options.softcap");
    o = FE_SDPA_OPTIONS_INIT;
    o.sink_token = sink(g, 4);
    refused(o, "it must be [1, 8, 1, 1]");
    o.sink_token = tensor(g, "half_sink", {1, 8, 1, 1}, false, FE_DATA_HALF);
    refused(o, "the sinks are float");
}

TEST_F(SdpaBandSink, TheNativeOperationAndFp8AttentionRefuseTheNewOptions) {
    fe_graph *g = graph("native_sink", FE_DATA_BFLOAT16);
    Attention a = qkv(g);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.sink_token = sink(g);
    o.implementation = FE_SDPA_IMPLEMENTATION_NATIVE;
    fe_tensor *out = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa(g, a.q, a.k, a.v, &o, &out, nullptr));
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
    EXPECT_FE_STATUS(build(g), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("attention sinks")) << fe_last_error_message();

    fe_graph *f = graph("fp8_softcap", FE_DATA_FP8_E4M3);
    Attention b = qkv(f);
    fe_sdpa_fp8_scales scales = FE_SDPA_FP8_SCALES_INIT;
    fe_tensor **slots[] = {&scales.descale_q, &scales.descale_k, &scales.descale_v,
                           &scales.descale_s, &scales.scale_s,   &scales.scale_o};
    int n = 0;
    for (fe_tensor **slot : slots) *slot = tensor(f, ("scale" + std::to_string(n++)).c_str(), {1, 1, 1, 1}, false, FE_DATA_FLOAT);
    fe_sdpa_options fo = FE_SDPA_OPTIONS_INIT;
    fo.softcap = 30;
    fe_tensor *amax_s = nullptr, *amax_o = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa_fp8(f, b.q, b.k, b.v, &scales, &fo, &out, nullptr, &amax_s, &amax_o));
    for (fe_tensor *t : {out, amax_s, amax_o}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    EXPECT_FE_STATUS(build(f), FE_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(LastErrorContains("FP8 attention forward with soft-capping or a score modifier")) << fe_last_error_message();
}

}  // namespace

namespace {

TEST_F(Deviceless, PackedBackwardWorkspaceIsSizedForTheTokens) {
    // Q and dO with 4 heads, K and V with H_K (GQA when 1): packed, every tensor on one ragged offset.
    const int64_t B = 3, H = 4, S = 128, D = 64;
    struct Sizing {
        int64_t h_k, max_total_q, max_total_kv;
    };
    auto backward = [&](fe_graph *g, bool packed, const Sizing &z, fe_tensor **dq) {
        fe_tensor *t[5];
        const char *names[5] = {"q", "k", "v", "o", "dO"};
        for (int i = 0; i < 5; ++i) {
            const int64_t h = (i == 1 || i == 2) ? z.h_k : H;
            int64_t dims[4] = {B, h, S, D}, strides[4] = {S * h * D, D, h * D, 1};
            EXPECT_FE_OK(fe_graph_tensor(g, names[i], 4, dims, strides, FE_DATA_NOT_SET, &t[i]));
        }
        fe_tensor *stats = tensor(g, "stats", {B, H, S, 1}, false, FE_DATA_FLOAT);
        fe_tensor *lq = tensor(g, "lq", {B, 1, 1, 1}, false, FE_DATA_INT32), *lkv = tensor(g, "lkv", {B, 1, 1, 1}, false, FE_DATA_INT32);
        if (packed) {
            fe_tensor *offsets = tensor(g, "offsets", {B + 1, 1, 1, 1}, false, FE_DATA_INT64);
            fe_tensor *stats_offsets = tensor(g, "stats_offsets", {B + 1, 1, 1, 1}, false, FE_DATA_INT64);
            const int64_t stats_strides[4] = {S * H, 1, H, 1};
            for (fe_tensor *x : t) EXPECT_FE_OK(fe_tensor_set_ragged_offset(x, offsets));
            EXPECT_FE_OK(fe_tensor_set_strides(stats, 4, stats_strides));
            EXPECT_FE_OK(fe_tensor_set_ragged_offset(stats, stats_offsets));
        }
        fe_sdpa_backward_options o = FE_SDPA_BACKWARD_OPTIONS_INIT;
        o.attn_scale = 0.125;
        o.seq_len_q = lq;
        o.seq_len_kv = lkv;
        o.max_total_seq_len_q = z.max_total_q;
        o.max_total_seq_len_kv = z.max_total_kv;
        fe_tensor *dk = nullptr, *dv = nullptr;
        EXPECT_FE_OK(fe_graph_sdpa_backward(g, t[0], t[1], t[2], t[3], t[4], stats, &o, dq, &dk, &dv));
        for (fe_tensor *x : {*dq, dk, dv}) EXPECT_FE_OK(fe_tensor_set_output(x, 1));
        for (int i = 0; i < 3; ++i) {  // the gradients packed like Q, K and V
            const int64_t h = i == 0 ? H : z.h_k, strides[4] = {S * h * D, D, h * D, 1};
            EXPECT_FE_OK(fe_tensor_set_strides(i == 0 ? *dq : i == 1 ? dk : dv, 4, strides));
        }
    };
    // Refused at build, where the graph's ragged offsets are known.
    fe_tensor *dq = nullptr;
    fe_graph *unpacked = graph("not_packed", FE_DATA_BFLOAT16);
    backward(unpacked, false, {H, 200, 0}, &dq);
    EXPECT_FE_STATUS(build(unpacked), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("max_total_seq_len_q sizes a packed batch's workspace; Q 'q' is not packed"))
        << fe_last_error_message();
    unpacked = graph("not_packed_kv", FE_DATA_BFLOAT16);
    backward(unpacked, false, {1, 0, 200}, &dq);
    EXPECT_FE_STATUS(build(unpacked), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("max_total_seq_len_kv sizes a packed batch's workspace; K 'k' and V 'v' are not both"))
        << fe_last_error_message();

    fe_graph *g = graph("packed_workspace", FE_DATA_BFLOAT16);
    backward(g, true, {H, 200, 0}, &dq);
    expect_supported(g);

    // With GQA, the per-query-head dK and dV sized for 200 key tokens rather than B * S = 384 (the
    // workspace it saves is measured on a GPU: tests/gpu/sdpa_ragged_test.cpp).
    fe_graph *grouped = graph("packed_gqa_sized", FE_DATA_BFLOAT16);
    backward(grouped, true, {1, 200, 200}, &dq);
    expect_supported(grouped);
}

}  // namespace
