// bn_finalize, batch normalization's statistics folded from genstats' sums: 1 to 512 channels,
// per-channel tensors of rank 3 to 5 ([1, C, 1, ...]), accum_count from 2 to a million values a
// channel, epsilon and momentum drawn over their ranges, each given as a number or (now and then)
// as a float scalar passed by value. The sums come from a drawn mean and variance per channel, as
// genstats would give them. Reference: the header's formulas in double on the CPU.
#include <cmath>
#include <cstdio>
#include <string>

#include "dims.hpp"
#include "families.hpp"

namespace conformance {
namespace {

struct FinalizeConfig {
    int64_t channels = 1, count = 1;
    size_t rank = 4;
    double epsilon = 1e-5, momentum = 0.1;
    bool epsilon_tensor = false, momentum_tensor = false;
};

FinalizeConfig draw(Rng &rng) {
    FinalizeConfig c;
    c.channels = rng.size(1, 512);
    c.rank = static_cast<size_t>(rng.range(3, 5));
    c.count = rng.size(2, 1 << 20);  // the unbiased variance divides by count - 1
    c.epsilon = rng.chance(0.5) ? 1e-5 : std::pow(10.0, rng.uniform(-7, -1));
    c.momentum = rng.chance(0.5) ? 0.1 : rng.uniform(0, 1);
    c.epsilon_tensor = rng.chance(0.2);
    c.momentum_tensor = rng.chance(0.2);
    return c;
}

std::string describe(const FinalizeConfig &c) {
    char text[256];
    std::snprintf(text, sizeof text, "fp32 C=%lld rank=%zu accum_count=%lld epsilon=%g%s momentum=%g%s",
                  static_cast<long long>(c.channels), c.rank, static_cast<long long>(c.count), c.epsilon,
                  c.epsilon_tensor ? "(scalar)" : "", c.momentum, c.momentum_tensor ? "(scalar)" : "");
    return text;
}

void bn_finalize_case(Case &k) {
    FinalizeConfig c = draw(k.rng);
    k.describe(describe(c));
    if (!k.graph(FE_DATA_FLOAT)) return;
    fe_graph *g = k.graph_handle();
    Dims dims(c.rank, 1);
    dims[1] = c.channels;
    std::vector<size_t> row_major(c.rank);
    for (size_t d = 0; d < c.rank; ++d) row_major[d] = d;
    const Dims packed = strides_in_order(dims, row_major, Dims(c.rank, 0));
    const char *names[6] = {"sum", "sq_sum", "scale", "bias", "running_mean", "running_var"};
    fe_tensor *in[6];
    for (int i = 0; i < 6; ++i)
        if (!(in[i] = k.tensor(names[i], dims, packed, FE_DATA_FLOAT))) return;
    fe_bn_finalize_options o = FE_BN_FINALIZE_OPTIONS_INIT;
    o.accum_count = c.count;
    o.epsilon = c.epsilon;
    o.momentum = c.momentum;
    if (c.epsilon_tensor && !k.ok(fe_graph_scalar(g, "epsilon", c.epsilon, FE_DATA_FLOAT, &o.epsilon_tensor), "fe_graph_scalar"))
        return;
    if (c.momentum_tensor &&
        !k.ok(fe_graph_scalar(g, "momentum", c.momentum, FE_DATA_FLOAT, &o.momentum_tensor), "fe_graph_scalar"))
        return;
    fe_tensor *out[6] = {};
    if (!k.ok(fe_graph_bn_finalize(g, in[0], in[1], in[2], in[3], in[4], in[5], &o, &out[0], &out[1], &out[2], &out[3],
                                   &out[4], &out[5]),
              "fe_graph_bn_finalize"))
        return;
    for (fe_tensor *t : out)
        if (!k.ok(fe_tensor_set_output(t, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;

    // Sums of `count` values a channel with a drawn mean and variance, as genstats gives them.
    std::vector<float> sum, sq_sum;
    for (int64_t ch = 0; ch < c.channels; ++ch) {
        const double mean = k.rng.uniform(-1, 1), var = k.rng.uniform(0.05, 2);
        sum.push_back(static_cast<float>(mean * static_cast<double>(c.count)));
        sq_sum.push_back(static_cast<float>((var + mean * mean) * static_cast<double>(c.count)));
    }
    Bound &bsum = k.input_values(in[0], sum), &bsq = k.input_values(in[1], sq_sum);
    Bound &bscale = k.input(in[2], 0.5f, 1.5f), &bbias = k.input(in[3]);
    Bound &brm = k.input(in[4]), &brv = k.input(in[5], 0.5f, 2.f);
    Bound *bout[6];
    for (int i = 0; i < 6; ++i) bout[i] = &k.output(out[i]);
    if (!k.execute()) return;

    // The same formulas as the header, from the values as stored (floats).
    const double n = static_cast<double>(c.count);
    std::vector<double> want[6];
    const std::vector<double> s = logical(bsum), q = logical(bsq), sc = logical(bscale), bi = logical(bbias),
                              rm = logical(brm), rv = logical(brv);
    for (size_t ch = 0; ch < s.size(); ++ch) {
        const double mean = s[ch] / n, var = q[ch] / n - mean * mean, inv = 1.0 / std::sqrt(var + c.epsilon);
        want[0].push_back(sc[ch] * inv);
        want[1].push_back(bi[ch] - mean * sc[ch] * inv);
        want[2].push_back(mean);
        want[3].push_back(inv);
        want[4].push_back((1 - c.momentum) * rm[ch] + c.momentum * mean);
        want[5].push_back((1 - c.momentum) * rv[ch] + c.momentum * var * n / (n - 1));
    }
    // float math over float sums: sq_sum / count - mean^2 loses bits as the mean grows against
    // the variance (relative 1e-6 of (var + mean^2) / var, with var at least 0.05).
    const char *what[6] = {"eq_scale", "eq_bias", "mean", "inv_variance", "next_running_mean", "next_running_var"};
    for (int i = 0; i < 6; ++i) k.check(what[i], *bout[i], want[i], 1e-4, 1e-4, 1e-4);
}

}  // namespace

void register_bn_finalize(std::vector<Family> &out) { out.push_back({"bn_finalize", 200, bn_finalize_case}); }

}  // namespace conformance
