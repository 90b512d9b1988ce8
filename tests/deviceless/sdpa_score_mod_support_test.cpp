// A caller's score modifier (fe_sdpa_options.score_mod_input/output): cuDNN's heuristics take
// soft-capping and a causal mask written as pointwise chains, forward and backward, for the
// H100 description (the GPU tier checks the values); the graph JSON keeps the chain; every
// malformed chain is refused with its reason.
#include <limits>

#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

constexpr int64_t B = 2, H = 4, S = 128, D = 64;

class SdpaScoreMod : public Deviceless {
  protected:
    struct Attention {
        fe_tensor *q, *k, *v;
    };
    Attention qkv(fe_graph *g) {
        return {tensor(g, "q", {B, H, S, D}), tensor(g, "k", {B, H, S, D}), tensor(g, "v", {B, H, S, D})};
    }
    fe_tensor *scores(fe_graph *g, const char *name) { return tensor(g, name, {B, H, S, S}, false, FE_DATA_FLOAT); }
    fe_tensor *pointwise(fe_graph *g, fe_pointwise_mode mode, fe_tensor *a, fe_tensor *b = nullptr,
                         fe_tensor *c = nullptr, int64_t axis = 0) {
        fe_pointwise_options o = FE_POINTWISE_OPTIONS_INIT;
        o.axis = axis;
        fe_tensor *y = nullptr;
        EXPECT_FE_OK(fe_graph_pointwise(g, mode, a, b, c, &o, &y));
        return y;
    }
    fe_tensor *scalar(fe_graph *g, const char *name, double value) {
        fe_tensor *t = nullptr;
        EXPECT_FE_OK(fe_graph_scalar(g, name, value, FE_DATA_FLOAT, &t));
        return t;
    }
    // cap * tanh(s / cap); `before_tanh` receives s / cap (its derivative reads it).
    fe_tensor *softcap_chain(fe_graph *g, fe_tensor *s, fe_tensor *cap, fe_tensor **before_tanh = nullptr) {
        fe_tensor *divided = pointwise(g, FE_POINTWISE_DIV, s, cap);
        if (before_tanh) *before_tanh = divided;
        return pointwise(g, FE_POINTWISE_MUL, pointwise(g, FE_POINTWISE_TANH_FWD, divided), cap);
    }
    // Keeps (i, j) with i >= j, else -inf.
    fe_tensor *causal_chain(fe_graph *g, fe_tensor *s) {
        fe_tensor *row = pointwise(g, FE_POINTWISE_GEN_INDEX, s, nullptr, nullptr, 2);
        fe_tensor *col = pointwise(g, FE_POINTWISE_GEN_INDEX, s, nullptr, nullptr, 3);
        EXPECT_FE_OK(fe_tensor_set_data_type(row, FE_DATA_INT32));
        EXPECT_FE_OK(fe_tensor_set_data_type(col, FE_DATA_INT32));
        fe_tensor *keep = pointwise(g, FE_POINTWISE_CMP_GE, row, col);
        EXPECT_FE_OK(fe_tensor_set_data_type(keep, FE_DATA_BOOLEAN));
        return pointwise(g, FE_POINTWISE_BINARY_SELECT, s, scalar(g, "minus_inf", -std::numeric_limits<double>::infinity()),
                         keep);
    }
    fe_status forward(fe_graph *g, const Attention &a, const fe_sdpa_options &o, fe_tensor **out = nullptr) {
        fe_tensor *y = nullptr, *stats = nullptr;
        fe_status s = fe_graph_sdpa(g, a.q, a.k, a.v, &o, &y, &stats);
        if (s != FE_OK) return s;
        EXPECT_FE_OK(fe_tensor_set_output(y, 1));
        if (stats) EXPECT_FE_OK(fe_tensor_set_output(stats, 1));
        if (out) *out = y;
        return FE_OK;
    }
    fe_status backward(fe_graph *g, const Attention &a, const fe_sdpa_backward_options &o) {
        fe_tensor *out = tensor(g, "o", {B, H, S, D}), *d_o = tensor(g, "dO", {B, H, S, D});
        fe_tensor *stats = tensor(g, "stats", {B, H, S, 1}, false, FE_DATA_FLOAT);
        fe_tensor *dq = nullptr, *dk = nullptr, *dv = nullptr;
        fe_status s = fe_graph_sdpa_backward(g, a.q, a.k, a.v, out, d_o, stats, &o, &dq, &dk, &dv);
        if (s != FE_OK) return s;
        for (fe_tensor *t : {dq, dk, dv}) EXPECT_FE_OK(fe_tensor_set_output(t, 1));
        return FE_OK;
    }
    // The backward of soft-capping as a chain: dS_in = tanh'(s / cap) applied to dS_out * cap, over cap.
    void softcap_backward_options(fe_graph *g, fe_sdpa_backward_options &o) {
        fe_tensor *cap = scalar(g, "cap", 30.0), *before_tanh = nullptr;
        o.score_mod_input = scores(g, "scores");
        o.score_mod_output = softcap_chain(g, o.score_mod_input, cap, &before_tanh);
        o.score_mod_grad_input = scores(g, "d_scores");
        fe_tensor *times_cap = pointwise(g, FE_POINTWISE_MUL, o.score_mod_grad_input, cap);
        fe_tensor *through_tanh = pointwise(g, FE_POINTWISE_TANH_BWD, times_cap, before_tanh);
        o.score_mod_grad_output = pointwise(g, FE_POINTWISE_DIV, through_tanh, cap);
    }
    // A half attention backward (scale 0.125) with soft-capping and its derivative as chains;
    // nullptr, with a failure, when the backward call is refused.
    fe_graph *softcap_backward_graph(const char *name) {
        fe_graph *g = graph(name, FE_DATA_HALF);
        Attention a = qkv(g);
        fe_sdpa_backward_options o = FE_SDPA_BACKWARD_OPTIONS_INIT;
        o.attn_scale = 0.125;
        softcap_backward_options(g, o);
        fe_status s = backward(g, a, o);
        EXPECT_FE_OK(s);
        return s == FE_OK ? g : nullptr;
    }
    std::string to_json(fe_graph *g) { return graph_text(fe_graph_to_json, g); }

    // A half forward attention on a fresh graph whose options already name the stand-in
    // "scores" as score_mod_input: most refusal tests add a malformed chain to it.
    struct ForwardChain {
        fe_graph *g;
        Attention a;
        fe_sdpa_options o;
    };
    ForwardChain forward_chain(const char *name) {
        fe_graph *g = graph(name, FE_DATA_HALF);
        ForwardChain c{g, qkv(g), FE_SDPA_OPTIONS_INIT};
        c.o.score_mod_input = scores(g, "scores");
        return c;
    }
    // The chain 2 * tanh(scores) as c's score modifier; returns the tanh inside it.
    fe_tensor *twice_tanh(ForwardChain &c) {
        fe_tensor *tanh = pointwise(c.g, FE_POINTWISE_TANH_FWD, c.o.score_mod_input);
        c.o.score_mod_output = pointwise(c.g, FE_POINTWISE_MUL, tanh, scalar(c.g, "two", 2.0));
        return tanh;
    }
    // The forward call is refused as an invalid argument, for `reason`.
    void expect_forward_refused(fe_graph *g, const Attention &a, const fe_sdpa_options &o, const char *reason) {
        EXPECT_FE_REFUSED(forward(g, a, o), FE_STATUS_INVALID_ARGUMENT, reason);
    }
    void expect_forward_refused(const ForwardChain &c, const char *reason) { expect_forward_refused(c.g, c.a, c.o, reason); }
};

TEST_F(SdpaScoreMod, SoftcapAsAChainIsSupported) {
    fe_graph *g = graph("softcap_chain", FE_DATA_HALF);
    Attention a = qkv(g);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.generate_stats = 1;
    o.score_mod_input = scores(g, "scores");
    o.score_mod_output = softcap_chain(g, o.score_mod_input, scalar(g, "cap", 30.0));
    ASSERT_FE_OK(forward(g, a, o));
    expect_supported(g);
    std::string text = describe(g);
    EXPECT_NE(text.find("score_mod=mul_0::Y(3 ops)"), std::string::npos) << text;
    EXPECT_NE(text.find("inside sdpa 'sdpa_0'"), std::string::npos) << text;
    EXPECT_NE(text.find("stands for the scores in sdpa 'sdpa_0'"), std::string::npos) << text;
    size_t inputs = 0;
    EXPECT_FE_OK(fe_graph_input_count(g, &inputs));
    EXPECT_EQ(inputs, 3u) << "the stand-in is not a graph input";
}

TEST_F(SdpaScoreMod, ACausalMaskAsAChainIsSupported) {
    fe_graph *g = graph("causal_chain", FE_DATA_BFLOAT16);
    Attention a = qkv(g);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 0.125;
    o.score_mod_input = scores(g, "scores");
    o.score_mod_output = causal_chain(g, o.score_mod_input);
    ASSERT_FE_OK(forward(g, a, o));
    expect_supported(g);
}

TEST_F(SdpaScoreMod, TheBackwardWithTheCallersDerivativeIsSupported) {
    fe_graph *g = softcap_backward_graph("softcap_chain_backward");
    ASSERT_NE(g, nullptr);
    expect_supported(g);
    EXPECT_NE(describe(g).find("score_mod_grad=div_1::Y(3 ops)"), std::string::npos) << describe(g);
}

TEST_F(SdpaScoreMod, TheGraphJsonKeepsTheChains) {
    fe_graph *g = softcap_backward_graph("json_chain");
    ASSERT_NE(g, nullptr);
    std::string json = to_json(g);
    fe_graph *read = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(json.data(), json.size(), &read));
    graphs_.push_back(read);
    EXPECT_EQ(to_json(read), json);
    EXPECT_NE(describe(read).find("stands for the scores in sdpa_backward"), std::string::npos);
    size_t inputs = 0;
    EXPECT_FE_OK(fe_graph_input_count(read, &inputs));
    EXPECT_EQ(inputs, 6u) << "Q, K, V, O, dO and the stats; the two stand-ins are not inputs";
    expect_supported(read);
}

TEST_F(SdpaScoreMod, HalfAChainIsRefused) {
    ForwardChain c = forward_chain("half");
    expect_forward_refused(c, "options.score_mod_input is set but options.score_mod_output is not");
}

TEST_F(SdpaScoreMod, AStandInThatIsAResultIsRefused) {
    ForwardChain c = forward_chain("result");
    // The stand-in given is not the declared "scores" but the result of an operation on them.
    c.o.score_mod_input = pointwise(c.g, FE_POINTWISE_IDENTITY, c.o.score_mod_input);
    c.o.score_mod_output = pointwise(c.g, FE_POINTWISE_TANH_FWD, c.o.score_mod_input);
    expect_forward_refused(c, "must be a tensor declared with fe_graph_tensor");
}

TEST_F(SdpaScoreMod, AResultThatDoesNotReadTheScoresIsRefused) {
    ForwardChain c = forward_chain("unrelated");
    c.o.score_mod_output = pointwise(c.g, FE_POINTWISE_TANH_FWD, scores(c.g, "other"));
    expect_forward_refused(c, "does not depend on options.score_mod_input 'scores'");
}

TEST_F(SdpaScoreMod, AChainThroughAReductionIsRefused) {
    ForwardChain c = forward_chain("reduction");
    fe_reduction_options r = FE_REDUCTION_OPTIONS_INIT;
    r.reduce_axes = 1u << 3;
    fe_tensor *row_max = nullptr;
    ASSERT_FE_OK(fe_graph_reduction(c.g, c.o.score_mod_input, FE_REDUCTION_MAX, &r, &row_max));
    c.o.score_mod_output = pointwise(c.g, FE_POINTWISE_SUB, c.o.score_mod_input, row_max);
    expect_forward_refused(c, "is made of pointwise operations only");
}

TEST_F(SdpaScoreMod, AStandInOfTheWrongShapeOrTypeIsRefused) {
    fe_graph *g = graph("shape", FE_DATA_HALF);
    Attention a = qkv(g);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.score_mod_input = tensor(g, "scores", {B, H, S, S / 2}, false, FE_DATA_FLOAT);
    o.score_mod_output = pointwise(g, FE_POINTWISE_TANH_FWD, o.score_mod_input);
    expect_forward_refused(g, a, o, "score modifier tensor 'scores' is [2,4,128,64]; the scores are [2,4,128,128]");
    fe_tensor *half_scores = tensor(g, "half_scores", {B, H, S, S}, false, FE_DATA_HALF);
    o.score_mod_input = half_scores;
    o.score_mod_output = pointwise(g, FE_POINTWISE_TANH_FWD, half_scores);
    expect_forward_refused(g, a, o, "'half_scores' is half; the scores are float");
}

TEST_F(SdpaScoreMod, ReadingTheChainOutsideTheAttentionIsRefused) {
    ForwardChain c = forward_chain("read_outside");
    fe_tensor *tanh = twice_tanh(c);
    ASSERT_FE_OK(forward(c.g, c.a, c.o));
    fe_tensor *leak = pointwise(c.g, FE_POINTWISE_EXP, tanh);
    ASSERT_FE_OK(fe_tensor_set_output(leak, 1));
    EXPECT_FE_REFUSED(fe_graph_validate(c.g), FE_STATUS_VALIDATION,
                      "reads 'tanh_0::Y', which exists only inside sdpa 'sdpa_0' (its score modifier)");
}

TEST_F(SdpaScoreMod, AChainResultAsAnOutputIsRefused) {
    ForwardChain c = forward_chain("chain_output");
    fe_tensor *tanh = twice_tanh(c);
    ASSERT_FE_OK(fe_tensor_set_output(tanh, 1));
    ASSERT_FE_OK(forward(c.g, c.a, c.o));
    EXPECT_FE_REFUSED(fe_graph_validate(c.g), FE_STATUS_VALIDATION, "where it is never written to memory");
}

TEST_F(SdpaScoreMod, OneChainForTwoAttentionOpsIsRefused) {
    ForwardChain c = forward_chain("shared");
    c.o.score_mod_output = pointwise(c.g, FE_POINTWISE_TANH_FWD, c.o.score_mod_input);
    ASSERT_FE_OK(forward(c.g, c.a, c.o));
    Attention b = {tensor(c.g, "q2", {B, H, S, D}), tensor(c.g, "k2", {B, H, S, D}), tensor(c.g, "v2", {B, H, S, D})};
    expect_forward_refused(c.g, b, c.o, "already stands for the scores of sdpa 'sdpa_0'");
}

TEST_F(SdpaScoreMod, TheBackwardWithoutTheDerivativeIsRefused) {
    fe_graph *g = graph("no_derivative", FE_DATA_HALF);
    Attention a = qkv(g);
    fe_sdpa_backward_options o = FE_SDPA_BACKWARD_OPTIONS_INIT;
    o.score_mod_input = scores(g, "scores");
    o.score_mod_output = pointwise(g, FE_POINTWISE_TANH_FWD, o.score_mod_input);
    EXPECT_FE_REFUSED(backward(g, a, o), FE_STATUS_INVALID_ARGUMENT, "its derivative is the caller's to give");
}

TEST_F(SdpaScoreMod, TheNativeImplementationAndFp8AttentionRefuseIt) {
    ForwardChain c = forward_chain("native");
    c.o.implementation = FE_SDPA_IMPLEMENTATION_NATIVE;
    c.o.score_mod_output = pointwise(c.g, FE_POINTWISE_TANH_FWD, c.o.score_mod_input);
    ASSERT_FE_OK(forward(c.g, c.a, c.o));
    EXPECT_FE_REFUSED(build(c.g), FE_STATUS_NOT_SUPPORTED, "takes no score modifier of the caller's");

    fe_graph *f = graph("fp8", FE_DATA_FP8_E4M3);
    Attention b = qkv(f);
    fe_sdpa_options p = FE_SDPA_OPTIONS_INIT;
    p.score_mod_input = scores(f, "scores");
    p.score_mod_output = pointwise(f, FE_POINTWISE_TANH_FWD, p.score_mod_input);
    fe_sdpa_fp8_scales scales = FE_SDPA_FP8_SCALES_INIT;
    fe_tensor **slots[] = {&scales.descale_q, &scales.descale_k, &scales.descale_v,
                           &scales.descale_s, &scales.scale_s,   &scales.scale_o};
    int n = 0;
    for (fe_tensor **slot : slots) *slot = tensor(f, ("scale" + std::to_string(n++)).c_str(), {1, 1, 1, 1}, false, FE_DATA_FLOAT);
    fe_tensor *o_fp8 = nullptr, *amax_s = nullptr, *amax_o = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa_fp8(f, b.q, b.k, b.v, &scales, &p, &o_fp8, nullptr, &amax_s, &amax_o));
    for (fe_tensor *t : {o_fp8, amax_s, amax_o}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    // cuDNN 9.19 computes FP8 attention with a score modifier wrongly (capability table).
    EXPECT_FE_REFUSED(build(f), FE_STATUS_NOT_SUPPORTED, "FP8 attention forward with soft-capping or a score modifier");
}

}  // namespace
