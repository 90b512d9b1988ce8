// Convolution data and weight gradients, grouped and depthwise convolutions, and transposed
// convolutions against the CPU references of conv_reference.hpp (double, from the same rounded
// inputs), in fp16, bf16 and fp32, 1-D to 3-D.
#include <algorithm>
#include <cmath>

#include "conv_reference.hpp"

using namespace cudnnfe_test;

namespace {

enum class Direction { Fprop, Dgrad, Wgrad };

struct ConvCase {
    const char *name;
    Direction direction;
    fe_data_type type;
    std::vector<int64_t> image, weight;  // of the forward convolution
    int64_t pad, stride, dilation, groups;
    bool channels_last;
};

ConvParams params_of(size_t spatial, int64_t pad, int64_t stride, int64_t dilation) {
    ConvParams p;
    p.pad.assign(spatial, pad);
    p.stride.assign(spatial, stride);
    p.dilation.assign(spatial, dilation);
    return p;
}

fe_conv_options options_of(size_t spatial, int64_t pad, int64_t stride, int64_t dilation, int64_t groups) {
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    for (size_t i = 0; i < spatial; ++i) {
        o.pre_padding[i] = o.post_padding[i] = pad;
        o.stride[i] = stride;
        o.dilation[i] = dilation;
    }
    o.groups = groups;
    return o;
}

// The forward result's dims (what dgrad reads as dy and wgrad as its loss).
std::vector<int64_t> forward_dims(const std::vector<int64_t> &x, const std::vector<int64_t> &w, const ConvParams &p) {
    std::vector<int64_t> y = {x[0], w[0]};
    for (size_t s = 0; s + 2 < x.size(); ++s)
        y.push_back((x[2 + s] + 2 * p.pad[s] - p.dilation[s] * (w[2 + s] - 1) - 1) / p.stride[s] + 1);
    return y;
}

// Absolute tolerance for results that sum `terms` products of inputs in [-1, 1]: fp32 convolutions
// may run in TF32, whose rounding error grows with the square root of the number of terms.
double conv_atol(fe_data_type type, int64_t terms) {
    return atol_for(type) * std::max(4.0, std::sqrt(static_cast<double>(terms)) / 4.0);
}

int64_t product(const std::vector<int64_t> &v, size_t from) {
    int64_t n = 1;
    for (size_t i = from; i < v.size(); ++i) n *= v[i];
    return n;
}

class ConvDirection : public Gpu, public ::testing::WithParamInterface<ConvCase> {};

TEST_P(ConvDirection, MatchesCpuReference) {
    const ConvCase &c = GetParam();
    size_t spatial = c.image.size() - 2;
    ConvParams p = params_of(spatial, c.pad, c.stride, c.dilation);
    fe_conv_options o = options_of(spatial, c.pad, c.stride, c.dilation, c.groups);
    std::vector<int64_t> ydims = forward_dims(c.image, c.weight, p);
    fe_graph *g = graph(c.name, c.type);
    fe_tensor *result = nullptr;
    std::vector<double> ref;
    int64_t terms = 0;
    switch (c.direction) {
        case Direction::Fprop: {
            fe_tensor *x = tensor(g, "x", c.image, c.channels_last), *w = tensor(g, "w", c.weight, c.channels_last);
            ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &result));
            ASSERT_FE_OK(fe_tensor_set_output(result, 1));
            build(g);
            Bound &bx = bind(x, true), &bw = bind(w, true), &by = bind(result, false);
            execute(g, {&bx, &bw, &by});
            ref = conv_fprop_reference(bx, bw, ydims, p, c.groups);
            terms = product(c.weight, 1);
            break;
        }
        case Direction::Dgrad: {
            fe_tensor *dy = tensor(g, "dy", ydims, c.channels_last), *w = tensor(g, "w", c.weight, c.channels_last);
            ASSERT_FE_OK(fe_graph_conv_dgrad(g, dy, w, c.image.size(), c.image.data(), &o, &result));
            ASSERT_FE_OK(fe_tensor_set_output(result, 1));
            build(g);
            Bound &bdy = bind(dy, true), &bw = bind(w, true), &bdx = bind(result, false);
            execute(g, {&bdy, &bw, &bdx});
            ref = conv_dgrad_reference(bdy, bw, c.image, p, c.groups);
            terms = c.weight[0] / c.groups * product(c.weight, 2);
            break;
        }
        case Direction::Wgrad: {
            fe_tensor *x = tensor(g, "x", c.image, c.channels_last), *dy = tensor(g, "dy", ydims, c.channels_last);
            // With stride 1 the filter size is inferred; otherwise it must be given.
            const int64_t *dims = c.stride == 1 ? nullptr : c.weight.data();
            ASSERT_FE_OK(fe_graph_conv_wgrad(g, x, dy, c.weight.size(), dims, &o, &result));
            ASSERT_FE_OK(fe_tensor_set_output(result, 1));
            build(g);
            Bound &bx = bind(x, true), &bdy = bind(dy, true), &bdw = bind(result, false);
            execute(g, {&bx, &bdy, &bdw});
            ref = conv_wgrad_reference(bx, bdy, c.weight, p, c.groups);
            terms = ydims[0] * product(ydims, 2);
            break;
        }
    }
    Bound &out = bound_.back();
    download(out);
    std::printf("    %s plan %s\n", c.name, engine_tag_of(g));
    expect_close(out, ref, conv_atol(c.type, terms), rtol_for(c.type), norm_for(c.type));
}

ConvCase dgrad(const char *name, fe_data_type t, std::vector<int64_t> x, std::vector<int64_t> w, int64_t pad,
               int64_t stride, int64_t dilation = 1, int64_t groups = 1, bool nhwc = true) {
    return ConvCase{name, Direction::Dgrad, t, x, w, pad, stride, dilation, groups, nhwc};
}
ConvCase wgrad(const char *name, fe_data_type t, std::vector<int64_t> x, std::vector<int64_t> w, int64_t pad,
               int64_t stride, int64_t dilation = 1, int64_t groups = 1, bool nhwc = true) {
    return ConvCase{name, Direction::Wgrad, t, x, w, pad, stride, dilation, groups, nhwc};
}
ConvCase fprop(const char *name, fe_data_type t, std::vector<int64_t> x, std::vector<int64_t> w, int64_t pad,
               int64_t stride, int64_t dilation = 1, int64_t groups = 1, bool nhwc = true) {
    return ConvCase{name, Direction::Fprop, t, x, w, pad, stride, dilation, groups, nhwc};
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, ConvDirection,
    ::testing::Values(
        dgrad("dgrad_fp16_nhwc", FE_DATA_HALF, {4, 64, 28, 28}, {64, 64, 3, 3}, 1, 1),
        dgrad("dgrad_bf16_stride2", FE_DATA_BFLOAT16, {4, 32, 28, 28}, {64, 32, 3, 3}, 1, 2),
        dgrad("dgrad_fp32_nchw", FE_DATA_FLOAT, {2, 16, 20, 20}, {24, 16, 3, 3}, 1, 1, 1, 1, false),
        dgrad("dgrad_fp32_nhwc_stride2", FE_DATA_FLOAT, {2, 16, 21, 21}, {32, 16, 3, 3}, 1, 2),
        dgrad("dgrad_fp16_dilated_stride2_odd", FE_DATA_HALF, {4, 32, 29, 29}, {32, 32, 3, 3}, 2, 2, 2),
        dgrad("dgrad_fp16_conv1d", FE_DATA_HALF, {4, 32, 100}, {48, 32, 5}, 2, 1),
        dgrad("dgrad_fp16_conv3d", FE_DATA_HALF, {2, 16, 6, 10, 10}, {16, 16, 3, 3, 3}, 1, 1),
        dgrad("dgrad_bf16_conv3d_stride2", FE_DATA_BFLOAT16, {2, 16, 8, 12, 12}, {32, 16, 3, 3, 3}, 1, 2),
        dgrad("dgrad_fp16_grouped", FE_DATA_HALF, {4, 64, 28, 28}, {64, 16, 3, 3}, 1, 1, 1, 4),
        dgrad("dgrad_bf16_depthwise", FE_DATA_BFLOAT16, {4, 32, 28, 28}, {32, 1, 3, 3}, 1, 1, 1, 32),
        wgrad("wgrad_fp16_nhwc", FE_DATA_HALF, {4, 64, 28, 28}, {64, 64, 3, 3}, 1, 1),
        wgrad("wgrad_bf16_stride2", FE_DATA_BFLOAT16, {4, 32, 28, 28}, {64, 32, 3, 3}, 1, 2),
        wgrad("wgrad_fp32_nchw", FE_DATA_FLOAT, {2, 16, 20, 20}, {24, 16, 3, 3}, 1, 1, 1, 1, false),
        wgrad("wgrad_fp32_nhwc", FE_DATA_FLOAT, {2, 16, 14, 14}, {32, 16, 3, 3}, 1, 1),
        wgrad("wgrad_fp16_dilated", FE_DATA_HALF, {4, 32, 28, 28}, {32, 32, 3, 3}, 2, 1, 2),
        wgrad("wgrad_fp16_conv1d", FE_DATA_HALF, {4, 32, 100}, {48, 32, 5}, 2, 1),
        wgrad("wgrad_fp16_conv3d", FE_DATA_HALF, {2, 16, 6, 10, 10}, {16, 16, 3, 3, 3}, 1, 1),
        wgrad("wgrad_bf16_conv3d_stride2", FE_DATA_BFLOAT16, {2, 16, 8, 12, 12}, {32, 16, 3, 3, 3}, 1, 2),
        wgrad("wgrad_fp16_grouped", FE_DATA_HALF, {4, 64, 28, 28}, {64, 16, 3, 3}, 1, 1, 1, 4),
        wgrad("wgrad_bf16_depthwise", FE_DATA_BFLOAT16, {4, 32, 28, 28}, {32, 1, 3, 3}, 1, 1, 1, 32),
        fprop("fprop_fp16_grouped", FE_DATA_HALF, {4, 64, 28, 28}, {128, 16, 3, 3}, 1, 1, 1, 4),
        fprop("fprop_fp32_grouped", FE_DATA_FLOAT, {2, 16, 20, 20}, {32, 8, 3, 3}, 1, 1, 1, 2),
        fprop("fprop_bf16_depthwise", FE_DATA_BFLOAT16, {4, 32, 28, 28}, {32, 1, 3, 3}, 1, 1, 1, 32),
        fprop("fprop_fp16_depthwise_multiplier2", FE_DATA_HALF, {4, 32, 28, 28}, {64, 1, 3, 3}, 1, 1, 1, 32),
        fprop("fprop_fp16_depthwise_stride2", FE_DATA_HALF, {4, 32, 28, 28}, {32, 1, 3, 3}, 1, 2, 1, 32),
        fprop("fprop_fp16_depthwise_conv3d", FE_DATA_HALF, {2, 16, 6, 10, 10}, {16, 1, 3, 3, 3}, 1, 1, 1, 16)),
    [](const ::testing::TestParamInfo<ConvCase> &info) { return std::string(info.param.name); });

struct TransposeCase {
    const char *name;
    fe_data_type type;
    std::vector<int64_t> image, weight;  // weight: [C_in, C_out / groups, filter...]
    int64_t pad, stride, output_padding, groups;
    std::vector<int64_t> expected;
};

class ConvTranspose : public Gpu, public ::testing::WithParamInterface<TransposeCase> {};

TEST_P(ConvTranspose, IsTheDataGradientOfTheMatchingConvolution) {
    const TransposeCase &c = GetParam();
    size_t spatial = c.image.size() - 2;
    fe_conv_options o = options_of(spatial, c.pad, c.stride, 1, c.groups);
    for (size_t i = 0; i < spatial; ++i) o.output_padding[i] = c.output_padding;
    fe_graph *g = graph(c.name, c.type);
    fe_tensor *x = tensor(g, "x", c.image, true), *w = tensor(g, "w", c.weight, true), *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_transpose(g, x, w, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build(g);
    Bound &bx = bind(x, true), &bw = bind(w, true), &by = bind(y, false);
    ASSERT_EQ(by.dims, c.expected);
    execute(g, {&bx, &bw, &by});
    download(by);
    std::printf("    %s plan %s\n", c.name, engine_tag_of(g));
    // The image plays the forward convolution's result: y = dgrad(image, w) for y's dims.
    std::vector<double> ref = conv_dgrad_reference(bx, bw, c.expected, params_of(spatial, c.pad, c.stride, 1), c.groups);
    int64_t terms = c.weight[0] / c.groups * product(c.weight, 2);
    expect_close(by, ref, conv_atol(c.type, terms), rtol_for(c.type), norm_for(c.type));
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, ConvTranspose,
    ::testing::Values(
        TransposeCase{"seed_fp16_upsample2x", FE_DATA_HALF, {2, 64, 14, 14}, {64, 32, 4, 4}, 1, 2, 0, 1,
                      {2, 32, 28, 28}},
        TransposeCase{"bf16_output_padding", FE_DATA_BFLOAT16, {2, 32, 14, 14}, {32, 16, 3, 3}, 1, 2, 1, 1,
                      {2, 16, 28, 28}},
        TransposeCase{"fp32_stride1", FE_DATA_FLOAT, {2, 16, 10, 10}, {16, 8, 3, 3}, 1, 1, 0, 1, {2, 8, 10, 10}},
        TransposeCase{"fp16_grouped", FE_DATA_HALF, {2, 64, 14, 14}, {64, 8, 4, 4}, 1, 2, 0, 4, {2, 32, 28, 28}},
        TransposeCase{"fp16_conv1d", FE_DATA_HALF, {4, 32, 50}, {32, 16, 4}, 1, 2, 0, 1, {4, 16, 100}},
        TransposeCase{"bf16_conv3d", FE_DATA_BFLOAT16, {2, 16, 4, 6, 6}, {16, 8, 2, 2, 2}, 0, 2, 0, 1,
                      {2, 8, 8, 12, 12}}),
    [](const ::testing::TestParamInfo<TransposeCase> &info) { return std::string(info.param.name); });

// The references themselves, on the CPU (these run without a GPU): the shared term walk against
// reference.hpp's independent convolution, a grouped convolution against its groups run one by
// one, and dgrad and wgrad as the derivatives of <dy, conv(x, w)> taken by differences of the
// forward reference.
Bound host_tensor(const std::vector<int64_t> &dims, std::mt19937 &rng) {
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    std::vector<float> values(static_cast<size_t>(element_count(dims)));
    for (float &v : values) v = dist(rng);
    return host_bound(dims, values);
}

TEST(ConvReference, AgreesWithTheIndependentForwardReference) {
    std::mt19937 rng(7);
    Bound x = host_tensor({2, 6, 9, 11}, rng), w = host_tensor({5, 6, 3, 2}, rng);
    ConvParams p{{1, 2}, {2, 1}, {2, 3}};
    std::vector<int64_t> y = forward_dims(x.dims, w.dims, ConvParams{{1, 2}, {2, 1}, {2, 3}});
    std::vector<double> ours = conv_fprop_reference(x, w, y, p, 1), theirs = conv_reference(x, w, y, p);
    ASSERT_EQ(ours.size(), theirs.size());
    for (size_t i = 0; i < ours.size(); ++i) EXPECT_NEAR(ours[i], theirs[i], 1e-9) << i;
}

TEST(ConvReference, GroupedIsEachGroupOnItsOwn) {
    std::mt19937 rng(11);
    const int64_t groups = 3, cg = 2, kg = 4;
    Bound x = host_tensor({2, groups * cg, 7, 5}, rng), w = host_tensor({groups * kg, cg, 3, 3}, rng);
    ConvParams p{{1, 1}, {1, 2}, {1, 1}};
    std::vector<int64_t> ydims = forward_dims(x.dims, w.dims, p);
    std::vector<double> grouped = conv_fprop_reference(x, w, ydims, p, groups);
    for (int64_t g = 0; g < groups; ++g) {
        // Slice group g: channels [g*cg, (g+1)*cg) of x, output channels [g*kg, (g+1)*kg) of w.
        Bound xs = host_tensor({2, cg, 7, 5}, rng), ws = host_tensor({kg, cg, 3, 3}, rng);
        for (int64_t n = 0; n < 2; ++n)
            for (int64_t c = 0; c < cg; ++c)
                for (int64_t h = 0; h < 7; ++h)
                    for (int64_t v = 0; v < 5; ++v)
                        xs.host[static_cast<size_t>(xs.offset({n, c, h, v}))] = x.at({n, g * cg + c, h, v});
        for (int64_t k = 0; k < kg; ++k)
            for (int64_t c = 0; c < cg; ++c)
                for (int64_t r = 0; r < 3; ++r)
                    for (int64_t s = 0; s < 3; ++s)
                        ws.host[static_cast<size_t>(ws.offset({k, c, r, s}))] = w.at({g * kg + k, c, r, s});
        std::vector<int64_t> sdims = forward_dims(xs.dims, ws.dims, p);
        std::vector<double> alone = conv_reference(xs, ws, sdims, p);
        for (int64_t n = 0; n < 2; ++n)
            for (int64_t k = 0; k < kg; ++k)
                for (int64_t i = 0; i < sdims[2] * sdims[3]; ++i) {
                    size_t a = static_cast<size_t>((n * kg + k) * sdims[2] * sdims[3] + i);
                    size_t b = static_cast<size_t>((n * groups * kg + g * kg + k) * sdims[2] * sdims[3] + i);
                    EXPECT_NEAR(alone[a], grouped[b], 1e-9);
                }
    }
}

TEST(ConvReference, GradientsAreAdjointsOfTheForwardPass) {
    // d/dx and d/dw of L = <dy, conv(x, w)> by central differences of the independent forward
    // reference (exact for a bilinear L up to rounding), at a few elements.
    std::mt19937 rng(3);
    Bound x = host_tensor({2, 4, 6, 7}, rng), w = host_tensor({6, 2, 3, 3}, rng);
    const int64_t groups = 2;
    ConvParams p{{1, 0}, {2, 1}, {1, 2}};
    std::vector<int64_t> ydims = forward_dims(x.dims, w.dims, p);
    Bound dy = host_tensor(ydims, rng);
    auto loss = [&]() {
        std::vector<double> y = conv_fprop_reference(x, w, ydims, p, groups), d = logical(dy);
        double l = 0;
        for (size_t i = 0; i < y.size(); ++i) l += y[i] * d[i];
        return l;
    };
    std::vector<double> dx = conv_dgrad_reference(dy, w, x.dims, p, groups);
    std::vector<double> dw = conv_wgrad_reference(x, dy, w.dims, p, groups);
    for (size_t i = 0; i < x.host.size(); i += 13) {
        float saved = x.host[i];
        x.host[i] = saved + 0.5f;
        double up = loss();
        x.host[i] = saved - 0.5f;
        double down = loss();
        x.host[i] = saved;
        EXPECT_NEAR(dx[i], up - down, 1e-5) << "dx element " << i;  // packed: offset == logical index
    }
    for (size_t i = 0; i < w.host.size(); i += 5) {
        float saved = w.host[i];
        w.host[i] = saved + 0.5f;
        double up = loss();
        w.host[i] = saved - 0.5f;
        double down = loss();
        w.host[i] = saved;
        EXPECT_NEAR(dw[i], up - down, 1e-5) << "dw element " << i;
    }
}

}  // namespace
