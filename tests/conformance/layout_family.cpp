// The layout operations where cuDNN runs them, inside a fused graph: a slice of a graph input
// (any rank 2 to 4, any start and end, the input in any dim order with gaps) read by a pointwise
// ReLU, an add of a second tensor, or a matmul; a transpose (a random permutation) read by a
// ReLU; a reshape of a packed input (leading dims merged or split) read by a matmul as its A.
// fp16, bf16 and fp32. A layout operation on its own has no engine in cuDNN 9.19 (the capability
// table says so), so every case ends in another operation; a transpose that moves more than unit
// dims, and a reshape even into a matmul, have none either on a machine without a GPU: they are
// drawn less often, so that the suite records what the GPU says. Reference: the view computed on the CPU in double, then
// the operation after it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>

#include "dims.hpp"
#include "families.hpp"

namespace conformance {
namespace {

enum class Layout { slice, transpose, reshape };
enum class After { relu, add, matmul };

struct LayoutConfig {
    fe_data_type type = FE_DATA_HALF;
    Layout layout = Layout::slice;
    After after = After::relu;
    Dims x;                     // the graph input's dims
    std::vector<size_t> order;  // x's dims, outermost first
    Dims gaps;                  // extra elements after each dim's extent
    Dims start, end;            // slice
    Dims perm;                  // transpose: y's dim k is x's dim perm[k]
    Dims view;                  // the layout operation's result dims
    int64_t n = 0;              // matmul: the columns of B
};

const char *type_name(fe_data_type t) { return t == FE_DATA_HALF ? "fp16" : t == FE_DATA_BFLOAT16 ? "bf16" : "fp32"; }

// Dims of rank 2 to 4 whose element count stays small enough for a CPU reference.
Dims draw_dims(Rng &rng, size_t rank) {
    Dims d(rank);
    for (int64_t &v : d) v = rng.size(1, rank <= 2 ? 96 : 24);
    return d;
}

// A reshape of packed dims for a matmul's A: the last dim (K) kept, the others merged down to
// rank 2 or 3 (a batch and the rows), or a leading dim split in two.
Dims reshaped(Rng &rng, const Dims &x) {
    Dims out = x;
    const size_t rank = rng.chance(0.5) ? 2 : 3;
    while (out.size() > rank) {
        size_t i = static_cast<size_t>(rng.range(0, static_cast<int64_t>(out.size()) - 3));
        out[i] *= out[i + 1];
        out.erase(out.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    }
    if (out.size() == 2 && x.size() == 2 && out[0] >= 4) {
        std::vector<int64_t> factors;
        for (int64_t f = 2; f < out[0]; ++f)
            if (out[0] % f == 0) factors.push_back(f);
        if (!factors.empty()) {
            const int64_t f = rng.pick(factors);
            out = {f, out[0] / f, out[1]};
        }
    }
    return out;
}

LayoutConfig draw(Rng &rng) {
    LayoutConfig c;
    double t = rng.uniform(0, 1);
    c.type = t < 0.4 ? FE_DATA_HALF : t < 0.8 ? FE_DATA_BFLOAT16 : FE_DATA_FLOAT;
    double l = rng.uniform(0, 1);
    c.layout = l < 0.6 ? Layout::slice : l < 0.8 ? Layout::transpose : Layout::reshape;
    const size_t rank = static_cast<size_t>(rng.range(2, 4));
    c.x = draw_dims(rng, rank);
    // A reshape feeds a matmul, whose K (x's last dim) a half or bfloat16 operand widened into
    // float math needs in multiples of 16.
    if (c.layout == Layout::reshape) c.x.back() = 16 * rng.size(1, rank <= 2 ? 8 : 4);
    c.order.resize(rank);
    std::iota(c.order.begin(), c.order.end(), size_t{0});
    c.gaps.assign(rank, 0);
    if (c.layout == Layout::slice) {
        // The input in any dim order, now and then with gaps; a start and an end in every dim.
        if (rng.chance(0.3)) std::shuffle(c.order.begin(), c.order.end(), rng.engine());
        if (rng.chance(0.2)) c.gaps[static_cast<size_t>(rng.range(0, static_cast<int64_t>(rank) - 1))] = rng.range(1, 8);
        for (int64_t d : c.x) {
            int64_t a = rng.range(0, d - 1), b = rng.range(a + 1, d);
            c.start.push_back(a);
            c.end.push_back(b);
            c.view.push_back(b - a);
        }
        // A matmul reads the slice as A when it is of rank 2 or 3 (cuDNN 9.19 has no engine for
        // rank-4 matmuls).
        double a = rng.uniform(0, 1);
        c.after = a < 0.4 ? After::relu : a < 0.7 || rank == 4 ? After::add : After::matmul;
    } else if (c.layout == Layout::transpose) {
        c.perm.resize(rank);
        std::iota(c.perm.begin(), c.perm.end(), int64_t{0});
        std::shuffle(c.perm.begin(), c.perm.end(), rng.engine());
        for (int64_t p : c.perm) c.view.push_back(c.x[static_cast<size_t>(p)]);
        c.after = After::relu;
    } else {
        c.view = reshaped(rng, c.x);
        c.after = After::matmul;
    }
    // B's rows are n apart: a multiple of 16, as for K.
    if (c.after == After::matmul) c.n = 16 * rng.size(1, 4);
    return c;
}

std::string describe(const LayoutConfig &c) {
    static const char *const layouts[] = {"slice", "transpose", "reshape"};
    static const char *const afters[] = {"relu", "add", "matmul"};
    std::string s = std::string(type_name(c.type)) + " " + layouts[static_cast<int>(c.layout)] + " x=" + list(c.x);
    bool reordered = false;
    for (size_t i = 0; i < c.order.size(); ++i) reordered |= c.order[i] != i;
    if (reordered) {
        Dims order(c.order.begin(), c.order.end());
        s += " x_order=" + list(order);
    }
    if (std::any_of(c.gaps.begin(), c.gaps.end(), [](int64_t g) { return g != 0; })) s += " x_gaps=" + list(c.gaps);
    if (c.layout == Layout::slice) s += " start=" + list(c.start) + " end=" + list(c.end);
    if (c.layout == Layout::transpose) s += " perm=" + list(c.perm);
    s += " view=" + list(c.view) + " then=" + afters[static_cast<int>(c.after)];
    if (c.after == After::matmul) s += " n=" + std::to_string(c.n);
    return s;
}

// Packed row-major strides.
Dims row_major(const Dims &dims) {
    std::vector<size_t> order(dims.size());
    std::iota(order.begin(), order.end(), size_t{0});
    return strides_in_order(dims, order, Dims(dims.size(), 0));
}

// The layout operation's result, row-major over c.view, from x's bound values.
std::vector<double> view_values(const LayoutConfig &c, const Bound &x) {
    std::vector<double> out;
    out.reserve(static_cast<size_t>(product(c.view)));
    if (c.layout == Layout::reshape) return logical(x);  // x is packed: the same elements in order
    for_each_index(c.view, [&](const Dims &index) {
        Dims at(c.x.size());
        for (size_t d = 0; d < at.size(); ++d) {
            if (c.layout == Layout::slice)
                at[d] = c.start[d] + index[d];
            else
                at[static_cast<size_t>(c.perm[d])] = index[d];
        }
        out.push_back(x.at(at));
    });
    return out;
}

void layout_case(Case &k) {
    LayoutConfig c = draw(k.rng);
    k.describe(describe(c));
    if (!k.graph(c.type)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.tensor("x", c.x, strides_in_order(c.x, c.order, c.gaps));
    if (!x) return;
    fe_tensor *view = nullptr;
    const size_t rank = c.x.size();
    if (c.layout == Layout::slice) {
        if (!k.ok(fe_graph_slice(g, x, rank, c.start.data(), c.end.data(), nullptr, &view), "fe_graph_slice")) return;
    } else if (c.layout == Layout::transpose) {
        if (!k.ok(fe_graph_transpose(g, x, rank, c.perm.data(), nullptr, &view), "fe_graph_transpose")) return;
    } else {
        if (!k.ok(fe_graph_reshape(g, x, c.view.size(), c.view.data(), nullptr, &view), "fe_graph_reshape")) return;
    }
    // matmul: the view as A, [..., M, K], times B [..., K, n] with B's batch dims of 1.
    const int64_t m = c.view[c.view.size() - 2], kk = c.view.back();
    int64_t batch = 1;
    for (size_t d = 0; d + 2 < c.view.size(); ++d) batch *= c.view[d];
    fe_tensor *other = nullptr, *y = nullptr;
    if (c.after == After::relu) {
        if (!k.ok(fe_graph_relu(g, view, nullptr, &y), "fe_graph_relu")) return;
    } else if (c.after == After::add) {
        other = k.tensor("other", c.view, row_major(c.view));
        if (!other || !k.ok(fe_graph_add(g, view, other, nullptr, &y), "fe_graph_add")) return;
    } else {
        Dims b_dims(c.view.size(), 1);
        b_dims[b_dims.size() - 2] = kk;
        b_dims.back() = c.n;
        other = k.tensor("b", b_dims, row_major(b_dims));
        if (!other || !k.ok(fe_graph_matmul(g, view, other, nullptr, &y), "fe_graph_matmul")) return;
    }
    if (!k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;

    Bound &bx = k.input(x);
    Bound *bo = other ? &k.input(other) : nullptr;
    Bound &by = k.output(y);
    if (!k.execute()) return;

    const std::vector<double> v = view_values(c, bx);
    std::vector<double> ref;
    if (c.after == After::relu) {
        for (double e : v) ref.push_back(e > 0 ? e : 0);
        k.check("y", by, ref, 0, 0, 1e-6);  // a copy and a max: exact
        return;
    }
    const std::vector<double> o = logical(*bo);
    if (c.after == After::add) {
        for (size_t i = 0; i < v.size(); ++i) ref.push_back(v[i] + o[i]);
        const double eps = c.type == FE_DATA_FLOAT ? 1e-6 : c.type == FE_DATA_HALF ? 1e-3 : 8e-3;
        k.check("y", by, ref, eps, eps, eps);
        return;
    }
    ref.assign(static_cast<size_t>(batch * m * c.n), 0.0);
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < c.n; ++j) {
                double acc = 0;
                for (int64_t e = 0; e < kk; ++e)
                    acc += v[static_cast<size_t>((b * m + i) * kk + e)] * o[static_cast<size_t>(e * c.n + j)];
                ref[static_cast<size_t>((b * m + i) * c.n + j)] = acc;
            }
    // A K-long dot product of uniform(-1, 1) values is about sqrt(K) / 3; float may run in TF32.
    const double atol = (c.type == FE_DATA_FLOAT ? 2e-3 : 1e-3) * std::sqrt(static_cast<double>(kk));
    k.check("y", by, ref, atol, 2e-2, c.type == FE_DATA_BFLOAT16 ? 2.5e-2 : 1e-2);
}

}  // namespace

void register_layout(std::vector<Family> &out) { out.push_back({"layout", 300, layout_case}); }

}  // namespace conformance
