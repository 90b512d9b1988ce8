// Pooling on the GPU against a double CPU reference: max and average (with and without the
// padding in the divisor), forward and backward (max pooling's backward through the forward's
// index; cuDNN 9.19 runs that channels-last only), in float, half and bfloat16.
#include <cstring>

#include "resample_reference.hpp"

using namespace cudnnfe_test;

namespace {

struct PoolCase {
    const char *name;
    fe_data_type type;
    fe_resample_mode mode;
    bool channels_last;
    std::vector<int64_t> x;
    int64_t window, stride, pad;
};

class ResampleGpu : public Gpu, public ::testing::WithParamInterface<PoolCase> {
  protected:
    fe_resample_options options(const PoolCase &c, PoolShape *shape) {
        fe_resample_options o = FE_RESAMPLE_OPTIONS_INIT;
        o.mode = c.mode;
        size_t n = c.x.size() - 2;
        shape->window.assign(n, c.window);
        shape->stride.assign(n, c.stride);
        shape->pre.assign(n, c.pad);
        shape->post.assign(n, c.pad);
        for (size_t i = 0; i < n; ++i) {
            o.window[i] = c.window;
            o.stride[i] = c.stride;
            o.pre_padding[i] = o.post_padding[i] = c.pad;
        }
        return o;
    }
    // Values with no ties inside a window (max pooling's gradient goes to one position): a
    // random odd step through 1024 levels, exact in every io type.
    void distinct_values(Bound &x) {
        std::uniform_int_distribution<int> pick(0, 511);
        const int step = 2 * pick(rng_) + 1, start = pick(rng_);
        for (size_t i = 0; i < x.host.size(); ++i)
            x.host[i] = static_cast<float>((start + static_cast<int>(i) * step) % 1024 - 512) / 256.f;
        ASSERT_FE_OK(fe_buffer_upload_float(x.buffer, x.host.data(), x.span(), x.type));
    }
};

TEST_P(ResampleGpu, ForwardAndBackwardMatchTheReference) {
    const PoolCase &c = GetParam();
    PoolShape shape;
    fe_resample_options o = options(c, &shape);
    const bool max = c.mode == FE_RESAMPLE_MAXPOOL;

    // Forward (with the index for max pooling's backward).
    fe_graph *g = graph("pool", c.type);
    fe_tensor *x = tensor(g, "x", c.x, c.channels_last);
    o.generate_index = max;
    fe_tensor *y = nullptr, *index = nullptr;
    ASSERT_FE_OK(fe_graph_resample(g, x, &o, &y, &index));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    if (max) ASSERT_FE_OK(fe_tensor_set_output(index, 1));
    build(g);
    Bound &bx = bind(x, true);
    distinct_values(bx);
    Bound &by = bind(y, false);
    std::vector<Bound *> io = {&bx, &by};
    if (max) io.push_back(&bind(index, false));
    execute(g, io);
    download(by);
    expect_close(by, pool_forward_reference(bx, by.dims, c.mode, shape), atol_for(c.type), rtol_for(c.type),
                 norm_for(c.type));

    // Backward: dx from dy (and the forward's index, copied into the backward's input).
    fe_graph *gb = graph("pool_backward", c.type);
    fe_tensor *dy = tensor(gb, "dy", by.dims, c.channels_last);
    fe_tensor *index_in = nullptr;
    if (max) index_in = tensor(gb, "index", by.dims, c.channels_last, FE_DATA_INT8);
    o.generate_index = 0;
    fe_tensor *dx = nullptr;
    ASSERT_FE_OK(fe_graph_resample_backward(gb, dy, nullptr, nullptr, index_in, c.x.size(), c.x.data(), &o, &dx));
    ASSERT_FE_OK(fe_tensor_set_output(dx, 1));
    build(gb);
    Bound &bdy = bind(dy, true);
    Bound &bdx = bind(dx, false);
    std::vector<Bound *> bio = {&bdy, &bdx};
    if (max) {
        Bound &forward_index = *io.back();
        Bound &bi = bind(index_in, false);
        int64_t bytes = 0;
        ASSERT_FE_OK(fe_buffer_size(forward_index.buffer, &bytes));
        std::vector<unsigned char> raw(static_cast<size_t>(bytes));
        ASSERT_FE_OK(fe_buffer_download(forward_index.buffer, raw.data(), bytes));
        ASSERT_FE_OK(fe_buffer_upload(bi.buffer, raw.data(), bytes));
        bio.push_back(&bi);
    }
    execute(gb, bio);
    download(bdx);
    expect_close(bdx, pool_backward_reference(bx, bdy, c.mode, shape), atol_for(c.type), rtol_for(c.type),
                 norm_for(c.type));
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, ResampleGpu,
    ::testing::Values(
        PoolCase{"max_fp32_nhwc", FE_DATA_FLOAT, FE_RESAMPLE_MAXPOOL, true, {2, 8, 16, 16}, 2, 2, 0},
        PoolCase{"max_fp16_overlapping_padded", FE_DATA_HALF, FE_RESAMPLE_MAXPOOL, true, {2, 8, 15, 15}, 3, 2, 1},
        PoolCase{"max_bf16_nhwc", FE_DATA_BFLOAT16, FE_RESAMPLE_MAXPOOL, true, {2, 8, 16, 16}, 3, 2, 1},
        PoolCase{"max_fp16_nhwc", FE_DATA_HALF, FE_RESAMPLE_MAXPOOL, true, {2, 16, 16, 16}, 2, 2, 0},
        PoolCase{"avg_incl_fp32", FE_DATA_FLOAT, FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING, false, {2, 8, 15, 15}, 3, 2, 1},
        PoolCase{"avg_incl_fp16", FE_DATA_HALF, FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING, false, {2, 8, 16, 16}, 2, 2, 0},
        PoolCase{"avg_excl_fp16", FE_DATA_HALF, FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING, false, {2, 8, 15, 15}, 3, 2, 1},
        PoolCase{"avg_excl_bf16", FE_DATA_BFLOAT16, FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING, false, {2, 8, 15, 15}, 3, 2,
                 1},
        PoolCase{"avg_incl_fp16_nhwc", FE_DATA_HALF, FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING, true, {2, 16, 16, 16}, 2, 2,
                 0},
        PoolCase{"max_fp16_3d_nhwc", FE_DATA_HALF, FE_RESAMPLE_MAXPOOL, true, {1, 4, 8, 8, 8}, 2, 2, 0}),
    [](const ::testing::TestParamInfo<PoolCase> &info) { return std::string(info.param.name); });

}  // namespace
