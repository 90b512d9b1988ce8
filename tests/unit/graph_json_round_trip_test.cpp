// fe_graph_to_json / fe_graph_from_json for a graph of every op the C API offers: the text of
// the rebuilt graph is byte-identical, and both graphs validate to the same inferred dims,
// strides and types (compared through their JSON after validation).
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "schema_conformance.hpp"
#include "test_support.hpp"

using cudnnfe_test::make_tensor;

namespace {

std::string to_json(const fe_graph *g) {
    size_t n = 0;
    EXPECT_EQ(fe_graph_to_json(g, nullptr, 0, &n), FE_STATUS_BUFFER_TOO_SMALL) << fe_last_error_message();
    std::string text(n + 1, '\0');
    size_t written = 0;
    EXPECT_FE_OK(fe_graph_to_json(g, &text[0], text.size(), &written));
    EXPECT_EQ(written, n);
    text.resize(written);
    return text;
}

struct GraphDeleter {
    void operator()(fe_graph *g) const { fe_graph_destroy(g); }
};
using Graph = std::unique_ptr<fe_graph, GraphDeleter>;

Graph new_graph(const char *name, fe_data_type io = FE_DATA_HALF) {
    fe_graph_options o = FE_GRAPH_OPTIONS_INIT;
    o.name = name;
    o.io_data_type = io;
    fe_graph *g = nullptr;
    EXPECT_FE_OK(fe_graph_create(&o, &g));
    return Graph(g);
}

fe_tensor *input(fe_graph *g, const char *name, std::vector<int64_t> dims, fe_data_type type = FE_DATA_NOT_SET,
                 bool channels_last = false) {
    return make_tensor(g, name, dims, channels_last, type);
}

fe_tensor *scalar(fe_graph *g, const char *name, double value, fe_data_type type = FE_DATA_FLOAT) {
    fe_tensor *t = nullptr;
    EXPECT_FE_OK(fe_graph_scalar(g, name, value, type, &t));
    return t;
}

// Marks results as graph outputs.
void out(fe_tensor *t) { EXPECT_FE_OK(fe_tensor_set_output(t, 1)); }
void out(std::initializer_list<fe_tensor *> tensors) {
    for (fe_tensor *t : tensors) out(t);
}

// The round trip itself, before and after validation.
// The op kinds the cases below wrote, for EveryOpOfTheSchemaHasACase.
std::set<std::string> &kinds_written() {
    static std::set<std::string> kinds;
    return kinds;
}

void expect_round_trip(fe_graph *g) {
    std::string first = to_json(g);
    cudnnfe_test::expect_ops_match_schema(first, &kinds_written());
    fe_graph *raw = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(first.data(), first.size(), &raw)) << first;
    Graph back(raw);
    EXPECT_EQ(to_json(back.get()), first);

    ASSERT_FE_OK(fe_graph_validate(g)) << first;
    ASSERT_FE_OK(fe_graph_validate(back.get())) << first;
    std::string validated = to_json(g);
    EXPECT_EQ(to_json(back.get()), validated) << "the rebuilt graph inferred something else";

    // A validated graph's text reads back to the same text too.
    raw = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(validated.data(), validated.size(), &raw)) << validated;
    Graph again(raw);
    EXPECT_EQ(to_json(again.get()), validated);
}

struct Case {
    const char *name;
    fe_data_type io;
    std::function<void(fe_graph *)> build;
};

fe_conv_options conv(std::vector<int64_t> padding, std::vector<int64_t> stride = {}, std::vector<int64_t> dilation = {}) {
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    EXPECT_FE_OK(fe_conv_options_set_padding(&o, padding.size(), padding.data()));
    if (!stride.empty()) {
        EXPECT_FE_OK(fe_conv_options_set_stride(&o, stride.size(), stride.data()));
    }
    if (!dilation.empty()) {
        EXPECT_FE_OK(fe_conv_options_set_dilation(&o, dilation.size(), dilation.data()));
    }
    return o;
}

const std::vector<Case> &cases() {
    static const std::vector<Case> all = {
        {"conv_fprop_bias_relu", FE_DATA_HALF,
         [](fe_graph *g) {
             fe_tensor *x = input(g, "x", {8, 64, 56, 56}, FE_DATA_NOT_SET, true);
             fe_tensor *w = input(g, "w", {32, 64, 3, 3}, FE_DATA_NOT_SET, true);
             fe_tensor *b = input(g, "b", {1, 32, 1, 1}, FE_DATA_NOT_SET, true);
             fe_conv_options o = conv({1, 1});
             o.compute_data_type = FE_DATA_FLOAT;
             fe_tensor *y = nullptr, *z = nullptr, *r = nullptr;
             ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
             ASSERT_FE_OK(fe_graph_bias(g, y, b, nullptr, &z));
             ASSERT_FE_OK(fe_graph_relu(g, z, nullptr, &r));
             out(r);
         }},
        {"conv_genstats", FE_DATA_HALF,
         [](fe_graph *g) {
             fe_tensor *x = input(g, "x", {4, 32, 32, 32}, FE_DATA_NOT_SET, true);
             fe_tensor *w = input(g, "w", {64, 32, 3, 3}, FE_DATA_NOT_SET, true);
             fe_conv_options o = conv({1});
             fe_tensor *y = nullptr, *sum = nullptr, *sq_sum = nullptr;
             ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
             fe_genstats_options gs = FE_GENSTATS_OPTIONS_INIT;
             gs.name = "stats";
             gs.compute_data_type = FE_DATA_FLOAT;
             ASSERT_FE_OK(fe_graph_genstats(g, y, &gs, &sum, &sq_sum));
             out({y, sum, sq_sum});
         }},
        // The ResNet backward block: dgrad, ReLU backward against the recomputed batchnorm
        // output, and batchnorm's weight gradients.
        {"dgrad_drelu_dbn_weight", FE_DATA_HALF,
         [](fe_graph *g) {
             fe_tensor *dy = input(g, "dy", {4, 64, 16, 16}, FE_DATA_NOT_SET, true);
             fe_tensor *w = input(g, "w", {64, 32, 3, 3}, FE_DATA_NOT_SET, true);
             fe_tensor *x = input(g, "x", {4, 32, 16, 16}, FE_DATA_NOT_SET, true);
             fe_tensor *m = input(g, "mean", {1, 32, 1, 1}, FE_DATA_FLOAT, true);
             fe_tensor *v = input(g, "inv_var", {1, 32, 1, 1}, FE_DATA_FLOAT, true);
             fe_tensor *s = input(g, "scale", {1, 32, 1, 1}, FE_DATA_FLOAT, true);
             fe_tensor *b = input(g, "bias", {1, 32, 1, 1}, FE_DATA_FLOAT, true);
             fe_conv_options o = conv({1, 1});
             const int64_t dx_dims[4] = {4, 32, 16, 16};
             fe_tensor *dx = nullptr, *centered = nullptr, *normalized = nullptr, *scaled = nullptr, *y = nullptr;
             fe_tensor *drelu = nullptr, *grads[5] = {};
             ASSERT_FE_OK(fe_graph_conv_dgrad(g, dy, w, 4, dx_dims, &o, &dx));
             ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_SUB, x, m, nullptr, nullptr, &centered));
             ASSERT_FE_OK(fe_graph_mul(g, centered, v, nullptr, &normalized));
             ASSERT_FE_OK(fe_graph_mul(g, normalized, s, nullptr, &scaled));
             ASSERT_FE_OK(fe_graph_add(g, scaled, b, nullptr, &y));
             ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_RELU_BWD, dx, y, nullptr, nullptr, &drelu));
             fe_dbn_weight_options d = FE_DBN_WEIGHT_OPTIONS_INIT;
             d.name = "dbn";
             d.compute_data_type = FE_DATA_FLOAT;
             ASSERT_FE_OK(fe_graph_dbn_weight(g, drelu, x, m, v, s, &d, &grads[0], &grads[1], &grads[2], &grads[3],
                                              &grads[4]));
             out(drelu);
             for (fe_tensor *t : grads) out(t);
         }},
        {"conv_grouped_strided_dilated_convolution_mode", FE_DATA_HALF,
         [](fe_graph *g) {
             fe_tensor *x = input(g, "x", {2, 8, 17, 17});
             fe_tensor *w = input(g, "w", {4, 4, 3, 3});
             fe_conv_options o = conv({2, 1}, {2, 3}, {2, 1});
             o.groups = 2;
             o.mode = FE_CONV_MODE_CONVOLUTION;
             o.name = "grouped";
             fe_tensor *y = nullptr;
             ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
             out(y);
         }},
        {"conv_1d_and_3d", FE_DATA_FLOAT,
         [](fe_graph *g) {
             fe_tensor *x = input(g, "x", {2, 4, 30});
             fe_tensor *w = input(g, "w", {6, 4, 5});
             fe_tensor *x3 = input(g, "x3", {1, 2, 6, 6, 6});
             fe_tensor *w3 = input(g, "w3", {3, 2, 3, 3, 3});
             fe_conv_options o = conv({2});
             fe_conv_options o3 = conv({1, 1, 1}, {2, 2, 2});
             fe_tensor *y = nullptr, *y3 = nullptr;
             ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
             ASSERT_FE_OK(fe_graph_conv_fprop(g, x3, w3, &o3, &y3));
             out(y3);
             out(y);  // outputs in an order other than creation
         }},
        {"conv_dgrad_wgrad_transpose", FE_DATA_HALF,
         [](fe_graph *g) {
             fe_tensor *dy = input(g, "dy", {2, 16, 8, 8}, FE_DATA_NOT_SET, true);
             fe_tensor *w = input(g, "w", {16, 8, 3, 3}, FE_DATA_NOT_SET, true);
             fe_tensor *x = input(g, "x", {2, 8, 16, 16}, FE_DATA_NOT_SET, true);
             fe_conv_options o = conv({1, 1}, {2, 2});
             int64_t dx_dims[4] = {2, 8, 16, 16}, dw_dims[4] = {16, 8, 3, 3};
             fe_tensor *dx = nullptr, *dw = nullptr, *dw2 = nullptr, *up = nullptr;
             ASSERT_FE_OK(fe_graph_conv_dgrad(g, dy, w, 4, dx_dims, &o, &dx));
             ASSERT_FE_OK(fe_graph_conv_wgrad(g, x, dy, 4, dw_dims, &o, &dw));
             fe_conv_options unit = conv({1, 1});  // dw's dims inferred (unique with stride 1)
             fe_tensor *dy1 = input(g, "dy1", {2, 16, 16, 16}, FE_DATA_NOT_SET, true);
             ASSERT_FE_OK(fe_graph_conv_wgrad(g, x, dy1, 0, nullptr, &unit, &dw2));
             fe_tensor *img = input(g, "img", {2, 8, 8, 8}, FE_DATA_NOT_SET, true);
             fe_tensor *wt = input(g, "wt", {8, 4, 3, 3}, FE_DATA_NOT_SET, true);
             fe_conv_options t = conv({1, 1}, {2, 2});
             t.output_padding[0] = t.output_padding[1] = 1;
             ASSERT_FE_OK(fe_graph_conv_transpose(g, img, wt, &t, &up));
             for (fe_tensor *r : {dx, dw, dw2, up}) out(r);
         }},
        {"matmul_chain_with_scalar_and_renames", FE_DATA_BFLOAT16,
         [](fe_graph *g) {
             fe_tensor *a = input(g, "a", {2, 16, 32});
             fe_tensor *b = input(g, "b", {1, 32, 8});
             fe_tensor *s = scalar(g, "alpha", 0.1);
             fe_tensor *c = nullptr, *d = nullptr, *e = nullptr;
             fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
             o.compute_data_type = FE_DATA_FLOAT;
             ASSERT_FE_OK(fe_graph_matmul(g, a, b, &o, &c));
             ASSERT_FE_OK(fe_graph_mul(g, c, s, nullptr, &d));
             ASSERT_FE_OK(fe_graph_gelu(g, d, nullptr, &e));
             ASSERT_FE_OK(fe_tensor_set_name(e, "result"));
             ASSERT_FE_OK(fe_tensor_set_data_type(e, FE_DATA_FLOAT));
             ASSERT_FE_OK(fe_tensor_set_uid(a, 40));
             ASSERT_FE_OK(fe_tensor_set_uid(e, 7));
             ASSERT_FE_OK(fe_tensor_set_alignment(a, 128));
             ASSERT_FE_OK(fe_tensor_set_alignment(e, 256));
             out(e);
         }},
        {"matmul_fp8", FE_DATA_HALF,
         [](fe_graph *g) {
             fe_tensor *a = input(g, "a", {1, 64, 32}, FE_DATA_FP8_E4M3);
             fe_tensor *b = input(g, "b", {1, 32, 16}, FE_DATA_FP8_E4M3);
             fe_matmul_fp8_scales s = FE_MATMUL_FP8_SCALES_INIT;
             s.descale_a = scalar(g, "descale_a", 0.5);
             s.descale_b = input(g, "descale_b", {1, 1, 1}, FE_DATA_FLOAT);
             s.scale_c = scalar(g, "scale_c", 2.0);
             fe_tensor *c = nullptr, *amax = nullptr;
             ASSERT_FE_OK(fe_graph_matmul_fp8(g, a, b, &s, nullptr, &c, &amax));
             out({c, amax});
         }},
        {"resample_and_transpose", FE_DATA_HALF,
         [](fe_graph *g) {
             fe_tensor *x = input(g, "x", {2, 8, 15, 15});
             fe_resample_options o = FE_RESAMPLE_OPTIONS_INIT;
             for (int i = 0; i < 2; ++i) {
                 o.window[i] = 3;
                 o.stride[i] = 2;
                 o.pre_padding[i] = o.post_padding[i] = 1;
             }
             o.generate_index = 1;
             fe_tensor *y = nullptr, *index = nullptr, *avg = nullptr, *dx = nullptr, *t = nullptr;
             ASSERT_FE_OK(fe_graph_resample(g, x, &o, &y, &index));
             fe_resample_options a = o;
             a.generate_index = 0;
             a.mode = FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING;
             fe_tensor *x2 = input(g, "x2", {2, 8, 15, 15});
             ASSERT_FE_OK(fe_graph_resample(g, x2, &a, &avg, nullptr));
             fe_tensor *dy = input(g, "dy", {2, 8, 8, 8});
             fe_tensor *idx = input(g, "idx", {2, 8, 8, 8}, FE_DATA_INT8);
             o.generate_index = 0;
             const int64_t dx_dims[4] = {2, 8, 16, 16};
             ASSERT_FE_OK(fe_graph_resample_backward(g, dy, nullptr, nullptr, idx, 4, dx_dims, &o, &dx));
             fe_tensor *m = input(g, "m", {3, 4, 5});
             const int64_t perm[3] = {2, 0, 1};
             ASSERT_FE_OK(fe_graph_transpose(g, m, 3, perm, nullptr, &t));
             out({y, index, avg, dx, t});
         }},
        {"slice_reshape_concatenate", FE_DATA_HALF,
         [](fe_graph *g) {
             fe_tensor *qkv = input(g, "qkv", {2, 64, 96});
             const int64_t q_start[3] = {0, 0, 0}, q_end[3] = {2, 64, 32};
             const int64_t k_start[3] = {0, 0, 32}, k_end[3] = {2, 32, 64};
             fe_tensor *q = nullptr, *k = nullptr, *s = nullptr, *r = nullptr, *c = nullptr;
             fe_slice_options q_options = FE_SLICE_OPTIONS_INIT;
             q_options.name = "q";
             ASSERT_FE_OK(fe_graph_slice(g, qkv, 3, q_start, q_end, &q_options, &q));
             ASSERT_FE_OK(fe_graph_slice(g, qkv, 3, k_start, k_end, nullptr, &k));
             fe_matmul_options mo = FE_MATMUL_OPTIONS_INIT;
             ASSERT_FE_OK(fe_graph_matmul(g, q, k, &mo, &s));
             fe_tensor *flat = input(g, "flat", {128, 32});
             const int64_t dims[3] = {2, 64, 32};
             ASSERT_FE_OK(fe_graph_reshape(g, flat, 3, dims, nullptr, &r));
             fe_tensor *cache = input(g, "cache", {2, 8, 60, 16});
             fe_tensor *fresh = input(g, "fresh", {2, 8, 4, 16});
             fe_tensor *both[2] = {cache, fresh};
             fe_concatenate_options c_options = FE_CONCATENATE_OPTIONS_INIT;
             c_options.in_place_index = 0;
             ASSERT_FE_OK(fe_graph_concatenate(g, 2, both, 2, &c_options, &c));
             out({s, r, c});
         }},
        {"reduction_and_softmax", FE_DATA_HALF,
         [](fe_graph *g) {
             fe_tensor *x = input(g, "x", {4, 16, 32});
             fe_reduction_options r = FE_REDUCTION_OPTIONS_INIT;
             r.reduce_axes = (1u << 1) | (1u << 2);
             fe_tensor *y = nullptr, *p = nullptr, *stats = nullptr;
             ASSERT_FE_OK(fe_graph_reduction(g, x, FE_REDUCTION_AMAX, &r, &y));
             fe_softmax_options s = FE_SOFTMAX_OPTIONS_INIT;
             s.generate_stats = 1;
             fe_tensor *x2 = input(g, "x2", {4, 16, 32});
             ASSERT_FE_OK(fe_graph_softmax(g, x2, &s, &p, &stats));
             out({y, p, stats});
         }},
        {"layernorm_training_and_backward", FE_DATA_HALF,
         [](fe_graph *g) {
             fe_tensor *x = input(g, "x", {8, 32});
             fe_tensor *scale = input(g, "scale", {1, 32}, FE_DATA_FLOAT);
             fe_tensor *bias = input(g, "bias", {1, 32}, FE_DATA_FLOAT);
             fe_norm_options o = FE_NORM_OPTIONS_INIT;
             o.phase = FE_NORM_PHASE_TRAINING;
             o.epsilon = 1e-6;
             o.zero_centered_gamma = 1;
             fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr;
             ASSERT_FE_OK(fe_graph_layernorm(g, x, scale, bias, &o, &y, &mean, &inv));
             fe_tensor *dy = input(g, "dy", {8, 32});
             fe_tensor *dx = nullptr, *ds = nullptr, *db = nullptr;
             fe_norm_backward_options b = FE_NORM_BACKWARD_OPTIONS_INIT;
             b.zero_centered_gamma = 1;
             ASSERT_FE_OK(fe_graph_layernorm_backward(g, dy, x, scale, mean, inv, &b, &dx, &ds, &db));
             for (fe_tensor *t : {y, dx, ds, db}) out(t);
         }},
        {"rmsnorm_with_epsilon_tensor_and_backward", FE_DATA_BFLOAT16,
         [](fe_graph *g) {
             fe_tensor *x = input(g, "x", {2, 4, 64});
             fe_tensor *scale = input(g, "scale", {1, 1, 64}, FE_DATA_FLOAT);
             fe_norm_options o = FE_NORM_OPTIONS_INIT;
             o.phase = FE_NORM_PHASE_TRAINING;
             o.epsilon_tensor = scalar(g, "eps", 1e-5);
             fe_tensor *y = nullptr, *inv = nullptr;
             ASSERT_FE_OK(fe_graph_rmsnorm(g, x, scale, nullptr, &o, &y, &inv));
             fe_tensor *dy = input(g, "dy", {2, 4, 64});
             fe_tensor *dx = nullptr, *ds = nullptr;
             ASSERT_FE_OK(fe_graph_rmsnorm_backward(g, dy, x, scale, inv, nullptr, &dx, &ds, nullptr));
             for (fe_tensor *t : {y, dx, ds}) out(t);
         }},
        {"instancenorm_and_adalayernorm", FE_DATA_HALF,
         [](fe_graph *g) {
             fe_tensor *x = input(g, "x", {2, 8, 4, 4}, FE_DATA_NOT_SET, true);
             fe_tensor *scale = input(g, "scale", {1, 8, 1, 1}, FE_DATA_FLOAT);
             fe_tensor *bias = input(g, "bias", {1, 8, 1, 1}, FE_DATA_FLOAT);
             fe_norm_options o = FE_NORM_OPTIONS_INIT;
             o.phase = FE_NORM_PHASE_TRAINING;
             fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr;
             ASSERT_FE_OK(fe_graph_instancenorm(g, x, scale, bias, &o, &y, &mean, &inv));
             fe_tensor *dy = input(g, "dy", {2, 8, 4, 4}, FE_DATA_NOT_SET, true);
             fe_tensor *dx = nullptr, *ds = nullptr, *db = nullptr;
             ASSERT_FE_OK(fe_graph_instancenorm_backward(g, dy, x, scale, mean, inv, nullptr, &dx, &ds, &db));
             fe_tensor *a = input(g, "a", {2, 4, 16});
             fe_tensor *as = input(g, "a_scale", {2, 1, 16}, FE_DATA_FLOAT);
             fe_tensor *ab = input(g, "a_bias", {2, 1, 16}, FE_DATA_FLOAT);
             fe_tensor *ay = nullptr, *am = nullptr, *ai = nullptr;
             ASSERT_FE_OK(fe_graph_adalayernorm(g, a, as, ab, &o, &ay, &am, &ai));
             fe_tensor *ady = input(g, "a_dy", {2, 4, 16});
             fe_tensor *adx = nullptr, *ads = nullptr, *adb = nullptr;
             ASSERT_FE_OK(fe_graph_adalayernorm_backward(g, ady, a, as, am, ai, nullptr, &adx, &ads, &adb));
             fe_tensor *ady2 = input(g, "a_dy2", {2, 4, 16});
             fe_tensor *adx2 = nullptr, *ads2 = nullptr;
             ASSERT_FE_OK(fe_graph_adalayernorm_backward(g, ady2, a, as, am, ai, nullptr, &adx2, &ads2, nullptr));
             for (fe_tensor *t : {y, dx, ds, db, ay, adx, ads, adb, adx2, ads2}) out(t);
         }},
        {"batchnorm_training_inference_backward", FE_DATA_HALF,
         [](fe_graph *g) {
             fe_tensor *x = input(g, "x", {2, 8, 4, 4}, FE_DATA_NOT_SET, true);
             fe_tensor *scale = input(g, "scale", {1, 8, 1, 1}, FE_DATA_FLOAT);
             fe_tensor *bias = input(g, "bias", {1, 8, 1, 1}, FE_DATA_FLOAT);
             fe_batchnorm_options o = FE_BATCHNORM_OPTIONS_INIT;
             o.running_mean = input(g, "running_mean", {1, 8, 1, 1}, FE_DATA_FLOAT);
             o.running_var = input(g, "running_var", {1, 8, 1, 1}, FE_DATA_FLOAT);
             o.momentum = 0.25;
             o.epsilon = 1e-3;
             fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr, *nm = nullptr, *nv = nullptr;
             ASSERT_FE_OK(fe_graph_batchnorm(g, x, scale, bias, &o, &y, &mean, &inv, &nm, &nv));
             fe_tensor *dy = input(g, "dy", {2, 8, 4, 4}, FE_DATA_NOT_SET, true);
             fe_tensor *dx = nullptr, *ds = nullptr, *db = nullptr;
             ASSERT_FE_OK(fe_graph_batchnorm_backward(g, dy, x, scale, mean, inv, nullptr, &dx, &ds, &db));
             fe_tensor *x2 = input(g, "x2", {2, 8, 4, 4}, FE_DATA_NOT_SET, true);
             fe_tensor *m2 = input(g, "m2", {1, 8, 1, 1}, FE_DATA_FLOAT);
             fe_tensor *v2 = input(g, "v2", {1, 8, 1, 1}, FE_DATA_FLOAT);
             fe_tensor *y2 = nullptr;
             ASSERT_FE_OK(fe_graph_batchnorm_inference(g, x2, m2, v2, scale, bias, nullptr, &y2));
             for (fe_tensor *t : {y, mean, inv, nm, nv, dx, ds, db, y2}) out(t);
         }},
        {"rng_and_block_scale", FE_DATA_FLOAT,
         [](fe_graph *g) {
             fe_tensor *seed = input(g, "seed", {1}, FE_DATA_INT64);
             fe_tensor *offset = scalar(g, "offset", 3, FE_DATA_INT64);
             fe_rng_options r = FE_RNG_OPTIONS_INIT;
             r.distribution = FE_RNG_NORMAL;
             r.mean = 0.5;
             r.std = 2.0;
             r.ndims = 2;
             r.dims[0] = 4;
             r.dims[1] = 8;
             r.data_type = FE_DATA_HALF;
             fe_tensor *draw = nullptr;
             ASSERT_FE_OK(fe_graph_rng(g, seed, offset, &r, &draw));
             fe_tensor *x = input(g, "x", {2, 4, 8, 64});
             fe_block_scale_options b = FE_BLOCK_SCALE_OPTIONS_INIT;
             fe_tensor *q = nullptr, *qs = nullptr, *dq = nullptr;
             ASSERT_FE_OK(fe_graph_block_scale_quantize(g, x, &b, &q, &qs));
             fe_tensor *f8 = input(g, "f8", {2, 4, 8, 64}, FE_DATA_FP8_E5M2);
             fe_tensor *sc = input(g, "sc", {2, 4, 8, 2}, FE_DATA_FP8_E8M0);
             ASSERT_FE_OK(fe_graph_block_scale_dequantize(g, f8, sc, &b, &dq));
             for (fe_tensor *t : {draw, q, qs, dq}) out(t);
         }},
        {"sdpa_causal_stats_scale", FE_DATA_HALF,
         [](fe_graph *g) {
             fe_tensor *q = input(g, "q", {2, 4, 64, 32}), *k = input(g, "k", {2, 2, 64, 32}),
                       *v = input(g, "v", {2, 2, 64, 16});
             fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
             o.generate_stats = 1;
             o.attn_scale = 0.125;
             o.causal_mask = FE_CAUSAL_MASK_BOTTOM_RIGHT;
             o.sliding_window = 16;
             o.implementation = FE_SDPA_IMPLEMENTATION_COMPOSITE;
             fe_tensor *o_ = nullptr, *stats = nullptr;
             ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &o, &o_, &stats));
             out({o_, stats});
         }},
        {"sdpa_bias_padding_dropout_alibi", FE_DATA_BFLOAT16,
         [](fe_graph *g) {
             fe_tensor *q = input(g, "q", {2, 4, 64, 32}), *k = input(g, "k", {2, 4, 64, 32}),
                       *v = input(g, "v", {2, 4, 64, 32});
             fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
             o.bias = input(g, "bias", {1, 4, 64, 64});
             o.seq_len_q = input(g, "seq_q", {2, 1, 1, 1}, FE_DATA_INT32);
             o.seq_len_kv = input(g, "seq_kv", {2, 1, 1, 1}, FE_DATA_INT32);
             o.alibi_slopes = input(g, "slopes", {1, 4, 1, 1}, FE_DATA_FLOAT);
             o.attn_scale_tensor = scalar(g, "scale", 0.2);
             o.dropout_probability = 0.1;
             o.dropout_seed = input(g, "seed", {1, 1, 1, 1}, FE_DATA_INT64);
             o.dropout_offset = scalar(g, "offset", 7, FE_DATA_INT64);
             o.output_dropout_mask = 1;
             o.compute_data_type = FE_DATA_FLOAT;
             fe_tensor *o_ = nullptr;
             ASSERT_FE_OK(fe_graph_sdpa(g, q, k, v, &o, &o_, nullptr));
             out(o_);
             fe_tensor *mask = nullptr;
             std::string name = std::string("sdpa_0::DropoutMask");
             ASSERT_FE_OK(fe_graph_tensor_by_name(g, name.c_str(), &mask));
             out(mask);
         }},
        {"sdpa_paged_and_ragged", FE_DATA_HALF,
         [](fe_graph *g) {
             fe_tensor *q = input(g, "q", {2, 8, 1, 64});
             fe_tensor *kc = input(g, "k_cache", {16, 2, 32, 64}), *vc = input(g, "v_cache", {16, 2, 32, 64});
             fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
             o.seq_len_q = input(g, "seq_q", {2, 1, 1, 1}, FE_DATA_INT32);
             o.seq_len_kv = input(g, "seq_kv", {2, 1, 1, 1}, FE_DATA_INT32);
             o.page_table_k = input(g, "pages_k", {2, 1, 8, 1}, FE_DATA_INT32);
             o.page_table_v = input(g, "pages_v", {2, 1, 8, 1}, FE_DATA_INT32);
             o.max_seq_len_kv = 256;
             fe_tensor *o_ = nullptr;
             ASSERT_FE_OK(fe_graph_sdpa(g, q, kc, vc, &o, &o_, nullptr));
             out(o_);
             fe_tensor *q2 = input(g, "q2", {2, 4, 64, 32}), *k2 = input(g, "k2", {2, 4, 64, 32}),
                       *v2 = input(g, "v2", {2, 4, 64, 32});
             fe_tensor *offsets = input(g, "q_offsets", {3, 1, 1, 1}, FE_DATA_INT32);
             ASSERT_FE_OK(fe_tensor_set_ragged_offset(q2, offsets));
             fe_sdpa_options r = FE_SDPA_OPTIONS_INIT;
             r.seq_len_q = input(g, "seq_q2", {2, 1, 1, 1}, FE_DATA_INT32);
             r.seq_len_kv = input(g, "seq_kv2", {2, 1, 1, 1}, FE_DATA_INT32);
             fe_tensor *o2 = nullptr;
             ASSERT_FE_OK(fe_graph_sdpa(g, q2, k2, v2, &r, &o2, nullptr));
             ASSERT_FE_OK(fe_tensor_set_ragged_offset(o2, offsets));
             out(o2);
         }},
        {"sdpa_backward_dbias_deterministic", FE_DATA_HALF,
         [](fe_graph *g) {
             fe_tensor *q = input(g, "q", {2, 4, 64, 32}), *k = input(g, "k", {2, 4, 64, 32}),
                       *v = input(g, "v", {2, 4, 64, 32}), *o = input(g, "o", {2, 4, 64, 32}),
                       *d_o = input(g, "dO", {2, 4, 64, 32});
             fe_tensor *stats = input(g, "stats", {2, 4, 64, 1}, FE_DATA_FLOAT);
             fe_sdpa_backward_options b = FE_SDPA_BACKWARD_OPTIONS_INIT;
             b.bias = input(g, "bias", {1, 4, 64, 64});
             b.output_dbias = 1;
             b.deterministic = 1;
             b.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
             b.attn_scale = 0.25;
             fe_tensor *dq = nullptr, *dk = nullptr, *dv = nullptr, *dbias = nullptr;
             ASSERT_FE_OK(fe_graph_sdpa_backward(g, q, k, v, o, d_o, stats, &b, &dq, &dk, &dv));
             ASSERT_FE_OK(fe_graph_tensor_by_name(g, "sdpa_backward_0::dBias", &dbias));
             for (fe_tensor *t : {dq, dk, dv, dbias}) out(t);
         }},
        {"sdpa_fp8_forward_and_backward", FE_DATA_HALF,
         [](fe_graph *g) {
             fe_tensor *q = input(g, "q", {2, 4, 64, 64}, FE_DATA_FP8_E4M3),
                       *k = input(g, "k", {2, 4, 64, 64}, FE_DATA_FP8_E4M3),
                       *v = input(g, "v", {2, 4, 64, 64}, FE_DATA_FP8_E4M3);
             fe_sdpa_fp8_scales s = FE_SDPA_FP8_SCALES_INIT;
             fe_tensor **fields[] = {&s.descale_q, &s.descale_k, &s.descale_v, &s.descale_s, &s.scale_s, &s.scale_o};
             const char *names[] = {"descale_q", "descale_k", "descale_v", "descale_s", "scale_s", "scale_o"};
             for (size_t i = 0; i < 6; ++i) *fields[i] = input(g, names[i], {1, 1, 1, 1}, FE_DATA_FLOAT);
             fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
             o.generate_stats = 1;
             o.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
             o.attn_scale = 0.125;
             fe_tensor *o_ = nullptr, *stats = nullptr, *amax_s = nullptr, *amax_o = nullptr;
             ASSERT_FE_OK(fe_graph_sdpa_fp8(g, q, k, v, &s, &o, &o_, &stats, &amax_s, &amax_o));
             for (fe_tensor *t : {o_, stats, amax_s, amax_o}) out(t);

             fe_tensor *bo = input(g, "bo", {2, 4, 64, 64}, FE_DATA_FP8_E4M3),
                       *bdo = input(g, "bdo", {2, 4, 64, 64}, FE_DATA_FP8_E5M2);
             fe_tensor *bstats = input(g, "bstats", {2, 4, 64, 1}, FE_DATA_FLOAT);
             fe_sdpa_fp8_backward_scales bs = FE_SDPA_FP8_BACKWARD_SCALES_INIT;
             fe_tensor **bf[] = {&bs.descale_q, &bs.descale_k, &bs.descale_v, &bs.descale_o, &bs.descale_do, &bs.descale_s,
                                 &bs.descale_dp, &bs.scale_s, &bs.scale_dp, &bs.scale_dq, &bs.scale_dk, &bs.scale_dv};
             for (size_t i = 0; i < 12; ++i) *bf[i] = input(g, ("bscale_" + std::to_string(i)).c_str(), {1, 1, 1, 1}, FE_DATA_FLOAT);
             fe_sdpa_backward_options bo_opts = FE_SDPA_BACKWARD_OPTIONS_INIT;
             bo_opts.causal_mask = FE_CAUSAL_MASK_TOP_LEFT;
             fe_tensor *r[7] = {};
             ASSERT_FE_OK(fe_graph_sdpa_fp8_backward(g, q, k, v, bo, bdo, bstats, &bs, &bo_opts, &r[0], &r[1], &r[2],
                                                     &r[3], &r[4], &r[5], &r[6]));
             for (fe_tensor *t : r) out(t);
         }},
    };
    return all;
}

class GraphJsonRoundTrip : public ::testing::TestWithParam<size_t> {};

TEST_P(GraphJsonRoundTrip, IsByteIdenticalAndValidatesAlike) {
    const Case &c = cases()[GetParam()];
    Graph g = new_graph(c.name, c.io);
    c.build(g.get());
    if (HasFatalFailure()) return;
    expect_round_trip(g.get());
}

INSTANTIATE_TEST_SUITE_P(EveryOp, GraphJsonRoundTrip, ::testing::Range<size_t>(0, cases().size()),
                         [](const ::testing::TestParamInfo<size_t> &info) { return std::string(cases()[info.param].name); });

// Every pointwise mode, with the options the mode reads set away from their defaults.
struct Mode {
    fe_pointwise_mode mode;
    int arity;
};
const Mode kModes[] = {
    {FE_POINTWISE_ADD, 2},         {FE_POINTWISE_MUL, 2},          {FE_POINTWISE_MIN, 2},
    {FE_POINTWISE_MAX, 2},         {FE_POINTWISE_SQRT, 1},         {FE_POINTWISE_ADD_SQUARE, 2},
    {FE_POINTWISE_DIV, 2},         {FE_POINTWISE_MOD, 2},          {FE_POINTWISE_POW, 2},
    {FE_POINTWISE_SUB, 2},         {FE_POINTWISE_ABS, 1},          {FE_POINTWISE_CEIL, 1},
    {FE_POINTWISE_COS, 1},         {FE_POINTWISE_EXP, 1},          {FE_POINTWISE_FLOOR, 1},
    {FE_POINTWISE_LOG, 1},         {FE_POINTWISE_NEG, 1},          {FE_POINTWISE_RSQRT, 1},
    {FE_POINTWISE_SIN, 1},         {FE_POINTWISE_TAN, 1},          {FE_POINTWISE_ERF, 1},
    {FE_POINTWISE_IDENTITY, 1},    {FE_POINTWISE_RECIPROCAL, 1},   {FE_POINTWISE_ATAN2, 2},
    {FE_POINTWISE_RELU_FWD, 1},    {FE_POINTWISE_TANH_FWD, 1},     {FE_POINTWISE_SIGMOID_FWD, 1},
    {FE_POINTWISE_ELU_FWD, 1},     {FE_POINTWISE_GELU_FWD, 1},     {FE_POINTWISE_SOFTPLUS_FWD, 1},
    {FE_POINTWISE_SWISH_FWD, 1},   {FE_POINTWISE_GELU_APPROX_TANH_FWD, 1},
    {FE_POINTWISE_RELU_BWD, 2},    {FE_POINTWISE_TANH_BWD, 2},     {FE_POINTWISE_SIGMOID_BWD, 2},
    {FE_POINTWISE_ELU_BWD, 2},     {FE_POINTWISE_GELU_BWD, 2},     {FE_POINTWISE_SOFTPLUS_BWD, 2},
    {FE_POINTWISE_SWISH_BWD, 2},   {FE_POINTWISE_GELU_APPROX_TANH_BWD, 2},
    {FE_POINTWISE_CMP_EQ, 2},      {FE_POINTWISE_CMP_NEQ, 2},      {FE_POINTWISE_CMP_GT, 2},
    {FE_POINTWISE_CMP_GE, 2},      {FE_POINTWISE_CMP_LT, 2},       {FE_POINTWISE_CMP_LE, 2},
    {FE_POINTWISE_LOGICAL_AND, 2}, {FE_POINTWISE_LOGICAL_OR, 2},   {FE_POINTWISE_LOGICAL_NOT, 1},
    {FE_POINTWISE_GEN_INDEX, 1},   {FE_POINTWISE_BINARY_SELECT, 3},
};

TEST(GraphJson, EveryPointwiseModeRoundTrips) {
    for (const Mode &m : kModes) {
        SCOPED_TRACE(static_cast<int>(m.mode));
        Graph g = new_graph("pointwise", FE_DATA_FLOAT);
        fe_tensor *a = input(g.get(), "a", {4, 8, 16});
        fe_tensor *b = m.arity >= 2 ? input(g.get(), "b", {1, 8, 1}) : nullptr;
        fe_tensor *c = m.arity >= 3 ? input(g.get(), "c", {4, 8, 16}, FE_DATA_BOOLEAN) : nullptr;
        // Each mode's own parameters (another mode's are refused: it would ignore them).
        fe_pointwise_options o = FE_POINTWISE_OPTIONS_INIT;
        if (m.mode == FE_POINTWISE_RELU_FWD || m.mode == FE_POINTWISE_RELU_BWD) {
            o.relu_lower_clip = -1.5;
            o.relu_upper_clip = 6;
            o.relu_lower_clip_slope = 0.01;
        }
        if (m.mode == FE_POINTWISE_ELU_FWD || m.mode == FE_POINTWISE_ELU_BWD) o.elu_alpha = 0.3;
        if (m.mode == FE_POINTWISE_SOFTPLUS_FWD || m.mode == FE_POINTWISE_SOFTPLUS_BWD) o.softplus_beta = 2;
        if (m.mode == FE_POINTWISE_SWISH_FWD || m.mode == FE_POINTWISE_SWISH_BWD) o.swish_beta = 1.702;
        if (m.mode == FE_POINTWISE_GEN_INDEX) o.axis = 2;
        o.compute_data_type = FE_DATA_FLOAT;
        fe_tensor *y = nullptr;
        ASSERT_FE_OK(fe_graph_pointwise(g.get(), m.mode, a, b, c, &o, &y));
        out(y);
        expect_round_trip(g.get());
    }
}

TEST(GraphJson, NonFiniteOptionsAndDeviceProperties) {
    Graph g = new_graph("relu_inf", FE_DATA_FLOAT);
    fe_tensor *a = input(g.get(), "a", {4, 8});
    fe_pointwise_options o = FE_POINTWISE_OPTIONS_INIT;
    o.relu_upper_clip = 1.0 / 0.0;
    o.relu_lower_clip = -1.0 / 0.0;
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_pointwise(g.get(), FE_POINTWISE_RELU_FWD, a, nullptr, nullptr, &o, &y));
    out(y);
    ASSERT_FE_OK(fe_graph_set_device_properties(g.get(), "{\"deviceName\":\"a \\\"quoted\\\" GPU\",\n\"deviceVer\":900,\"sms\":132}"));
    std::string text = to_json(g.get());
    EXPECT_NE(text.find("\"relu_upper_clip\":\"inf\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"relu_lower_clip\":\"-inf\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"device_properties\":"), std::string::npos) << text;
    expect_round_trip(g.get());
}

TEST(GraphJson, TheSameGraphGivesTheSameBytes) {
    auto build = [] {
        Graph g = new_graph("same", FE_DATA_HALF);
        fe_tensor *a = input(g.get(), "a", {2, 16, 32}), *b = input(g.get(), "b", {2, 32, 8});
        fe_tensor *c = nullptr;
        EXPECT_FE_OK(fe_graph_matmul(g.get(), a, b, nullptr, &c));
        out(c);
        return g;
    };
    Graph one = build(), two = build();
    EXPECT_EQ(to_json(one.get()), to_json(two.get()));
    // A graph that differs in one attribute gives other bytes (it is a cache key).
    Graph three = new_graph("same", FE_DATA_HALF);
    fe_tensor *a = input(three.get(), "a", {2, 16, 32}), *b = input(three.get(), "b", {2, 32, 8});
    fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
    o.compute_data_type = FE_DATA_HALF;
    fe_tensor *c = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(three.get(), a, b, &o, &c));
    out(c);
    EXPECT_NE(to_json(three.get()), to_json(one.get()));
}

// A compile-time constant is written as one ("constant": true) and read back as one; a scalar of
// the same value is another graph (another plan key).
TEST(GraphJson, ACompileTimeConstantRoundTripsAndDiffersFromAScalar) {
    auto build = [](bool constant) {
        Graph g = new_graph("constant", FE_DATA_HALF);
        fe_tensor *x = input(g.get(), "x", {2, 16, 32}), *c = nullptr, *y = nullptr;
        EXPECT_FE_OK(constant ? fe_graph_constant(g.get(), "c", 0.5, FE_DATA_FLOAT, &c)
                              : fe_graph_scalar(g.get(), "c", 0.5, FE_DATA_FLOAT, &c));
        EXPECT_FE_OK(fe_graph_pointwise(g.get(), FE_POINTWISE_MUL, x, c, nullptr, nullptr, &y));
        out(y);
        return g;
    };
    Graph constant = build(true), scalar_graph = build(false);
    std::string text = to_json(constant.get());
    EXPECT_NE(text.find("\"constant\":true"), std::string::npos) << text;
    EXPECT_NE(text, to_json(scalar_graph.get()));
    expect_round_trip(constant.get());
    fe_graph *raw = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(text.data(), text.size(), &raw));
    Graph back(raw);
    size_t length = 0;
    std::string described(4096, '\0');
    ASSERT_FE_OK(fe_graph_describe(back.get(), &described[0], described.size(), &length));
    EXPECT_NE(described.find("value=0.5 (compile-time constant)"), std::string::npos) << described;
}

TEST(GraphJson, AnEmptyGraphRoundTrips) {
    Graph g = new_graph("empty", FE_DATA_NOT_SET);
    std::string text = to_json(g.get());
    fe_graph *raw = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(text.data(), text.size(), &raw));
    Graph back(raw);
    EXPECT_EQ(to_json(back.get()), text);
    EXPECT_STREQ(name_of(back.get()), "empty");
}

}  // namespace

namespace {

// Every op whose description gives example inputs, built from the description alone.
TEST(GraphJson, EveryOpWithAnExampleRoundTrips) {
    for (const cudnnfe_test::ExampleGraph &example : cudnnfe_test::example_graphs()) {
        SCOPED_TRACE(example.kind);
        fe_graph *raw = nullptr;
        ASSERT_FE_OK(fe_graph_from_json(example.json.data(), example.json.size(), &raw)) << example.json;
        Graph g(raw);
        expect_round_trip(g.get());
    }
}

// Runs after the cases above in this binary's order: each op kind the schema describes was
// written by at least one of them (and matched its description).
TEST(GraphJson, ZzEveryOpOfTheSchemaHasACase) {
    for (size_t i = 0; i < cases().size(); ++i) {
        Graph g = new_graph(cases()[i].name, cases()[i].io);
        cases()[i].build(g.get());
        cudnnfe_test::expect_ops_match_schema(to_json(g.get()), &kinds_written());
    }
    for (const std::string &kind : cudnnfe_test::schema_kinds())
        EXPECT_TRUE(kinds_written().count(kind)) << "no round-trip case writes op kind '" << kind << "'";
}

}  // namespace

// An op's result given a type (and strides) of its own, then read by a later op that checks its
// inputs' types: the reader gives the result its entry's attributes before that op is made.
TEST(GraphJson, ATypedResultFeedingALaterOpRoundTrips) {
    Graph g = new_graph("typed_result_concat", FE_DATA_HALF);
    fe_tensor *a = input(g.get(), "a", {2, 8, 4, 16}), *y = nullptr, *c = nullptr;
    ASSERT_FE_OK(fe_graph_pointwise(g.get(), FE_POINTWISE_RELU_FWD, a, nullptr, nullptr, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_data_type(y, FE_DATA_FLOAT));
    fe_tensor *skip = input(g.get(), "skip", {2, 8, 60, 16}, FE_DATA_FLOAT);
    fe_tensor *both[2] = {skip, y};
    ASSERT_FE_OK(fe_graph_concatenate(g.get(), 2, both, 2, nullptr, &c));
    out(c);
    expect_round_trip(g.get());
}
