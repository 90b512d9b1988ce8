// Slices on the GPU: operands cut from one packed buffer are read in place at their offsets,
// compared with a CPU reference over the same host values. Outputs are poisoned first.
#include <cmath>

#include "conv_reference.hpp"

using namespace cudnnfe_test;

namespace {

// The host view of a slice: the source's values from the slice's first element on, with the
// source's strides (what the GPU reads at the source's address plus the offset).
Bound host_view(const Bound &source, const std::vector<int64_t> &start, const std::vector<int64_t> &end) {
    Bound v;
    v.type = source.type;
    v.strides = source.strides;
    int64_t offset = 0;
    for (size_t i = 0; i < start.size(); ++i) {
        v.dims.push_back(end[i] - start[i]);
        offset += start[i] * source.strides[i];
    }
    v.host.assign(source.host.begin() + offset, source.host.end());
    return v;
}

TEST_F(Gpu, MatmulOfTwoSlicesOfOneBuffer) {
    fe_graph *g = graph("sliced_matmul", FE_DATA_HALF);
    fe_tensor *packed = tensor(g, "packed", {2, 64, 96});
    const std::vector<int64_t> a_start = {0, 0, 0}, a_end = {2, 64, 32};
    const std::vector<int64_t> b_start = {0, 0, 32}, b_end = {2, 32, 80};
    fe_tensor *a = nullptr, *b = nullptr, *c = nullptr;
    fe_slice_options a_options = FE_SLICE_OPTIONS_INIT;
    a_options.name = "a";
    ASSERT_FE_OK(fe_graph_slice(g, packed, 3, a_start.data(), a_end.data(), &a_options, &a));
    fe_slice_options b_options = FE_SLICE_OPTIONS_INIT;
    b_options.name = "b";
    ASSERT_FE_OK(fe_graph_slice(g, packed, 3, b_start.data(), b_end.data(), &b_options, &b));
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
    build(g);
    std::printf("    plan %s\n", engine_tag_of(g));
    Bound &bp = bind(packed, true), &bc = bind(c, false);
    execute(g, {&bp, &bc});
    download(bc);
    std::vector<double> ref = matmul_reference(host_view(bp, a_start, a_end), host_view(bp, b_start, b_end), bc.dims);
    expect_close(bc, ref, atol_for(FE_DATA_HALF) * 4, rtol_for(FE_DATA_HALF), norm_for(FE_DATA_HALF));
}

TEST_F(Gpu, ConvolutionOfTheSecondHalfOfABatch) {
    fe_graph *g = graph("sliced_conv", FE_DATA_HALF);
    fe_tensor *batch = tensor(g, "batch", {8, 32, 16, 16}, true);
    const std::vector<int64_t> start = {4, 0, 0, 0}, end = {8, 32, 16, 16};
    fe_tensor *x = nullptr, *y = nullptr;
    fe_slice_options x_options = FE_SLICE_OPTIONS_INIT;
    x_options.name = "second_half";
    ASSERT_FE_OK(fe_graph_slice(g, batch, 4, start.data(), end.data(), &x_options, &x));
    fe_tensor *w = tensor(g, "w", {16, 32, 3, 3}, true);
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    o.pre_padding[0] = o.pre_padding[1] = o.post_padding[0] = o.post_padding[1] = 1;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build(g);
    std::printf("    plan %s\n", engine_tag_of(g));
    Bound &bb = bind(batch, true), &bw = bind(w, true), &by = bind(y, false);
    execute(g, {&bb, &bw, &by});
    download(by);
    ConvParams p{{1, 1}, {1, 1}, {1, 1}};
    std::vector<double> ref = conv_reference(host_view(bb, start, end), bw, by.dims, p);
    expect_close(by, ref, atol_for(FE_DATA_HALF) * 4, rtol_for(FE_DATA_HALF), norm_for(FE_DATA_HALF));
    // The first half must not be what was read: a reference over it differs.
    std::vector<double> wrong = conv_reference(host_view(bb, {0, 0, 0, 0}, {4, 32, 16, 16}), bw, by.dims, p);
    EXPECT_GT(compare(by, wrong, 1e-3, 0).mismatches, 0);
}

// Attention reading Q, K and V as slices of one packed buffer laid out [b, s, 3 * h, d] (the
// projections' output), each a [b, h, s, d] view at head offset 0, h and 2h: no copies.
TEST_F(Gpu, AttentionOnSlicesOfAPackedQkvBuffer) {
    const int64_t b = 2, h = 4, s = 128, d = 64;
    fe_graph *g = graph("packed_qkv_attention", FE_DATA_HALF);
    const int64_t dims[4] = {b, 3 * h, s, d}, strides[4] = {s * 3 * h * d, d, 3 * h * d, 1};
    fe_tensor *qkv = nullptr;
    ASSERT_FE_OK(fe_graph_tensor(g, "qkv", 4, dims, strides, FE_DATA_NOT_SET, &qkv));
    std::vector<int64_t> starts[3], ends[3];
    fe_tensor *views[3] = {nullptr, nullptr, nullptr};
    const char *names[3] = {"q", "k", "v"};
    for (int i = 0; i < 3; ++i) {
        starts[i] = {0, i * h, 0, 0};
        ends[i] = {b, (i + 1) * h, s, d};
        fe_slice_options views_options = FE_SLICE_OPTIONS_INIT;
        views_options.name = names[i];
        ASSERT_FE_OK(fe_graph_slice(g, qkv, 4, starts[i].data(), ends[i].data(), &views_options, &views[i]));
    }
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));
    o.attn_scale = scale;
    fe_tensor *out = nullptr, *stats = nullptr;
    ASSERT_FE_OK(fe_graph_sdpa(g, views[0], views[1], views[2], &o, &out, &stats));
    ASSERT_FE_OK(fe_tensor_set_output(out, 1));
    build(g);
    std::printf("    plan %s\n", engine_tag_of(g));
    Bound &bqkv = bind(qkv, true), &bo = bind(out, false);
    execute(g, {&bqkv, &bo});
    download(bo);
    Bound q = host_view(bqkv, starts[0], ends[0]), k = host_view(bqkv, starts[1], ends[1]),
          v = host_view(bqkv, starts[2], ends[2]);
    std::vector<double> ref(static_cast<size_t>(b * h * s * d));
    std::vector<double> p(static_cast<size_t>(s));
    for (int64_t n = 0; n < b; ++n)
        for (int64_t head = 0; head < h; ++head)
            for (int64_t i = 0; i < s; ++i) {
                double row_max = -1e300, sum = 0;
                for (int64_t j = 0; j < s; ++j) {
                    double dot = 0;
                    for (int64_t e = 0; e < d; ++e) dot += double(q.at({n, head, i, e})) * double(k.at({n, head, j, e}));
                    p[static_cast<size_t>(j)] = dot * scale;
                    row_max = std::max(row_max, p[static_cast<size_t>(j)]);
                }
                for (double &x : p) sum += (x = std::exp(x - row_max));
                for (int64_t e = 0; e < d; ++e) {
                    double acc = 0;
                    for (int64_t j = 0; j < s; ++j) acc += p[static_cast<size_t>(j)] * double(v.at({n, head, j, e}));
                    ref[static_cast<size_t>(((n * h + head) * s + i) * d + e)] = acc / sum;
                }
            }
    expect_close(bo, ref, atol_for(FE_DATA_HALF), rtol_for(FE_DATA_HALF), norm_for(FE_DATA_HALF));
}

}  // namespace
