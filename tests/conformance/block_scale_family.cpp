// Block-scaled matmuls (general block scaling, fe_graph_block_scale_dequantize feeding
// fe_graph_matmul): A [b, M, K] and B [b, K, N] stored in half, bfloat16, E4M3 or E5M2, one or
// both dequantized with one float, half or bfloat16 scale per block of block_rows x block_size
// elements of their last two dims (1 x 128 and 128 x 128 as DeepSeek's FP8 GEMM, per-group weight
// scales, partial blocks at the edges), B row- or column-major. Reference: the stored values times
// their blocks' scales, rounded to the dequantized type as the graph stores them, multiplied in
// double.
#include <cmath>

#include "families.hpp"
#include "harness.hpp"

namespace conformance {
namespace {

struct Operand {
    bool dequantized = false;
    fe_data_type stored = FE_DATA_HALF, scale_type = FE_DATA_FLOAT;
    int64_t block_rows = 1, block_size = 32;
};

struct BlockScaleConfig {
    int64_t batch = 1, m = 1, n = 1, k = 1;
    fe_data_type type = FE_DATA_HALF;  // the dequantized operands and C
    Operand a, b;
    bool b_column_major = false;
};

Operand draw_operand(Rng &rng) {
    Operand o;
    o.dequantized = true;
    o.stored = rng.pick(std::vector<fe_data_type>{FE_DATA_FP8_E4M3, FE_DATA_FP8_E5M2, FE_DATA_HALF, FE_DATA_BFLOAT16});
    o.scale_type = rng.pick(std::vector<fe_data_type>{FE_DATA_FLOAT, FE_DATA_FLOAT, FE_DATA_HALF, FE_DATA_BFLOAT16});
    o.block_rows = rng.pick(std::vector<int64_t>{1, 1, 16, 32, 128});
    o.block_size = rng.pick(std::vector<int64_t>{16, 32, 64, 128});
    return o;
}

BlockScaleConfig draw(Rng &rng) {
    BlockScaleConfig c;
    c.type = rng.chance(0.5) ? FE_DATA_HALF : FE_DATA_BFLOAT16;
    c.batch = rng.chance(0.7) ? 1 : rng.range(2, 3);
    c.m = rng.size(1, 320);
    c.n = rng.size(1, 320);
    c.k = rng.size(16, 640);
    const int64_t which = rng.range(0, 2);  // 0: A, 1: B, 2: both
    if (which != 1) c.a = draw_operand(rng);
    if (which != 0) c.b = draw_operand(rng);
    if (!c.a.dequantized) c.a.stored = c.type;
    if (!c.b.dequantized) c.b.stored = c.type;
    c.b_column_major = rng.chance(0.4);
    return c;
}

std::string describe(const BlockScaleConfig &c) {
    auto operand = [](const char *name, const Operand &o) {
        if (!o.dequantized) return std::string(" ") + name + "=" + fe_data_type_string(o.stored);
        return std::string(" ") + name + "=" + fe_data_type_string(o.stored) + "*" + fe_data_type_string(o.scale_type) + "[" +
               std::to_string(o.block_rows) + "x" + std::to_string(o.block_size) + "]";
    };
    return std::string(fe_data_type_string(c.type)) + " batch=" + std::to_string(c.batch) + " M=" + std::to_string(c.m) +
           " N=" + std::to_string(c.n) + " K=" + std::to_string(c.k) + operand("A", c.a) + operand("B", c.b) +
           (c.b_column_major ? " B=column_major" : "");
}

int64_t blocks(int64_t extent, int64_t block) { return (extent + block - 1) / block; }

// The operand's value at (z, r, col) as the matmul reads it: stored value times its block's
// scale, rounded to the dequantized type.
double dequantized(const BlockScaleConfig &c, const Operand &o, const Bound &x, const Bound *scale, int64_t z,
                   int64_t r, int64_t col) {
    double v = x.at({z, r, col});
    if (!o.dequantized) return v;
    v *= scale->at({z, r / o.block_rows, col / o.block_size});
    return round_to(c.type, static_cast<float>(v));
}

void block_scale_case(Case &k) {
    BlockScaleConfig c = draw(k.rng);
    k.describe(describe(c));
    if (!k.graph(c.type)) return;
    fe_graph *g = k.graph_handle();
    const std::vector<int64_t> da = {c.batch, c.m, c.k}, db = {c.batch, c.k, c.n};
    fe_tensor *a = k.packed("a", da, c.a.stored);
    const std::vector<int64_t> sb = c.b_column_major ? std::vector<int64_t>{c.k * c.n, 1, c.k}
                                                     : std::vector<int64_t>{c.k * c.n, c.n, 1};
    fe_tensor *b = k.tensor("b", db, sb, c.b.stored);
    fe_tensor *scale_a = nullptr, *scale_b = nullptr, *ma = a, *mb = b;
    auto dequantize = [&](fe_tensor *x, const Operand &o, int64_t rows, int64_t cols, const char *scale_name,
                          fe_tensor **scale, fe_tensor **into) {
        *scale = k.packed(scale_name, {c.batch, blocks(rows, o.block_rows), blocks(cols, o.block_size)}, o.scale_type);
        fe_block_scale_options opt = FE_BLOCK_SCALE_OPTIONS_INIT;
        opt.block_rows = static_cast<int32_t>(o.block_rows);
        opt.block_size = static_cast<int32_t>(o.block_size);
        return k.ok(fe_graph_block_scale_dequantize(g, x, *scale, &opt, into), "fe_graph_block_scale_dequantize") &&
               k.ok(fe_tensor_set_data_type(*into, c.type), "fe_tensor_set_data_type");
    };
    if (c.a.dequantized && !dequantize(a, c.a, c.m, c.k, "scale_a", &scale_a, &ma)) return;
    if (c.b.dequantized && !dequantize(b, c.b, c.k, c.n, "scale_b", &scale_b, &mb)) return;
    fe_tensor *out = nullptr;
    if (!k.ok(fe_graph_matmul(g, ma, mb, nullptr, &out), "fe_graph_matmul")) return;
    if (!k.ok(fe_tensor_set_data_type(out, c.type), "fe_tensor_set_data_type")) return;
    if (!k.ok(fe_tensor_set_output(out, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;

    // Stored values in [-2, 2] (E4M3's and E5M2's steps included), scales in [0.25, 2].
    Bound &ba = k.input(a, -2.f, 2.f), &bb = k.input(b, -2.f, 2.f);
    Bound *bsa = scale_a ? &k.input(scale_a, 0.25f, 2.f) : nullptr;
    Bound *bsb = scale_b ? &k.input(scale_b, 0.25f, 2.f) : nullptr;
    Bound &bc = k.output(out);
    if (!k.execute()) return;

    std::vector<double> ref(static_cast<size_t>(c.batch * c.m * c.n), 0.0);
    std::vector<double> a_row(static_cast<size_t>(c.k));
    double largest = 0;
    for (int64_t z = 0; z < c.batch; ++z)
        for (int64_t i = 0; i < c.m; ++i) {
            for (int64_t x = 0; x < c.k; ++x) a_row[static_cast<size_t>(x)] = dequantized(c, c.a, ba, bsa, z, i, x);
            for (int64_t j = 0; j < c.n; ++j) {
                double acc = 0;
                for (int64_t x = 0; x < c.k; ++x) acc += a_row[static_cast<size_t>(x)] * dequantized(c, c.b, bb, bsb, z, x, j);
                ref[static_cast<size_t>((z * c.m + i) * c.n + j)] = acc;
                largest = std::max(largest, std::fabs(acc));
            }
        }
    // Sums of K products of values up to 4 in size: the half or bfloat16 result's rounding and
    // float accumulation, scaled by the typical size of a sum.
    const double spread = std::max(1.0, std::sqrt(static_cast<double>(c.k)) * 4.0 / 3.0);
    const bool half = c.type == FE_DATA_HALF;
    k.check("C", bc, ref, (half ? 1e-2 : 2e-2) * spread, 2e-2, half ? 1e-2 : 2.5e-2);
}

}  // namespace

void register_block_scale(std::vector<Family> &out) { out.push_back({"matmul_block_scale", 300, block_scale_case}); }

}  // namespace conformance
