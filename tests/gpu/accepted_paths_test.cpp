// Combinations the API accepts that no other GPU test covers: FP8 and int8 operands of a
// convolution and a matmul, matmuls of mixed operand types, normalizations with a pointwise
// epilogue in the same graph, packed (ragged) queries over paged K/V caches, and FP8 attention
// with a bias, a padding mask or dropout. Each test builds its graph (a build that cuDNN refuses
// for want of an engine fails the test with cuDNN's reason; one the capability table refuses as
// known bad skips with its message), executes it on fresh random inputs
// with poisoned outputs, and compares with a CPU reference in double computed from the same
// rounded inputs. Run them with --gtest_filter='AcceptedPaths.*'.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "norm_reference.hpp"

using namespace cudnnfe_test;

namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

// FP8 attention's shape and scales: stored Q, K, V in [-4, 4] are real values times their
// descales; P is quantized with scale_s (and dequantized with 1 / scale_s), O with scale_o.
struct Fp8Attention {
    int64_t b, h, s_q, s_kv, d;
    double scale = 0.125, descale_q = 0.25, descale_k = 0.5, descale_v = 0.25, scale_s = 448.0, scale_o = 16.0;
};

struct Fp8AttentionReference {
    std::vector<double> o;  // [b, h, s_q, d]; rows past a batch's query length stay 0
    double max_p = 0, max_o = 0;
};

// FP8 attention in double, as the composite lowering computes it: scores scaled, descaled, plus
// the bias, keys past seq_len_kv masked; softmax; dropout (P * mask / keep); amax of P; P stored
// in FP8 with scale_s; O = (P8 . V) / scale_s * descale_v, its amax, then O * scale_o.
// bias, mask, len_q and len_kv are nullable (no bias, no dropout, whole sequences).
Fp8AttentionReference fp8_attention_reference(const Fp8Attention &c, const Bound &q, const Bound &k, const Bound &v,
                                              const Bound *bias, const std::vector<int32_t> *len_q,
                                              const std::vector<int32_t> *len_kv, const Bound *mask, double keep) {
    Fp8AttentionReference r;
    r.o.assign(static_cast<size_t>(c.b * c.h * c.s_q * c.d), 0.0);
    const int64_t group = c.h / k.dims[1];
    std::vector<double> p(static_cast<size_t>(c.s_kv));
    for (int64_t b = 0; b < c.b; ++b) {
        const int64_t rows = len_q ? (*len_q)[static_cast<size_t>(b)] : c.s_q;
        const int64_t keys = len_kv ? (*len_kv)[static_cast<size_t>(b)] : c.s_kv;
        for (int64_t h = 0; h < c.h; ++h)
            for (int64_t i = 0; i < rows; ++i) {
                double row_max = kMinusInf, sum = 0;
                for (int64_t j = 0; j < c.s_kv; ++j) {
                    double &s = p[static_cast<size_t>(j)];
                    if (j >= keys) {
                        s = kMinusInf;
                        continue;
                    }
                    double dot = 0;
                    for (int64_t x = 0; x < c.d; ++x)
                        dot += static_cast<double>(q.at({b, h, i, x})) * k.at({b, h / group, j, x});
                    s = dot * c.scale * c.descale_q * c.descale_k + (bias ? broadcast_at(*bias, {b, h, i, j}) : 0.0);
                    row_max = std::max(row_max, s);
                }
                for (double &e : p) sum += (e = std::exp(e - row_max));
                for (int64_t j = 0; j < c.s_kv; ++j) {
                    double &e = p[static_cast<size_t>(j)];
                    e /= sum;
                    if (mask) e *= mask->at({b, h, i, j}) / keep;
                    r.max_p = std::max(r.max_p, e);
                    e = round_to(FE_DATA_FP8_E4M3, static_cast<float>(e * c.scale_s));  // stored P
                }
                for (int64_t x = 0; x < c.d; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < keys; ++j) acc += p[static_cast<size_t>(j)] * v.at({b, h / group, j, x});
                    double real = acc / c.scale_s * c.descale_v;
                    r.max_o = std::max(r.max_o, std::fabs(real));
                    r.o[static_cast<size_t>(((b * c.h + h) * c.s_q + i) * c.d + x)] = real * c.scale_o;
                }
            }
    }
    return r;
}

class AcceptedPaths : public NormGpu {
  protected:

    // An output poisoned for its type: all bits set (NaN) for floating types, 0x7F7F7F7F (far
    // beyond any sum these tests make) for int32.
    Bound &output(fe_tensor *t) {
        Bound &b = allocate(t);
        EXPECT_FE_OK(fe_buffer_fill_bytes(b.buffer, b.type == FE_DATA_INT32 ? 0x7F : 0xFF));
        return b;
    }

    // download(), also for int32 results.
    void download_result(Bound &b) {
        if (b.type != FE_DATA_INT32) return download(b);
        std::vector<int32_t> raw(b.host.size());
        ASSERT_FE_OK(fe_buffer_download(b.buffer, raw.data(), static_cast<int64_t>(4 * raw.size())));
        for (size_t i = 0; i < raw.size(); ++i) b.host[i] = static_cast<float>(raw[i]);
    }

    // An input holding `values` as raw elements (int32 lengths and page tables, int64 offsets).
    template <typename T>
    Bound &raw_input(fe_tensor *t, const std::vector<T> &values) {
        Bound &b = allocate(t);
        EXPECT_FE_OK(fe_buffer_upload(b.buffer, values.data(), static_cast<int64_t>(sizeof(T) * values.size())));
        for (size_t i = 0; i < values.size() && i < b.host.size(); ++i) b.host[i] = static_cast<float>(values[i]);
        return b;
    }

    // A one-element float input holding `value`.
    Bound &float_input(fe_tensor *t, double value) {
        Bound &b = allocate(t);
        b.host[0] = static_cast<float>(value);
        EXPECT_FE_OK(fe_buffer_upload_float(b.buffer, b.host.data(), 1, FE_DATA_FLOAT));
        return b;
    }

    // expect_close over chosen elements of `out` (offsets into its buffer), e.g. the tokens of
    // a packed tensor or the rows a padding mask defines.
    void expect_close_at(const Bound &out, const std::vector<size_t> &offsets, const std::vector<double> &ref,
                         double atol, double rtol, double max_norm) {
        Bound picked;
        picked.type = out.type;
        picked.dims = {static_cast<int64_t>(offsets.size())};
        picked.strides = {1};
        for (size_t o : offsets) picked.host.push_back(out.host[o]);
        expect_close(picked, ref, atol, rtol, max_norm);
    }

    // C [1, 64, 64] = A [1, 64, 128] x B [1, 128, 64] with A of a_type and B of b_type, float
    // compute. cast: A goes through an identity pointwise into B's type first (cudnn-frontend's
    // mixed-precision pattern); otherwise the matmul takes the two types as they are.
    void mixed_matmul(fe_data_type a_type, fe_data_type b_type, fe_data_type c_type, bool cast) {
        fe_graph *g = graph("mixed_matmul", FE_DATA_NOT_SET);
        fe_tensor *a = tensor(g, "a", {1, 64, 128}, false, a_type), *b = tensor(g, "b", {1, 128, 64}, false, b_type);
        fe_tensor *lhs = a, *c = nullptr;
        if (cast) {
            ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_IDENTITY, a, nullptr, nullptr, nullptr, &lhs));
            ASSERT_FE_OK(fe_tensor_set_data_type(lhs, b_type));
        }
        ASSERT_FE_OK(fe_graph_matmul(g, lhs, b, nullptr, &c));
        ASSERT_FE_OK(fe_tensor_set_data_type(c, c_type));
        set_outputs({c});
        build(g);
        std::printf("    %s%s x %s -> %s plan %s\n", fe_data_type_string(a_type), cast ? " (cast)" : "",
                    fe_data_type_string(b_type), fe_data_type_string(c_type), engine_tag_of(g));
        Bound &ba = a_type == FE_DATA_INT8 ? int8_input(a, 4) : bind(a, true, -2.f, 2.f);
        Bound &bb = bind(b, true), &bc = bind(c, false);
        execute(g, {&ba, &bb, &bc});
        download(bc);
        Bound a_used = ba;  // A as the matmul reads it: rounded to B's type by the cast
        if (cast)
            for (float &x : a_used.host) x = round_to(b_type, x);
        expect_close(bc, matmul_reference(a_used, bb, bc.dims), atol_for(c_type) * 4, rtol_for(c_type), norm_for(c_type));
    }

    // The common part of the FP8 attention graphs: Q, K, V and the six scales (by value).
    struct Fp8Graph {
        fe_graph *g = nullptr;
        fe_tensor *q = nullptr, *k = nullptr, *v = nullptr;
        fe_sdpa_fp8_scales scales = FE_SDPA_FP8_SCALES_INIT;
    };
    Fp8Graph fp8_attention_graph(const char *name, const Fp8Attention &c) {
        Fp8Graph r;
        r.g = graph(name, FE_DATA_FP8_E4M3);
        r.q = tensor(r.g, "q", {c.b, c.h, c.s_q, c.d});
        r.k = tensor(r.g, "k", {c.b, c.h, c.s_kv, c.d});
        r.v = tensor(r.g, "v", {c.b, c.h, c.s_kv, c.d});
        fe_tensor **fields[] = {&r.scales.descale_q, &r.scales.descale_k, &r.scales.descale_v,
                                &r.scales.descale_s, &r.scales.scale_s,   &r.scales.scale_o};
        const double values[] = {c.descale_q, c.descale_k, c.descale_v, 1.0 / c.scale_s, c.scale_s, c.scale_o};
        const char *names[] = {"descale_q", "descale_k", "descale_v", "descale_s", "scale_s", "scale_o"};
        for (int i = 0; i < 6; ++i) EXPECT_FE_OK(fe_graph_scalar(r.g, names[i], values[i], FE_DATA_FLOAT, fields[i]));
        return r;
    }
};

// 1. FP8 convolution forward: fp8_e4m3 image and weight (channels-last), float compute, a half
// or float result. FP8 tensor cores accumulate with less than float's precision, so both
// results get half's tolerances.
TEST_F(AcceptedPaths, Fp8ConvolutionForward) {
    for (fe_data_type y_type : {FE_DATA_HALF, FE_DATA_FLOAT}) {
        SCOPED_TRACE(fe_data_type_string(y_type));
        fe_graph *g = graph("conv_fp8", FE_DATA_FP8_E4M3);
        fe_tensor *x = tensor(g, "x", {2, 64, 16, 16}, true), *w = tensor(g, "w", {64, 64, 3, 3}, true), *y = nullptr;
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        const int64_t pad = 1;
        ASSERT_FE_OK(fe_conv_options_set_padding(&o, 1, &pad));
        o.compute_data_type = FE_DATA_FLOAT;
        ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
        ASSERT_FE_OK(fe_tensor_set_data_type(y, y_type));
        set_outputs({y});
        build(g);
        std::printf("    fp8 conv -> %s plan %s\n", fe_data_type_string(y_type), engine_tag_of(g));
        Bound &bx = bind(x, true, -2.f, 2.f), &bw = bind(w, true), &by = bind(y, false);
        execute(g, {&bx, &bw, &by});
        download(by);
        expect_close(by, conv_reference(bx, bw, by.dims, ConvParams{{1, 1}, {1, 1}, {1, 1}}),
                     atol_for(FE_DATA_HALF) * 4, rtol_for(FE_DATA_HALF), norm_for(FE_DATA_HALF));
    }
}

// 2. int8 matmul, int32 compute, an int32 or float result. Every product and sum of these small
// integers is exact, so the result must equal the reference exactly.
TEST_F(AcceptedPaths, Int8Matmul) {
    for (fe_data_type c_type : {FE_DATA_INT32, FE_DATA_FLOAT}) {
        SCOPED_TRACE(fe_data_type_string(c_type));
        fe_graph *g = graph("matmul_int8", FE_DATA_INT8, FE_DATA_INT32, FE_DATA_INT32);
        fe_tensor *a = tensor(g, "a", {1, 64, 128}), *b = tensor(g, "b", {1, 128, 64}), *c = nullptr;
        fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
        o.compute_data_type = FE_DATA_INT32;
        ASSERT_FE_OK(fe_graph_matmul(g, a, b, &o, &c));
        ASSERT_FE_OK(fe_tensor_set_data_type(c, c_type));
        set_outputs({c});
        build(g);
        std::printf("    int8 matmul -> %s plan %s\n", fe_data_type_string(c_type), engine_tag_of(g));
        Bound &ba = int8_input(a, 8), &bb = int8_input(b, 8), &bc = output(c);
        execute(g, {&ba, &bb, &bc});
        download_result(bc);
        expect_close(bc, matmul_reference(ba, bb, bc.dims), 0.0, 0.0, 0.0);
    }
}

// 3. Matmuls whose operands differ in type, as fe_graph_matmul takes them (the library converts
// the narrower operand in the graph: cuDNN's engines take operands of one type), and in
// cudnn-frontend's form, A converted to B's type by an identity pointwise written by the caller.
TEST_F(AcceptedPaths, MixedMatmulInt8TimesHalf) { mixed_matmul(FE_DATA_INT8, FE_DATA_HALF, FE_DATA_HALF, false); }
TEST_F(AcceptedPaths, MixedMatmulFp8TimesHalf) { mixed_matmul(FE_DATA_FP8_E4M3, FE_DATA_HALF, FE_DATA_HALF, false); }
TEST_F(AcceptedPaths, MixedMatmulHalfTimesBfloat16) {
    mixed_matmul(FE_DATA_HALF, FE_DATA_BFLOAT16, FE_DATA_BFLOAT16, false);
}
TEST_F(AcceptedPaths, MixedMatmulInt8CastToHalfTimesHalf) { mixed_matmul(FE_DATA_INT8, FE_DATA_HALF, FE_DATA_HALF, true); }
TEST_F(AcceptedPaths, MixedMatmulFp8CastToHalfTimesHalf) {
    mixed_matmul(FE_DATA_FP8_E4M3, FE_DATA_HALF, FE_DATA_HALF, true);
}
TEST_F(AcceptedPaths, MixedMatmulHalfCastToBfloat16TimesBfloat16) {
    mixed_matmul(FE_DATA_HALF, FE_DATA_BFLOAT16, FE_DATA_BFLOAT16, true);
}

// 4a. Batchnorm training, then + residual, then relu, in one graph (cudnn-frontend's "SGBN Add
// Relu" pattern): y = relu(bn(x) + r), with the batch statistics as outputs too.
TEST_F(AcceptedPaths, BatchnormTrainingAddRelu) {
    const std::vector<int64_t> image = {4, 32, 16, 16}, channel = {1, 32, 1, 1};
    fe_graph *g = graph("batchnorm_add_relu", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", image, true), *r = tensor(g, "residual", image, true);
    fe_tensor *s = float_tensor(g, "scale", channel, true), *b = float_tensor(g, "bias", channel, true);
    fe_batchnorm_options o = FE_BATCHNORM_OPTIONS_INIT;
    fe_tensor *normalized = nullptr, *mean = nullptr, *inv = nullptr, *sum = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_batchnorm(g, x, s, b, &o, &normalized, &mean, &inv, nullptr, nullptr));
    ASSERT_FE_OK(fe_graph_add(g, normalized, r, nullptr, &sum));
    ASSERT_FE_OK(fe_graph_relu(g, sum, nullptr, &y));
    set_outputs({y, mean, inv});
    build(g);
    std::printf("    batchnorm + add + relu plan %s\n", engine_tag_of(g));
    Bound &bx = bind(x, true, -1, 3), &br = bind(r, true), &bs = bind(s, true, 0.5f, 1.5f), &bb = bind(b, true);
    Bound &by = bind(y, false), &bm = bind(mean, false), &bi = bind(inv, false);
    execute(g, {&bx, &br, &bs, &bb, &by, &bm, &bi});
    for (Bound *out : {&by, &bm, &bi}) download(*out);
    NormSpec spec;
    spec.stats = channel;
    spec.epsilon = o.epsilon;
    NormForwardRef ref = norm_forward_reference(bx, bs, &bb, spec);
    size_t e = 0;
    std::vector<double> want = elementwise(by.dims, [&](const std::vector<int64_t> &i) {
        return std::max(0.0, ref.y[e++] + br.at(i));
    });
    expect_close(by, want, norm_atol(FE_DATA_HALF), norm_rtol(FE_DATA_HALF), norm_for(FE_DATA_HALF));
    expect_stats_close(bm, ref.mean);
    expect_stats_close(bi, ref.inv);
}

// 4b. Layernorm training, then times a gate tensor, in one graph. Float tensors: cuDNN 9.19 lists
// an engine for a norm with a pointwise epilogue on the H100 description only for float x (half
// x has none, except the FP8 quantization below).
TEST_F(AcceptedPaths, LayernormTrainingTimesGate) {
    const fe_data_type io = FE_DATA_FLOAT;
    fe_graph *g = graph("layernorm_gate", io);
    fe_tensor *x = tensor(g, "x", {256, 768}), *gate = tensor(g, "gate", {256, 768});
    fe_tensor *s = float_tensor(g, "scale", {1, 768}), *b = float_tensor(g, "bias", {1, 768});
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    o.phase = FE_NORM_PHASE_TRAINING;
    fe_tensor *normalized = nullptr, *mean = nullptr, *inv = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_layernorm(g, x, s, b, &o, &normalized, &mean, &inv));
    ASSERT_FE_OK(fe_graph_mul(g, normalized, gate, nullptr, &y));
    set_outputs({y, mean, inv});
    build(g);
    std::printf("    layernorm * gate plan %s\n", engine_tag_of(g));
    Bound &bx = bind(x, true, -1, 3), &bg = bind(gate, true), &bs = bind(s, true, 0.5f, 1.5f), &bb = bind(b, true);
    Bound &by = bind(y, false), &bm = bind(mean, false), &bi = bind(inv, false);
    execute(g, {&bx, &bg, &bs, &bb, &by, &bm, &bi});
    for (Bound *out : {&by, &bm, &bi}) download(*out);
    NormSpec spec;
    spec.stats = {256, 1};
    NormForwardRef ref = norm_forward_reference(bx, bs, &bb, spec);
    size_t e = 0;
    std::vector<double> want =
        elementwise(by.dims, [&](const std::vector<int64_t> &i) { return ref.y[e++] * bg.at(i); });
    expect_close(by, want, norm_atol(io), norm_rtol(io), norm_for(io));
    expect_stats_close(bm, ref.mean);
    expect_stats_close(bi, ref.inv);
}

// 4c. RMSNorm training on half x, then quantized to FP8 (times a scale, fp8_e4m3 result) with the
// amax of the normalized values, in one graph (the FP8 epilogue of transformer training).
TEST_F(AcceptedPaths, RmsnormTrainingQuantizedToFp8) {
    const double quant_scale = 2.0;
    fe_graph *g = graph("rmsnorm_fp8", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {256, 1024}), *s = float_tensor(g, "scale", {1, 1024});
    fe_tensor *q_scale = float_tensor(g, "quant_scale", {1, 1});
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    o.phase = FE_NORM_PHASE_TRAINING;
    o.epsilon = 1e-6;
    fe_tensor *normalized = nullptr, *inv = nullptr, *y = nullptr, *amax = nullptr;
    ASSERT_FE_OK(fe_graph_rmsnorm(g, x, s, nullptr, &o, &normalized, &inv));
    ASSERT_FE_OK(fe_graph_mul(g, normalized, q_scale, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_data_type(y, FE_DATA_FP8_E4M3));
    fe_reduction_options ro = FE_REDUCTION_OPTIONS_INIT;
    ro.reduce_axes = 3u;
    ASSERT_FE_OK(fe_graph_reduction(g, normalized, FE_REDUCTION_AMAX, &ro, &amax));
    ASSERT_FE_OK(fe_tensor_set_data_type(amax, FE_DATA_FLOAT));
    set_outputs({y, inv, amax});
    build(g);
    std::printf("    rmsnorm -> fp8 plan %s\n", engine_tag_of(g));
    Bound &bx = bind(x, true, -2, 2), &bs = bind(s, true, 0.5f, 1.5f), &bq = float_input(q_scale, quant_scale);
    Bound &by = bind(y, false), &bi = bind(inv, false), &ba = bind(amax, false);
    execute(g, {&bx, &bs, &bq, &by, &bi, &ba});
    for (Bound *out : {&by, &bi, &ba}) download(*out);
    NormSpec spec;
    spec.stats = {256, 1};
    spec.rms = true;
    spec.epsilon = o.epsilon;
    NormForwardRef ref = norm_forward_reference(bx, bs, nullptr, spec);
    double max_abs = 0;
    std::vector<double> want = ref.y;
    for (double &v : want) {
        max_abs = std::max(max_abs, std::fabs(v));
        v *= quant_scale;
    }
    // FP8 result: half a step is 1/16 of the value; a value near a rounding boundary may land one
    // step away (tolerances as in the FP8 matmul and attention tests).
    expect_close(by, want, 0.02, 0.13, 0.06);
    expect_stats_close(bi, ref.inv);
    EXPECT_NEAR(ba.host[0], max_abs, 1e-2 * max_abs) << "amax of the normalized values";
}

// 5. Packed (ragged, THD) queries over paged K/V caches, bf16, GQA 2:1: Q and O hold each
// sequence's tokens back to back ([tokens, h, d], offsets per sequence); K and V are read
// through shuffled page tables. Three sequences of different query and key lengths.
TEST_F(AcceptedPaths, PackedQueriesOverPagedKvCaches) {
    constexpr int64_t B = 3, H = 4, HK = 2, SQ = 32, D = 64, PAGE = 16, MAX_KV = 128, PAGES = MAX_KV / PAGE;
    constexpr int64_t CONTAINER = B * PAGES;
    const double scale = 0.125;
    std::vector<int32_t> len_q(B), len_kv(B);
    auto distinct = [](const std::vector<int32_t> &n) { return n[0] != n[1] && n[1] != n[2] && n[0] != n[2]; };
    do
        for (int32_t &n : len_q) n = 1 + static_cast<int32_t>(rng_() % SQ);
    while (!distinct(len_q));
    do
        for (int32_t &n : len_kv) n = 1 + static_cast<int32_t>(rng_() % MAX_KV);
    while (!distinct(len_kv));
    std::vector<int64_t> off_q(B + 1, 0);  // in elements
    for (int64_t b = 0; b < B; ++b)
        off_q[static_cast<size_t>(b + 1)] = off_q[static_cast<size_t>(b)] + len_q[static_cast<size_t>(b)] * H * D;

    fe_graph *g = graph("packed_q_paged_kv", FE_DATA_BFLOAT16);
    // Logical [b, h, s, d] over a packed [tokens, h, d] buffer: the token stride is h * d.
    const int64_t q_dims[4] = {B, H, SQ, D}, q_strides[4] = {SQ * H * D, D, H * D, 1};
    fe_tensor *q = nullptr;
    ASSERT_FE_OK(fe_graph_tensor(g, "q", 4, q_dims, q_strides, FE_DATA_NOT_SET, &q));
    fe_tensor *offsets_q = tensor(g, "offsets_q", {B + 1, 1, 1, 1}, false, FE_DATA_INT64);
    ASSERT_FE_OK(fe_tensor_set_ragged_offset(q, offsets_q));
    fe_tensor *kc = tensor(g, "k_pages", {CONTAINER, HK, PAGE, D}), *vc = tensor(g, "v_pages", {CONTAINER, HK, PAGE, D});
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = scale;
    o.page_table_k = tensor(g, "page_table_k", {B, 1, PAGES, 1}, false, FE_DATA_INT32);
    o.page_table_v = tensor(g, "page_table_v", {B, 1, PAGES, 1}, false, FE_DATA_INT32);
    o.max_seq_len_kv = MAX_KV;
    o.seq_len_q = tensor(g, "len_q", {B, 1, 1, 1}, false, FE_DATA_INT32);
    o.seq_len_kv = tensor(g, "len_kv", {B, 1, 1, 1}, false, FE_DATA_INT32);
    fe_tensor *out = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa(g, q, kc, vc, &o, &out, nullptr));
    ASSERT_FE_OK(fe_tensor_set_strides(out, 4, q_strides));
    ASSERT_FE_OK(fe_tensor_set_ragged_offset(out, offsets_q));
    set_outputs({out});
    build(g);
    std::printf("    packed Q, paged K/V plan %s, lengths q %d/%d/%d kv %d/%d/%d\n", engine_tag_of(g), len_q[0],
                len_q[1], len_q[2], len_kv[0], len_kv[1], len_kv[2]);

    // Pages handed out in a shuffled order, K and V with different tables.
    std::vector<int32_t> order_k(static_cast<size_t>(CONTAINER)), order_v(static_cast<size_t>(CONTAINER));
    std::iota(order_k.begin(), order_k.end(), 0);
    std::iota(order_v.begin(), order_v.end(), 0);
    std::shuffle(order_k.begin(), order_k.end(), rng_);
    std::shuffle(order_v.begin(), order_v.end(), rng_);
    Bound &bq = bind(q, true), &bk = bind(kc, true), &bv = bind(vc, true), &bo = bind(out, false);
    Bound &boq = raw_input(offsets_q, off_q), &btk = raw_input(o.page_table_k, order_k);
    Bound &btv = raw_input(o.page_table_v, order_v), &blq = raw_input(o.seq_len_q, len_q);
    Bound &blkv = raw_input(o.seq_len_kv, len_kv);
    execute(g, {&bq, &bk, &bv, &bo, &boq, &btk, &btv, &blq, &blkv});
    download(bo);

    // Element (b, h, i, x) of a packed tensor lives at off_q[b] + i * H * D + h * D + x.
    auto packed = [&](int64_t b, int64_t h, int64_t i, int64_t x) {
        return static_cast<size_t>(off_q[static_cast<size_t>(b)] + i * H * D + h * D + x);
    };
    auto paged = [&](const Bound &c, const std::vector<int32_t> &order, int64_t b, int64_t h, int64_t j, int64_t x) {
        return static_cast<double>(c.at({order[static_cast<size_t>(b * PAGES + j / PAGE)], h, j % PAGE, x}));
    };
    std::vector<size_t> offsets;
    std::vector<double> ref;
    std::vector<double> p(static_cast<size_t>(MAX_KV));
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < len_q[static_cast<size_t>(b)]; ++i) {
                const int64_t n = len_kv[static_cast<size_t>(b)], hk = h / (H / HK);
                double row_max = kMinusInf, sum = 0;
                for (int64_t j = 0; j < n; ++j) {
                    double dot = 0;
                    for (int64_t x = 0; x < D; ++x)
                        dot += static_cast<double>(bq.host[packed(b, h, i, x)]) * paged(bk, order_k, b, hk, j, x);
                    p[static_cast<size_t>(j)] = dot * scale;
                    row_max = std::max(row_max, p[static_cast<size_t>(j)]);
                }
                for (int64_t j = 0; j < n; ++j) sum += (p[static_cast<size_t>(j)] = std::exp(p[static_cast<size_t>(j)] - row_max));
                for (int64_t x = 0; x < D; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < n; ++j) acc += p[static_cast<size_t>(j)] * paged(bv, order_v, b, hk, j, x);
                    offsets.push_back(packed(b, h, i, x));
                    ref.push_back(acc / sum);
                }
            }
    expect_close_at(bo, offsets, ref, 2e-2, 2e-2, 1e-2);
}

// 6a. FP8 attention with an additive bias [1, h, s_q, s_kv], in each type the bias may take
// (the scores are float: the bias is added to them after the scale and the descales).
TEST_F(AcceptedPaths, Fp8AttentionWithBias) {
    const Fp8Attention c{2, 2, 128, 256, 128};
    for (fe_data_type bias_type : {FE_DATA_BFLOAT16, FE_DATA_HALF, FE_DATA_FLOAT}) {
        SCOPED_TRACE(fe_data_type_string(bias_type));
        Fp8Graph f = fp8_attention_graph("fp8_bias", c);
        fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
        o.attn_scale = c.scale;
        o.bias = tensor(f.g, "bias", {1, c.h, c.s_q, c.s_kv}, false, bias_type);
        fe_tensor *out = nullptr, *amax_s = nullptr, *amax_o = nullptr;
        ASSERT_FE_OK(fe_graph_sdpa_fp8(f.g, f.q, f.k, f.v, &f.scales, &o, &out, nullptr, &amax_s, &amax_o));
        set_outputs({out, amax_s, amax_o});
        if (refused_by_the_capability_table(f.g)) GTEST_SKIP() << fe_last_error_message();
        std::printf("    fp8 attention + %s bias plan %s\n", fe_data_type_string(bias_type), engine_tag_of(f.g));
        Bound &bq = bind(f.q, true, -4.f, 4.f), &bk = bind(f.k, true, -4.f, 4.f), &bv = bind(f.v, true, -4.f, 4.f);
        Bound &bbias = bind(o.bias, true), &bo = bind(out, false), &bas = bind(amax_s, false), &bao = bind(amax_o, false);
        execute(f.g, {&bq, &bk, &bv, &bbias, &bo, &bas, &bao});
        for (Bound *b : {&bo, &bas, &bao}) download(*b);
        Fp8AttentionReference ref = fp8_attention_reference(c, bq, bk, bv, &bbias, nullptr, nullptr, nullptr, 1.0);
        // O and P stored in FP8 (see sdpa_fp8_test.cpp): elementwise bounds allow a step either
        // way; the relative norm is the tight check.
        expect_close(bo, ref.o, 1.25, 0.125, 0.06);
        EXPECT_NEAR(bas.host[0], ref.max_p, 0.02 * ref.max_p) << "amax of P";
        EXPECT_NEAR(bao.host[0], ref.max_o, 0.05 * ref.max_o) << "amax of O";
    }
}

// 6b. FP8 attention with a padding mask: per-batch query and key lengths. Rows past a batch's
// query length are undefined and not compared.
TEST_F(AcceptedPaths, Fp8AttentionWithPaddingMask) {
    const Fp8Attention c{3, 2, 128, 256, 128};
    Fp8Graph f = fp8_attention_graph("fp8_padding", c);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = c.scale;
    o.seq_len_q = tensor(f.g, "len_q", {c.b, 1, 1, 1}, false, FE_DATA_INT32);
    o.seq_len_kv = tensor(f.g, "len_kv", {c.b, 1, 1, 1}, false, FE_DATA_INT32);
    fe_tensor *out = nullptr, *amax_s = nullptr, *amax_o = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa_fp8(f.g, f.q, f.k, f.v, &f.scales, &o, &out, nullptr, &amax_s, &amax_o));
    set_outputs({out, amax_s, amax_o});
    build(f.g);
    std::vector<int32_t> len_q(static_cast<size_t>(c.b)), len_kv(static_cast<size_t>(c.b));
    for (int32_t &n : len_q) n = 1 + static_cast<int32_t>(rng_() % static_cast<uint32_t>(c.s_q));
    for (int32_t &n : len_kv) n = 1 + static_cast<int32_t>(rng_() % static_cast<uint32_t>(c.s_kv));
    std::printf("    fp8 attention + padding mask plan %s, lengths q %d/%d/%d kv %d/%d/%d\n", engine_tag_of(f.g),
                len_q[0], len_q[1], len_q[2], len_kv[0], len_kv[1], len_kv[2]);
    Bound &bq = bind(f.q, true, -4.f, 4.f), &bk = bind(f.k, true, -4.f, 4.f), &bv = bind(f.v, true, -4.f, 4.f);
    Bound &blq = raw_input(o.seq_len_q, len_q), &blkv = raw_input(o.seq_len_kv, len_kv);
    Bound &bo = bind(out, false), &bas = bind(amax_s, false), &bao = bind(amax_o, false);
    execute(f.g, {&bq, &bk, &bv, &blq, &blkv, &bo, &bas, &bao});
    download(bo);
    Fp8AttentionReference ref = fp8_attention_reference(c, bq, bk, bv, nullptr, &len_q, &len_kv, nullptr, 1.0);
    std::vector<size_t> offsets;
    std::vector<double> want;
    for (int64_t b = 0; b < c.b; ++b)
        for (int64_t h = 0; h < c.h; ++h)
            for (int64_t i = 0; i < len_q[static_cast<size_t>(b)]; ++i)
                for (int64_t x = 0; x < c.d; ++x) {
                    offsets.push_back(static_cast<size_t>(bo.offset({b, h, i, x})));
                    want.push_back(ref.o[static_cast<size_t>(((b * c.h + h) * c.s_q + i) * c.d + x)]);
                }
    expect_close_at(bo, offsets, want, 1.25, 0.125, 0.06);
}

// 6c. FP8 attention with dropout drawn by cuDNN, verified as sdpa_dropout_test.cpp does: the
// drawn mask is an output; it must be 0/1, drop about p of the probabilities, and explain O.
// scale_s is 256 here: the kept probabilities grow by 1 / (1 - p) and must stay within FP8's
// range (448) when quantized.
TEST_F(AcceptedPaths, Fp8AttentionWithDropout) {
    Fp8Attention c{2, 2, 128, 256, 128};
    c.scale_s = 256.0;
    const double p_drop = 0.2, keep = 1.0 - p_drop;
    Fp8Graph f = fp8_attention_graph("fp8_dropout", c);
    fe_tensor *seed = tensor(f.g, "seed", {1, 1, 1, 1}, false, FE_DATA_INT64);
    fe_tensor *offset = tensor(f.g, "offset", {1, 1, 1, 1}, false, FE_DATA_INT64);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.name = "attention";
    o.attn_scale = c.scale;
    o.dropout_probability = p_drop;
    o.dropout_seed = seed;
    o.dropout_offset = offset;
    o.output_dropout_mask = 1;
    fe_tensor *out = nullptr, *amax_s = nullptr, *amax_o = nullptr, *mask = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa_fp8(f.g, f.q, f.k, f.v, &f.scales, &o, &out, nullptr, &amax_s, &amax_o));
    ASSERT_FE_OK(fe_graph_tensor_by_name(f.g, "attention::DropoutMask", &mask));
    set_outputs({out, amax_s, amax_o, mask});
    if (refused_by_the_capability_table(f.g)) GTEST_SKIP() << fe_last_error_message();
    std::printf("    fp8 attention + dropout plan %s\n", engine_tag_of(f.g));
    Bound &bq = bind(f.q, true, -4.f, 4.f), &bk = bind(f.k, true, -4.f, 4.f), &bv = bind(f.v, true, -4.f, 4.f);
    Bound &bseed = raw_input(seed, std::vector<int64_t>{static_cast<int64_t>(rng_())});
    Bound &boffset = raw_input(offset, std::vector<int64_t>{7});
    Bound &bo = bind(out, false), &bas = bind(amax_s, false), &bao = bind(amax_o, false), &bm = bind(mask, false);
    execute(f.g, {&bq, &bk, &bv, &bseed, &boffset, &bo, &bas, &bao, &bm});
    for (Bound *b : {&bo, &bas, &bao, &bm}) download(*b);

    // The mask is 0/1 and drops about p of the elements (5 sigma).
    double kept = 0, total = static_cast<double>(c.b * c.h * c.s_q * c.s_kv);
    for (float m : bm.host) {
        ASSERT_TRUE(m == 0.f || m == 1.f) << m;
        kept += m;
    }
    EXPECT_NEAR(total - kept, total * p_drop, 5 * std::sqrt(total * p_drop * keep))
        << "dropped fraction " << (total - kept) / total;
    Fp8AttentionReference ref = fp8_attention_reference(c, bq, bk, bv, nullptr, nullptr, nullptr, &bm, keep);
    expect_close(bo, ref.o, 1.25, 0.125, 0.06);
    EXPECT_NEAR(bas.host[0], ref.max_p, 0.02 * ref.max_p) << "amax of P (after dropout)";
    EXPECT_NEAR(bao.host[0], ref.max_o, 0.05 * ref.max_o) << "amax of O";
}

}  // namespace
