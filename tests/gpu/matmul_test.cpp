// Matmul, matmul + bias (the seed), matmul + bias + gelu, and a matmul row-max reduction.
#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

struct MatmulCase {
    const char *name;
    fe_data_type type;
    std::vector<int64_t> a, b;
    bool bias;
};

class MatmulNumerics : public Gpu, public ::testing::WithParamInterface<MatmulCase> {};

TEST_P(MatmulNumerics, MatchesCpuReference) {
    const MatmulCase &c = GetParam();
    fe_graph *g = graph(c.name, c.type);
    fe_tensor *a = tensor(g, "a", c.a), *b = tensor(g, "b", c.b), *d = nullptr;
    fe_tensor *ab = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &ab));
    y = ab;
    std::vector<int64_t> bias_dims;
    if (c.bias) {
        size_t rank = c.a.size();
        bias_dims.assign(rank, 1);
        bias_dims[rank - 2] = c.a[rank - 2];
        bias_dims[rank - 1] = c.b[rank - 1];
        d = tensor(g, "d", bias_dims);
        ASSERT_FE_OK(fe_graph_bias(g, ab, d, nullptr, &y));
    }
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build(g);
    std::printf("    %s plan %s\n", c.name, engine_tag_of(g));
    Bound &ba = bind(a, true), &bb = bind(b, true);
    Bound *bd = d ? &bind(d, true) : nullptr;
    Bound &by = bind(y, false);
    std::vector<Bound *> all = {&ba, &bb, &by};
    if (bd) all.push_back(bd);
    execute(g, all);
    download(by);
    std::vector<double> ref = matmul_reference(ba, bb, by.dims);
    if (bd) {
        std::vector<int64_t> index(by.dims.size(), 0);
        for (double &v : ref) {
            v += broadcast_at(*bd, index);
            for (size_t k = index.size(); k-- > 0;) {
                if (++index[k] < by.dims[k]) break;
                index[k] = 0;
            }
        }
    }
    expect_close(by, ref, atol_for(c.type) * 4, rtol_for(c.type), norm_for(c.type));
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, MatmulNumerics,
    ::testing::Values(MatmulCase{"seed_fp16_bias", FE_DATA_HALF, {16, 128, 512}, {16, 512, 128}, true},
                      MatmulCase{"bf16_bias", FE_DATA_BFLOAT16, {8, 64, 256}, {8, 256, 96}, true},
                      MatmulCase{"fp32", FE_DATA_FLOAT, {4, 64, 128}, {4, 128, 32}, false},
                      MatmulCase{"fp16_2d", FE_DATA_HALF, {256, 128}, {128, 64}, false},
                      MatmulCase{"fp16_broadcast_batch", FE_DATA_HALF, {1, 64, 32}, {6, 32, 48}, false},
                      MatmulCase{"fp16_odd_sizes", FE_DATA_HALF, {3, 40, 72}, {3, 72, 24}, true}),
    [](const ::testing::TestParamInfo<MatmulCase> &info) { return std::string(info.param.name); });

TEST_F(Gpu, MatmulBiasGeluMatchesCpuReference) {
    fe_graph *g = graph("ffn_up", FE_DATA_BFLOAT16);
    fe_tensor *a = tensor(g, "a", {4, 64, 128}), *b = tensor(g, "b", {4, 128, 256});
    fe_tensor *bias = tensor(g, "bias", {1, 1, 256});
    fe_tensor *ab = nullptr, *biased = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &ab));
    ASSERT_FE_OK(fe_graph_bias(g, ab, bias, nullptr, &biased));
    ASSERT_FE_OK(fe_graph_gelu(g, biased, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build(g);
    Bound &ba = bind(a, true), &bb = bind(b, true), &bbias = bind(bias, true), &by = bind(y, false);
    execute(g, {&ba, &bb, &bbias, &by});
    download(by);
    std::vector<double> mm = matmul_reference(ba, bb, by.dims);
    std::vector<int64_t> index(3, 0);
    for (double &v : mm) {
        v = gelu(v + broadcast_at(bbias, index));
        for (size_t k = 3; k-- > 0;) {
            if (++index[k] < by.dims[k]) break;
            index[k] = 0;
        }
    }
    expect_close(by, mm, atol_for(FE_DATA_BFLOAT16) * 4, rtol_for(FE_DATA_BFLOAT16), norm_for(FE_DATA_BFLOAT16));
}

TEST_F(Gpu, MatmulRowMaxMatchesCpuReference) {
    fe_graph *g = graph("row_max", FE_DATA_HALF);
    fe_tensor *a = tensor(g, "a", {2, 128, 64}), *b = tensor(g, "b", {2, 64, 256});
    fe_tensor *s = nullptr, *m = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &s));
    fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
    o.reduce_axes = 1u << 2;
    ASSERT_FE_OK(fe_graph_reduction(g, s, FE_REDUCTION_MAX, &o, &m));
    ASSERT_FE_OK(fe_tensor_set_data_type(m, FE_DATA_FLOAT));
    ASSERT_FE_OK(fe_tensor_set_output(m, 1));
    build(g);
    Bound &ba = bind(a, true), &bb = bind(b, true), &bm = bind(m, false);
    execute(g, {&ba, &bb, &bm});
    download(bm);
    std::vector<double> full = matmul_reference(ba, bb, {2, 128, 256});
    std::vector<double> ref(2 * 128, -1e300);
    for (size_t i = 0; i < full.size(); ++i) ref[i / 256] = std::max(ref[i / 256], full[i]);
    expect_close(bm, ref, 1e-2, 1e-2, 2e-3);
}

}  // namespace
