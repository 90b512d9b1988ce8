// Operation entry points: each validates its arguments, builds the node, infers its result.
#include <map>
#include <string>
#include <vector>

#include "api/guard.hpp"
#include "graph/graph.hpp"
#include "ops/graph_ops.hpp"
#include "ops/ops.hpp"

using namespace fe;

namespace {

fe_pointwise_options pointwise_defaults() {
    const fe_pointwise_options defaults = FE_POINTWISE_OPTIONS_INIT;
    return defaults;
}

void pointwise(fe_graph *graph, fe_pointwise_mode mode, fe_tensor *a, fe_tensor *b, fe_tensor *c,
               const fe_pointwise_options *options, fe_tensor **out_y) {
    FE_REQUIRE(graph);
    FE_REQUIRE(out_y);
    fe_pointwise_options o = read_options(options, pointwise_defaults());
    *out_y = add_pointwise(*graph, mode, a, b, c, o)[0];
}

// The pointwise conveniences (bias, add, relu, ...): one node of `mode`, named by the options
// or automatically after `kind` (NULL: the mode's name).
void convenience(fe_graph *graph, fe_pointwise_mode mode, const char *kind, fe_tensor *a, fe_tensor *b,
                 const fe_pointwise_options *options, fe_tensor **out_y) {
    FE_REQUIRE(graph);
    FE_REQUIRE(out_y);
    fe_pointwise_options o = read_options(options, pointwise_defaults());
    *out_y = add_pointwise(*graph, mode, a, b, nullptr, o, kind)[0];
}

}  // namespace

namespace {

fe_conv_options conv_options(const fe_conv_options *given) {
    const fe_conv_options defaults = FE_CONV_OPTIONS_INIT;
    return read_options(given, defaults);
}

// The dims a caller gives in a C array (dgrad's dx, wgrad's dw); their values are checked where
// the op is added.
std::vector<int64_t> dims_of(size_t ndims, const int64_t *dims, const char *what) {
    FE_CHECK(ndims >= 3 && ndims <= 5, FE_STATUS_INVALID_ARGUMENT,
             "%s has %zu dims; a convolution's tensors have 3 to 5 ([N, C, spatial...])", what, ndims);
    return std::vector<int64_t>(dims, dims + ndims);
}

}  // namespace

FE_EXPORT fe_status fe_graph_conv_fprop(fe_graph *graph, fe_tensor *image, fe_tensor *weight,
                                        const fe_conv_options *options, fe_tensor **out_y) {
    return guard("fe_graph_conv_fprop", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(image);
        FE_REQUIRE(weight);
        FE_REQUIRE(out_y);
        fe_conv_options o = conv_options(options);
        *out_y = add_conv_fprop(*graph, image, weight, o)[0];
    });
}

FE_EXPORT fe_status fe_graph_conv_dgrad(fe_graph *graph, fe_tensor *loss, fe_tensor *weight, size_t dx_ndims,
                                        const int64_t *dx_dims, const fe_conv_options *options, fe_tensor **out_dx) {
    return guard("fe_graph_conv_dgrad", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(loss);
        FE_REQUIRE(weight);
        FE_REQUIRE(out_dx);
        FE_CHECK(dx_dims != nullptr, FE_STATUS_NULL_POINTER,
                 "argument 'dx_dims' is NULL: dx's dims cannot be inferred (with a stride above 1 several image "
                 "sizes give the same dy), so give the forward image's dims");
        fe_conv_options o = conv_options(options);
        *out_dx = add_conv_dgrad(*graph, loss, weight, dims_of(dx_ndims, dx_dims, "dx_dims"), o)[0];
    });
}

FE_EXPORT fe_status fe_graph_conv_wgrad(fe_graph *graph, fe_tensor *image, fe_tensor *loss, size_t dw_ndims,
                                        const int64_t *dw_dims, const fe_conv_options *options, fe_tensor **out_dw) {
    return guard("fe_graph_conv_wgrad", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(image);
        FE_REQUIRE(loss);
        FE_REQUIRE(out_dw);
        fe_conv_options o = conv_options(options);
        std::vector<int64_t> dims = dw_dims ? dims_of(dw_ndims, dw_dims, "dw_dims") : std::vector<int64_t>();
        *out_dw = add_conv_wgrad(*graph, image, loss, dims, o)[0];
    });
}

FE_EXPORT fe_status fe_graph_conv_transpose(fe_graph *graph, fe_tensor *image, fe_tensor *weight,
                                            const fe_conv_options *options, fe_tensor **out_y) {
    return guard("fe_graph_conv_transpose", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(image);
        FE_REQUIRE(weight);
        FE_REQUIRE(out_y);
        fe_conv_options o = conv_options(options);
        *out_y = add_conv_transpose(*graph, image, weight, o)[0];
    });
}

FE_EXPORT fe_status fe_graph_matmul(fe_graph *graph, fe_tensor *a, fe_tensor *b, const fe_matmul_options *options,
                                    fe_tensor **out_c) {
    return guard("fe_graph_matmul", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(a);
        FE_REQUIRE(b);
        FE_REQUIRE(out_c);
        const fe_matmul_options defaults = FE_MATMUL_OPTIONS_INIT;
        fe_matmul_options o = read_options(options, defaults);
        *out_c = add_matmul(*graph, a, b, o)[0];
    });
}

FE_EXPORT fe_status fe_graph_pointwise(fe_graph *graph, fe_pointwise_mode mode, fe_tensor *in0, fe_tensor *in1,
                                       fe_tensor *in2, const fe_pointwise_options *options, fe_tensor **out_y) {
    return guard("fe_graph_pointwise", [&] { pointwise(graph, mode, in0, in1, in2, options, out_y); });
}

FE_EXPORT fe_status fe_graph_bias(fe_graph *graph, fe_tensor *input, fe_tensor *bias,
                                  const fe_pointwise_options *options, fe_tensor **out_y) {
    return guard("fe_graph_bias", [&] {
        FE_REQUIRE(input);
        FE_REQUIRE(bias);
        convenience(graph, FE_POINTWISE_ADD, "bias", input, bias, options, out_y);
    });
}

FE_EXPORT fe_status fe_graph_scale(fe_graph *graph, fe_tensor *input, fe_tensor *scale,
                                   const fe_pointwise_options *options, fe_tensor **out_y) {
    return guard("fe_graph_scale", [&] {
        FE_REQUIRE(input);
        FE_REQUIRE(scale);
        convenience(graph, FE_POINTWISE_MUL, "scale", input, scale, options, out_y);
    });
}

FE_EXPORT fe_status fe_graph_add(fe_graph *graph, fe_tensor *a, fe_tensor *b, const fe_pointwise_options *options,
                                 fe_tensor **out_y) {
    return guard("fe_graph_add", [&] {
        FE_REQUIRE(a);
        FE_REQUIRE(b);
        convenience(graph, FE_POINTWISE_ADD, nullptr, a, b, options, out_y);
    });
}

FE_EXPORT fe_status fe_graph_mul(fe_graph *graph, fe_tensor *a, fe_tensor *b, const fe_pointwise_options *options,
                                 fe_tensor **out_y) {
    return guard("fe_graph_mul", [&] {
        FE_REQUIRE(a);
        FE_REQUIRE(b);
        convenience(graph, FE_POINTWISE_MUL, nullptr, a, b, options, out_y);
    });
}

FE_EXPORT fe_status fe_graph_relu(fe_graph *graph, fe_tensor *input, const fe_pointwise_options *options,
                                  fe_tensor **out_y) {
    return guard("fe_graph_relu", [&] {
        FE_REQUIRE(input);
        convenience(graph, FE_POINTWISE_RELU_FWD, nullptr, input, nullptr, options, out_y);
    });
}

FE_EXPORT fe_status fe_graph_gelu(fe_graph *graph, fe_tensor *input, const fe_pointwise_options *options,
                                  fe_tensor **out_y) {
    return guard("fe_graph_gelu", [&] {
        FE_REQUIRE(input);
        convenience(graph, FE_POINTWISE_GELU_FWD, nullptr, input, nullptr, options, out_y);
    });
}

FE_EXPORT fe_status fe_graph_silu(fe_graph *graph, fe_tensor *input, const fe_pointwise_options *options,
                                  fe_tensor **out_y) {
    return guard("fe_graph_silu", [&] {
        FE_REQUIRE(input);
        convenience(graph, FE_POINTWISE_SWISH_FWD, "silu", input, nullptr, options, out_y);
    });
}

FE_EXPORT fe_status fe_graph_reduction(fe_graph *graph, fe_tensor *input, fe_reduction_mode mode,
                                       const fe_reduction_options *options, fe_tensor **out_y) {
    return guard("fe_graph_reduction", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(input);
        FE_REQUIRE(options);
        FE_REQUIRE(out_y);
        const fe_reduction_options defaults = FE_REDUCTION_OPTIONS_INIT;
        fe_reduction_options o = read_options(options, defaults);
        *out_y = add_reduction(*graph, input, mode, o)[0];
    });
}

FE_EXPORT fe_status fe_graph_sdpa(fe_graph *graph, fe_tensor *q, fe_tensor *k, fe_tensor *v,
                                  const fe_sdpa_options *options, fe_tensor **out_o, fe_tensor **out_stats) {
    return guard("fe_graph_sdpa", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(q);
        FE_REQUIRE(k);
        FE_REQUIRE(v);
        FE_REQUIRE(out_o);
        const fe_sdpa_options defaults = FE_SDPA_OPTIONS_INIT;
        fe_sdpa_options o = read_options(options, defaults);
        FE_CHECK(!o.generate_stats || out_stats, FE_STATUS_NULL_POINTER,
                 "options.generate_stats is set but out_stats is NULL");
        Results outputs = add_sdpa(*graph, q, k, v, o);
        *out_o = outputs[0];
        if (out_stats) *out_stats = o.generate_stats ? outputs[1] : nullptr;
    });
}

FE_EXPORT fe_status fe_graph_sdpa_fp8(fe_graph *graph, fe_tensor *q, fe_tensor *k, fe_tensor *v,
                                      const fe_sdpa_fp8_scales *scales, const fe_sdpa_options *options,
                                      fe_tensor **out_o, fe_tensor **out_stats, fe_tensor **out_amax_s,
                                      fe_tensor **out_amax_o) {
    return guard("fe_graph_sdpa_fp8", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(q);
        FE_REQUIRE(k);
        FE_REQUIRE(v);
        FE_REQUIRE(scales);
        FE_REQUIRE(out_o);
        FE_REQUIRE(out_amax_s);
        FE_REQUIRE(out_amax_o);
        const fe_sdpa_options defaults = FE_SDPA_OPTIONS_INIT;
        fe_sdpa_options o = read_options(options, defaults);
        const fe_sdpa_fp8_scales no_scales = FE_SDPA_FP8_SCALES_INIT;
        fe_sdpa_fp8_scales s = read_options(scales, no_scales);
        FE_CHECK(!o.generate_stats || out_stats, FE_STATUS_NULL_POINTER,
                 "options.generate_stats is set but out_stats is NULL");
        Results outputs = add_sdpa_fp8(*graph, q, k, v, s, o);
        size_t amax = o.generate_stats ? 2 : 1;
        *out_o = outputs[0];
        if (out_stats) *out_stats = o.generate_stats ? outputs[1] : nullptr;
        *out_amax_s = outputs[amax];
        *out_amax_o = outputs[amax + 1];
    });
}

FE_EXPORT fe_status fe_graph_sdpa_fp8_backward(fe_graph *graph, fe_tensor *q, fe_tensor *k, fe_tensor *v, fe_tensor *o,
                                               fe_tensor *d_o, fe_tensor *stats,
                                               const fe_sdpa_fp8_backward_scales *scales,
                                               const fe_sdpa_backward_options *options, fe_tensor **out_dq,
                                               fe_tensor **out_dk, fe_tensor **out_dv, fe_tensor **out_amax_dq,
                                               fe_tensor **out_amax_dk, fe_tensor **out_amax_dv,
                                               fe_tensor **out_amax_dp) {
    return guard("fe_graph_sdpa_fp8_backward", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(q);
        FE_REQUIRE(k);
        FE_REQUIRE(v);
        FE_REQUIRE(o);
        FE_REQUIRE(d_o);
        FE_REQUIRE(stats);
        FE_REQUIRE(scales);
        FE_REQUIRE(out_dq);
        FE_REQUIRE(out_dk);
        FE_REQUIRE(out_dv);
        FE_REQUIRE(out_amax_dq);
        FE_REQUIRE(out_amax_dk);
        FE_REQUIRE(out_amax_dv);
        FE_REQUIRE(out_amax_dp);
        const fe_sdpa_backward_options defaults = FE_SDPA_BACKWARD_OPTIONS_INIT;
        fe_sdpa_backward_options opts = read_options(options, defaults);
        const fe_sdpa_fp8_backward_scales no_scales = FE_SDPA_FP8_BACKWARD_SCALES_INIT;
        fe_sdpa_fp8_backward_scales s = read_options(scales, no_scales);
        Results outputs = add_sdpa_fp8_backward(*graph, q, k, v, o, d_o, stats, s, opts);
        *out_dq = outputs[0];
        *out_dk = outputs[1];
        *out_dv = outputs[2];
        *out_amax_dq = outputs[3];
        *out_amax_dk = outputs[4];
        *out_amax_dv = outputs[5];
        *out_amax_dp = outputs[6];
    });
}

FE_EXPORT fe_status fe_alibi_slopes(int64_t heads, float *out) {
    return guard("fe_alibi_slopes", [&] {
        FE_REQUIRE(out);
        alibi_slopes(heads, out);
    });
}

FE_EXPORT fe_status fe_graph_sdpa_backward(fe_graph *graph, fe_tensor *q, fe_tensor *k, fe_tensor *v, fe_tensor *o,
                                           fe_tensor *d_o, fe_tensor *stats, const fe_sdpa_backward_options *options,
                                           fe_tensor **out_dq, fe_tensor **out_dk, fe_tensor **out_dv) {
    return guard("fe_graph_sdpa_backward", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(q);
        FE_REQUIRE(k);
        FE_REQUIRE(v);
        FE_REQUIRE(o);
        FE_REQUIRE(d_o);
        FE_REQUIRE(stats);
        FE_REQUIRE(out_dq);
        FE_REQUIRE(out_dk);
        FE_REQUIRE(out_dv);
        const fe_sdpa_backward_options defaults = FE_SDPA_BACKWARD_OPTIONS_INIT;
        fe_sdpa_backward_options opts = read_options(options, defaults);
        Results outputs = add_sdpa_backward(*graph, q, k, v, o, d_o, stats, opts);
        *out_dq = outputs[0];
        *out_dk = outputs[1];
        *out_dv = outputs[2];
    });
}

// ---- Normalizations ----------------------------------------------------------------------------

namespace {

// What the forward norms other than batchnorm share: y, and in training the statistics.
// out_mean is nullptr for rmsnorm, which has none.
void norm_forward(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias, const fe_norm_options *options,
                  const char *kind, const char *inv_argument, fe_tensor **out_y, fe_tensor **out_mean, bool has_mean,
                  fe_tensor **out_inv) {
    FE_REQUIRE(graph);
    FE_REQUIRE(x);
    FE_REQUIRE(scale);
    FE_REQUIRE(out_y);
    const fe_norm_options defaults = FE_NORM_OPTIONS_INIT;
    fe_norm_options o = read_options(options, defaults);
    bool training = o.phase == FE_NORM_PHASE_TRAINING;
    if (training) {
        FE_CHECK(!has_mean || out_mean, FE_STATUS_NULL_POINTER,
                 "options.phase is training, which returns the statistics, but out_mean is NULL");
        FE_CHECK(out_inv, FE_STATUS_NULL_POINTER,
                 "options.phase is training, which returns the statistics, but %s is NULL", inv_argument);
    }
    Results outputs = add_norm(*graph, kind, x, scale, bias, o);
    *out_y = outputs[0];
    if (out_mean) *out_mean = training && has_mean ? outputs[1] : nullptr;
    if (out_inv) *out_inv = training ? outputs.back() : nullptr;
}

// The backward norms: dx, dscale and (unless out_dbias may be and is NULL) dbias.
void norm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *scale, fe_tensor *mean, fe_tensor *inv,
                   const fe_norm_backward_options *options, const char *kind,
                   fe_tensor **out_dx, fe_tensor **out_dscale, fe_tensor **out_dbias, bool dbias_optional) {
    FE_REQUIRE(graph);
    FE_REQUIRE(dy);
    FE_REQUIRE(x);
    FE_REQUIRE(scale);
    FE_REQUIRE(out_dx);
    FE_REQUIRE(out_dscale);
    if (!dbias_optional) FE_REQUIRE(out_dbias);
    const fe_norm_backward_options defaults = FE_NORM_BACKWARD_OPTIONS_INIT;
    fe_norm_backward_options o = read_options(options, defaults);
    Results outputs = add_norm_backward(*graph, kind, dy, x, scale, mean, inv, o, out_dbias != nullptr);
    *out_dx = outputs[0];
    *out_dscale = outputs[1];
    if (out_dbias) *out_dbias = outputs[2];
}


}  // namespace

FE_EXPORT fe_status fe_graph_layernorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                       const fe_norm_options *options, fe_tensor **out_y, fe_tensor **out_mean,
                                       fe_tensor **out_inv_variance) {
    return guard("fe_graph_layernorm", [&] {
        FE_REQUIRE(bias);
        norm_forward(graph, x, scale, bias, options, "layernorm", "out_inv_variance",
                     out_y, out_mean, true, out_inv_variance);
    });
}

FE_EXPORT fe_status fe_graph_rmsnorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                     const fe_norm_options *options, fe_tensor **out_y, fe_tensor **out_inv_rms) {
    return guard("fe_graph_rmsnorm", [&] {
        norm_forward(graph, x, scale, bias, options, "rmsnorm", "out_inv_rms", out_y, nullptr, false, out_inv_rms);
    });
}

FE_EXPORT fe_status fe_graph_instancenorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                          const fe_norm_options *options, fe_tensor **out_y, fe_tensor **out_mean,
                                          fe_tensor **out_inv_variance) {
    return guard("fe_graph_instancenorm", [&] {
        FE_REQUIRE(bias);
        norm_forward(graph, x, scale, bias, options, "instancenorm", "out_inv_variance", out_y, out_mean, true, out_inv_variance);
    });
}

FE_EXPORT fe_status fe_graph_adalayernorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                          const fe_norm_options *options, fe_tensor **out_y, fe_tensor **out_mean,
                                          fe_tensor **out_inv_variance) {
    return guard("fe_graph_adalayernorm", [&] {
        norm_forward(graph, x, scale, bias, options, "adalayernorm", "out_inv_variance", out_y, out_mean, true, out_inv_variance);
    });
}

FE_EXPORT fe_status fe_graph_batchnorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                       const fe_batchnorm_options *options, fe_tensor **out_y, fe_tensor **out_mean,
                                       fe_tensor **out_inv_variance, fe_tensor **out_next_running_mean,
                                       fe_tensor **out_next_running_var) {
    return guard("fe_graph_batchnorm", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(x);
        FE_REQUIRE(scale);
        FE_REQUIRE(bias);
        FE_REQUIRE(out_y);
        FE_REQUIRE(out_mean);
        FE_REQUIRE(out_inv_variance);
        const fe_batchnorm_options defaults = FE_BATCHNORM_OPTIONS_INIT;
        fe_batchnorm_options o = read_options(options, defaults);
        bool running = o.running_mean || o.running_var;
        if (running) {
            FE_CHECK(out_next_running_mean && out_next_running_var, FE_STATUS_NULL_POINTER,
                     "the options give running statistics, which are updated, but %s is NULL",
                     out_next_running_mean ? "out_next_running_var" : "out_next_running_mean");
        }
        Results outputs = add_batchnorm(*graph, x, scale, bias, o);
        *out_y = outputs[0];
        *out_mean = outputs[1];
        *out_inv_variance = outputs[2];
        if (out_next_running_mean) *out_next_running_mean = running ? outputs[3] : nullptr;
        if (out_next_running_var) *out_next_running_var = running ? outputs[4] : nullptr;
    });
}

FE_EXPORT fe_status fe_graph_batchnorm_inference(fe_graph *graph, fe_tensor *x, fe_tensor *mean,
                                                 fe_tensor *inv_variance, fe_tensor *scale, fe_tensor *bias,
                                                 const fe_batchnorm_inference_options *options, fe_tensor **out_y) {
    return guard("fe_graph_batchnorm_inference", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(x);
        FE_REQUIRE(mean);
        FE_REQUIRE(inv_variance);
        FE_REQUIRE(scale);
        FE_REQUIRE(bias);
        FE_REQUIRE(out_y);
        const fe_batchnorm_inference_options defaults = FE_BATCHNORM_INFERENCE_OPTIONS_INIT;
        fe_batchnorm_inference_options o = read_options(options, defaults);
        *out_y = add_batchnorm_inference(*graph, x, mean, inv_variance, scale, bias, o)[0];
    });
}

FE_EXPORT fe_status fe_graph_layernorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *scale,
                                                fe_tensor *mean, fe_tensor *inv_variance,
                                                const fe_norm_backward_options *options, fe_tensor **out_dx,
                                                fe_tensor **out_dscale, fe_tensor **out_dbias) {
    return guard("fe_graph_layernorm_backward", [&] {
        FE_REQUIRE(mean);
        FE_REQUIRE(inv_variance);
        norm_backward(graph, dy, x, scale, mean, inv_variance, options, "layernorm_backward",
                      out_dx, out_dscale, out_dbias, false);
    });
}

FE_EXPORT fe_status fe_graph_rmsnorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *scale,
                                              fe_tensor *inv_rms, const fe_norm_backward_options *options,
                                              fe_tensor **out_dx, fe_tensor **out_dscale, fe_tensor **out_dbias) {
    return guard("fe_graph_rmsnorm_backward", [&] {
        FE_REQUIRE(inv_rms);
        norm_backward(graph, dy, x, scale, nullptr, inv_rms, options, "rmsnorm_backward",
                      out_dx, out_dscale, out_dbias, true);
    });
}

FE_EXPORT fe_status fe_graph_instancenorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *scale,
                                                   fe_tensor *mean, fe_tensor *inv_variance,
                                                   const fe_norm_backward_options *options, fe_tensor **out_dx,
                                                   fe_tensor **out_dscale, fe_tensor **out_dbias) {
    return guard("fe_graph_instancenorm_backward", [&] {
        FE_REQUIRE(mean);
        FE_REQUIRE(inv_variance);
        norm_backward(graph, dy, x, scale, mean, inv_variance, options, "instancenorm_backward", out_dx, out_dscale, out_dbias, false);
    });
}

FE_EXPORT fe_status fe_graph_adalayernorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *scale,
                                                   fe_tensor *mean, fe_tensor *inv_variance,
                                                   const fe_norm_backward_options *options, fe_tensor **out_dx,
                                                   fe_tensor **out_dscale, fe_tensor **out_dbias) {
    return guard("fe_graph_adalayernorm_backward", [&] {
        FE_REQUIRE(mean);
        FE_REQUIRE(inv_variance);
        norm_backward(graph, dy, x, scale, mean, inv_variance, options, "adalayernorm_backward", out_dx, out_dscale, out_dbias, true);
    });
}

FE_EXPORT fe_status fe_graph_batchnorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *scale,
                                                fe_tensor *mean, fe_tensor *inv_variance,
                                                const fe_norm_backward_options *options, fe_tensor **out_dx,
                                                fe_tensor **out_dscale, fe_tensor **out_dbias) {
    return guard("fe_graph_batchnorm_backward", [&] {
        FE_REQUIRE(mean);
        FE_REQUIRE(inv_variance);
        norm_backward(graph, dy, x, scale, mean, inv_variance, options, "batchnorm_backward",
                      out_dx, out_dscale, out_dbias, false);
    });
}

FE_EXPORT fe_status fe_graph_softmax(fe_graph *graph, fe_tensor *x, const fe_softmax_options *options,
                                     fe_tensor **out_y, fe_tensor **out_stats) {
    return guard("fe_graph_softmax", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(x);
        FE_REQUIRE(out_y);
        const fe_softmax_options defaults = FE_SOFTMAX_OPTIONS_INIT;
        fe_softmax_options o = read_options(options, defaults);
        FE_CHECK(!o.generate_stats || out_stats, FE_STATUS_NULL_POINTER,
                 "options.generate_stats is set but out_stats is NULL");
        Results outputs = add_softmax(*graph, x, o);
        *out_y = outputs[0];
        if (out_stats) *out_stats = o.generate_stats ? outputs[1] : nullptr;
    });
}

// Random draws and FP8 matmul.
FE_EXPORT fe_status fe_graph_rng(fe_graph *graph, fe_tensor *seed, fe_tensor *offset, const fe_rng_options *options,
                                 fe_tensor **out_y) {
    return guard("fe_graph_rng", [&] {
        FE_REQUIRE(graph);
        FE_CHECK(seed != nullptr, FE_STATUS_NULL_POINTER,
                 "argument 'seed' is NULL: a draw needs an int64 seed tensor of one element (or fe_graph_scalar)");
        FE_CHECK(offset != nullptr, FE_STATUS_NULL_POINTER,
                 "argument 'offset' is NULL: a draw needs an int64 offset tensor of one element (or fe_graph_scalar)");
        FE_CHECK(options != nullptr, FE_STATUS_NULL_POINTER,
                 "argument 'options' is NULL: a draw needs its distribution and dims (FE_RNG_OPTIONS_INIT)");
        FE_REQUIRE(out_y);
        const fe_rng_options defaults = FE_RNG_OPTIONS_INIT;
        fe_rng_options o = read_options(options, defaults);
        *out_y = add_rng(*graph, seed, offset, o)[0];
    });
}

FE_EXPORT fe_status fe_graph_matmul_fp8(fe_graph *graph, fe_tensor *a, fe_tensor *b,
                                        const fe_matmul_fp8_scales *scales, const fe_matmul_options *options,
                                        fe_tensor **out_c, fe_tensor **out_amax_c) {
    return guard("fe_graph_matmul_fp8", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(a);
        FE_REQUIRE(b);
        FE_REQUIRE(scales);
        FE_REQUIRE(out_c);
        FE_REQUIRE(out_amax_c);
        const fe_matmul_options defaults = FE_MATMUL_OPTIONS_INIT;
        fe_matmul_options o = read_options(options, defaults);
        const fe_matmul_fp8_scales no_scales = FE_MATMUL_FP8_SCALES_INIT;
        fe_matmul_fp8_scales s = read_options(scales, no_scales);
        Results outputs = add_matmul_fp8(*graph, a, b, s, o);
        *out_c = outputs[0];
        *out_amax_c = outputs[1];
    });
}

FE_EXPORT fe_status fe_graph_block_scale_quantize(fe_graph *graph, fe_tensor *x, const fe_block_scale_options *options,
                                                  fe_tensor **out_y, fe_tensor **out_scale) {
    return guard("fe_graph_block_scale_quantize", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(x);
        FE_REQUIRE(out_y);
        FE_REQUIRE(out_scale);
        const fe_block_scale_options defaults = FE_BLOCK_SCALE_OPTIONS_INIT;
        fe_block_scale_options o = read_options(options, defaults);
        Results outputs = add_block_scale_quantize(*graph, x, o);
        *out_y = outputs[0];
        *out_scale = outputs[1];
    });
}

FE_EXPORT fe_status fe_graph_block_scale_dequantize(fe_graph *graph, fe_tensor *x, fe_tensor *scale,
                                                    const fe_block_scale_options *options, fe_tensor **out_y) {
    return guard("fe_graph_block_scale_dequantize", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(x);
        FE_REQUIRE(scale);
        FE_REQUIRE(out_y);
        const fe_block_scale_options defaults = FE_BLOCK_SCALE_OPTIONS_INIT;
        fe_block_scale_options o = read_options(options, defaults);
        *out_y = add_block_scale_dequantize(*graph, x, scale, o)[0];
    });
}
