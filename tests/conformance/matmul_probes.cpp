// Probes of the capability table's matmul, reduction, random-draw and layout entries: each builds
// the one graph its entry describes, executes it, and checks every output against a reference in
// double on the CPU (a draw, whose values cuDNN's Philox decides, against its distribution).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "dims.hpp"
#include "probes.hpp"

namespace conformance {
namespace {

// The root mean square of values (at least `floor`): the spread an absolute tolerance scales by.
double rms(const std::vector<double> &v, double floor = 1e-3) {
    double s = 0;
    for (double x : v) s += x * x;
    return std::max(floor, v.empty() ? 0.0 : std::sqrt(s / static_cast<double>(v.size())));
}

// Host-only values to check as if they were an output (statistics of a draw).
Bound host_values(const std::vector<double> &values) {
    Bound b;
    b.dims = {static_cast<int64_t>(values.size())};
    b.strides = {1};
    b.type = FE_DATA_FLOAT;
    for (double v : values) b.host.push_back(static_cast<float>(v));
    return b;
}

// A statistic against its expected value, within atol (its relative norm held to the same).
void check_stat(Case &k, const char *what, double got, double want, double atol) {
    double norm = want != 0 ? atol / std::fabs(want) : atol;
    k.check(what, host_values({got}), {want}, atol, 0, norm + 1e-12);
}

// Poisons an output again (all bits set) before a second execution.
void repoison(Case &k, Bound &b) {
    if (b.buffer) k.ok(fe_buffer_fill_bytes(b.buffer, 0xFF), "fe_buffer_fill_bytes");
}

// Binds 4-bit integers to t (uniform over the type's range): packed two to a byte, the element at
// the even offset (from the buffer's start) in the low four bits; host gets the values by offset.
Bound &int4_input(Case &k, fe_tensor *t, bool is_signed) {
    std::vector<int32_t> none;
    none.reserve(1);  // data() must not be null for an upload of no bytes
    Bound &b = k.input_int32(t, none);
    std::vector<uint8_t> bytes(static_cast<size_t>((b.span() + 1) / 2), 0);
    for (size_t e = 0; e < b.host.size(); ++e) {
        int v = static_cast<int>(is_signed ? k.rng.range(-8, 7) : k.rng.range(0, 15));
        b.host[e] = static_cast<float>(v);
        bytes[e / 2] |= static_cast<uint8_t>((v & 0xF) << (e % 2 ? 4 : 0));
    }
    if (b.buffer) k.ok(fe_buffer_upload(b.buffer, bytes.data(), static_cast<int64_t>(bytes.size())), "fe_buffer_upload");
    return b;
}

// C[z] = A[z] x B[z] in double over logical values: A [Z, M, K], B [Z, K, N] (or [1, K, N],
// broadcast over the batch, when b_batched is false), C [Z, M, N].
std::vector<double> batched_matmul(const std::vector<double> &a, const std::vector<double> &b, int64_t Z, int64_t M,
                                   int64_t K, int64_t N, bool b_batched = true) {
    std::vector<double> c(static_cast<size_t>(Z * M * N), 0.0);
    for (int64_t z = 0; z < Z; ++z)
        for (int64_t m = 0; m < M; ++m)
            for (int64_t x = 0; x < K; ++x) {
                double av = a[static_cast<size_t>((z * M + m) * K + x)];
                const double *brow = &b[static_cast<size_t>(((b_batched ? z : 0) * K + x) * N)];
                double *crow = &c[static_cast<size_t>((z * M + m) * N)];
                for (int64_t n = 0; n < N; ++n) crow[n] += av * brow[n];
            }
    return c;
}

double gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

/* ------------------------------------------------------------------------------------------ */

// A transformer's feed-forward network in one graph: H = gelu(X.W1), in bf16 between the two
// matmuls, Y = H.W2, the weights broadcast over the batch: two matmuls chained through a
// pointwise step.
void chained_matmuls(Case &k) {
    const int64_t Z = 2, M = 128, D = 64, F = 256;
    k.describe("bf16 X[2,128,64] x W1[1,64,256] -> gelu -> H bf16 (virtual) -> x W2[1,256,64], row-major, float "
               "math, bf16 Y[2,128,64]");
    if (!k.graph(FE_DATA_BFLOAT16)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.packed("x", {Z, M, D}), *w1 = k.packed("w1", {1, D, F}), *w2 = k.packed("w2", {1, F, D});
    if (!x || !w1 || !w2) return;
    fe_tensor *s = nullptr, *h = nullptr, *y = nullptr;
    if (!k.ok(fe_graph_matmul(g, x, w1, nullptr, &s), "fe_graph_matmul") ||
        !k.ok(fe_graph_gelu(g, s, nullptr, &h), "fe_graph_gelu") ||
        !k.ok(fe_tensor_set_data_type(h, FE_DATA_BFLOAT16), "fe_tensor_set_data_type") ||
        !k.ok(fe_graph_matmul(g, h, w2, nullptr, &y), "fe_graph_matmul") ||
        !k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    Bound &bx = k.input(x), &bw1 = k.input(w1), &bw2 = k.input(w2);
    Bound &by = k.output(y);
    if (!k.execute()) return;
    // H rounded to bfloat16, as the graph stores it.
    std::vector<double> hv = batched_matmul(logical(bx), logical(bw1), Z, M, D, F, false);
    for (double &v : hv) v = round_to(FE_DATA_BFLOAT16, static_cast<float>(gelu(v)));
    std::vector<double> ref = batched_matmul(hv, logical(bw2), Z, M, F, D, false);
    double spread = rms(ref);
    k.check("Y", by, ref, 2e-2 * spread, 2e-2, 2.5e-2);
}

// A padded batch of variable-length matrices: per-batch N and K overrides, the columns past N
// filled with padding_value.
void standalone_matmul_overrides(Case &k) {
    const int64_t Z = 4, M = 128, N = 256, K = 192;
    const double padding = 3.0;
    k.describe("bf16 A[4,128,192] x B[4,192,256] row-major, n_override and k_override int32 [4,1,1] (each in "
               "[max/2, max]), padding_value 3");
    if (!k.graph(FE_DATA_BFLOAT16)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *a = k.packed("a", {Z, M, K}), *b = k.packed("b", {Z, K, N});
    fe_tensor *n_size = k.packed("n", {Z, 1, 1}, FE_DATA_INT32), *k_size = k.packed("k", {Z, 1, 1}, FE_DATA_INT32);
    if (!a || !b || !n_size || !k_size) return;
    fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
    o.n_override = n_size;
    o.k_override = k_size;
    o.padding_value = padding;
    fe_tensor *c = nullptr;
    if (!k.ok(fe_graph_matmul(g, a, b, &o, &c), "fe_graph_matmul") || !k.ok(fe_tensor_set_output(c, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    std::vector<int32_t> ns, ks;
    for (int64_t z = 0; z < Z; ++z) {
        ns.push_back(static_cast<int32_t>(k.rng.range(N / 2, N)));
        ks.push_back(static_cast<int32_t>(k.rng.range(K / 2, K)));
    }
    Bound &ba = k.input(a), &bb = k.input(b);
    k.input_int32(n_size, ns);
    k.input_int32(k_size, ks);
    Bound &bc = k.output(c);
    if (!k.execute()) return;
    std::vector<double> av = logical(ba), bv = logical(bb), ref(static_cast<size_t>(Z * M * N), padding);
    for (int64_t z = 0; z < Z; ++z)
        for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < ns[static_cast<size_t>(z)]; ++j) {
                double v = 0;
                for (int64_t x = 0; x < ks[static_cast<size_t>(z)]; ++x)
                    v += av[static_cast<size_t>((z * M + i) * K + x)] * bv[static_cast<size_t>((z * K + x) * N + j)];
                ref[static_cast<size_t>((z * M + i) * N + j)] = v;
            }
    double spread = std::sqrt(static_cast<double>(K)) / 3;
    k.check("C", bc, ref, 2e-2 * spread, 2e-2, 2.5e-2);
}

// The fractions of values in each bin [edges[i], edges[i + 1]) against the distribution's
// probabilities, each within six standard deviations of a fraction of n draws.
void check_histogram(Case &k, const char *what, const std::vector<double> &values, const std::vector<double> &edges,
                     const std::vector<double> &probability) {
    const size_t bins = probability.size();
    std::vector<double> got(bins, 0.0);
    for (double v : values) {
        size_t i = static_cast<size_t>(std::upper_bound(edges.begin(), edges.end(), v) - edges.begin());
        if (i >= 1 && i <= bins) got[i - 1] += 1;
    }
    const double n = static_cast<double>(values.size());
    double atol = 0, ref2 = 0;
    for (size_t i = 0; i < bins; ++i) {
        got[i] /= n;
        atol = std::max(atol, 6 * std::sqrt(probability[i] * (1 - probability[i]) / n));
        ref2 += probability[i] * probability[i];
    }
    k.check(what, host_values(got), probability, atol, 0, atol * std::sqrt(static_cast<double>(bins) / ref2) + 1e-12);
}

// The correlation of values `lag` apart (0 for independent draws), within six standard errors.
void check_correlation(Case &k, const char *what, const std::vector<double> &v, size_t lag) {
    const size_t n = v.size() - lag;
    double mean = 0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    double var = 0, cov = 0;
    for (double x : v) var += (x - mean) * (x - mean);
    for (size_t i = 0; i < n; ++i) cov += (v[i] - mean) * (v[i + lag] - mean);
    var /= static_cast<double>(v.size());
    cov /= static_cast<double>(n);
    double r = var > 0 ? cov / var : 1.0;
    check_stat(k, what, r, 0.0, 6 / std::sqrt(static_cast<double>(n)));
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// A graph-level draw on its own, float [4, 256, 1024], seed and offset device int64 tensors:
// executed twice (the same seed and offset must draw the same values), the first draw checked
// against its distribution: every value in the distribution's range, its mean and spread, the
// fractions in bins, and no correlation between neighbours, rows or batches.
void graph_level_rng(Case &k, fe_rng_distribution distribution) {
    const std::vector<int64_t> dims = {4, 256, 1024};
    const double lo = -1, hi = 3, p = 0.3, mean = 0.5, sd = 2;
    std::string what = distribution == FE_RNG_UNIFORM     ? "uniform [-1, 3)"
                       : distribution == FE_RNG_BERNOULLI ? "bernoulli p 0.3"
                                                          : "normal mean 0.5 std 2";
    k.describe("fe_graph_rng alone, " + what + ", float Y " + list(dims) +
               ", seed and offset int64 device tensors, executed twice");
    if (!k.graph(FE_DATA_FLOAT)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *seed = k.tensor("seed", {1}, {1}, FE_DATA_INT64), *offset = k.tensor("offset", {1}, {1}, FE_DATA_INT64);
    if (!seed || !offset) return;
    fe_rng_options o = FE_RNG_OPTIONS_INIT;
    o.distribution = distribution;
    o.probability = p;
    o.min = lo;
    o.max = hi;
    o.mean = mean;
    o.std = sd;
    o.ndims = dims.size();
    for (size_t i = 0; i < dims.size(); ++i) o.dims[i] = dims[i];
    o.data_type = FE_DATA_FLOAT;
    fe_tensor *y = nullptr;
    if (!k.ok(fe_graph_rng(g, seed, offset, &o, &y), "fe_graph_rng") || !k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    k.input_int64(seed, {20240611});
    k.input_int64(offset, {96});
    Bound &by = k.output(y);
    if (!k.execute()) return;
    Bound first = by;  // host copy of the first draw
    repoison(k, by);
    if (!k.execute()) return;
    std::vector<double> v = logical(first);
    k.check("repeat", by, v, 0, 0, 0);

    // Every value where the distribution puts it (none left poisoned: NaN is never allowed).
    std::vector<double> where(v.size());
    int64_t outside = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        double x = v[i];
        if (distribution == FE_RNG_UNIFORM) where[i] = std::min(hi, std::max(lo, x));
        else if (distribution == FE_RNG_BERNOULLI) where[i] = x >= 0.5 ? 1.0 : 0.0;
        else where[i] = x;
        if (std::isfinite(x) && where[i] != x) ++outside;
    }
    k.check("Y", first, where, 0, 0, 0);
    check_stat(k, "values outside the distribution's range", static_cast<double>(outside), 0, 0.5);

    const double n = static_cast<double>(v.size());
    double sum = 0, sum2 = 0;
    for (double x : v) {
        sum += x;
        sum2 += x * x;
    }
    const double got_mean = sum / n, got_var = std::max(0.0, sum2 / n - got_mean * got_mean);
    if (distribution == FE_RNG_UNIFORM) {
        const double w = hi - lo, var = w * w / 12, mu4 = w * w * w * w / 80;
        check_stat(k, "mean", got_mean, (lo + hi) / 2, 6 * std::sqrt(var / n));
        check_stat(k, "variance", got_var, var, 6 * std::sqrt((mu4 - var * var) / n));
        std::vector<double> edges, probability;
        for (int i = 0; i <= 16; ++i) edges.push_back(lo + w * i / 16);
        edges.back() = std::nextafter(hi, 2 * hi);  // a draw of exactly max lands in the last bin
        probability.assign(16, 1.0 / 16);
        check_histogram(k, "fractions in 16 bins", v, edges, probability);
    } else if (distribution == FE_RNG_BERNOULLI) {
        check_stat(k, "fraction of ones", got_mean, p, 6 * std::sqrt(p * (1 - p) / n));
    } else {
        check_stat(k, "mean", got_mean, mean, 6 * sd / std::sqrt(n));
        check_stat(k, "standard deviation", std::sqrt(got_var), sd, 6 * sd / std::sqrt(2 * n));
        std::vector<double> z = {-2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2}, edges, probability;
        edges.push_back(-std::numeric_limits<double>::infinity());
        for (double e : z) edges.push_back(mean + sd * e);
        edges.push_back(std::numeric_limits<double>::infinity());
        for (size_t i = 0; i + 1 < edges.size(); ++i)
            probability.push_back(normal_cdf((edges[i + 1] - mean) / sd) - normal_cdf((edges[i] - mean) / sd));
        check_histogram(k, "fractions in 10 bins (mean + std * [-2, 2] by halves)", v, edges, probability);
    }
    check_correlation(k, "correlation of neighbours", v, 1);
    check_correlation(k, "correlation of rows", v, static_cast<size_t>(dims[2]));
    check_correlation(k, "correlation of batches", v, static_cast<size_t>(dims[1] * dims[2]));
}

// Strides of a packed channels-last rank-4 tensor [N, C, H, W].
std::vector<int64_t> nhwc(const std::vector<int64_t> &d) { return {d[1] * d[2] * d[3], 1, d[3] * d[1], d[1]}; }

// Sums over C of [N, C, H, W] (logical values) into [N, 1, H, W].
std::vector<double> sum_over_c(const std::vector<double> &x, const std::vector<int64_t> &d) {
    const int64_t plane = d[2] * d[3];
    std::vector<double> out(static_cast<size_t>(d[0] * plane), 0.0);
    for (int64_t n = 0; n < d[0]; ++n)
        for (int64_t c = 0; c < d[1]; ++c)
            for (int64_t p = 0; p < plane; ++p)
                out[static_cast<size_t>(n * plane + p)] += x[static_cast<size_t>((n * d[1] + c) * plane + p)];
    return out;
}

// A deterministic add over C of a packed channels-last fp32 tensor into float, on its own;
// executed twice, the second result bitwise the first.
void deterministic_reduction(Case &k) {
    const std::vector<int64_t> d = {4, 64, 16, 16};
    k.describe("deterministic reduction alone: add over C of fp32 x " + list(d) +
               " packed NHWC into float [4,1,16,16], executed twice");
    if (!k.graph(FE_DATA_FLOAT)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.tensor("x", d, nhwc(d));
    if (!x) return;
    fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
    o.reduce_axes = 1u << 1;
    o.deterministic = 1;
    fe_tensor *y = nullptr;
    if (!k.ok(fe_graph_reduction(g, x, FE_REDUCTION_ADD, &o, &y), "fe_graph_reduction") ||
        !k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    Bound &bx = k.input(x, -2.f, 2.f);
    Bound &by = k.output(y);
    if (!k.execute()) return;
    Bound first = by;
    repoison(k, by);
    if (!k.execute()) return;
    std::vector<double> ref = sum_over_c(logical(bx), d);
    double spread = rms(logical(bx)) * std::sqrt(static_cast<double>(d[1]));
    k.check("Y", first, ref, 2e-3 * spread, 2e-3, 2e-3);
    k.check("repeat (bitwise)", by, logical(first), 0, 0, 0);
}

// The deterministic reduction fused after a matmul: C = A.B (float, virtual), Y = the sum of
// each row of C (over N), deterministic; executed twice, the second result bitwise the first.
void deterministic_reduction_fused(Case &k) {
    const int64_t Z = 1, M = 256, K = 64, N = 128;
    k.describe("deterministic reduction fused after a matmul: fp16 A[1,256,64] x B[1,64,128] row-major -> float C "
               "(virtual) -> add over N into float Y[1,256,1], executed twice");
    if (!k.graph(FE_DATA_HALF)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *a = k.packed("a", {Z, M, K}), *b = k.packed("b", {Z, K, N});
    if (!a || !b) return;
    fe_tensor *c = nullptr, *y = nullptr;
    fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
    o.reduce_axes = 1u << 2;
    o.deterministic = 1;
    if (!k.ok(fe_graph_matmul(g, a, b, nullptr, &c), "fe_graph_matmul") ||
        !k.ok(fe_graph_reduction(g, c, FE_REDUCTION_ADD, &o, &y), "fe_graph_reduction") ||
        !k.ok(fe_tensor_set_data_type(y, FE_DATA_FLOAT), "fe_tensor_set_data_type") ||
        !k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    Bound &ba = k.input(a), &bb = k.input(b);
    Bound &by = k.output(y);
    if (!k.execute()) return;
    Bound first = by;
    repoison(k, by);
    if (!k.execute()) return;
    std::vector<double> cv = batched_matmul(logical(ba), logical(bb), Z, M, K, N), ref(static_cast<size_t>(Z * M), 0.0);
    for (int64_t m = 0; m < Z * M; ++m)
        for (int64_t n = 0; n < N; ++n) ref[static_cast<size_t>(m)] += cv[static_cast<size_t>(m * N + n)];
    // Each row sum adds N products of K terms (uniform(-1, 1) operands).
    double spread = std::sqrt(static_cast<double>(K * N)) / 3;
    k.check("Y", first, ref, 5e-3 * spread, 5e-3, 2e-3);
    k.check("repeat (bitwise)", by, logical(first), 0, 0, 0);
}

// The product of the non-zero elements over C of a packed channels-last fp32 tensor (a quarter of
// the elements zero, the others of either sign and near 1) into float.
void reduction_mul_no_zeros(Case &k) {
    const std::vector<int64_t> d = {4, 16, 8, 8};
    k.describe("mul_no_zeros over C of fp32 x " + list(d) +
               " packed NHWC (a quarter zeros, the rest +-[0.8, 1.25]) into float [4,1,8,8]");
    if (!k.graph(FE_DATA_FLOAT)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.tensor("x", d, nhwc(d));
    if (!x) return;
    fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
    o.reduce_axes = 1u << 1;
    fe_tensor *y = nullptr;
    if (!k.ok(fe_graph_reduction(g, x, FE_REDUCTION_MUL_NO_ZEROS, &o, &y), "fe_graph_reduction") ||
        !k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    std::vector<float> values(static_cast<size_t>(product(d)));
    for (float &v : values) {
        if (k.rng.chance(0.25)) {
            v = 0.f;
            continue;
        }
        v = static_cast<float>(k.rng.uniform(0.8, 1.25));
        if (k.rng.chance(0.5)) v = -v;
    }
    Bound &bx = k.input_values(x, values);
    Bound &by = k.output(y);
    if (!k.execute()) return;
    std::vector<double> xv = logical(bx);
    const int64_t plane = d[2] * d[3];
    std::vector<double> ref(static_cast<size_t>(d[0] * plane), 1.0);
    for (int64_t n = 0; n < d[0]; ++n)
        for (int64_t c = 0; c < d[1]; ++c)
            for (int64_t p = 0; p < plane; ++p) {
                double v = xv[static_cast<size_t>((n * d[1] + c) * plane + p)];
                if (v != 0) ref[static_cast<size_t>(n * plane + p)] *= v;
            }
    k.check("Y", by, ref, 2e-5, 2e-3, 2e-3);
}

// Half activations A [1, M, K] times 4-bit weights B [1, K, N] in the layout given, converted as
// they are (scaling 0), scaled per column (1) or dequantized per group of `group` rows (2) with
// scales of scale_type; C half. The reference takes the stored integers times their scales,
// rounded to half as the graph's dequantized weight is.
void four_bit_matmul(Case &k, fe_data_type weights, bool k_contiguous, int scaling, fe_data_type scale_type,
                     int64_t group) {
    const int64_t M = 64, K = 256, N = 128;
    const bool is_signed = weights == FE_DATA_INT4;
    static const char *scalings[] = {"converted as they are", "scaled per column", "dequantized per group of "};
    std::string text = std::string("fp16 A[1,64,256] x ") + (is_signed ? "int4" : "uint4") + " B[1,256,128] " +
                       (k_contiguous ? "K-contiguous (strides [K*N,1,K])" : "N-contiguous (strides [K*N,N,1])") + ", " +
                       scalings[scaling];
    if (scaling == 2) text += std::to_string(group) + " rows";
    if (scaling) text += std::string(" (") + (scale_type == FE_DATA_FLOAT ? "float" : "half") + " scales)";
    k.describe(text + ", fp16 C");
    if (!k.graph(FE_DATA_HALF)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *a = k.packed("a", {1, M, K});
    fe_tensor *b = k.tensor("b", {1, K, N}, k_contiguous ? std::vector<int64_t>{K * N, 1, K} : std::vector<int64_t>{K * N, N, 1},
                            weights);
    if (!a || !b) return;
    fe_tensor *scale = nullptr, *w = b, *c = nullptr;
    if (scaling == 1) {
        scale = k.packed("scale", {1, 1, N}, scale_type);
        if (!scale || !k.ok(fe_graph_pointwise(g, FE_POINTWISE_MUL, b, scale, nullptr, nullptr, &w), "fe_graph_pointwise") ||
            !k.ok(fe_tensor_set_data_type(w, FE_DATA_HALF), "fe_tensor_set_data_type"))
            return;
    } else if (scaling == 2) {
        scale = k.packed("scale", {1, K / group, N}, scale_type);
        fe_block_scale_options o = FE_BLOCK_SCALE_OPTIONS_INIT;
        o.block_rows = static_cast<int32_t>(group);
        o.block_size = 1;
        if (!scale || !k.ok(fe_graph_block_scale_dequantize(g, b, scale, &o, &w), "fe_graph_block_scale_dequantize") ||
            !k.ok(fe_tensor_set_data_type(w, FE_DATA_HALF), "fe_tensor_set_data_type"))
            return;
    }
    if (!k.ok(fe_graph_matmul(g, a, w, nullptr, &c), "fe_graph_matmul") || !k.ok(fe_tensor_set_output(c, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    Bound &ba = k.input(a);
    Bound &bb = int4_input(k, b, is_signed);
    Bound *bs = scale ? &k.input(scale, 0.01f, 0.1f) : nullptr;
    Bound &bc = k.output(c);
    if (!k.execute()) return;
    std::vector<double> av = logical(ba), wv(static_cast<size_t>(K * N));
    for (int64_t x = 0; x < K; ++x)
        for (int64_t n = 0; n < N; ++n) {
            double v = bb.at({0, x, n});
            if (scaling == 1) v *= bs->at({0, 0, n});
            if (scaling == 2) v *= bs->at({0, x / group, n});
            wv[static_cast<size_t>(x * N + n)] = round_to(FE_DATA_HALF, static_cast<float>(v));
        }
    std::vector<double> ref = batched_matmul(av, wv, 1, M, K, N);
    k.check("C", bc, ref, 1e-2 * rms(ref), 2e-2, 1e-2);
}

// y = x * c, c a compile-time constant (fe_graph_constant, float 0.75): a pointwise graph.
void compile_time_constants(Case &k) {
    const std::vector<int64_t> d = {8, 128, 256};
    k.describe("fp16 x " + list(d) + " row-major times fe_graph_constant 0.75 (float), fp16 y");
    if (!k.graph(FE_DATA_HALF)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.packed("x", d), *c = nullptr, *y = nullptr;
    if (!x || !k.ok(fe_graph_constant(g, "c", 0.75, FE_DATA_FLOAT, &c), "fe_graph_constant") ||
        !k.ok(fe_graph_mul(g, x, c, nullptr, &y), "fe_graph_mul") || !k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    Bound &bx = k.input(x, -2.f, 2.f);
    Bound &by = k.output(y);
    if (!k.execute()) return;
    std::vector<double> ref = logical(bx);
    for (double &v : ref) v *= 0.75;
    k.check("y", by, ref, 1e-3, 1e-2, 1e-2);
}

// Softmax over the last dim of fp16 x [4, 128, 256], on its own.
void standalone_softmax(Case &k) {
    const std::vector<int64_t> d = {4, 128, 256};
    k.describe("softmax alone over the last dim of fp16 x " + list(d) + " row-major (x in [-4, 4]), fp16 y");
    if (!k.graph(FE_DATA_HALF)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.packed("x", d), *y = nullptr, *stats = nullptr;
    if (!x || !k.ok(fe_graph_softmax(g, x, nullptr, &y, &stats), "fe_graph_softmax") ||
        !k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    Bound &bx = k.input(x, -4.f, 4.f);
    Bound &by = k.output(y);
    if (!k.execute()) return;
    std::vector<double> ref = logical(bx);
    const int64_t n = d[2];
    for (size_t row = 0; row < ref.size(); row += static_cast<size_t>(n)) {
        double largest = -std::numeric_limits<double>::infinity(), sum = 0;
        for (int64_t i = 0; i < n; ++i) largest = std::max(largest, ref[row + static_cast<size_t>(i)]);
        for (int64_t i = 0; i < n; ++i) sum += ref[row + static_cast<size_t>(i)] = std::exp(ref[row + static_cast<size_t>(i)] - largest);
        for (int64_t i = 0; i < n; ++i) ref[row + static_cast<size_t>(i)] /= sum;
    }
    k.check("y", by, ref, 1e-2 * rms(ref), 1e-2, 1e-2);
}

// A reshape on its own: fp16 x [128, 32] viewed as [2, 64, 32] (a copy, exact).
void standalone_reshape(Case &k) {
    k.describe("reshape alone: fp16 x [128,32] row-major to y [2,64,32] (exact)");
    if (!k.graph(FE_DATA_HALF)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.packed("x", {128, 32}), *y = nullptr;
    const int64_t to[3] = {2, 64, 32};
    if (!x || !k.ok(fe_graph_reshape(g, x, 3, to, nullptr, &y), "fe_graph_reshape") ||
        !k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    Bound &bx = k.input(x);
    Bound &by = k.output(y);
    if (!k.execute()) return;
    k.check("y", by, logical(bx), 0, 0, 0);
}

// A transpose on its own: fp16 x [4, 64, 32], y [4, 32, 64] with y[b, i, j] = x[b, j, i] (exact).
void standalone_transpose(Case &k) {
    const int64_t B = 4, R = 64, C = 32;
    k.describe("transpose alone: fp16 x [4,64,32] row-major, perm [0,2,1], y [4,32,64] packed (exact)");
    if (!k.graph(FE_DATA_HALF)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *x = k.packed("x", {B, R, C}), *y = nullptr;
    const int64_t perm[3] = {0, 2, 1};
    if (!x || !k.ok(fe_graph_transpose(g, x, 3, perm, nullptr, &y), "fe_graph_transpose") ||
        !k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    Bound &bx = k.input(x);
    Bound &by = k.output(y);
    if (!k.execute()) return;
    std::vector<double> xv = logical(bx), ref(xv.size());
    for (int64_t b = 0; b < B; ++b)
        for (int64_t i = 0; i < C; ++i)
            for (int64_t j = 0; j < R; ++j)
                ref[static_cast<size_t>((b * C + i) * R + j)] = xv[static_cast<size_t>((b * R + j) * C + i)];
    k.check("y", by, ref, 0, 0, 0);
}

// A concatenation on its own: fp16 a [2, 8, 60, 16] and b [2, 8, 4, 16] along dim 2 (exact).
void standalone_concatenate(Case &k) {
    const int64_t N = 2, H = 8, SA = 60, SB = 4, D = 16;
    k.describe("concatenation alone: fp16 a [2,8,60,16] and b [2,8,4,16] row-major along dim 2 into y [2,8,64,16] "
               "(copied, exact)");
    if (!k.graph(FE_DATA_HALF)) return;
    fe_graph *g = k.graph_handle();
    fe_tensor *a = k.packed("a", {N, H, SA, D}), *b = k.packed("b", {N, H, SB, D}), *y = nullptr;
    if (!a || !b) return;
    fe_tensor *xs[2] = {a, b};
    if (!k.ok(fe_graph_concatenate(g, 2, xs, 2, nullptr, &y), "fe_graph_concatenate") ||
        !k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output"))
        return;
    if (!k.build()) return;
    Bound &ba = k.input(a), &bb = k.input(b);
    Bound &by = k.output(y);
    if (!k.execute()) return;
    std::vector<double> ref;
    for (int64_t n = 0; n < N; ++n)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t s = 0; s < SA + SB; ++s)
                for (int64_t e = 0; e < D; ++e)
                    ref.push_back(s < SA ? ba.at({n, h, s, e}) : bb.at({n, h, s - SA, e}));
    k.check("y", by, ref, 0, 0, 0);
}

}  // namespace

// fp32 [5,67,3] times an operand [5,1,1] that varies only along the first dim.
void pointwise_rank3_first_dim(Case &k) {
    k.describe("fp32 x [5,67,3] * s [5,1,1] (packed), one pointwise multiply");
    if (!k.graph(FE_DATA_FLOAT)) return;
    fe_tensor *x = k.packed("x", {5, 67, 3}), *s = k.packed("s", {5, 1, 1}), *y = nullptr;
    if (!k.ok(fe_graph_mul(k.graph_handle(), x, s, nullptr, &y), "fe_graph_mul")) return;
    k.ok(fe_tensor_set_output(y, 1), "fe_tensor_set_output");
    if (!k.build()) return;
    Bound &bx = k.input(x), &bs = k.input(s, 0.5f, 2.f);
    Bound &by = k.output(y);
    if (!k.execute()) return;
    std::vector<double> ref;
    for (int64_t b = 0; b < 5; ++b)
        for (int64_t i = 0; i < 67; ++i)
            for (int64_t j = 0; j < 3; ++j) ref.push_back(static_cast<double>(bx.at({b, i, j})) * bs.at({b, 0, 0}));
    k.check("y", by, ref, 1e-5, 1e-5, 1e-6);
}

void register_matmul_probes(std::vector<Probe> &out) {
    Probe first_dim{"pointwise_rank3_first_dim_broadcast", "fp32 x [5,67,3] times an operand [5,1,1], alone",
                    pointwise_rank3_first_dim};
    first_dim.also_bypass = "pointwise_rank3_partial_broadcast";  // [N, 1, 1] is broadcast along W too
    out.push_back(first_dim);
    out.push_back({"chained_matmuls", "bf16 FFN in one graph: X[2,128,64] x W1[1,64,256], gelu, H bf16, x W2[1,256,64]",
                   chained_matmuls});
    out.push_back({"standalone_matmul_overrides",
                   "bf16 batched matmul [4,128,192] x [4,192,256] alone with N and K overrides and padding_value 3",
                   standalone_matmul_overrides});
    out.push_back({"graph_level_rng", "fe_graph_rng alone: uniform [-1, 3) float [4,256,1024], checked against the "
                                      "distribution (range, mean, variance, 16 bins, correlations) and repeated",
                   [](Case &k) { graph_level_rng(k, FE_RNG_UNIFORM); }});
    out.push_back({"graph_level_rng:bernoulli", "fe_graph_rng alone: bernoulli p 0.3 float [4,256,1024] (values 0 or "
                                                "1, fraction of ones, correlations) and repeated",
                   [](Case &k) { graph_level_rng(k, FE_RNG_BERNOULLI); }});
    out.push_back({"graph_level_rng:normal", "fe_graph_rng alone: normal mean 0.5 std 2 float [4,256,1024] (mean, "
                                             "std, 10 bins, correlations) and repeated",
                   [](Case &k) { graph_level_rng(k, FE_RNG_NORMAL); }});
    out.push_back({"deterministic_reduction_kernels",
                   "deterministic add over C of fp32 [4,64,16,16] packed NHWC into float, alone, run twice",
                   deterministic_reduction});
    out.push_back({"deterministic_reduction_kernels:fused",
                   "fp16 matmul [1,256,64] x [1,64,128] then a deterministic add over N into float [1,256,1], one graph",
                   deterministic_reduction_fused});
    out.push_back({"reduction_mul_no_zeros",
                   "mul_no_zeros over C of fp32 [4,16,8,8] packed NHWC (a quarter zeros) into float",
                   reduction_mul_no_zeros});
    out.push_back({"int4_weights_layout", "fp16 [1,64,256] x int4 [1,256,128] N-contiguous, converted as they are",
                   [](Case &k) { four_bit_matmul(k, FE_DATA_INT4, false, 0, FE_DATA_HALF, 0); }});
    out.push_back({"int4_weights_layout:per_group",
                   "fp16 [1,64,256] x int4 [1,256,128] N-contiguous, dequantized per group of 32 rows (float scales)",
                   [](Case &k) { four_bit_matmul(k, FE_DATA_INT4, false, 2, FE_DATA_FLOAT, 32); }});
    out.push_back({"uint4_tensors", "fp16 [1,64,256] x uint4 [1,256,128] K-contiguous, converted as they are",
                   [](Case &k) { four_bit_matmul(k, FE_DATA_UINT4, true, 0, FE_DATA_HALF, 0); }});
    out.push_back({"uint4_tensors:per_group",
                   "fp16 [1,64,256] x uint4 [1,256,128] K-contiguous, dequantized per group of 128 rows (half scales)",
                   [](Case &k) { four_bit_matmul(k, FE_DATA_UINT4, true, 2, FE_DATA_HALF, 128); }});
    out.push_back({"standalone_softmax", "softmax alone over the last dim of fp16 [4,128,256]", standalone_softmax});
    out.push_back({"standalone_reshape", "reshape alone: fp16 [128,32] to [2,64,32]", standalone_reshape});
    out.push_back({"standalone_transpose", "transpose alone: fp16 [4,64,32], perm [0,2,1]", standalone_transpose});
    out.push_back({"standalone_concatenate", "concatenation alone: fp16 [2,8,60,16] and [2,8,4,16] along dim 2",
                   standalone_concatenate});
    out.push_back({"compile_time_constants", "fp16 [8,128,256] times fe_graph_constant 0.75 (float)",
                   compile_time_constants});
}

}  // namespace conformance
