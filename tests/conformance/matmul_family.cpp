// Matmul over the options the API takes: 2-D and batched operands (rank 3 and 4) whose batch
// dims broadcast (a 1 on either side), M, N and K from 1 to 1024 (log-uniform, mostly small, now
// and then multiples of 16), operands row-major, column-major (transposed strides), batch-inner
// or in any order, with gaps (a leading dimension above the extent) and odd strides on unit dims;
// fp16/bf16/fp32 io with fp32 compute (the option set or left to the graph), the result in float
// now and then; epilogues fused in the same graph (a scale by a by-value scalar, a bias as a row
// [.., 1, N], a column [.., M, 1] or a whole residual [.., M, N], then relu, leaky relu, gelu or
// silu), the matmul's own result an output beside the epilogue's now and then; the result's
// layout overridden. A minority mixes operand types: int8 or FP8 with half or bfloat16, half
// with bfloat16 or float, e4m3 with e5m2 (converted by the library, or by the caller's identity
// cast), int8 x int8 with int32 compute, and fe_graph_matmul_fp8 with its descales (by value or
// device tensors), its scale, every result type and its amax. Reference: double on the CPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "families.hpp"

namespace conformance {
namespace {

// plain: io fp16/bf16/fp32; mixed: operands of two types through fe_graph_matmul; int8: int8 x
// int8 with int32 compute; fp8: fe_graph_matmul_fp8.
enum class Kind { plain, mixed, int8, fp8 };

enum Activation { kNoAct, kRelu, kLeakyRelu, kGelu, kSilu };

// An operand's or result's layout: the order of its dims (outermost first), the padding after
// each dim's extent, and odd strides given to unit dims (0: none; an input's only: a unit dim's
// stride never addresses memory, so any value is valid).
struct Layout {
    std::vector<size_t> order;
    std::vector<int64_t> gaps, odd;
};

struct MatmulConfig {
    Kind kind = Kind::plain;
    fe_data_type io = FE_DATA_HALF, a_type = FE_DATA_HALF, b_type = FE_DATA_HALF;
    fe_data_type c_type = FE_DATA_NOT_SET;  // NOT_SET: the default the API infers
    bool cast = false;                      // mixed: the caller converts the narrower operand
    int64_t m = 1, n = 1, k = 1;
    std::vector<int64_t> batch_a, batch_b;  // batch dims (rank - 2 of them)
    Layout la, lb, lc, lbias;
    bool custom_c = false;
    bool explicit_compute = false, named = false;
    // Epilogue: C * scale + bias, then the activation.
    bool scale = false;
    double scale_value = 1;
    int bias = 0;  // 0 none; 1 row [.., 1, N]; 2 column [.., M, 1]; 3 whole [.., M, N]
    std::vector<int64_t> bias_batch;
    fe_data_type bias_type = FE_DATA_NOT_SET;
    int act = kNoAct;
    double slope = 0;
    bool aux = false;  // the matmul's own result is an output too
    // FP8: real = stored * descale; C = real product * scale_c.
    double descale_a = 1, descale_b = 1, scale_c = 1;
    bool fast_accumulate = false;  // fp8: cuDNN's FAST_FLOAT_FOR_FP8 math for the product
    int scales = 0;  // 0 by value (fe_graph_scalar); 1 device tensors of C's rank; 2 device tensors [1]
    // Inputs are uniform in [-range, range] (int8: whole numbers).
    double range_a = 1, range_b = 1;

    size_t rank() const { return batch_a.size() + 2; }
    bool epilogue() const { return scale || bias || act != kNoAct; }
    std::vector<int64_t> dims_a() const { return with(batch_a, m, k); }
    std::vector<int64_t> dims_b() const { return with(batch_b, k, n); }
    std::vector<int64_t> dims_c() const { return with(batch_c(), m, n); }
    std::vector<int64_t> bias_dims() const { return with(bias_batch, bias == 1 ? 1 : m, bias == 2 ? 1 : n); }
    static std::vector<int64_t> with(std::vector<int64_t> batch, int64_t rows, int64_t cols) {
        batch.push_back(rows);
        batch.push_back(cols);
        return batch;
    }
    std::vector<int64_t> batch_c() const {
        std::vector<int64_t> out;
        for (size_t i = 0; i < batch_a.size(); ++i) out.push_back(std::max(batch_a[i], batch_b[i]));
        return out;
    }
};

const char *type_name(fe_data_type t) {
    switch (t) {
    case FE_DATA_HALF: return "fp16";
    case FE_DATA_BFLOAT16: return "bf16";
    case FE_DATA_FLOAT: return "fp32";
    case FE_DATA_INT8: return "int8";
    case FE_DATA_INT32: return "int32";
    case FE_DATA_FP8_E4M3: return "e4m3";
    case FE_DATA_FP8_E5M2: return "e5m2";
    case FE_DATA_NOT_SET: return "default";
    default: return fe_data_type_string(t);
    }
}

bool is_fp8(fe_data_type t) { return t == FE_DATA_FP8_E4M3 || t == FE_DATA_FP8_E5M2; }

// The order of the API's operand conversion (lib/ops/matmul.cpp documents it in the header's
// words: the narrower operand is converted): 8-bit types widen to the other, half and bfloat16
// meet in bfloat16, anything and float in float; two 8-bit types meet in half.
int width_rank(fe_data_type t) {
    switch (t) {
    case FE_DATA_FLOAT: return 4;
    case FE_DATA_BFLOAT16: return 3;
    case FE_DATA_HALF: return 2;
    default: return 1;
    }
}
fe_data_type common_type(fe_data_type a, fe_data_type b) {
    if (a == b) return a;
    if (width_rank(a) == 1 && width_rank(b) == 1) return FE_DATA_HALF;
    return width_rank(a) >= width_rank(b) ? a : b;
}

// An operand's layout for dims [batch..., rows, cols]: row-major, transposed (rows innermost) or
// any order; gaps now and then (a multiple of 8 elements mostly, any count sometimes).
Layout draw_layout(Rng &rng, size_t rank, double p_row, double p_col, double p_gap) {
    Layout l;
    for (size_t i = 0; i < rank; ++i) l.order.push_back(i);
    double u = rng.uniform(0, 1);
    if (u < p_row) {
    } else if (u < p_row + p_col) {
        std::swap(l.order[rank - 1], l.order[rank - 2]);
    } else {
        std::shuffle(l.order.begin(), l.order.end(), rng.engine());
    }
    l.gaps.assign(rank, 0);
    for (size_t i = 1; i < rank; ++i)  // the outermost dim's gap would change nothing
        if (rng.chance(p_gap)) l.gaps[l.order[i]] = rng.chance(0.7) ? 8 * rng.range(1, 4) : rng.range(1, 7);
    return l;
}

// The layout forcing a chosen dim innermost (FP8 engines want K contiguous in both operands).
Layout k_inner_layout(size_t rank, bool transposed) {
    Layout l;
    for (size_t i = 0; i < rank; ++i) l.order.push_back(i);
    if (transposed) std::swap(l.order[rank - 1], l.order[rank - 2]);
    l.gaps.assign(rank, 0);
    return l;
}

std::string layout_name(const Layout &l, const char *names) {
    std::string s;
    for (size_t d : l.order) {
        s += names[d];
        if (l.gaps[d]) s += "+" + std::to_string(l.gaps[d]);
    }
    for (size_t d = 0; d < l.odd.size(); ++d)
        if (l.odd[d]) s += std::string(",") + names[d] + "~" + std::to_string(l.odd[d]);
    return s;
}

// CUDNNFE_CONFORMANCE_VARY for this family, comma-separated: "odd=0" gives no unit dim an odd
// stride, "odd=1" gives every one of them one; "c=packed" lays C out row-major; "epilogue=0"
// drops the scale, bias and activation, "act=0" the activation only. The rest of each drawn case
// stays as drawn.
struct Variation {
    int odd = -1;
    bool packed_c = false, no_epilogue = false, no_activation = false;
};

const Variation &variation() {
    static const Variation v = [] {
        Variation out;
        const char *list = std::getenv("CUDNNFE_CONFORMANCE_VARY");
        std::string items = list ? list : "";
        size_t start = 0;
        while (start < items.size()) {
            size_t end = items.find(',', start);
            if (end == std::string::npos) end = items.size();
            const std::string item = items.substr(start, end - start);
            start = end + 1;
            if (item == "odd=0") out.odd = 0;
            else if (item == "odd=1") out.odd = 1;
            else if (item == "c=packed") out.packed_c = true;
            else if (item == "epilogue=0") out.no_epilogue = true;
            else if (item == "act=0") out.no_activation = true;
            else {
                std::fprintf(stderr, "CUDNNFE_CONFORMANCE_VARY: '%s' is not a variation this runner knows\n", item.c_str());
                std::exit(2);
            }
        }
        return out;
    }();
    return v;
}

// Odd strides for some of the unit dims of an input of these dims.
void draw_odd_strides(Rng &rng, Layout &l, const std::vector<int64_t> &dims) {
    l.odd.assign(dims.size(), 0);
    const int odd = variation().odd;
    for (size_t d = 0; d < dims.size(); ++d) {
        if (dims[d] != 1) continue;
        // The draws are made as without a variation, so that the rest of the case is unchanged.
        if (rng.chance(0.15)) l.odd[d] = 2 * rng.range(0, 40) + 1;
        if (odd == 0) l.odd[d] = 0;
        if (odd == 1 && !l.odd[d]) l.odd[d] = 2 * static_cast<int64_t>((17 + 29 * d) % 41) + 1;
    }
}

std::string dims_text(const std::vector<int64_t> &dims) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
    return s + "]";
}

std::vector<int64_t> strides_for(const std::vector<int64_t> &dims, const Layout &l) {
    std::vector<int64_t> strides = strides_in_order(dims, l.order, l.gaps);
    for (size_t d = 0; d < l.odd.size(); ++d)
        if (l.odd[d]) strides[d] = l.odd[d];
    return strides;
}

// M, N, K and the batch dims, the work (batches * M * N * K) held to 2^24 multiply-adds so the
// reference stays cheap, the largest of M, N and K halved until it fits.
void draw_shape(Rng &rng, MatmulConfig &c, bool aligned) {
    // Rank 4 now and then: cuDNN 9.19 has no matmul engine for it on H100 (every one is refused).
    size_t rank = rng.pick(std::vector<size_t>{2, 2, 3, 3, 3, 3, 4});
    c.batch_a.clear();
    c.batch_b.clear();
    for (size_t i = 0; i + 2 < rank; ++i) {
        int64_t d = rng.size(1, i == 0 ? 8 : 6);
        int64_t da = d, db = d;
        // Broadcast: one side holds a single matrix for the batch dim.
        double u = rng.uniform(0, 1);
        if (u < 0.15)
            da = 1;
        else if (u < 0.3)
            db = 1;
        c.batch_a.push_back(da);
        c.batch_b.push_back(db);
    }
    auto dim = [&]() {
        if (aligned) return 16 * rng.size(1, 64);
        if (rng.chance(0.15)) return 16 * rng.size(1, 64);
        return rng.size(1, 1024);
    };
    c.m = dim();
    c.n = dim();
    c.k = dim();
    int64_t batches = 1;
    for (int64_t d : c.batch_c()) batches *= d;
    const int64_t budget = int64_t(1) << 24;
    while (batches * c.m * c.n * c.k > budget || batches * c.m * c.n > (int64_t(1) << 21)) {
        int64_t *largest = &c.m;
        if (c.n > *largest) largest = &c.n;
        if (c.k > *largest) largest = &c.k;
        if (*largest <= (aligned ? 16 : 1)) break;
        *largest = (*largest + 1) / 2;
        if (aligned) *largest = (*largest + 15) / 16 * 16;  // stays a multiple of 16
    }
}

void draw_epilogue(Rng &rng, MatmulConfig &c) {
    if (!rng.chance(0.3)) return;
    c.scale = rng.chance(0.2);
    if (c.scale) c.scale_value = rng.uniform(0.25, 2);
    if (rng.chance(0.7)) {
        double u = rng.uniform(0, 1);
        c.bias = u < 0.75 ? 1 : (u < 0.85 ? 2 : 3);
        std::vector<int64_t> batch = c.batch_c();
        for (int64_t d : batch) c.bias_batch.push_back(rng.chance(0.5) ? d : 1);
        c.bias_type = rng.chance(0.2) ? FE_DATA_FLOAT : FE_DATA_NOT_SET;
        c.lbias = draw_layout(rng, c.rank(), 0.8, 0.1, 0.1);
        draw_odd_strides(rng, c.lbias, c.bias_dims());
    }
    if (rng.chance(0.7) || (!c.scale && !c.bias)) {
        double u = rng.uniform(0, 1);
        c.act = u < 0.35 ? kRelu : (u < 0.5 ? kLeakyRelu : (u < 0.75 ? kGelu : kSilu));
        if (c.act == kLeakyRelu) c.slope = rng.uniform(0.01, 0.3);
    }
    c.aux = rng.chance(0.15);
}

MatmulConfig draw(Rng &rng) {
    MatmulConfig c;
    double u = rng.uniform(0, 1);
    c.kind = u < 0.85 ? Kind::plain : (u < 0.91 ? Kind::mixed : (u < 0.94 ? Kind::int8 : Kind::fp8));
    c.explicit_compute = rng.chance(0.3);
    c.named = rng.chance(0.2);
    switch (c.kind) {
    case Kind::plain: {
        c.io = rng.pick(std::vector<fe_data_type>{FE_DATA_HALF, FE_DATA_BFLOAT16, FE_DATA_FLOAT});
        c.a_type = c.b_type = c.io;
        if (c.io != FE_DATA_FLOAT && rng.chance(0.1)) c.c_type = FE_DATA_FLOAT;
        break;
    }
    case Kind::mixed: {
        // (narrower, wider): the narrower operand is A or B alike.
        static const std::vector<std::pair<fe_data_type, fe_data_type>> pairs = {
            {FE_DATA_INT8, FE_DATA_HALF},         {FE_DATA_INT8, FE_DATA_BFLOAT16},
            {FE_DATA_FP8_E4M3, FE_DATA_HALF},     {FE_DATA_FP8_E4M3, FE_DATA_BFLOAT16},
            {FE_DATA_FP8_E5M2, FE_DATA_HALF},     {FE_DATA_HALF, FE_DATA_BFLOAT16},
            {FE_DATA_HALF, FE_DATA_FLOAT},        {FE_DATA_BFLOAT16, FE_DATA_FLOAT},
            {FE_DATA_FP8_E4M3, FE_DATA_FP8_E5M2},
        };
        auto p = rng.pick(pairs);
        bool narrow_a = rng.chance(0.5);
        c.a_type = narrow_a ? p.first : p.second;
        c.b_type = narrow_a ? p.second : p.first;
        c.io = FE_DATA_NOT_SET;
        // The caller's cast converts the narrower operand to the other's type (two 8-bit types
        // have no wider one to cast to).
        c.cast = width_rank(p.second) > 1 && rng.chance(0.35);
        fe_data_type common = common_type(c.a_type, c.b_type);
        c.c_type = rng.chance(0.2) ? FE_DATA_FLOAT : common;
        break;
    }
    case Kind::int8:
        c.io = c.a_type = c.b_type = FE_DATA_INT8;
        c.c_type = FE_DATA_FLOAT;  // an int32 result has no float download (the harness's)
        break;
    case Kind::fp8: {
        double v = rng.uniform(0, 1);
        c.a_type = v < 0.85 ? FE_DATA_FP8_E4M3 : FE_DATA_FP8_E5M2;
        c.b_type = v < 0.7 ? FE_DATA_FP8_E4M3 : FE_DATA_FP8_E5M2;
        c.io = c.a_type == c.b_type ? c.a_type : FE_DATA_NOT_SET;
        c.c_type = rng.pick(std::vector<fe_data_type>{FE_DATA_NOT_SET, FE_DATA_FP8_E4M3, FE_DATA_FP8_E5M2,
                                                       FE_DATA_HALF, FE_DATA_BFLOAT16, FE_DATA_BFLOAT16,
                                                       FE_DATA_FLOAT});
        c.scales = static_cast<int>(rng.pick(std::vector<int64_t>{0, 0, 1, 1, 2}));
        c.descale_a = rng.uniform(0.05, 0.5);
        c.descale_b = rng.uniform(0.05, 0.5);
        break;
    }
    }
    draw_shape(rng, c, c.kind == Kind::fp8 && rng.chance(0.6));
    size_t rank = c.rank();
    if (c.kind == Kind::fp8 && rng.chance(0.6)) {
        // K contiguous in both operands, the layout FP8 tensor-core GEMMs read ("TN").
        c.la = k_inner_layout(rank, false);
        c.lb = k_inner_layout(rank, true);
    } else {
        c.la = draw_layout(rng, rank, 0.55, 0.3, 0.12);
        c.lb = draw_layout(rng, rank, 0.55, 0.3, 0.12);
    }
    draw_odd_strides(rng, c.la, c.dims_a());
    draw_odd_strides(rng, c.lb, c.dims_b());
    c.custom_c = rng.chance(0.25);
    c.lc = c.custom_c ? draw_layout(rng, rank, 0.3, 0.4, 0.15) : k_inner_layout(rank, false);
    if (c.kind == Kind::plain || c.kind == Kind::mixed) draw_epilogue(rng, c);
    // Value ranges: int8 small whole numbers; FP8 spread over its grid.
    auto range_of = [&](fe_data_type t) {
        if (t == FE_DATA_INT8) return c.kind == Kind::int8 ? 8.0 : 4.0;
        if (is_fp8(t)) return 4.0;
        return 1.0;
    };
    c.range_a = range_of(c.a_type);
    c.range_b = range_of(c.b_type);
    if (c.kind == Kind::fp8) {
        // scale_c keeps C's spread about 4 to 32, inside e4m3's range (448) at its extremes.
        double spread = std::sqrt(static_cast<double>(c.k)) * c.range_a * c.range_b / 3 * c.descale_a * c.descale_b;
        c.scale_c = rng.uniform(4, 32) / spread;
        // Drawn after the rest, so that earlier seeds draw the same configurations.
        c.fast_accumulate = rng.chance(0.25);
    }
    if (variation().packed_c) c.custom_c = false, c.lc = k_inner_layout(rank, false);
    if (variation().no_epilogue) c.scale = false, c.bias = 0, c.act = kNoAct;
    if (variation().no_activation) c.act = kNoAct;
    return c;
}

std::string describe(const MatmulConfig &c) {
    static const char *kinds[] = {"plain", "mixed", "int8", "fp8"};
    static const char *acts[] = {"", " relu", " leaky_relu", " gelu", " silu"};
    static const char *biases[] = {"", "row", "column", "full"};
    const size_t rank = c.rank();
    // Dim letters: batch dims b, c; then the two matrix dims.
    std::string names_a = std::string("bc").substr(0, rank - 2) + "mk";
    std::string names_b = std::string("bc").substr(0, rank - 2) + "kn";
    std::string names_c = std::string("bc").substr(0, rank - 2) + "mn";
    std::string s = std::string(kinds[static_cast<int>(c.kind)]) + " A=" + type_name(c.a_type) + dims_text(c.dims_a()) +
                    ":" + layout_name(c.la, names_a.c_str()) + " B=" + type_name(c.b_type) + dims_text(c.dims_b()) + ":" +
                    layout_name(c.lb, names_b.c_str()) + " M=" + std::to_string(c.m) + " N=" + std::to_string(c.n) +
                    " K=" + std::to_string(c.k) + " io=" + type_name(c.io) + " C=" + type_name(c.c_type);
    if (c.custom_c) s += ":" + layout_name(c.lc, names_c.c_str());
    if (c.cast) s += " cast";
    if (c.explicit_compute) s += " compute=set";
    if (c.named) s += " named";
    char text[160];
    if (c.kind == Kind::fp8) {
        static const char *scales[] = {"by_value", "tensors", "tensors[1]"};
        std::snprintf(text, sizeof text, " descale_a=%.4g descale_b=%.4g scale_c=%.4g scales=%s", c.descale_a,
                      c.descale_b, c.scale_c, scales[c.scales]);
        s += text;
        if (c.fast_accumulate) s += " fast_accumulate";
    }
    if (c.scale) {
        std::snprintf(text, sizeof text, " scale=%.4g", c.scale_value);
        s += text;
    }
    if (c.bias)
        s += std::string(" bias=") + biases[c.bias] + (c.bias_type == FE_DATA_FLOAT ? ":fp32" : "") +
             dims_text(c.bias_dims()) + ":" + layout_name(c.lbias, names_c.c_str());
    s += acts[c.act];
    if (c.act == kLeakyRelu) {
        std::snprintf(text, sizeof text, "(slope=%.3g)", c.slope);
        s += text;
    }
    if (c.aux) s += " aux_output";
    return s;
}

// C = A x B in double (batches of C in row-major order, each [M, N] row-major); a_as and b_as
// are the types the operands are multiplied in (a half operand of a bfloat16 matmul is rounded).
std::vector<double> matmul_reference(const Bound &a, const Bound &b, const std::vector<int64_t> &batch_c, int64_t M,
                                     int64_t N, int64_t K, fe_data_type a_as, fe_data_type b_as) {
    const size_t nb = batch_c.size();
    int64_t batches = 1;
    for (int64_t d : batch_c) batches *= d;
    std::vector<double> out(static_cast<size_t>(batches * M * N));
    std::vector<double> ta(static_cast<size_t>(M * K)), tb(static_cast<size_t>(N * K));
    std::vector<int64_t> index(nb, 0);
    const int64_t sam = a.strides[nb], sak = a.strides[nb + 1], sbk = b.strides[nb], sbn = b.strides[nb + 1];
    auto convert = [](fe_data_type as, float v) {
        return static_cast<double>(as == FE_DATA_BFLOAT16 || as == FE_DATA_HALF ? round_to(as, v) : v);
    };
    for (int64_t z = 0; z < batches; ++z) {
        int64_t oa = 0, ob = 0;
        for (size_t d = 0; d < nb; ++d) {
            if (a.dims[d] > 1) oa += index[d] * a.strides[d];
            if (b.dims[d] > 1) ob += index[d] * b.strides[d];
        }
        for (int64_t m = 0; m < M; ++m)
            for (int64_t x = 0; x < K; ++x)
                ta[static_cast<size_t>(m * K + x)] = convert(a_as, a.host[static_cast<size_t>(oa + m * sam + x * sak)]);
        for (int64_t x = 0; x < K; ++x)
            for (int64_t n = 0; n < N; ++n)
                tb[static_cast<size_t>(n * K + x)] = convert(b_as, b.host[static_cast<size_t>(ob + x * sbk + n * sbn)]);
        double *o = &out[static_cast<size_t>(z * M * N)];
        for (int64_t m = 0; m < M; ++m) {
            const double *row = &ta[static_cast<size_t>(m * K)];
            for (int64_t n = 0; n < N; ++n) {
                const double *col = &tb[static_cast<size_t>(n * K)];
                double acc = 0;
                for (int64_t x = 0; x < K; ++x) acc += row[x] * col[x];
                o[m * N + n] = acc;
            }
        }
        for (size_t d = nb; d-- > 0;) {
            if (++index[d] < batch_c[d]) break;
            index[d] = 0;
        }
    }
    return out;
}

double activation(int act, double slope, double x) {
    switch (act) {
    case kRelu: return x > 0 ? x : 0;
    case kLeakyRelu: return x > 0 ? x : slope * x;  // lower clip 0: lower + slope * (x - lower)
    case kGelu: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case kSilu: return x / (1.0 + std::exp(-x));
    default: return x;
    }
}

// Tolerances by the type an output is stored in (cudnn-frontend's: fp16/bf16 2e-2; float with
// TF32 math 5e-3, norm 2e-3), atol scaled by the spread of the values it holds.
struct Tolerance {
    double atol, rtol, norm;
};
Tolerance tolerance(fe_data_type stored, double spread, bool fp8_math) {
    switch (stored) {
    case FE_DATA_HALF: return {1e-2 * spread, 2e-2, 1e-2};
    case FE_DATA_BFLOAT16: return {2e-2 * spread, 2e-2, 2.5e-2};
    // Half a step of e4m3 (3 mantissa bits) is 1/16 of the value, of e5m2 1/8.
    case FE_DATA_FP8_E4M3: return {5e-2 * spread, 7e-2, 5e-2};
    case FE_DATA_FP8_E5M2: return {1e-1 * spread, 1.3e-1, 1e-1};
    default: return fp8_math ? Tolerance{1e-2 * spread, 1e-2, 5e-3} : Tolerance{5e-3 * spread, 5e-3, 2e-3};
    }
}

// The sums of |a| * |b| of each result element: what bounds its rounding error.
std::vector<double> matmul_magnitudes(const Bound &a, const Bound &b, const std::vector<int64_t> &batch_c, int64_t M,
                                      int64_t N, int64_t K) {
    Bound abs_a = a, abs_b = b;
    for (float &v : abs_a.host) v = std::fabs(v);
    for (float &v : abs_b.host) v = std::fabs(v);
    return matmul_reference(abs_a, abs_b, batch_c, M, N, K, FE_DATA_FLOAT, FE_DATA_FLOAT);
}

void matmul_case(Case &k) {
    MatmulConfig c = draw(k.rng);
    k.describe(describe(c));
    const size_t rank = c.rank();
    const bool int8 = c.kind == Kind::int8;
    if (!k.graph(c.io, int8 ? FE_DATA_INT32 : FE_DATA_FLOAT, int8 ? FE_DATA_INT32 : FE_DATA_FLOAT)) return;
    fe_graph *g = k.graph_handle();
    const std::vector<int64_t> da = c.dims_a(), db = c.dims_b(), dc = c.dims_c();
    // Typed explicitly whenever the graph has no io type (mixed operands, mixed FP8 kinds).
    fe_tensor *a = k.tensor("a", da, strides_for(da, c.la), c.io == FE_DATA_NOT_SET ? c.a_type : FE_DATA_NOT_SET);
    fe_tensor *b = k.tensor("b", db, strides_for(db, c.lb), c.io == FE_DATA_NOT_SET ? c.b_type : FE_DATA_NOT_SET);
    if (!a || !b) return;
    fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
    if (c.named) o.name = "mm";
    if (c.explicit_compute || int8) o.compute_data_type = int8 ? FE_DATA_INT32 : FE_DATA_FLOAT;
    o.fast_accumulate = c.fast_accumulate;
    fe_tensor *mm = nullptr, *amax = nullptr;
    std::vector<fe_tensor *> scale_tensors;
    if (c.kind == Kind::fp8) {
        fe_matmul_fp8_scales s = FE_MATMUL_FP8_SCALES_INIT;
        fe_tensor **fields[] = {&s.descale_a, &s.descale_b, &s.scale_c};
        const char *names[] = {"descale_a", "descale_b", "scale_c"};
        const double values[] = {c.descale_a, c.descale_b, c.scale_c};
        for (int i = 0; i < 3; ++i) {
            if (c.scales == 0) {
                if (!k.ok(fe_graph_scalar(g, names[i], values[i], FE_DATA_FLOAT, fields[i]), "fe_graph_scalar")) return;
            } else {
                *fields[i] = k.packed(names[i], std::vector<int64_t>(c.scales == 1 ? rank : 1, 1), FE_DATA_FLOAT);
                if (!*fields[i]) return;
                scale_tensors.push_back(*fields[i]);
            }
        }
        if (!k.ok(fe_graph_matmul_fp8(g, a, b, &s, &o, &mm, &amax), "fe_graph_matmul_fp8")) return;
        if (!k.ok(fe_tensor_set_output(amax, 1), "fe_tensor_set_output")) return;
    } else {
        fe_tensor *lhs = a, *rhs = b;
        if (c.cast) {
            // cudnn-frontend's mixed-precision form: the narrower operand goes through an
            // identity pointwise into the other's type.
            bool a_narrow = width_rank(c.a_type) < width_rank(c.b_type);
            fe_tensor *&narrow = a_narrow ? lhs : rhs;
            fe_tensor *converted = nullptr;
            if (!k.ok(fe_graph_pointwise(g, FE_POINTWISE_IDENTITY, narrow, nullptr, nullptr, nullptr, &converted),
                      "fe_graph_pointwise"))
                return;
            if (!k.ok(fe_tensor_set_data_type(converted, a_narrow ? c.b_type : c.a_type), "fe_tensor_set_data_type"))
                return;
            narrow = converted;
        }
        if (!k.ok(fe_graph_matmul(g, lhs, rhs, &o, &mm), "fe_graph_matmul")) return;
    }

    // The epilogue: scale, bias, activation, each one pointwise node on the previous result.
    fe_tensor *y = mm, *scalar = nullptr, *bias = nullptr;
    if (c.scale) {
        if (!k.ok(fe_graph_scalar(g, "alpha", c.scale_value, FE_DATA_FLOAT, &scalar), "fe_graph_scalar")) return;
        if (!k.ok(fe_graph_scale(g, y, scalar, nullptr, &y), "fe_graph_scale")) return;
    }
    if (c.bias) {
        fe_data_type bt = c.bias_type;
        if (bt == FE_DATA_NOT_SET && c.io == FE_DATA_NOT_SET) bt = c.c_type;
        const std::vector<int64_t> bias_dims = c.bias_dims();
        bias = k.tensor("bias", bias_dims, strides_for(bias_dims, c.lbias), bt);
        if (!bias || !k.ok(fe_graph_bias(g, y, bias, nullptr, &y), "fe_graph_bias")) return;
    }
    if (c.act != kNoAct) {
        fe_pointwise_options po = FE_POINTWISE_OPTIONS_INIT;
        fe_status s = FE_OK;
        if (c.act == kRelu) s = fe_graph_relu(g, y, nullptr, &y);
        if (c.act == kLeakyRelu) {
            po.relu_lower_clip_slope = c.slope;
            s = fe_graph_relu(g, y, &po, &y);
        }
        if (c.act == kGelu) s = fe_graph_gelu(g, y, nullptr, &y);
        if (c.act == kSilu) s = fe_graph_silu(g, y, nullptr, &y);
        if (!k.ok(s, "fe_graph_<activation>")) return;
    }
    if (c.c_type != FE_DATA_NOT_SET && !k.ok(fe_tensor_set_data_type(y, c.c_type), "fe_tensor_set_data_type")) return;
    if (c.custom_c) {
        std::vector<int64_t> sc = strides_for(dc, c.lc);
        if (!k.ok(fe_tensor_set_strides(y, rank, sc.data()), "fe_tensor_set_strides")) return;
    }
    if (!k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output")) return;
    const bool aux = c.aux && y != mm;
    if (aux) {
        if (c.c_type != FE_DATA_NOT_SET && !k.ok(fe_tensor_set_data_type(mm, c.c_type), "fe_tensor_set_data_type"))
            return;
        if (!k.ok(fe_tensor_set_output(mm, 1), "fe_tensor_set_output")) return;
    }
    if (!k.build()) return;

    Bound &ba = c.a_type == FE_DATA_INT8 ? k.input_int8(a, static_cast<int64_t>(c.range_a))
                                          : k.input(a, static_cast<float>(-c.range_a), static_cast<float>(c.range_a));
    Bound &bb = c.b_type == FE_DATA_INT8 ? k.input_int8(b, static_cast<int64_t>(c.range_b))
                                          : k.input(b, static_cast<float>(-c.range_b), static_cast<float>(c.range_b));
    Bound *bbias = bias ? &k.input(bias) : nullptr;
    const double scale_values[] = {c.descale_a, c.descale_b, c.scale_c};
    for (size_t i = 0; i < scale_tensors.size(); ++i)
        k.input_values(scale_tensors[i], {static_cast<float>(scale_values[i])});
    Bound &by = k.output(y);
    Bound *bmm = aux ? &k.output(mm) : nullptr;
    Bound *bamax = amax ? &k.output(amax) : nullptr;
    if (!k.execute()) return;

    // The type both operands are multiplied in (the library's conversion, or the caller's cast:
    // the same type). Only a half operand of a bfloat16 matmul changes on the way.
    fe_data_type common = c.kind == Kind::mixed ? common_type(c.a_type, c.b_type) : c.a_type;
    std::vector<double> ref = matmul_reference(ba, bb, c.batch_c(), c.m, c.n, c.k, common, common);
    double spread = std::sqrt(static_cast<double>(c.k)) * c.range_a * c.range_b / 3;
    if (c.kind == Kind::fp8) {
        double max_real = 0;
        for (double &v : ref) {
            double real = v * c.descale_a * c.descale_b;
            max_real = std::max(max_real, std::fabs(real));
            v = real * c.scale_c;
        }
        spread *= c.descale_a * c.descale_b * c.scale_c;
        Tolerance t = tolerance(by.type, std::max(spread, 1e-3), true);
        k.check("C", by, ref, t.atol, t.rtol, t.norm);
        k.check("amax", *bamax, {max_real}, 1e-2 * max_real + 1e-6, 1e-2, 1e-2);
        return;
    }
    if (int8) {
        // Every product and sum of these small whole numbers is exact.
        k.check("C", by, ref, 0.5, 0, 1e-6);
        return;
    }
    if (bmm) {
        Tolerance t = tolerance(bmm->type, std::max(spread, 1.0), false);
        k.check("matmul", *bmm, ref, t.atol, t.rtol, t.norm);
    }
    if (c.epilogue()) {
        std::vector<int64_t> index(rank, 0);
        for (double &v : ref) {
            if (c.scale) v *= c.scale_value;
            if (bbias) {
                int64_t off = 0;
                for (size_t d = 0; d < rank; ++d)
                    if (bbias->dims[d] > 1) off += index[d] * bbias->strides[d];
                v += bbias->host[static_cast<size_t>(off)];
            }
            v = activation(c.act, c.slope, v);
            for (size_t d = rank; d-- > 0;) {
                if (++index[d] < dc[d]) break;
                index[d] = 0;
            }
        }
        spread = spread * (c.scale ? c.scale_value : 1.0) + (bbias ? 1.0 : 0.0);
    }
    Tolerance t = tolerance(by.type, std::max(spread, 1.0), false);
    if (by.type != FE_DATA_FLOAT || common != FE_DATA_FLOAT) {
        k.check("C", by, ref, t.atol, t.rtol, t.norm);
        return;
    }
    // A float matmul may multiply in TF32 (cuDNN's default on tensor cores): each operand keeps
    // 10 mantissa bits, so a product is off by up to 2^-9 of its size (truncated, not rounded).
    // What that bounds, per element, is not counted against it; a few elements of cancelling
    // sums would otherwise dominate the norm of a small result.
    std::vector<double> magnitudes = matmul_magnitudes(ba, bb, c.batch_c(), c.m, c.n, c.k);
    const double epilogue_gain = (c.scale ? std::fabs(c.scale_value) : 1.0) * (c.epilogue() ? 1.2 : 1.0);
    for (double &v : magnitudes) v *= epilogue_gain;
    k.check_sums("C", by, ref, magnitudes, std::ldexp(1.0, -9), t.atol, t.rtol, t.norm);
}

/* ------------------------------------------------------------------------------------------ */
/* SwiGLU: the gate and up projections of one X in one graph, joined by silu(gate) * up.       */
/* ------------------------------------------------------------------------------------------ */

struct SwigluConfig {
    fe_data_type io = FE_DATA_BFLOAT16;
    int64_t batch = 1, tokens = 1, model = 8, hidden = 8;
    bool weights_per_batch = false;   // else one weight for every batch (the usual case)
    bool weights_k_contiguous = false;  // a [hidden, model] weight read transposed (nn.Linear's)
};

SwigluConfig draw_swiglu(Rng &rng) {
    SwigluConfig c;
    c.io = rng.pick(std::vector<fe_data_type>{FE_DATA_BFLOAT16, FE_DATA_BFLOAT16, FE_DATA_HALF});
    c.batch = rng.chance(0.6) ? 1 : rng.range(2, 4);
    c.tokens = rng.chance(0.2) ? rng.range(1, 16) : rng.range(16, 320);
    c.model = 8 * rng.range(1, 96);
    c.hidden = 8 * rng.range(1, 200);
    // Keep the double reference under about 10^8 multiply-adds.
    while (c.batch * c.tokens * c.model * c.hidden * 2 > 100000000) c.hidden = std::max<int64_t>(8, c.hidden / 2 / 8 * 8);
    c.weights_per_batch = c.batch > 1 && rng.chance(0.3);
    c.weights_k_contiguous = rng.chance(0.4);
    return c;
}

std::string describe(const SwigluConfig &c) {
    return std::string(type_name(c.io)) + " x=[" + std::to_string(c.batch) + "," + std::to_string(c.tokens) + "," +
           std::to_string(c.model) + "] hidden=" + std::to_string(c.hidden) +
           (c.weights_per_batch ? " weights=per_batch" : " weights=shared") +
           (c.weights_k_contiguous ? ":k_contiguous" : ":n_contiguous");
}

void swiglu_case(Case &k) {
    SwigluConfig c = draw_swiglu(k.rng);
    k.describe(describe(c));
    if (!k.graph(c.io)) return;
    fe_graph *g = k.graph_handle();
    const int64_t wb = c.weights_per_batch ? c.batch : 1;
    const std::vector<int64_t> dx = {c.batch, c.tokens, c.model}, dw = {wb, c.model, c.hidden};
    const std::vector<int64_t> sw = c.weights_k_contiguous ? std::vector<int64_t>{c.model * c.hidden, 1, c.model}
                                                           : std::vector<int64_t>{c.model * c.hidden, c.hidden, 1};
    fe_tensor *x = k.packed("x", dx), *w_gate = k.tensor("w_gate", dw, sw), *w_up = k.tensor("w_up", dw, sw);
    if (!x || !w_gate || !w_up) return;
    fe_tensor *gate = nullptr, *up = nullptr, *activated = nullptr, *y = nullptr;
    if (!k.ok(fe_graph_matmul(g, x, w_gate, nullptr, &gate), "fe_graph_matmul")) return;
    if (!k.ok(fe_graph_matmul(g, x, w_up, nullptr, &up), "fe_graph_matmul")) return;
    if (!k.ok(fe_graph_silu(g, gate, nullptr, &activated), "fe_graph_silu")) return;
    if (!k.ok(fe_graph_mul(g, activated, up, nullptr, &y), "fe_graph_mul")) return;
    if (!k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;

    Bound &bx = k.input(x), &bg = k.input(w_gate), &bu = k.input(w_up);
    Bound &by = k.output(y);
    if (!k.execute()) return;
    // The projections stay in float inside the graph; the reference keeps them in double.
    const std::vector<int64_t> batch = {c.batch};
    std::vector<double> ref = matmul_reference(bx, bg, batch, c.tokens, c.hidden, c.model, c.io, c.io);
    const std::vector<double> up_ref = matmul_reference(bx, bu, batch, c.tokens, c.hidden, c.model, c.io, c.io);
    for (size_t i = 0; i < ref.size(); ++i) ref[i] = activation(kSilu, 0, ref[i]) * up_ref[i];
    // Each projection is a sum of `model` products of values in [-1, 1] (spread sqrt(model) / 3);
    // the result is the product of two of them.
    const double projection = std::sqrt(static_cast<double>(c.model)) / 3;
    Tolerance t = tolerance(by.type, std::max(projection * projection, 1.0), false);
    k.check("Y", by, ref, t.atol, t.rtol, t.norm);
}

}  // namespace

void register_matmul(std::vector<Family> &out) {
    out.push_back({"matmul", 1000, matmul_case});
    out.push_back({"swiglu", 200, swiglu_case});
}

}  // namespace conformance
