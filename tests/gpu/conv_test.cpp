// Convolution forward and conv + bias + relu against the CPU reference.
#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

struct ConvCase {
    const char *name;
    fe_data_type type;
    std::vector<int64_t> image, weight;
    int64_t pad, stride, dilation;
    bool channels_last;
};

class ConvNumerics : public Gpu, public ::testing::WithParamInterface<ConvCase> {};

TEST_P(ConvNumerics, MatchesCpuReference) {
    const ConvCase &c = GetParam();
    fe_graph *g = graph(c.name, c.type);
    fe_tensor *x = tensor(g, "x", c.image, c.channels_last);
    fe_tensor *w = tensor(g, "w", c.weight, c.channels_last);
    size_t spatial = c.image.size() - 2;
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    ConvParams p;
    for (size_t i = 0; i < spatial; ++i) {
        o.pre_padding[i] = o.post_padding[i] = c.pad;
        o.stride[i] = c.stride;
        o.dilation[i] = c.dilation;
        p.pad.push_back(c.pad);
        p.stride.push_back(c.stride);
        p.dilation.push_back(c.dilation);
    }
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build(g);
    Bound &bx = bind(x, true), &bw = bind(w, true), &by = bind(y, false);
    execute(g, {&bx, &bw, &by});
    download(by);
    std::printf("    %s plan %s\n", c.name, engine_tag_of(g));
    expect_close(by, conv_reference(bx, bw, by.dims, p), atol_for(c.type) * 4, rtol_for(c.type), norm_for(c.type));
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, ConvNumerics,
    ::testing::Values(
        ConvCase{"seed_fp16_nhwc", FE_DATA_HALF, {8, 64, 56, 56}, {32, 64, 3, 3}, 1, 1, 1, true},
        ConvCase{"bf16_nhwc", FE_DATA_BFLOAT16, {4, 64, 28, 28}, {32, 64, 3, 3}, 1, 1, 1, true},
        ConvCase{"fp32_nhwc", FE_DATA_FLOAT, {4, 32, 28, 28}, {64, 32, 3, 3}, 1, 1, 1, true},
        ConvCase{"fp32_nchw", FE_DATA_FLOAT, {2, 16, 20, 20}, {24, 16, 3, 3}, 1, 1, 1, false},
        ConvCase{"fp16_strided", FE_DATA_HALF, {4, 64, 28, 28}, {64, 64, 3, 3}, 1, 2, 1, true},
        ConvCase{"fp16_dilated", FE_DATA_HALF, {4, 32, 28, 28}, {32, 32, 3, 3}, 2, 1, 2, true},
        ConvCase{"fp16_1x1", FE_DATA_HALF, {4, 128, 28, 28}, {64, 128, 1, 1}, 0, 1, 1, true},
        ConvCase{"fp16_7x7_stride2", FE_DATA_HALF, {2, 8, 64, 64}, {64, 8, 7, 7}, 3, 2, 1, true},
        ConvCase{"fp16_conv1d", FE_DATA_HALF, {4, 32, 100}, {48, 32, 5}, 2, 1, 1, true},
        ConvCase{"fp16_conv3d", FE_DATA_HALF, {2, 16, 6, 10, 10}, {16, 16, 3, 3, 3}, 1, 1, 1, true}),
    [](const ::testing::TestParamInfo<ConvCase> &info) { return std::string(info.param.name); });

class ConvBiasRelu : public Gpu, public ::testing::WithParamInterface<fe_data_type> {};

TEST_P(ConvBiasRelu, FusedMatchesCpuReference) {
    fe_data_type type = GetParam();
    fe_graph *g = graph("conv_bias_relu", type);
    fe_tensor *x = tensor(g, "x", {4, 32, 28, 28}, true);
    fe_tensor *w = tensor(g, "w", {64, 32, 3, 3}, true);
    fe_tensor *b = tensor(g, "b", {1, 64, 1, 1});
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    int64_t pad[2] = {1, 1};
    fe_conv_options_set_padding(&o, 2, pad);
    fe_tensor *conv = nullptr, *biased = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &conv));
    ASSERT_FE_OK(fe_graph_bias(g, conv, b, nullptr, &biased));
    ASSERT_FE_OK(fe_graph_relu(g, biased, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build(g);
    Bound &bx = bind(x, true), &bw = bind(w, true), &bb = bind(b, true), &by = bind(y, false);
    execute(g, {&bx, &bw, &bb, &by});
    download(by);
    std::vector<double> ref = conv_reference(bx, bw, by.dims, ConvParams{{1, 1}, {1, 1}, {1, 1}});
    std::vector<int64_t> index(4, 0);
    for (double &v : ref) {
        v = std::max(0.0, v + broadcast_at(bb, index));
        for (size_t d = 4; d-- > 0;) {
            if (++index[d] < by.dims[d]) break;
            index[d] = 0;
        }
    }
    expect_close(by, ref, atol_for(type) * 4, rtol_for(type), norm_for(type));
}

INSTANTIATE_TEST_SUITE_P(Gpu, ConvBiasRelu, ::testing::Values(FE_DATA_HALF, FE_DATA_BFLOAT16, FE_DATA_FLOAT));

}  // namespace
