// The mixture-of-experts grouped matmul over the options the API takes: 1 to 8 experts, groups
// of one or several rounds of the experts (group g uses expert g % E), per-group row counts
// drawn freely (empty groups and experts included, and now and then rows before the first group
// that no group covers), hidden sizes K and N multiples of 8 up to 512, fp16/bf16, the weight
// K-contiguous (the reference frontend's layout), N-contiguous or with a gap between experts,
// token rows with a gap, the compute type left to the graph or set, and every mode: NONE (rows
// already grouped), GATHER (rows read through token_index) and SCATTER (rows written to
// token * top_k + slot) with top-k routing of tokens to distinct experts. cuDNN 9.19 refuses
// GATHER and SCATTER; they are generated anyway (about 20% each) so the suite records it. A
// quarter of the cases take weight-only INT4 experts, dequantized in the graph per group of rows
// or per column with float or io-type scales.
// Reference: per-row products in double on the CPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "dims.hpp"
#include "families.hpp"

namespace conformance {
namespace {

struct MoeConfig {
    fe_data_type type = FE_DATA_BFLOAT16;
    fe_moe_mode mode = FE_MOE_MODE_NONE;
    int64_t experts = 1, groups = 1, k = 64, n = 64, top_k = 0, tokens = 0;
    int64_t token_rows = 0, out_rows = 0;  // M (rows of token) and R (rows of y)
    int64_t lead = 0;                      // NONE: rows before the first group
    std::vector<int64_t> counts;           // routed rows per group
    std::vector<int32_t> first;            // first_token_offset
    // Per routed row (GATHER, SCATTER): its token and its slot in the token's top k; and for
    // every mode its group.
    std::vector<int32_t> token, slot;
    std::vector<int64_t> group;
    int weight_layout = 0;  // 0 K-contiguous, 1 N-contiguous, 2 K-contiguous with a gap per expert
    int64_t token_gap = 0;
    bool compute_float = false;
    // Weight-only INT4 experts: 4-bit weights dequantized in the graph, per group of `int4_group` rows
    // of K (block_scale_dequantize, partial groups at the end) or per column (group 0: a multiply).
    bool int4 = false;
    int64_t int4_group = 0;
    fe_data_type scale_type = FE_DATA_FLOAT;
};

MoeConfig draw(Rng &rng) {
    MoeConfig c;
    c.type = rng.chance(0.5) ? FE_DATA_HALF : FE_DATA_BFLOAT16;
    double m = rng.uniform(0, 1);
    c.mode = m < 0.6 ? FE_MOE_MODE_NONE : m < 0.8 ? FE_MOE_MODE_GATHER : FE_MOE_MODE_SCATTER;
    c.experts = rng.range(1, 8);
    c.groups = c.experts * (rng.chance(0.75) ? 1 : rng.range(2, 3));
    c.k = 8 * rng.size(1, 64);
    c.n = 8 * rng.size(1, 64);
    // Keep the reference cheap: rows x K x N multiply-adds under a budget.
    const int64_t budget = rng.chance(0.1) ? (int64_t{1} << 27) : (int64_t{1} << 24);
    const int64_t max_rows = std::max<int64_t>(1, budget / (c.k * c.n));
    c.counts.assign(static_cast<size_t>(c.groups), 0);
    if (c.mode == FE_MOE_MODE_NONE) {
        for (int64_t &n : c.counts) n = rng.chance(0.2) ? 0 : rng.size(1, 128);
        for (;;) {
            int64_t total = 0;
            for (int64_t n : c.counts) total += n;
            if (total <= max_rows) break;
            for (int64_t &n : c.counts) n /= 2;
        }
        if (rng.chance(0.1)) c.lead = rng.range(1, 16);
        for (int64_t g = 0; g < c.groups; ++g)
            for (int64_t r = 0; r < c.counts[static_cast<size_t>(g)]; ++r) c.group.push_back(g);
        c.token_rows = c.out_rows = c.lead + static_cast<int64_t>(c.group.size());
    } else {
        // Top-k routing: each token to top_k distinct experts, each routed row to one of its
        // expert's groups; rows sorted by group (then token), as a router's sort leaves them.
        c.top_k = rng.range(1, std::min<int64_t>(c.experts, 4));
        c.tokens = std::min(rng.size(1, 256), std::max<int64_t>(1, max_rows / c.top_k));
        struct Row {
            int32_t token, slot;
            int64_t group;
        };
        std::vector<Row> rows;
        std::vector<int64_t> experts(static_cast<size_t>(c.experts));
        for (int64_t t = 0; t < c.tokens; ++t) {
            for (int64_t e = 0; e < c.experts; ++e) experts[static_cast<size_t>(e)] = e;
            std::shuffle(experts.begin(), experts.end(), rng.engine());
            for (int64_t s = 0; s < c.top_k; ++s) {
                int64_t g = experts[static_cast<size_t>(s)] + c.experts * rng.range(0, c.groups / c.experts - 1);
                rows.push_back({static_cast<int32_t>(t), static_cast<int32_t>(s), g});
            }
        }
        std::stable_sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) { return a.group < b.group; });
        for (const Row &r : rows) {
            c.token.push_back(r.token);
            c.slot.push_back(r.slot);
            c.group.push_back(r.group);
            ++c.counts[static_cast<size_t>(r.group)];
        }
        const int64_t routed = static_cast<int64_t>(rows.size());
        c.token_rows = c.mode == FE_MOE_MODE_GATHER ? c.tokens : routed;
        c.out_rows = routed;
    }
    // An operation needs rows: a mixture with none is not a case.
    if (c.token_rows == 0) {
        c.counts.back() = 1;
        c.group.push_back(c.groups - 1);
        c.token_rows = c.out_rows = 1;
    }
    int64_t at = c.lead;
    for (int64_t n : c.counts) {
        c.first.push_back(static_cast<int32_t>(at));
        at += n;
    }
    double w = rng.uniform(0, 1);
    c.weight_layout = w < 0.7 ? 0 : w < 0.85 ? 1 : 2;
    c.token_gap = rng.chance(0.15) ? 8 * rng.range(1, 8) : 0;
    c.compute_float = rng.chance(0.2);
    // Drawn last, so that the cases drawn before INT4 experts existed stay as they were.
    c.int4 = rng.chance(0.25);
    if (c.int4) {
        c.int4_group = rng.chance(0.3) ? 0 : rng.pick(std::vector<int64_t>{8, 16, 32, 64, 128});
        c.scale_type = rng.chance(0.5) ? FE_DATA_FLOAT : c.type;
    }
    return c;
}

const char *weight_layout_name(int layout) {
    return layout == 0 ? "K-contiguous" : layout == 1 ? "N-contiguous" : "K-contiguous+gap";
}

std::string describe(const MoeConfig &c) {
    static const char *const modes[] = {"none", "gather", "scatter"};
    char text[256];
    std::snprintf(text, sizeof text, "mode=%s %s experts=%lld groups=%lld K=%lld N=%lld", modes[c.mode],
                  c.type == FE_DATA_HALF ? "fp16" : "bf16", static_cast<long long>(c.experts),
                  static_cast<long long>(c.groups), static_cast<long long>(c.k), static_cast<long long>(c.n));
    std::string s = text;
    if (c.mode != FE_MOE_MODE_NONE)
        s += " tokens=" + std::to_string(c.tokens) + " top_k=" + std::to_string(c.top_k);
    s += " rows_per_group=" + list(c.counts);
    if (c.lead) s += " uncovered_lead=" + std::to_string(c.lead);
    s += " token=[1," + std::to_string(c.token_rows) + "," + std::to_string(c.k) + "]";
    if (c.token_gap) s += "+row_gap" + std::to_string(c.token_gap);
    s += std::string(" weight=") + weight_layout_name(c.weight_layout);
    if (c.compute_float) s += " compute=fp32";
    if (c.int4) {
        s += " int4_weight scale=";
        s += c.scale_type == FE_DATA_FLOAT ? "fp32" : c.type == FE_DATA_HALF ? "fp16" : "bf16";
        s += c.int4_group ? " per_group=" + std::to_string(c.int4_group) : std::string(" per_column");
    }
    return s;
}

void moe_case(Case &k) {
    MoeConfig c = draw(k.rng);
    k.describe(describe(c));
    if (!k.graph(c.type)) return;
    fe_graph *g = k.graph_handle();
    const int64_t row_stride = c.k + c.token_gap;
    fe_tensor *token = k.tensor("token", {1, c.token_rows, c.k}, {c.token_rows * row_stride, row_stride, 1});
    Dims weight_strides = c.weight_layout == 1 ? Dims{c.k * c.n, c.n, 1}
                                               : Dims{c.k * c.n + (c.weight_layout == 2 ? 64 : 0), 1, c.k};
    fe_tensor *stored = k.tensor("weight", {c.experts, c.k, c.n}, weight_strides, c.int4 ? FE_DATA_INT4 : FE_DATA_NOT_SET);
    fe_tensor *weight = stored, *scale = nullptr;
    if (c.int4 && stored) {
        scale = k.packed("scale", {c.experts, c.int4_group ? (c.k + c.int4_group - 1) / c.int4_group : 1, c.n}, c.scale_type);
        fe_status s = FE_OK;
        if (c.int4_group) {
            fe_block_scale_options bo = FE_BLOCK_SCALE_OPTIONS_INIT;
            bo.block_rows = static_cast<int32_t>(c.int4_group);
            bo.block_size = 1;
            s = fe_graph_block_scale_dequantize(g, stored, scale, &bo, &weight);
        } else {
            s = fe_graph_pointwise(g, FE_POINTWISE_MUL, stored, scale, nullptr, nullptr, &weight);
        }
        if (!k.ok(s, c.int4_group ? "fe_graph_block_scale_dequantize" : "fe_graph_pointwise") ||
            !k.ok(fe_tensor_set_data_type(weight, c.type), "fe_tensor_set_data_type"))
            return;
    }
    fe_tensor *offsets = k.packed("first_token_offset", {c.groups, 1, 1}, FE_DATA_INT32);
    fe_moe_grouped_matmul_options o = FE_MOE_GROUPED_MATMUL_OPTIONS_INIT;
    o.mode = c.mode;
    if (c.compute_float) o.compute_data_type = FE_DATA_FLOAT;
    const int64_t routed = static_cast<int64_t>(c.group.size());
    fe_tensor *index = nullptr, *ks = nullptr;
    if (c.mode != FE_MOE_MODE_NONE) o.token_index = index = k.packed("token_index", {1, routed, 1}, FE_DATA_INT32);
    if (c.mode == FE_MOE_MODE_SCATTER) {
        o.token_ks = ks = k.packed("token_ks", {1, routed, 1}, FE_DATA_INT32);
        o.top_k = static_cast<int32_t>(c.top_k);
    }
    if (!token || !weight || !offsets || (c.mode != FE_MOE_MODE_NONE && !index) || (c.mode == FE_MOE_MODE_SCATTER && !ks))
        return;
    fe_tensor *y = nullptr;
    if (!k.ok(fe_graph_moe_grouped_matmul(g, token, weight, offsets, &o, &y), "fe_graph_moe_grouped_matmul")) return;
    if (!k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;

    Bound &bt = k.input(token), &bw = c.int4 ? k.input_int4(stored) : k.input(stored);
    Bound *bs = scale ? &k.input(scale, 0.01f, 0.1f) : nullptr;
    k.input_int32(offsets, c.first);
    if (index) k.input_int32(index, c.token);
    if (ks) k.input_int32(ks, c.slot);
    Bound &by = k.output(y);
    if (!k.execute()) return;

    // Routed row r of group g: (its token row) x weight[g % E], written to its output row.
    std::vector<double> ref(static_cast<size_t>(c.out_rows * c.n), 0.0);
    std::vector<char> defined(ref.size(), 0);
    std::vector<double> row(static_cast<size_t>(c.k));
    for (int64_t r = 0; r < routed; ++r) {
        const int64_t routed_row = c.lead + r;
        const int64_t e = c.group[static_cast<size_t>(r)] % c.experts;
        const int64_t source = c.mode == FE_MOE_MODE_GATHER ? c.token[static_cast<size_t>(r)] : routed_row;
        const int64_t target = c.mode == FE_MOE_MODE_SCATTER
                                   ? c.token[static_cast<size_t>(r)] * c.top_k + c.slot[static_cast<size_t>(r)]
                                   : routed_row;
        for (int64_t x = 0; x < c.k; ++x) row[static_cast<size_t>(x)] = bt.at({0, source, x});
        for (int64_t j = 0; j < c.n; ++j) {
            double acc = 0;
            for (int64_t x = 0; x < c.k; ++x) {
                const double w = bs ? bw.at({e, x, j}) * bs->at({e, c.int4_group ? x / c.int4_group : 0, j}) : bw.at({e, x, j});
                acc += row[static_cast<size_t>(x)] * w;
            }
            ref[static_cast<size_t>(target * c.n + j)] = acc;
            defined[static_cast<size_t>(target * c.n + j)] = 1;
        }
    }
    // Rows no group covers are left as they were (poisoned): not compared. A K-long dot product
    // of uniform(-1, 1) values is about sqrt(K) / 3: atol scales with sqrt(K).
    const double atol = 1e-3 * std::sqrt(static_cast<double>(c.k));
    k.check("y", by, ref, atol, 2e-2, c.type == FE_DATA_HALF ? 1e-2 : 2.5e-2, &defined);
}

}  // namespace

void register_moe(std::vector<Family> &out) { out.push_back({"moe", 200, moe_case}); }

}  // namespace conformance
