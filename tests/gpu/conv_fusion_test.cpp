// Convolution fusions, each one cuDNN plan, against CPU references: the ResNet epilogue with a
// folded batchnorm (per-channel scale and bias, residual add, relu), the same with the scale
// folded into the weights, dgrad + relu backward, scale + bias + relu into wgrad, and the
// batchnorm statistics (genstats) of a convolution's output.
#include <algorithm>
#include <cmath>

#include "conv_reference.hpp"

using namespace cudnnfe_test;

namespace {

fe_conv_options padded(int64_t pad) {
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    int64_t p[2] = {pad, pad};
    fe_conv_options_set_padding(&o, 2, p);
    return o;
}

const ConvParams kPad1{{1, 1}, {1, 1}, {1, 1}};

// The graph is one plan: its plan count is 1 and describe lists every operation in one
// operation graph.
void expect_one_operation_graph(fe_graph *g, int operations) {
    size_t n = 0;
    fe_graph_describe(g, nullptr, 0, &n);
    std::string text(n + 1, '\0');
    ASSERT_FE_OK(fe_graph_describe(g, &text[0], text.size(), &n));
    EXPECT_NE(text.find("cuDNN: " + std::to_string(operations) + " operation(s)"), std::string::npos) << text;
    size_t plans = 0;
    ASSERT_FE_OK(fe_graph_plan_count(g, &plans));
    EXPECT_EQ(plans, 1);
}

class ConvFusion : public Gpu, public ::testing::WithParamInterface<fe_data_type> {};

TEST_P(ConvFusion, ResNetEpilogueWithFoldedBatchnorm) {
    // y = relu(conv(x, w) * scale + bias + residual)
    fe_data_type type = GetParam();
    fe_graph *g = graph("conv_scale_bias_add_relu", type);
    fe_tensor *x = tensor(g, "x", {4, 32, 28, 28}, true), *w = tensor(g, "w", {32, 32, 3, 3}, true);
    fe_tensor *scale = tensor(g, "scale", {1, 32, 1, 1}), *bias = tensor(g, "bias", {1, 32, 1, 1});
    fe_tensor *residual = tensor(g, "residual", {4, 32, 28, 28}, true);
    fe_conv_options o = padded(1);
    fe_tensor *conv = nullptr, *scaled = nullptr, *biased = nullptr, *sum = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &conv));
    ASSERT_FE_OK(fe_graph_scale(g, conv, scale, nullptr, &scaled));
    ASSERT_FE_OK(fe_graph_bias(g, scaled, bias, nullptr, &biased));
    ASSERT_FE_OK(fe_graph_add(g, biased, residual, nullptr, &sum));
    ASSERT_FE_OK(fe_graph_relu(g, sum, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build(g);
    expect_one_operation_graph(g, 5);
    Bound &bx = bind(x, true), &bw = bind(w, true), &bs = bind(scale, true, 0.5f, 1.5f);
    Bound &bb = bind(bias, true), &br = bind(residual, true, -4.f, 4.f), &by = bind(y, false);
    execute(g, {&bx, &bw, &bs, &bb, &br, &by});
    download(by);
    std::printf("    plan %s\n", engine_tag_of(g));
    std::vector<double> c = conv_fprop_reference(bx, bw, by.dims, kPad1, 1);
    std::vector<double> ref = elementwise(by.dims, [&](const std::vector<int64_t> &i) {
        size_t flat = static_cast<size_t>(((i[0] * by.dims[1] + i[1]) * by.dims[2] + i[2]) * by.dims[3] + i[3]);
        return std::max(0.0, c[flat] * broadcast_at(bs, i) + broadcast_at(bb, i) + br.at(i));
    });
    expect_close(by, ref, atol_for(type) * 4, rtol_for(type), norm_for(type));
}

TEST_P(ConvFusion, ResidualBiasReluWithTheScaleInTheWeights) {
    // y = relu(conv(x, w) + residual + bias): cuDNN's precompiled conv epilogue.
    fe_data_type type = GetParam();
    fe_graph *g = graph("conv_add_bias_relu", type);
    fe_tensor *x = tensor(g, "x", {4, 32, 28, 28}, true), *w = tensor(g, "w", {64, 32, 3, 3}, true);
    fe_tensor *residual = tensor(g, "residual", {4, 64, 28, 28}, true), *bias = tensor(g, "bias", {1, 64, 1, 1});
    fe_conv_options o = padded(1);
    fe_tensor *conv = nullptr, *sum = nullptr, *biased = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &conv));
    ASSERT_FE_OK(fe_graph_add(g, conv, residual, nullptr, &sum));
    ASSERT_FE_OK(fe_graph_bias(g, sum, bias, nullptr, &biased));
    ASSERT_FE_OK(fe_graph_relu(g, biased, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build(g);
    expect_one_operation_graph(g, 4);
    Bound &bx = bind(x, true), &bw = bind(w, true), &br = bind(residual, true, -4.f, 4.f);
    Bound &bb = bind(bias, true), &by = bind(y, false);
    execute(g, {&bx, &bw, &br, &bb, &by});
    download(by);
    std::printf("    plan %s\n", engine_tag_of(g));
    std::vector<double> c = conv_fprop_reference(bx, bw, by.dims, kPad1, 1);
    std::vector<double> ref = elementwise(by.dims, [&](const std::vector<int64_t> &i) {
        size_t flat = static_cast<size_t>(((i[0] * by.dims[1] + i[1]) * by.dims[2] + i[2]) * by.dims[3] + i[3]);
        return std::max(0.0, c[flat] + br.at(i) + broadcast_at(bb, i));
    });
    expect_close(by, ref, atol_for(type) * 4, rtol_for(type), norm_for(type));
}

TEST_P(ConvFusion, SinglePixelResultGivenNchwStrides) {
    // y = relu(conv(x, w) + bias) of a channels-last 4x4 image into one pixel, y given the packed
    // NCHW strides [32, 1, 1, 1] (the same memory as channels-last): cuDNN 9.19 faulted on it or
    // left elements unwritten until the library described such a pixel channels-last.
    fe_data_type type = GetParam();
    fe_graph *g = graph("conv_pixel_nchw", type);
    fe_tensor *x = tensor(g, "x", {6, 64, 4, 4}, true), *w = tensor(g, "w", {32, 64, 4, 4}, true);
    fe_tensor *bias = tensor(g, "bias", {1, 32, 1, 1});
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    fe_tensor *conv = nullptr, *biased = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &conv));
    ASSERT_FE_OK(fe_graph_bias(g, conv, bias, nullptr, &biased));
    ASSERT_FE_OK(fe_graph_relu(g, biased, nullptr, &y));
    const int64_t nchw[4] = {32, 1, 1, 1};
    ASSERT_FE_OK(fe_tensor_set_strides(y, 4, nchw));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build(g);
    Bound &bx = bind(x, true), &bw = bind(w, true), &bb = bind(bias, true), &by = bind(y, false);
    execute(g, {&bx, &bw, &bb, &by});
    download(by);
    std::printf("    plan %s\n", engine_tag_of(g));
    std::vector<double> c = conv_fprop_reference(bx, bw, by.dims, ConvParams{{0, 0}, {1, 1}, {1, 1}}, 1);
    std::vector<double> ref = elementwise(by.dims, [&](const std::vector<int64_t> &i) {
        return std::max(0.0, c[static_cast<size_t>(i[0] * by.dims[1] + i[1])] + broadcast_at(bb, i));
    });
    expect_close(by, ref, atol_for(type) * 4, rtol_for(type), norm_for(type));
}

TEST_P(ConvFusion, DgradWithReluBackward) {
    // dx = dgrad(dy, w) where the forward image x was positive, else 0.
    fe_data_type type = GetParam();
    fe_graph *g = graph("dgrad_drelu", type);
    fe_tensor *dy = tensor(g, "dy", {4, 64, 16, 16}, true), *w = tensor(g, "w", {64, 32, 3, 3}, true);
    fe_tensor *x = tensor(g, "x", {4, 32, 16, 16}, true);
    fe_conv_options o = padded(1);
    int64_t dx_dims[4] = {4, 32, 16, 16};
    fe_tensor *grad = nullptr, *dx = nullptr;
    ASSERT_FE_OK(fe_graph_conv_dgrad(g, dy, w, 4, dx_dims, &o, &grad));
    ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_RELU_BWD, grad, x, nullptr, nullptr, &dx));
    ASSERT_FE_OK(fe_tensor_set_output(dx, 1));
    build(g);
    expect_one_operation_graph(g, 2);
    Bound &bdy = bind(dy, true), &bw = bind(w, true), &bx = bind(x, true), &bdx = bind(dx, false);
    execute(g, {&bdy, &bw, &bx, &bdx});
    download(bdx);
    std::printf("    plan %s\n", engine_tag_of(g));
    std::vector<double> d = conv_dgrad_reference(bdy, bw, bdx.dims, kPad1, 1);
    std::vector<double> ref = elementwise(bdx.dims, [&](const std::vector<int64_t> &i) {
        size_t flat = static_cast<size_t>(((i[0] * bdx.dims[1] + i[1]) * bdx.dims[2] + i[2]) * bdx.dims[3] + i[3]);
        return bx.at(i) > 0 ? d[flat] : 0.0;
    });
    expect_close(bdx, ref, atol_for(type) * 4, rtol_for(type), norm_for(type));
}

// Batch normalization's statistics of a convolution's output, in the same plan:
// y = conv(x, w); sum[k] = sum of y[:, k, ...], sq_sum[k] = sum of y[:, k, ...]^2.
class ConvGenstats : public Gpu, public ::testing::WithParamInterface<fe_data_type> {};

TEST_P(ConvGenstats, SumsMatchTheReference) {
    fe_data_type type = GetParam();
    fe_graph *g = graph("conv_genstats", type);
    fe_tensor *x = tensor(g, "x", {4, 32, 32, 32}, true), *w = tensor(g, "w", {64, 32, 3, 3}, true);
    fe_conv_options o = padded(1);
    fe_tensor *y = nullptr, *sum = nullptr, *sq_sum = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    ASSERT_FE_OK(fe_graph_genstats(g, y, nullptr, &sum, &sq_sum));
    for (fe_tensor *t : {y, sum, sq_sum}) ASSERT_FE_OK(fe_tensor_set_output(t, 1));
    build(g);
    expect_one_operation_graph(g, 2);
    Bound &bx = bind(x, true), &bw = bind(w, true), &by = bind(y, false);
    Bound &bsum = bind(sum, false), &bsq = bind(sq_sum, false);
    execute(g, {&bx, &bw, &by, &bsum, &bsq});
    download(by);
    download(bsum);
    download(bsq);
    std::printf("    plan %s\n", engine_tag_of(g));
    std::vector<double> c = conv_fprop_reference(bx, bw, by.dims, kPad1, 1);
    expect_close(by, c, atol_for(type), rtol_for(type), norm_for(type));
    // Per channel over 4 x 32 x 32 = 4096 values. Some engines sum y as stored (rounded to half or
    // bfloat16, an error of up to half an ulp per value), others the float accumulators, so a
    // sum may differ from the exact one by about sqrt(4096) roundings of y: the tolerance is four
    // times that, and the relative norm over all channels stays tight.
    std::vector<double> ref_sum(64, 0.0), ref_sq(64, 0.0);
    double squares = 0.0;
    for (size_t i = 0; i < c.size(); ++i) {
        size_t channel = (i / (32 * 32)) % 64;  // the reference is packed NCHW
        ref_sum[channel] += c[i];
        ref_sq[channel] += c[i] * c[i];
        squares += c[i] * c[i];
    }
    double rms = std::sqrt(squares / static_cast<double>(c.size()));
    double ulp = type == FE_DATA_HALF ? std::ldexp(1.0, -10) : std::ldexp(1.0, -7);
    double sum_atol = 4.0 * std::sqrt(4096.0) * rms * ulp / 2;
    expect_close(bsum, ref_sum, sum_atol, 2e-2, norm_for(type));
    expect_close(bsq, ref_sq, sum_atol * 2 * rms, 2e-2, norm_for(type));
}

INSTANTIATE_TEST_SUITE_P(Gpu, ConvGenstats, ::testing::Values(FE_DATA_HALF, FE_DATA_BFLOAT16),
                         [](const ::testing::TestParamInfo<fe_data_type> &info) {
                             return std::string(info.param == FE_DATA_HALF ? "fp16" : "bf16");
                         });

INSTANTIATE_TEST_SUITE_P(Gpu, ConvFusion, ::testing::Values(FE_DATA_HALF, FE_DATA_BFLOAT16, FE_DATA_FLOAT),
                         [](const ::testing::TestParamInfo<fe_data_type> &info) {
                             return std::string(fe_data_type_string(info.param));
                         });

class ConvWgradFusion : public Gpu {};

TEST_F(ConvWgradFusion, ScaleBiasReluIntoWgrad) {
    // dw = wgrad(relu(x * scale + bias), dy): the previous layer's folded batchnorm and relu,
    // applied as wgrad reads its image (cuDNN's engines for this pattern take fp16).
    fe_graph *g = graph("scale_bias_relu_wgrad", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {4, 64, 16, 16}, true), *dy = tensor(g, "dy", {4, 64, 16, 16}, true);
    fe_tensor *scale = tensor(g, "scale", {1, 64, 1, 1}, true), *bias = tensor(g, "bias", {1, 64, 1, 1}, true);
    fe_conv_options o = padded(1);
    fe_tensor *scaled = nullptr, *biased = nullptr, *act = nullptr, *dw = nullptr;
    ASSERT_FE_OK(fe_graph_scale(g, x, scale, nullptr, &scaled));
    ASSERT_FE_OK(fe_graph_bias(g, scaled, bias, nullptr, &biased));
    ASSERT_FE_OK(fe_graph_relu(g, biased, nullptr, &act));
    ASSERT_FE_OK(fe_graph_conv_wgrad(g, act, dy, 0, nullptr, &o, &dw));
    ASSERT_FE_OK(fe_tensor_set_output(dw, 1));
    build(g);
    expect_one_operation_graph(g, 4);
    Bound &bx = bind(x, true), &bdy = bind(dy, true), &bs = bind(scale, true, 0.5f, 1.5f);
    Bound &bb = bind(bias, true, -0.5f, 0.5f), &bdw = bind(dw, false);
    execute(g, {&bx, &bdy, &bs, &bb, &bdw});
    download(bdw);
    std::printf("    plan %s\n", engine_tag_of(g));
    std::vector<double> a = elementwise(bx.dims, [&](const std::vector<int64_t> &i) {
        return std::max(0.0, static_cast<double>(bx.at(i)) * broadcast_at(bs, i) + broadcast_at(bb, i));
    });
    Bound activated = host_bound(bx.dims, std::vector<float>(a.begin(), a.end()));
    std::vector<double> ref = conv_wgrad_reference(activated, bdy, bdw.dims, kPad1, 1);
    // Each dw element sums 4 * 16 * 16 products, and the activation may be rounded to fp16.
    expect_close(bdw, ref, atol_for(FE_DATA_HALF) * 8, rtol_for(FE_DATA_HALF), norm_for(FE_DATA_HALF));
}

}  // namespace

namespace {

// A convolution writing into a concatenation along the channels: y = [skip | conv(x, w)], as a
// U-Net decoder or DenseNet block does. Copied: skip is a tensor of its own that cuDNN copies into
// y. In place (in_place_index 0): skip already lies in y's first channels (bound at y's address,
// with y's strides) and cuDNN writes only the convolution's channels.
class ConvIntoConcatenation : public Gpu, public ::testing::WithParamInterface<bool> {};

TEST_P(ConvIntoConcatenation, WritesItsChannelsBesideTheSkip) {
    const bool in_place = GetParam();
    const int64_t N = 4, C = 32, K = 32, S = 32, H = 16, W = 16;
    fe_graph *g = graph(in_place ? "conv_concat_in_place" : "conv_concat", FE_DATA_HALF);
    fe_tensor *x = tensor(g, "x", {N, C, H, W}, true), *w = tensor(g, "w", {K, C, 3, 3}, true);
    int64_t cat_dims[4] = {N, S + K, H, W}, cat_strides[4];
    ASSERT_FE_OK(fe_strides_channels_last(4, cat_dims, cat_strides));
    fe_tensor *skip = nullptr;
    if (in_place) {
        int64_t skip_dims[4] = {N, S, H, W};
        ASSERT_FE_OK(fe_graph_tensor(g, "skip", 4, skip_dims, cat_strides, FE_DATA_HALF, &skip));
    } else {
        skip = tensor(g, "skip", {N, S, H, W}, true, FE_DATA_HALF);
    }
    fe_conv_options o = padded(1);
    fe_tensor *conv = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &conv));
    ASSERT_FE_OK(fe_tensor_set_data_type(conv, FE_DATA_HALF));
    fe_concatenate_options co = FE_CONCATENATE_OPTIONS_INIT;
    co.in_place_index = in_place ? 0 : -1;
    fe_tensor *parts[2] = {skip, conv};
    ASSERT_FE_OK(fe_graph_concatenate(g, 2, parts, 1, &co, &y));
    ASSERT_FE_OK(fe_tensor_set_strides(y, 4, cat_strides));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    if (refused_by_the_capability_table(g)) GTEST_SKIP() << fe_last_error_message();
    std::printf("    plan %s\n", engine_tag_of(g));
    Bound &bx = bind(x, true), &bw = bind(w, true), &by = bind(y, false);
    Bound skip_values;
    if (in_place) {
        // The skip's values are written into y's first channels; the rest stays poisoned.
        std::uniform_real_distribution<float> dist(-1, 1);
        std::vector<unsigned char> poison(static_cast<size_t>(by.span()) * 2, 0xFF);
        ASSERT_FE_OK(fe_buffer_upload(by.buffer, poison.data(), static_cast<int64_t>(poison.size())));
        std::vector<float> all(static_cast<size_t>(by.span()));
        ASSERT_FE_OK(fe_buffer_download_float(by.buffer, all.data(), by.span(), FE_DATA_HALF));
        skip_values = by;
        skip_values.tensor = skip;
        skip_values.dims = {N, S, H, W};
        for (int64_t n = 0; n < N; ++n)
            for (int64_t c = 0; c < S; ++c)
                for (int64_t h = 0; h < H; ++h)
                    for (int64_t v = 0; v < W; ++v)
                        all[static_cast<size_t>(by.offset({n, c, h, v}))] = round_to(FE_DATA_HALF, dist(rng_));
        ASSERT_FE_OK(fe_buffer_upload_float(by.buffer, all.data(), by.span(), FE_DATA_HALF));
        skip_values.host = all;
        execute(g, {&bx, &bw, &skip_values, &by});
    } else {
        Bound &bs = bind(skip, true);
        skip_values = bs;
        execute(g, {&bx, &bw, &bs, &by});
    }
    download(by);
    Bound conv_shape = by;
    conv_shape.dims = {N, K, H, W};
    std::vector<double> c = conv_fprop_reference(bx, bw, conv_shape.dims, kPad1, 1);
    std::vector<double> ref = elementwise(by.dims, [&](const std::vector<int64_t> &i) {
        if (i[1] < S) return static_cast<double>(skip_values.at(i));
        size_t flat = static_cast<size_t>(((i[0] * K + (i[1] - S)) * H + i[2]) * W + i[3]);
        return c[flat];
    });
    expect_close(by, ref, atol_for(FE_DATA_HALF) * 4, rtol_for(FE_DATA_HALF), norm_for(FE_DATA_HALF));
}

INSTANTIATE_TEST_SUITE_P(Gpu, ConvIntoConcatenation, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) { return info.param ? "in_place" : "copied"; });

}  // namespace
