#include "flops.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "json.hpp"

namespace tool {

namespace {

using Dims = std::vector<double>;
using TensorDims = std::map<std::string, Dims>;

double product(const Dims &d, size_t from = 0) {
    double p = 1;
    for (size_t i = from; i < d.size(); ++i) p *= d[i];
    return p;
}

// The dims of the tensor an op's port names: the port `name`, else the op's `fallback`-th entry.
Dims port(const Json &op, const char *group, const char *name, size_t fallback, const TensorDims &tensors) {
    const Json *ports = op.get(group);
    if (!ports || !ports->is_object()) return {};
    const Json *tensor = ports->get(name);
    if (!tensor && fallback < ports->fields.size()) tensor = &ports->fields[fallback].second;
    if (!tensor || !tensor->is_string()) return {};
    auto it = tensors.find(tensor->text);
    return it == tensors.end() ? Dims() : it->second;
}

double number_attribute(const Json &op, const char *key) {
    const Json *attributes = op.get("attributes");
    const Json *v = attributes ? attributes->get(key) : nullptr;
    return v && v->is_number() ? v->number : 0;
}

std::string string_attribute(const Json &op, const char *key) {
    const Json *attributes = op.get("attributes");
    const Json *v = attributes ? attributes->get(key) : nullptr;
    return v && v->is_string() ? v->text : "";
}

// Query-key pairs attention computes: s_q * s_kv, less what a causal mask or a sliding window
// leaves out (row i of a top-left causal mask sees keys 0..i; bottom-right aligns the diagonal
// with the last key).
double attended_pairs(const Json &op, double s_q, double s_kv) {
    std::string mask = string_attribute(op, "causal_mask");
    double window = number_attribute(op, "sliding_window");
    if ((mask.empty() || mask == "none") && window <= 0) return s_q * s_kv;
    double shift = mask == "bottom_right" ? s_kv - s_q : 0, pairs = 0;
    for (double i = 0; i < s_q; ++i) {
        double seen = mask == "top_left" || mask == "bottom_right" ? std::min(s_kv, std::max(0.0, i + 1 + shift)) : s_kv;
        if (window > 0) seen = std::min(seen, window);
        pairs += seen;
    }
    return pairs;
}

double attention_flops(const Json &op, const TensorDims &tensors) {
    Dims q = port(op, "inputs", "Q", 0, tensors), k = port(op, "inputs", "K", 1, tensors),
         v = port(op, "inputs", "V", 2, tensors);
    if (q.size() != 4 || k.size() != 4 || v.size() != 4) return 0;
    double s_kv = k[2];
    if (number_attribute(op, "max_seq_len_kv") > 0) s_kv = number_attribute(op, "max_seq_len_kv");  // paged K/V
    // Q K^T and P V: two multiply-adds per pair and head dimension.
    return 2 * q[0] * q[1] * attended_pairs(op, q[2], s_kv) * (q[3] + v[3]);
}

double op_flops(const Json &op, const TensorDims &tensors) {
    const Json *kind_value = op.get("op");
    if (!kind_value || !kind_value->is_string()) return 0;
    const std::string &kind = kind_value->text;
    if (kind == "matmul" || kind == "matmul_fp8") {
        Dims a = port(op, "inputs", "A", 0, tensors), c = port(op, "outputs", "C", 0, tensors);
        return a.empty() || c.empty() ? 0 : 2 * product(c) * a.back();
    }
    if (kind == "conv_fprop") {
        Dims w = port(op, "inputs", "weight", 1, tensors), y = port(op, "outputs", "Y", 0, tensors);
        return w.empty() ? 0 : 2 * product(y) * product(w, 1);
    }
    if (kind == "conv_dgrad" || kind == "conv_transpose") {
        // The same products as the forward convolution whose gradient it is.
        Dims w = port(op, "inputs", "weight", 1, tensors), dy = port(op, "inputs", "loss", 0, tensors);
        return w.empty() ? 0 : 2 * product(dy) * product(w, 1);
    }
    if (kind == "conv_wgrad") {
        Dims dy = port(op, "inputs", "loss", 1, tensors), dw = port(op, "outputs", "DW", 0, tensors);
        return dw.empty() ? 0 : 2 * product(dy) * product(dw, 1);
    }
    if (kind == "sdpa" || kind == "sdpa_fp8") return attention_flops(op, tensors);
    // Backward: five matmuls (S recomputed, dV, dP, dQ, dK) for the forward's two.
    if (kind == "sdpa_backward" || kind == "sdpa_fp8_backward") return 2.5 * attention_flops(op, tensors);
    return 0;
}

}  // namespace

double graph_flops(const std::string &graph_json) {
    Json graph;
    std::string error;
    if (!parse_json(graph_json, graph, error) || !graph.is_object()) return 0;
    TensorDims tensors;
    const Json *list = graph.get("tensors");
    for (size_t i = 0; list && list->is_array() && i < list->items.size(); ++i) {
        const Json &t = list->items[i];
        const Json *name = t.get("name"), *dims = t.get("dims");
        if (!name || !name->is_string() || !dims || !dims->is_array()) continue;
        Dims d;
        for (const Json &x : dims->items) d.push_back(x.number);
        tensors[name->text] = d;
    }
    double total = 0;
    const Json *ops = graph.get("ops");
    for (size_t i = 0; ops && ops->is_array() && i < ops->items.size(); ++i) total += op_flops(ops->items[i], tensors);
    return total;
}

}  // namespace tool
