// Normalizations and pooling that the conformance runs found cuDNN 9.19 computing wrongly: refused
// at build with the capability table's reason (or, for batchnorm inference over [N, C, W], lowered
// at rank 4 where cuDNN computes it right or takes nothing); the same graphs without the
// offending layout or option still build.
#include "known_bad_support.hpp"

using cudnnfe_test::packed_strides;
using cudnnfe_test::strided;

using cudnnfe_test::pool_options;

namespace {

using NormResampleKnownBad = cudnnfe_test::KnownBadRefusal;

// rmsnorm (inference) and layernorm (training, zero-centred gamma) over [B, S, D] with x laid out
// [B, D, S] (transposed) or scale laid out against x's order: refused; one order for all lowers.
TEST_F(NormResampleKnownBad, NormForwardOverATransposedLayout) {
    const std::vector<int64_t> dims = {2, 77, 768}, scale_dims = {1, 77, 768};
    const std::vector<int64_t> transposed = {59136, 1, 77}, scale_transposed = {59136, 1, 77};
    enum Layout { x_transposed, scale_unlike_x, row_major, all_transposed };
    for (bool rms : {true, false}) {
        for (Layout layout : {x_transposed, scale_unlike_x, row_major, all_transposed}) {
            SCOPED_TRACE(std::string(rms ? "rmsnorm" : "layernorm") +
                         (layout == x_transposed     ? " x transposed"
                          : layout == scale_unlike_x ? " scale transposed"
                          : layout == row_major      ? " row-major"
                                                     : " all transposed alike"));
            fe_graph *g = graph(rms ? "rmsnorm" : "layernorm", rms ? FE_DATA_FLOAT : FE_DATA_BFLOAT16);
            const bool x_unlike = layout == x_transposed || layout == all_transposed;
            fe_tensor *x = strided(g, "x", dims, x_unlike ? transposed : packed_strides(dims));
            const bool s_unlike = layout == scale_unlike_x || layout == all_transposed;
            const std::vector<int64_t> ss = s_unlike ? scale_transposed : packed_strides(scale_dims);
            fe_tensor *s = strided(g, "s", scale_dims, ss, FE_DATA_FLOAT);
            fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr;
            fe_norm_options o = FE_NORM_OPTIONS_INIT;
            if (rms) {
                o.phase = FE_NORM_PHASE_INFERENCE;
                ASSERT_FE_OK(fe_graph_rmsnorm(g, x, s, nullptr, &o, &y, nullptr));
            } else {
                fe_tensor *b = strided(g, "b", scale_dims, ss, FE_DATA_FLOAT);
                o.phase = FE_NORM_PHASE_TRAINING;
                o.zero_centered_gamma = 1;
                ASSERT_FE_OK(fe_graph_layernorm(g, x, s, b, &o, &y, &mean, &inv));
            }
            for (fe_tensor *t : {y, mean, inv}) {
                if (t) {
                    ASSERT_FE_OK(fe_tensor_set_output(t, 1));
                }
            }
            expect_refused_or_lowered(g, layout != row_major && layout != all_transposed, "laid out row-major over the dims scale varies along while");
        }
    }
}

// Batchnorm inference over [N, C, W]: cuDNN's rank-3 pointwise plans read the [1, C, 1] statistics
// wrongly past the first batch element, so the library lowers it as [N, C, 1, W]. Channels-last
// then builds (rank 3 channels-last had no engine before); NCW, like NCHW, gets no engine.
TEST_F(NormResampleKnownBad, BatchnormInferenceOverRank3RunsAtRank4) {
    for (bool channels_last : {true, false}) {
        SCOPED_TRACE(channels_last ? "NWC" : "NCW");
        fe_graph *g = graph("batchnorm_inference_rank3", FE_DATA_BFLOAT16);
        fe_tensor *x = tensor(g, "x", {8, 32, 64}, channels_last);
        fe_tensor *m = tensor(g, "mean", {1, 32, 1}, channels_last, FE_DATA_FLOAT);
        fe_tensor *v = tensor(g, "inv", {1, 32, 1}, channels_last, FE_DATA_FLOAT);
        fe_tensor *s = tensor(g, "s", {1, 32, 1}, channels_last, FE_DATA_FLOAT);
        fe_tensor *b = tensor(g, "b", {1, 32, 1}, channels_last, FE_DATA_FLOAT), *y = nullptr;
        ASSERT_FE_OK(fe_graph_batchnorm_inference(g, x, m, v, s, b, nullptr, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        std::vector<int64_t> dims(3);
        ASSERT_FE_OK(fe_tensor_get_dims(y, dims.data(), dims.size()));
        EXPECT_EQ(dims, (std::vector<int64_t>{8, 32, 64}));
        if (channels_last) {
            expect_supported(g);
        } else {
            EXPECT_EQ(build(g), FE_STATUS_NOT_SUPPORTED) << fe_last_error_message();
            EXPECT_TRUE(LastErrorContains("gave no viable engine config")) << fe_last_error_message();
        }
    }
}

// bfloat16 channels-last pooling over 2 spatial dims with channels a multiple of 8: refused
// without the index output (max and average alike); max pooling with the index, and pooling
// over 3 spatial dims, build.
TEST_F(NormResampleKnownBad, Bf16ChannelsLastPoolingWithoutTheIndex) {
    struct PoolCase {
        const char *name;
        fe_resample_mode mode;
        std::vector<int64_t> x;
        bool index, refused;
    };
    const PoolCase cases[] = {
        {"max_2d", FE_RESAMPLE_MAXPOOL, {2, 32, 16, 16}, false, true},
        {"avg_excl_2d", FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING, {2, 16, 15, 15}, false, true},
        {"avg_incl_2d", FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING, {2, 48, 15, 15}, false, true},
        {"max_2d_index", FE_RESAMPLE_MAXPOOL, {2, 32, 16, 16}, true, false},
        {"max_3d", FE_RESAMPLE_MAXPOOL, {2, 32, 8, 8, 8}, false, false},
    };
    for (const PoolCase &c : cases) {
        SCOPED_TRACE(c.name);
        fe_graph *g = graph(c.name, FE_DATA_BFLOAT16);
        fe_tensor *x = tensor(g, "x", c.x, true);
        fe_resample_options o = pool_options(c.mode, c.x.size() - 2, 3, 2, 1);
        o.generate_index = c.index;
        fe_tensor *y = nullptr, *index = nullptr;
        ASSERT_FE_OK(fe_graph_resample(g, x, &o, &y, &index));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        if (index) {
            ASSERT_FE_OK(fe_tensor_set_output(index, 1));
        }
        expect_refused_or_lowered(g, c.refused, "write garbage");
    }
}

// Average pooling counting the padding, padded 0 before and 2 after, of a channels-last bfloat16
// image of one pixel: refused; of 2x2x2 pixels, taken.
TEST_F(NormResampleKnownBad, AveragePoolingOfASinglePixelPaddedAfter) {
    for (int64_t pixels : {1, 2}) {
        SCOPED_TRACE(std::to_string(pixels) + " pixels a side");
        fe_graph *g = graph("avg_incl_pixel", FE_DATA_BFLOAT16);
        fe_tensor *x = tensor(g, "x", {1, 56, pixels, pixels, pixels}, true);
        fe_resample_options o = pool_options(FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING, 3, 3, 4, 0);
        for (size_t i = 0; i < 3; ++i) o.post_padding[i] = 2;
        fe_tensor *y = nullptr;
        ASSERT_FE_OK(fe_graph_resample(g, x, &o, &y, nullptr));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        expect_refused_or_lowered(g, pixels == 1, "forward over a single-pixel image");
    }
}

// Max pooling with its index over a half channels-last image [3, 80, P, P], window 2 x 2, stride
// (1, 3), padded 1 after (conformance seed 56 case 130, P 1): refused for one pixel, whose strides
// cannot say it is channels-last; over 2 x 2 pixels, taken.
TEST_F(NormResampleKnownBad, MaxPoolingIndexOverASinglePixel) {
    for (int64_t pixels : {1, 2}) {
        SCOPED_TRACE(std::to_string(pixels) + " pixels a side");
        fe_graph *g = graph("max_index_pixel", FE_DATA_HALF);
        fe_tensor *x = tensor(g, "x", {3, 80, pixels, pixels}, true);
        fe_resample_options o = pool_options(FE_RESAMPLE_MAXPOOL, 2, 2, 1, 0);
        o.stride[1] = 3;
        for (size_t i = 0; i < 2; ++i) o.post_padding[i] = 1;
        o.generate_index = 1;
        fe_tensor *y = nullptr, *index = nullptr;
        ASSERT_FE_OK(fe_graph_resample(g, x, &o, &y, &index));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        ASSERT_FE_OK(fe_tensor_set_output(index, 1));
        expect_refused_or_lowered(g, pixels == 1, "or over a single-pixel image");
    }
}

}  // namespace
