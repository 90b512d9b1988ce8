// fe_graph_softmax where cuDNN runs it, between two matmuls: O = softmax(scale * Q.K^T) V, the
// scale a scalar passed by value (now and then left out), the log-sum-exp statistics now and
// then an output. fp16 and bf16; b and h to 4, s_q and s_kv 1 to 256, d and d_v multiples of 8
// to 128; K stored [b, h, s_kv, d] and read transposed, or stored [b, h, d, s_kv]. The
// probabilities enter the second matmul in the io type (as on the GPU). Reference: in double on
// the CPU, P rounded to the io type.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "dims.hpp"
#include "families.hpp"

namespace conformance {
namespace {

struct SoftmaxConfig {
    fe_data_type type = FE_DATA_HALF;
    int64_t b = 1, h = 1, s_q = 1, s_kv = 1, d = 8, d_v = 8;
    bool k_stored_transposed = false;  // K as [b, h, d, s_kv] in memory
    bool scaled = true;
    double scale = 1.0;
    bool stats = false;
};

SoftmaxConfig draw(Rng &rng) {
    SoftmaxConfig c;
    c.type = rng.chance(0.5) ? FE_DATA_HALF : FE_DATA_BFLOAT16;
    c.b = rng.range(1, 4);
    c.h = rng.range(1, 4);
    c.s_q = rng.size(1, 256);
    c.s_kv = rng.size(1, 256);
    c.d = 8 * rng.size(1, 16);
    c.d_v = rng.chance(0.7) ? c.d : 8 * rng.size(1, 16);
    c.k_stored_transposed = rng.chance(0.3);
    c.scaled = rng.chance(0.8);
    c.scale = 1.0 / std::sqrt(static_cast<double>(c.d)) * (rng.chance(0.8) ? 1.0 : rng.uniform(0.5, 2));
    c.stats = rng.chance(0.8);  // cuDNN's engines match the attention pattern with the statistics
    return c;
}

std::string describe(const SoftmaxConfig &c) {
    char text[256];
    std::snprintf(text, sizeof text, "%s b=%lld h=%lld s=%lld/%lld d=%lld/%lld k=%s", c.type == FE_DATA_HALF ? "fp16" : "bf16",
                  static_cast<long long>(c.b), static_cast<long long>(c.h), static_cast<long long>(c.s_q),
                  static_cast<long long>(c.s_kv), static_cast<long long>(c.d), static_cast<long long>(c.d_v),
                  c.k_stored_transposed ? "[b,h,d,s]" : "[b,h,s,d]^T");
    std::string s = text;
    if (c.scaled) s += " scale=" + std::to_string(c.scale);
    if (c.stats) s += " stats";
    return s;
}

void softmax_case(Case &k) {
    SoftmaxConfig c = draw(k.rng);
    k.describe(describe(c));
    if (!k.graph(c.type)) return;
    fe_graph *g = k.graph_handle();
    const int64_t b = c.b, h = c.h, sq = c.s_q, skv = c.s_kv, d = c.d, dv = c.d_v;
    fe_tensor *q = k.tensor("q", {b, h, sq, d}, {h * sq * d, sq * d, d, 1});
    // K^T [b, h, d, s_kv]: K's memory [b, h, s_kv, d] read transposed, or K^T itself packed.
    Dims kt_strides = c.k_stored_transposed ? Dims{h * d * skv, d * skv, skv, 1} : Dims{h * skv * d, skv * d, 1, d};
    fe_tensor *kt = k.tensor("k_t", {b, h, d, skv}, kt_strides);
    fe_tensor *v = k.tensor("v", {b, h, skv, dv}, {h * skv * dv, skv * dv, dv, 1});
    if (!q || !kt || !v) return;
    fe_tensor *scores = nullptr, *scaled = nullptr, *p = nullptr, *stats = nullptr, *o = nullptr, *scale = nullptr;
    if (!k.ok(fe_graph_matmul(g, q, kt, nullptr, &scores), "fe_graph_matmul")) return;
    scaled = scores;
    if (c.scaled) {
        if (!k.ok(fe_graph_scalar(g, "scale", c.scale, FE_DATA_FLOAT, &scale), "fe_graph_scalar") ||
            !k.ok(fe_graph_scale(g, scores, scale, nullptr, &scaled), "fe_graph_scale"))
            return;
    }
    fe_softmax_options so = FE_SOFTMAX_OPTIONS_INIT;
    so.generate_stats = c.stats ? 1 : 0;
    if (!k.ok(fe_graph_softmax(g, scaled, &so, &p, c.stats ? &stats : nullptr), "fe_graph_softmax") ||
        !k.ok(fe_tensor_set_data_type(p, c.type), "fe_tensor_set_data_type") ||
        !k.ok(fe_graph_matmul(g, p, v, nullptr, &o), "fe_graph_matmul") ||
        !k.ok(fe_tensor_set_output(o, 1), "fe_tensor_set_output") ||
        (stats && !k.ok(fe_tensor_set_output(stats, 1), "fe_tensor_set_output")))
        return;
    if (!k.build()) return;

    Bound &bq = k.input(q), &bk = k.input(kt), &bv = k.input(v);
    Bound &bo = k.output(o);
    Bound *bs = stats ? &k.output(stats) : nullptr;
    if (!k.execute()) return;

    std::vector<double> want_o, want_stats, row(static_cast<size_t>(skv));
    for (int64_t n = 0; n < b; ++n)
        for (int64_t head = 0; head < h; ++head)
            for (int64_t i = 0; i < sq; ++i) {
                double max = -1e300, sum = 0;
                for (int64_t j = 0; j < skv; ++j) {
                    double dot = 0;
                    for (int64_t e = 0; e < d; ++e) dot += double(bq.at({n, head, i, e})) * double(bk.at({n, head, e, j}));
                    row[static_cast<size_t>(j)] = c.scaled ? dot * c.scale : dot;
                    max = std::max(max, row[static_cast<size_t>(j)]);
                }
                for (double &x : row) sum += std::exp(x - max);
                want_stats.push_back(max + std::log(sum));
                for (double &x : row) x = round_to(c.type, static_cast<float>(std::exp(x - max) / sum));
                for (int64_t e = 0; e < dv; ++e) {
                    double acc = 0;
                    for (int64_t j = 0; j < skv; ++j) acc += row[static_cast<size_t>(j)] * double(bv.at({n, head, j, e}));
                    want_o.push_back(acc);
                }
            }
    // The attention tolerances of the reference frontend's tests.
    k.check("o", bo, want_o, 2e-2, 2e-2, c.type == FE_DATA_HALF ? 5e-3 : 1e-2);
    if (bs) k.check("stats", *bs, want_stats, 1e-2, 1e-3, 1e-3);
}

}  // namespace

void register_softmax(std::vector<Family> &out) { out.push_back({"softmax", 200, softmax_case}); }

}  // namespace conformance
