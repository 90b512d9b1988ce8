// Convolutions in their four directions, fprop, dgrad (data gradient), wgrad (weight gradient)
// and the transposed convolution, 1-D to 3-D, over the options the API takes: per-dim stride and
// dilation, symmetric and asymmetric (pre/post) padding, groups (grouped and depthwise, with a
// channel multiplier), true convolution (flipped filter) beside cross-correlation, the output
// padding a transposed convolution derives from the size it is asked for, wgrad's filter size
// given or inferred, the options given as fields or through the setters (one value for every
// dim, or one per dim), fp16/bf16/fp32 io with fp32 math, channels-last and packed NCHW layouts
// per tensor and an output layout of the caller's; and, as a minority, the fusions lowered as
// one plan: conv + bias (+ an activation), the ResNet epilogues (scale, bias, residual add,
// relu), dgrad + relu backward, and scale + bias + relu on wgrad's image. Reference: direct
// convolution in double on the CPU, every direction walking the terms of one forward relation.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "dims.hpp"
#include "families.hpp"

namespace conformance {
namespace {

enum class Direction { fprop, dgrad, wgrad, transpose };
enum class Fusion {
    none,
    bias_act,             // act(conv + bias)
    scale_bias_add_relu,  // relu(conv * scale + bias + residual): a folded batchnorm
    add_bias_relu,        // relu(conv + residual + bias): the scale folded into the weights
    drelu,                // relu_backward(dgrad(dy, w), x)
    wgrad_scale_bias_relu // wgrad(relu(x * scale + bias), dy)
};
enum class Act { none, relu, relu6, gelu, silu, tanh, sigmoid };

// The forward relation all four directions share:
//   y[n, k, o...] += x[n, (k / Kg) * Cg + c, o * stride - pre + f * dilation] * w[k, c, f...]
// (the filter index flipped in convolution mode). fprop computes y, dgrad x from y (as dy),
// wgrad w, and the transposed convolution x from an image that plays y, its result playing x.
struct ConvConfig {
    Direction dir = Direction::fprop;
    Fusion fusion = Fusion::none;
    Act act = Act::none;
    fe_data_type type = FE_DATA_HALF;
    fe_data_type out_type = FE_DATA_NOT_SET;  // set on the result when not NOT_SET
    fe_data_type aux_type = FE_DATA_HALF;     // bias and scale of the fusions
    int64_t n = 1, groups = 1, cg = 1, kg = 1;  // C = groups * cg, K = groups * kg
    bool depthwise = false;
    size_t spatial = 2;
    int64_t in[3] = {1, 1, 1}, filter[3] = {1, 1, 1}, out[3] = {1, 1, 1};
    int64_t pre[3] = {0, 0, 0}, post[3] = {0, 0, 0}, stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
    bool flip = false;                  // FE_CONV_MODE_CONVOLUTION
    bool a_cl = true, b_cl = true;      // the two inputs channels-last (else packed NCHW)
    bool aux_cl = true;                 // the residual, or relu backward's x
    int out_layout = 0;                 // 0: inferred; 1: set packed; 2: set channels-last
    int option_style = 0;               // 0: fields; 1: fields + spatial_dims; 2: setters
    bool one_value = false;             // setters: one value for all dims where they agree
    bool compute_set = false;           // options.compute_data_type = FLOAT
    bool infer_dw = false;              // wgrad: dw_dims not given
    int64_t c() const { return groups * cg; }
    int64_t k() const { return groups * kg; }
};

int64_t extent(const ConvConfig &c, size_t d) { return c.dilation[d] * (c.filter[d] - 1) + 1; }

int64_t output_size(int64_t in, int64_t filter, int64_t pre, int64_t post, int64_t stride, int64_t dilation) {
    int64_t padded = in + pre + post, span = dilation * (filter - 1) + 1;
    return padded < span ? 0 : (padded - span) / stride + 1;
}

void update_out(ConvConfig &c) {
    for (size_t d = 0; d < c.spatial; ++d)
        c.out[d] = output_size(c.in[d], c.filter[d], c.pre[d], c.post[d], c.stride[d], c.dilation[d]);
}

// Multiply-adds of the reference (an upper bound: padding skips some).
double cost(const ConvConfig &c) {
    double v = static_cast<double>(c.n) * static_cast<double>(c.k()) * static_cast<double>(c.cg);
    for (size_t d = 0; d < c.spatial; ++d) v *= static_cast<double>(c.out[d] * c.filter[d]);
    return v;
}

// A channel count up to hi: a multiple of 8 (the tensor-core engines' favourite) with the given
// chance, else any.
int64_t channels(Rng &rng, int64_t hi, double eights) {
    if (hi >= 8 && rng.chance(eights)) return 8 * rng.range(1, hi / 8);
    return rng.size(1, hi);
}

ConvConfig draw(Rng &rng) {
    ConvConfig c;
    double r = rng.uniform(0, 1);
    c.dir = r < 0.4 ? Direction::fprop : r < 0.62 ? Direction::dgrad : r < 0.84 ? Direction::wgrad : Direction::transpose;
    // Fusions first (they steer the draws below), about a quarter of the cases.
    if (c.dir == Direction::fprop && rng.chance(0.4)) {
        r = rng.uniform(0, 1);
        c.fusion = r < 0.55 ? Fusion::bias_act : r < 0.8 ? Fusion::scale_bias_add_relu : Fusion::add_bias_relu;
        if (c.fusion == Fusion::bias_act) {
            r = rng.uniform(0, 1);
            c.act = r < 0.25 ? Act::none
                  : r < 0.7  ? Act::relu
                  : r < 0.78 ? Act::relu6
                             : rng.pick(std::vector<Act>{Act::gelu, Act::silu, Act::tanh, Act::sigmoid});
        }
    } else if (c.dir == Direction::dgrad && rng.chance(0.3)) {
        c.fusion = Fusion::drelu;
    } else if (c.dir == Direction::wgrad && rng.chance(0.15)) {
        c.fusion = Fusion::wgrad_scale_bias_relu;
    }
    // Scale + bias + relu into wgrad has engines for a narrow class (H100, cuDNN 9.19: fp16,
    // 2-D, dense, channels in multiples of 8, fp16 scale and bias): drawn there mostly, so that
    // it runs, and elsewhere now and then.
    const bool narrow = c.fusion == Fusion::wgrad_scale_bias_relu && rng.chance(0.7);
    r = rng.uniform(0, 1);
    c.type = narrow || r < 0.4 ? FE_DATA_HALF : r < 0.75 ? FE_DATA_BFLOAT16 : FE_DATA_FLOAT;
    r = rng.uniform(0, 1);
    c.spatial = narrow || (r >= 0.2 && r < 0.8) ? 2 : r < 0.2 ? 1 : 3;

    // Channels: dense, grouped, or depthwise (groups = C, with a channel multiplier now and then).
    const double eights = narrow ? 1.0 : c.fusion != Fusion::none ? 0.85 : 0.6;
    r = narrow ? 0.0 : rng.uniform(0, 1);
    if (r < 0.65) {
        c.cg = channels(rng, 128, eights);
        c.kg = channels(rng, 128, eights);
    } else if (r < 0.85) {
        c.groups = rng.pick(std::vector<int64_t>{2, 3, 4, 8, 16, 32});
        c.cg = channels(rng, std::max<int64_t>(1, 128 / c.groups), eights);
        c.kg = channels(rng, std::max<int64_t>(1, 128 / c.groups), eights);
    } else {
        c.groups = channels(rng, 128, eights);
        c.cg = 1;
        c.kg = rng.pick(std::vector<int64_t>{1, 1, 1, 2});
        c.depthwise = c.groups > 1;
    }

    // Filter, stride, dilation: mostly the same in every dim, sometimes not.
    const size_t sp = c.spatial;
    if (sp == 1) {
        c.filter[0] = rng.chance(0.7) ? rng.pick(std::vector<int64_t>{1, 3, 5, 7}) : rng.range(1, 11);
    } else if (rng.chance(0.75)) {
        int64_t f = sp == 2 ? rng.pick(std::vector<int64_t>{1, 3, 3, 5, 7}) : rng.pick(std::vector<int64_t>{1, 3, 3});
        for (size_t d = 0; d < sp; ++d) c.filter[d] = f;
    } else {
        for (size_t d = 0; d < sp; ++d) c.filter[d] = rng.range(1, sp == 2 ? 7 : 4);
    }
    int64_t s = rng.pick(std::vector<int64_t>{1, 1, 1, 1, 1, 2, 2, 2, 3, 4});
    bool per_dim_stride = sp > 1 && rng.chance(0.15);
    for (size_t d = 0; d < sp; ++d) c.stride[d] = per_dim_stride ? rng.range(1, 3) : s;
    if (rng.chance(0.2)) {
        int64_t dl = rng.range(2, 3);
        bool per_dim = sp > 1 && rng.chance(0.3);
        for (size_t d = 0; d < sp; ++d) c.dilation[d] = per_dim ? rng.range(1, 3) : dl;
    }
    // Padding: none, "same" (symmetric), or drawn per dim (asymmetric half the time), now and
    // then as wide as the dilated filter (a result element that sees padding only).
    r = rng.uniform(0, 1);
    for (size_t d = 0; d < sp; ++d) {
        int64_t e = extent(c, d);
        if (r < 0.2) {
            c.pre[d] = c.post[d] = 0;
        } else if (r < 0.65) {
            c.pre[d] = c.post[d] = (e - 1) / 2;
        } else {
            int64_t hi = rng.chance(0.1) ? e : e - 1;
            c.pre[d] = rng.range(0, hi);
            c.post[d] = rng.chance(0.5) ? c.pre[d] : rng.range(0, hi);
        }
    }
    // Sizes: the image, then the batch.
    bool square = rng.chance(0.7);
    auto side = [&]() { return sp == 1 ? rng.size(1, 2048) : sp == 2 ? rng.size(2, 128) : rng.size(2, 32); };
    const int64_t square_side = side();
    for (size_t d = 0; d < sp; ++d) {
        int64_t v = square ? square_side : side();
        c.in[d] = std::max<int64_t>({v, extent(c, d) - c.pre[d] - c.post[d], 1});
    }
    c.n = rng.size(1, 8);
    c.flip = rng.chance(0.1);
    update_out(c);

    // Keep the reference cheap: shrink the image, the batch or the channels (drawn at each step)
    // until the case fits its budget (log-uniform, with a large one now and then).
    double budget = rng.chance(0.05) ? 6e7 : std::exp(rng.uniform(std::log(5e4), std::log(2e7)));
    auto shrink_image = [&]() {
        // The widest dim that can shrink, by a third (never below what the filter needs).
        std::vector<size_t> dims(sp);
        for (size_t d = 0; d < sp; ++d) dims[d] = d;
        std::stable_sort(dims.begin(), dims.end(), [&](size_t x, size_t y) { return c.out[x] > c.out[y]; });
        for (size_t d : dims) {
            int64_t least = std::max<int64_t>(1, extent(c, d) - c.pre[d] - c.post[d]);
            if (c.in[d] > least) {
                c.in[d] = std::max(least, c.in[d] * 2 / 3);
                update_out(c);
                return true;
            }
        }
        return false;
    };
    // Channels halve, a multiple of 8 to a multiple of 8 while it can.
    auto halve = [](int64_t x) { return x % 8 == 0 && x > 8 ? std::max<int64_t>(8, x / 16 * 8) : (x + 1) / 2; };
    const int64_t least_channels = narrow ? 8 : 1;
    for (int guard = 0; guard < 400 && cost(c) > budget; ++guard) {
        // Shrink the image half the time, else the batch or the channels, whichever can.
        double pick = rng.uniform(0, 1);
        if (pick < 0.5 && shrink_image()) continue;
        if (pick < 0.75 && c.n > 1) {
            c.n = (c.n + 1) / 2;
        } else if (c.kg > least_channels && c.kg >= c.cg) {
            c.kg = halve(c.kg);
        } else if (c.cg > least_channels) {
            c.cg = halve(c.cg);
        } else if (c.depthwise && c.groups > 2) {
            c.groups = halve(c.groups);
        } else if (c.n > 1) {
            c.n = (c.n + 1) / 2;
        } else if (!shrink_image()) {
            break;
        }
    }

    c.aux_type = narrow || rng.chance(0.6) ? c.type : FE_DATA_FLOAT;

    // Layouts: channels-last or packed NCHW per tensor (mostly alike; fused plans mostly take
    // channels-last), the result's inferred or set by the caller.
    c.a_cl = narrow || rng.chance(c.fusion == Fusion::none ? 0.6 : 0.8);
    c.b_cl = narrow || rng.chance(0.8) ? c.a_cl : !c.a_cl;
    c.aux_cl = rng.chance(0.85) ? c.a_cl : !c.a_cl;
    r = rng.uniform(0, 1);
    c.out_layout = r < 0.75 ? 0 : r < 0.875 ? 1 : 2;
    if (c.fusion == Fusion::none && c.type != FE_DATA_FLOAT && rng.chance(0.1)) c.out_type = FE_DATA_FLOAT;

    c.option_style = static_cast<int>(rng.range(0, 2));
    c.one_value = c.option_style == 2 && rng.chance(0.5);
    c.compute_set = rng.chance(0.2);
    if (c.dir == Direction::wgrad && rng.chance(0.5)) {
        // dw_dims may be left out when exactly one filter size gives dy (the header's rule).
        bool unique = true;
        for (size_t d = 0; d < sp; ++d) {
            int64_t fits = 0;
            for (int64_t f = 1; f <= c.in[d] + c.pre[d] + c.post[d]; ++f)
                fits += output_size(c.in[d], f, c.pre[d], c.post[d], c.stride[d], c.dilation[d]) == c.out[d];
            unique = unique && fits == 1;
        }
        c.infer_dw = unique;
    }
    return c;
}

const char *type_name(fe_data_type t) {
    return t == FE_DATA_HALF ? "fp16" : t == FE_DATA_BFLOAT16 ? "bf16" : t == FE_DATA_FLOAT ? "fp32" : "?";
}

std::string list(const int64_t *v, size_t n, const char *sep = "x") {
    std::string s;
    for (size_t d = 0; d < n; ++d) s += (d ? sep : "") + std::to_string(v[d]);
    return s;
}

std::string describe(const ConvConfig &c) {
    static const char *dirs[] = {"fprop", "dgrad", "wgrad", "transpose"};
    static const char *fusions[] = {"", "+bias", "+scale_bias_add_relu", "+add_bias_relu", "+relu_bwd",
                                    "+scale_bias_relu_image"};
    static const char *acts[] = {"", "_relu", "_relu6", "_gelu", "_silu", "_tanh", "_sigmoid"};
    static const char *layouts[] = {"inferred", "nchw", "nhwc"};
    static const char *styles[] = {"fields", "fields+spatial_dims", "setters(per_dim)", "setters(one_value)"};
    const size_t sp = c.spatial;
    std::string s = std::string(dirs[static_cast<int>(c.dir)]) + fusions[static_cast<int>(c.fusion)] +
                    acts[static_cast<int>(c.act)] + " " + type_name(c.type) + " " + std::to_string(sp) + "d";
    s += " n=" + std::to_string(c.n) + " c=" + std::to_string(c.c()) + " k=" + std::to_string(c.k()) +
         " groups=" + std::to_string(c.groups) + (c.depthwise ? "(depthwise)" : "");
    s += " in=" + list(c.in, sp) + " filter=" + list(c.filter, sp) + " out=" + list(c.out, sp);
    s += " pad=" + list(c.pre, sp, ",") + "/" + list(c.post, sp, ",") + " stride=" + list(c.stride, sp) +
         " dilation=" + list(c.dilation, sp);
    if (c.dir == Direction::transpose) {
        int64_t op[3];
        for (size_t d = 0; d < sp; ++d) op[d] = (c.in[d] + c.pre[d] + c.post[d] - extent(c, d)) % c.stride[d];
        s += " output_padding=" + list(op, sp);
    }
    s += c.flip ? " mode=convolution" : " mode=cross_correlation";
    s += std::string(" layout=") + (c.a_cl ? "nhwc" : "nchw") + "," + (c.b_cl ? "nhwc" : "nchw") +
         " out_layout=" + layouts[c.out_layout];
    if (c.fusion == Fusion::scale_bias_add_relu || c.fusion == Fusion::add_bias_relu || c.fusion == Fusion::drelu)
        s += std::string(c.fusion == Fusion::drelu ? " x_layout=" : " residual_layout=") + (c.aux_cl ? "nhwc" : "nchw");
    if (c.fusion == Fusion::bias_act || c.fusion == Fusion::scale_bias_add_relu || c.fusion == Fusion::add_bias_relu ||
        c.fusion == Fusion::wgrad_scale_bias_relu)
        s += std::string(" bias_type=") + type_name(c.aux_type);
    if (c.out_type != FE_DATA_NOT_SET) s += std::string(" out_type=") + type_name(c.out_type);
    s += std::string(" options=") + styles[c.option_style + (c.one_value ? 1 : 0)] + (c.compute_set ? " compute=fp32" : "");
    if (c.dir == Direction::wgrad) s += c.infer_dw ? " dw_dims=inferred" : " dw_dims=given";
    return s;
}

std::vector<int64_t> layout(const std::vector<int64_t> &dims, bool channels_last) {
    std::vector<size_t> order(dims.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    if (channels_last) {  // N, spatial..., C
        order.erase(order.begin() + 1);
        order.push_back(1);
    }
    return strides_in_order(dims, order, {});
}

// Sets the options as the case says: the fields directly, or through the setters (one value
// for every dim where all dims agree and the case says so; else one per dim).
bool set_options(Case &k, const ConvConfig &c, fe_conv_options &o) {
    const size_t sp = c.spatial;
    o.mode = c.flip ? FE_CONV_MODE_CONVOLUTION : FE_CONV_MODE_CROSS_CORRELATION;
    o.groups = c.groups;
    if (c.compute_set) o.compute_data_type = FE_DATA_FLOAT;
    int64_t op[3] = {0, 0, 0};
    if (c.dir == Direction::transpose)
        for (size_t d = 0; d < sp; ++d) op[d] = (c.in[d] + c.pre[d] + c.post[d] - extent(c, d)) % c.stride[d];
    if (c.option_style < 2) {
        if (c.option_style == 1) o.spatial_dims = sp;
        for (size_t d = 0; d < sp; ++d) {
            o.pre_padding[d] = c.pre[d];
            o.post_padding[d] = c.post[d];
            o.stride[d] = c.stride[d];
            o.dilation[d] = c.dilation[d];
            o.output_padding[d] = op[d];
        }
        return true;
    }
    // One value when every dim has it (a coin decides), else one per dim.
    auto count = [&](const int64_t *v) -> size_t {
        for (size_t d = 1; d < sp; ++d)
            if (v[d] != v[0]) return sp;
        return c.one_value ? 1 : sp;
    };
    bool symmetric = std::equal(c.pre, c.pre + sp, c.post);
    if (symmetric) {
        if (!k.ok(fe_conv_options_set_padding(&o, count(c.pre), c.pre), "fe_conv_options_set_padding")) return false;
    } else {
        if (!k.ok(fe_conv_options_set_pre_padding(&o, count(c.pre), c.pre), "fe_conv_options_set_pre_padding") ||
            !k.ok(fe_conv_options_set_post_padding(&o, count(c.post), c.post), "fe_conv_options_set_post_padding"))
            return false;
    }
    if (!k.ok(fe_conv_options_set_stride(&o, count(c.stride), c.stride), "fe_conv_options_set_stride") ||
        !k.ok(fe_conv_options_set_dilation(&o, count(c.dilation), c.dilation), "fe_conv_options_set_dilation"))
        return false;
    if (c.dir == Direction::transpose &&
        !k.ok(fe_conv_options_set_output_padding(&o, count(op), op), "fe_conv_options_set_output_padding"))
        return false;
    return true;
}

// Calls term(xi, wi, yi) with flat logical indices for every product of the forward relation;
// the spatial dims run as three with unit ones first, so the flat indices are the real rank's.
template <typename Term>
void for_each_term(const ConvConfig &c, Term term) {
    int64_t in[3] = {1, 1, 1}, f[3] = {1, 1, 1}, out[3] = {1, 1, 1}, st[3] = {1, 1, 1}, pad[3] = {0, 0, 0},
            dil[3] = {1, 1, 1};
    for (size_t s = 0; s < c.spatial; ++s) {
        size_t d = 3 - c.spatial + s;
        in[d] = c.in[s];
        f[d] = c.filter[s];
        out[d] = c.out[s];
        st[d] = c.stride[s];
        pad[d] = c.pre[s];
        dil[d] = c.dilation[s];
    }
    const int64_t C = c.c(), K = c.k();
    auto tap = [&](int64_t d, int64_t fi) { return c.flip ? f[d] - 1 - fi : fi; };
    for (int64_t n = 0; n < c.n; ++n)
        for (int64_t k = 0; k < K; ++k) {
            const int64_t first = (k / c.kg) * c.cg;
            for (int64_t o0 = 0; o0 < out[0]; ++o0)
                for (int64_t o1 = 0; o1 < out[1]; ++o1)
                    for (int64_t o2 = 0; o2 < out[2]; ++o2) {
                        const int64_t yi = (((n * K + k) * out[0] + o0) * out[1] + o1) * out[2] + o2;
                        for (int64_t ch = 0; ch < c.cg; ++ch)
                            for (int64_t f0 = 0; f0 < f[0]; ++f0) {
                                const int64_t i0 = o0 * st[0] - pad[0] + f0 * dil[0];
                                if (i0 < 0 || i0 >= in[0]) continue;
                                for (int64_t f1 = 0; f1 < f[1]; ++f1) {
                                    const int64_t i1 = o1 * st[1] - pad[1] + f1 * dil[1];
                                    if (i1 < 0 || i1 >= in[1]) continue;
                                    const int64_t xrow = (((n * C + first + ch) * in[0] + i0) * in[1] + i1) * in[2];
                                    const int64_t wrow = (((k * c.cg + ch) * f[0] + tap(0, f0)) * f[1] + tap(1, f1)) * f[2];
                                    for (int64_t f2 = 0; f2 < f[2]; ++f2) {
                                        const int64_t i2 = o2 * st[2] - pad[2] + f2 * dil[2];
                                        if (i2 < 0 || i2 >= in[2]) continue;
                                        term(xrow + i2, wrow + tap(2, f2), yi);
                                    }
                                }
                            }
                    }
        }
}

double activate(Act a, double v) {
    switch (a) {
    case Act::none: return v;
    case Act::relu: return std::max(0.0, v);
    case Act::relu6: return std::min(6.0, std::max(0.0, v));
    case Act::gelu: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    case Act::silu: return v / (1.0 + std::exp(-v));
    case Act::tanh: return std::tanh(v);
    case Act::sigmoid: return 1.0 / (1.0 + std::exp(-v));
    }
    return v;
}

bool apply_act(Case &k, Act a, fe_tensor *in, fe_tensor **out) {
    fe_graph *g = k.graph_handle();
    fe_pointwise_options po = FE_POINTWISE_OPTIONS_INIT;
    switch (a) {
    case Act::none: *out = in; return true;
    case Act::relu: return k.ok(fe_graph_relu(g, in, nullptr, out), "fe_graph_relu");
    case Act::relu6: po.relu_upper_clip = 6.0; return k.ok(fe_graph_relu(g, in, &po, out), "fe_graph_relu");
    case Act::gelu: return k.ok(fe_graph_gelu(g, in, nullptr, out), "fe_graph_gelu");
    case Act::silu: return k.ok(fe_graph_silu(g, in, nullptr, out), "fe_graph_silu");
    case Act::tanh:
        return k.ok(fe_graph_pointwise(g, FE_POINTWISE_TANH_FWD, in, nullptr, nullptr, nullptr, out), "fe_graph_pointwise");
    case Act::sigmoid:
        return k.ok(fe_graph_pointwise(g, FE_POINTWISE_SIGMOID_FWD, in, nullptr, nullptr, nullptr, out),
                    "fe_graph_pointwise");
    }
    return false;
}

// One geometry value of a VARY item, as "name<d>=value" for spatial dim d ("pad1=5/6", "in0=8",
// "filter1=7") or "name=value" for the batch and the channels ("n=1", "c=8", "k=4").
bool set_geometry(ConvConfig &c, const std::string &item) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    char *end = nullptr;
    long long v = std::strtoll(value.c_str(), &end, 10);
    if (end == value.c_str() || v < 0) return false;
    if (name == "n" || name == "c" || name == "k") {
        if (*end || v < 1) return false;
        if (name == "n") c.n = v;
        else {
            c.groups = 1, c.depthwise = false;
            (name == "c" ? c.cg : c.kg) = v;
        }
        return true;
    }
    size_t d = static_cast<size_t>(name.back() - '0');
    name.pop_back();
    if (d >= c.spatial) return false;
    if (name == "pad" && *end == '/') {
        long long post = std::strtoll(end + 1, &end, 10);
        if (*end || post < 0) return false;
        c.pre[d] = v, c.post[d] = post;
    } else if ((name == "in" || name == "filter") && !*end && v >= 1) {
        (name == "in" ? c.in : c.filter)[d] = v;
    } else {
        return false;
    }
    return true;
}

// CUDNNFE_CONFORMANCE_VARY: a comma-separated list of changes made to each drawn case, to find
// the rule behind a wrong one. The result's size follows from the geometry the changes leave.
void apply_variations(ConvConfig &c) {
    const char *list = std::getenv("CUDNNFE_CONFORMANCE_VARY");
    if (!list) return;
    std::stringstream items(list);
    for (std::string item; std::getline(items, item, ',');) {
        const size_t last = c.spatial - 1;
        if (item == "one_channel") {
            c.groups = 1, c.cg = 1, c.depthwise = false;
        } else if (item == "unit_width") {
            // The last spatial dim of the forward's result one element: no padding, an image as
            // wide as the dilated filter.
            c.pre[last] = c.post[last] = 0;
            c.in[last] = extent(c, last);
        } else if (item == "wide") {
            update_out(c);
            if (c.out[last] == 1) c.in[last] += c.stride[last];
        } else if (item == "spatial=2") {
            if (c.spatial == 1) c.in[1] = std::max<int64_t>(2, c.in[0] % 7 + 2), c.filter[1] = 1;
            c.spatial = 2;
        } else if (item == "channels_last") {
            c.a_cl = c.b_cl = c.aux_cl = true;
        } else if (item == "nchw") {
            c.a_cl = c.b_cl = c.aux_cl = false;
        } else if (item == "fusion=none") {
            c.fusion = Fusion::none, c.act = Act::none;
        } else if (item == "type=half" || item == "type=bf16" || item == "type=float") {
            c.type = item == "type=half" ? FE_DATA_HALF : item == "type=bf16" ? FE_DATA_BFLOAT16 : FE_DATA_FLOAT;
        } else if (item == "out_type=same") {
            c.out_type = FE_DATA_NOT_SET;
        } else if (item == "dgrad") {
            c.dir = Direction::dgrad, c.fusion = Fusion::none, c.act = Act::none;
        } else if (item == "symmetric") {
            // Each dim padded after as before, the image grown where that left no result.
            for (size_t i = 0; i < c.spatial; ++i) {
                c.post[i] = c.pre[i];
                c.in[i] = std::max(c.in[i], extent(c, i) - 2 * c.pre[i]);
            }
        } else if (item == "edge_pad") {
            // The last spatial dim's filter spanning 5 or more, padded 0 or 1 before and more after,
            // the image wide enough for a result.
            const int64_t dl = c.dilation[last];
            if (extent(c, last) < 5) c.filter[last] = (4 + dl - 1) / dl + 1;
            const int64_t e = extent(c, last);
            c.pre[last] = (c.n + c.in[0]) % 2;
            c.post[last] = c.pre[last] + 1 + (c.k() + c.in[last]) % (e - 1 - c.pre[last]);
            c.in[last] = std::max(c.in[last], e - c.pre[last] - c.post[last]);
        } else if (!set_geometry(c, item)) {
            std::fprintf(stderr, "CUDNNFE_CONFORMANCE_VARY: '%s' is not a variation this runner knows\n", item.c_str());
            std::exit(2);
        }
    }
    update_out(c);
}

void conv_case(Case &k) {
    ConvConfig c = draw(k.rng);
    apply_variations(c);
    k.describe(describe(c));
    if (!k.graph(c.type)) return;
    fe_graph *g = k.graph_handle();
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    if (!set_options(k, c, o)) return;

    const size_t sp = c.spatial;
    std::vector<int64_t> xd = {c.n, c.c()}, wd = {c.k(), c.cg}, yd = {c.n, c.k()}, cvec(sp + 2, 1), kvec(sp + 2, 1);
    for (size_t d = 0; d < sp; ++d) {
        xd.push_back(c.in[d]);
        wd.push_back(c.filter[d]);
        yd.push_back(c.out[d]);
    }
    cvec[1] = c.c();
    kvec[1] = c.k();

    // Inputs a and b, and the result, by direction; the result's dims.
    fe_tensor *a = nullptr, *b = nullptr, *result = nullptr, *final = nullptr;
    fe_tensor *bias = nullptr, *scale = nullptr, *residual = nullptr, *aux_x = nullptr;
    std::vector<int64_t> rd;
    switch (c.dir) {
    case Direction::fprop: {
        a = k.tensor("x", xd, layout(xd, c.a_cl));
        b = k.tensor("w", wd, layout(wd, c.b_cl));
        if (!a || !b || !k.ok(fe_graph_conv_fprop(g, a, b, &o, &result), "fe_graph_conv_fprop")) return;
        rd = yd;
        final = result;
        fe_tensor *t = nullptr;
        if (c.fusion == Fusion::bias_act) {
            bias = k.packed("bias", kvec, c.aux_type);
            if (!bias || !k.ok(fe_graph_bias(g, result, bias, nullptr, &t), "fe_graph_bias") || !apply_act(k, c.act, t, &final))
                return;
        } else if (c.fusion == Fusion::scale_bias_add_relu) {
            scale = k.packed("scale", kvec, c.aux_type);
            bias = k.packed("bias", kvec, c.aux_type);
            residual = k.tensor("residual", yd, layout(yd, c.aux_cl));
            fe_tensor *t2 = nullptr, *t3 = nullptr;
            if (!scale || !bias || !residual || !k.ok(fe_graph_scale(g, result, scale, nullptr, &t), "fe_graph_scale") ||
                !k.ok(fe_graph_bias(g, t, bias, nullptr, &t2), "fe_graph_bias") ||
                !k.ok(fe_graph_add(g, t2, residual, nullptr, &t3), "fe_graph_add") ||
                !k.ok(fe_graph_relu(g, t3, nullptr, &final), "fe_graph_relu"))
                return;
        } else if (c.fusion == Fusion::add_bias_relu) {
            residual = k.tensor("residual", yd, layout(yd, c.aux_cl));
            bias = k.packed("bias", kvec, c.aux_type);
            fe_tensor *t2 = nullptr;
            if (!residual || !bias || !k.ok(fe_graph_add(g, result, residual, nullptr, &t), "fe_graph_add") ||
                !k.ok(fe_graph_bias(g, t, bias, nullptr, &t2), "fe_graph_bias") ||
                !k.ok(fe_graph_relu(g, t2, nullptr, &final), "fe_graph_relu"))
                return;
        }
        break;
    }
    case Direction::dgrad: {
        a = k.tensor("dy", yd, layout(yd, c.a_cl));
        b = k.tensor("w", wd, layout(wd, c.b_cl));
        if (!a || !b || !k.ok(fe_graph_conv_dgrad(g, a, b, xd.size(), xd.data(), &o, &result), "fe_graph_conv_dgrad"))
            return;
        rd = xd;
        final = result;
        if (c.fusion == Fusion::drelu) {
            aux_x = k.tensor("x", xd, layout(xd, c.aux_cl));
            if (!aux_x || !k.ok(fe_graph_pointwise(g, FE_POINTWISE_RELU_BWD, result, aux_x, nullptr, nullptr, &final),
                                "fe_graph_pointwise"))
                return;
        }
        break;
    }
    case Direction::wgrad: {
        a = k.tensor("x", xd, layout(xd, c.a_cl));
        b = k.tensor("dy", yd, layout(yd, c.b_cl));
        if (!a || !b) return;
        fe_tensor *image = a;
        if (c.fusion == Fusion::wgrad_scale_bias_relu) {
            // The previous layer's folded batchnorm and relu, applied as wgrad reads its image.
            scale = k.packed("scale", cvec, c.aux_type);
            bias = k.packed("bias", cvec, c.aux_type);
            fe_tensor *t = nullptr, *t2 = nullptr;
            if (!scale || !bias || !k.ok(fe_graph_scale(g, a, scale, nullptr, &t), "fe_graph_scale") ||
                !k.ok(fe_graph_bias(g, t, bias, nullptr, &t2), "fe_graph_bias") ||
                !k.ok(fe_graph_relu(g, t2, nullptr, &image), "fe_graph_relu"))
                return;
        }
        if (!k.ok(fe_graph_conv_wgrad(g, image, b, c.infer_dw ? 0 : wd.size(), c.infer_dw ? nullptr : wd.data(), &o,
                                      &result),
                  "fe_graph_conv_wgrad"))
            return;
        rd = wd;
        final = result;
        break;
    }
    case Direction::transpose: {
        // The image plays the relation's y (C_in = K channels), the weight [C_in, C_out / groups,
        // filter...] its w, and the result its x.
        a = k.tensor("image", yd, layout(yd, c.a_cl));
        b = k.tensor("w", wd, layout(wd, c.b_cl));
        if (!a || !b || !k.ok(fe_graph_conv_transpose(g, a, b, &o, &result), "fe_graph_conv_transpose")) return;
        rd = xd;
        final = result;
        break;
    }
    }
    // The result's dims as the library inferred them must be the relation's.
    {
        size_t rank = 0;
        if (!k.ok(fe_tensor_get_ndims(final, &rank), "fe_tensor_get_ndims")) return;
        std::vector<int64_t> got(rank);
        if (!k.ok(fe_tensor_get_dims(final, got.data(), rank), "fe_tensor_get_dims")) return;
        if (got != rd) {
            k.fail("the result's inferred dims are " + list(got.data(), got.size(), ",") + ", not " +
                   list(rd.data(), rd.size(), ","));
            return;
        }
    }
    if (c.out_layout) {
        std::vector<int64_t> rs = layout(rd, c.out_layout == 2);
        if (!k.ok(fe_tensor_set_strides(final, rs.size(), rs.data()), "fe_tensor_set_strides")) return;
    }
    if (c.out_type != FE_DATA_NOT_SET && !k.ok(fe_tensor_set_data_type(final, c.out_type), "fe_tensor_set_data_type"))
        return;
    if (!k.ok(fe_tensor_set_output(final, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;

    Bound &ba = k.input(a), &bb = k.input(b);
    Bound *bbias = bias ? &k.input(bias) : nullptr;
    Bound *bscale = scale ? &k.input(scale, 0.5f, 1.5f) : nullptr;
    Bound *bres = residual ? &k.input(residual, -2.f, 2.f) : nullptr;
    Bound *bx = aux_x ? &k.input(aux_x) : nullptr;
    Bound &bout = k.output(final);
    if (!k.execute()) return;

    // The reference: the relation's three arrays, the inputs read from what was bound.
    std::vector<double> X, W, Y;
    std::vector<int32_t> terms(static_cast<size_t>(bout.elements()), 0);
    switch (c.dir) {
    case Direction::fprop:
        X = logical(ba);
        W = logical(bb);
        Y.assign(terms.size(), 0.0);
        for_each_term(c, [&](int64_t xi, int64_t wi, int64_t yi) {
            Y[static_cast<size_t>(yi)] += X[static_cast<size_t>(xi)] * W[static_cast<size_t>(wi)];
            ++terms[static_cast<size_t>(yi)];
        });
        break;
    case Direction::dgrad:
    case Direction::transpose:
        Y = logical(ba);
        W = logical(bb);
        X.assign(terms.size(), 0.0);
        for_each_term(c, [&](int64_t xi, int64_t wi, int64_t yi) {
            X[static_cast<size_t>(xi)] += Y[static_cast<size_t>(yi)] * W[static_cast<size_t>(wi)];
            ++terms[static_cast<size_t>(xi)];
        });
        break;
    case Direction::wgrad: {
        X = logical(ba);
        if (c.fusion == Fusion::wgrad_scale_bias_relu) {
            std::vector<double> sv = logical(*bscale), bv = logical(*bbias);
            int64_t plane = 1;
            for (size_t d = 0; d < sp; ++d) plane *= c.in[d];
            for (size_t i = 0; i < X.size(); ++i) {
                size_t ch = (i / static_cast<size_t>(plane)) % static_cast<size_t>(c.c());
                X[i] = std::max(0.0, X[i] * sv[ch] + bv[ch]);
            }
        }
        Y = logical(bb);
        W.assign(terms.size(), 0.0);
        for_each_term(c, [&](int64_t xi, int64_t wi, int64_t yi) {
            W[static_cast<size_t>(wi)] += X[static_cast<size_t>(xi)] * Y[static_cast<size_t>(yi)];
            ++terms[static_cast<size_t>(wi)];
        });
        break;
    }
    }
    std::vector<double> ref = c.dir == Direction::fprop ? Y : c.dir == Direction::wgrad ? W : X;
    std::vector<char> defined;
    int64_t plane = 1;
    for (size_t d = 0; d < sp; ++d) plane *= c.dir == Direction::fprop ? c.out[d] : c.in[d];
    auto channel = [&](size_t i, int64_t count) {
        return (i / static_cast<size_t>(plane)) % static_cast<size_t>(count);
    };
    switch (c.fusion) {
    case Fusion::none:
    case Fusion::wgrad_scale_bias_relu: break;
    case Fusion::bias_act: {
        std::vector<double> bv = logical(*bbias);
        for (size_t i = 0; i < ref.size(); ++i) ref[i] = activate(c.act, ref[i] + bv[channel(i, c.k())]);
        break;
    }
    case Fusion::scale_bias_add_relu: {
        std::vector<double> sv = logical(*bscale), bv = logical(*bbias), rv = logical(*bres);
        for (size_t i = 0; i < ref.size(); ++i) {
            size_t ch = channel(i, c.k());
            ref[i] = std::max(0.0, ref[i] * sv[ch] + bv[ch] + rv[i]);
        }
        break;
    }
    case Fusion::add_bias_relu: {
        std::vector<double> bv = logical(*bbias), rv = logical(*bres);
        for (size_t i = 0; i < ref.size(); ++i) ref[i] = std::max(0.0, ref[i] + rv[i] + bv[channel(i, c.k())]);
        break;
    }
    case Fusion::drelu: {
        // Where the forward input is exactly 0, whether its gradient passes is a convention.
        std::vector<double> xv = logical(*bx);
        defined.assign(ref.size(), 1);
        for (size_t i = 0; i < ref.size(); ++i) {
            if (xv[i] == 0) defined[i] = 0;
            ref[i] = xv[i] > 0 ? ref[i] : 0.0;
        }
        break;
    }
    }

    // Tolerances: fp16/bf16 results are rounded once (rtol), fp32 runs in TF32; the absolute part
    // grows with the square root of the longest sum (uniform(-1, 1) products).
    int32_t longest = *std::max_element(terms.begin(), terms.end());
    double grow = std::max(1.0, std::sqrt(static_cast<double>(longest)) / 4.0);
    const fe_data_type t = c.type;  // a float result of fp16/bf16 inputs is as close or closer
    double atol = (t == FE_DATA_HALF ? 2e-2 : t == FE_DATA_BFLOAT16 ? 3e-2 : 5e-3) * grow;
    double rtol = t == FE_DATA_FLOAT ? 5e-3 : 2e-2;
    double norm = t == FE_DATA_HALF ? 1e-2 : t == FE_DATA_BFLOAT16 ? 2.5e-2 : 2e-3;
    static const char *names[] = {"y", "dx", "dw", "y"};
    k.check(names[static_cast<int>(c.dir)], bout, ref, atol, rtol, norm, defined.empty() ? nullptr : &defined);
}

// The forward's image [N, C, spatial...] and weight [K, C / groups, filter...].
std::vector<int64_t> image_dims(const ConvConfig &c) {
    std::vector<int64_t> dims = {c.n, c.c()};
    for (size_t d = 0; d < c.spatial; ++d) dims.push_back(c.in[d]);
    return dims;
}

std::vector<int64_t> weight_dims(const ConvConfig &c) {
    std::vector<int64_t> dims = {c.k(), c.cg};
    for (size_t d = 0; d < c.spatial; ++d) dims.push_back(c.filter[d]);
    return dims;
}

// A case of the conv space made a forward with no fusion (the draws stay those of the conv family).
ConvConfig draw_plain_forward(Rng &rng) {
    ConvConfig c = draw(rng);
    c.dir = Direction::fprop;
    c.fusion = Fusion::none;
    c.act = Act::none;
    return c;
}

// An int8 convolution: the conv space's geometry as a forward of int8 x and w (channels-last, now
// and then NCHW), int32 math, a float, int8 (saturated) or int32 result. Small whole numbers keep
// every product and sum exact, so the result must equal the reference exactly.
void conv_int8_case(Case &k) {
    ConvConfig c = draw_plain_forward(k.rng);
    c.compute_set = false;
    c.type = FE_DATA_INT8;
    c.out_type = k.rng.pick(std::vector<fe_data_type>{FE_DATA_FLOAT, FE_DATA_FLOAT, FE_DATA_INT8, FE_DATA_INT32});
    c.a_cl = c.b_cl = k.rng.chance(0.85);
    c.out_layout = 0;
    apply_variations(c);
    k.describe(describe(c));
    if (!k.graph(FE_DATA_INT8, FE_DATA_INT32, FE_DATA_INT32)) return;
    fe_graph *g = k.graph_handle();
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    if (!set_options(k, c, o)) return;
    o.compute_data_type = FE_DATA_INT32;
    const std::vector<int64_t> xd = image_dims(c), wd = weight_dims(c);
    fe_tensor *x = k.tensor("x", xd, layout(xd, c.a_cl), FE_DATA_INT8), *w = k.tensor("w", wd, layout(wd, c.b_cl), FE_DATA_INT8);
    fe_tensor *y = nullptr;
    if (!x || !w || !k.ok(fe_graph_conv_fprop(g, x, w, &o, &y), "fe_graph_conv_fprop")) return;
    if (!k.ok(fe_tensor_set_data_type(y, c.out_type), "fe_tensor_set_data_type") ||
        !k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    // An int8 result saturates: operands of -1, 0 and 1 keep most sums inside [-128, 127].
    const int64_t range = c.out_type == FE_DATA_INT8 ? 1 : 4;
    Bound &bx = k.input_int8(x, range), &bw = k.input_int8(w, range);
    Bound &by = k.output(y);
    if (!k.execute()) return;
    std::vector<double> X = logical(bx), W = logical(bw), Y(static_cast<size_t>(by.elements()), 0.0);
    for_each_term(c, [&](int64_t xi, int64_t wi, int64_t yi) {
        Y[static_cast<size_t>(yi)] += X[static_cast<size_t>(xi)] * W[static_cast<size_t>(wi)];
    });
    if (c.out_type == FE_DATA_INT8)
        for (double &v : Y) v = std::min(127.0, std::max(-128.0, v));
    k.check("y", by, Y, 0.5, 0, 1e-6);
}

// A forward convolution's statistics for the batch normalization after it: genstats fused after
// the convolution (where cuDNN runs it), y and the per-channel sum and sum of squares of y over
// the batch and the spatial dims all outputs. The conv space's forward geometry, layouts and
// types, no other fusion.
// The graph of a drawn plain forward convolution, up to its result; false when the case ended
// (refused or failed, the reason recorded).
struct PlainForward {
    fe_tensor *x = nullptr, *w = nullptr, *y = nullptr;
};

bool add_plain_forward(Case &k, const ConvConfig &c, PlainForward *f) {
    if (!k.graph(c.type)) return false;
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    if (!set_options(k, c, o)) return false;
    const std::vector<int64_t> xd = image_dims(c), wd = weight_dims(c);
    f->x = k.tensor("x", xd, layout(xd, c.a_cl));
    f->w = k.tensor("w", wd, layout(wd, c.b_cl));
    return f->x && f->w && k.ok(fe_graph_conv_fprop(k.graph_handle(), f->x, f->w, &o, &f->y), "fe_graph_conv_fprop");
}

// The reference of a plain forward: y in double (logical order) and the most terms one element
// adds; and the tolerances of y, and of sums of y (eps of the summed magnitudes), in io type t.
struct ForwardReference {
    std::vector<double> y;
    int32_t longest = 0;
};

ForwardReference plain_forward(const ConvConfig &c, const Bound &bx, const Bound &bw, const Bound &by) {
    std::vector<double> X = logical(bx), W = logical(bw);
    ForwardReference r;
    r.y.assign(static_cast<size_t>(by.elements()), 0.0);
    std::vector<int32_t> terms(r.y.size(), 0);
    for_each_term(c, [&](int64_t xi, int64_t wi, int64_t yi) {
        r.y[static_cast<size_t>(yi)] += X[static_cast<size_t>(xi)] * W[static_cast<size_t>(wi)];
        ++terms[static_cast<size_t>(yi)];
    });
    r.longest = *std::max_element(terms.begin(), terms.end());
    return r;
}

// y's tolerance as the conv family checks it: atol + rtol * |y|.
struct YTolerance {
    double atol, rtol;
    double of(double y) const { return atol + rtol * std::fabs(y); }
};

YTolerance forward_y_tolerance(const ConvConfig &c, const ForwardReference &r) {
    const double grow = std::max(1.0, std::sqrt(static_cast<double>(r.longest)) / 4.0);
    const fe_data_type t = c.type;
    return {(t == FE_DATA_HALF ? 2e-2 : t == FE_DATA_BFLOAT16 ? 3e-2 : 5e-3) * grow, t == FE_DATA_FLOAT ? 5e-3 : 2e-2};
}

void check_forward_y(Case &k, const ConvConfig &c, const Bound &by, const ForwardReference &r) {
    const YTolerance tol = forward_y_tolerance(c, r);
    const fe_data_type t = c.type;
    const double norm = t == FE_DATA_HALF ? 1e-2 : t == FE_DATA_BFLOAT16 ? 2.5e-2 : 2e-3;
    k.check("y", by, r.y, tol.atol, tol.rtol, norm);
}

// The slack of sums of y (check_sums with eps 1): the rounding of their terms (sum_eps of the
// summed magnitudes) and, in float, the error each y carries from its inputs rounded to TF32
// (within y's own tolerance, independent from element to element, so adding in quadrature).
std::vector<double> sum_slack(const ConvConfig &c, const std::vector<double> &magnitudes,
                              const std::vector<double> &tf32_variance, double eps) {
    std::vector<double> slack(magnitudes.size());
    for (size_t i = 0; i < slack.size(); ++i)
        slack[i] = eps * magnitudes[i] + (c.type == FE_DATA_FLOAT ? std::sqrt(tf32_variance[i]) : 0.0);
    return slack;
}

// Sums of y may add y as stored (rounded to the io type) or as computed: each off by the rounding
// of its terms, this eps of their magnitudes.
double sum_eps(fe_data_type t) { return t == FE_DATA_HALF ? 2e-3 : t == FE_DATA_BFLOAT16 ? 1.6e-2 : 2e-3; }

void conv_genstats_case(Case &k) {
    ConvConfig c = draw_plain_forward(k.rng);
    c.out_type = FE_DATA_NOT_SET;
    c.out_layout = 0;
    apply_variations(c);
    k.describe(describe(c) + " +genstats");
    PlainForward f;
    fe_tensor *sum = nullptr, *sq_sum = nullptr;
    if (!add_plain_forward(k, c, &f) ||
        !k.ok(fe_graph_genstats(k.graph_handle(), f.y, nullptr, &sum, &sq_sum), "fe_graph_genstats"))
        return;
    fe_tensor *x = f.x, *w = f.w, *y = f.y;
    for (fe_tensor *t : {y, sum, sq_sum})
        if (!k.ok(fe_tensor_set_output(t, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;
    Bound &bx = k.input(x), &bw = k.input(w);
    Bound &by = k.output(y), &bsum = k.output(sum), &bsq = k.output(sq_sum);
    if (!k.execute()) return;

    const ForwardReference r = plain_forward(c, bx, bw, by);
    int64_t plane = 1;
    for (size_t d = 0; d < c.spatial; ++d) plane *= c.out[d];
    const size_t channels = static_cast<size_t>(c.k());
    std::vector<double> want_sum(channels, 0.0), want_sq(channels, 0.0), mag_sum(channels, 0.0), mag_sq(channels, 0.0);
    std::vector<double> var_sum(channels, 0.0), var_sq(channels, 0.0);
    const YTolerance tol = forward_y_tolerance(c, r);
    for (size_t i = 0; i < r.y.size(); ++i) {
        const size_t ch = (i / static_cast<size_t>(plane)) % channels;
        const double e = tol.of(r.y[i]);
        want_sum[ch] += r.y[i];
        want_sq[ch] += r.y[i] * r.y[i];
        mag_sum[ch] += std::fabs(r.y[i]);
        mag_sq[ch] += r.y[i] * r.y[i];
        var_sum[ch] += e * e;
        var_sq[ch] += 4 * r.y[i] * r.y[i] * e * e;  // y^2 moves by 2|y| e
    }
    check_forward_y(k, c, by, r);
    const double eps = sum_eps(c.type);
    k.check_sums("sum", bsum, want_sum, sum_slack(c, mag_sum, var_sum, eps), 1.0, 1e-3, 1e-3, 1e-3);
    k.check_sums("sq_sum", bsq, want_sq, sum_slack(c, mag_sq, var_sq, 2 * eps), 1.0, 1e-3, 1e-3, 1e-3);
}

// A forward convolution whose result a reduction takes in the same plan: per channel (over the
// batch and the spatial dims, as batch statistics), per pixel (over the channels), per image
// (over all but the batch) or over everything; a sum or a maximum, in a fixed order or not.
void conv_reduction_case(Case &k) {
    ConvConfig c = draw_plain_forward(k.rng);
    c.out_type = FE_DATA_NOT_SET;
    c.out_layout = 0;
    apply_variations(c);
    const size_t rank = 2 + c.spatial;
    const int over = static_cast<int>(k.rng.range(0, 3));
    const bool max = k.rng.chance(0.3), deterministic = k.rng.chance(0.3);
    std::vector<bool> reduced(rank, false);
    for (size_t d = 0; d < rank; ++d)
        reduced[d] = over == 0 ? d != 1 : over == 1 ? d == 1 : over == 2 ? d != 0 : true;
    const char *over_names[] = {"per channel", "per pixel", "per image", "all"};
    k.describe(describe(c) + " +reduction(" + (max ? "max" : "add") + ", " + over_names[over] +
               (deterministic ? ", deterministic)" : ")"));
    fe_reduction_options ro = FE_REDUCTION_OPTIONS_INIT;
    for (size_t d = 0; d < rank; ++d)
        if (reduced[d]) ro.reduce_axes |= uint64_t(1) << d;
    ro.deterministic = deterministic;
    PlainForward f;
    fe_tensor *red = nullptr;
    if (!add_plain_forward(k, c, &f) ||
        !k.ok(fe_graph_reduction(k.graph_handle(), f.y, max ? FE_REDUCTION_MAX : FE_REDUCTION_ADD, &ro, &red),
              "fe_graph_reduction") ||
        !k.ok(fe_tensor_set_data_type(red, FE_DATA_FLOAT), "fe_tensor_set_data_type"))
        return;
    fe_tensor *x = f.x, *w = f.w, *y = f.y;
    for (fe_tensor *t : {y, red})
        if (!k.ok(fe_tensor_set_output(t, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;
    Bound &bx = k.input(x), &bw = k.input(w);
    Bound &by = k.output(y), &bred = k.output(red);
    if (!k.execute()) return;

    const ForwardReference r = plain_forward(c, bx, bw, by);
    std::vector<int64_t> dims = {c.n, c.k()}, kept;
    for (size_t d = 0; d < c.spatial; ++d) dims.push_back(c.out[d]);
    for (size_t d = 0; d < rank; ++d) kept.push_back(reduced[d] ? 1 : dims[d]);
    std::vector<double> want(static_cast<size_t>(product(kept)), max ? -INFINITY : 0.0), mag(want.size(), 0.0);
    std::vector<double> variance(want.size(), 0.0);
    const YTolerance tol = forward_y_tolerance(c, r);
    for (size_t i = 0; i < r.y.size(); ++i) {
        // Row-major position of element i's index with the reduced dims at 0.
        size_t rest = i, out = 0, stride = 1;
        for (size_t d = rank; d-- > 0;) {
            const size_t index = rest % static_cast<size_t>(dims[d]);
            rest /= static_cast<size_t>(dims[d]);
            if (!reduced[d]) out += index * stride;
            stride *= static_cast<size_t>(kept[d]);
        }
        want[out] = max ? std::max(want[out], r.y[i]) : want[out] + r.y[i];
        mag[out] += std::fabs(r.y[i]);
        variance[out] += tol.of(r.y[i]) * tol.of(r.y[i]);
    }
    check_forward_y(k, c, by, r);
    if (max) {
        // The largest y, as computed or as stored in the io type.
        const double rel = c.type == FE_DATA_FLOAT ? 1e-3 : c.type == FE_DATA_HALF ? 2e-3 : 1.6e-2;
        k.check("max", bred, want, rel, rel, rel);
    } else {
        k.check_sums("sum", bred, want, sum_slack(c, mag, variance, sum_eps(c.type)), 1.0, 1e-3, 1e-3, 1e-3);
    }
}

}  // namespace

void register_convolution(std::vector<Family> &out) {
    out.push_back({"conv", 1000, conv_case});
    out.push_back({"conv_int8", 300, conv_int8_case});
    out.push_back({"conv_genstats", 300, conv_genstats_case});
    out.push_back({"conv_reduction", 300, conv_reduction_case});
}

}  // namespace conformance
