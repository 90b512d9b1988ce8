// Normalization fusions on the GPU against double references: a residual add before a layernorm
// with the sum an output too, a layernorm training forward whose clamped ReLU also writes its
// bitmask, that bitmask applied to dy before the layernorm backward, relu(instancenorm(x) + a) in
// fp16 channels-last, the batchnorm backward of a ReLU-masked dy, and batchnorm inference -> ReLU
// backward -> batchnorm backward (the forms tests/deviceless/norm_fusion_support_test.cpp finds
// engines for).
#include "norm_fusion_graphs.hpp"
#include "norm_reference.hpp"

using namespace cudnnfe_test;

namespace {

class NormFusion : public NormGpu {
  protected:
    // A boolean tensor these fusions read or write is a bitmask: the element at offset e (in
    // elements) is bit e % 8 (the least significant first) of byte e / 8.
    static bool bit(const std::vector<unsigned char> &bytes, int64_t e, bool msb_first = false) {
        const int shift = static_cast<int>(e % 8);
        return (bytes[static_cast<size_t>(e / 8)] >> (msb_first ? 7 - shift : shift)) & 1;
    }

    // A boolean output's bits as 0 and 1 in host (its raw bytes kept for a diagnosis).
    std::vector<unsigned char> download_booleans(Bound &b) {
        std::vector<unsigned char> bytes(static_cast<size_t>(b.span()));
        EXPECT_FE_OK(fe_buffer_download(b.buffer, bytes.data(), static_cast<int64_t>(bytes.size())));
        for (int64_t e = 0; e < b.span(); ++e) b.host[static_cast<size_t>(e)] = bit(bytes, e) ? 1.f : 0.f;
        return bytes;
    }

    // A boolean input of random bits.
    Bound &random_booleans(fe_tensor *t) {
        Bound &b = allocate(t);
        std::bernoulli_distribution keep(0.5);
        std::vector<unsigned char> bytes(b.host.size(), 0);
        for (size_t e = 0; e < b.host.size(); ++e) {
            const bool on = keep(rng_);
            b.host[e] = on ? 1.f : 0.f;
            if (on) bytes[e / 8] |= static_cast<unsigned char>(1u << (e % 8));
        }
        EXPECT_FE_OK(fe_buffer_upload(b.buffer, bytes.data(), static_cast<int64_t>(bytes.size())));
        return b;
    }
};

struct ResidualCase {
    const char *name;
    fe_data_type io, scale, sum;
};

class ResidualAddLayernorm : public NormFusion, public ::testing::WithParamInterface<ResidualCase> {};

// sum = x + residual (written in its type), y = layernorm(sum) with its statistics. The norm reads
// the sum as written: the reference normalizes the downloaded sum, which is checked first.
TEST_P(ResidualAddLayernorm, MatchesCpuReference) {
    const ResidualCase &c = GetParam();
    fe_graph *g = graph(c.name, c.io);
    fe_tensor *x = tensor(g, "x", {256, 768}), *r = tensor(g, "residual", {256, 768});
    fe_tensor *s = tensor(g, "scale", {1, 768}, false, c.scale), *b = tensor(g, "bias", {1, 768}, false, c.scale);
    const ResidualLayernorm out = residual_layernorm(g, x, r, s, b, c.sum);
    fe_tensor *sum = out.sum, *y = out.norm.y, *mean = out.norm.mean, *inv = out.norm.inv_variance;
    build(g);
    Bound &bx = bind(x, true, -1, 3), &br = bind(r, true, -1, 1), &bs = bind(s, true, 0.5f, 1.5f);
    Bound &bb = bind(b, true, -1, 1), &bsum = bind(sum, false), &by = bind(y, false);
    Bound &bm = bind(mean, false), &bi = bind(inv, false);
    execute(g, {&bx, &br, &bs, &bb, &bsum, &by, &bm, &bi});
    for (Bound *result : {&bsum, &by, &bm, &bi}) download(*result);
    std::vector<double> sum_ref;
    for_each_index(bx.dims, [&](const std::vector<int64_t> &i) {
        sum_ref.push_back(round_to(c.sum, static_cast<float>(static_cast<double>(bx.at(i)) + br.at(i))));
    });
    expect_close(bsum, sum_ref, norm_atol(c.sum), norm_rtol(c.sum), norm_for(c.sum));
    NormSpec spec;
    spec.stats = {256, 1};
    // y in the io type, from a sum the kernel may hold in the wider of the two types.
    const fe_data_type coarser = c.sum == FE_DATA_FLOAT ? c.io : c.sum;
    NormForwardRef ref = norm_forward_reference(bsum, bs, &bb, spec);
    expect_close(by, ref.y, norm_atol(coarser), norm_rtol(coarser), norm_for(coarser));
    expect_close(bm, ref.mean, 1e-3, 1e-3, 1e-4);
    expect_close(bi, ref.inv, 1e-3, 1e-3, 1e-4);
}

std::string residual_name(const ::testing::TestParamInfo<ResidualCase> &info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Gpu, ResidualAddLayernorm,
                         ::testing::Values(ResidualCase{"float_sum_bf16", FE_DATA_FLOAT, FE_DATA_FLOAT, FE_DATA_BFLOAT16},
                                           ResidualCase{"float", FE_DATA_FLOAT, FE_DATA_FLOAT, FE_DATA_FLOAT},
                                           ResidualCase{"bf16", FE_DATA_BFLOAT16, FE_DATA_BFLOAT16, FE_DATA_BFLOAT16},
                                           ResidualCase{"half", FE_DATA_HALF, FE_DATA_HALF, FE_DATA_HALF}),
                         residual_name);

// y = clamp(layernorm(x), 0, 6) and mask = 0 < y < 6 (boolean), float: y against the double
// reference, and the mask exactly what the written y says.
TEST_F(NormFusion, LayernormForwardWithAClampedReluBitmask) {
    fe_graph *g = graph("layernorm_relu_bitmask", FE_DATA_FLOAT);
    fe_tensor *x = tensor(g, "x", {512, 128}), *s = tensor(g, "scale", {1, 128}), *b = tensor(g, "bias", {1, 128});
    const ClampedReluBitmask out = layernorm_clamped_relu_bitmask(g, x, s, b);
    fe_tensor *y = out.norm.y, *mean = out.norm.mean, *inv = out.norm.inv_variance, *mask = out.mask;
    build(g);
    // A scale up to 4 puts some y above the upper clip, a bias below zero some under the lower.
    Bound &bx = bind(x, true, -1, 3), &bs = bind(s, true, 1.f, 4.f), &bb = bind(b, true, -1, 1);
    Bound &by = bind(y, false), &bm = bind(mean, false), &bi = bind(inv, false), &bmask = bind(mask, false);
    execute(g, {&bx, &bs, &bb, &by, &bm, &bi, &bmask});
    for (Bound *result : {&by, &bm, &bi}) download(*result);
    const std::vector<unsigned char> mask_bytes = download_booleans(bmask);
    NormSpec spec;
    spec.stats = {512, 1};
    NormForwardRef ref = norm_forward_reference(bx, bs, &bb, spec);
    std::vector<double> clamped;
    int64_t inside = 0, clipped_high = 0;
    for (double v : ref.y) {
        clamped.push_back(std::min(6.0, std::max(0.0, v)));
        inside += v > 0 && v < 6;
        clipped_high += v >= 6;
    }
    EXPECT_GT(inside, 0);
    EXPECT_GT(clipped_high, 0) << "no y above the upper clip: the test would not see it";
    expect_close(by, clamped, norm_atol(FE_DATA_FLOAT), norm_rtol(FE_DATA_FLOAT), norm_for(FE_DATA_FLOAT));
    expect_close(bm, ref.mean, 1e-3, 1e-3, 1e-4);
    expect_close(bi, ref.inv, 1e-3, 1e-3, 1e-4);
    int64_t wrong = 0, wrong_msb_first = 0, wrong_as_bytes = 0;
    for_each_index(by.dims, [&](const std::vector<int64_t> &i) {
        const float v = by.at(i);
        const bool want = v > 0.f && v < 6.f;
        const int64_t e = bmask.offset(i);
        wrong += bmask.at(i) != (want ? 1.f : 0.f);
        wrong_msb_first += bit(mask_bytes, e, true) != want;
        wrong_as_bytes += (mask_bytes[static_cast<size_t>(e)] != 0) != want;
    });
    EXPECT_EQ(wrong, 0) << "mask bits that disagree with the y written beside them (read the most significant bit "
                        << "first: " << wrong_msb_first << "; a byte an element: " << wrong_as_bytes << ")";
}

// dx, dscale, dbias of a layernorm whose dy is masked by a ReLU bitmask (a boolean input), float.
TEST_F(NormFusion, BitmaskedDyIntoTheLayernormBackward) {
    fe_graph *g = graph("drelu_bitmask_layernorm_backward", FE_DATA_FLOAT);
    fe_tensor *dy = tensor(g, "dy", {512, 128}), *mask = tensor(g, "mask", {512, 128}, false, FE_DATA_BOOLEAN);
    fe_tensor *x = tensor(g, "x", {512, 128}), *s = tensor(g, "scale", {1, 128});
    fe_tensor *mean = tensor(g, "mean", {512, 1}), *inv = tensor(g, "inv_variance", {512, 1});
    const NormGradients out = bitmasked_layernorm_backward(g, dy, mask, x, s, mean, inv);
    fe_tensor *dx = out.dx, *ds = out.dscale, *db = out.dbias;
    build(g);
    Bound &bx = bind(x, true, -1, 3), &bdy = bind(dy, true, -1, 1), &bs = bind(s, true, 0.5f, 1.5f);
    Bound &bmask = random_booleans(mask);
    NormSpec spec;
    spec.stats = {512, 1};
    NormForwardRef fwd = norm_forward_reference(bx, bs, nullptr, spec);
    Bound &bm = bind_values(mean, fwd.mean), &bv = bind_values(inv, fwd.inv);
    Bound &bdx = bind(dx, false), &bds = bind(ds, false), &bdb = bind(db, false);
    execute(g, {&bx, &bdy, &bmask, &bs, &bm, &bv, &bdx, &bds, &bdb});
    for (Bound *result : {&bdx, &bds, &bdb}) download(*result);
    Bound masked_dy = bdy;  // host values only: dy where the mask keeps it, else 0
    for_each_index(bdy.dims, [&](const std::vector<int64_t> &i) {
        masked_dy.host[static_cast<size_t>(bdy.offset(i))] = bmask.at(i) != 0.f ? bdy.at(i) : 0.f;
    });
    NormBackwardRef ref = norm_backward_reference(masked_dy, bx, bs, &bm, bv, spec);
    expect_close(bdx, ref.dx, norm_atol(FE_DATA_FLOAT), norm_rtol(FE_DATA_FLOAT), norm_for(FE_DATA_FLOAT));
    expect_close(bds, ref.dscale, 2e-2, 1e-2, 2e-3);
    expect_close(bdb, ref.dbias, 2e-2, 1e-2, 2e-3);
}

// relu(instancenorm(x) + a), fp16 channels-last, inference and training (with the statistics).
TEST_F(NormFusion, HalfInstancenormAddRelu) {
    for (bool training : {false, true}) {
        SCOPED_TRACE(training ? "training" : "inference");
        fe_graph *g = graph(training ? "instancenorm_add_relu_training" : "instancenorm_add_relu", FE_DATA_HALF);
        fe_tensor *x = tensor(g, "x", {8, 32, 24, 24}, true), *a = tensor(g, "a", {8, 32, 24, 24}, true);
        fe_tensor *s = float_tensor(g, "scale", {1, 32, 1, 1}, true), *b = float_tensor(g, "bias", {1, 32, 1, 1}, true);
        const InstancenormAddRelu built = instancenorm_add_relu(g, x, a, s, b, training);
        fe_tensor *out = built.out, *mean = built.norm.mean, *inv = built.norm.inv_variance;
        build(g);
        Bound &bx = bind(x, true, -1, 3), &ba = bind(a, true, -1, 1), &bs = bind(s, true, 0.5f, 1.5f);
        Bound &bb = bind(b, true, -1, 1), &bout = bind(out, false);
        std::vector<Bound *> all = {&bx, &ba, &bs, &bb, &bout};
        Bound *bm = training ? &bind(mean, false) : nullptr, *bi = training ? &bind(inv, false) : nullptr;
        if (training) all.insert(all.end(), {bm, bi});
        execute(g, all);
        for (Bound *o2 : all)
            if (o2 == &bout || o2 == bm || o2 == bi) download(*o2);
        NormSpec spec;
        spec.stats = {8, 32, 1, 1};
        NormForwardRef ref = norm_forward_reference(bx, bs, &bb, spec);
        std::vector<double> want;
        size_t e = 0;
        for_each_index(bx.dims, [&](const std::vector<int64_t> &i) { want.push_back(std::max(0.0, ref.y[e++] + ba.at(i))); });
        expect_close(bout, want, norm_atol(FE_DATA_HALF), norm_rtol(FE_DATA_HALF), norm_for(FE_DATA_HALF));
        if (training) {
            expect_stats_close(*bm, ref.mean);
            expect_stats_close(*bi, ref.inv);
        }
    }
}

// The batchnorm backward of dy masked by the forward's ReLU (a boolean input), fp16 channels-last,
// the masked dy an output too (the gradient the residual branch takes).
TEST_F(NormFusion, BatchnormBackwardOfAReluMaskedDy) {
    fe_graph *g = graph("batchnorm_backward_add_relu", FE_DATA_HALF);
    const std::vector<int64_t> image = {4, 32, 16, 16}, channel = {1, 32, 1, 1};
    fe_tensor *dy = tensor(g, "dy", image, true), *mask = tensor(g, "mask", image, true, FE_DATA_BOOLEAN);
    fe_tensor *x = tensor(g, "x", image, true), *s = float_tensor(g, "scale", channel, true);
    fe_tensor *mean = float_tensor(g, "mean", channel, true), *inv = float_tensor(g, "inv_variance", channel, true);
    const MaskedBatchnormBackward built = masked_batchnorm_backward(g, dy, mask, x, s, mean, inv, true);
    fe_tensor *masked = built.masked, *dx = built.grads.dx, *ds = built.grads.dscale, *db = built.grads.dbias;
    build(g);
    Bound &bx = bind(x, true, -1, 3), &bdy = bind(dy, true, -1, 1), &bs = bind(s, true, 0.5f, 1.5f);
    Bound &bmask = random_booleans(mask);
    NormSpec spec;
    spec.stats = channel;
    NormForwardRef fwd = norm_forward_reference(bx, bs, nullptr, spec);
    Bound &bm = bind_values(mean, fwd.mean), &bv = bind_values(inv, fwd.inv);
    Bound &bmasked = bind(masked, false), &bdx = bind(dx, false), &bds = bind(ds, false), &bdb = bind(db, false);
    execute(g, {&bx, &bdy, &bmask, &bs, &bm, &bv, &bmasked, &bdx, &bds, &bdb});
    for (Bound *result : {&bmasked, &bdx, &bds, &bdb}) download(*result);
    Bound masked_dy = bdy;  // host values only: dy where the mask keeps it, else 0
    std::vector<double> masked_ref;
    for_each_index(bdy.dims, [&](const std::vector<int64_t> &i) {
        const float v = bmask.at(i) != 0.f ? bdy.at(i) : 0.f;
        masked_dy.host[static_cast<size_t>(bdy.offset(i))] = v;
        masked_ref.push_back(v);
    });
    expect_close(bmasked, masked_ref, 0, 0, 0);  // dy or zero, exactly
    NormBackwardRef ref = norm_backward_reference(masked_dy, bx, bs, &bm, bv, spec);
    expect_close(bdx, ref.dx, norm_atol(FE_DATA_HALF), norm_rtol(FE_DATA_HALF), norm_for(FE_DATA_HALF));
    expect_close(bds, ref.dscale, 2e-2, 1e-2, 2e-3);
    expect_close(bdb, ref.dbias, 2e-2, 1e-2, 2e-3);
}

// dx, dscale, dbias through relu(batchnorm_inference(x)), fp16 channels-last, the ReLU backward's
// result in half: dy passes where the inference's y is positive.
TEST_F(NormFusion, BatchnormInferenceReluBackwardBatchnormBackward) {
    fe_graph *g = graph("batchnorm_inference_drelu_dbn", FE_DATA_HALF);
    const std::vector<int64_t> image = {4, 32, 16, 16}, channel = {1, 32, 1, 1};
    fe_tensor *x = tensor(g, "x", image, true), *dy = tensor(g, "dy", image, true);
    fe_tensor *s = float_tensor(g, "scale", channel, true), *b = float_tensor(g, "bias", channel, true);
    fe_tensor *mean = float_tensor(g, "mean", channel, true), *inv = float_tensor(g, "inv_variance", channel, true);
    const NormGradients out = batchnorm_inference_relu_backward(g, x, dy, s, b, mean, inv, FE_DATA_HALF);
    fe_tensor *dx = out.dx, *ds = out.dscale, *db = out.dbias;
    build(g);
    Bound &bx = bind(x, true, -1, 3), &bdy = bind(dy, true, -1, 1), &bs = bind(s, true, 0.5f, 1.5f);
    Bound &bb = bind(b, true, -1, 1);
    NormSpec spec;
    spec.stats = channel;
    NormForwardRef fwd = norm_forward_reference(bx, bs, &bb, spec);
    Bound &bm = bind_values(mean, fwd.mean), &bv = bind_values(inv, fwd.inv);
    Bound &bdx = bind(dx, false), &bds = bind(ds, false), &bdb = bind(db, false);
    execute(g, {&bx, &bdy, &bs, &bb, &bm, &bv, &bdx, &bds, &bdb});
    for (Bound *result : {&bdx, &bds, &bdb}) download(*result);
    // y from the statistics as bound (the float mean and inverse variance the GPU reads).
    Bound dy_passed = bdy;  // host values only
    for_each_index(bdy.dims, [&](const std::vector<int64_t> &i) {
        const double yv = (bx.at(i) - broadcast_at(bm, i)) * broadcast_at(bv, i) * broadcast_at(bs, i) + broadcast_at(bb, i);
        dy_passed.host[static_cast<size_t>(bdy.offset(i))] = yv > 0 ? bdy.at(i) : 0.f;
    });
    NormBackwardRef ref = norm_backward_reference(dy_passed, bx, bs, &bm, bv, spec);
    expect_close(bdx, ref.dx, norm_atol(FE_DATA_HALF), norm_rtol(FE_DATA_HALF), norm_for(FE_DATA_HALF));
    expect_close(bds, ref.dscale, 2e-2, 1e-2, 2e-3);
    expect_close(bdb, ref.dbias, 2e-2, 1e-2, 2e-3);
}

}  // namespace
