// The attention families' shared parts (attention_family.hpp).
#include <algorithm>
#include <cstdio>

#include <cstdlib>
#include <sstream>
#include "attention_family.hpp"

namespace conformance {
namespace {


std::vector<size_t> random_order(Rng &rng) {
    std::vector<size_t> outer = {0, 1, 2};
    std::shuffle(outer.begin(), outer.end(), rng.engine());
    outer.push_back(3);
    return outer;
}

std::vector<int64_t> random_gaps(Rng &rng) {
    std::vector<int64_t> gaps(4, 0);
    for (int64_t &g : gaps)
        if (rng.chance(0.2)) g = 8 * rng.range(1, 3);
    return gaps;
}

std::string order_name(const std::vector<size_t> &order, const std::vector<int64_t> &gaps) {
    static const char names[] = "bhsd";
    std::string s;
    for (size_t d : order) {
        s += names[d];
        if (gaps[d]) s += "+" + std::to_string(gaps[d]);
    }
    return s;
}

}  // namespace

AttentionConfig draw(Rng &rng, bool backward) {
    AttentionConfig c;
    c.type = rng.chance(0.5) ? FE_DATA_HALF : FE_DATA_BFLOAT16;
    c.b = rng.size(1, 4);
    c.h_k = rng.pick(std::vector<int64_t>{1, 1, 2, 4, 8});
    c.h_q = c.h_k * rng.pick(std::vector<int64_t>{1, 1, 2, 4});
    if (rng.chance(0.1)) c.h_k = 1;  // MQA
    c.s_q = rng.chance(backward ? 0.05 : 0.15) ? 1 : rng.size(1, backward ? 256 : 384);
    c.s_kv = rng.size(1, backward ? 256 : 512);
    c.d = rng.chance(0.6) ? rng.pick(std::vector<int64_t>{64, 128, 64, 128, 32, 96, 256})
                          : 8 * rng.range(1, 32);
    c.d_v = rng.chance(0.7) ? c.d : (rng.chance(0.5) ? rng.pick(std::vector<int64_t>{64, 128}) : 8 * rng.range(1, 32));
    double pick_mask = rng.uniform(0, 1);
    if (pick_mask < 0.25)
        c.causal = FE_CAUSAL_MASK_TOP_LEFT;
    else if (pick_mask < 0.5)
        c.causal = FE_CAUSAL_MASK_BOTTOM_RIGHT;
    else if (pick_mask < 0.7) {
        if (rng.chance(0.6)) c.right = rng.range(0, std::max<int64_t>(1, c.s_kv / 2));
        c.alignment = rng.chance(0.5) ? FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT : FE_DIAGONAL_ALIGNMENT_TOP_LEFT;
    }
    if (rng.chance(0.25)) c.window = rng.range(1, std::max<int64_t>(1, c.s_kv));
    if (c.causal == FE_CAUSAL_MASK_NONE && c.right < 0 && c.window == 0 && rng.chance(0.3))
        c.alignment = FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT;
    c.padding = rng.chance(0.4);
    c.sink = rng.chance(0.15);
    c.softcap = rng.chance(0.12) ? rng.uniform(1, 50) : 0;
    c.alibi = rng.chance(0.1);
    c.bias = rng.chance(0.15) ? static_cast<int>(rng.range(1, 4)) : 0;
    if (rng.chance(0.12)) {
        c.dropout = backward ? 2 : static_cast<int>(rng.range(1, 2));
        c.dropout_p = rng.uniform(0.05, 0.5);
    }
    c.scale = rng.chance(0.7) ? 1.0 / std::sqrt(static_cast<double>(c.d)) : rng.uniform(0.02, 0.3);
    c.scale_tensor = rng.chance(0.15);
    if (!backward) {
        c.stats = rng.chance(0.5);
        if (!c.stats) c.max_sum_exp = rng.chance(0.15);
    } else {
        c.dbias = c.bias == 1 && rng.chance(0.5);
        c.dsink = c.sink;
        c.deterministic = rng.chance(0.15);
    }
    c.order_q = rng.chance(0.5) ? std::vector<size_t>{0, 1, 2, 3} : random_order(rng);
    c.order_k = rng.chance(0.5) ? c.order_q : random_order(rng);
    c.order_v = rng.chance(0.7) ? c.order_k : random_order(rng);
    c.custom_o = rng.chance(0.3);
    double implementation = rng.uniform(0, 1);
    if (implementation > 0.9)
        c.implementation = FE_SDPA_IMPLEMENTATION_NATIVE;
    else if (implementation > 0.8)
        c.implementation = FE_SDPA_IMPLEMENTATION_COMPOSITE;
    c.order_o = c.custom_o ? random_order(rng) : c.order_q;
    c.gaps_q = random_gaps(rng);
    c.gaps_k = random_gaps(rng);
    c.gaps_v = random_gaps(rng);
    c.gaps_o = c.custom_o ? random_gaps(rng) : std::vector<int64_t>(4, 0);
    for (auto *g : {&c.gaps_q, &c.gaps_k, &c.gaps_v, &c.gaps_o}) (*g)[3] = 0;  // d has no gap after it
    if (c.padding) {
        // Packed (THD) tensors hold each sequence's tokens back to back: token stride h * d.
        c.ragged = rng.chance(0.25);
        if (c.ragged) {
            c.order_q = c.order_k = c.order_v = c.order_o = {0, 2, 1, 3};
            c.gaps_q = c.gaps_k = c.gaps_v = c.gaps_o = std::vector<int64_t>(4, 0);
            c.custom_o = true;
        }
        c.paged = !backward && rng.chance(0.2);
        if (c.paged) c.page = rng.pick(std::vector<int64_t>{1, 8, 16, 32, 64, 128});
    }
    // A backward's dropout: the caller's mask, or drawn by cuDNN from a seed and offset (its mask
    // taken from a forward with the same seed and offset). Drawn last, so that the cases drawn
    // before this choice existed stay as they were.
    if (backward && c.dropout && rng.chance(0.5)) c.dropout = 1;
    // The gradient of a bias per batch or shared by heads, drawn last for the same reason.
    if (backward && c.bias > 1 && rng.chance(0.5)) c.dbias = true;
    // A packed backward's workspace sized for the batch's tokens (max_total_seq_len_q and _kv),
    // drawn last for the same reason.
    if (backward && c.ragged && c.d % 16 == 0 && c.d_v % 16 == 0 && rng.chance(0.5)) c.max_total = true;
    return c;
}

// "name=N" sets `field` to N (a positive number); false when the item is not of that name.
static bool set_number(const std::string &item, const char *name, int64_t &field) {
    const std::string prefix = name;
    if (item.compare(0, prefix.size(), prefix) != 0) return false;
    const long long v = std::atoll(item.c_str() + prefix.size());
    if (v < 1) return false;
    field = v;
    return true;
}

void apply_variations(AttentionConfig &c) {
    const char *list = std::getenv("CUDNNFE_CONFORMANCE_VARY");
    if (!list) return;
    std::stringstream items(list);
    for (std::string item; std::getline(items, item, ',');) {
        if (item == "alibi=0") c.alibi = false;
        else if (item == "alibi=1") c.alibi = true;
        else if (item == "softcap=0") c.softcap = 0;
        else if (item == "softcap") c.softcap = c.softcap > 0 ? c.softcap : 20;
        else if (item == "score_mod") {
            if (c.score_mod.empty()) c.score_mod = {{ScoreModStep::multiply, 0.8}, {ScoreModStep::cap, 20}};
            c.implementation = FE_SDPA_IMPLEMENTATION_COMPOSITE;
        }
        else if (item == "mha") c.h_k = c.h_q;
        else if (item == "d_v=d") c.d_v = c.d;
        else if (item == "d=d_v") c.d = c.d_v;
        else if (item == "causal=none") c.causal = FE_CAUSAL_MASK_NONE;
        else if (item == "causal=top_left") c.causal = FE_CAUSAL_MASK_TOP_LEFT;
        else if (item == "causal=bottom_right") c.causal = FE_CAUSAL_MASK_BOTTOM_RIGHT;
        else if (set_number(item, "window=", c.window)) continue;
        else if (item == "type=half") c.type = FE_DATA_HALF;
        else if (item == "type=bf16") c.type = FE_DATA_BFLOAT16;
        else if (item == "score_mod=none") c.score_mod.clear();
        else if (item == "score_mod=no_per_head") {
            std::vector<ScoreModStep> kept;
            for (const ScoreModStep &step : c.score_mod)
                if (step.kind != ScoreModStep::add_per_head) kept.push_back(step);
            c.score_mod = kept;
        } else if (item == "bias=none") c.bias = 0, c.dbias = false;
        else if (item == "dbias=0") c.dbias = false;
        else if (item == "dropout=0") c.dropout = 0, c.dropout_p = 0;
        else if (item == "sink=0") c.sink = false, c.dsink = false;
        else if (item == "window=0") c.window = 0;
        else if (item == "type=e4m3") c.type = FE_DATA_FP8_E4M3;
        else if (item == "type=e5m2") c.type = FE_DATA_FP8_E5M2;
        else if (item == "paged=0") c.paged = false;
        else if (item == "stats=0") c.stats = false;
        else if (item == "deterministic=0") c.deterministic = false;
        else if (item == "deterministic=1") c.deterministic = true;
        else if (item == "align=top_left") c.alignment = FE_DIAGONAL_ALIGNMENT_TOP_LEFT;
        else if (item == "align=bottom_right") c.alignment = FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT;
        else if (set_number(item, "b=", c.b) || set_number(item, "s_q=", c.s_q) || set_number(item, "s_kv=", c.s_kv) ||
                 set_number(item, "d=", c.d) || set_number(item, "d_v=", c.d_v) || set_number(item, "h_q=", c.h_q) ||
                 set_number(item, "h_k=", c.h_k)) {
            c.lengths_q.clear(), c.lengths_kv.clear();
        } else if (item == "packed") {
            c.order_q = c.order_k = c.order_v = c.order_o = {0, 1, 2, 3};
            c.gaps_q = c.gaps_k = c.gaps_v = c.gaps_o = std::vector<int64_t>(4, 0);
        } else {
            std::fprintf(stderr, "CUDNNFE_CONFORMANCE_VARY: '%s' is not a variation this runner knows\n", item.c_str());
            std::exit(2);
        }
    }
}

void draw_score_mod(Rng &rng, AttentionConfig &c) {
    const int64_t steps = rng.range(1, 3);
    for (int64_t i = 0; i < steps; ++i) {
        const int64_t kind = rng.range(0, 2);
        if (kind == 0) c.score_mod.push_back({ScoreModStep::multiply, rng.uniform(0.5, 1.5)});
        else if (kind == 1) c.score_mod.push_back({ScoreModStep::add_per_head, 0});
        else c.score_mod.push_back({ScoreModStep::cap, rng.uniform(2, 30)});
    }
    c.implementation = FE_SDPA_IMPLEMENTATION_COMPOSITE;
}

std::string describe(const AttentionConfig &c) {
    char text[600];
    const char *causal[] = {"none", "top_left", "bottom_right"};
    const char *bias[] = {"", " bias=1h", " bias=b1", " bias=bh", " bias=11"};
    std::snprintf(text, sizeof text,
                  "%s b=%lld h=%lld/%lld s=%lld/%lld d=%lld/%lld causal=%s%s%s%s scale=%.4g%s%s%s%s%s%s%s%s%s%s%s%s%s%s "
                  "layout=%s,%s,%s,%s",
                  fe_data_type_string(c.type), static_cast<long long>(c.b),
                  static_cast<long long>(c.h_q), static_cast<long long>(c.h_k), static_cast<long long>(c.s_q),
                  static_cast<long long>(c.s_kv), static_cast<long long>(c.d), static_cast<long long>(c.d_v),
                  causal[c.causal], c.window ? (" window=" + std::to_string(c.window)).c_str() : "",
                  c.right >= 0 ? (" right=" + std::to_string(c.right)).c_str() : "",
                  c.alignment == FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT ? " align=bottom_right" : "", c.scale,
                  c.scale_tensor ? "(tensor)" : "", c.padding ? " padding" : "", c.sink ? " sink" : "",
                  c.stats ? " stats" : "", c.max_sum_exp ? " max_sum_exp" : "",
                  c.softcap > 0 ? (" softcap=" + std::to_string(c.softcap).substr(0, 5)).c_str() : "", bias[c.bias],
                  c.alibi ? " alibi" : "",
                  c.dropout ? (std::string(c.dropout == 1 ? " dropout(philox p=" : " dropout(mask p=") +
                               std::to_string(c.dropout_p).substr(0, 4) + ")")
                                  .c_str()
                            : "",
                  c.dbias ? " dbias" : "", c.deterministic ? " deterministic" : "", c.ragged ? (c.max_total ? " ragged(max_total)" : " ragged") : "",
                  c.paged ? (" paged(page=" + std::to_string(c.page) + ")").c_str() : "",
                  c.implementation == FE_SDPA_IMPLEMENTATION_NATIVE
                      ? " native"
                      : (c.implementation == FE_SDPA_IMPLEMENTATION_COMPOSITE ? " composite" : ""),
                  order_name(c.order_q, c.gaps_q).c_str(), order_name(c.order_k, c.gaps_k).c_str(),
                  order_name(c.order_v, c.gaps_v).c_str(), order_name(c.order_o, c.gaps_o).c_str());
    std::string line = text;
    if (!c.score_mod.empty()) {
        line += " score_mod=";
        for (size_t i = 0; i < c.score_mod.size(); ++i) {
            const ScoreModStep &step = c.score_mod[i];
            char part[48];
            if (step.kind == ScoreModStep::multiply) std::snprintf(part, sizeof part, "mul(%.3g)", step.value);
            else if (step.kind == ScoreModStep::add_per_head) std::snprintf(part, sizeof part, "add(per_head)");
            else std::snprintf(part, sizeof part, "cap(%.3g)", step.value);
            line += (i ? "," : "") + std::string(part);
        }
    }
    return line;
}


static Dense gather(const Bound &t, const std::vector<int32_t> *lengths) {
    Dense x{t.dims[0], t.dims[1], t.dims[2], t.dims[3], {}};
    x.v.assign(static_cast<size_t>(x.B * x.H * x.S * x.D), 0.0);
    for (int64_t b = 0; b < x.B; ++b)
        for (int64_t h = 0; h < x.H; ++h)
            for (int64_t s = 0; s < (lengths ? (*lengths)[static_cast<size_t>(b)] : x.S); ++s)
                for (int64_t d = 0; d < x.D; ++d)
                    x.v[static_cast<size_t>(((b * x.H + h) * x.S + s) * x.D + d)] = t.at({b, h, s, d});
    return x;
}

// Keys or values of a paged cache: position s of sequence b is in page table[b][s / page].
static Dense gather_pages(const Bound &container, const std::vector<int32_t> &table, int64_t B, int64_t S) {
    const int64_t H = container.dims[1], page = container.dims[2], D = container.dims[3];
    const int64_t pages = (S + page - 1) / page;
    Dense x{B, H, S, D, {}};
    x.v.assign(static_cast<size_t>(B * H * S * D), 0.0);
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t s = 0; s < S; ++s)
                for (int64_t d = 0; d < D; ++d)
                    x.v[static_cast<size_t>(((b * H + h) * S + s) * D + d)] =
                        container.at({table[static_cast<size_t>(b * pages + s / page)], h, s % page, d});
    return x;
}



bool bottom_right(const AttentionConfig &c) {
    return c.causal == FE_CAUSAL_MASK_BOTTOM_RIGHT ||
           (c.causal == FE_CAUSAL_MASK_NONE && c.alignment == FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT);
}

Reference forward_reference(const AttentionConfig &c, const Inputs &in) {
    Reference r{c.b, c.h_q, c.s_q, c.s_kv, {}, {}, {}, {}, {}, {}, {}, {}};
    const int64_t group = c.h_q / c.h_k;
    size_t scores = static_cast<size_t>(c.b * c.h_q * c.s_q * c.s_kv);
    r.p.assign(scores, 0.0);
    r.capped.assign(c.softcap > 0 ? scores : 0, 0.0);
    r.unmodified.assign(c.score_mod.empty() ? 0 : scores, 0.0);
    r.o.assign(static_cast<size_t>(c.b * c.h_q * c.s_q * c.d_v), 0.0);
    r.max.assign(static_cast<size_t>(c.b * c.h_q * c.s_q), 0.0);
    r.sum = r.max;
    r.row_defined.assign(r.max.size(), 1);
    const int64_t right = c.causal != FE_CAUSAL_MASK_NONE ? 0 : c.right;
    std::vector<double> row(static_cast<size_t>(c.s_kv));
    for (int64_t b = 0; b < c.b; ++b) {
        const int64_t lq = in.len_q[static_cast<size_t>(b)], lkv = in.len_kv[static_cast<size_t>(b)];
        const int64_t shift = bottom_right(c) ? (c.padding ? lkv - lq : c.s_kv - c.s_q) : 0;
        for (int64_t h = 0; h < c.h_q; ++h)
            for (int64_t i = 0; i < c.s_q; ++i) {
                const size_t ri = r.row(b, h, i);
                double top = in.sink ? static_cast<double>(in.sink->at({0, h, 0, 0})) : kMinusInf;
                bool any = false;
                const int64_t diagonal = i + shift;
                for (int64_t j = 0; j < c.s_kv; ++j) {
                    double dot = 0;
                    for (int64_t x = 0; x < c.d; ++x)
                        dot += in.q(b, h, i, x) * in.k(b, h / group, j, x);
                    double s = dot * c.scale;
                    if (!c.score_mod.empty()) {
                        r.unmodified[r.at(b, h, i, j)] = s;
                        s = score_mod_value(c, in, h, s);
                    }
                    if (c.softcap > 0) {
                        r.capped[r.at(b, h, i, j)] = s / c.softcap;
                        s = c.softcap * std::tanh(s / c.softcap);
                    }
                    if (in.bias)
                        s += in.bias->at({in.bias->dims[0] == 1 ? 0 : b, in.bias->dims[1] == 1 ? 0 : h, i, j});
                    if (in.alibi) s += static_cast<double>(in.alibi->at({0, h, 0, 0})) * static_cast<double>(j - i);
                    bool keep = !c.padding || (i < lq && j < lkv);
                    if (right >= 0 && j > diagonal + right) keep = false;
                    if (c.window > 0 && j <= diagonal - c.window) keep = false;
                    row[static_cast<size_t>(j)] = keep ? s : kMinusInf;
                    any = any || keep;
                    top = std::max(top, row[static_cast<size_t>(j)]);
                }
                if ((c.padding && i >= lq) || (!any && !in.sink)) {
                    r.row_defined[ri] = 0;
                    continue;
                }
                double sum = in.sink ? std::exp(static_cast<double>(in.sink->at({0, h, 0, 0})) - top) : 0.0;
                for (int64_t j = 0; j < c.s_kv; ++j) sum += std::exp(row[static_cast<size_t>(j)] - top);
                r.max[ri] = top;
                r.sum[ri] = sum;
                for (int64_t j = 0; j < c.s_kv; ++j) r.p[r.at(b, h, i, j)] = std::exp(row[static_cast<size_t>(j)] - top) / sum;
            }
    }
    r.p_dropped = r.p;
    // A drawn mask's value where the probability is 0 (a key the masks exclude) is unspecified:
    // it is read only where the softmax keeps the key.
    if (c.dropout)
        for (int64_t b = 0; b < c.b; ++b)
            for (int64_t h = 0; h < c.h_q; ++h)
                for (int64_t i = 0; i < c.s_q; ++i)
                    for (int64_t j = 0; j < c.s_kv; ++j)
                        if (r.p[r.at(b, h, i, j)] != 0)
                            r.p_dropped[r.at(b, h, i, j)] *= in.mask->at({b, h, i, j}) / (1.0 - c.dropout_p);
    for (int64_t b = 0; b < c.b; ++b)
        for (int64_t h = 0; h < c.h_q; ++h)
            for (int64_t i = 0; i < c.s_q; ++i) {
                if (!r.row_defined[r.row(b, h, i)]) continue;
                for (int64_t x = 0; x < c.d_v; ++x) {
                    double acc = 0;
                    for (int64_t j = 0; j < c.s_kv; ++j)
                        acc += r.p_dropped[r.at(b, h, i, j)] * in.v(b, h / group, j, x);
                    r.o[static_cast<size_t>(r.row(b, h, i) * static_cast<size_t>(c.d_v) + static_cast<size_t>(x))] = acc;
                }
            }
    return r;
}

void check_drawn_mask(Case &k, const Bound &mask, const Reference &r) {
    std::vector<double> want(r.p.size(), 0.0);
    std::vector<char> kept(r.p.size(), 0);
    std::vector<int64_t> index(4, 0);
    for (size_t e = 0; e < r.p.size(); ++e) {
        kept[e] = r.p[e] != 0 && r.row_defined[e / static_cast<size_t>(r.SKV)];
        want[e] = mask.at(index) == 0 ? 0.0 : 1.0;
        for (size_t d = 4; d-- > 0;) {
            if (++index[d] < mask.dims[d]) break;
            index[d] = 0;
        }
    }
    k.check("DropoutMask", mask, want, 0, 0, 0, &kept);
}

std::vector<int64_t> layout(const std::vector<int64_t> &dims, const std::vector<size_t> &order,
                            const std::vector<int64_t> &gaps, Rng &rng) {
    std::vector<int64_t> strides = strides_in_order(dims, order, gaps);
    // A unit dim's stride is never used to address memory: any value is valid, odd ones too.
    for (size_t d = 0; d + 1 < dims.size(); ++d)
        if (dims[d] == 1 && rng.chance(0.3)) strides[d] = 2 * rng.range(0, 50) + 1;
    return strides;
}


// The strides of a packed (THD) tensor [b, h, s, d]: tokens of h * d elements.
std::vector<int64_t> thd_strides(int64_t h, int64_t s, int64_t d) { return {s * h * d, d, h * d, 1}; }

Common make_inputs(Case &k, const AttentionConfig &c) {
    Common t;
    // FP8 attention's bias and mask are not FP8.
    const bool fp8 = c.type == FE_DATA_FP8_E4M3 || c.type == FE_DATA_FP8_E5M2;
    std::vector<int64_t> qd = {c.b, c.h_q, c.s_q, c.d}, kd = {c.b, c.h_k, c.s_kv, c.d}, vd = {c.b, c.h_k, c.s_kv, c.d_v};
    t.q = k.tensor("q", qd, layout(qd, c.order_q, c.gaps_q, k.rng));
    if (c.paged) {
        const int64_t pages = c.b * ((c.s_kv + c.page - 1) / c.page);
        t.k = k.packed("k_pages", {pages, c.h_k, c.page, c.d});
        t.v = k.packed("v_pages", {pages, c.h_k, c.page, c.d_v});
        t.table_k = k.packed("page_table_k", {c.b, 1, pages / c.b, 1}, FE_DATA_INT32);
        t.table_v = k.packed("page_table_v", {c.b, 1, pages / c.b, 1}, FE_DATA_INT32);
    } else {
        t.k = k.tensor("k", kd, layout(kd, c.order_k, c.gaps_k, k.rng));
        t.v = k.tensor("v", vd, layout(vd, c.order_v, c.gaps_v, k.rng));
    }
    if (c.ragged) {
        const std::vector<int64_t> offsets = {c.b + 1, 1, 1, 1};
        t.off_q = k.packed("offsets_q", offsets, FE_DATA_INT64);
        t.off_o = c.d_v == c.d ? t.off_q : k.packed("offsets_o", offsets, FE_DATA_INT64);
        if (!c.paged) {
            t.off_k = k.packed("offsets_k", offsets, FE_DATA_INT64);
            t.off_v = c.d_v == c.d ? t.off_k : k.packed("offsets_v", offsets, FE_DATA_INT64);
            k.ok(fe_tensor_set_ragged_offset(t.k, t.off_k), "fe_tensor_set_ragged_offset");
            k.ok(fe_tensor_set_ragged_offset(t.v, t.off_v), "fe_tensor_set_ragged_offset");
        }
        k.ok(fe_tensor_set_ragged_offset(t.q, t.off_q), "fe_tensor_set_ragged_offset");
    }
    if (c.padding) {
        t.len_q = k.packed("seq_len_q", {c.b, 1, 1, 1}, FE_DATA_INT32);
        t.len_kv = k.packed("seq_len_kv", {c.b, 1, 1, 1}, FE_DATA_INT32);
    }
    static const std::vector<std::vector<int64_t>> bias_dims = {{}, {1, 1, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 0}, {1, 1, 0, 0}};
    if (c.bias) {
        std::vector<int64_t> bd = {c.bias == 2 || c.bias == 3 ? c.b : 1, c.bias == 1 || c.bias == 3 ? c.h_q : 1, c.s_q,
                                   c.s_kv};
        t.bias = k.packed("bias", bd, fp8 ? FE_DATA_BFLOAT16 : FE_DATA_NOT_SET);
    }
    if (c.sink) t.sink = k.packed("sink", {1, c.h_q, 1, 1}, FE_DATA_FLOAT);
    if (c.alibi) t.alibi = k.packed("alibi_slopes", {1, c.h_q, 1, 1}, FE_DATA_FLOAT);
    if (c.dropout == 2)
        t.mask = k.packed("dropout_mask", {c.b, c.h_q, c.s_q, c.s_kv}, fp8 ? FE_DATA_BFLOAT16 : FE_DATA_NOT_SET);
    if (c.dropout == 1) {
        t.seed = k.packed("seed", {1, 1, 1, 1}, FE_DATA_INT64);
        t.offset = k.packed("offset", {1, 1, 1, 1}, FE_DATA_INT64);
    }
    if (c.scale_tensor) t.scale = k.packed("attn_scale", {1, 1, 1, 1}, FE_DATA_FLOAT);
    return t;
}

// Binds the shared inputs with fresh random values; fills the reference's view of them.
Inputs bind_inputs(Case &k, const AttentionConfig &c, const Common &t, float lo, float hi) {
    Inputs in;
    Bound &bq = k.input(t.q, lo, hi), &bk = k.input(t.k, lo, hi), &bv = k.input(t.v, lo, hi);
    in.len_q.assign(static_cast<size_t>(c.b), static_cast<int32_t>(c.s_q));
    in.len_kv.assign(static_cast<size_t>(c.b), static_cast<int32_t>(c.s_kv));
    if (c.padding) {
        for (int64_t b = 0; b < c.b; ++b) {
            // Empty sequences now and then; otherwise any length up to the maximum.
            in.len_q[static_cast<size_t>(b)] = static_cast<int32_t>(k.rng.chance(0.08) ? 0 : k.rng.range(1, c.s_q));
            in.len_kv[static_cast<size_t>(b)] = static_cast<int32_t>(k.rng.chance(0.08) ? 0 : k.rng.range(1, c.s_kv));
        }
        if (!c.lengths_q.empty()) in.len_q = c.lengths_q;
        if (!c.lengths_kv.empty()) in.len_kv = c.lengths_kv;
        k.input_int32(t.len_q, in.len_q);
        k.input_int32(t.len_kv, in.len_kv);
    }
    if (c.ragged) {
        auto prefix = [&](const std::vector<int32_t> &lengths, int64_t per_token) {
            std::vector<int64_t> off(lengths.size() + 1, 0);
            for (size_t b = 0; b < lengths.size(); ++b) off[b + 1] = off[b] + lengths[b] * per_token;
            return off;
        };
        in.off_q = prefix(in.len_q, c.h_q * c.d);
        in.off_k = prefix(in.len_kv, c.h_k * c.d);
        in.off_v = prefix(in.len_kv, c.h_k * c.d_v);
        in.off_o = prefix(in.len_q, c.h_q * c.d_v);
        in.off_stats = prefix(in.len_q, c.h_q);
        k.input_int64(t.off_q, in.off_q);
        if (t.off_o != t.off_q) k.input_int64(t.off_o, in.off_o);
        if (t.off_k) k.input_int64(t.off_k, in.off_k);
        if (t.off_v && t.off_v != t.off_k) k.input_int64(t.off_v, in.off_v);
        if (t.off_stats) k.input_int64(t.off_stats, in.off_stats);
        bq.ragged = in.off_q;
        if (!c.paged) {
            bk.ragged = in.off_k;
            bv.ragged = in.off_v;
        }
    }
    in.q = gather(bq, c.ragged ? &in.len_q : nullptr);
    if (c.paged) {
        // Each sequence's pages handed out in a shuffled order, K and V from different tables.
        const int64_t pages = c.b * ((c.s_kv + c.page - 1) / c.page);
        std::vector<int32_t> table_k(static_cast<size_t>(pages)), table_v(table_k.size());
        for (int64_t p = 0; p < pages; ++p) table_k[static_cast<size_t>(p)] = table_v[static_cast<size_t>(p)] = static_cast<int32_t>(p);
        std::shuffle(table_k.begin(), table_k.end(), k.rng.engine());
        std::shuffle(table_v.begin(), table_v.end(), k.rng.engine());
        k.input_int32(t.table_k, table_k);
        k.input_int32(t.table_v, table_v);
        in.k = gather_pages(bk, table_k, c.b, c.s_kv);
        in.v = gather_pages(bv, table_v, c.b, c.s_kv);
    } else {
        in.k = gather(bk, c.ragged ? &in.len_kv : nullptr);
        in.v = gather(bv, c.ragged ? &in.len_kv : nullptr);
    }
    if (t.bias) in.bias = &k.input(t.bias, -2.f, 2.f);
    if (t.sink) in.sink = &k.input(t.sink, -2.f, 2.f);
    if (t.alibi) {
        std::vector<float> slopes(static_cast<size_t>(c.h_q));
        fe_alibi_slopes(c.h_q, slopes.data());
        in.alibi = &k.input_values(t.alibi, slopes);
    }
    if (t.mask) {
        std::vector<float> bits(static_cast<size_t>(c.b * c.h_q * c.s_q * c.s_kv));
        for (float &x : bits) x = k.rng.chance(c.dropout_p) ? 0.f : 1.f;
        in.mask = &k.input_values(t.mask, bits);
    }
    if (t.seed) {
        const int64_t seed = c.dropout_seed >= 0 ? c.dropout_seed : static_cast<int64_t>(k.rng.range(0, 1 << 30));
        const int64_t offset = c.dropout_offset >= 0 ? c.dropout_offset : static_cast<int64_t>(k.rng.range(0, 1 << 10));
        k.input_int64(t.seed, {seed});
        k.input_int64(t.offset, {offset});
    }
    if (t.scale) k.input_values(t.scale, {static_cast<float>(c.scale)});
    if (t.mod_head) in.mod_head = &k.input(t.mod_head, -1.f, 1.f);
    return in;
}

double score_mod_value(const AttentionConfig &c, const Inputs &in, int64_t h, double s) {
    for (const ScoreModStep &step : c.score_mod) {
        if (step.kind == ScoreModStep::multiply) s *= step.value;
        else if (step.kind == ScoreModStep::add_per_head) s += in.mod_head->at({0, h, 0, 0});
        else s = step.value * std::tanh(s / step.value);
    }
    return s;
}

double score_mod_derivative(const AttentionConfig &c, const Inputs &in, int64_t h, double s) {
    double derivative = 1;
    for (const ScoreModStep &step : c.score_mod) {
        if (step.kind == ScoreModStep::multiply) {
            derivative *= step.value;
            s *= step.value;
        } else if (step.kind == ScoreModStep::add_per_head) {
            s += in.mod_head->at({0, h, 0, 0});
        } else {
            const double th = std::tanh(s / step.value);
            derivative *= 1 - th * th;
            s = step.value * th;
        }
    }
    return derivative;
}

bool build_score_mod(Case &k, const AttentionConfig &c, Common *t, fe_tensor **input, fe_tensor **output,
                     fe_tensor **grad_input, fe_tensor **grad_output) {
    fe_graph *g = k.graph_handle();
    const int64_t dims[4] = {c.b, c.h_q, c.s_q, c.s_kv};
    auto op = [&](fe_pointwise_mode mode, fe_tensor *a, fe_tensor *b) {
        fe_tensor *y = nullptr;
        k.ok(fe_graph_pointwise(g, mode, a, b, nullptr, nullptr, &y), "fe_graph_pointwise");
        return y;
    };
    int scalars = 0;
    auto scalar = [&](double value) {
        fe_tensor *s = nullptr;
        const std::string name = "score_mod_value_" + std::to_string(scalars++);
        k.ok(fe_graph_scalar(g, name.c_str(), value, FE_DATA_FLOAT, &s), "fe_graph_scalar");
        return s;
    };
    if (!k.ok(fe_graph_tensor(g, "scores", 4, dims, nullptr, FE_DATA_FLOAT, input), "fe_graph_tensor")) return false;
    fe_tensor *cur = *input;
    std::vector<fe_tensor *> before_tanh(c.score_mod.size(), nullptr);
    for (size_t i = 0; i < c.score_mod.size(); ++i) {
        const ScoreModStep &step = c.score_mod[i];
        if (step.kind == ScoreModStep::multiply) {
            cur = op(FE_POINTWISE_MUL, cur, scalar(step.value));
        } else if (step.kind == ScoreModStep::add_per_head) {
            if (!t->mod_head) t->mod_head = k.packed("score_mod_per_head", {1, c.h_q, 1, 1}, FE_DATA_FLOAT);
            cur = op(FE_POINTWISE_ADD, cur, t->mod_head);
        } else {
            fe_tensor *cap = scalar(step.value);
            before_tanh[i] = op(FE_POINTWISE_DIV, cur, cap);
            cur = op(FE_POINTWISE_MUL, op(FE_POINTWISE_TANH_FWD, before_tanh[i], nullptr), cap);
        }
    }
    *output = cur;
    if (!grad_input) return true;
    // d(scores) from d(modified scores): each step's derivative, last step first.
    if (!k.ok(fe_graph_tensor(g, "d_scores", 4, dims, nullptr, FE_DATA_FLOAT, grad_input), "fe_graph_tensor"))
        return false;
    fe_tensor *grad = *grad_input;
    for (size_t i = c.score_mod.size(); i-- > 0;) {
        const ScoreModStep &step = c.score_mod[i];
        if (step.kind == ScoreModStep::multiply) grad = op(FE_POINTWISE_MUL, grad, scalar(step.value));
        else if (step.kind == ScoreModStep::cap) grad = op(FE_POINTWISE_TANH_BWD, grad, before_tanh[i]);
    }
    // Adding per-head terms alone leaves the gradient as it is; the chain still needs an operation.
    if (grad == *grad_input) grad = op(FE_POINTWISE_IDENTITY, grad, nullptr);
    *grad_output = grad;
    return true;
}

}  // namespace conformance
