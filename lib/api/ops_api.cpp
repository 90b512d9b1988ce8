// Operation entry points: each validates its arguments, builds the node, infers its result.
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "api/described_entry.hpp"
#include "api/guard.hpp"
#include "graph/graph.hpp"
#include "ops/graph_ops.hpp"
#include "ops/ops.hpp"

using namespace fe;

namespace {

// An op's description, found once per entry point.
const schema::Op &described(const char *kind) {
    const schema::Op *op = schema::find_op(kind);
    if (!op || !op->add) std::abort();  // every op has one: the schema test says so
    return *op;
}

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
    static const schema::Op &op = described("conv_fprop");
    return add_described(op, graph, {image, weight}, options, {out_y});
}

FE_EXPORT fe_status fe_graph_conv_dgrad(fe_graph *graph, fe_tensor *loss, fe_tensor *weight, size_t dx_ndims,
                                        const int64_t *dx_dims, const fe_conv_options *options, fe_tensor **out_dx) {
    static const schema::Op &op = described("conv_dgrad");
    fe_status checked = guard("fe_graph_conv_dgrad", [&] {
        FE_CHECK(dx_dims != nullptr, FE_STATUS_NULL_POINTER,
                 "argument 'dx_dims' is NULL: dx's dims cannot be inferred (with a stride above 1 several image "
                 "sizes give the same dy), so give the forward image's dims");
        dims_of(dx_ndims, dx_dims, "dx_dims");
    });
    if (checked != FE_OK) return checked;
    return add_described(op, graph, DescribedArguments{{loss, weight}, {{dims_of(dx_ndims, dx_dims, "dx_dims"), 0}}},
                         options, {out_dx});
}

FE_EXPORT fe_status fe_graph_conv_wgrad(fe_graph *graph, fe_tensor *image, fe_tensor *loss, size_t dw_ndims,
                                        const int64_t *dw_dims, const fe_conv_options *options, fe_tensor **out_dw) {
    static const schema::Op &op = described("conv_wgrad");
    std::vector<int64_t> dims;
    fe_status checked = guard("fe_graph_conv_wgrad", [&] {
        if (dw_dims) dims = dims_of(dw_ndims, dw_dims, "dw_dims");
    });
    if (checked != FE_OK) return checked;
    return add_described(op, graph, DescribedArguments{{image, loss}, {{dims, 0}}}, options, {out_dw});
}

FE_EXPORT fe_status fe_graph_conv_transpose(fe_graph *graph, fe_tensor *image, fe_tensor *weight,
                                            const fe_conv_options *options, fe_tensor **out_y) {
    static const schema::Op &op = described("conv_transpose");
    return add_described(op, graph, {image, weight}, options, {out_y});
}

FE_EXPORT fe_status fe_graph_matmul(fe_graph *graph, fe_tensor *a, fe_tensor *b, const fe_matmul_options *options,
                                    fe_tensor **out_c) {
    static const schema::Op &op = described("matmul");
    return add_described(op, graph, {a, b}, options, {out_c});
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

FE_EXPORT fe_status fe_graph_reduction(fe_graph *graph, fe_tensor *x, fe_reduction_mode mode,
                                       const fe_reduction_options *options, fe_tensor **out_y) {
    return guard("fe_graph_reduction", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(x);
        FE_REQUIRE(options);
        FE_REQUIRE(out_y);
        const fe_reduction_options defaults = FE_REDUCTION_OPTIONS_INIT;
        fe_reduction_options o = read_options(options, defaults);
        *out_y = add_reduction(*graph, x, mode, o)[0];
    });
}

FE_EXPORT fe_status fe_graph_sdpa(fe_graph *graph, fe_tensor *q, fe_tensor *k, fe_tensor *v,
                                  const fe_sdpa_options *options, fe_tensor **out_o, fe_tensor **out_stats) {
    static const schema::Op &op = described("sdpa");
    return add_described(op, graph, {q, k, v}, options, {out_o, out_stats});
}

FE_EXPORT fe_status fe_graph_sdpa_fp8(fe_graph *graph, fe_tensor *q, fe_tensor *k, fe_tensor *v,
                                      const fe_sdpa_fp8_scales *scales, const fe_sdpa_options *options,
                                      fe_tensor **out_o, fe_tensor **out_stats, fe_tensor **out_amax_s,
                                      fe_tensor **out_amax_o) {
    static const schema::Op &op = described("sdpa_fp8");
    return add_described(op, graph, DescribedArguments{{q, k, v}, {}, scales}, options, {out_o, out_stats, out_amax_s, out_amax_o});
}

FE_EXPORT fe_status fe_graph_sdpa_fp8_backward(fe_graph *graph, fe_tensor *q, fe_tensor *k, fe_tensor *v, fe_tensor *o,
                                               fe_tensor *d_o, fe_tensor *stats,
                                               const fe_sdpa_fp8_backward_scales *scales,
                                               const fe_sdpa_backward_options *options, fe_tensor **out_dq,
                                               fe_tensor **out_dk, fe_tensor **out_dv, fe_tensor **out_amax_dq,
                                               fe_tensor **out_amax_dk, fe_tensor **out_amax_dv,
                                               fe_tensor **out_amax_dp) {
    static const schema::Op &op = described("sdpa_fp8_backward");
    return add_described(op, graph, DescribedArguments{{q, k, v, o, d_o, stats}, {}, scales}, options, {out_dq, out_dk, out_dv, out_amax_dq, out_amax_dk, out_amax_dv, out_amax_dp});
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
    static const schema::Op &op = described("sdpa_backward");
    return add_described(op, graph, {q, k, v, o, d_o, stats}, options, {out_dq, out_dk, out_dv});
}

// ---- Normalizations ----------------------------------------------------------------------------

FE_EXPORT fe_status fe_graph_layernorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                       const fe_norm_options *options, fe_tensor **out_y, fe_tensor **out_mean,
                                       fe_tensor **out_inv_variance) {
    static const schema::Op &op = described("layernorm");
    return add_described(op, graph, {x, scale, bias}, options, {out_y, out_mean, out_inv_variance});
}

FE_EXPORT fe_status fe_graph_rmsnorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                     const fe_norm_options *options, fe_tensor **out_y, fe_tensor **out_inv_rms) {
    static const schema::Op &op = described("rmsnorm");
    return add_described(op, graph, {x, scale, bias}, options, {out_y, out_inv_rms});
}

FE_EXPORT fe_status fe_graph_instancenorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                          const fe_norm_options *options, fe_tensor **out_y, fe_tensor **out_mean,
                                          fe_tensor **out_inv_variance) {
    static const schema::Op &op = described("instancenorm");
    return add_described(op, graph, {x, scale, bias}, options, {out_y, out_mean, out_inv_variance});
}

FE_EXPORT fe_status fe_graph_adalayernorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                          const fe_norm_options *options, fe_tensor **out_y, fe_tensor **out_mean,
                                          fe_tensor **out_inv_variance) {
    static const schema::Op &op = described("adalayernorm");
    return add_described(op, graph, {x, scale, bias}, options, {out_y, out_mean, out_inv_variance});
}

FE_EXPORT fe_status fe_graph_batchnorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                       const fe_batchnorm_options *options, fe_tensor **out_y, fe_tensor **out_mean,
                                       fe_tensor **out_inv_variance, fe_tensor **out_next_running_mean,
                                       fe_tensor **out_next_running_var) {
    static const schema::Op &op = described("batchnorm");
    return add_described(op, graph, {x, scale, bias}, options, {out_y, out_mean, out_inv_variance, out_next_running_mean, out_next_running_var});
}

FE_EXPORT fe_status fe_graph_batchnorm_inference(fe_graph *graph, fe_tensor *x, fe_tensor *mean,
                                                 fe_tensor *inv_variance, fe_tensor *scale, fe_tensor *bias,
                                                 const fe_batchnorm_inference_options *options, fe_tensor **out_y) {
    static const schema::Op &op = described("batchnorm_inference");
    return add_described(op, graph, {x, mean, inv_variance, scale, bias}, options, {out_y});
}

FE_EXPORT fe_status fe_graph_layernorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *scale,
                                                fe_tensor *mean, fe_tensor *inv_variance,
                                                const fe_norm_backward_options *options, fe_tensor **out_dx,
                                                fe_tensor **out_dscale, fe_tensor **out_dbias) {
    static const schema::Op &op = described("layernorm_backward");
    return add_described(op, graph, {dy, x, scale, mean, inv_variance}, options, {out_dx, out_dscale, out_dbias});
}

FE_EXPORT fe_status fe_graph_rmsnorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *scale,
                                              fe_tensor *inv_rms, const fe_norm_backward_options *options,
                                              fe_tensor **out_dx, fe_tensor **out_dscale, fe_tensor **out_dbias) {
    static const schema::Op &op = described("rmsnorm_backward");
    return add_described(op, graph, {dy, x, scale, inv_rms}, options, {out_dx, out_dscale, out_dbias});
}

FE_EXPORT fe_status fe_graph_instancenorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *scale,
                                                   fe_tensor *mean, fe_tensor *inv_variance,
                                                   const fe_norm_backward_options *options, fe_tensor **out_dx,
                                                   fe_tensor **out_dscale, fe_tensor **out_dbias) {
    static const schema::Op &op = described("instancenorm_backward");
    return add_described(op, graph, {dy, x, scale, mean, inv_variance}, options, {out_dx, out_dscale, out_dbias});
}

FE_EXPORT fe_status fe_graph_adalayernorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *scale,
                                                   fe_tensor *mean, fe_tensor *inv_variance,
                                                   const fe_norm_backward_options *options, fe_tensor **out_dx,
                                                   fe_tensor **out_dscale, fe_tensor **out_dbias) {
    static const schema::Op &op = described("adalayernorm_backward");
    return add_described(op, graph, {dy, x, scale, mean, inv_variance}, options, {out_dx, out_dscale, out_dbias});
}

FE_EXPORT fe_status fe_graph_batchnorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *scale,
                                                fe_tensor *mean, fe_tensor *inv_variance,
                                                const fe_norm_backward_options *options, fe_tensor **out_dx,
                                                fe_tensor **out_dscale, fe_tensor **out_dbias) {
    static const schema::Op &op = described("batchnorm_backward");
    return add_described(op, graph, {dy, x, scale, mean, inv_variance}, options, {out_dx, out_dscale, out_dbias});
}

FE_EXPORT fe_status fe_graph_softmax(fe_graph *graph, fe_tensor *x, const fe_softmax_options *options,
                                     fe_tensor **out_y, fe_tensor **out_stats) {
    static const schema::Op &op = described("softmax");
    return add_described(op, graph, {x}, options, {out_y, out_stats});
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
                                        fe_tensor **out_c, fe_tensor **out_amax) {
    static const schema::Op &op = described("matmul_fp8");
    return add_described(op, graph, DescribedArguments{{a, b}, {}, scales}, options, {out_c, out_amax});
}

FE_EXPORT fe_status fe_graph_block_scale_quantize(fe_graph *graph, fe_tensor *x, const fe_block_scale_options *options,
                                                  fe_tensor **out_y, fe_tensor **out_scale) {
    static const schema::Op &op = described("block_scale_quantize");
    return add_described(op, graph, {x}, options, {out_y, out_scale});
}

FE_EXPORT fe_status fe_graph_block_scale_dequantize(fe_graph *graph, fe_tensor *x, fe_tensor *scale,
                                                    const fe_block_scale_options *options, fe_tensor **out_y) {
    static const schema::Op &op = described("block_scale_dequantize");
    return add_described(op, graph, {x, scale}, options, {out_y});
}

FE_EXPORT fe_status fe_graph_bn_finalize(fe_graph *graph, fe_tensor *sum, fe_tensor *sq_sum, fe_tensor *scale,
                                         fe_tensor *bias, fe_tensor *running_mean, fe_tensor *running_var,
                                         const fe_bn_finalize_options *options, fe_tensor **out_eq_scale,
                                         fe_tensor **out_eq_bias, fe_tensor **out_mean, fe_tensor **out_inv_variance,
                                         fe_tensor **out_next_running_mean, fe_tensor **out_next_running_var) {
    static const schema::Op &op = described("bn_finalize");
    return add_described(op, graph, {sum, sq_sum, scale, bias, running_mean, running_var}, options,
                         {out_eq_scale, out_eq_bias, out_mean, out_inv_variance, out_next_running_mean,
                          out_next_running_var});
}

FE_EXPORT fe_status fe_graph_dbn_weight(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *mean,
                                        fe_tensor *inv_variance, fe_tensor *scale,
                                        const fe_dbn_weight_options *options, fe_tensor **out_dscale,
                                        fe_tensor **out_dbias, fe_tensor **out_eq_scale_dy,
                                        fe_tensor **out_eq_scale_x, fe_tensor **out_eq_bias) {
    static const schema::Op &op = described("dbn_weight");
    return add_described(op, graph, {dy, x, mean, inv_variance, scale}, options,
                         {out_dscale, out_dbias, out_eq_scale_dy, out_eq_scale_x, out_eq_bias});
}

FE_EXPORT fe_status fe_graph_genstats(fe_graph *graph, fe_tensor *x, const fe_genstats_options *options,
                                      fe_tensor **out_sum, fe_tensor **out_sq_sum) {
    static const schema::Op &op = described("genstats");
    return add_described(op, graph, {x}, options, {out_sum, out_sq_sum});
}

FE_EXPORT fe_status fe_graph_moe_grouped_matmul(fe_graph *graph, fe_tensor *token, fe_tensor *weight,
                                                fe_tensor *first_token_offset,
                                                const fe_moe_grouped_matmul_options *options, fe_tensor **out_y) {
    static const schema::Op &op = described("moe_grouped_matmul");
    return add_described(op, graph, {token, weight, first_token_offset}, options, {out_y});
}
