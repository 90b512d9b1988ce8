// Resampling, forward and backward, over the options the API takes: max pooling (with the index
// output in int8/int32/int64, and its backward from the index or from x and y), average pooling
// including and excluding the padding (backward from dy alone, with dx's dims given or taken
// from x), nearest and bilinear upsampling (refused by cuDNN 9.19; generated so the suite
// records it); 2-D and 3-D; windows, strides and pre/post paddings equal or different per dim
// (set through the setters or the fields), the padding modes (auto, zero, -inf, edge);
// NCHW/NCDHW, channels-last, any dim order and gaps; fp16/bf16/fp32. Reference: double on the
// CPU from the definitions (windows at o * stride - pre_padding; the index is the maximum's
// position inside the window, row-major over the window's dims, padded positions counted).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "dims.hpp"
#include "families.hpp"

namespace conformance {
namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

const char *type_name(fe_data_type t) {
    switch (t) {
    case FE_DATA_HALF: return "fp16";
    case FE_DATA_BFLOAT16: return "bf16";
    case FE_DATA_FLOAT: return "fp32";
    case FE_DATA_INT8: return "int8";
    case FE_DATA_INT32: return "int32";
    case FE_DATA_INT64: return "int64";
    default: return "?";
    }
}

const char *mode_name(fe_resample_mode m) {
    switch (m) {
    case FE_RESAMPLE_MAXPOOL: return "max";
    case FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING: return "avg_include_padding";
    case FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING: return "avg_exclude_padding";
    case FE_RESAMPLE_NEAREST: return "nearest";
    case FE_RESAMPLE_BILINEAR: return "bilinear";
    }
    return "?";
}

const char *padding_name(fe_resample_padding p) {
    switch (p) {
    case FE_RESAMPLE_PADDING_AUTO: return "auto";
    case FE_RESAMPLE_PADDING_ZERO: return "zero";
    case FE_RESAMPLE_PADDING_NEG_INF: return "neg_inf";
    case FE_RESAMPLE_PADDING_EDGE: return "edge";
    }
    return "?";
}

bool pooling(fe_resample_mode m) { return m != FE_RESAMPLE_NEAREST && m != FE_RESAMPLE_BILINEAR; }

// Strides for NC-first dims: packed, channels-last (the usual pooling layout), any order, gaps,
// now and then odd strides on unit dims (never used to address memory).
Dims draw_layout(Rng &rng, const Dims &dims, double channels_last) {
    const size_t r = dims.size();
    std::vector<size_t> order(r);
    for (size_t i = 0; i < r; ++i) order[i] = i;
    double pick = rng.uniform(0, 1);
    if (pick < channels_last) {
        order.assign(1, 0);
        for (size_t i = 2; i < r; ++i) order.push_back(i);
        order.push_back(1);
    } else if (pick < channels_last + 0.12) {
        std::shuffle(order.begin(), order.end(), rng.engine());
    }
    Dims gaps(r, 0);
    if (rng.chance(0.15))
        for (size_t i = 0; i < r; ++i)
            if (rng.chance(0.4)) gaps[i] = 8 * rng.range(1, 3);
    gaps[order.back()] = 0;
    Dims strides = strides_in_order(dims, order, gaps);
    for (size_t d = 0; d < r; ++d)
        if (dims[d] == 1 && rng.chance(0.2)) strides[d] = 2 * rng.range(0, 50) + 1;
    return strides;
}

struct PoolConfig {
    fe_data_type type = FE_DATA_HALF;
    fe_resample_mode mode = FE_RESAMPLE_MAXPOOL;
    fe_resample_padding padding = FE_RESAMPLE_PADDING_AUTO;
    size_t n = 2;  // spatial dims
    Dims x, y, window, stride, pre, post;
    Dims x_strides, dy_strides;
    bool backward = false;
    bool index = false;                  // forward: generate_index
    fe_data_type index_type = FE_DATA_INT8;
    int source = 0;                      // backward: max 0 index, 1 x and y; others 0 dy alone, 1 with x
    bool give_dims = true;               // backward: dx_dims given (required without x)
    bool setters = false, spatial_field = false, compute_float = false;
};

Dims output_dims(const PoolConfig &c) {
    Dims out = c.x;
    for (size_t i = 0; i < c.n; ++i)
        out[i + 2] = pooling(c.mode) ? (c.x[i + 2] + c.pre[i] + c.post[i] - c.window[i]) / c.stride[i] + 1
                                     : c.x[i + 2] * c.stride[i];
    return out;
}

PoolConfig draw(Rng &rng) {
    PoolConfig c;
    c.type = rng.pick(std::vector<fe_data_type>{FE_DATA_HALF, FE_DATA_BFLOAT16, FE_DATA_FLOAT});
    double m = rng.uniform(0, 1);
    c.mode = m < 0.35 ? FE_RESAMPLE_MAXPOOL : m < 0.6 ? FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING
                                          : m < 0.85 ? FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING
                                          : m < 0.925 ? FE_RESAMPLE_NEAREST : FE_RESAMPLE_BILINEAR;
    c.n = rng.chance(0.75) ? 2 : 3;
    c.x = {rng.size(1, 8), rng.chance(0.6) ? 8 * rng.size(1, 16) : rng.size(1, 64)};
    for (size_t i = 0; i < c.n; ++i) c.x.push_back(c.n == 2 ? rng.size(1, 64) : rng.size(1, 16));
    const bool same = rng.chance(0.7);
    for (size_t i = 0; i < c.n; ++i) {
        if (pooling(c.mode)) {
            int64_t w = same && i > 0 ? c.window[0] : rng.range(1, c.n == 2 ? 5 : 4);
            int64_t s = same && i > 0 ? c.stride[0] : rng.range(1, std::min<int64_t>(w + 1, 4));
            int64_t pre = same && i > 0 ? c.pre[0] : (rng.chance(0.5) ? 0 : rng.range(0, w - 1));
            int64_t post = same && i > 0 ? c.post[0] : (rng.chance(0.7) ? pre : rng.range(0, w - 1));
            c.window.push_back(w);
            c.stride.push_back(s);
            c.pre.push_back(pre);
            c.post.push_back(post);
            // The window must fit the image with its padding.
            c.x[i + 2] = std::max(c.x[i + 2], w - pre - post);
        } else {
            c.window.push_back(0);
            c.stride.push_back(same && i > 0 ? c.stride[0] : rng.range(2, 3));
            c.pre.push_back(0);
            c.post.push_back(0);
        }
    }
    // Keep the reference cheap: shrink the batch, the channels, then the image.
    const int64_t cap = rng.chance(0.1) ? (int64_t{1} << 20) : (int64_t{1} << 17);
    while (product(c.x) > cap) {
        size_t largest = 0;
        for (size_t i = 1; i < c.x.size(); ++i)
            if (c.x[i] > c.x[largest]) largest = i;
        int64_t floor_size = largest >= 2 ? std::max<int64_t>(1, c.window[largest - 2] - c.pre[largest - 2] - c.post[largest - 2]) : 1;
        if ((c.x[largest] + 1) / 2 < floor_size) break;
        c.x[largest] = (c.x[largest] + 1) / 2;
    }
    c.y = output_dims(c);

    if (rng.chance(0.2) && pooling(c.mode)) {
        // Padding modes: -inf padding only for max pooling (an average over -inf is no number).
        std::vector<fe_resample_padding> modes = {FE_RESAMPLE_PADDING_ZERO, FE_RESAMPLE_PADDING_EDGE};
        if (c.mode == FE_RESAMPLE_MAXPOOL) modes.push_back(FE_RESAMPLE_PADDING_NEG_INF);
        c.padding = rng.pick(modes);
    }
    c.backward = rng.chance(0.4);
    if (!c.backward) {
        c.x_strides = draw_layout(rng, c.x, 0.45);
        c.index = c.mode == FE_RESAMPLE_MAXPOOL && rng.chance(0.4);
        if (c.index && rng.chance(0.4)) c.index_type = rng.chance(0.5) ? FE_DATA_INT32 : FE_DATA_INT64;
    } else {
        // cuDNN 9.19 runs max pooling backward channels-last only: mostly that.
        c.dy_strides = draw_layout(rng, c.y, c.mode == FE_RESAMPLE_MAXPOOL ? 0.75 : 0.45);
        c.source = c.mode == FE_RESAMPLE_MAXPOOL ? (rng.chance(0.8) ? 0 : 1) : (rng.chance(0.6) ? 0 : 1);
        // x, where given, mostly in dy's layout.
        c.x_strides = rng.chance(0.7) ? strides_in_order(c.x, order_of(c.y, c.dy_strides), {}) : draw_layout(rng, c.x, 0.3);
        c.give_dims = c.source == 0 || rng.chance(0.2);
        // The index the backward reads: int8 cannot be uploaded through the harness (it takes
        // float, int32 and int64 values), so int32 or int64.
        c.index_type = rng.chance(0.5) ? FE_DATA_INT32 : FE_DATA_INT64;
    }
    c.setters = rng.chance(0.5);
    c.spatial_field = !c.setters && rng.chance(0.3);
    c.compute_float = rng.chance(0.2);
    return c;
}

std::string describe(const PoolConfig &c) {
    std::string s = std::string(c.backward ? "backward " : "forward ") + mode_name(c.mode) + " " + type_name(c.type);
    s += " x=" + list(c.x);
    if (!c.backward || c.source == 1) s += "/" + list(c.x_strides);
    s += " y=" + list(c.y);
    if (c.backward) s += " dy=" + list(c.dy_strides);
    if (pooling(c.mode)) s += " window=" + list(c.window);
    s += (pooling(c.mode) ? " stride=" : " factor=") + list(c.stride);
    if (pooling(c.mode)) s += " pre=" + list(c.pre) + " post=" + list(c.post);
    s += std::string(" padding=") + padding_name(c.padding);
    if (c.index) s += std::string(" index=") + type_name(c.index_type);
    if (c.backward) {
        if (c.mode == FE_RESAMPLE_MAXPOOL)
            s += c.source == 0 ? std::string(" from=index(") + type_name(c.index_type) + ")" : " from=x,y";
        else
            s += c.source == 0 ? " from=dy" : " from=dy,x";
        if (c.give_dims) s += " dx_dims";
    }
    if (c.setters) s += " setters";
    if (c.spatial_field) s += " spatial_dims";
    if (c.compute_float) s += " compute=fp32";
    return s;
}

bool set_options(Case &k, const PoolConfig &c, fe_resample_options &o) {
    o.mode = c.mode;
    o.padding_mode = c.padding;
    if (c.compute_float) o.compute_data_type = FE_DATA_FLOAT;
    if (c.setters) {
        // One value for every spatial dim where they agree, else one per dim.
        auto set = [&](fe_status (*f)(fe_resample_options *, size_t, const int64_t *), const Dims &v, const char *name) {
            bool all_same = std::all_of(v.begin(), v.end(), [&](int64_t e) { return e == v[0]; });
            return k.ok(f(&o, all_same ? 1 : v.size(), v.data()), name);
        };
        if (pooling(c.mode) && !set(fe_resample_options_set_window, c.window, "fe_resample_options_set_window"))
            return false;
        if (!set(fe_resample_options_set_stride, c.stride, "fe_resample_options_set_stride")) return false;
        if (pooling(c.mode)) {
            if (c.pre == c.post) {
                if (!set(fe_resample_options_set_padding, c.pre, "fe_resample_options_set_padding")) return false;
            } else if (!set(fe_resample_options_set_pre_padding, c.pre, "fe_resample_options_set_pre_padding") ||
                       !set(fe_resample_options_set_post_padding, c.post, "fe_resample_options_set_post_padding")) {
                return false;
            }
        }
    } else {
        for (size_t i = 0; i < c.n; ++i) {
            o.window[i] = c.window[i];
            o.stride[i] = c.stride[i];
            o.pre_padding[i] = c.pre[i];
            o.post_padding[i] = c.post[i];
        }
        if (c.spatial_field) o.spatial_dims = c.n;
    }
    return true;
}

// One input of an output element: x's element at row-major position src, or (src < 0) the
// padding's value; and the tap's place in the window (row-major over the window's dims).
struct Tap {
    int64_t src;
    double pad;
    double weight;
    int64_t place;
};

// The taps of output element `o` (a full index: n, c, spatial...).
void taps_of(const PoolConfig &c, const Dims &o, std::vector<Tap> &taps) {
    taps.clear();
    const size_t n = c.n;
    auto flat = [&](const Dims &pos) {
        int64_t f = o[0] * c.x[1] + o[1];
        for (size_t i = 0; i < n; ++i) f = f * c.x[i + 2] + pos[i];
        return f;
    };
    Dims pos(n);
    if (c.mode == FE_RESAMPLE_NEAREST) {
        for (size_t i = 0; i < n; ++i) pos[i] = o[i + 2] / c.stride[i];
        taps.push_back({flat(pos), 0, 1, 0});
        return;
    }
    if (c.mode == FE_RESAMPLE_BILINEAR) {
        // Half-pixel centres (PyTorch's align_corners=False), clamped at the edges.
        std::vector<int64_t> lo(n), hi(n);
        std::vector<double> frac(n);
        for (size_t i = 0; i < n; ++i) {
            double src = std::max(0.0, (static_cast<double>(o[i + 2]) + 0.5) / static_cast<double>(c.stride[i]) - 0.5);
            lo[i] = std::min<int64_t>(static_cast<int64_t>(std::floor(src)), c.x[i + 2] - 1);
            hi[i] = std::min<int64_t>(lo[i] + 1, c.x[i + 2] - 1);
            frac[i] = src - static_cast<double>(lo[i]);
        }
        for (int64_t corner = 0; corner < (int64_t{1} << n); ++corner) {
            double w = 1;
            for (size_t i = 0; i < n; ++i) {
                bool up = (corner >> (n - 1 - i)) & 1;
                pos[i] = up ? hi[i] : lo[i];
                w *= up ? frac[i] : 1 - frac[i];
            }
            taps.push_back({flat(pos), 0, w, corner});
        }
        return;
    }
    const fe_resample_padding padding =
        c.padding != FE_RESAMPLE_PADDING_AUTO ? c.padding
                                              : (c.mode == FE_RESAMPLE_MAXPOOL ? FE_RESAMPLE_PADDING_NEG_INF
                                                                               : FE_RESAMPLE_PADDING_ZERO);
    int64_t total = 1;
    for (size_t i = 0; i < n; ++i) total *= c.window[i];
    Dims w(n, 0);
    std::vector<Tap> inside;
    for (int64_t place = 0; place < total; ++place) {
        bool in = true;
        for (size_t i = 0; i < n; ++i) {
            pos[i] = o[i + 2] * c.stride[i] - c.pre[i] + w[i];
            if (pos[i] < 0 || pos[i] >= c.x[i + 2]) in = false;
        }
        if (in) {
            taps.push_back({flat(pos), 0, 0, place});
        } else if (c.mode != FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING) {
            if (padding == FE_RESAMPLE_PADDING_EDGE) {
                for (size_t i = 0; i < n; ++i) pos[i] = std::min(std::max<int64_t>(pos[i], 0), c.x[i + 2] - 1);
                taps.push_back({flat(pos), 0, 0, place});
            } else {
                taps.push_back({-1, padding == FE_RESAMPLE_PADDING_NEG_INF ? kMinusInf : 0.0, 0, place});
            }
        }
        for (size_t i = n; i-- > 0;) {
            if (++w[i] < c.window[i]) break;
            w[i] = 0;
        }
    }
    // Averages: include-padding divides by the whole window, exclude-padding by what is inside.
    for (Tap &t : taps) t.weight = 1.0 / static_cast<double>(taps.size());
}

// The forward in double: y, and for max pooling the winning tap (first of equal maxima) and
// whether the maximum is tied between taps of different sources (the index is then ambiguous,
// and so is where a backward from x and y sends the gradient).
struct Forward {
    std::vector<double> y;
    std::vector<Tap> best;
    std::vector<char> tied, tied_source;
};

Forward forward_reference(const PoolConfig &c, const std::vector<double> &xv) {
    Forward f;
    std::vector<Tap> taps;
    for_each_index(c.y, [&](const Dims &o) {
        taps_of(c, o, taps);
        auto value = [&](const Tap &t) { return t.src >= 0 ? xv[static_cast<size_t>(t.src)] : t.pad; };
        if (c.mode == FE_RESAMPLE_MAXPOOL) {
            size_t best = 0;
            for (size_t i = 1; i < taps.size(); ++i)
                if (value(taps[i]) > value(taps[best])) best = i;
            bool tied = false, tied_source = false;
            for (size_t i = 0; i < taps.size(); ++i)
                if (i != best && value(taps[i]) == value(taps[best])) {
                    tied = true;
                    tied_source = tied_source || taps[i].src != taps[best].src;
                }
            f.y.push_back(value(taps[best]));
            f.best.push_back(taps[best]);
            f.tied.push_back(tied);
            f.tied_source.push_back(tied_source);
        } else {
            double acc = 0;
            for (const Tap &t : taps) acc += t.weight * value(t);
            f.y.push_back(acc);
        }
    });
    return f;
}

double atol_for(fe_data_type t) { return t == FE_DATA_FLOAT ? 1e-5 : t == FE_DATA_HALF ? 1e-3 : 8e-3; }
double norm_for(fe_data_type t) { return t == FE_DATA_FLOAT ? 1e-5 : t == FE_DATA_HALF ? 1e-3 : 8e-3; }

void resample_case(Case &k) {
    PoolConfig c = draw(k.rng);
    k.describe(describe(c));
    if (!k.graph(c.type)) return;
    fe_graph *g = k.graph_handle();
    fe_resample_options o = FE_RESAMPLE_OPTIONS_INIT;
    if (!set_options(k, c, o)) return;
    const bool max = c.mode == FE_RESAMPLE_MAXPOOL;

    if (!c.backward) {
        fe_tensor *x = k.tensor("x", c.x, c.x_strides);
        if (!x) return;
        o.generate_index = c.index;
        o.index_data_type = c.index_type;
        fe_tensor *y = nullptr, *index = nullptr;
        if (!k.ok(fe_graph_resample(g, x, &o, &y, &index), "fe_graph_resample")) return;
        if (!k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output")) return;
        if (index && !k.ok(fe_tensor_set_output(index, 1), "fe_tensor_set_output")) return;
        if (!k.build()) return;
        Bound &bx = k.input(x, -2.f, 2.f);
        Bound &by = k.output(y);
        Bound *bi = index ? &k.output(index) : nullptr;
        if (!k.execute()) return;
        Forward f = forward_reference(c, logical(bx));
        // Max pooling selects a value: exact. Averages and interpolations round once.
        if (max)
            k.check("y", by, f.y, 1e-6, 0, 1e-6);
        else
            k.check("y", by, f.y, atol_for(c.type), atol_for(c.type), norm_for(c.type));
        if (bi) {
            std::vector<double> places;
            std::vector<char> defined;
            for (size_t e = 0; e < f.best.size(); ++e) {
                places.push_back(static_cast<double>(f.best[e].place));
                defined.push_back(!f.tied[e]);
            }
            k.check("index", *bi, places, 0.5, 0, 0, &defined);
        }
        return;
    }

    fe_tensor *dy = k.tensor("dy", c.y, c.dy_strides);
    fe_tensor *x = nullptr, *y = nullptr, *index = nullptr, *dx = nullptr;
    if (c.source == 1) {
        x = k.tensor("x", c.x, c.x_strides);
        if (max) y = k.tensor("y", c.y, c.dy_strides);
    } else if (max) {
        index = k.tensor("index", c.y, c.dy_strides, c.index_type);
    }
    if (!dy || (c.source == 1 && !x) || (max && c.source == 1 && !y) || (max && c.source == 0 && !index)) return;
    if (!k.ok(fe_graph_resample_backward(g, dy, x, y, index, c.give_dims ? c.x.size() : 0, c.give_dims ? c.x.data() : nullptr,
                                         &o, &dx),
              "fe_graph_resample_backward"))
        return;
    if (!k.ok(fe_tensor_set_output(dx, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;

    // x: its values decide max pooling's routing; fresh ones when the graph does not read x.
    Bound *bx = x ? &k.input(x, -2.f, 2.f) : nullptr;
    std::vector<double> xv;
    if (bx) {
        xv = logical(*bx);
    } else {
        std::uniform_real_distribution<float> value(-2.f, 2.f);
        for (int64_t e = 0; e < product(c.x); ++e) xv.push_back(round_to(c.type, value(k.rng.engine())));
    }
    Forward f = forward_reference(c, xv);
    Bound &bdy = k.input(dy, -1.f, 1.f);
    if (y) {
        // y as the forward wrote it (max pooling selects: exact in every type).
        std::vector<float> memory(static_cast<size_t>(bdy.span()), 0.f);
        size_t e = 0;
        for_each_index(c.y, [&](const Dims &i) { memory[static_cast<size_t>(bdy.offset(i))] = static_cast<float>(f.y[e++]); });
        k.input_values(y, memory);
    }
    if (index) {
        size_t e = 0;
        std::vector<int64_t> places(static_cast<size_t>(bdy.span()), 0);
        for_each_index(c.y, [&](const Dims &i) { places[static_cast<size_t>(bdy.offset(i))] = f.best[e++].place; });
        if (c.index_type == FE_DATA_INT32)
            k.input_int32(index, std::vector<int32_t>(places.begin(), places.end()));
        else
            k.input_int64(index, places);
    }
    Bound &bdx = k.output(dx);
    if (!k.execute()) return;

    std::vector<double> ref(static_cast<size_t>(product(c.x)), 0.0);
    std::vector<char> defined(ref.size(), 1);
    std::vector<Tap> taps;
    size_t e = 0;
    auto value = [&](const Tap &t) { return t.src >= 0 ? xv[static_cast<size_t>(t.src)] : t.pad; };
    for_each_index(c.y, [&](const Dims &i) {
        const double grad = bdy.at(i);
        if (max) {
            const Tap &best = f.best[e];
            // From x and y, a maximum tied between sources may send its gradient to either.
            if (c.source == 1 && f.tied_source[e]) {
                taps_of(c, i, taps);
                for (const Tap &t : taps)
                    if (t.src >= 0 && value(t) == f.y[e]) defined[static_cast<size_t>(t.src)] = 0;
            }
            if (best.src >= 0) ref[static_cast<size_t>(best.src)] += grad;
        } else {
            taps_of(c, i, taps);
            for (const Tap &t : taps)
                if (t.src >= 0) ref[static_cast<size_t>(t.src)] += grad * t.weight;
        }
        ++e;
    });
    // dx sums a few dy values (scaled): twice the forward's rounding.
    k.check("dx", bdx, ref, 2 * atol_for(c.type), 2 * atol_for(c.type), 2 * norm_for(c.type), &defined);
}

}  // namespace

void register_resample(std::vector<Family> &out) { out.push_back({"resample", 200, resample_case}); }

}  // namespace conformance
