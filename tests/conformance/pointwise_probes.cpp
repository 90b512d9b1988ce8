// Probes of the pointwise entries: pinned forms of a select on a condition computed in the graph,
// broadcast along one dim of the result or of its shape, and of a gelu of a product over a rank-3
// tensor with one dim longer than one, strided, to tell which forms cuDNN gets right.
#include <cmath>

#include "dims.hpp"
#include "probes.hpp"

namespace conformance {

namespace {

// The value of an operand broadcast to a result's logical index.
double value_at(const Bound &b, const std::vector<int64_t> &index) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d)
        if (b.dims[d] > 1) offset += index[d] * b.strides[d];
    return b.host[static_cast<size_t>(offset)];
}

// y = select(x, z, a < b): x of `dims`, z of `z_dims`; a and b of their own dims, compared in the
// graph (each broadcast to the result's shape).
void select_on_comparison(Case &k, const std::vector<int64_t> &dims, const std::vector<int64_t> &a_dims,
                          const std::vector<int64_t> &b_dims, const std::vector<int64_t> &z_dims) {
    if (!k.graph(FE_DATA_FLOAT)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.packed("x", dims), *z = k.packed("z", z_dims);
    fe_tensor *a = k.packed("a", a_dims), *b = k.packed("b", b_dims);
    if (!x || !z || !a || !b) return;
    fe_tensor *less = nullptr, *y = nullptr;
    if (!k.ok(fe_graph_pointwise(g, FE_POINTWISE_CMP_LT, a, b, nullptr, nullptr, &less), "fe_graph_pointwise")) return;
    if (!k.ok(fe_tensor_set_data_type(less, FE_DATA_BOOLEAN), "fe_tensor_set_data_type")) return;
    if (!k.ok(fe_graph_pointwise(g, FE_POINTWISE_BINARY_SELECT, x, z, less, nullptr, &y), "fe_graph_pointwise")) return;
    if (!k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;
    Bound &bx = k.input(x), &bz = k.input(z), &ba = k.input(a), &bb = k.input(b);
    Bound &by = k.output(y);
    if (!k.execute()) return;
    std::vector<double> ref;
    for_each_index(dims, [&](const std::vector<int64_t> &index) {
        ref.push_back(value_at(ba, index) < value_at(bb, index) ? value_at(bx, index)
                                                                         : value_at(bz, index));
    });
    k.check("Y", by, ref, 1e-6, 0, 1e-6);
}

// y = gelu(x0 * x1) over float tensors of `dims`, x0 with `x0_strides`, x1 and y packed (gelu
// alone when `product` is false).
void gelu_of_product(Case &k, const std::vector<int64_t> &dims, const std::vector<int64_t> &x0_strides,
                     bool product = true) {
    if (!k.graph(FE_DATA_FLOAT)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x0 = k.tensor("x0", dims, x0_strides), *x1 = product ? k.packed("x1", dims) : nullptr;
    if (!x0 || (product && !x1)) return;
    fe_tensor *mul = x0, *y = nullptr;
    if (product && !k.ok(fe_graph_pointwise(g, FE_POINTWISE_MUL, x0, x1, nullptr, nullptr, &mul), "fe_graph_pointwise"))
        return;
    if (!k.ok(fe_graph_pointwise(g, FE_POINTWISE_GELU_FWD, mul, nullptr, nullptr, nullptr, &y), "fe_graph_pointwise"))
        return;
    if (!k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;
    Bound &b0 = k.input(x0, -3, 3);
    Bound *b1 = product ? &k.input(x1, -2, 2) : nullptr;
    Bound &by = k.output(y);
    if (!k.execute()) return;
    std::vector<double> ref;
    for_each_index(dims, [&](const std::vector<int64_t> &index) {
        double v = value_at(b0, index) * (b1 ? value_at(*b1, index) : 1.0);
        ref.push_back(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
    });
    k.check("Y", by, ref, 1e-5, 0, 1e-5);
}

}  // namespace

void select_on_comparison(Case &k, const std::vector<int64_t> &dims, const std::vector<int64_t> &condition_dims) {
    select_on_comparison(k, dims, condition_dims, condition_dims, dims);
}

void register_pointwise_probes(std::vector<Probe> &out) {
    out.push_back({"pointwise_select_condition_broadcast:rank3_outer",
                   "float select of two [21, 32, 32] on the comparison of two [1, 32, 32]",
                   [](Case &k) { select_on_comparison(k, {21, 32, 32}, {1, 32, 32}); }});
    out.push_back({"pointwise_select_condition_broadcast:rank3_middle",
                   "float select of two [21, 32, 32] on the comparison of two [21, 1, 32]",
                   [](Case &k) { select_on_comparison(k, {21, 32, 32}, {21, 1, 32}); }});
    out.push_back({"pointwise_select_condition_broadcast:rank2_outer",
                   "float select of two [7, 16] on the comparison of two [1, 16]",
                   [](Case &k) { select_on_comparison(k, {7, 16}, {1, 16}); }});
    out.push_back({"pointwise_select_condition_broadcast:rank3_full",
                   "float select of two [21, 32, 32] on the comparison of two [21, 32, 32] (no broadcast)",
                   [](Case &k) { select_on_comparison(k, {21, 32, 32}, {21, 32, 32}); }});
    out.push_back({"pointwise_select_condition_broadcast:mixed_comparison",
                   "float select of two [21, 32, 32] on the comparison of a [1, 1, 32] and a [1, 32, 32]",
                   [](Case &k) { select_on_comparison(k, {21, 32, 32}, {1, 1, 32}, {1, 32, 32}, {21, 32, 32}); }});
    out.push_back({"pointwise_select_condition_broadcast:broadcast_side",
                   "float select of a [21, 32, 32] and a [21, 1, 32] on the comparison of two [1, 32, 32]",
                   [](Case &k) { select_on_comparison(k, {21, 32, 32}, {1, 32, 32}, {1, 32, 32}, {21, 1, 32}); }});
    out.push_back({"pointwise_select_condition_broadcast:both",
                   "float select of a [21, 32, 32] and a [21, 1, 32] on the comparison of a [1, 1, 32] and a "
                   "[1, 32, 32]",
                   [](Case &k) { select_on_comparison(k, {21, 32, 32}, {1, 1, 32}, {1, 32, 32}, {21, 1, 32}); }});
    out.push_back({"pointwise_select_condition_broadcast:rank2_broadcast_side",
                   "float select of a [7, 16] and a [1, 16] on the comparison of two [1, 16]",
                   [](Case &k) { select_on_comparison(k, {7, 16}, {1, 16}, {1, 16}, {1, 16}); }});
    // Seed 62 case 70 of the pointwise family, pinned: x0 [1, 1, 103] laid out dim 0 innermost with
    // a gap of 8 after it (strides [1, 927, 9]), and its forms with one thing changed.
    const char *strided = "pointwise_rank3_strided_row";
    out.push_back({strided, "float gelu(x0 * x1), [1, 1, 103], x0 strides [1, 927, 9] (dim 0 innermost, a gap "
                            "of 8), x1 and y packed",
                   [](Case &k) { gelu_of_product(k, {1, 1, 103}, {1, 927, 9}); }});
    out.push_back({"pointwise_rank3_strided_row:unit_strides_outer",
                   "float gelu(x0 * x1), [1, 1, 103], x0 strides [927, 927, 9] (the same memory, unit dims "
                   "outermost)",
                   [](Case &k) { gelu_of_product(k, {1, 1, 103}, {927, 927, 9}); }});
    out.push_back({"pointwise_rank3_strided_row:unit_stride_one",
                   "float gelu(x0 * x1), [1, 1, 103], x0 strides [927, 1, 9]",
                   [](Case &k) { gelu_of_product(k, {1, 1, 103}, {927, 1, 9}); }});
    out.push_back({"pointwise_rank3_strided_row:packed",
                   "float gelu(x0 * x1), [1, 1, 103], x0 packed (strides [103, 103, 1])",
                   [](Case &k) { gelu_of_product(k, {1, 1, 103}, {103, 103, 1}); }});
    out.push_back({"pointwise_rank3_strided_row:gelu_alone",
                   "float gelu(x0), [1, 1, 103], x0 strides [1, 927, 9]",
                   [](Case &k) { gelu_of_product(k, {1, 1, 103}, {1, 927, 9}, false); }});
    out.push_back({"pointwise_rank3_strided_row:rank_2",
                   "float gelu(x0 * x1), [1, 103], x0 strides [1, 9]",
                   [](Case &k) { gelu_of_product(k, {1, 103}, {1, 9}); }});
    out.push_back({"pointwise_rank3_strided_row:two_rows",
                   "float gelu(x0 * x1), [1, 2, 103], x0 strides [1, 927, 9]",
                   [](Case &k) { gelu_of_product(k, {1, 2, 103}, {1, 927, 9}); }});
    out.push_back({"pointwise_rank3_strided_row:stride_2",
                   "float gelu(x0 * x1), [1, 1, 103], x0 strides [1, 206, 2]",
                   [](Case &k) { gelu_of_product(k, {1, 1, 103}, {1, 206, 2}); }});
    out.push_back({"pointwise_rank3_strided_row:middle_row",
                   "float gelu(x0 * x1), [1, 103, 1], x0 strides [1, 9, 927]",
                   [](Case &k) { gelu_of_product(k, {1, 103, 1}, {1, 9, 927}); }});
    out.push_back({"pointwise_rank3_strided_row:wide_rows",
                   "float gelu(x0 * x1), [4, 1, 103], x0 strides [1, 3708, 36] (dim 0 innermost over 4)",
                   [](Case &k) { gelu_of_product(k, {4, 1, 103}, {1, 3708, 36}); }});
}

}  // namespace conformance
