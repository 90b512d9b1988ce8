// Normalizations, forward (inference and training, with the statistics) and backward (dx,
// dscale, dbias), over the options the API takes: layernorm, rmsnorm (with and without bias and
// its gradient), batchnorm (training with and without the running statistics' update, momentum
// and epsilon as numbers or scalars; the inference op from given statistics), instancenorm and
// adalayernorm (per-sample or shared scale and bias); zero-centred gamma where it applies;
// x of rank 2 to 5 (tokens x hidden, [b, s, hidden], [b, h, s, d], images NCHW, NCDHW and
// channels-last, any dim order, gaps), normalized dims chosen as suffixes and now and then as any
// subset; the single-row x [1, d]; fp16/bf16/fp32 x with float or x-typed scale and bias.
// Reference: double on the CPU (mean, population variance, inv_variance = 1/sqrt(var + eps);
// the backward from the standard formulas, with the statistics read as the GPU reads them).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "dims.hpp"
#include "families.hpp"
#include "norm_checks.hpp"

namespace conformance {
namespace {

enum class Kind { layer, rms, batch, instance, ada };
enum class Pass { inference, training, backward };

const char *kind_name(Kind k) {
    switch (k) {
    case Kind::layer: return "layernorm";
    case Kind::rms: return "rmsnorm";
    case Kind::batch: return "batchnorm";
    case Kind::instance: return "instancenorm";
    case Kind::ada: return "adalayernorm";
    }
    return "?";
}

const char *type_name(fe_data_type t) {
    return t == FE_DATA_HALF ? "fp16" : t == FE_DATA_BFLOAT16 ? "bf16" : "fp32";
}

// Row-major position of index in a tensor of dims that broadcasts (dims of 1 read index 0).
size_t flat(const Dims &dims, const Dims &index) {
    int64_t f = 0;
    for (size_t d = 0; d < dims.size(); ++d) f = f * dims[d] + (dims[d] == 1 ? 0 : index[d]);
    return static_cast<size_t>(f);
}

// A bound tensor read at x's index, broadcasting over its dims of 1.
double read(const Bound &b, const Dims &index) {
    int64_t o = 0;
    for (size_t d = 0; d < index.size(); ++d) o += (b.dims[d] == 1 ? 0 : index[d]) * b.strides[d];
    return b.host[static_cast<size_t>(o)];
}

// A layout: a dim order (outermost first) with gaps, and now and then odd strides on unit dims
// (never used to address memory, so any value is valid).
Dims draw_layout(Rng &rng, const Dims &dims, bool channels_last_usual) {
    const size_t r = dims.size();
    std::vector<size_t> order(r);
    for (size_t i = 0; i < r; ++i) order[i] = i;
    Dims gaps(r, 0);
    double pick = rng.uniform(0, 1);
    if (pick < (channels_last_usual ? 0.3 : 0.45)) {
        // packed row-major
    } else if (pick < (channels_last_usual ? 0.7 : 0.65)) {
        if (r >= 3) {  // channels-last: [0, 2, ..., r - 1, 1]
            order.assign(1, 0);
            for (size_t i = 2; i < r; ++i) order.push_back(i);
            order.push_back(1);
        }
    } else if (pick < 0.85) {
        std::shuffle(order.begin(), order.end(), rng.engine());
    }
    if (rng.chance(0.2))
        for (size_t i = 0; i < r; ++i)
            if (rng.chance(0.35)) gaps[i] = 8 * rng.range(1, 3);
    gaps[order.back()] = 0;  // the innermost dim has no gap after it
    Dims strides = strides_in_order(dims, order, gaps);
    for (size_t d = 0; d < r; ++d)
        if (dims[d] == 1 && rng.chance(0.2)) strides[d] = 2 * rng.range(0, 50) + 1;
    return strides;
}

struct NormConfig {
    Kind kind = Kind::layer;
    Pass pass = Pass::training;
    fe_data_type type = FE_DATA_HALF, param_type = FE_DATA_FLOAT;
    Dims x, scale, stats;
    Dims x_strides, dy_strides, scale_strides, stats_strides;
    int y_layout = 0;           // y (or dx): 0 inferred (packed in x's order), 1 packed row-major, 2 x's strides
    int epsilon_mode = 0;       // 0 default, 1 number, 2 scalar tensor
    double epsilon = 1e-5;
    bool zero_centered = false;
    bool bias = true;           // rmsnorm, adalayernorm: bias in the forward
    bool dbias = true;          // backward: the bias gradient asked for
    bool running = false;       // batchnorm training: running statistics
    int momentum_mode = 0;      // 0 default, 1 number, 2 scalar tensor
    double momentum = 0.1;
    bool bn_inference_op = false;  // batchnorm, inference: fe_graph_batchnorm_inference
    float x_lo = -1, x_hi = 1;
};

bool layer_like(Kind k) { return k == Kind::layer || k == Kind::rms || k == Kind::ada; }

// The dims a family's statistics have: x's with the normalized dims set to 1.
Dims stats_dims(const NormConfig &c) {
    Dims s = c.x;
    if (c.kind == Kind::batch) return c.scale;
    for (size_t i = 1; i < s.size(); ++i) {
        if (c.kind == Kind::instance)
            s[i] = i == 1 ? c.x[1] : 1;
        else if (c.scale[i] == c.x[i] && c.x[i] > 1)
            s[i] = 1;
    }
    return s;
}

// Shrinks the largest dims (not the normalized one that must stay > 1) until x fits the cap.
void cap_elements(Dims &x, int64_t cap, size_t keep) {
    while (product(x) > cap) {
        size_t largest = 0;
        for (size_t i = 0; i < x.size(); ++i)
            if (i != keep && x[i] > x[largest]) largest = i;
        if (largest == keep || x[largest] == 1) break;
        x[largest] = (x[largest] + 1) / 2;
    }
}

NormConfig draw(Rng &rng) {
    NormConfig c;
    double pick = rng.uniform(0, 1);
    c.kind = pick < 0.3 ? Kind::layer : pick < 0.58 ? Kind::rms : pick < 0.75 ? Kind::batch
                                                                                : pick < 0.87 ? Kind::instance : Kind::ada;
    double p = rng.uniform(0, 1);
    c.pass = p < 0.3 ? Pass::inference : p < 0.65 ? Pass::training : Pass::backward;
    c.bn_inference_op = c.kind == Kind::batch && c.pass == Pass::inference;
    c.type = rng.pick(std::vector<fe_data_type>{FE_DATA_HALF, FE_DATA_BFLOAT16, FE_DATA_FLOAT});
    c.param_type = rng.chance(0.75) ? FE_DATA_FLOAT : c.type;
    const int64_t cap = rng.chance(0.1) ? (int64_t{1} << 22) : (int64_t{1} << 18);

    if (layer_like(c.kind)) {
        const int64_t hidden = rng.chance(0.7) ? rng.pick(Dims{64, 96, 128, 256, 320, 512, 768, 1024, 1536, 2048, 4096})
                                               : rng.size(2, 1024);
        // AdaLN as diffusion transformers use it: x [b, s, d], scale [b or 1, 1, d].
        const bool dit = c.kind == Kind::ada && rng.chance(0.75);
        const double rank_pick = dit ? 0.5 : rng.uniform(0, 1);
        bool image = false;
        if (rank_pick < 0.4) {
            c.x = {rng.chance(0.08) ? 1 : rng.size(1, 2048), hidden};
        } else if (rank_pick < 0.8) {
            c.x = {rng.size(1, 8), rng.chance(0.05) ? 1 : rng.size(1, 256), hidden};
        } else if (rng.chance(0.5)) {
            c.x = {rng.size(1, 8), rng.size(1, 64), rng.size(1, 32), rng.size(1, 32)};
            image = true;
        } else {
            c.x = {rng.size(1, 4), rng.size(1, 16), rng.size(1, 128), hidden};
        }
        const size_t r = c.x.size();
        // Which dims (after the batch) are normalized: a suffix, now and then any subset.
        std::vector<char> normalized(r, 0);
        if (dit) {
            normalized[r - 1] = 1;
        } else if (rng.chance(0.12) && r > 2) {
            for (size_t i = 1; i < r; ++i) normalized[i] = rng.chance(0.5);
        } else {
            size_t k = image ? (rng.chance(0.7) ? r - 1 : static_cast<size_t>(rng.range(1, static_cast<int64_t>(r) - 1)))
                             : (rng.chance(0.7) ? 1 : static_cast<size_t>(rng.range(1, static_cast<int64_t>(r) - 1)));
            for (size_t i = r - k; i < r; ++i) normalized[i] = 1;
        }
        // At least one normalized dim larger than 1 (else the scale names nothing to normalize).
        size_t keep = r;
        for (size_t i = 1; i < r; ++i)
            if (normalized[i] && c.x[i] > 1) keep = i;
        if (keep == r) {
            keep = r - 1;
            normalized[keep] = 1;
            c.x[keep] = std::max<int64_t>(c.x[keep], 2);
        }
        cap_elements(c.x, cap, keep);
        c.scale.assign(r, 1);
        for (size_t i = 1; i < r; ++i)
            if (normalized[i]) c.scale[i] = c.x[i];
        if (c.kind == Kind::ada && rng.chance(0.7)) c.scale[0] = c.x[0];
    } else {
        const int64_t rank = rng.pick(Dims{3, 4, 4, 4, 5});
        const int64_t channels = rng.chance(0.6) ? 8 * rng.size(1, 32) : rng.size(1, 100);
        c.x = {rng.size(1, 16), channels};
        if (rank == 3) c.x.push_back(rng.size(1, 512));
        if (rank == 4)
            for (int i = 0; i < 2; ++i) c.x.push_back(rng.size(1, 32));
        if (rank == 5)
            for (int i = 0; i < 3; ++i) c.x.push_back(rng.size(1, 12));
        cap_elements(c.x, cap, 1);
        // Batchnorm over one value per channel has no variance (and no unbiased one):
        // PyTorch refuses it in training too.
        if (c.kind == Kind::batch && product(c.x) / c.x[1] < 2) c.x[0] = 2;
        // An instance of one pixel has zero variance: legal but degenerate; keep a few pixels.
        if (c.kind == Kind::instance && product(c.x) / (c.x[0] * c.x[1]) < 4) c.x[2] = std::max<int64_t>(c.x[2], 4);
        c.scale.assign(c.x.size(), 1);
        c.scale[1] = c.x[1];
    }
    c.stats = stats_dims(c);

    c.x_strides = draw_layout(rng, c.x, !layer_like(c.kind));
    c.dy_strides = rng.chance(0.85) ? c.x_strides : draw_layout(rng, c.x, !layer_like(c.kind));
    const std::vector<size_t> x_order = order_of(c.x, c.x_strides);
    std::vector<size_t> identity(c.x.size());
    for (size_t i = 0; i < identity.size(); ++i) identity[i] = i;
    c.scale_strides = strides_in_order(c.scale, rng.chance(0.5) ? x_order : identity, {});
    c.stats_strides = strides_in_order(c.stats, rng.chance(0.8) ? x_order : identity, {});
    // y (dx) strides set by the caller: packed row-major, or exactly x's where x has gaps or odd
    // strides on unit dims (cuDNN's norms want y laid out as x; the inferred layout is packed).
    if (c.x_strides != strides_in_order(c.x, x_order, {}) && rng.chance(0.5))
        c.y_layout = 2;
    else if (c.x_strides != strides_in_order(c.x, identity, {}) && rng.chance(0.08))
        c.y_layout = 1;

    // Epsilon: the default, a number (0 only where groups are large), or a scalar tensor.
    const int64_t group = product(c.x) / product(c.stats);
    double e = rng.uniform(0, 1);
    c.epsilon_mode = e < 0.35 ? 0 : e < 0.85 ? 1 : 2;
    if (c.epsilon_mode > 0) c.epsilon = std::exp(rng.uniform(std::log(1e-6), std::log(1e-2)));
    if (c.epsilon_mode == 1 && group >= 64 && rng.chance(0.05)) c.epsilon = 0;
    if (group < 32) c.epsilon = std::max(c.epsilon, 1e-5);  // few values: keep the variance off zero
    if (c.epsilon_mode == 0) c.epsilon = 1e-5;

    // Zero-centred gamma: layernorm and rmsnorm, when every dim after the first is normalized.
    bool rows_only = true;
    for (size_t i = 1; i < c.stats.size(); ++i) rows_only = rows_only && c.stats[i] == 1;
    c.zero_centered = (c.kind == Kind::layer || c.kind == Kind::rms) && rows_only && rng.chance(0.25);

    c.bias = c.kind == Kind::rms ? rng.chance(0.5) : c.kind == Kind::ada ? rng.chance(0.7) : true;
    c.dbias = c.kind == Kind::rms || c.kind == Kind::ada ? rng.chance(0.6) : true;
    if (c.kind == Kind::batch && c.pass == Pass::training) {
        c.running = rng.chance(0.6);
        if (c.running) {
            double m = rng.uniform(0, 1);
            c.momentum_mode = m < 0.3 ? 0 : m < 0.85 ? 1 : 2;
            if (c.momentum_mode > 0) c.momentum = rng.chance(0.1) ? rng.pick(std::vector<double>{0.0, 1.0}) : rng.uniform(0, 1);
        }
    }
    c.x_lo = static_cast<float>(rng.uniform(-2, 1));
    c.x_hi = c.x_lo + static_cast<float>(rng.uniform(1, 4));
    return c;
}

std::string describe(const NormConfig &c) {
    const bool bwd = c.pass == Pass::backward;
    std::string s = std::string(kind_name(c.kind)) +
                    (c.bn_inference_op ? " inference(op)" : c.pass == Pass::inference ? " inference"
                                                           : c.pass == Pass::training ? " training" : " backward");
    s += std::string(" ") + type_name(c.type) + " params=" + type_name(c.param_type);
    s += " x=" + list(c.x) + "/" + list(c.x_strides);
    if (bwd) s += " dy=" + list(c.dy_strides);
    s += " scale=" + list(c.scale) + "/" + list(c.scale_strides);
    s += " stats=" + list(c.stats) + "/" + list(c.stats_strides);
    if (c.y_layout) s += std::string(bwd ? " dx=" : " y=") + (c.y_layout == 1 ? "packed" : "like_x");
    char e[64];
    std::snprintf(e, sizeof e, " eps=%.3g%s", c.epsilon, c.epsilon_mode == 2 ? "(tensor)" : c.epsilon_mode == 0 ? "(default)" : "");
    if (!c.bn_inference_op) s += e;
    if (c.zero_centered) s += " zero_centered_gamma";
    if ((c.kind == Kind::rms || c.kind == Kind::ada) && !bwd) s += c.bias ? " bias" : " no_bias";
    if ((c.kind == Kind::rms || c.kind == Kind::ada) && bwd) s += c.dbias ? " dbias" : " no_dbias";
    if (c.running) {
        char m[64];
        std::snprintf(m, sizeof m, " running momentum=%.3g%s", c.momentum,
                      c.momentum_mode == 2 ? "(tensor)" : c.momentum_mode == 0 ? "(default)" : "");
        s += m;
    }
    char r[64];
    std::snprintf(r, sizeof r, " x_range=[%.2f,%.2f]", c.x_lo, c.x_hi);
    return s + r;
}

// Statistics in double over each group of the normalized dims.
struct Stats {
    std::vector<double> mean, var, inv;  // var: population (biased); rms: mean of squares
    std::vector<int64_t> count;
};

Stats forward_stats(const Bound &x, const Dims &stats, bool rms, double epsilon) {
    const size_t groups = static_cast<size_t>(product(stats));
    Stats s;
    s.mean.assign(groups, 0.0);
    s.var.assign(groups, 0.0);
    s.inv.assign(groups, 0.0);
    s.count.assign(groups, 0);
    for_each_index(x.dims, [&](const Dims &i) {
        size_t g = flat(stats, i);
        s.mean[g] += x.at(i);
        ++s.count[g];
    });
    for (size_t g = 0; g < groups; ++g) s.mean[g] /= static_cast<double>(s.count[g]);
    for_each_index(x.dims, [&](const Dims &i) {
        size_t g = flat(stats, i);
        double d = rms ? x.at(i) : x.at(i) - s.mean[g];
        s.var[g] += d * d;
    });
    for (size_t g = 0; g < groups; ++g) {
        s.var[g] /= static_cast<double>(s.count[g]);
        s.inv[g] = 1.0 / std::sqrt(s.var[g] + epsilon);
    }
    return s;
}

// Values for a tensor's memory (its span) from logical row-major values.
std::vector<float> to_memory(const Dims &dims, const Dims &strides, const std::vector<double> &values) {
    int64_t span = 1;
    for (size_t d = 0; d < dims.size(); ++d) span += (dims[d] - 1) * strides[d];
    std::vector<float> memory(static_cast<size_t>(span), 0.f);
    size_t e = 0;
    for_each_index(dims, [&](const Dims &i) {
        int64_t o = 0;
        for (size_t d = 0; d < dims.size(); ++d) o += i[d] * strides[d];
        memory[static_cast<size_t>(o)] = static_cast<float>(values[e++]);
    });
    return memory;
}

// Tolerances of a value written in type t (its rounding dominates for half and bfloat16).
double atol_for(fe_data_type t) { return t == FE_DATA_FLOAT ? 2e-3 : t == FE_DATA_HALF ? 2e-2 : 3e-2; }
double rtol_for(fe_data_type t) { return t == FE_DATA_FLOAT ? 2e-3 : 2e-2; }
double norm_for(fe_data_type t) { return t == FE_DATA_FLOAT ? 5e-4 : t == FE_DATA_HALF ? 5e-3 : 1.5e-2; }

// Float statistics computed in float on the GPU: close to the double reference.
void check_stats(Case &k, const char *what, const Bound &out, const std::vector<double> &ref) {
    k.check(what, out, ref, 1e-3, 1e-3, 1e-3);
}

// A pointwise epilogue on a norm forward's y in the same graph (the fused forms: batchnorm + add +
// ReLU, a layer norm times a gate, ...), applied in order.
enum class Epilogue { add_residual, relu, multiply_gate, scale };

std::vector<Epilogue> draw_epilogue(Rng &rng) {
    std::vector<Epilogue> steps;
    const int64_t n = rng.range(1, 3);
    for (int64_t i = 0; i < n; ++i)
        steps.push_back(rng.pick(std::vector<Epilogue>{Epilogue::add_residual, Epilogue::relu, Epilogue::multiply_gate,
                                                       Epilogue::scale}));
    return steps;
}

std::string describe_epilogue(const std::vector<Epilogue> &steps, double factor) {
    std::string text = " epilogue=";
    for (size_t i = 0; i < steps.size(); ++i) {
        const char *names[] = {"add(residual)", "relu", "mul(gate)", "scale"};
        text += (i ? "," : "") + std::string(names[static_cast<int>(steps[i])]);
        if (steps[i] == Epilogue::scale) text += "(" + std::to_string(factor).substr(0, 5) + ")";
    }
    return text;
}

// One norm case; `fused`: a forward with a drawn epilogue whose result is the output in y's place.
void norm_case(Case &k, bool fused) {
    NormConfig c = draw(k.rng);
    std::vector<Epilogue> epilogue;
    double factor = 1;
    if (fused) {
        // Forward only; batchnorm as training (cuDNN's fused batchnorm pattern).
        if (c.pass == Pass::backward || c.kind == Kind::batch) c.pass = Pass::training;
        c.bn_inference_op = false;
        epilogue = draw_epilogue(k.rng);
        factor = k.rng.uniform(0.25, 2);
    }
    // A residual add before a layer or RMS norm, its sum an output too (drawn after the rest, so
    // that earlier seeds draw the same configurations): in x's type, or bfloat16 for a float x.
    const bool prologue = fused && (c.kind == Kind::layer || c.kind == Kind::rms) && k.rng.chance(0.3);
    const fe_data_type sum_type = prologue && c.type == FE_DATA_FLOAT && k.rng.chance(0.5) ? FE_DATA_BFLOAT16 : c.type;
    k.describe(describe(c) + (prologue ? std::string(" prologue=add(residual_in) sum=") + type_name(sum_type) : "") +
               (fused ? describe_epilogue(epilogue, factor) : ""));
    if (!k.graph(c.type)) return;
    fe_graph *g = k.graph_handle();
    const bool bwd = c.pass == Pass::backward, training = c.pass == Pass::training;
    const bool rms = c.kind == Kind::rms;
    const bool has_bias = !bwd && c.bias;

    // With the prologue, the norm reads sum = a + residual_in; its reference reads the sum written.
    fe_tensor *a = nullptr, *residual_in = nullptr, *x = nullptr;
    if (prologue) {
        a = k.tensor("a", c.x, c.x_strides);
        residual_in = k.tensor("residual_in", c.x, c.x_strides);
        if (!a || !residual_in || !k.ok(fe_graph_add(g, a, residual_in, nullptr, &x), "fe_graph_add") ||
            !k.ok(fe_tensor_set_data_type(x, sum_type), "fe_tensor_set_data_type") ||
            !k.ok(fe_tensor_set_output(x, 1), "fe_tensor_set_output"))
            return;
    } else {
        x = k.tensor("x", c.x, c.x_strides);
    }
    fe_tensor *scale = k.tensor("scale", c.scale, c.scale_strides, c.param_type);
    fe_tensor *bias = has_bias ? k.tensor("bias", c.scale, c.scale_strides, c.param_type) : nullptr;
    fe_tensor *eps = nullptr, *momentum = nullptr;
    if (c.epsilon_mode == 2 && !bwd && !c.bn_inference_op &&
        !k.ok(fe_graph_scalar(g, "epsilon", c.epsilon, FE_DATA_FLOAT, &eps), "fe_graph_scalar"))
        return;
    if (c.momentum_mode == 2 && !k.ok(fe_graph_scalar(g, "momentum", c.momentum, FE_DATA_FLOAT, &momentum), "fe_graph_scalar"))
        return;
    fe_tensor *dy = bwd ? k.tensor("dy", c.x, c.dy_strides) : nullptr;
    // Statistics given as inputs: the backward's, and batchnorm inference's.
    fe_tensor *mean_in = nullptr, *inv_in = nullptr, *running_mean = nullptr, *running_var = nullptr;
    if ((bwd && !rms) || c.bn_inference_op) mean_in = k.tensor("mean", c.stats, c.stats_strides, FE_DATA_FLOAT);
    if (bwd || c.bn_inference_op)
        inv_in = k.tensor(rms ? "inv_rms" : "inv_variance", c.stats, c.stats_strides, FE_DATA_FLOAT);
    if (c.running) {
        running_mean = k.tensor("running_mean", c.stats, c.stats_strides, FE_DATA_FLOAT);
        running_var = k.tensor("running_var", c.stats, c.stats_strides, FE_DATA_FLOAT);
    }
    if (!x || !scale || (has_bias && !bias) || (bwd && !dy)) return;

    fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr, *next_mean = nullptr, *next_var = nullptr;
    fe_tensor *dx = nullptr, *dscale = nullptr, *dbias = nullptr;
    fe_norm_options o = FE_NORM_OPTIONS_INIT;
    o.phase = training ? FE_NORM_PHASE_TRAINING : FE_NORM_PHASE_INFERENCE;
    if (c.epsilon_mode == 1) o.epsilon = c.epsilon;
    o.epsilon_tensor = eps;
    o.zero_centered_gamma = c.zero_centered;
    fe_norm_backward_options bo = FE_NORM_BACKWARD_OPTIONS_INIT;
    bo.zero_centered_gamma = c.zero_centered;
    fe_tensor **want_dbias = c.dbias ? &dbias : nullptr;
    fe_status s = FE_OK;
    const char *call = "";
    if (c.kind == Kind::batch) {
        if (c.bn_inference_op) {
            fe_batchnorm_inference_options io = FE_BATCHNORM_INFERENCE_OPTIONS_INIT;
            call = "fe_graph_batchnorm_inference";
            s = fe_graph_batchnorm_inference(g, x, mean_in, inv_in, scale, bias, &io, &y);
        } else if (bwd) {
            call = "fe_graph_batchnorm_backward";
            s = fe_graph_batchnorm_backward(g, dy, x, scale, mean_in, inv_in, &bo, &dx, &dscale, &dbias);
        } else {
            fe_batchnorm_options bn = FE_BATCHNORM_OPTIONS_INIT;
            if (c.epsilon_mode == 1) bn.epsilon = c.epsilon;
            bn.epsilon_tensor = eps;
            bn.running_mean = running_mean;
            bn.running_var = running_var;
            if (c.momentum_mode == 1) bn.momentum = c.momentum;
            bn.momentum_tensor = momentum;
            call = "fe_graph_batchnorm";
            s = fe_graph_batchnorm(g, x, scale, bias, &bn, &y, &mean, &inv, &next_mean, &next_var);
        }
    } else if (bwd) {
        switch (c.kind) {
        case Kind::layer:
            call = "fe_graph_layernorm_backward";
            s = fe_graph_layernorm_backward(g, dy, x, scale, mean_in, inv_in, &bo, &dx, &dscale, &dbias);
            break;
        case Kind::rms:
            call = "fe_graph_rmsnorm_backward";
            s = fe_graph_rmsnorm_backward(g, dy, x, scale, inv_in, &bo, &dx, &dscale, want_dbias);
            break;
        case Kind::instance:
            call = "fe_graph_instancenorm_backward";
            s = fe_graph_instancenorm_backward(g, dy, x, scale, mean_in, inv_in, &bo, &dx, &dscale, &dbias);
            break;
        default:
            call = "fe_graph_adalayernorm_backward";
            s = fe_graph_adalayernorm_backward(g, dy, x, scale, mean_in, inv_in, &bo, &dx, &dscale, want_dbias);
            break;
        }
    } else {
        switch (c.kind) {
        case Kind::layer:
            call = "fe_graph_layernorm";
            s = fe_graph_layernorm(g, x, scale, bias, &o, &y, &mean, &inv);
            break;
        case Kind::rms:
            call = "fe_graph_rmsnorm";
            s = fe_graph_rmsnorm(g, x, scale, bias, &o, &y, &inv);
            break;
        case Kind::instance:
            call = "fe_graph_instancenorm";
            s = fe_graph_instancenorm(g, x, scale, bias, &o, &y, &mean, &inv);
            break;
        default:
            call = "fe_graph_adalayernorm";
            s = fe_graph_adalayernorm(g, x, scale, bias, &o, &y, &mean, &inv);
            break;
        }
    }
    if (!k.ok(s, call)) return;
    // The epilogue's inputs (x's dims and strides) and result, which takes y's place as the output.
    fe_tensor *residual = nullptr, *gate = nullptr, *fused_out = y;
    int factors = 0;
    for (Epilogue step : epilogue) {
        fe_tensor *next = nullptr;
        fe_status st = FE_OK;
        if (step == Epilogue::add_residual) {
            if (!residual) residual = k.tensor("residual", c.x, c.x_strides);
            st = fe_graph_add(g, fused_out, residual, nullptr, &next);
        } else if (step == Epilogue::relu) {
            st = fe_graph_relu(g, fused_out, nullptr, &next);
        } else if (step == Epilogue::multiply_gate) {
            if (!gate) gate = k.tensor("gate", c.x, c.x_strides);
            st = fe_graph_pointwise(g, FE_POINTWISE_MUL, fused_out, gate, nullptr, nullptr, &next);
        } else {
            fe_tensor *f = nullptr;
            const std::string name = "factor_" + std::to_string(factors++);
            if (!k.ok(fe_graph_scalar(g, name.c_str(), factor, FE_DATA_FLOAT, &f), "fe_graph_scalar"))
                return;
            st = fe_graph_pointwise(g, FE_POINTWISE_MUL, fused_out, f, nullptr, nullptr, &next);
        }
        if (!k.ok(st, "the epilogue's operation")) return;
        fused_out = next;
    }
    if (fused && !k.ok(fe_tensor_set_data_type(fused_out, c.type), "fe_tensor_set_data_type")) return;
    if (fused) y = fused_out;
    fe_tensor *main_out = bwd ? dx : y;
    if (c.y_layout) {
        std::vector<size_t> identity(c.x.size());
        for (size_t i = 0; i < identity.size(); ++i) identity[i] = i;
        Dims strides = c.y_layout == 1 ? strides_in_order(c.x, identity, {}) : c.x_strides;
        if (!k.ok(fe_tensor_set_strides(main_out, strides.size(), strides.data()), "fe_tensor_set_strides")) return;
    }
    for (fe_tensor *t : {y, mean, inv, next_mean, next_var, dx, dscale, dbias})
        if (t && !k.ok(fe_tensor_set_output(t, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;

    // Inputs. A zero-centred scale is near 0 (the norm multiplies by 1 + scale).
    Bound *ba = prologue ? &k.input(a, c.x_lo, c.x_hi) : nullptr;
    Bound *bri = prologue ? &k.input(residual_in, -1.f, 1.f) : nullptr;
    Bound &bx = prologue ? k.output(x) : k.input(x, c.x_lo, c.x_hi);
    Bound &bs = c.zero_centered ? k.input(scale, -0.5f, 0.5f) : k.input(scale, 0.5f, 1.5f);
    Bound *bb = bias ? &k.input(bias, -1.f, 1.f) : nullptr;
    Bound *br = residual ? &k.input(residual, -1.f, 1.f) : nullptr, *bg = gate ? &k.input(gate, -1.f, 1.f) : nullptr;
    auto apply_epilogue = [&](double v, const Dims &i) {
        for (Epilogue step : epilogue) {
            if (step == Epilogue::add_residual) v += br->at(i);
            else if (step == Epilogue::relu) v = std::max(v, 0.0);
            else if (step == Epilogue::multiply_gate) v *= bg->at(i);
            else v *= factor;
        }
        return v;
    };
    const double gamma_shift = c.zero_centered ? 1.0 : 0.0;
    const double eps_value = c.epsilon;

    if (c.bn_inference_op) {
        Bound &bm = k.input(mean_in, -1.f, 1.f), &bi = k.input(inv_in, 0.5f, 2.f);
        Bound &by = k.output(y);
        if (!k.execute()) return;
        std::vector<double> ref;
        ref.reserve(static_cast<size_t>(product(c.x)));
        for_each_index(c.x, [&](const Dims &i) {
            ref.push_back((bx.at(i) - read(bm, i)) * read(bi, i) * read(bs, i) + read(*bb, i));
        });
        k.check("y", by, ref, atol_for(c.type), rtol_for(c.type), norm_for(c.type));
        return;
    }

    if (!bwd) {
        Bound *brm = running_mean ? &k.input(running_mean, -1.f, 1.f) : nullptr;
        Bound *brv = running_var ? &k.input(running_var, 0.5f, 2.f) : nullptr;
        Bound &by = k.output(y);
        Bound *bm = mean ? &k.output(mean) : nullptr, *bi = inv ? &k.output(inv) : nullptr;
        Bound *bnm = next_mean ? &k.output(next_mean) : nullptr, *bnv = next_var ? &k.output(next_var) : nullptr;
        if (!k.execute()) return;
        if (prologue) {
            std::vector<double> sum;
            for_each_index(c.x, [&](const Dims &i) {
                sum.push_back(round_to(sum_type, static_cast<float>(static_cast<double>(ba->at(i)) + bri->at(i))));
            });
            k.check("sum", bx, sum, atol_for(sum_type), rtol_for(sum_type), norm_for(sum_type));
        }
        Stats st = forward_stats(bx, c.stats, rms, eps_value);
        std::vector<double> ref;
        ref.reserve(static_cast<size_t>(product(c.x)));
        for_each_index(c.x, [&](const Dims &i) {
            size_t gi = flat(c.stats, i);
            double xhat = (rms ? bx.at(i) : bx.at(i) - st.mean[gi]) * st.inv[gi];
            ref.push_back(apply_epilogue(xhat * (read(bs, i) + gamma_shift) + (bb ? read(*bb, i) : 0.0), i));
        });
        k.check("y", by, ref, atol_for(c.type), rtol_for(c.type), norm_for(c.type));
        if (bm) check_stats(k, "mean", *bm, st.mean);
        if (bi) check_stats(k, rms ? "inv_rms" : "inv_variance", *bi, st.inv);
        if (bnm && bnv) {
            // next = (1 - momentum) * running + momentum * batch statistic; the variance unbiased.
            std::vector<double> want_mean, want_var;
            size_t gi = 0;
            for_each_index(c.stats, [&](const Dims &i) {
                double n = static_cast<double>(st.count[gi]);
                want_mean.push_back((1 - c.momentum) * brm->at(i) + c.momentum * st.mean[gi]);
                want_var.push_back((1 - c.momentum) * brv->at(i) + c.momentum * st.var[gi] * n / (n - 1));
                ++gi;
            });
            check_stats(k, "next_running_mean", *bnm, want_mean);
            check_stats(k, "next_running_var", *bnv, want_var);
        }
        return;
    }

    // Backward: the statistics the forward would have returned, as float.
    Bound &bdy = k.input(dy, -1.f, 1.f);
    Stats st = forward_stats(bx, c.stats, rms, eps_value);
    Bound *bm = mean_in ? &k.input_values(mean_in, to_memory(c.stats, c.stats_strides, st.mean)) : nullptr;
    Bound &bi = k.input_values(inv_in, to_memory(c.stats, c.stats_strides, st.inv));
    Bound &bdx = k.output(dx), &bds = k.output(dscale);
    Bound *bdb = dbias ? &k.output(dbias) : nullptr;
    if (!k.execute()) return;

    // With g = dy * gamma and group means <.>:
    //   layer-like: dx = inv * (g - <g> - xhat * <g * xhat>);  rms: dx = inv * (g - xhat * <g * xhat>)
    //   dscale = sum(dy * xhat), dbias = sum(dy) over every element sharing scale's index.
    const size_t groups = static_cast<size_t>(product(c.stats)), params = static_cast<size_t>(product(c.scale));
    std::vector<double> sum_g(groups, 0.0), sum_gx(groups, 0.0), n(groups, 0.0);
    std::vector<double> ref_ds(params, 0.0), ref_db(params, 0.0), mag_ds(params, 0.0), mag_db(params, 0.0);
    auto xhat_at = [&](const Dims &i) { return (rms ? bx.at(i) : bx.at(i) - read(*bm, i)) * read(bi, i); };
    for_each_index(c.x, [&](const Dims &i) {
        size_t gi = flat(c.stats, i), p = flat(c.scale, i);
        double xhat = xhat_at(i), d = bdy.at(i), grad = d * (read(bs, i) + gamma_shift);
        sum_g[gi] += grad;
        sum_gx[gi] += grad * xhat;
        n[gi] += 1;
        ref_ds[p] += d * xhat;
        ref_db[p] += d;
        mag_ds[p] += std::fabs(d * xhat);
        mag_db[p] += std::fabs(d);
    });
    std::vector<double> ref_dx;
    ref_dx.reserve(static_cast<size_t>(product(c.x)));
    for_each_index(c.x, [&](const Dims &i) {
        size_t gi = flat(c.stats, i);
        double grad = bdy.at(i) * (read(bs, i) + gamma_shift);
        double centered = rms ? grad : grad - sum_g[gi] / n[gi];
        ref_dx.push_back(read(bi, i) * (centered - xhat_at(i) * sum_gx[gi] / n[gi]));
    });
    k.check("dx", bdx, ref_dx, atol_for(c.type), rtol_for(c.type), norm_for(c.type));
    check_norm_sums(k, "dscale", bds, ref_ds, mag_ds);
    if (bdb) check_norm_sums(k, "dbias", *bdb, ref_db, mag_db);
}

}  // namespace

void register_norm(std::vector<Family> &out) {
    out.push_back({"norm", 500, [](Case &k) { norm_case(k, false); }});
    out.push_back({"norm_fused", 200, [](Case &k) { norm_case(k, true); }});
}

}  // namespace conformance
