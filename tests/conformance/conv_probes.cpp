// Probes of the capability table's convolution entries: each builds the one graph its entry
// describes, executes it, and checks every output against a direct convolution in double on the
// CPU.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "probes.hpp"

namespace conformance {
namespace {

// Channels-last strides (NHWC, NDHWC) for dims [N, C, spatial...].
std::vector<int64_t> channels_last(const std::vector<int64_t> &d) {
    std::vector<int64_t> s(d.size());
    int64_t step = d[1];
    s[1] = 1;
    for (size_t i = d.size(); i-- > 2;) {
        s[i] = step;
        step *= d[i];
    }
    s[0] = step;
    return s;
}
std::vector<int64_t> nhwc(const std::vector<int64_t> &d) { return channels_last(d); }

// Packed row-major strides (NCHW).
std::vector<int64_t> packed(const std::vector<int64_t> &d) {
    std::vector<int64_t> s(d.size());
    int64_t step = 1;
    for (size_t i = d.size(); i-- > 0;) {
        s[i] = step;
        step *= d[i];
    }
    return s;
}

// A convolution's shape, stride 1 and dilation 1, cross-correlation: x [N, C, in...], w [K, C /
// groups, f...], y [N, K, out...] with out = in + pre + post - f + 1. 2-D shapes leave the first
// of the three spatial dims at 1.
struct Geometry {
    int64_t n = 1, c = 1, k = 1, groups = 1;
    int64_t in[3] = {1, 1, 1}, f[3] = {1, 1, 1}, out[3] = {1, 1, 1}, pre[3] = {0, 0, 0};
};

// Calls term(xi, wi, yi) with flat logical indices for every product of the forward relation
//   y[n, k, o] += x[n, (k / (K / groups)) * (C / groups) + c, o - pre + f] * w[k, c, f].
template <typename Term>
void for_each_term(const Geometry &g, Term term) {
    const int64_t cg = g.c / g.groups, kg = g.k / g.groups;
    for (int64_t n = 0; n < g.n; ++n)
        for (int64_t k = 0; k < g.k; ++k) {
            const int64_t first = (k / kg) * cg;
            for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
                for (int64_t o1 = 0; o1 < g.out[1]; ++o1)
                    for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
                        const int64_t yi = (((n * g.k + k) * g.out[0] + o0) * g.out[1] + o1) * g.out[2] + o2;
                        for (int64_t ch = 0; ch < cg; ++ch)
                            for (int64_t f0 = 0; f0 < g.f[0]; ++f0) {
                                const int64_t i0 = o0 - g.pre[0] + f0;
                                if (i0 < 0 || i0 >= g.in[0]) continue;
                                for (int64_t f1 = 0; f1 < g.f[1]; ++f1) {
                                    const int64_t i1 = o1 - g.pre[1] + f1;
                                    if (i1 < 0 || i1 >= g.in[1]) continue;
                                    for (int64_t f2 = 0; f2 < g.f[2]; ++f2) {
                                        const int64_t i2 = o2 - g.pre[2] + f2;
                                        if (i2 < 0 || i2 >= g.in[2]) continue;
                                        const int64_t xi = (((n * g.c + first + ch) * g.in[0] + i0) * g.in[1] + i1) * g.in[2] + i2;
                                        const int64_t wi = (((k * cg + ch) * g.f[0] + f0) * g.f[1] + f1) * g.f[2] + f2;
                                        term(xi, wi, yi);
                                    }
                                }
                            }
                    }
        }
}

// A 2-D geometry: x [n, c, h, w], filter r x s, padding `pad` on every side.
Geometry geometry_2d(int64_t n, int64_t c, int64_t k, int64_t h, int64_t w, int64_t r, int64_t s, int64_t pad) {
    Geometry g;
    g.n = n;
    g.c = c;
    g.k = k;
    g.in[1] = h;
    g.in[2] = w;
    g.f[1] = r;
    g.f[2] = s;
    g.pre[1] = g.pre[2] = pad;
    g.out[1] = h + 2 * pad - r + 1;
    g.out[2] = w + 2 * pad - s + 1;
    return g;
}

// y of the forward relation from bound x and w, in logical order.
std::vector<double> fprop(const Geometry &g, const Bound &x, const Bound &w) {
    std::vector<double> X = logical(x), W = logical(w), Y(static_cast<size_t>(g.n * g.k * g.out[0] * g.out[1] * g.out[2]), 0.0);
    for_each_term(g, [&](int64_t xi, int64_t wi, int64_t yi) {
        Y[static_cast<size_t>(yi)] += X[static_cast<size_t>(xi)] * W[static_cast<size_t>(wi)];
    });
    return Y;
}

// int8 image and weight (channels-last), int32 math, the result's type set to int32. Small whole
// numbers keep every product and sum exact, so the result must equal the reference exactly.
void int8_conv_int32_result(Case &k) {
    const std::vector<int64_t> xd = {4, 32, 12, 12}, wd = {64, 32, 3, 3};
    k.describe("int8 conv fprop x [4,32,12,12] and w [64,32,3,3] NHWC (values in [-8, 8]), pad 1, stride 1, int32 "
               "compute, y [4,64,12,12] int32 (exact)");
    if (!k.graph(FE_DATA_INT8, FE_DATA_INT32, FE_DATA_INT32)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.tensor("x", xd, nhwc(xd), FE_DATA_INT8), *w = k.tensor("w", wd, nhwc(wd), FE_DATA_INT8);
    if (!x || !w) return;
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    for (int i = 0; i < 2; ++i) o.pre_padding[i] = o.post_padding[i] = 1;
    o.compute_data_type = FE_DATA_INT32;
    fe_tensor *y = nullptr;
    if (!k.ok(fe_graph_conv_fprop(g, x, w, &o, &y), "fe_graph_conv_fprop") ||
        !k.ok(fe_tensor_set_data_type(y, FE_DATA_INT32), "fe_tensor_set_data_type") ||
        !k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    Bound &bx = k.input_int8(x, 8), &bw = k.input_int8(w, 8);
    Bound &by = k.output(y);
    // Poisoned with 0x7F7F7F7F, a value no result takes (the harness's all-ones is -1, which one may).
    if (by.buffer) k.ok(fe_buffer_fill_bytes(by.buffer, 0x7F), "fe_buffer_fill_bytes");
    if (!k.execute()) return;
    k.check("y", by, fprop(geometry_2d(4, 32, 64, 12, 12, 3, 3, 1), bx, bw), 0.5, 0, 1e-6);
}

// y = [skip | conv(x, w)] along the channels, all fp16 NHWC: a convolution written into a
// concatenation. Copied: skip is a tensor of its own that the graph copies into y. In place
// (in_place_index 0): skip already lies in y's first channels (bound at y's address, with y's
// strides) and only the convolution's channels are written.
void concatenate_of_results(Case &k, bool in_place) {
    const int64_t N = 4, C = 32, K = 32, S = 32, H = 16, W = 16;
    k.describe(std::string("fp16 conv fprop x [4,32,16,16] w [32,32,3,3] NHWC pad 1, fp32 math, fp16 result (virtual, type set) "
                           "-> concatenated after skip [4,32,16,16] along C into y [4,64,16,16] NHWC, skip ") +
               (in_place ? "in place (in_place_index 0, inside y's buffer)" : "copied (a tensor of its own)"));
    if (!k.graph(FE_DATA_HALF)) return;
    fe_graph *g = k.graph_handle();
    const std::vector<int64_t> xd = {N, C, H, W}, wd = {K, C, 3, 3}, sd = {N, S, H, W}, yd = {N, S + K, H, W};
    const std::vector<int64_t> ys = nhwc(yd);
    fe_tensor *x = k.tensor("x", xd, nhwc(xd)), *w = k.tensor("w", wd, nhwc(wd));
    fe_tensor *skip = k.tensor("skip", sd, in_place ? ys : nhwc(sd), FE_DATA_HALF);
    if (!x || !w || !skip) return;
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    for (int i = 0; i < 2; ++i) o.pre_padding[i] = o.post_padding[i] = 1;
    fe_tensor *conv = nullptr, *y = nullptr;
    if (!k.ok(fe_graph_conv_fprop(g, x, w, &o, &conv), "fe_graph_conv_fprop") ||
        !k.ok(fe_tensor_set_data_type(conv, FE_DATA_HALF), "fe_tensor_set_data_type"))
        return;
    fe_concatenate_options co = FE_CONCATENATE_OPTIONS_INIT;
    co.in_place_index = in_place ? 0 : -1;
    fe_tensor *parts[2] = {skip, conv};
    if (!k.ok(fe_graph_concatenate(g, 2, parts, 1, &co, &y), "fe_graph_concatenate") ||
        !k.ok(fe_tensor_set_strides(y, 4, ys.data()), "fe_tensor_set_strides") ||
        !k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    Bound &bx = k.input(x), &bw = k.input(w);
    Bound &bs = k.input(skip);
    Bound &by = k.output(y);
    if (in_place) {
        // skip's values go into y's first channels, the rest of y stays poisoned (NaN); skip is
        // bound to y's buffer, its own given back.
        std::vector<float> all(static_cast<size_t>(by.span()), std::numeric_limits<float>::quiet_NaN());
        for (int64_t n = 0; n < N; ++n)
            for (int64_t c = 0; c < S; ++c)
                for (int64_t h = 0; h < H; ++h)
                    for (int64_t v = 0; v < W; ++v) all[static_cast<size_t>(by.offset({n, c, h, v}))] = bs.at({n, c, h, v});
        fe_buffer_destroy(bs.buffer);
        bs.buffer = by.buffer;
        if (by.buffer) k.ok(fe_buffer_upload_float(by.buffer, all.data(), by.span(), FE_DATA_HALF), "fe_buffer_upload_float");
    }
    bool ran = k.execute();
    if (in_place) bs.buffer = nullptr;  // y's buffer, freed with y's bound
    if (!ran) return;
    std::vector<double> c = fprop(geometry_2d(N, C, K, H, W, 3, 3, 1), bx, bw), ref;
    for (int64_t n = 0; n < N; ++n)
        for (int64_t ch = 0; ch < S + K; ++ch)
            for (int64_t h = 0; h < H; ++h)
                for (int64_t v = 0; v < W; ++v)
                    ref.push_back(ch < S ? static_cast<double>(bs.at({n, ch, h, v}))
                                         : c[static_cast<size_t>(((n * K + (ch - S)) * H + h) * W + v)]);
    // Each convolution result sums 32 * 9 products of uniform(-1, 1) values.
    const double spread = std::sqrt(static_cast<double>(C * 9)) / 3;
    k.check("y", by, ref, 1e-2 * spread, 2e-2, 1e-2);
}

// A convolution fused with pointwise operations whose image-shaped tensors mix channels-last and
// NCHW, fp16 with fp32 math, N 4, C 32, K 32, 16 x 16, 3 x 3, padding 1:
//   0: y = relu(conv(x, w) + bias), x and w NHWC, y NCHW
//   1: y = relu(conv(x, w) + residual + bias), x and w NHWC, residual and y NCHW
//   2: dx = relu_backward(dgrad(dy, w), x), dy, w and dx NHWC, x NCHW
void conv_fusion_mixed_layouts(Case &k, int form) {
    const int64_t N = 4, C = 32, K = 32, H = 16, W = 16;
    static const char *forms[] = {
        "fp16 conv fprop + bias + relu: x [4,32,16,16] and w [32,32,3,3] NHWC, bias [1,32,1,1], y NCHW (set)",
        "fp16 conv fprop + residual add + bias + relu: x [4,32,16,16] and w [32,32,3,3] NHWC, residual "
        "[4,32,16,16] and y NCHW, bias [1,32,1,1]",
        "fp16 conv dgrad + relu backward: dy [4,32,16,16] and w [32,32,3,3] NHWC, dx NHWC, the forward x "
        "[4,32,16,16] NCHW"};
    k.describe(std::string(forms[form]) + ", pad 1, stride 1, fp32 math");
    if (!k.graph(FE_DATA_HALF)) return;
    fe_graph *g = k.graph_handle();
    const std::vector<int64_t> image = {N, C, H, W}, wd = {K, C, 3, 3}, kvec = {1, K, 1, 1};
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    for (int i = 0; i < 2; ++i) o.pre_padding[i] = o.post_padding[i] = 1;
    fe_tensor *a = k.tensor(form == 2 ? "dy" : "x", image, nhwc(image)), *w = k.tensor("w", wd, nhwc(wd));
    if (!a || !w) return;
    fe_tensor *conv = nullptr, *t = nullptr, *t2 = nullptr, *out = nullptr, *bias = nullptr, *aux = nullptr;
    if (form == 0) {
        bias = k.packed("bias", kvec);
        if (!bias || !k.ok(fe_graph_conv_fprop(g, a, w, &o, &conv), "fe_graph_conv_fprop") ||
            !k.ok(fe_graph_bias(g, conv, bias, nullptr, &t), "fe_graph_bias") ||
            !k.ok(fe_graph_relu(g, t, nullptr, &out), "fe_graph_relu") ||
            !k.ok(fe_tensor_set_strides(out, 4, packed(image).data()), "fe_tensor_set_strides"))
            return;
    } else if (form == 1) {
        bias = k.packed("bias", kvec);
        aux = k.tensor("residual", image, packed(image));
        if (!bias || !aux || !k.ok(fe_graph_conv_fprop(g, a, w, &o, &conv), "fe_graph_conv_fprop") ||
            !k.ok(fe_graph_add(g, conv, aux, nullptr, &t), "fe_graph_add") ||
            !k.ok(fe_graph_bias(g, t, bias, nullptr, &t2), "fe_graph_bias") ||
            !k.ok(fe_graph_relu(g, t2, nullptr, &out), "fe_graph_relu") ||
            !k.ok(fe_tensor_set_strides(out, 4, packed(image).data()), "fe_tensor_set_strides"))
            return;
    } else {
        aux = k.tensor("x", image, packed(image));
        if (!aux || !k.ok(fe_graph_conv_dgrad(g, a, w, image.size(), image.data(), &o, &conv), "fe_graph_conv_dgrad") ||
            !k.ok(fe_graph_pointwise(g, FE_POINTWISE_RELU_BWD, conv, aux, nullptr, nullptr, &out), "fe_graph_pointwise"))
            return;
    }
    if (!k.ok(fe_tensor_set_output(out, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;
    Bound &ba = k.input(a), &bw = k.input(w);
    Bound *bb = bias ? &k.input(bias) : nullptr;
    Bound *baux = aux ? &k.input(aux, form == 1 ? -2.f : -1.f, form == 1 ? 2.f : 1.f) : nullptr;
    Bound &bout = k.output(out);
    if (!k.execute()) return;
    const Geometry geo = geometry_2d(N, C, K, H, W, 3, 3, 1);
    std::vector<double> ref;
    std::vector<char> defined;
    const int64_t plane = H * W;
    if (form < 2) {
        ref = fprop(geo, ba, bw);
        std::vector<double> bv = logical(*bb), rv = form == 1 ? logical(*baux) : std::vector<double>();
        for (size_t i = 0; i < ref.size(); ++i) {
            double v = ref[i] + bv[(i / static_cast<size_t>(plane)) % static_cast<size_t>(K)];
            if (form == 1) v += rv[i];
            ref[i] = std::max(0.0, v);
        }
    } else {
        // dx of the forward relation (image x [N, C, H, W], y [N, K, H, W]), passed where x > 0;
        // where x is exactly 0, whether the gradient passes is a convention.
        std::vector<double> DY = logical(ba), Wv = logical(bw), xv = logical(*baux);
        ref.assign(static_cast<size_t>(N * C * plane), 0.0);
        for_each_term(geo, [&](int64_t xi, int64_t wi, int64_t yi) {
            ref[static_cast<size_t>(xi)] += DY[static_cast<size_t>(yi)] * Wv[static_cast<size_t>(wi)];
        });
        defined.assign(ref.size(), 1);
        for (size_t i = 0; i < ref.size(); ++i) {
            if (xv[i] == 0) defined[i] = 0;
            if (!(xv[i] > 0)) ref[i] = 0;
        }
    }
    // Each result sums 32 * 9 products of uniform(-1, 1) values (the conv family's tolerances).
    const double grow = std::max(1.0, std::sqrt(static_cast<double>(C * 9)) / 4);
    k.check(form == 2 ? "dx" : "y", bout, ref, 2e-2 * grow, 2e-2, 1e-2, defined.empty() ? nullptr : &defined);
}

// The weight gradient of a 3-D depthwise convolution with asymmetric padding: x and dy
// [2,16,8,8,8] NDHWC fp16, groups 16, pre padding 1,1,1, post 1,1,2, dw [16,1,3,3,4] (given).
void conv_wgrad_depthwise_3d_asymmetric(Case &k) {
    const std::vector<int64_t> xd = {2, 16, 8, 8, 8}, dyd = {2, 16, 8, 8, 8}, dwd = {16, 1, 3, 3, 4};
    k.describe("fp16 3-D depthwise conv wgrad: x and dy [2,16,8,8,8] NDHWC, groups 16, pre padding 1,1,1, post "
               "1,1,2, stride 1, dw [16,1,3,3,4] given, fp32 math");
    if (!k.graph(FE_DATA_HALF)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.tensor("x", xd, channels_last(xd)), *dy = k.tensor("dy", dyd, channels_last(dyd));
    if (!x || !dy) return;
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    o.groups = 16;
    const int64_t pre[3] = {1, 1, 1}, post[3] = {1, 1, 2};
    fe_tensor *dw = nullptr;
    if (!k.ok(fe_conv_options_set_pre_padding(&o, 3, pre), "fe_conv_options_set_pre_padding") ||
        !k.ok(fe_conv_options_set_post_padding(&o, 3, post), "fe_conv_options_set_post_padding") ||
        !k.ok(fe_graph_conv_wgrad(g, x, dy, dwd.size(), dwd.data(), &o, &dw), "fe_graph_conv_wgrad") ||
        !k.ok(fe_tensor_set_output(dw, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    Bound &bx = k.input(x), &bdy = k.input(dy);
    Bound &bdw = k.output(dw);
    if (!k.execute()) return;
    Geometry geo;
    geo.n = 2;
    geo.c = geo.k = geo.groups = 16;
    for (int i = 0; i < 3; ++i) {
        geo.in[i] = 8;
        geo.f[i] = dwd[static_cast<size_t>(2 + i)];
        geo.pre[i] = pre[i];
        geo.out[i] = geo.in[i] + pre[i] + post[i] - geo.f[i] + 1;
    }
    std::vector<double> X = logical(bx), DY = logical(bdy), ref(static_cast<size_t>(bdw.elements()), 0.0);
    for_each_term(geo, [&](int64_t xi, int64_t wi, int64_t yi) {
        ref[static_cast<size_t>(wi)] += X[static_cast<size_t>(xi)] * DY[static_cast<size_t>(yi)];
    });
    // A dw element sums up to 2 * 8 * 8 * 8 products of uniform(-1, 1) values.
    const double grow = std::max(1.0, std::sqrt(2.0 * 8 * 8 * 8) / 4);
    k.check("dw", bdw, ref, 2e-2 * grow, 2e-2, 1e-2);
}

}  // namespace

void register_conv_probes(std::vector<Probe> &out) {
    out.push_back({"int8_conv_int32_result",
                   "int8 conv fprop [4,32,12,12] x [64,32,3,3] NHWC, pad 1, int32 compute, int32 result (exact)",
                   int8_conv_int32_result});
    out.push_back({"concatenate_of_results",
                   "fp16 conv fprop [4,32,16,16] x [32,32,3,3] NHWC concatenated after a copied skip [4,32,16,16] "
                   "along C into NHWC y",
                   [](Case &k) { concatenate_of_results(k, false); }});
    out.push_back({"concatenate_of_results:in_place",
                   "fp16 conv fprop [4,32,16,16] x [32,32,3,3] NHWC concatenated after a skip already in y's first "
                   "channels (in_place_index 0)",
                   [](Case &k) { concatenate_of_results(k, true); }});
    out.push_back({"conv_fusion_mixed_layouts",
                   "fp16 conv fprop + bias + relu, x and w NHWC, y NCHW, [4,32,16,16] x [32,32,3,3], pad 1",
                   [](Case &k) { conv_fusion_mixed_layouts(k, 0); }});
    out.push_back({"conv_fusion_mixed_layouts:residual",
                   "fp16 conv fprop + residual + bias + relu, x and w NHWC, residual and y NCHW, [4,32,16,16] x "
                   "[32,32,3,3], pad 1",
                   [](Case &k) { conv_fusion_mixed_layouts(k, 1); }});
    out.push_back({"conv_fusion_mixed_layouts:dgrad_drelu",
                   "fp16 conv dgrad + relu backward, dy, w and dx NHWC, forward x NCHW, [4,32,16,16] x [32,32,3,3], "
                   "pad 1",
                   [](Case &k) { conv_fusion_mixed_layouts(k, 2); }});
    out.push_back({"conv_wgrad_depthwise_3d_asymmetric",
                   "fp16 3-D depthwise wgrad, x and dy [2,16,8,8,8] NDHWC, groups 16, padding 1,1,1 / 1,1,2",
                   conv_wgrad_depthwise_3d_asymmetric});
}

}  // namespace conformance
