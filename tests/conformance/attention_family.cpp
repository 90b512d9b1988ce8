// Attention, forward and backward, over the options the API takes: causal masks and bands in
// both alignments, padding masks (empty sequences included), sinks and dSink, Max/SumExp,
// soft-capping, bias and dBias, ALiBi, dropout (drawn by cuDNN with its mask as an output, or
// the caller's), MHA/GQA/MQA, d_qk != d_v, head dims to 256, fp16/bf16, layouts in any order of
// b, h, s with gaps and odd strides on unit dims. Reference: double on the CPU.
#include <algorithm>
#include <cstdio>
#include <limits>

#include "attention_family.hpp"

namespace conformance {
namespace {

// Tolerances as the reference frontend's tests use for fp16/bf16 attention.
double atol_for(fe_data_type t) { return t == FE_DATA_HALF ? 2e-2 : 3e-2; }
double rtol_for(fe_data_type) { return 2e-2; }
double norm_for(fe_data_type t) { return t == FE_DATA_HALF ? 1e-2 : 2.5e-2; }

// `drawn_mask`: where to leave the dropout mask cuDNN drew (a bound output of k), for a backward's
// reference. Such a companion forward takes its backward's configuration as it is: varied once
// more, a size variation would drop the backward's sequence lengths and draw the mask for others.
void attention_forward(Case &k, const std::function<void(AttentionConfig &)> &adjust,
                       const Bound **drawn_mask = nullptr) {
    AttentionConfig c = draw(k.rng, false);
    if (adjust) adjust(c);
    if (!drawn_mask) apply_variations(c);
    k.describe(describe(c));
    if (!k.graph(c.type)) return;
    Common t = make_inputs(k, c);
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    set_common_options(o, c, t);
    if (!c.score_mod.empty() && !build_score_mod(k, c, &t, &o.score_mod_input, &o.score_mod_output)) return;
    o.generate_stats = c.stats;
    o.output_max_sum_exp = c.max_sum_exp;
    o.output_dropout_mask = c.dropout == 1;
    if (c.paged) {
        o.page_table_k = t.table_k;
        o.page_table_v = t.table_v;
        o.max_seq_len_kv = c.s_kv;
    }
    fe_tensor *out = nullptr, *stats = nullptr, *max = nullptr, *sum_exp = nullptr, *drawn = nullptr;
    if (!k.ok(fe_graph_sdpa(k.graph_handle(), t.q, t.k, t.v, &o, &out, &stats), "fe_graph_sdpa")) return;
    if (c.custom_o) {
        std::vector<int64_t> od = {c.b, c.h_q, c.s_q, c.d_v};
        std::vector<int64_t> os = c.ragged ? thd_strides(c.h_q, c.s_q, c.d_v) : layout(od, c.order_o, c.gaps_o, k.rng);
        k.ok(fe_tensor_set_strides(out, 4, os.data()), "fe_tensor_set_strides");
    }
    if (c.ragged) k.ok(fe_tensor_set_ragged_offset(out, t.off_o), "fe_tensor_set_ragged_offset");
    k.ok(fe_tensor_set_output(out, 1), "fe_tensor_set_output");
    if (stats && c.ragged) {
        // Packed stats ([tokens, h_q, 1]) with offsets of their own, as a packed backward reads them.
        t.off_stats = k.packed("offsets_stats", {c.b + 1, 1, 1, 1}, FE_DATA_INT64);
        const int64_t stats_strides[4] = {c.s_q * c.h_q, 1, c.h_q, 1};
        k.ok(fe_tensor_set_strides(stats, 4, stats_strides), "fe_tensor_set_strides");
        k.ok(fe_tensor_set_ragged_offset(stats, t.off_stats), "fe_tensor_set_ragged_offset");
    }
    if (stats) k.ok(fe_tensor_set_output(stats, 1), "fe_tensor_set_output");
    if (c.max_sum_exp) {
        k.ok(fe_graph_tensor_by_name(k.graph_handle(), "sdpa_0::Max", &max), "fe_graph_tensor_by_name");
        k.ok(fe_graph_tensor_by_name(k.graph_handle(), "sdpa_0::SumExp", &sum_exp), "fe_graph_tensor_by_name");
        k.ok(fe_tensor_set_output(max, 1), "fe_tensor_set_output");
        k.ok(fe_tensor_set_output(sum_exp, 1), "fe_tensor_set_output");
    }
    if (c.dropout == 1) {
        k.ok(fe_graph_tensor_by_name(k.graph_handle(), "sdpa_0::DropoutMask", &drawn), "fe_graph_tensor_by_name");
        k.ok(fe_tensor_set_output(drawn, 1), "fe_tensor_set_output");
    }
    if (!k.build()) return;

    Inputs in = bind_inputs(k, c, t);
    Bound &bo = k.output(out);
    Bound *bs = stats ? &k.output(stats) : nullptr, *bmax = max ? &k.output(max) : nullptr,
          *bsum = sum_exp ? &k.output(sum_exp) : nullptr, *bmask = drawn ? &k.output(drawn) : nullptr;
    if (c.ragged) {
        bo.ragged = in.off_o;
        if (bs) bs->ragged = in.off_stats;
    }
    if (!k.execute()) return;
    if (bmask) in.mask = bmask;
    if (drawn_mask) *drawn_mask = bmask;
    Reference r = forward_reference(c, in);
    if (bmask) check_drawn_mask(k, *bmask, r);
    std::vector<char> defined_o(r.o.size());
    for (size_t e = 0; e < r.o.size(); ++e) defined_o[e] = r.row_defined[e / static_cast<size_t>(c.d_v)];
    k.check("O", bo, r.o, atol_for(c.type), rtol_for(c.type), norm_for(c.type), &defined_o);
    std::vector<double> ref_stats(r.max.size());
    for (size_t i = 0; i < ref_stats.size(); ++i) ref_stats[i] = r.max[i] + std::log(r.sum[i]);
    if (bs) k.check("stats", *bs, ref_stats, 2e-2, 2e-3, c.type == FE_DATA_BFLOAT16 ? 5e-3 : 2e-3, &r.row_defined);
    if (bmax) k.check("Max", *bmax, r.max, 2e-2, 2e-3, 2e-3, &r.row_defined);
    if (bsum) k.check("SumExp", *bsum, r.sum, 2e-2, 2e-2, 2e-2, &r.row_defined);
}

void attention_backward(Case &k, const std::function<void(AttentionConfig &)> &adjust) {
    AttentionConfig c = draw(k.rng, true);
    if (adjust) adjust(c);
    apply_variations(c);
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
    fe_sdpa_backward_options opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
    set_common_options(opts, c, t);
    if (!c.score_mod.empty() &&
        !build_score_mod(k, c, &t, &opts.score_mod_input, &opts.score_mod_output, &opts.score_mod_grad_input,
                         &opts.score_mod_grad_output))
        return;
    opts.output_dbias = c.dbias;
    opts.output_dsink = c.dsink;
    opts.deterministic = c.deterministic;
    if (c.max_total) {  // the padded batch's tokens: a bound for any lengths drawn
        opts.max_total_seq_len_q = c.b * c.s_q;
        opts.max_total_seq_len_kv = c.b * c.s_kv;
    }
    fe_tensor *dq = nullptr, *dk = nullptr, *dv = nullptr, *dbias = nullptr, *dsink = nullptr;
    if (!k.ok(fe_graph_sdpa_backward(k.graph_handle(), t.q, t.k, t.v, o, d_o, stats, &opts, &dq, &dk, &dv),
              "fe_graph_sdpa_backward"))
        return;
    if (c.ragged) {
        // The gradients packed like Q, K and V.
        const std::vector<int64_t> sq = thd_strides(c.h_q, c.s_q, c.d), sk = thd_strides(c.h_k, c.s_kv, c.d),
                                   sv = thd_strides(c.h_k, c.s_kv, c.d_v);
        k.ok(fe_tensor_set_strides(dq, 4, sq.data()), "fe_tensor_set_strides");
        k.ok(fe_tensor_set_strides(dk, 4, sk.data()), "fe_tensor_set_strides");
        k.ok(fe_tensor_set_strides(dv, 4, sv.data()), "fe_tensor_set_strides");
        k.ok(fe_tensor_set_ragged_offset(dq, t.off_q), "fe_tensor_set_ragged_offset");
        k.ok(fe_tensor_set_ragged_offset(dk, t.off_k), "fe_tensor_set_ragged_offset");
        k.ok(fe_tensor_set_ragged_offset(dv, t.off_v), "fe_tensor_set_ragged_offset");
    }
    for (fe_tensor *x : {dq, dk, dv}) k.ok(fe_tensor_set_output(x, 1), "fe_tensor_set_output");
    if (c.dbias) {
        k.ok(fe_graph_tensor_by_name(k.graph_handle(), "sdpa_backward_0::dBias", &dbias), "fe_graph_tensor_by_name");
        k.ok(fe_tensor_set_output(dbias, 1), "fe_tensor_set_output");
    }
    if (c.dsink) {
        k.ok(fe_graph_tensor_by_name(k.graph_handle(), "sdpa_backward_0::dSink", &dsink), "fe_graph_tensor_by_name");
        k.ok(fe_tensor_set_output(dsink, 1), "fe_tensor_set_output");
    }
    if (!k.build()) return;

    if (c.dropout == 1) {
        c.dropout_seed = static_cast<int64_t>(k.rng.range(0, 1 << 30));
        c.dropout_offset = static_cast<int64_t>(k.rng.range(0, 1 << 10));
    }
    Inputs in = bind_inputs(k, c, t);
    // Dropout drawn by cuDNN: its mask from a forward of the same shape, seed and offset (the
    // draw depends on nothing else), checked as a forward case of its own.
    std::unique_ptr<Case> forward;
    if (c.dropout == 1) {
        forward = k.companion("forward that draws the dropout mask");
        const Bound *drawn = nullptr;
        AttentionConfig fc = c;
        fc.stats = fc.max_sum_exp = fc.dbias = fc.dsink = fc.deterministic = false;
        fc.lengths_q = in.len_q;
        fc.lengths_kv = in.len_kv;
        attention_forward(*forward, [&fc](AttentionConfig &d) { d = fc; }, &drawn);
        const std::string why = "the forward that draws the dropout mask: " + forward->detail();
        if (forward->verdict() == Verdict::refused) {
            k.refuse(why);
            return;
        }
        if (forward->verdict() != Verdict::right || !drawn) {
            k.fail(why + " (" + verdict_name(forward->verdict()) + ")");
            return;
        }
        in.mask = drawn;
    }
    Reference r = forward_reference(c, in);
    const int64_t group = c.h_q / c.h_k;
    // O and the stats as the forward stores them (undefined rows: zeros).
    std::vector<float> stats_values(r.max.size());
    Bound &bdo = k.input(d_o);
    if (c.ragged) bdo.ragged = in.off_o;
    std::vector<float> o_host(bdo.host.size(), 0.f);
    for (int64_t b = 0; b < c.b; ++b)
        for (int64_t h = 0; h < c.h_q; ++h)
            for (int64_t i = 0; i < c.s_q; ++i) {
                size_t ri = r.row(b, h, i);
                stats_values[ri] = r.row_defined[ri] ? static_cast<float>(r.max[ri] + std::log(r.sum[ri])) : 0.f;
                if (!r.row_defined[ri]) continue;
                for (int64_t x = 0; x < c.d_v; ++x)
                    o_host[static_cast<size_t>(bdo.offset({b, h, i, x}))] =
                        round_to(c.type, static_cast<float>(r.o[ri * static_cast<size_t>(c.d_v) + static_cast<size_t>(x)]));
            }
    Bound &bo = k.input_values(o, o_host);
    if (c.ragged) bo.ragged = in.off_o;
    k.input_values(stats, stats_values);
    Bound &bdq = k.output(dq), &bdk = k.output(dk), &bdv = k.output(dv);
    if (c.ragged) {
        bdq.ragged = in.off_q;
        bdk.ragged = in.off_k;
        bdv.ragged = in.off_v;
    }
    Bound *bdbias = dbias ? &k.output(dbias) : nullptr, *bdsink = dsink ? &k.output(dsink) : nullptr;
    if (!k.execute()) return;

    // dBias has the bias's dims: its batch and head dims are c.b and c.h_q, or 1 (summed over).
    const int64_t bias_b = c.bias == 2 || c.bias == 3 ? c.b : 1, bias_h = c.bias == 1 || c.bias == 3 ? c.h_q : 1;
    auto dbias_at = [&](int64_t b, int64_t h, int64_t i, int64_t j) {
        return static_cast<size_t>((((bias_b == 1 ? 0 : b) * bias_h + (bias_h == 1 ? 0 : h)) * c.s_q + i) * c.s_kv + j);
    };
    std::vector<double> ref_dq(static_cast<size_t>(c.b * c.h_q * c.s_q * c.d), 0.0),
        ref_dk(static_cast<size_t>(c.b * c.h_k * c.s_kv * c.d), 0.0),
        ref_dv(static_cast<size_t>(c.b * c.h_k * c.s_kv * c.d_v), 0.0), ref_dsink(static_cast<size_t>(c.h_q), 0.0),
        ref_dbias(c.dbias ? static_cast<size_t>(bias_b * bias_h * c.s_q * c.s_kv) : 0, 0.0),
        ds(static_cast<size_t>(c.s_kv));
    std::vector<char> def_dq(ref_dq.size(), 1), def_dk(ref_dk.size(), 1), def_dv(ref_dv.size(), 1),
        def_dbias(ref_dbias.size(), 1);
    std::vector<double> mag_dk(ref_dk.size(), 0.0), mag_dv(ref_dv.size(), 0.0);
    for (int64_t b = 0; b < c.b; ++b) {
        for (int64_t h = 0; h < c.h_q; ++h) {
            const int64_t hk = h / group;
            for (int64_t i = 0; i < c.s_q; ++i) {
                const size_t ri = r.row(b, h, i);
                if (!r.row_defined[ri]) {
                    for (int64_t x = 0; x < c.d; ++x) def_dq[ri * static_cast<size_t>(c.d) + static_cast<size_t>(x)] = 0;
                    if (c.dbias)
                        for (int64_t j = 0; j < c.s_kv; ++j) def_dbias[dbias_at(b, h, i, j)] = 0;
                    continue;
                }
                double row_dot = 0;
                for (int64_t x = 0; x < c.d_v; ++x) row_dot += static_cast<double>(bdo.at({b, h, i, x})) * bo.at({b, h, i, x});
                if (in.sink) ref_dsink[static_cast<size_t>(h)] -= std::exp(in.sink->at({0, h, 0, 0}) - stats_values[ri]) * row_dot;
                for (int64_t j = 0; j < c.s_kv; ++j) {
                    double dp = 0;
                    for (int64_t x = 0; x < c.d_v; ++x) dp += static_cast<double>(bdo.at({b, h, i, x})) * in.v(b, hk, j, x);
                    if (c.dropout && r.p[r.at(b, h, i, j)] != 0) dp *= in.mask->at({b, h, i, j}) / (1.0 - c.dropout_p);
                    double g = r.p[r.at(b, h, i, j)] * (dp - row_dot);
                    // The bias is added after soft-capping: its gradient is taken before the cap's.
                    if (c.dbias) ref_dbias[dbias_at(b, h, i, j)] += g;
                    if (c.softcap > 0) {
                        double th = std::tanh(r.capped[r.at(b, h, i, j)]);
                        g *= 1.0 - th * th;
                    }
                    if (!c.score_mod.empty()) g *= score_mod_derivative(c, in, h, r.unmodified[r.at(b, h, i, j)]);
                    ds[static_cast<size_t>(j)] = g * c.scale;
                    for (int64_t x = 0; x < c.d_v; ++x) {
                        const size_t at = static_cast<size_t>(((b * c.h_k + hk) * c.s_kv + j) * c.d_v + x);
                        const double term = r.p_dropped[r.at(b, h, i, j)] * bdo.at({b, h, i, x});
                        ref_dv[at] += term;
                        mag_dv[at] += std::fabs(term);
                    }
                }
                for (int64_t x = 0; x < c.d; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < c.s_kv; ++j) acc += ds[static_cast<size_t>(j)] * in.k(b, hk, j, x);
                    ref_dq[ri * static_cast<size_t>(c.d) + static_cast<size_t>(x)] = acc;
                    for (int64_t j = 0; j < c.s_kv; ++j) {
                        const size_t at = static_cast<size_t>(((b * c.h_k + hk) * c.s_kv + j) * c.d + x);
                        const double term = ds[static_cast<size_t>(j)] * in.q(b, h, i, x);
                        ref_dk[at] += term;
                        mag_dk[at] += std::fabs(term);
                    }
                }
            }
        }
        // Keys past a sequence's length have undefined gradients.
        if (c.padding)
            for (int64_t hk = 0; hk < c.h_k; ++hk)
                for (int64_t j = in.len_kv[static_cast<size_t>(b)]; j < c.s_kv; ++j) {
                    for (int64_t x = 0; x < c.d; ++x) def_dk[static_cast<size_t>(((b * c.h_k + hk) * c.s_kv + j) * c.d + x)] = 0;
                    for (int64_t x = 0; x < c.d_v; ++x)
                        def_dv[static_cast<size_t>(((b * c.h_k + hk) * c.s_kv + j) * c.d_v + x)] = 0;
                }
    }
    // dK and dV in bf16 sum many rounded terms: looser, as the reference frontend's tests are.
    const double loose = c.type == FE_DATA_HALF ? 1 : 2;
    k.check("dQ", bdq, ref_dq, 2e-2 * loose, 3e-2, 2e-2 * loose, &def_dq);
    // A dK or dV element sums a term per query row: where they cancel, the partial sums' rounding in
    // the output's type (half a step of the largest) stays in it.
    const double half_step = c.type == FE_DATA_HALF ? 0x1p-11 : 0x1p-8;
    k.check_sums("dK", bdk, ref_dk, mag_dk, half_step, 2e-2 * loose, 3e-2, 2e-2 * loose, &def_dk);
    k.check_sums("dV", bdv, ref_dv, mag_dv, half_step, 2e-2 * loose, 3e-2, 2e-2 * loose, &def_dv);
    if (bdsink) k.check("dSink", *bdsink, ref_dsink, 5e-2, 3e-2, 3e-2);
    if (bdbias) k.check("dBias", *bdbias, ref_dbias, 2e-2 * loose, 3e-2, 2e-2 * loose, &def_dbias);
}

}  // namespace

void attention_case(Case &k, bool backward, const std::function<void(AttentionConfig &)> &adjust) {
    if (backward)
        attention_backward(k, adjust);
    else
        attention_forward(k, adjust);
}

void register_attention(std::vector<Family> &out) {
    out.push_back({"attention_fwd", 2000, [](Case &k) { attention_forward(k, nullptr); }});
    out.push_back({"attention_bwd", 1000, [](Case &k) { attention_backward(k, nullptr); }});
    // Score modifier chains of the caller's own, over the same space of options.
    out.push_back({"attention_mod_fwd", 300,
                   [](Case &k) { attention_forward(k, [&k](AttentionConfig &c) { draw_score_mod(k.rng, c); }); }});
    out.push_back({"attention_mod_bwd", 200,
                   [](Case &k) { attention_backward(k, [&k](AttentionConfig &c) { draw_score_mod(k.rng, c); }); }});
}

}  // namespace conformance
