// complex_matmul: complex fp32 A [b, M, K] times B [b, K, N] into C [b, M, N] (cuDNN >= 9.14), M,
// N and K from 1 to 512 (log-uniform), a batch of 1 to 8 that either operand may broadcast (a 1),
// each operand row- or column-major, now and then with a gap between its batches. Reference: the
// complex products summed in double on the CPU from the values as stored.
#include <cmath>
#include <cstdio>
#include <string>

#include "dims.hpp"
#include "families.hpp"

namespace conformance {
namespace {

struct ComplexConfig {
    int64_t batch = 1, m = 1, n = 1, k = 1;
    bool a_broadcast = false, b_broadcast = false;
    bool a_column_major = false, b_column_major = false;
    int64_t batch_gap = 0;  // extra elements between batches of each operand
};

ComplexConfig draw(Rng &rng) {
    ComplexConfig c;
    c.batch = rng.size(1, 8);
    c.m = rng.size(1, 512);
    c.n = rng.size(1, 512);
    c.k = rng.size(1, 512);
    if (c.batch > 1) {
        c.a_broadcast = rng.chance(0.15);
        c.b_broadcast = !c.a_broadcast && rng.chance(0.15);
    }
    c.a_column_major = rng.chance(0.3);
    c.b_column_major = rng.chance(0.5);
    c.batch_gap = rng.chance(0.15) ? rng.range(1, 64) : 0;
    return c;
}

std::string describe(const ComplexConfig &c) {
    char text[256];
    std::snprintf(text, sizeof text, "complex_fp32 batch=%lld%s M=%lld N=%lld K=%lld A=%s B=%s batch_gap=%lld",
                  static_cast<long long>(c.batch),
                  c.a_broadcast ? "(A broadcast)" : c.b_broadcast ? "(B broadcast)" : "",
                  static_cast<long long>(c.m), static_cast<long long>(c.n), static_cast<long long>(c.k),
                  c.a_column_major ? "column-major" : "row-major", c.b_column_major ? "column-major" : "row-major",
                  static_cast<long long>(c.batch_gap));
    return text;
}

// A [batch, rows, cols] operand's strides: its matrices row- or column-major, gap elements
// between them.
Dims operand_strides(int64_t rows, int64_t cols, bool column_major, int64_t gap) {
    const int64_t matrix = rows * cols + gap;
    return column_major ? Dims{matrix, 1, rows} : Dims{matrix, cols, 1};
}

void complex_matmul_case(Case &k) {
    const ComplexConfig c = draw(k.rng);
    k.describe(describe(c));
    if (!k.graph(FE_DATA_COMPLEX_FP32)) return;
    const Dims a_dims{c.a_broadcast ? 1 : c.batch, c.m, c.k}, b_dims{c.b_broadcast ? 1 : c.batch, c.k, c.n};
    fe_tensor *a = k.tensor("A", a_dims, operand_strides(c.m, c.k, c.a_column_major, c.batch_gap));
    fe_tensor *b = a ? k.tensor("B", b_dims, operand_strides(c.k, c.n, c.b_column_major, c.batch_gap)) : nullptr;
    if (!b) return;
    fe_tensor *out = nullptr;
    if (!k.ok(fe_graph_matmul(k.graph_handle(), a, b, nullptr, &out), "fe_graph_matmul")) return;
    if (!k.ok(fe_tensor_set_output(out, 1), "fe_tensor_set_output")) return;
    if (!k.build()) return;

    Bound &ba = k.input_complex(a), &bb = k.input_complex(b), &bc = k.output(out);
    if (!k.execute()) return;
    std::vector<double> want_re, want_im, magnitude;
    for (int64_t i = 0; i < c.batch; ++i)
        for (int64_t m = 0; m < c.m; ++m)
            for (int64_t n = 0; n < c.n; ++n) {
                double re = 0, im = 0, size = 0;
                for (int64_t j = 0; j < c.k; ++j) {
                    const size_t ea = static_cast<size_t>(ba.offset({c.a_broadcast ? 0 : i, m, j}));
                    const size_t eb = static_cast<size_t>(bb.offset({c.b_broadcast ? 0 : i, j, n}));
                    const double ar = ba.host[2 * ea], ai = ba.host[2 * ea + 1];
                    const double br = bb.host[2 * eb], bi = bb.host[2 * eb + 1];
                    re += ar * br - ai * bi;
                    im += ar * bi + ai * br;
                    size += (std::fabs(ar) + std::fabs(ai)) * (std::fabs(br) + std::fabs(bi));
                }
                want_re.push_back(re);
                want_im.push_back(im);
                magnitude.push_back(size);
            }
    // Each part sums 2K products, which float math may take in TF32 as the real float matmul's
    // engines do: the same allowance as the matmul family's float results (2^-9 of the terms'
    // magnitudes, relative 5e-3, norm 2e-3).
    const double eps = std::ldexp(1.0, -9);
    k.check_sums("C.real", complex_part(bc, 0), want_re, magnitude, eps, 1e-4, 5e-3, 2e-3);
    k.check_sums("C.imaginary", complex_part(bc, 1), want_im, magnitude, eps, 1e-4, 5e-3, 2e-3);
}

}  // namespace

void register_complex_matmul(std::vector<Family> &out) {
    out.push_back({"complex_matmul", 300, complex_matmul_case});
}

}  // namespace conformance
