// Pointwise chains and reductions.
//
// pointwise: chains of 1 to 4 fe_graph_pointwise operations over tensors of rank 2 to 5 in any
// layout (row-major, channels-last, any order, gaps, odd strides on unit dims): unary modes (math,
// activations with their clips, slopes, alpha and beta), binary modes with a second operand that
// broadcasts (a graph input with unit dims, a by-value fe_graph_scalar of float, half or bfloat16,
// a GEN_INDEX of the running value, or an earlier value of the chain: a DAG), the activations'
// backward modes, comparisons, and BINARY_SELECT with a boolean mask made of comparisons (of
// inputs, scalars or GEN_INDEX pairs, as causal masks are) and logical operations; the first
// input may itself broadcast. fp16/bf16/fp32 io, the result in float now and then, its layout
// overridden, an intermediate value marked as a second output. Inputs are drawn inside each
// mode's domain (log, sqrt, pow, div, ...), tracked through the chain as an interval, and modes
// that jump (floor, ceil, mod, comparisons, relu and elu backward) read only values the
// reference reproduces exactly, so float rounding never flips a result.
//
// reduction: fe_graph_reduction (add, mul, min, max, amax, avg, norm1, norm2, and now and then
// mul_no_zeros or the deterministic flag, which cuDNN 9.19 refuses) over random sets of dims of a
// rank 2 to 5 tensor in any layout, optionally after a pointwise operation (unary, or binary with a
// broadcast input or a scalar) in the same graph; fp16/bf16/fp32 io, a float result now and then,
// the compute type set or left to the graph, the result's layout overridden now and then.
//
// References in double on the CPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <sstream>

#include "dims.hpp"
#include "families.hpp"

namespace conformance {
namespace {

constexpr double kPi = 3.14159265358979323846;

const char *type_name(fe_data_type t) {
    switch (t) {
    case FE_DATA_HALF: return "fp16";
    case FE_DATA_BFLOAT16: return "bf16";
    case FE_DATA_FLOAT: return "fp32";
    case FE_DATA_INT32: return "int32";
    case FE_DATA_BOOLEAN: return "bool";
    case FE_DATA_NOT_SET: return "default";
    default: return fe_data_type_string(t);
    }
}

std::string dims_text(const std::vector<int64_t> &dims) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
    return s + "]";
}

std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", v);
    return text;
}

// A tensor's layout: the order of its dims (outermost first), padding after each dim's extent,
// and odd strides on unit dims (inputs only: a unit dim's stride never addresses memory).
struct Layout {
    std::vector<size_t> order;
    std::vector<int64_t> gaps, odd;
};

// channels_last: the probability of a packed channels-last layout (NHWC, NDHWC) for rank 4 and
// 5, the one cuDNN's pointwise and reduction engines take at those ranks (on H100 with 9.19 a
// packed NCHW relu has no engine).
Layout draw_layout(Rng &rng, const std::vector<int64_t> &dims, bool input, double channels_last = 0) {
    const size_t rank = dims.size();
    Layout l;
    for (size_t i = 0; i < rank; ++i) l.order.push_back(i);
    l.gaps.assign(rank, 0);
    l.odd.assign(rank, 0);
    if (rank >= 4 && rng.chance(channels_last)) {
        l.order.erase(l.order.begin() + 1);
        l.order.push_back(1);
        return l;
    }
    double u = rng.uniform(0, 1);
    if (u < 0.5) {
    } else if (u < 0.7 && rank >= 3) {
        // Channels-last: dim 1 innermost (NHWC, NDHWC, NWC).
        l.order.erase(l.order.begin() + 1);
        l.order.push_back(1);
    } else {
        std::shuffle(l.order.begin(), l.order.end(), rng.engine());
    }
    for (size_t i = 1; i < rank; ++i)  // the outermost dim's gap would change nothing
        if (rng.chance(0.12)) l.gaps[l.order[i]] = rng.chance(0.6) ? 8 * rng.range(1, 3) : rng.range(1, 5);
    if (input)
        for (size_t d = 0; d < rank; ++d)
            if (dims[d] == 1 && rng.chance(0.15)) l.odd[d] = 2 * rng.range(0, 30) + 1;
    return l;
}

Layout row_major(size_t rank) {
    Layout l;
    for (size_t i = 0; i < rank; ++i) l.order.push_back(i);
    l.gaps.assign(rank, 0);
    l.odd.assign(rank, 0);
    return l;
}

std::vector<int64_t> strides_for(const std::vector<int64_t> &dims, const Layout &l) {
    std::vector<int64_t> strides = strides_in_order(dims, l.order, l.gaps);
    for (size_t d = 0; d < l.odd.size(); ++d)
        if (l.odd[d]) strides[d] = l.odd[d];
    return strides;
}

std::string layout_name(const Layout &l) {
    std::string s;
    for (size_t d : l.order) {
        s += std::to_string(d);
        if (l.gaps[d]) s += "+" + std::to_string(l.gaps[d]);
    }
    for (size_t d = 0; d < l.odd.size(); ++d)
        if (l.odd[d]) s += "," + std::to_string(d) + "~" + std::to_string(l.odd[d]);
    return s;
}

// Dims of the given rank whose elements number at most `cap` (the largest halved until they
// do), each drawn log-uniform.
std::vector<int64_t> draw_dims(Rng &rng, size_t rank, int64_t cap) {
    std::vector<int64_t> dims;
    for (size_t i = 0; i < rank; ++i) dims.push_back(rng.chance(0.1) ? 1 : rng.size(1, rank <= 3 ? 256 : 48));
    while (product(dims) > cap) {
        auto largest = std::max_element(dims.begin(), dims.end());
        *largest = (*largest + 1) / 2;
    }
    return dims;
}

// The value at a full-shape index of a bound input that broadcasts (its unit dims read index 0).
float broadcast_at(const Bound &b, const std::vector<int64_t> &index) {
    int64_t o = 0;
    for (size_t d = 0; d < index.size(); ++d)
        if (b.dims[d] > 1) o += index[d] * b.strides[d];
    return b.host[static_cast<size_t>(o)];
}

void next_index(std::vector<int64_t> &index, const std::vector<int64_t> &dims) {
    for (size_t d = dims.size(); d-- > 0;) {
        if (++index[d] < dims[d]) break;
        index[d] = 0;
    }
}

// Tolerances by the type a result is stored in, atol scaled by the spread of the values that
// make it: fp16/bf16 as cudnn-frontend's tests; float allows the fast approximations (tanh,
// exp) runtime-compiled kernels use.
struct Tolerance {
    double atol, rtol, norm;
};
Tolerance tolerance(fe_data_type stored, double spread) {
    switch (stored) {
    case FE_DATA_HALF: return {1e-2 * spread, 1e-2, 1e-2};
    case FE_DATA_BFLOAT16: return {2e-2 * spread, 2e-2, 2.5e-2};
    default: return {2e-3 * spread, 2e-3, 2e-3};
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Pointwise modes: their meaning in double, their names.                                      */
/* ------------------------------------------------------------------------------------------ */

struct Params {
    double lower = 0, upper = std::numeric_limits<double>::infinity(), slope = 0, alpha = 1, softplus_beta = 1,
           swish_beta = 1;
    int64_t axis = 0;
};

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
const double kTanhC = std::sqrt(2 / kPi);

// in_0 = a, in_1 = b; the backward modes take (dy, x) = (a, b), x the forward input; select:
// mask ? a : b. Where each meaning comes from (H200 runs: cuDNN 9.19, conformance seed 12):
//  - add_square a + b*b, mod fmod(a, b), pow a^b: cuDNN's cudnnPointwiseMode_t text (the first
//    tensor plus the square of the second; the remainder of the first's division by the second;
//    the first raised to the power of the second); an H200 case bears pow's order out.
//  - atan2(a, b): an H200 case, atan2(x, 1.25), matched to 2e-8.
//  - relu: clamp(x, lower, upper) with slope below the lower clip, relu_bwd dy where x > lower
//    and slope * dy elsewhere: cudnn-frontend's test_conv_bias.py (relu with both clips against
//    torch.clamp, leaky_relu and leaky_relu_backward, its RELU_BWD with the slope) and H200 cases.
//  - the backward modes' (dy, x) and x being the forward input: the library's lowering (in_0 to
//    DYDESC, in_1 to XDESC), cudnn-frontend's (loss, input) bindings, and H200 cases of elu_bwd,
//    sigmoid_bwd, gelu_tanh_bwd, relu_bwd (and tests/gpu's tanh_bwd in the score modifier).
//  - softplus log1p(exp(beta x)) / beta: an H200 case with beta 1.135 (bf16, 1.5e-3).
//  - select mask ? in_0 : in_1: cudnn-frontend's causal masks (select(score, -inf, row >= col))
//    and tests/gpu/sdpa_band_sink_test.cpp.
//  - gen_index: the index as a value of the result's type (float when unset, as where it feeds
//    arithmetic; H200 cases at rank 2 and 4 matched exactly).
double apply(fe_pointwise_mode mode, double a, double b, double mask, const Params &p) {
    switch (mode) {
    case FE_POINTWISE_ADD: return a + b;
    case FE_POINTWISE_MUL: return a * b;
    case FE_POINTWISE_MIN: return std::min(a, b);
    case FE_POINTWISE_MAX: return std::max(a, b);
    case FE_POINTWISE_SQRT: return std::sqrt(a);
    case FE_POINTWISE_ADD_SQUARE: return a + b * b;
    case FE_POINTWISE_DIV: return a / b;
    case FE_POINTWISE_MOD: return std::fmod(a, b);
    case FE_POINTWISE_POW: return std::pow(a, b);
    case FE_POINTWISE_SUB: return a - b;
    case FE_POINTWISE_ABS: return std::fabs(a);
    case FE_POINTWISE_CEIL: return std::ceil(a);
    case FE_POINTWISE_COS: return std::cos(a);
    case FE_POINTWISE_EXP: return std::exp(a);
    case FE_POINTWISE_FLOOR: return std::floor(a);
    case FE_POINTWISE_LOG: return std::log(a);
    case FE_POINTWISE_NEG: return -a;
    case FE_POINTWISE_RSQRT: return 1 / std::sqrt(a);
    case FE_POINTWISE_SIN: return std::sin(a);
    case FE_POINTWISE_TAN: return std::tan(a);
    case FE_POINTWISE_ERF: return std::erf(a);
    case FE_POINTWISE_IDENTITY: return a;
    case FE_POINTWISE_RECIPROCAL: return 1 / a;
    case FE_POINTWISE_ATAN2: return std::atan2(a, b);
    case FE_POINTWISE_RELU_FWD: {
        // Below the lower clip: lower + slope * (x - lower); above the upper clip: upper.
        if (a <= p.lower) return p.lower + p.slope * (a - p.lower);
        return a >= p.upper ? p.upper : a;
    }
    case FE_POINTWISE_TANH_FWD: return std::tanh(a);
    case FE_POINTWISE_SIGMOID_FWD: return sigmoid(a);
    case FE_POINTWISE_ELU_FWD: return a > 0 ? a : p.alpha * std::expm1(a);
    case FE_POINTWISE_GELU_FWD: return 0.5 * a * (1 + std::erf(a / std::sqrt(2.0)));
    case FE_POINTWISE_SOFTPLUS_FWD: return std::log1p(std::exp(p.softplus_beta * a)) / p.softplus_beta;
    case FE_POINTWISE_SWISH_FWD: return a * sigmoid(p.swish_beta * a);
    case FE_POINTWISE_GELU_APPROX_TANH_FWD: return 0.5 * a * (1 + std::tanh(kTanhC * (a + 0.044715 * a * a * a)));
    case FE_POINTWISE_RELU_BWD: return b > p.lower ? a : p.slope * a;
    case FE_POINTWISE_TANH_BWD: {
        double t = std::tanh(b);
        return a * (1 - t * t);
    }
    case FE_POINTWISE_SIGMOID_BWD: {
        double s = sigmoid(b);
        return a * s * (1 - s);
    }
    case FE_POINTWISE_ELU_BWD: return b > 0 ? a : a * p.alpha * std::exp(b);
    case FE_POINTWISE_GELU_BWD:
        return a * (0.5 * (1 + std::erf(b / std::sqrt(2.0))) + b * std::exp(-0.5 * b * b) / std::sqrt(2 * kPi));
    case FE_POINTWISE_SOFTPLUS_BWD: return a * sigmoid(p.softplus_beta * b);
    case FE_POINTWISE_SWISH_BWD: {
        double s = sigmoid(p.swish_beta * b);
        return a * (s + p.swish_beta * b * s * (1 - s));
    }
    case FE_POINTWISE_GELU_APPROX_TANH_BWD: {
        double u = kTanhC * (b + 0.044715 * b * b * b), t = std::tanh(u);
        return a * (0.5 * (1 + t) + 0.5 * b * (1 - t * t) * kTanhC * (1 + 3 * 0.044715 * b * b));
    }
    case FE_POINTWISE_CMP_EQ: return a == b ? 1 : 0;
    case FE_POINTWISE_CMP_NEQ: return a != b ? 1 : 0;
    case FE_POINTWISE_CMP_GT: return a > b ? 1 : 0;
    case FE_POINTWISE_CMP_GE: return a >= b ? 1 : 0;
    case FE_POINTWISE_CMP_LT: return a < b ? 1 : 0;
    case FE_POINTWISE_CMP_LE: return a <= b ? 1 : 0;
    case FE_POINTWISE_LOGICAL_AND: return (a != 0 && b != 0) ? 1 : 0;
    case FE_POINTWISE_LOGICAL_OR: return (a != 0 || b != 0) ? 1 : 0;
    case FE_POINTWISE_LOGICAL_NOT: return a == 0 ? 1 : 0;
    case FE_POINTWISE_BINARY_SELECT: return mask != 0 ? a : b;
    default: return std::numeric_limits<double>::quiet_NaN();
    }
}

const char *mode_name(fe_pointwise_mode mode) {
    switch (mode) {
    case FE_POINTWISE_ADD: return "add";
    case FE_POINTWISE_MUL: return "mul";
    case FE_POINTWISE_MIN: return "min";
    case FE_POINTWISE_MAX: return "max";
    case FE_POINTWISE_SQRT: return "sqrt";
    case FE_POINTWISE_ADD_SQUARE: return "add_square";
    case FE_POINTWISE_DIV: return "div";
    case FE_POINTWISE_MOD: return "mod";
    case FE_POINTWISE_POW: return "pow";
    case FE_POINTWISE_SUB: return "sub";
    case FE_POINTWISE_ABS: return "abs";
    case FE_POINTWISE_CEIL: return "ceil";
    case FE_POINTWISE_COS: return "cos";
    case FE_POINTWISE_EXP: return "exp";
    case FE_POINTWISE_FLOOR: return "floor";
    case FE_POINTWISE_LOG: return "log";
    case FE_POINTWISE_NEG: return "neg";
    case FE_POINTWISE_RSQRT: return "rsqrt";
    case FE_POINTWISE_SIN: return "sin";
    case FE_POINTWISE_TAN: return "tan";
    case FE_POINTWISE_ERF: return "erf";
    case FE_POINTWISE_IDENTITY: return "identity";
    case FE_POINTWISE_RECIPROCAL: return "reciprocal";
    case FE_POINTWISE_ATAN2: return "atan2";
    case FE_POINTWISE_RELU_FWD: return "relu";
    case FE_POINTWISE_TANH_FWD: return "tanh";
    case FE_POINTWISE_SIGMOID_FWD: return "sigmoid";
    case FE_POINTWISE_ELU_FWD: return "elu";
    case FE_POINTWISE_GELU_FWD: return "gelu";
    case FE_POINTWISE_SOFTPLUS_FWD: return "softplus";
    case FE_POINTWISE_SWISH_FWD: return "swish";
    case FE_POINTWISE_GELU_APPROX_TANH_FWD: return "gelu_tanh";
    case FE_POINTWISE_RELU_BWD: return "relu_bwd";
    case FE_POINTWISE_TANH_BWD: return "tanh_bwd";
    case FE_POINTWISE_SIGMOID_BWD: return "sigmoid_bwd";
    case FE_POINTWISE_ELU_BWD: return "elu_bwd";
    case FE_POINTWISE_GELU_BWD: return "gelu_bwd";
    case FE_POINTWISE_SOFTPLUS_BWD: return "softplus_bwd";
    case FE_POINTWISE_SWISH_BWD: return "swish_bwd";
    case FE_POINTWISE_GELU_APPROX_TANH_BWD: return "gelu_tanh_bwd";
    case FE_POINTWISE_CMP_EQ: return "eq";
    case FE_POINTWISE_CMP_NEQ: return "neq";
    case FE_POINTWISE_CMP_GT: return "gt";
    case FE_POINTWISE_CMP_GE: return "ge";
    case FE_POINTWISE_CMP_LT: return "lt";
    case FE_POINTWISE_CMP_LE: return "le";
    case FE_POINTWISE_LOGICAL_AND: return "and";
    case FE_POINTWISE_LOGICAL_OR: return "or";
    case FE_POINTWISE_LOGICAL_NOT: return "not";
    case FE_POINTWISE_GEN_INDEX: return "gen_index";
    case FE_POINTWISE_BINARY_SELECT: return "select";
    default: return "?";
    }
}

// The parameters a mode reads, for the description.
std::string params_text(fe_pointwise_mode mode, const Params &p) {
    switch (mode) {
    case FE_POINTWISE_RELU_FWD:
    case FE_POINTWISE_RELU_BWD: {
        std::string s;
        if (p.lower != 0) s += " lower=" + number(p.lower);
        if (std::isfinite(p.upper)) s += " upper=" + number(p.upper);
        if (p.slope != 0) s += " slope=" + number(p.slope);
        return s;
    }
    case FE_POINTWISE_ELU_FWD:
    case FE_POINTWISE_ELU_BWD: return " alpha=" + number(p.alpha);
    case FE_POINTWISE_SOFTPLUS_FWD:
    case FE_POINTWISE_SOFTPLUS_BWD: return " beta=" + number(p.softplus_beta);
    case FE_POINTWISE_SWISH_FWD:
    case FE_POINTWISE_SWISH_BWD: return " beta=" + number(p.swish_beta);
    case FE_POINTWISE_GEN_INDEX: return " axis=" + std::to_string(p.axis);
    default: return "";
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The pointwise family.                                                                       */
/* ------------------------------------------------------------------------------------------ */

struct Interval {
    double lo = 0, hi = 0;
    double mag() const { return std::max(std::fabs(lo), std::fabs(hi)); }
};

// One value of the chain: a graph input (that may broadcast), a by-value scalar, or the result of
// a pointwise operation on earlier values.
struct Value {
    enum Kind { input, scalar, op } kind = input;
    std::string name;
    // input: its dims (1 where it broadcasts), layout and range [lo, hi].
    std::vector<int64_t> dims;
    Layout layout;
    // scalar: its value and type.
    double value = 0;
    fe_data_type scalar_type = FE_DATA_FLOAT;
    // op: mode, operands (indexes of earlier values, -1 unused), parameters, a type set on the
    // result (NOT_SET: the graph's intermediate type).
    fe_pointwise_mode mode = FE_POINTWISE_IDENTITY;
    int in0 = -1, in1 = -1, in2 = -1;
    Params params;
    fe_data_type type = FE_DATA_NOT_SET, compute = FE_DATA_NOT_SET;
    // What the drawing knows: the range of the value, whether the reference reproduces it
    // exactly (inputs, scalars, indexes, comparisons, floor...), whether it is a boolean mask.
    Interval range;
    bool exact = false, boolean = false;
    // An output (the chain's end, or an intermediate marked as one) and its layout.
    bool output = false, custom_layout = false;
    fe_data_type output_type = FE_DATA_NOT_SET;
    Layout out_layout;
    // Filled while running: its tensor, its bound buffer (inputs and outputs), its reference.
    fe_tensor *tensor = nullptr;
    Bound *bound = nullptr;
    std::vector<double> ref;
    // An intermediate that is also an output: its reference rounded to the type it is stored in,
    // which is what the operations after it read (cuDNN reads the stored tensor, not the value
    // in the math type: an H200 case, sin of a bfloat16 square marked as an output, matched the
    // rounded value to 1e-6 and missed the unrounded one by 2e-2).
    std::vector<double> stored;
};

struct PointwiseConfig {
    fe_data_type io = FE_DATA_HALF;
    std::vector<int64_t> dims;  // the result's
    bool canonical = false;     // every tensor laid out alike (ChainDrawer::layout)
    std::vector<Value> values;
    int result = -1;  // the chain's end
};

class ChainDrawer {
  public:
    ChainDrawer(Rng &rng, PointwiseConfig &c) : rng_(rng), c_(c) {}

    void draw() {
        c_.io = rng_.pick(std::vector<fe_data_type>{FE_DATA_HALF, FE_DATA_BFLOAT16, FE_DATA_FLOAT});
        size_t rank = rng_.pick(std::vector<size_t>{2, 2, 3, 3, 3, 4, 4, 4, 5, 5});
        int64_t cap = rng_.pick(std::vector<int64_t>{1 << 12, 1 << 15, 1 << 15, 1 << 18});
        c_.canonical = rng_.chance(0.6);
        c_.dims = draw_dims(rng_, rank, cap);
        // The first input: the whole shape mostly, else broadcast dims that the first
        // operation's second operand fills in.
        std::vector<int64_t> first = c_.dims;
        bool partial = !(c_.canonical && rank >= 4) && rng_.chance(0.15);
        if (partial)
            for (int64_t &d : first)
                if (rng_.chance(0.5)) d = 1;
        int cur = add_input(first, pick_range());
        int steps = static_cast<int>(rng_.range(1, 4));
        for (int s = 0; s < steps; ++s) cur = step(cur, s == 0 && first != c_.dims);
        c_.result = cur;
        Value &out = c_.values[static_cast<size_t>(cur)];
        out.output = true;
        if (c_.io != FE_DATA_FLOAT && rng_.chance(0.1)) out.output_type = FE_DATA_FLOAT;
        out.custom_layout = rng_.chance(0.35);
        out.out_layout = out.custom_layout ? layout(c_.dims, false) : row_major(rank);
        // Now and then an intermediate continuous result (every one has the whole shape) is an
        // output too; what reads it is continuous, so its rounding on the way matters little.
        std::vector<int> candidates;
        for (size_t i = 0; i < c_.values.size(); ++i) {
            const Value &v = c_.values[i];
            if (v.kind == Value::op && static_cast<int>(i) != cur && !v.boolean && !v.exact &&
                v.type == FE_DATA_NOT_SET && v.mode != FE_POINTWISE_GEN_INDEX)
                candidates.push_back(static_cast<int>(i));
        }
        if (!candidates.empty() && rng_.chance(0.2)) {
            Value &aux = c_.values[static_cast<size_t>(rng_.pick(candidates))];
            aux.output = true;
            aux.custom_layout = rng_.chance(0.3);
            aux.out_layout = aux.custom_layout ? layout(c_.dims, false) : row_major(rank);
        }
    }

  private:
    Rng &rng_;
    PointwiseConfig &c_;
    int inputs_ = 0, scalars_ = 0;

    // Canonical cases lay every tensor out alike: row-major up to rank 3 (gaps allowed), packed
    // channels-last at rank 4 and 5 (what cuDNN 9.19's pointwise engines take there on H100);
    // the others draw each tensor's layout.
    Layout layout(const std::vector<int64_t> &dims, bool input) {
        if (!c_.canonical) return draw_layout(rng_, dims, input, 0.3);
        if (dims.size() >= 4) return draw_layout(rng_, dims, input, 1.0);
        Layout l = row_major(dims.size());
        for (size_t d = 1; d < dims.size(); ++d)
            if (rng_.chance(0.1)) l.gaps[d] = 8 * rng_.range(1, 2);
        return l;
    }

    Interval pick_range() {
        double u = rng_.uniform(0, 1);
        if (u < 0.55) {
            double a = rng_.pick(std::vector<double>{1, 2, 3});
            return {-a, a};
        }
        if (u < 0.85) return {0.1, rng_.pick(std::vector<double>{1, 2, 4})};
        return {-rng_.pick(std::vector<double>{1, 2}), 0.5};
    }

    int add(Value v) {
        c_.values.push_back(std::move(v));
        return static_cast<int>(c_.values.size() - 1);
    }

    int add_input(const std::vector<int64_t> &dims, Interval range) {
        Value v;
        v.kind = Value::input;
        v.name = "x" + std::to_string(inputs_++);
        v.dims = dims;
        v.layout = layout(dims, true);
        v.range = range;
        v.exact = true;
        return add(std::move(v));
    }

    // Dims for a second operand: each dim the whole extent or 1 (broadcast); `cover` forces the
    // whole extent where the running value has a 1. Canonical cases of rank 4 and 5 broadcast as
    // cuDNN 9.19's engines there do (on H100): per channel [1, C, 1, 1], per pixel [N, 1, H, W],
    // one element, or none.
    std::vector<int64_t> operand_dims(const std::vector<int64_t> *cover) {
        std::vector<int64_t> dims = c_.dims;
        if (c_.canonical && dims.size() >= 4 && !cover) {
            double u = rng_.uniform(0, 1);
            for (size_t d = 0; d < dims.size(); ++d) {
                if (u < 0.3 && d != 1) dims[d] = 1;
                if (u >= 0.3 && u < 0.5 && d == 1) dims[d] = 1;
                if (u >= 0.5 && u < 0.6) dims[d] = 1;
            }
            return dims;
        }
        for (size_t d = 0; d < dims.size(); ++d)
            if ((!cover || (*cover)[d] != 1) && rng_.chance(0.4)) dims[d] = 1;
        return dims;
    }

    int add_scalar(double lo, double hi) {
        Value v;
        v.kind = Value::scalar;
        v.name = "s" + std::to_string(scalars_++);
        // Multiples of 1/16: exact in half, bfloat16 and float alike.
        v.value = std::round(rng_.uniform(lo, hi) * 16) / 16;
        if (v.value < lo || v.value > hi) v.value = lo;
        double u = rng_.uniform(0, 1);
        v.scalar_type = u < 0.75 ? FE_DATA_FLOAT : (u < 0.87 ? FE_DATA_HALF : FE_DATA_BFLOAT16);
        v.range = {v.value, v.value};
        v.exact = true;
        return add(std::move(v));
    }

    // A second operand in [lo, hi]: a new input (that may broadcast), a scalar, or (when allowed
    // and in range) an earlier value.
    int operand(double lo, double hi, const std::vector<int64_t> *cover, bool allow_earlier) {
        if (!cover && allow_earlier && rng_.chance(0.15)) {
            std::vector<int> fits;
            for (size_t i = 0; i < c_.values.size(); ++i) {
                const Value &v = c_.values[i];
                if (!v.boolean && v.type == FE_DATA_NOT_SET && v.range.lo >= lo && v.range.hi <= hi &&
                    v.kind != Value::scalar)
                    fits.push_back(static_cast<int>(i));
            }
            if (!fits.empty()) return rng_.pick(fits);
        }
        if (!cover && rng_.chance(0.3)) return add_scalar(lo, hi);
        return add_input(operand_dims(cover), {lo, hi});
    }

    // The value's range as the grid of its operands' ranges maps it (continuous functions),
    // widened a little for what lies between grid points.
    Interval image(fe_pointwise_mode mode, Interval a, Interval b, const Params &p) const {
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        const int n = 32;
        for (int i = 0; i <= n; ++i)
            for (int j = 0; j <= n; ++j) {
                double x = a.lo + (a.hi - a.lo) * i / n, y = b.lo + (b.hi - b.lo) * j / n;
                double v = apply(mode, x, y, 1, p);
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        double margin = 0.01 * (hi - lo);
        return {lo - margin, hi + margin};
    }

    int make_op(fe_pointwise_mode mode, int a, int b, int m, const Params &p) {
        Value v;
        v.kind = Value::op;
        v.name = std::string(mode_name(mode)) + std::to_string(c_.values.size());
        v.mode = mode;
        v.in0 = a;
        v.in1 = b;
        v.in2 = m;
        v.params = p;
        const Interval ra = c_.values[static_cast<size_t>(a)].range;
        const Interval rb = b >= 0 ? c_.values[static_cast<size_t>(b)].range : Interval{0, 0};
        if (mode == FE_POINTWISE_BINARY_SELECT)
            v.range = {std::min(ra.lo, rb.lo), std::max(ra.hi, rb.hi)};
        else
            v.range = image(mode, ra, rb, p);
        auto exact = [&](int i) { return i < 0 || c_.values[static_cast<size_t>(i)].exact; };
        switch (mode) {
        case FE_POINTWISE_NEG:
        case FE_POINTWISE_ABS:
        case FE_POINTWISE_IDENTITY:
        case FE_POINTWISE_MIN:
        case FE_POINTWISE_MAX:
        case FE_POINTWISE_FLOOR:
        case FE_POINTWISE_CEIL:
        case FE_POINTWISE_BINARY_SELECT: v.exact = exact(a) && exact(b); break;
        case FE_POINTWISE_CMP_EQ:
        case FE_POINTWISE_CMP_NEQ:
        case FE_POINTWISE_CMP_GT:
        case FE_POINTWISE_CMP_GE:
        case FE_POINTWISE_CMP_LT:
        case FE_POINTWISE_CMP_LE:
        case FE_POINTWISE_LOGICAL_AND:
        case FE_POINTWISE_LOGICAL_OR:
        case FE_POINTWISE_LOGICAL_NOT: v.exact = exact(a) && exact(b); break;
        case FE_POINTWISE_RELU_FWD:
            v.exact = exact(a) && p.lower == 0 && p.slope == 0 && !std::isfinite(p.upper);
            break;
        default: v.exact = false;
        }
        return add(std::move(v));
    }

    // A boolean mask of the result's shape: comparisons of exact values (an input and a scalar,
    // two inputs, or two GEN_INDEX of the running value, as a causal mask), and now and then a
    // logical NOT, AND or OR of them.
    int draw_mask(int cur) {
        auto compare = [&]() {
            fe_pointwise_mode cmp = rng_.pick(std::vector<fe_pointwise_mode>{
                FE_POINTWISE_CMP_GT, FE_POINTWISE_CMP_GE, FE_POINTWISE_CMP_LT, FE_POINTWISE_CMP_LE,
                FE_POINTWISE_CMP_EQ, FE_POINTWISE_CMP_NEQ});
            double u = rng_.uniform(0, 1);
            int a, b;
            if (u < 0.4 && c_.dims.size() >= 2) {
                size_t rank = c_.dims.size();
                Params pa, pb;
                pa.axis = static_cast<int64_t>(rng_.range(0, static_cast<int64_t>(rank) - 1));
                pb.axis = static_cast<int64_t>(rng_.range(0, static_cast<int64_t>(rank) - 1));
                a = make_op(FE_POINTWISE_GEN_INDEX, cur, -1, -1, pa);
                b = make_op(FE_POINTWISE_GEN_INDEX, cur, -1, -1, pb);
                for (int i : {a, b}) {
                    Value &g = c_.values[static_cast<size_t>(i)];
                    g.type = FE_DATA_INT32;
                    g.exact = true;
                    g.range = {0, static_cast<double>(c_.dims[static_cast<size_t>(g.params.axis)] - 1)};
                }
            } else {
                a = add_input(operand_dims(nullptr), {-1, 1});
                b = u < 0.7 ? add_scalar(-0.5, 0.5) : add_input(operand_dims(nullptr), {-1, 1});
            }
            int m = make_op(cmp, a, b, -1, Params());
            Value &mv = c_.values[static_cast<size_t>(m)];
            mv.type = FE_DATA_BOOLEAN;
            mv.boolean = mv.exact = true;
            mv.range = {0, 1};
            return m;
        };
        int mask = compare();
        double u = rng_.uniform(0, 1);
        fe_pointwise_mode logic = FE_POINTWISE_IDENTITY;
        int other = -1;
        if (u < 0.08) {
            logic = FE_POINTWISE_LOGICAL_NOT;
        } else if (u < 0.16) {
            logic = rng_.chance(0.5) ? FE_POINTWISE_LOGICAL_AND : FE_POINTWISE_LOGICAL_OR;
            other = compare();
        }
        if (logic != FE_POINTWISE_IDENTITY) {
            mask = make_op(logic, mask, other, -1, Params());
            Value &mv = c_.values[static_cast<size_t>(mask)];
            // cuDNN 9.19 has engines for logical operations in boolean math only (on H100); the
            // default (the graph's float) is drawn too.
            if (rng_.chance(0.6)) mv.compute = FE_DATA_BOOLEAN;
            mv.type = FE_DATA_BOOLEAN;
            mv.boolean = mv.exact = true;
            mv.range = {0, 1};
        }
        return mask;
    }

    Params draw_params(fe_pointwise_mode mode) {
        Params p;
        switch (mode) {
        case FE_POINTWISE_RELU_FWD: {
            double u = rng_.uniform(0, 1);
            if (u < 0.2) {
                p.slope = rng_.uniform(0.01, 0.3);  // leaky
            } else if (u < 0.35) {
                p.lower = rng_.uniform(-1, 0);  // clipped on both sides
                p.upper = rng_.uniform(0.5, 2);
            } else if (u < 0.45) {
                p.upper = rng_.uniform(0.5, 2);
            }
            break;
        }
        case FE_POINTWISE_RELU_BWD:
            if (rng_.chance(0.2)) p.slope = rng_.uniform(0.01, 0.3);
            break;
        case FE_POINTWISE_ELU_FWD:
        case FE_POINTWISE_ELU_BWD:
            if (rng_.chance(0.5)) p.alpha = rng_.uniform(0.2, 2);
            break;
        case FE_POINTWISE_SOFTPLUS_FWD:
        case FE_POINTWISE_SOFTPLUS_BWD:
            if (rng_.chance(0.5)) p.softplus_beta = rng_.uniform(0.5, 3);
            break;
        case FE_POINTWISE_SWISH_FWD:
        case FE_POINTWISE_SWISH_BWD:
            if (rng_.chance(0.5)) p.swish_beta = rng_.uniform(0.5, 2);
            break;
        default: break;
        }
        return p;
    }

    // One operation on the running value `cur`; `cover`: the running value broadcasts, so this
    // one is binary with a second operand that fills its unit dims in.
    int step(int cur, bool cover) {
        for (int attempt = 0; attempt < 24; ++attempt) {
            size_t mark = c_.values.size();
            int r = try_step(cur, cover);
            if (r >= 0 && c_.values[static_cast<size_t>(r)].range.mag() <= 1e4) return r;
            c_.values.resize(mark);  // out of range (or not drawable here): draw again
            inputs_ = 0;
            scalars_ = 0;
            for (const Value &v : c_.values) {
                if (v.kind == Value::input) ++inputs_;
                if (v.kind == Value::scalar) ++scalars_;
            }
        }
        // Bounded whatever the input.
        Params p;
        if (cover) return make_op(FE_POINTWISE_ADD, cur, operand(-1, 1, &c_.values[static_cast<size_t>(cur)].dims, false), -1, p);
        return make_op(FE_POINTWISE_TANH_FWD, cur, -1, -1, p);
    }

    int try_step(int cur, bool cover) {
        const Value v = c_.values[static_cast<size_t>(cur)];
        const Interval r = v.range;
        const std::vector<int64_t> *cov = cover ? &v.dims : nullptr;
        double u = rng_.uniform(0, 1);
        if (cover) u = 0.45 + 0.35 * u;  // a binary mode
        if (u < 0.4) {
            // Unary: the modes whose domain holds the running value.
            std::vector<fe_pointwise_mode> modes = {
                FE_POINTWISE_ABS,     FE_POINTWISE_NEG,           FE_POINTWISE_IDENTITY,  FE_POINTWISE_ERF,
                FE_POINTWISE_RELU_FWD, FE_POINTWISE_TANH_FWD,     FE_POINTWISE_SIGMOID_FWD, FE_POINTWISE_ELU_FWD,
                FE_POINTWISE_GELU_FWD, FE_POINTWISE_SOFTPLUS_FWD, FE_POINTWISE_SWISH_FWD,
                FE_POINTWISE_GELU_APPROX_TANH_FWD};
            if (r.lo >= (v.exact ? 0.0 : 0.01)) modes.push_back(FE_POINTWISE_SQRT);
            if (r.lo >= 0.05) modes.insert(modes.end(), {FE_POINTWISE_LOG, FE_POINTWISE_RSQRT});
            if (r.lo >= 0.1 || r.hi <= -0.1) modes.push_back(FE_POINTWISE_RECIPROCAL);
            if (r.hi <= 4) modes.push_back(FE_POINTWISE_EXP);
            if (r.mag() <= 1.2) modes.push_back(FE_POINTWISE_TAN);
            if (r.mag() <= 50) modes.insert(modes.end(), {FE_POINTWISE_SIN, FE_POINTWISE_COS});
            // Steps read only exact values: float rounding upstream must not move a value
            // across one.
            if (v.exact) modes.insert(modes.end(), {FE_POINTWISE_FLOOR, FE_POINTWISE_CEIL});
            fe_pointwise_mode mode = rng_.pick(modes);
            return make_op(mode, cur, -1, -1, draw_params(mode));
        }
        if (u < 0.8) {
            std::vector<fe_pointwise_mode> modes = {FE_POINTWISE_ADD, FE_POINTWISE_SUB, FE_POINTWISE_MUL,
                                                    FE_POINTWISE_MIN, FE_POINTWISE_MAX, FE_POINTWISE_ADD,
                                                    FE_POINTWISE_MUL, FE_POINTWISE_ADD_SQUARE, FE_POINTWISE_DIV,
                                                    FE_POINTWISE_POW, FE_POINTWISE_ATAN2};
            if (v.exact && r.lo >= 0) modes.push_back(FE_POINTWISE_MOD);
            if (v.exact && !cover) modes.insert(modes.end(), {FE_POINTWISE_CMP_GT, FE_POINTWISE_CMP_LE});
            fe_pointwise_mode mode = rng_.pick(modes);
            bool swap = rng_.chance(0.5);  // the running value as in_1
            Params p;
            int other = -1;
            switch (mode) {
            case FE_POINTWISE_DIV:
                if (swap && (r.lo >= 0.1 || r.hi <= -0.1)) {
                    other = operand(-2, 2, cov, true);
                } else {
                    // A denominator away from zero, of either sign.
                    swap = false;
                    other = rng_.chance(0.5) ? operand(0.5, 2, cov, true) : operand(-2, -0.5, cov, true);
                }
                break;
            case FE_POINTWISE_POW:
                if (!swap && r.lo >= 0.05 && r.hi <= 8) {
                    other = operand(-2, 2, cov, false);  // an exponent
                } else if (swap && r.mag() <= 3) {
                    other = operand(0.25, 3, cov, false);  // a base
                } else {
                    return -1;
                }
                break;
            case FE_POINTWISE_MOD:
                // Both positive: C's fmod and a floored modulo agree there.
                swap = false;
                other = cover ? add_input(operand_dims(cov), {0.3, 2}) : (rng_.chance(0.5) ? add_scalar(0.3, 2) : add_input(operand_dims(nullptr), {0.3, 2}));
                break;
            case FE_POINTWISE_ATAN2:
                // atan2(in_0, in_1) with in_1 (x) positive: no branch cut.
                swap = false;
                other = operand(0.25, 2, cov, true);
                break;
            case FE_POINTWISE_CMP_GT:
            case FE_POINTWISE_CMP_LE: {
                // Compared with an exact value: an input or a scalar.
                double lo = std::max(r.lo, -4.0), hi = std::min(r.hi, 4.0);
                if (hi <= lo) return -1;
                other = rng_.chance(0.5) ? add_scalar(lo, hi) : add_input(operand_dims(nullptr), {lo, hi});
                break;
            }
            default: {
                if (rng_.chance(0.07) && !cover) {
                    // An index along an axis, in float, as the second operand.
                    Params pi;
                    pi.axis = rng_.range(0, static_cast<int64_t>(c_.dims.size()) - 1);
                    other = make_op(FE_POINTWISE_GEN_INDEX, cur, -1, -1, pi);
                    Value &g = c_.values[static_cast<size_t>(other)];
                    g.exact = true;
                    g.range = {0, static_cast<double>(c_.dims[static_cast<size_t>(pi.axis)] - 1)};
                } else {
                    other = operand(-2, 2, cov, true);
                }
            }
            }
            return swap ? make_op(mode, other, cur, -1, p) : make_op(mode, cur, other, -1, p);
        }
        if (u < 0.9 && !cover) {
            // An activation's backward: (dy, x) with the running value as either.
            fe_pointwise_mode mode = rng_.pick(std::vector<fe_pointwise_mode>{
                FE_POINTWISE_RELU_BWD, FE_POINTWISE_TANH_BWD, FE_POINTWISE_SIGMOID_BWD, FE_POINTWISE_ELU_BWD,
                FE_POINTWISE_GELU_BWD, FE_POINTWISE_SOFTPLUS_BWD, FE_POINTWISE_SWISH_BWD,
                FE_POINTWISE_GELU_APPROX_TANH_BWD});
            Params p = draw_params(mode);
            // relu's and elu's derivatives jump at 0: their x is a fresh input, never exactly 0.
            bool steps = mode == FE_POINTWISE_RELU_BWD || mode == FE_POINTWISE_ELU_BWD;
            if (steps || rng_.chance(0.5) || r.mag() > 10) {
                int x = add_input(operand_dims(nullptr), {-3, 3});
                return make_op(mode, cur, x, -1, p);
            }
            return make_op(mode, operand(-2, 2, nullptr, false), cur, -1, p);
        }
        if (cover) return -1;
        // Select: the running value where the mask holds, another value elsewhere.
        int mask = draw_mask(cur);
        int other = operand(-2, 2, nullptr, true);
        return rng_.chance(0.5) ? make_op(FE_POINTWISE_BINARY_SELECT, cur, other, mask, Params())
                                : make_op(FE_POINTWISE_BINARY_SELECT, other, cur, mask, Params());
    }
};

std::string describe(const PointwiseConfig &c) {
    std::string s = std::string(type_name(c.io)) + " dims=" + dims_text(c.dims) + (c.canonical ? " canonical" : "");
    for (size_t i = 0; i < c.values.size(); ++i) {
        const Value &v = c.values[i];
        s += " " + v.name + "=";
        if (v.kind == Value::input) {
            s += "in" + dims_text(v.dims) + ":" + layout_name(v.layout) + "[" + number(v.range.lo) + "," +
                 number(v.range.hi) + "]";
        } else if (v.kind == Value::scalar) {
            s += number(v.value) + ":" + type_name(v.scalar_type);
        } else {
            s += std::string(mode_name(v.mode)) + "(" + c.values[static_cast<size_t>(v.in0)].name;
            if (v.in1 >= 0) s += "," + c.values[static_cast<size_t>(v.in1)].name;
            if (v.in2 >= 0) s += "," + c.values[static_cast<size_t>(v.in2)].name;
            s += params_text(v.mode, v.params);
            if (v.compute != FE_DATA_NOT_SET) s += std::string(" compute=") + type_name(v.compute);
            s += ")";
            if (v.type != FE_DATA_NOT_SET) s += ":" + std::string(type_name(v.type));
        }
        if (v.output) {
            s += " ->out";
            if (v.output_type != FE_DATA_NOT_SET) s += ":" + std::string(type_name(v.output_type));
            if (v.custom_layout) s += ":" + layout_name(v.out_layout);
        }
    }
    return s;
}

// The reference of every value over the result's shape (row-major), from the bound inputs.
void pointwise_reference(PointwiseConfig &c) {
    const int64_t n = product(c.dims);
    std::vector<int64_t> index(c.dims.size(), 0);
    for (Value &v : c.values) {
        v.ref.assign(static_cast<size_t>(n), 0.0);
        if (v.kind == Value::scalar) {
            std::fill(v.ref.begin(), v.ref.end(), v.value);
            continue;
        }
        if (v.kind == Value::input) {
            std::fill(index.begin(), index.end(), 0);
            for (int64_t e = 0; e < n; ++e, next_index(index, c.dims))
                v.ref[static_cast<size_t>(e)] = broadcast_at(*v.bound, index);
            continue;
        }
        if (v.mode == FE_POINTWISE_GEN_INDEX) {
            std::fill(index.begin(), index.end(), 0);
            for (int64_t e = 0; e < n; ++e, next_index(index, c.dims))
                v.ref[static_cast<size_t>(e)] = static_cast<double>(index[static_cast<size_t>(v.params.axis)]);
            continue;
        }
        auto read = [&](int i) -> const std::vector<double> * {
            if (i < 0) return nullptr;
            const Value &w = c.values[static_cast<size_t>(i)];
            return w.stored.empty() ? &w.ref : &w.stored;
        };
        const std::vector<double> &a = *read(v.in0);
        const std::vector<double> *b = read(v.in1), *m = read(v.in2);
        for (size_t e = 0; e < v.ref.size(); ++e)
            v.ref[e] = apply(v.mode, a[e], b ? (*b)[e] : 0.0, m ? (*m)[e] : 0.0, v.params);
        if (v.output && v.bound && static_cast<int>(&v - c.values.data()) != c.result) {
            v.stored.resize(v.ref.size());
            for (size_t e = 0; e < v.ref.size(); ++e)
                v.stored[e] = round_to(v.bound->type, static_cast<float>(v.ref[e]));
        }
    }
}

bool is_backward(fe_pointwise_mode mode) {
    switch (mode) {
    case FE_POINTWISE_RELU_BWD:
    case FE_POINTWISE_TANH_BWD:
    case FE_POINTWISE_SIGMOID_BWD:
    case FE_POINTWISE_ELU_BWD:
    case FE_POINTWISE_GELU_BWD:
    case FE_POINTWISE_SOFTPLUS_BWD:
    case FE_POINTWISE_SWISH_BWD:
    case FE_POINTWISE_GELU_APPROX_TANH_BWD: return true;
    default: return false;
    }
}

// CUDNNFE_CONFORMANCE_VARY for this family, comma-separated, to find what a wrong case needs:
// "scalars=float" (or half, bfloat16) gives every by-value scalar that type; "scalar_dy=tensor"
// makes the by-value scalar dy of a backward mode a full-shape graph input holding the same value;
// "packed" lays every tensor out row-major without gaps.
void apply_pointwise_variations(PointwiseConfig &c) {
    const char *list = std::getenv("CUDNNFE_CONFORMANCE_VARY");
    if (!list) return;
    std::stringstream items(list);
    for (std::string item; std::getline(items, item, ',');) {
        if (item == "scalars=float" || item == "scalars=half" || item == "scalars=bfloat16") {
            fe_data_type t = item == "scalars=float" ? FE_DATA_FLOAT : item == "scalars=half" ? FE_DATA_HALF : FE_DATA_BFLOAT16;
            for (Value &v : c.values)
                if (v.kind == Value::scalar) v.scalar_type = t;
        } else if (item == "scalar_dy=tensor") {
            for (const Value &op : c.values) {
                if (op.kind != Value::op || !is_backward(op.mode)) continue;
                Value &dy = c.values[static_cast<size_t>(op.in0)];
                if (dy.kind != Value::scalar) continue;
                dy.kind = Value::input;
                dy.dims = c.dims;
                dy.layout = row_major(c.dims.size());
            }
        } else if (item == "packed") {
            for (Value &v : c.values) {
                if (v.kind == Value::input) v.layout = row_major(v.dims.size());
                v.custom_layout = false;
            }
        } else {
            std::fprintf(stderr, "CUDNNFE_CONFORMANCE_VARY: '%s' is not a variation this runner knows\n", item.c_str());
            std::exit(2);
        }
    }
}

void pointwise_case(Case &k) {
    PointwiseConfig c;
    ChainDrawer(k.rng, c).draw();
    apply_pointwise_variations(c);
    k.describe(describe(c));
    if (!k.graph(c.io)) return;
    fe_graph *g = k.graph_handle();
    const size_t rank = c.dims.size();
    for (Value &v : c.values) {
        if (v.kind == Value::input) {
            v.tensor = k.tensor(v.name.c_str(), v.dims, strides_for(v.dims, v.layout));
            if (!v.tensor) return;
        } else if (v.kind == Value::scalar) {
            if (!k.ok(fe_graph_scalar(g, v.name.c_str(), v.value, v.scalar_type, &v.tensor), "fe_graph_scalar")) return;
        } else {
            fe_pointwise_options o = FE_POINTWISE_OPTIONS_INIT;
            o.relu_lower_clip = v.params.lower;
            o.relu_upper_clip = std::isfinite(v.params.upper) ? v.params.upper : 1e300;
            o.relu_lower_clip_slope = v.params.slope;
            o.elu_alpha = v.params.alpha;
            o.softplus_beta = v.params.softplus_beta;
            o.swish_beta = v.params.swish_beta;
            o.axis = v.params.axis;
            o.compute_data_type = v.compute;
            fe_tensor *in[3] = {nullptr, nullptr, nullptr};
            int ids[3] = {v.in0, v.in1, v.in2};
            for (int i = 0; i < 3; ++i)
                if (ids[i] >= 0) in[i] = c.values[static_cast<size_t>(ids[i])].tensor;
            if (!k.ok(fe_graph_pointwise(g, v.mode, in[0], in[1], in[2], &o, &v.tensor), "fe_graph_pointwise")) return;
            if (v.type != FE_DATA_NOT_SET && !k.ok(fe_tensor_set_data_type(v.tensor, v.type), "fe_tensor_set_data_type"))
                return;
        }
        if (v.output) {
            if (v.output_type != FE_DATA_NOT_SET &&
                !k.ok(fe_tensor_set_data_type(v.tensor, v.output_type), "fe_tensor_set_data_type"))
                return;
            if (v.custom_layout) {
                std::vector<int64_t> strides = strides_for(c.dims, v.out_layout);
                if (!k.ok(fe_tensor_set_strides(v.tensor, rank, strides.data()), "fe_tensor_set_strides")) return;
            }
            if (!k.ok(fe_tensor_set_output(v.tensor, 1), "fe_tensor_set_output")) return;
        }
    }
    if (!k.build()) return;

    for (Value &v : c.values)
        if (v.kind == Value::input) v.bound = &k.input(v.tensor, static_cast<float>(v.range.lo), static_cast<float>(v.range.hi));
    for (Value &v : c.values)
        if (v.output) v.bound = &k.output(v.tensor);
    if (!k.execute()) return;
    pointwise_reference(c);
    // atol's scale: the root mean square over elements of the largest magnitude any value of
    // the chain takes there (what a cancellation downstream leaves of float's rounding).
    std::vector<double> largest(c.values.front().ref.size(), 0.0);
    for (const Value &v : c.values)
        if (!v.boolean)
            for (size_t e = 0; e < largest.size(); ++e) largest[e] = std::max(largest[e], std::fabs(v.ref[e]));
    double sum = 0;
    for (double x : largest) sum += x * x;
    const double spread = std::max(1.0, std::sqrt(sum / static_cast<double>(std::max<size_t>(1, largest.size()))));
    for (const Value &v : c.values) {
        if (!v.output) continue;
        Tolerance t = tolerance(v.bound->type, spread);
        k.check(v.name.c_str(), *v.bound, v.ref, t.atol, t.rtol, t.norm);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The reduction family.                                                                       */
/* ------------------------------------------------------------------------------------------ */

struct ReductionConfig {
    fe_data_type io = FE_DATA_HALF, out_type = FE_DATA_NOT_SET;
    std::vector<int64_t> dims;
    Layout layout;
    double lo = -1, hi = 1;
    fe_reduction_mode mode = FE_REDUCTION_ADD;
    uint32_t axes = 1;
    bool engine_region = false, deterministic = false, explicit_compute = false, custom_layout = false;
    Layout out_layout;
    // The pointwise operation before the reduction (IDENTITY: none) and its second operand: a
    // broadcast input (its dims and layout) or a scalar.
    fe_pointwise_mode pre = FE_POINTWISE_IDENTITY;
    bool pre_binary = false, pre_scalar = false;
    std::vector<int64_t> pre_dims;
    Layout pre_layout;
    double pre_value = 0;

    std::vector<int64_t> out_dims() const {
        std::vector<int64_t> out = dims;
        for (size_t i = 0; i < out.size(); ++i)
            if (axes & (1u << i)) out[i] = 1;
        return out;
    }
    int64_t reduced() const { return product(dims) / product(out_dims()); }
};

const char *reduction_name(fe_reduction_mode m) {
    static const char *names[] = {"add", "mul", "min", "max", "amax", "avg", "norm1", "norm2", "mul_no_zeros"};
    return names[static_cast<int>(m)];
}

ReductionConfig draw_reduction(Rng &rng) {
    ReductionConfig c;
    c.io = rng.pick(std::vector<fe_data_type>{FE_DATA_HALF, FE_DATA_BFLOAT16, FE_DATA_FLOAT});
    if (c.io != FE_DATA_FLOAT && rng.chance(0.4)) c.out_type = FE_DATA_FLOAT;
    // Half the cases in the region cuDNN 9.19's reduction engines take on H100 (a packed
    // channels-last rank-4 tensor reduced over C, over N, H and W, or over everything, into a
    // float result, by add, min, max or amax); the others anywhere.
    c.engine_region = rng.chance(0.5);
    if (c.engine_region) c.out_type = FE_DATA_FLOAT;
    double u = rng.uniform(0, 1);
    if (c.engine_region && u < 0.8)
        c.mode = rng.pick(std::vector<fe_reduction_mode>{FE_REDUCTION_ADD, FE_REDUCTION_MIN, FE_REDUCTION_MAX,
                                                          FE_REDUCTION_AMAX});
    else
        c.mode = u < 0.97 ? static_cast<fe_reduction_mode>(rng.range(0, 7)) : FE_REDUCTION_MUL_NO_ZEROS;
    const bool product_mode = c.mode == FE_REDUCTION_MUL || c.mode == FE_REDUCTION_MUL_NO_ZEROS;
    size_t rank = c.engine_region ? 4 : static_cast<size_t>(rng.range(2, 5));
    c.dims = draw_dims(rng, rank, rng.pick(std::vector<int64_t>{1 << 12, 1 << 15, 1 << 18}));
    // A single channel leaves a channels-last layout ambiguous; those engines refuse it.
    if (c.engine_region && c.dims[1] == 1) c.dims[1] = rng.range(2, 16);
    double v = rng.uniform(0, 1);
    if (c.engine_region)
        c.axes = rng.pick(std::vector<uint32_t>{2u, 0xdu, 0xfu});
    else if (v < 0.15)
        c.axes = (1u << rank) - 1;  // everything
    else if (v < 0.4)
        c.axes = 1u << (rank - 1);  // the innermost dim (rows)
    else if (v < 0.5)
        c.axes = 2u;  // the channels
    else
        c.axes = static_cast<uint32_t>(rng.range(1, (int64_t(1) << rank) - 1));
    if (product_mode) {
        // A product of many factors leaves any type's range: at most 32 of them.
        while (c.reduced() > 32) {
            size_t largest = 0;
            for (size_t i = 0; i < rank; ++i)
                if ((c.axes & (1u << i)) && (!(c.axes & (1u << largest)) || c.dims[i] > c.dims[largest])) largest = i;
            c.dims[largest] = (c.dims[largest] + 1) / 2;
        }
    }
    c.layout = draw_layout(rng, c.dims, true, c.engine_region ? 1.0 : 0.3);
    // Values: products from factors near 1 (all of one sign); the rest in [-2, 2] or positive.
    if (product_mode) {
        bool negative = rng.chance(0.3);
        c.lo = negative ? -1.25 : 0.8;
        c.hi = negative ? -0.8 : 1.25;
    } else if (rng.chance(0.3)) {
        c.lo = 0.1;
        c.hi = 2;
    } else {
        c.lo = -2;
        c.hi = 2;
    }
    c.deterministic = rng.chance(0.05);
    c.explicit_compute = rng.chance(0.3);
    c.custom_layout = rng.chance(0.2);
    if (c.custom_layout) c.out_layout = draw_layout(rng, c.out_dims(), false, 0.5);
    if (!product_mode && rng.chance(0.4)) {
        double w = rng.uniform(0, 1);
        if (w < 0.4) {
            c.pre = rng.pick(std::vector<fe_pointwise_mode>{FE_POINTWISE_ABS, FE_POINTWISE_EXP, FE_POINTWISE_RELU_FWD,
                                                            FE_POINTWISE_NEG, FE_POINTWISE_TANH_FWD,
                                                            FE_POINTWISE_SIGMOID_FWD});
        } else {
            c.pre = rng.pick(std::vector<fe_pointwise_mode>{FE_POINTWISE_MUL, FE_POINTWISE_ADD, FE_POINTWISE_SUB,
                                                            FE_POINTWISE_MUL});
            c.pre_binary = true;
            c.pre_scalar = rng.chance(0.3);
            if (c.pre_scalar) {
                c.pre_value = std::round(rng.uniform(-2, 2) * 16) / 16;
            } else {
                c.pre_dims = c.dims;
                if (c.engine_region) {
                    // The broadcasts rank-4 engines take: per channel, per pixel, one element, none.
                    int pattern = static_cast<int>(rng.range(0, 3));
                    for (size_t d = 0; d < rank; ++d)
                        if ((pattern == 0 && d != 1) || (pattern == 1 && d == 1) || pattern == 2) c.pre_dims[d] = 1;
                } else {
                    for (int64_t &d : c.pre_dims)
                        if (rng.chance(0.5)) d = 1;
                    if (rng.chance(0.2)) c.pre_dims = c.dims;  // a whole second input
                }
                c.pre_layout = draw_layout(rng, c.pre_dims, true, c.engine_region ? 1.0 : 0.5);
            }
        }
    }
    return c;
}

std::string describe(const ReductionConfig &c) {
    std::string axes;
    for (size_t i = 0; i < c.dims.size(); ++i)
        if (c.axes & (1u << i)) axes += (axes.empty() ? "" : ",") + std::to_string(i);
    std::string s = std::string(type_name(c.io)) + " " + reduction_name(c.mode) + " x=" + dims_text(c.dims) + ":" +
                    layout_name(c.layout) + "[" + number(c.lo) + "," + number(c.hi) + "] axes=[" + axes +
                    "] out=" + type_name(c.out_type);
    if (c.custom_layout) s += ":" + layout_name(c.out_layout);
    if (c.pre != FE_POINTWISE_IDENTITY) {
        s += std::string(" after=") + mode_name(c.pre);
        if (c.pre_scalar) s += "(x," + number(c.pre_value) + ")";
        if (c.pre_binary && !c.pre_scalar) s += "(x,in" + dims_text(c.pre_dims) + ":" + layout_name(c.pre_layout) + ")";
    }
    if (c.deterministic) s += " deterministic";
    if (c.explicit_compute) s += " compute=set";
    return s;
}

void reduction_case(Case &k) {
    ReductionConfig c = draw_reduction(k.rng);
    k.describe(describe(c));
    if (!k.graph(c.io)) return;
    fe_graph *g = k.graph_handle();
    const size_t rank = c.dims.size();
    fe_tensor *x = k.tensor("x", c.dims, strides_for(c.dims, c.layout)), *second = nullptr, *reduced_in = x;
    if (!x) return;
    if (c.pre != FE_POINTWISE_IDENTITY) {
        if (c.pre_scalar) {
            if (!k.ok(fe_graph_scalar(g, "s", c.pre_value, FE_DATA_FLOAT, &second), "fe_graph_scalar")) return;
        } else if (c.pre_binary) {
            second = k.tensor("y", c.pre_dims, strides_for(c.pre_dims, c.pre_layout));
            if (!second) return;
        }
        if (!k.ok(fe_graph_pointwise(g, c.pre, x, second, nullptr, nullptr, &reduced_in), "fe_graph_pointwise")) return;
    }
    fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
    o.reduce_axes = c.axes;
    o.deterministic = c.deterministic ? 1 : 0;
    if (c.explicit_compute) o.compute_data_type = FE_DATA_FLOAT;
    fe_tensor *y = nullptr;
    if (!k.ok(fe_graph_reduction(g, reduced_in, c.mode, &o, &y), "fe_graph_reduction")) return;
    if (c.out_type != FE_DATA_NOT_SET && !k.ok(fe_tensor_set_data_type(y, c.out_type), "fe_tensor_set_data_type")) return;
    const std::vector<int64_t> out_dims = c.out_dims();
    if (c.custom_layout) {
        std::vector<int64_t> strides = strides_for(out_dims, c.out_layout);
        if (!k.ok(fe_tensor_set_strides(y, rank, strides.data()), "fe_tensor_set_strides")) return;
    }
    if (!k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;

    Bound &bx = k.input(x, static_cast<float>(c.lo), static_cast<float>(c.hi));
    // mul_no_zeros: a quarter of the elements zero (a plain product would be 0 almost everywhere).
    if (c.mode == FE_REDUCTION_MUL_NO_ZEROS) {
        std::vector<float> values = bx.host;
        for (size_t i = 0; i < values.size(); i += 4) values[i] = 0.f;
        bx.host = values;
        if (bx.buffer) k.ok(fe_buffer_upload_float(bx.buffer, values.data(), bx.span(), bx.type), "fe_buffer_upload_float");
    }
    Bound *by_second = second && !c.pre_scalar ? &k.input(second, -2.f, 2.f) : nullptr;
    Bound &by = k.output(y);
    if (!k.execute()) return;

    const int64_t n_out = product(out_dims), count = c.reduced();
    double init = 0;
    if (c.mode == FE_REDUCTION_MUL || c.mode == FE_REDUCTION_MUL_NO_ZEROS) init = 1;
    if (c.mode == FE_REDUCTION_MIN) init = std::numeric_limits<double>::infinity();
    if (c.mode == FE_REDUCTION_MAX) init = -std::numeric_limits<double>::infinity();
    std::vector<double> ref(static_cast<size_t>(n_out), init);
    std::vector<int64_t> index(rank, 0);
    double sum_squares = 0, largest = 0;
    Params none;
    for (int64_t e = 0; e < product(c.dims); ++e, next_index(index, c.dims)) {
        double v = broadcast_at(bx, index);
        if (c.pre != FE_POINTWISE_IDENTITY)
            v = apply(c.pre, v, c.pre_scalar ? c.pre_value : (by_second ? broadcast_at(*by_second, index) : 0.0), 0, none);
        sum_squares += v * v;
        largest = std::max(largest, std::fabs(v));
        int64_t o = 0;
        for (size_t i = 0; i < rank; ++i) o = o * out_dims[i] + ((c.axes & (1u << i)) ? 0 : index[i]);
        double &r = ref[static_cast<size_t>(o)];
        switch (c.mode) {
        case FE_REDUCTION_ADD:
        case FE_REDUCTION_AVG: r += v; break;
        case FE_REDUCTION_MUL: r *= v; break;
        case FE_REDUCTION_MUL_NO_ZEROS:
            if (v != 0) r *= v;
            break;
        case FE_REDUCTION_MIN: r = std::min(r, v); break;
        case FE_REDUCTION_MAX: r = std::max(r, v); break;
        case FE_REDUCTION_AMAX: r = std::max(r, std::fabs(v)); break;
        case FE_REDUCTION_NORM1: r += std::fabs(v); break;
        case FE_REDUCTION_NORM2: r += v * v; break;
        }
    }
    for (double &r : ref) {
        if (c.mode == FE_REDUCTION_AVG) r /= static_cast<double>(count);
        if (c.mode == FE_REDUCTION_NORM2) r = std::sqrt(r);
    }
    // The spread of a result: a sum of `count` values of this root mean square (a random walk
    // for sums of either sign; norm1's grows like count, its rtol covers that); an average is
    // that over count; products and extremes are of the values' size.
    const double rms = std::sqrt(sum_squares / static_cast<double>(std::max<int64_t>(1, product(c.dims))));
    double spread = std::max(rms, 1e-3);
    if (c.mode == FE_REDUCTION_ADD || c.mode == FE_REDUCTION_NORM1 || c.mode == FE_REDUCTION_NORM2)
        spread *= std::sqrt(static_cast<double>(count));
    if (c.mode == FE_REDUCTION_AVG) spread /= std::sqrt(static_cast<double>(count));
    if (c.mode == FE_REDUCTION_MIN || c.mode == FE_REDUCTION_MAX || c.mode == FE_REDUCTION_AMAX) spread = std::max(largest, 1e-3);
    if (c.mode == FE_REDUCTION_MUL || c.mode == FE_REDUCTION_MUL_NO_ZEROS) spread = 1e-2;  // rtol carries it
    Tolerance t = tolerance(by.type, spread);
    k.check("Y", by, ref, t.atol, t.rtol, t.norm);
}

}  // namespace

void register_elementwise(std::vector<Family> &out) {
    out.push_back({"pointwise", 200, pointwise_case});
    out.push_back({"reduction", 200, reduction_case});
}

}  // namespace conformance
