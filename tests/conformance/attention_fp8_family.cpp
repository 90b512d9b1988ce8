// FP8 attention, forward and backward (fe_graph_sdpa_fp8, fe_graph_sdpa_fp8_backward): E4M3 and
// E5M2, causal masks and sliding windows in both alignments, padding masks, paged K/V and packed
// Q, K, V, O (forward), MHA/GQA/MQA, layouts in any order, a band's right bound in either diagonal
// alignment; the options FP8 attention refuses (bias, dropout, sinks, soft-capping, a score
// modifier, in the forward Max/SumExp, deterministic backward) now and then, to record their
// reasons. The reference follows the FP8 data flow in double: dequantized inputs, the
// probabilities (and in the backward the score gradient) quantized as the device stores them, O
// and the gradients quantized with their scales.
#include <algorithm>
#include <cstdio>

#include "attention_family.hpp"

namespace conformance {
namespace {

// Inputs are stored in [-4, 4] and descaled by 1/4 into [-1, 1]; P is quantized with 448 (E4M3's
// largest value: P <= 1), O with 16.
constexpr double kInputDescale = 0.25, kScaleS = 448.0, kScaleO = 16.0;

double quantize(fe_data_type type, double x) { return round_to(type, static_cast<float>(x)); }
double fp8_max(fe_data_type type) { return type == FE_DATA_FP8_E5M2 ? 57344.0 : 448.0; }
// The largest power of two that keeps amax * scale within the type's range (delayed scaling).
// A training loop's scale for a tensor whose largest magnitude is `amax`; 1 when it is all zeros
// (a batch whose every row sees one key has dS = 0), as a loop with no history would start.
double scale_for(fe_data_type type, double amax) {
    if (!(amax > 0)) return 1.0;
    return std::exp2(std::floor(std::log2(fp8_max(type) / amax)));
}

AttentionConfig draw_fp8(Rng &rng, bool backward) {
    AttentionConfig c = draw(rng, backward);
    c.type = rng.chance(0.8) ? FE_DATA_FP8_E4M3 : FE_DATA_FP8_E5M2;
    c.d = rng.chance(0.85) ? rng.pick(std::vector<int64_t>{64, 128}) : 16 * rng.range(1, 16);
    c.d_v = rng.chance(0.9) ? c.d : rng.pick(std::vector<int64_t>{64, 128});
    c.scale = 1.0 / std::sqrt(static_cast<double>(c.d));
    c.implementation = FE_SDPA_IMPLEMENTATION_AUTO;
    c.alibi = false;
    c.dbias = false;
    // The header's exceptions for FP8 attention are not drawn: ALiBi, dBias, and in the backward
    // Max/SumExp. The backward's sinks, soft-capping and score modifier are drawn last (below).
    if (backward || !rng.chance(0.2)) {
        c.softcap = 0;
        c.sink = c.dsink = false;
        c.max_sum_exp = false;
    }
    if (!backward && rng.chance(0.03)) draw_score_mod(rng, c);
    // What the capability table refuses at build, rarely: the suite records the reasons.
    if (!rng.chance(0.05)) c.bias = 0;
    if (!rng.chance(backward ? 0.0 : 0.05)) c.dropout = 0;
    if (!rng.chance(0.05)) c.deterministic = false;
    if (!backward) c.stats = !c.max_sum_exp && rng.chance(0.6);
    // Sequence lengths that are multiples of 16 half the time (the backward takes no others).
    if (rng.chance(0.5)) {
        c.s_q = 16 * ((c.s_q + 15) / 16);
        c.s_kv = 16 * ((c.s_kv + 15) / 16);
    }
    // The backward's sinks, soft-capping and score modifier, refused at build (cuDNN 9.19 faults
    // or computes them wrongly), rarely to record their reasons; drawn last, so that the cases
    // drawn before the backward took them stay as they were.
    if (backward) {
        if (rng.chance(0.05)) c.sink = c.dsink = true;
        if (rng.chance(0.05)) c.softcap = rng.uniform(1, 50);
        if (rng.chance(0.03)) draw_score_mod(rng, c);
    }
    apply_variations(c);
    return c;
}

// The scales' tensors: each a device tensor or a by-value scalar (both forms are accepted).
fe_tensor *scale_tensor(Case &k, const char *name, double value, std::vector<std::pair<fe_tensor *, float>> &device) {
    fe_tensor *t = nullptr;
    if (k.rng.chance(0.5)) {
        k.ok(fe_graph_scalar(k.graph_handle(), name, value, FE_DATA_FLOAT, &t), "fe_graph_scalar");
    } else {
        t = k.packed(name, {1, 1, 1, 1}, FE_DATA_FLOAT);
        device.push_back({t, static_cast<float>(value)});
    }
    return t;
}

void dequantize(Dense &x, double descale) {
    for (double &e : x.v) e *= descale;
}

double tolerance_factor(fe_data_type type) { return type == FE_DATA_FP8_E5M2 ? 2.0 : 1.0; }

void fp8_forward(Case &k, const std::function<void(AttentionConfig &)> &adjust) {
    AttentionConfig c = draw_fp8(k.rng, false);
    if (adjust) adjust(c);
    k.describe(describe(c));
    if (!k.graph(c.type)) return;
    Common t = make_inputs(k, c);
    std::vector<std::pair<fe_tensor *, float>> device_scales;
    fe_sdpa_fp8_scales s = FE_SDPA_FP8_SCALES_INIT;
    s.descale_q = scale_tensor(k, "descale_q", kInputDescale, device_scales);
    s.descale_k = scale_tensor(k, "descale_k", kInputDescale, device_scales);
    s.descale_v = scale_tensor(k, "descale_v", kInputDescale, device_scales);
    s.descale_s = scale_tensor(k, "descale_s", 1.0 / kScaleS, device_scales);
    s.scale_s = scale_tensor(k, "scale_s", kScaleS, device_scales);
    s.scale_o = scale_tensor(k, "scale_o", kScaleO, device_scales);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    set_common_options(o, c, t);
    if (!c.score_mod.empty() && !build_score_mod(k, c, &t, &o.score_mod_input, &o.score_mod_output)) return;
    o.generate_stats = c.stats;
    o.output_max_sum_exp = c.max_sum_exp;
    if (c.paged) {
        o.page_table_k = t.table_k;
        o.page_table_v = t.table_v;
        o.max_seq_len_kv = c.s_kv;
    }
    o.output_dropout_mask = c.dropout == 1;
    fe_tensor *out = nullptr, *stats = nullptr, *amax_s = nullptr, *amax_o = nullptr, *drawn = nullptr, *max = nullptr,
              *sum_exp = nullptr;
    if (!k.ok(fe_graph_sdpa_fp8(k.graph_handle(), t.q, t.k, t.v, &s, &o, &out, &stats, &amax_s, &amax_o),
              "fe_graph_sdpa_fp8"))
        return;
    if (c.dropout == 1 && !k.ok(fe_graph_tensor_by_name(k.graph_handle(), "sdpa_fp8_0::DropoutMask", &drawn),
                                "fe_graph_tensor_by_name"))
        return;
    if (c.max_sum_exp && (!k.ok(fe_graph_tensor_by_name(k.graph_handle(), "sdpa_fp8_0::Max", &max), "fe_graph_tensor_by_name") ||
                          !k.ok(fe_graph_tensor_by_name(k.graph_handle(), "sdpa_fp8_0::SumExp", &sum_exp),
                                "fe_graph_tensor_by_name")))
        return;
    if (c.custom_o) {
        std::vector<int64_t> od = {c.b, c.h_q, c.s_q, c.d_v};
        std::vector<int64_t> os = c.ragged ? thd_strides(c.h_q, c.s_q, c.d_v) : layout(od, c.order_o, c.gaps_o, k.rng);
        k.ok(fe_tensor_set_strides(out, 4, os.data()), "fe_tensor_set_strides");
    }
    if (c.ragged) k.ok(fe_tensor_set_ragged_offset(out, t.off_o), "fe_tensor_set_ragged_offset");
    for (fe_tensor *x : {out, stats, amax_s, amax_o, drawn, max, sum_exp})
        if (x) k.ok(fe_tensor_set_output(x, 1), "fe_tensor_set_output");
    if (!k.build()) return;

    Inputs in = bind_inputs(k, c, t, -4.f, 4.f);
    for (auto &d : device_scales) k.input_values(d.first, {d.second});
    dequantize(in.q, kInputDescale);
    dequantize(in.k, kInputDescale);
    dequantize(in.v, kInputDescale);
    Bound &bo = k.output(out);
    Bound *bs = stats ? &k.output(stats) : nullptr;
    Bound &bas = k.output(amax_s), &bao = k.output(amax_o);
    Bound *bmask = drawn ? &k.output(drawn) : nullptr;
    Bound *bmax = max ? &k.output(max) : nullptr, *bsum = sum_exp ? &k.output(sum_exp) : nullptr;
    if (c.ragged) bo.ragged = in.off_o;
    if (!k.execute()) return;
    if (bmask) in.mask = bmask;

    Reference r = forward_reference(c, in);
    if (bmask) check_drawn_mask(k, *bmask, r);
    const int64_t group = c.h_q / c.h_k;
    std::vector<double> ref_o(r.o.size(), 0.0), ref_stats(r.max.size(), 0.0);
    std::vector<char> defined_o(r.o.size());
    double amax_p = 0, amax_out = 0;
    std::vector<double> p8(static_cast<size_t>(c.s_kv));
    for (int64_t b = 0; b < c.b; ++b)
        for (int64_t h = 0; h < c.h_q; ++h)
            for (int64_t i = 0; i < c.s_q; ++i) {
                const size_t ri = r.row(b, h, i);
                for (int64_t x = 0; x < c.d_v; ++x) defined_o[ri * static_cast<size_t>(c.d_v) + static_cast<size_t>(x)] = r.row_defined[ri];
                if (!r.row_defined[ri]) continue;
                ref_stats[ri] = r.max[ri] + std::log(r.sum[ri]);
                for (int64_t j = 0; j < c.s_kv; ++j) {
                    double p = r.p_dropped[r.at(b, h, i, j)];
                    amax_p = std::max(amax_p, p);
                    p8[static_cast<size_t>(j)] = quantize(c.type, p * kScaleS) / kScaleS;  // P as stored
                }
                for (int64_t x = 0; x < c.d_v; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < c.s_kv; ++j) acc += p8[static_cast<size_t>(j)] * in.v(b, h / group, j, x);
                    amax_out = std::max(amax_out, std::fabs(acc));
                    ref_o[ri * static_cast<size_t>(c.d_v) + static_cast<size_t>(x)] = acc * kScaleO;
                }
            }
    // O is stored in FP8 (E4M3: half a step is 1/16 of the value), and so is P: a P that rounds
    // the other way moves a sum by one step. The relative norm is the tight check.
    const double f = tolerance_factor(c.type);
    k.check("O", bo, ref_o, 1.25 * f, 0.125 * f, 0.06 * f, &defined_o);
    if (bs) k.check("stats", *bs, ref_stats, 2e-2, 2e-3, 2e-3, &r.row_defined);
    if (bmax) k.check("Max", *bmax, r.max, 2e-2, 2e-3, 2e-3, &r.row_defined);
    if (bsum) k.check("SumExp", *bsum, r.sum, 2e-2, 2e-2, 2e-2, &r.row_defined);
    bool any = std::find(r.row_defined.begin(), r.row_defined.end(), 1) != r.row_defined.end();
    if (any) {
        // Under a padding mask cuDNN's amax_s also covers what lies past the sequence lengths
        // (fe_graph_sdpa_fp8), in a way of its own (a bound modelling the padded rows as masked
        // after the maximum was exceeded: seed 44 case 76, 0.0308 over about 0.026), so the
        // contract checked is the header's: never below the defined rows' largest P, and a
        // probability.
        const double upper = c.padding ? 1.0 : amax_p;
        k.check("amax_s", bas, {(amax_p + upper) / 2}, (upper - amax_p) / 2 + 0.02 * upper, 0.0,
                (upper - amax_p) / upper + 0.02);
        // O's largest value before its quantization: cuDNN stores P on a grid of its own (its
        // running maximum and sum, not the reference's), so every element of O, the largest among
        // them, may move as far as O's check allows (in O's units, before kScaleO).
        const double o_atol = 1.25 * f / kScaleO, o_rtol = 0.125 * f;
        if (c.window > 0 && c.causal == FE_CAUSAL_MASK_NONE && c.s_q % 128 != 0) {
            // With a window and no causal mask cuDNN's amax_o also covers the query rows past s_q
            // in its last block of 128 (fe_graph_sdpa_fp8; seed 54 case 67, 0.256 over 0.153):
            // never below the defined rows' largest |O|, and no row of O, each an average of V's
            // rows, exceeds V's largest magnitude.
            double amax_v = 0;
            for (double x : in.v.v) amax_v = std::max(amax_v, std::fabs(x));
            const double lower = amax_out * (1 - o_rtol) - o_atol, upper = std::max(amax_v, amax_out) * (1 + o_rtol) + o_atol;
            k.check("amax_o", bao, {(lower + upper) / 2}, (upper - lower) / 2, 0.0, (upper - lower) / std::max(upper, 1e-30));
        } else {
            k.check("amax_o", bao, {amax_out}, o_atol, o_rtol, o_rtol + o_atol / std::max(amax_out, 1e-30));
        }
    }
}

void fp8_backward(Case &k, const std::function<void(AttentionConfig &)> &adjust) {
    AttentionConfig c = draw_fp8(k.rng, true);
    c.paged = false;
    if (adjust) adjust(c);
    k.describe(describe(c));
    if (!k.graph(c.type)) return;
    Common t = make_inputs(k, c);
    std::vector<int64_t> od = {c.b, c.h_q, c.s_q, c.d_v};
    std::vector<int64_t> os = c.ragged ? thd_strides(c.h_q, c.s_q, c.d_v) : layout(od, c.order_o, c.gaps_o, k.rng);
    fe_tensor *o = k.tensor("o", od, os), *d_o = k.tensor("dO", od, os);
    if (c.ragged) {
        k.ok(fe_tensor_set_ragged_offset(o, t.off_o), "fe_tensor_set_ragged_offset");
        k.ok(fe_tensor_set_ragged_offset(d_o, t.off_o), "fe_tensor_set_ragged_offset");
    }
    fe_tensor *stats = k.packed("stats", {c.b, c.h_q, c.s_q, 1}, FE_DATA_FLOAT);
    // The backward reads every scale from device memory.
    fe_sdpa_fp8_backward_scales sc = FE_SDPA_FP8_BACKWARD_SCALES_INIT;
    fe_tensor **fields[12] = {&sc.descale_q, &sc.descale_k, &sc.descale_v, &sc.descale_o, &sc.descale_do,
                              &sc.descale_s, &sc.descale_dp, &sc.scale_s, &sc.scale_dp, &sc.scale_dq,
                              &sc.scale_dk, &sc.scale_dv};
    const char *names[12] = {"descale_q", "descale_k", "descale_v", "descale_o", "descale_do", "descale_s",
                             "descale_dp", "scale_s", "scale_dp", "scale_dq", "scale_dk", "scale_dv"};
    for (int i = 0; i < 12; ++i) *fields[i] = k.packed(names[i], {1, 1, 1, 1}, FE_DATA_FLOAT);
    fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
    set_common_options(opts, c, t);
    opts.deterministic = c.deterministic;
    opts.output_dsink = c.dsink;
    if (!c.score_mod.empty() &&
        !build_score_mod(k, c, &t, &opts.score_mod_input, &opts.score_mod_output, &opts.score_mod_grad_input,
                         &opts.score_mod_grad_output))
        return;
    fe_tensor *out[7] = {}, *dsink = nullptr;
    if (!k.ok(fe_graph_sdpa_fp8_backward(k.graph_handle(), t.q, t.k, t.v, o, d_o, stats, &sc, &opts, &out[0],
                                         &out[1], &out[2], &out[3], &out[4], &out[5], &out[6]),
              "fe_graph_sdpa_fp8_backward"))
        return;
    if (c.dsink) {
        k.ok(fe_graph_tensor_by_name(k.graph_handle(), "sdpa_fp8_backward_0::dSink", &dsink), "fe_graph_tensor_by_name");
        k.ok(fe_tensor_set_output(dsink, 1), "fe_tensor_set_output");
    }
    if (c.ragged) {
        const std::vector<int64_t> sq = thd_strides(c.h_q, c.s_q, c.d), sk = thd_strides(c.h_k, c.s_kv, c.d),
                                   sv = thd_strides(c.h_k, c.s_kv, c.d_v);
        k.ok(fe_tensor_set_strides(out[0], 4, sq.data()), "fe_tensor_set_strides");
        k.ok(fe_tensor_set_strides(out[1], 4, sk.data()), "fe_tensor_set_strides");
        k.ok(fe_tensor_set_strides(out[2], 4, sv.data()), "fe_tensor_set_strides");
        k.ok(fe_tensor_set_ragged_offset(out[0], t.off_q), "fe_tensor_set_ragged_offset");
        k.ok(fe_tensor_set_ragged_offset(out[1], t.off_k), "fe_tensor_set_ragged_offset");
        k.ok(fe_tensor_set_ragged_offset(out[2], t.off_v), "fe_tensor_set_ragged_offset");
    }
    for (fe_tensor *x : out) k.ok(fe_tensor_set_output(x, 1), "fe_tensor_set_output");
    if (!k.build()) return;

    Inputs in = bind_inputs(k, c, t, -4.f, 4.f);
    dequantize(in.q, kInputDescale);
    dequantize(in.k, kInputDescale);
    dequantize(in.v, kInputDescale);
    Reference r = forward_reference(c, in);
    const int64_t group = c.h_q / c.h_k;
    Bound &bdo = k.input(d_o, -4.f, 4.f);
    if (c.ragged) bdo.ragged = in.off_o;
    auto dO = [&](int64_t b, int64_t h, int64_t i, int64_t x) { return bdo.at({b, h, i, x}) * kInputDescale; };
    // O (stored in FP8 with scale_o) and the stats as the forward gives them; undefined rows: 0.
    std::vector<float> o_host(bdo.host.size(), 0.f), stats_values(r.max.size(), 0.f);
    for (int64_t b = 0; b < c.b; ++b)
        for (int64_t h = 0; h < c.h_q; ++h)
            for (int64_t i = 0; i < c.s_q; ++i) {
                const size_t ri = r.row(b, h, i);
                if (!r.row_defined[ri]) continue;
                stats_values[ri] = static_cast<float>(r.max[ri] + std::log(r.sum[ri]));
                for (int64_t x = 0; x < c.d_v; ++x)
                    o_host[static_cast<size_t>(bdo.offset({b, h, i, x}))] = static_cast<float>(
                        quantize(c.type, r.o[ri * static_cast<size_t>(c.d_v) + static_cast<size_t>(x)] * kScaleO));
            }
    Bound &bo = k.input_values(o, o_host);
    if (c.ragged) bo.ragged = in.off_o;
    k.input_values(stats, stats_values);
    auto O = [&](int64_t b, int64_t h, int64_t i, int64_t x) { return bo.at({b, h, i, x}) / kScaleO; };

    // The score gradient in real units (through the soft-cap's and the score modifier's
    // derivatives); its scale from its amax, as a training loop's would be. dSink from the row sums.
    std::vector<double> ds(r.p.size(), 0.0), ref_dsink(static_cast<size_t>(c.h_q), 0.0);
    double amax_dp = 0;
    for (int64_t b = 0; b < c.b; ++b)
        for (int64_t h = 0; h < c.h_q; ++h)
            for (int64_t i = 0; i < c.s_q; ++i) {
                if (!r.row_defined[r.row(b, h, i)]) continue;
                double row_dot = 0;
                for (int64_t x = 0; x < c.d_v; ++x) row_dot += dO(b, h, i, x) * O(b, h, i, x);
                if (in.sink)
                    ref_dsink[static_cast<size_t>(h)] -=
                        std::exp(in.sink->at({0, h, 0, 0}) - stats_values[r.row(b, h, i)]) * row_dot;
                for (int64_t j = 0; j < c.s_kv; ++j) {
                    double dp = 0;
                    for (int64_t x = 0; x < c.d_v; ++x) dp += dO(b, h, i, x) * in.v(b, h / group, j, x);
                    double value = r.p[r.at(b, h, i, j)] * (dp - row_dot);
                    if (c.softcap > 0) {
                        const double th = std::tanh(r.capped[r.at(b, h, i, j)]);
                        value *= 1.0 - th * th;
                    }
                    if (!c.score_mod.empty()) value *= score_mod_derivative(c, in, h, r.unmodified[r.at(b, h, i, j)]);
                    value *= c.scale;
                    ds[r.at(b, h, i, j)] = value;
                    amax_dp = std::max(amax_dp, std::fabs(value));
                }
            }
    const double scale_dp = scale_for(c.type, amax_dp);
    std::vector<double> dq(static_cast<size_t>(c.b * c.h_q * c.s_q * c.d), 0.0),
        dk(static_cast<size_t>(c.b * c.h_k * c.s_kv * c.d), 0.0), dv(static_cast<size_t>(c.b * c.h_k * c.s_kv * c.d_v), 0.0);
    for (int64_t b = 0; b < c.b; ++b)
        for (int64_t h = 0; h < c.h_q; ++h)
            for (int64_t i = 0; i < c.s_q; ++i) {
                if (!r.row_defined[r.row(b, h, i)]) continue;
                const int64_t hk = h / group;
                for (int64_t j = 0; j < c.s_kv; ++j) {
                    const double s8 = quantize(c.type, r.p[r.at(b, h, i, j)] * kScaleS) / kScaleS;
                    const double ds8 = quantize(c.type, ds[r.at(b, h, i, j)] * scale_dp) / scale_dp;
                    for (int64_t x = 0; x < c.d_v; ++x)
                        dv[static_cast<size_t>(((b * c.h_k + hk) * c.s_kv + j) * c.d_v + x)] += s8 * dO(b, h, i, x);
                    for (int64_t x = 0; x < c.d; ++x) {
                        dq[static_cast<size_t>(((b * c.h_q + h) * c.s_q + i) * c.d + x)] += ds8 * in.k(b, hk, j, x);
                        dk[static_cast<size_t>(((b * c.h_k + hk) * c.s_kv + j) * c.d + x)] += ds8 * in.q(b, h, i, x);
                    }
                }
            }
    auto amax_of = [](const std::vector<double> &x) {
        double m = 0;
        for (double e : x) m = std::max(m, std::fabs(e));
        return m;
    };
    const double amax_dq = amax_of(dq), amax_dk = amax_of(dk), amax_dv = amax_of(dv);
    const double scale_dq = scale_for(c.type, amax_dq), scale_dk = scale_for(c.type, amax_dk),
                 scale_dv = scale_for(c.type, amax_dv);
    const double values[12] = {kInputDescale,   kInputDescale,   kInputDescale, 1.0 / kScaleO,
                               kInputDescale,   1.0 / kScaleS,   1.0 / scale_dp, kScaleS,
                               scale_dp,        scale_dq,        scale_dk,       scale_dv};
    for (int i = 0; i < 12; ++i) k.input_values(*fields[i], {static_cast<float>(values[i])});
    Bound *outs[7];
    for (int i = 0; i < 7; ++i) outs[i] = &k.output(out[i]);
    Bound *bdsink = dsink ? &k.output(dsink) : nullptr;
    if (c.ragged) {
        outs[0]->ragged = in.off_q;
        outs[1]->ragged = in.off_k;
        outs[2]->ragged = in.off_v;
    }
    if (!k.execute()) return;
    // Deterministic mode: four more executions, each poisoned first, give dQ, dK and dV bitwise.
    std::vector<Bound> first;
    if (c.deterministic)
        for (int i = 0; i < 3; ++i) first.push_back(*outs[i]);
    for (int run = 0; c.deterministic && run < 4; ++run) {
        for (int i = 0; i < 3; ++i)
            if (outs[i]->buffer) k.ok(fe_buffer_fill_bytes(outs[i]->buffer, 0xFF), "fe_buffer_fill_bytes");
        if (!k.execute()) return;
        const char *names[3] = {"dQ repeat (bitwise)", "dK repeat (bitwise)", "dV repeat (bitwise)"};
        for (int i = 0; i < 3; ++i) k.check(names[i], *outs[i], logical(first[static_cast<size_t>(i)]), 0, 0, 0);
    }

    for (double &e : dq) e *= scale_dq;
    for (double &e : dk) e *= scale_dk;
    for (double &e : dv) e *= scale_dv;
    // Undefined: rows past a sequence's query length (and rows that see no key), keys past its
    // key length.
    std::vector<char> def_dq(dq.size(), 1), def_dk(dk.size(), 1), def_dv(dv.size(), 1);
    for (int64_t b = 0; b < c.b; ++b) {
        for (int64_t h = 0; h < c.h_q; ++h)
            for (int64_t i = 0; i < c.s_q; ++i)
                if (!r.row_defined[r.row(b, h, i)])
                    for (int64_t x = 0; x < c.d; ++x) def_dq[r.row(b, h, i) * static_cast<size_t>(c.d) + static_cast<size_t>(x)] = 0;
        if (c.padding)
            for (int64_t hk = 0; hk < c.h_k; ++hk)
                for (int64_t j = in.len_kv[static_cast<size_t>(b)]; j < c.s_kv; ++j) {
                    for (int64_t x = 0; x < c.d; ++x) def_dk[static_cast<size_t>(((b * c.h_k + hk) * c.s_kv + j) * c.d + x)] = 0;
                    for (int64_t x = 0; x < c.d_v; ++x)
                        def_dv[static_cast<size_t>(((b * c.h_k + hk) * c.s_kv + j) * c.d_v + x)] = 0;
                }
    }
    // Stored FP8 with the largest magnitude near the type's maximum (E4M3: half a step there is
    // 16); elementwise bounds are a fraction of full scale, the relative norm is the tight check.
    const double f = tolerance_factor(c.type), full = fp8_max(c.type) / 448.0;
    Bound *checked[3] = {outs[0], outs[1], outs[2]};
    for (size_t i = 0; i < first.size(); ++i) checked[i] = &first[i];
    k.check("dQ", *checked[0], dq, 18.0 * full * f, 0.125 * f, 0.06 * f, &def_dq);
    k.check("dK", *checked[1], dk, 18.0 * full * f, 0.125 * f, 0.06 * f, &def_dk);
    k.check("dV", *checked[2], dv, 18.0 * full * f, 0.125 * f, 0.06 * f, &def_dv);
    if (amax_dq > 0) k.check("amax_dQ", *outs[3], {amax_dq}, 0.08 * amax_dq, 0.0, 0.08);
    if (amax_dk > 0) k.check("amax_dK", *outs[4], {amax_dk}, 0.08 * amax_dk, 0.0, 0.08);
    if (amax_dv > 0) k.check("amax_dV", *outs[5], {amax_dv}, 0.08 * amax_dv, 0.0, 0.08);
    if (amax_dp > 0) k.check("amax_dP", *outs[6], {amax_dp}, 0.05 * amax_dp, 0.0, 0.05);
    // dSink is float from the FP8 O and dO (exact in the reference): bfloat16's bounds.
    if (bdsink) k.check("dSink", *bdsink, ref_dsink, 5e-2, 3e-2, 3e-2);
}

}  // namespace

void attention_fp8_case(Case &k, bool backward, const std::function<void(AttentionConfig &)> &adjust) {
    if (backward)
        fp8_backward(k, adjust);
    else
        fp8_forward(k, adjust);
}

void register_attention_fp8(std::vector<Family> &out) {
    out.push_back({"attention_fp8_fwd", 300, [](Case &k) { fp8_forward(k, nullptr); }});
    out.push_back({"attention_fp8_bwd", 200, [](Case &k) { fp8_backward(k, nullptr); }});
}

}  // namespace conformance
