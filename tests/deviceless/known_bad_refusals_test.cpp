// Configurations the conformance runs found cuDNN 9.19 computing wrongly (or faulting on) are
// refused at build with the capability table's reason, before cuDNN sees them; the same graphs
// without the offending option still build.
#include "known_bad_support.hpp"

using cudnnfe_test::packed_strides;

namespace {

using KnownBad = cudnnfe_test::KnownBadRefusal;

// conv + bias + relu with a channels-last image and weight but an NCHW result.
TEST_F(KnownBad, FusedConvolutionInMixedLayouts) {
    for (bool mixed : {true, false}) {
        SCOPED_TRACE(mixed ? "mixed" : "one layout");
        fe_graph *g = graph("conv_bias_relu", FE_DATA_HALF);
        fe_tensor *x = tensor(g, "x", {4, 32, 16, 16}, true), *w = tensor(g, "w", {32, 32, 3, 3}, true);
        fe_tensor *b = tensor(g, "b", {1, 32, 1, 1}, true);
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        const int64_t pad[2] = {1, 1};
        ASSERT_FE_OK(fe_conv_options_set_padding(&o, 2, pad));
        fe_tensor *y = nullptr, *biased = nullptr, *out = nullptr;
        ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        ASSERT_FE_OK(fe_graph_bias(g, y, b, nullptr, &biased));
        ASSERT_FE_OK(fe_graph_relu(g, biased, nullptr, &out));
        if (mixed) {
            std::vector<int64_t> nchw = packed_strides({4, 32, 16, 16});
            ASSERT_FE_OK(fe_tensor_set_strides(out, 4, nchw.data()));
        }
        ASSERT_FE_OK(fe_tensor_set_output(out, 1));
        if (mixed)
            expect_refused(g, "mix channels-last and NCHW");
        else
            expect_full_plan(g);
    }
}

TEST_F(KnownBad, DepthwiseWgrad3dWithAsymmetricPadding) {
    fe_graph *g = graph("depthwise_wgrad", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {2, 16, 8, 8, 8}, true), *dy = tensor(g, "dy", {2, 16, 8, 8, 8}, true);
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    o.groups = 16;
    const int64_t pre[3] = {1, 1, 1}, post[3] = {1, 1, 2}, dw_dims[5] = {16, 1, 3, 3, 4};
    ASSERT_FE_OK(fe_conv_options_set_pre_padding(&o, 3, pre));
    ASSERT_FE_OK(fe_conv_options_set_post_padding(&o, 3, post));
    fe_tensor *dw = nullptr;
    ASSERT_FE_OK(fe_graph_conv_wgrad(g, x, dy, 5, dw_dims, &o, &dw));
    ASSERT_FE_OK(fe_tensor_set_output(dw, 1));
    expect_refused(g, "3-D grouped or depthwise convolution with asymmetric padding");
}

// An [N, 1, 1] operand of a rank-3 pointwise operation; [1, N, 1] builds.
TEST_F(KnownBad, Rank3PointwiseOperandAlongTheFirstDim) {
    for (bool first : {true, false}) {
        SCOPED_TRACE(first ? "[5, 1, 1]" : "[5, 1, 3]");
        fe_graph *g = graph("pointwise_rank3", FE_DATA_FLOAT);
        fe_tensor *x = tensor(g, "x", {5, 67, 3});
        fe_tensor *s = first ? tensor(g, "s", {5, 1, 1}) : tensor(g, "s", {5, 1, 3}), *y = nullptr;
        ASSERT_FE_OK(fe_graph_mul(g, x, s, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        if (first) {
            expect_refused(g, "read that operand as if at index 0");
        } else {
            expect_lowered(g);
        }
    }
}

struct Attention {
    fe_graph *g;
    fe_tensor *q, *k, *v, *o, *d_o, *stats;
};

Attention attention(KnownBad &t, fe_graph *g, int64_t s, bool fp8) {
    (void)t;
    std::vector<int64_t> dims = {2, 4, s, 64}, rows = {2, 4, s, 1};
    auto make = [&](const char *name, const std::vector<int64_t> &d, fe_data_type type) {
        fe_tensor *x = nullptr;
        std::vector<int64_t> st = packed_strides(d);
        EXPECT_FE_OK(fe_graph_tensor(g, name, d.size(), d.data(), st.data(), type, &x));
        return x;
    };
    fe_data_type io = fp8 ? FE_DATA_FP8_E4M3 : FE_DATA_NOT_SET;
    return {g, make("q", dims, io), make("k", dims, io), make("v", dims, io), make("o", dims, io),
            make("dO", dims, io), make("stats", rows, FE_DATA_FLOAT)};
}

TEST_F(KnownBad, AttentionBackwardWithTheCallersDropoutMask) {
    fe_graph *g = graph("dropout_mask_backward", FE_DATA_BFLOAT16);
    Attention a = attention(*this, g, 128, false);
    fe_tensor *mask = tensor(g, "mask", {2, 4, 128, 128});
    fe_sdpa_backward_options o = FE_SDPA_BACKWARD_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.dropout_mask = mask;
    o.dropout_scale = 1.0 / 0.9;
    fe_tensor *dq, *dk, *dv;
    ASSERT_FE_OK(fe_graph_sdpa_backward(g, a.q, a.k, a.v, a.o, a.d_o, a.stats, &o, &dq, &dk, &dv));
    for (fe_tensor *t : {dq, dk, dv}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    expect_refused(g, "draw the dropout with cuDNN");
}

TEST_F(KnownBad, AlibiOverASingleQueryRow) {
    fe_graph *g = graph("alibi_decode", FE_DATA_BFLOAT16);
    fe_tensor *q = tensor(g, "q", {2, 4, 1, 64}), *k = tensor(g, "k", {2, 4, 256, 64}), *v = tensor(g, "v", {2, 4, 256, 64});
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.alibi_slopes = tensor(g, "slopes", {1, 4, 1, 1}, false, FE_DATA_FLOAT);
    fe_tensor *out = nullptr, *stats = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &o, &out, &stats));
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
    expect_refused(g, "add the ALiBi term as a bias");
}

TEST_F(KnownBad, PackedBackwardWithWiderKeysThanValues) {
    fe_graph *g = graph("packed_wide_keys", FE_DATA_BFLOAT16);
    const int64_t qd[4] = {2, 4, 64, 128}, vd[4] = {2, 4, 64, 64}, rows[4] = {2, 4, 64, 1};
    const int64_t qs[4] = {64 * 4 * 128, 128, 4 * 128, 1}, vs[4] = {64 * 4 * 64, 64, 4 * 64, 1};
    fe_tensor *q, *k, *v, *o, *d_o, *stats, *oq, *ov;
    ASSERT_FE_OK(fe_graph_tensor(g, "q", 4, qd, qs, FE_DATA_NOT_SET, &q));
    ASSERT_FE_OK(fe_graph_tensor(g, "k", 4, qd, qs, FE_DATA_NOT_SET, &k));
    ASSERT_FE_OK(fe_graph_tensor(g, "v", 4, vd, vs, FE_DATA_NOT_SET, &v));
    ASSERT_FE_OK(fe_graph_tensor(g, "o", 4, vd, vs, FE_DATA_NOT_SET, &o));
    ASSERT_FE_OK(fe_graph_tensor(g, "dO", 4, vd, vs, FE_DATA_NOT_SET, &d_o));
    ASSERT_FE_OK(fe_graph_tensor(g, "stats", 4, rows, nullptr, FE_DATA_FLOAT, &stats));
    oq = tensor(g, "offsets_q", {3, 1, 1, 1}, false, FE_DATA_INT64);
    ov = tensor(g, "offsets_v", {3, 1, 1, 1}, false, FE_DATA_INT64);
    for (fe_tensor *t : {q, k}) ASSERT_FE_OK(fe_tensor_set_ragged_offset(t, oq));
    for (fe_tensor *t : {v, o, d_o}) ASSERT_FE_OK(fe_tensor_set_ragged_offset(t, ov));
    fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
    opts.attn_scale = 0.125;
    opts.seq_len_q = tensor(g, "len_q", {2, 1, 1, 1}, false, FE_DATA_INT32);
    opts.seq_len_kv = tensor(g, "len_kv", {2, 1, 1, 1}, false, FE_DATA_INT32);
    fe_tensor *dq, *dk, *dv;
    ASSERT_FE_OK(fe_graph_sdpa_backward(g, q, k, v, o, d_o, stats, &opts, &dq, &dk, &dv));
    for (fe_tensor *t : {dq, dk, dv}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    expect_refused(g, "leave dK's columns past d_v unwritten");
}

// Packed Q and O, 4 query heads over 1 K/V head, one query row, with the stats: refused; the same
// with 4 K/V heads builds.
TEST_F(KnownBad, PackedGroupedDecodeWithStats) {
    for (int64_t h_k : {1, 4}) {
        SCOPED_TRACE("h_k " + std::to_string(h_k));
        fe_graph *g = graph("packed_gqa_decode", FE_DATA_BFLOAT16);
        const int64_t qd[4] = {2, 4, 1, 64}, qs[4] = {4 * 64, 64, 4 * 64, 1};
        fe_tensor *q, *out_o = nullptr, *stats = nullptr;
        ASSERT_FE_OK(fe_graph_tensor(g, "q", 4, qd, qs, FE_DATA_NOT_SET, &q));
        fe_tensor *k = tensor(g, "k", {2, h_k, 128, 64}), *v = tensor(g, "v", {2, h_k, 128, 64});
        ASSERT_FE_OK(fe_tensor_set_ragged_offset(q, tensor(g, "offsets_q", {3, 1, 1, 1}, false, FE_DATA_INT64)));
        fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
        o.attn_scale = 0.125;
        o.generate_stats = 1;
        o.seq_len_q = tensor(g, "len_q", {2, 1, 1, 1}, false, FE_DATA_INT32);
        o.seq_len_kv = tensor(g, "len_kv", {2, 1, 1, 1}, false, FE_DATA_INT32);
        ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &o, &out_o, &stats));
        ASSERT_FE_OK(fe_tensor_set_strides(out_o, 4, qs));
        ASSERT_FE_OK(fe_tensor_set_ragged_offset(out_o, tensor(g, "offsets_o", {3, 1, 1, 1}, false, FE_DATA_INT64)));
        for (fe_tensor *t : {out_o, stats}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        if (h_k == 1)
            expect_refused(g, "stats of only the first query head");
        else
            expect_supported(g);
    }
}

// Soft-capping with dBias in the backward, of 4 query heads over 2 K/V heads and over 4.
TEST_F(KnownBad, BackwardWithSoftcapAndDbias) {
    for (int64_t h_k : {2, 4}) {
        SCOPED_TRACE(h_k);
        fe_graph *g = graph("softcap_dbias", FE_DATA_HALF);
        fe_tensor *q = tensor(g, "q", {2, 4, 64, 64}), *k = tensor(g, "k", {2, h_k, 64, 64});
        fe_tensor *v = tensor(g, "v", {2, h_k, 64, 64}), *o_ = tensor(g, "o", {2, 4, 64, 64});
        fe_tensor *d_o = tensor(g, "dO", {2, 4, 64, 64}), *stats = tensor(g, "stats", {2, 4, 64, 1}, false, FE_DATA_FLOAT);
        fe_sdpa_backward_options o = FE_SDPA_BACKWARD_OPTIONS_INIT;
        o.attn_scale = 0.125;
        o.softcap = 30;
        o.bias = tensor(g, "bias", {1, 4, 64, 64}, false);
        o.output_dbias = 1;
        fe_tensor *dq, *dk, *dv;
        ASSERT_FE_OK(fe_graph_sdpa_backward(g, q, k, v, o_, d_o, stats, &o, &dq, &dk, &dv));
        fe_tensor *dbias = nullptr;
        ASSERT_FE_OK(fe_graph_tensor_by_name(g, "sdpa_backward_0::dBias", &dbias));
        for (fe_tensor *t : {dq, dk, dv, dbias}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
        expect_refused(g, "compute a wrong dBias");
    }
}

class KnownBadFp8 : public KnownBad {
  protected:
    // FP8 attention backward over sequences of s, its scales as device tensors.
    fe_status fp8_backward(fe_graph *g, int64_t s, bool ragged, int64_t causal_window = 0) {
        Attention a = attention(*this, g, s, true);
        fe_sdpa_fp8_backward_scales sc = FE_SDPA_FP8_BACKWARD_SCALES_INIT;
        fe_tensor **fields[12] = {&sc.descale_q, &sc.descale_k, &sc.descale_v, &sc.descale_o,
                                  &sc.descale_do, &sc.descale_s, &sc.descale_dp, &sc.scale_s,
                                  &sc.scale_dp, &sc.scale_dq, &sc.scale_dk, &sc.scale_dv};
        for (int i = 0; i < 12; ++i)
            *fields[i] = tensor(g, ("scale_" + std::to_string(i)).c_str(), {1, 1, 1, 1}, false, FE_DATA_FLOAT);
        fe_sdpa_backward_options o = FE_SDPA_BACKWARD_OPTIONS_INIT;
        o.attn_scale = 0.125;
        if (causal_window > 0) {
            o.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
            o.sliding_window = causal_window;
        }
        if (ragged) {
            fe_tensor *offsets = tensor(g, "offsets", {3, 1, 1, 1}, false, FE_DATA_INT64);
            for (fe_tensor *t : {a.q, a.k, a.v, a.o, a.d_o}) EXPECT_FE_OK(fe_tensor_set_ragged_offset(t, offsets));
            o.seq_len_q = tensor(g, "len_q", {2, 1, 1, 1}, false, FE_DATA_INT32);
            o.seq_len_kv = tensor(g, "len_kv", {2, 1, 1, 1}, false, FE_DATA_INT32);
        }
        fe_tensor *out[7];
        fe_status st = fe_graph_sdpa_fp8_backward(g, a.q, a.k, a.v, a.o, a.d_o, a.stats, &sc, &o, &out[0], &out[1],
                                                  &out[2], &out[3], &out[4], &out[5], &out[6]);
        if (st != FE_OK) return st;
        for (fe_tensor *t : out) {
            EXPECT_FE_OK(fe_tensor_set_output(t, 1));
        }
        return st;
    }
};

TEST_F(KnownBadFp8, Fp8AttentionBackwardWithSequencesNotAMultipleOf16) {
    fe_graph *g = graph("fp8_backward_s100", FE_DATA_FP8_E4M3);
    ASSERT_FE_OK(fp8_backward(g, 100, false));
    expect_refused(g, "leave most of some rows of dQ");
}

TEST_F(KnownBadFp8, PackedFp8Attention) {
    fe_graph *g = graph("fp8_backward_packed", FE_DATA_FP8_E4M3);
    ASSERT_FE_OK(fp8_backward(g, 128, true));
    expect_refused(g, "use padded FP8 tensors with a padding mask");
}

// A causal mask with a window of 1 (each query sees only its diagonal key) is taken: the "dQ and dK
// thousands of times too large" once seen were the conformance harness's scales for an all-zero dS.
TEST_F(KnownBadFp8, Fp8AttentionBackwardOverTheDiagonalAloneIsTaken) {
    fe_graph *g = graph("fp8_backward_diagonal", FE_DATA_FP8_E4M3);
    ASSERT_FE_OK(fp8_backward(g, 128, false, 1));
    expect_lowered(g);
}

}  // namespace

// An [M, 1] operand with a row stride of 9 (a gap) in a rank-2 pointwise graph: refused; packed, taken.
TEST_F(KnownBad, PointwiseBroadcastOperandWithAGap) {
    for (bool gap : {true, false}) {
        SCOPED_TRACE(gap ? "strides [9, 1]" : "packed");
        fe_graph *g = graph("pointwise_gapped", FE_DATA_FLOAT);
        fe_tensor *x = tensor(g, "x", {67, 12}), *s = nullptr, *y = nullptr;
        const int64_t dims[2] = {67, 1}, strides[2] = {gap ? 9 : 1, 1};
        ASSERT_FE_OK(fe_graph_tensor(g, "s", 2, dims, strides, FE_DATA_FLOAT, &s));
        ASSERT_FE_OK(fe_graph_mul(g, x, s, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        if (gap) {
            expect_refused(g, "read that operand from the wrong places");
        } else {
            expect_lowered(g);
        }
    }
}

// A layernorm backward of x [2, 77, 768] laid out [B, D, S]: refused before cuDNN sees it.
TEST_F(KnownBad, NormBackwardOverATransposedX) {
    fe_graph *g = graph("layernorm_backward_transposed", FE_DATA_HALF);
    const int64_t xd[3] = {2, 77, 768}, xs[3] = {77 * 768, 1, 77};
    fe_tensor *x = nullptr, *dy = nullptr;
    ASSERT_FE_OK(fe_graph_tensor(g, "x", 3, xd, xs, FE_DATA_NOT_SET, &x));
    ASSERT_FE_OK(fe_graph_tensor(g, "dy", 3, xd, xs, FE_DATA_NOT_SET, &dy));
    fe_tensor *scale = tensor(g, "scale", {1, 77, 768}, false, FE_DATA_FLOAT);
    fe_tensor *mean = tensor(g, "mean", {2, 1, 1}, false, FE_DATA_FLOAT);
    fe_tensor *inv = tensor(g, "inv", {2, 1, 1}, false, FE_DATA_FLOAT);
    fe_tensor *dx = nullptr, *ds = nullptr, *db = nullptr;
    ASSERT_FE_OK(fe_graph_layernorm_backward(g, dy, x, scale, mean, inv, nullptr, &dx, &ds, &db));
    for (fe_tensor *t : {dx, ds, db}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    expect_refused(g, "compute wrong dx and dscale");
}
