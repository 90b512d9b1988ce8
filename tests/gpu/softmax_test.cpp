// Softmax fused between two matmuls (the attention pattern, the way cuDNN 9.19 runs it):
// O = softmax(Q.K^T) V with the log-sum-exp statistics, against a double reference.
#include "norm_reference.hpp"

using namespace cudnnfe_test;

namespace {

TEST_F(Gpu, SoftmaxBetweenMatmulsWithStats) {
    const int64_t b = 1, h = 2, s = 64, d = 32;
    fe_graph *g = graph("matmul_softmax_matmul", FE_DATA_HALF);
    fe_tensor *q = tensor(g, "q", {b, h, s, d}), *v = tensor(g, "v", {b, h, s, d}), *k_t = nullptr;
    // K stored [b, h, s, d], read as K^T [b, h, d, s].
    int64_t kt_dims[4] = {b, h, d, s}, kt_strides[4] = {h * s * d, s * d, 1, d};
    ASSERT_FE_OK(fe_graph_tensor(g, "k_t", 4, kt_dims, kt_strides, FE_DATA_HALF, &k_t));
    fe_tensor *scores = nullptr, *p = nullptr, *stats = nullptr, *o = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, q, k_t, nullptr, &scores));
    fe_softmax_options so = FE_SOFTMAX_OPTIONS_INIT;
    so.generate_stats = 1;
    ASSERT_FE_OK(fe_graph_softmax(g, scores, &so, &p, &stats));
    ASSERT_FE_OK(fe_tensor_set_data_type(p, FE_DATA_HALF));
    ASSERT_FE_OK(fe_graph_matmul(g, p, v, nullptr, &o));
    ASSERT_FE_OK(fe_tensor_set_output(o, 1));
    ASSERT_FE_OK(fe_tensor_set_output(stats, 1));
    build(g);
    Bound &bq = bind(q, true), &bk = bind(k_t, true), &bv = bind(v, true);
    Bound &bo = bind(o, false), &bs = bind(stats, false);
    execute(g, {&bq, &bk, &bv, &bo, &bs});
    download(bo);
    download(bs);

    std::vector<double> logits = matmul_reference(bq, bk, {b, h, s, s});
    std::vector<double> probabilities(logits.size()), want_stats;
    for (size_t row = 0; row < logits.size() / static_cast<size_t>(s); ++row) {
        const double *l = &logits[row * static_cast<size_t>(s)];
        double max = l[0], sum = 0;
        for (int64_t j = 1; j < s; ++j) max = std::max(max, l[j]);
        for (int64_t j = 0; j < s; ++j) sum += std::exp(l[j] - max);
        for (int64_t j = 0; j < s; ++j)  // P enters the second matmul in half, as on the GPU
            probabilities[row * static_cast<size_t>(s) + static_cast<size_t>(j)] =
                round_to(FE_DATA_HALF, static_cast<float>(std::exp(l[j] - max) / sum));
        want_stats.push_back(max + std::log(sum));
    }
    std::vector<double> want_o;
    for (int64_t bh = 0; bh < b * h; ++bh)
        for (int64_t i = 0; i < s; ++i)
            for (int64_t c = 0; c < d; ++c) {
                double acc = 0;
                for (int64_t j = 0; j < s; ++j)
                    acc += probabilities[static_cast<size_t>((bh * s + i) * s + j)] * bv.at({0, bh, j, c});
                want_o.push_back(acc);
            }
    expect_close(bo, want_o, 2e-2, 2e-2, 5e-3);
    expect_close(bs, want_stats, 1e-2, 1e-3, 1e-3);
}

}  // namespace
