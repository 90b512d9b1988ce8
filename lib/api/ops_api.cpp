// Operation entry points: each validates its arguments, builds the node, infers its result.
#include <map>
#include <string>
#include <vector>

#include "api/guard.hpp"
#include "graph/graph.hpp"
#include "ops/ops.hpp"

using namespace fe;

namespace {

// A failed operation call must not use up an automatic name ("relu_0"): the counters are put
// back unless the node was added.
class NameReservation {
  public:
    explicit NameReservation(fe_graph *graph) : graph_(graph), saved_(graph->kind_counters) {}
    ~NameReservation() {
        if (!committed_) graph_->kind_counters = saved_;
    }
    void commit() { committed_ = true; }

  private:
    fe_graph *graph_;
    std::map<std::string, int> saved_;
    bool committed_ = false;
};

fe_tensor *add(fe_graph *graph, std::unique_ptr<Node> node, const char *given_name, const char *kind,
               const char *port) {
    NameReservation reservation(graph);
    node->name = graph->unique_node_name(given_name, kind);
    graph->add_node(std::move(node), {port});
    reservation.commit();
    return graph->nodes.back()->outputs[0];
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
    auto node = make_pointwise(mode, a, b, c, o);
    *out_y = add(graph, std::move(node), o.name, pointwise_mode_name(mode), "Y");
}

// The pointwise conveniences (bias, add, relu, ...): one node of `mode`, named by the options
// or automatically after `kind` (NULL: the mode's name).
void convenience(fe_graph *graph, fe_pointwise_mode mode, const char *kind, fe_tensor *a, fe_tensor *b,
                 const fe_pointwise_options *options, fe_tensor **out_y) {
    FE_REQUIRE(graph);
    FE_REQUIRE(out_y);
    fe_pointwise_options o = read_options(options, pointwise_defaults());
    *out_y = add(graph, make_pointwise(mode, a, b, nullptr, o), o.name, kind ? kind : pointwise_mode_name(mode), "Y");
}

}  // namespace

namespace {

fe_conv_options conv_options(const fe_conv_options *given) {
    const fe_conv_options defaults = FE_CONV_OPTIONS_INIT;
    return read_options(given, defaults);
}

// The dims of a convolution result that the caller gives (dgrad's dx, wgrad's dw).
std::vector<int64_t> conv_dims(size_t ndims, const int64_t *dims, const char *what) {
    FE_CHECK(ndims >= 3 && ndims <= 5, FE_STATUS_INVALID_ARGUMENT,
             "%s has %zu dims; a convolution's tensors have 3 to 5 ([N, C, spatial...])", what, ndims);
    std::vector<int64_t> out(dims, dims + ndims);
    for (size_t i = 0; i < ndims; ++i)
        FE_CHECK(out[i] > 0, FE_STATUS_INVALID_ARGUMENT, "%s[%zu] is %lld; dims must be positive", what, i,
                 static_cast<long long>(out[i]));
    return out;
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
        *out_y = add(graph, make_conv_fprop(image, weight, o), o.name, "conv_fprop", "Y");
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
        *out_dx = add(graph, make_conv_dgrad(loss, weight, conv_dims(dx_ndims, dx_dims, "dx_dims"), o), o.name,
                      "conv_dgrad", "DX");
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
        std::vector<int64_t> dims = dw_dims ? conv_dims(dw_ndims, dw_dims, "dw_dims") : std::vector<int64_t>();
        *out_dw = add(graph, make_conv_wgrad(image, loss, dims, o), o.name, "conv_wgrad", "DW");
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
        *out_y = add(graph, make_conv_transpose(image, weight, o), o.name, "conv_transpose", "Y");
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
        *out_c = add(graph, make_matmul(a, b, o), o.name, "matmul", "C");
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
        *out_y = add(graph, make_reduction(input, mode, o), o.name, "reduction", "Y");
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
        auto node = make_sdpa(q, k, v, o);
        NameReservation reservation(graph);
        node->name = graph->unique_node_name(o.name, "sdpa");
        std::vector<const char *> ports = {"O"};
        if (o.generate_stats) ports.push_back("Stats");
        if (o.output_dropout_mask) ports.push_back("DropoutMask");
        graph->add_node(std::move(node), ports);
        reservation.commit();
        const auto &outputs = graph->nodes.back()->outputs;
        if (o.generate_stats) {
            // The stats are float whatever the io type (the user may still override).
            outputs[1]->data_type = FE_DATA_FLOAT;
            outputs[1]->user_data_type = true;
        }
        if (o.output_dropout_mask) {
            // cuDNN draws the mask in float (0 or 1); the user may override.
            outputs.back()->data_type = FE_DATA_FLOAT;
            outputs.back()->user_data_type = true;
        }
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
        auto node = make_sdpa_fp8(q, k, v, s, o);
        NameReservation reservation(graph);
        node->name = graph->unique_node_name(o.name, "sdpa_fp8");
        std::vector<const char *> ports = {"O"};
        if (o.generate_stats) ports.push_back("Stats");
        ports.push_back("Amax_S");
        ports.push_back("Amax_O");
        if (o.output_dropout_mask) ports.push_back("DropoutMask");
        graph->add_node(std::move(node), ports);
        reservation.commit();
        const auto &outputs = graph->nodes.back()->outputs;
        // Stats, amax values and a drawn mask are float whatever the io type (the user may override).
        for (size_t i = 1; i < outputs.size(); ++i) {
            outputs[i]->data_type = FE_DATA_FLOAT;
            outputs[i]->user_data_type = true;
        }
        if (outputs[0]->data_type == FE_DATA_NOT_SET && q->data_type != FE_DATA_NOT_SET) {
            outputs[0]->data_type = q->data_type;  // O in Q's FP8 type unless the user says otherwise
        }
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
        auto node = make_sdpa_fp8_backward(q, k, v, o, d_o, stats, s, opts);
        NameReservation reservation(graph);
        node->name = graph->unique_node_name(opts.name, "sdpa_fp8_backward");
        graph->add_node(std::move(node), {"dQ", "dK", "dV", "Amax_dQ", "Amax_dK", "Amax_dV", "Amax_dP"});
        reservation.commit();
        const auto &outputs = graph->nodes.back()->outputs;
        for (size_t i = 0; i < 3; ++i)  // gradients in the FP8 type of what they differentiate, unless overridden
            if (outputs[i]->data_type == FE_DATA_NOT_SET) outputs[i]->data_type = (i == 0 ? q : i == 1 ? k : v)->data_type;
        for (size_t i = 3; i < 7; ++i) {
            outputs[i]->data_type = FE_DATA_FLOAT;
            outputs[i]->user_data_type = true;
        }
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
        auto node = make_sdpa_backward(q, k, v, o, d_o, stats, opts);
        NameReservation reservation(graph);
        node->name = graph->unique_node_name(opts.name, "sdpa_backward");
        std::vector<const char *> ports = {"dQ", "dK", "dV"};
        if (opts.output_dbias) ports.push_back("dBias");
        graph->add_node(std::move(node), ports);
        reservation.commit();
        const auto &outputs = graph->nodes.back()->outputs;
        if (opts.output_dbias && opts.bias && opts.bias->data_type != FE_DATA_NOT_SET) {
            outputs[3]->data_type = opts.bias->data_type;  // like the bias; the user may override
            outputs[3]->user_data_type = true;
        }
        *out_dq = outputs[0];
        *out_dk = outputs[1];
        *out_dv = outputs[2];
    });
}

// ---- Normalizations ----------------------------------------------------------------------------

namespace {

// Add a node with several result ports; returns its results in port order.
const std::vector<fe_tensor *> &add_with_ports(fe_graph *graph, std::unique_ptr<Node> node, const char *given_name,
                                               const char *kind, const std::vector<const char *> &ports) {
    NameReservation reservation(graph);
    node->name = graph->unique_node_name(given_name, kind);
    graph->add_node(std::move(node), ports);
    reservation.commit();
    return graph->nodes.back()->outputs;
}

// Statistics are float whatever the io type (the user may still override).
void keep_float(fe_tensor *t) {
    t->data_type = FE_DATA_FLOAT;
    t->user_data_type = true;
}

// Gradients of scale and bias take scale's type when it has one (else the graph's defaults).
void like_scale(fe_tensor *t, const fe_tensor *scale) {
    if (scale->data_type == FE_DATA_NOT_SET) return;
    t->data_type = scale->data_type;
    t->user_data_type = true;
}

using NormFactory = std::unique_ptr<Node> (*)(fe_tensor *, fe_tensor *, fe_tensor *, const fe_norm_options &);

// What the forward norms other than batchnorm share: y, and in training the statistics.
// out_mean is nullptr for rmsnorm, which has none.
void norm_forward(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias, const fe_norm_options *options,
                  NormFactory make, const char *kind, const char *inv_port, const char *inv_argument,
                  fe_tensor **out_y, fe_tensor **out_mean, bool has_mean, fe_tensor **out_inv) {
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
    std::vector<const char *> ports = {"Y"};
    if (training && has_mean) ports.push_back("Mean");
    if (training) ports.push_back(inv_port);
    const std::vector<fe_tensor *> &outputs = add_with_ports(graph, make(x, scale, bias, o), o.name, kind, ports);
    for (size_t i = 1; i < outputs.size(); ++i) keep_float(outputs[i]);
    *out_y = outputs[0];
    if (out_mean) *out_mean = training && has_mean ? outputs[1] : nullptr;
    if (out_inv) *out_inv = training ? outputs.back() : nullptr;
}

using NormBackwardFactory = std::unique_ptr<Node> (*)(fe_tensor *, fe_tensor *, fe_tensor *, fe_tensor *, fe_tensor *,
                                                      const fe_norm_backward_options &);

// The backward norms: dx, dscale and (unless out_dbias may be and is NULL) dbias.
void norm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *scale, fe_tensor *mean, fe_tensor *inv,
                   const fe_norm_backward_options *options, NormBackwardFactory make, const char *kind,
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
    std::vector<const char *> ports = {"DX", "DScale"};
    if (out_dbias) ports.push_back("DBias");
    const std::vector<fe_tensor *> &outputs = add_with_ports(graph, make(dy, x, scale, mean, inv, o), o.name, kind, ports);
    for (size_t i = 1; i < outputs.size(); ++i) like_scale(outputs[i], scale);
    *out_dx = outputs[0];
    *out_dscale = outputs[1];
    if (out_dbias) *out_dbias = outputs[2];
}

std::unique_ptr<Node> rmsnorm_backward_adapter(fe_tensor *dy, fe_tensor *x, fe_tensor *scale, fe_tensor *,
                                               fe_tensor *inv_rms, const fe_norm_backward_options &o) {
    return make_rmsnorm_backward(dy, x, scale, inv_rms, o);
}

}  // namespace

FE_EXPORT fe_status fe_graph_layernorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                       const fe_norm_options *options, fe_tensor **out_y, fe_tensor **out_mean,
                                       fe_tensor **out_inv_variance) {
    return guard("fe_graph_layernorm", [&] {
        FE_REQUIRE(bias);
        norm_forward(graph, x, scale, bias, options, make_layernorm, "layernorm", "InvVariance", "out_inv_variance",
                     out_y, out_mean, true, out_inv_variance);
    });
}

FE_EXPORT fe_status fe_graph_rmsnorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                     const fe_norm_options *options, fe_tensor **out_y, fe_tensor **out_inv_rms) {
    return guard("fe_graph_rmsnorm", [&] {
        norm_forward(graph, x, scale, bias, options, make_rmsnorm, "rmsnorm", "InvRms", "out_inv_rms", out_y, nullptr,
                     false, out_inv_rms);
    });
}

FE_EXPORT fe_status fe_graph_instancenorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                          const fe_norm_options *options, fe_tensor **out_y, fe_tensor **out_mean,
                                          fe_tensor **out_inv_variance) {
    return guard("fe_graph_instancenorm", [&] {
        FE_REQUIRE(bias);
        norm_forward(graph, x, scale, bias, options, make_instancenorm, "instancenorm", "InvVariance",
                     "out_inv_variance", out_y, out_mean, true, out_inv_variance);
    });
}

FE_EXPORT fe_status fe_graph_adalayernorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                          const fe_norm_options *options, fe_tensor **out_y, fe_tensor **out_mean,
                                          fe_tensor **out_inv_variance) {
    return guard("fe_graph_adalayernorm", [&] {
        norm_forward(graph, x, scale, bias, options, make_adalayernorm, "adalayernorm", "InvVariance",
                     "out_inv_variance", out_y, out_mean, true, out_inv_variance);
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
        std::vector<const char *> ports = {"Y", "Mean", "InvVariance"};
        if (running) ports.insert(ports.end(), {"NextRunningMean", "NextRunningVar"});
        const std::vector<fe_tensor *> &outputs =
            add_with_ports(graph, make_batchnorm(x, scale, bias, o), o.name, "batchnorm", ports);
        for (size_t i = 1; i < outputs.size(); ++i) keep_float(outputs[i]);
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
        *out_y = add(graph, make_batchnorm_inference(x, mean, inv_variance, scale, bias), o.name,
                     "batchnorm_inference", "Y");
    });
}

FE_EXPORT fe_status fe_graph_layernorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *scale,
                                                fe_tensor *mean, fe_tensor *inv_variance,
                                                const fe_norm_backward_options *options, fe_tensor **out_dx,
                                                fe_tensor **out_dscale, fe_tensor **out_dbias) {
    return guard("fe_graph_layernorm_backward", [&] {
        FE_REQUIRE(mean);
        FE_REQUIRE(inv_variance);
        norm_backward(graph, dy, x, scale, mean, inv_variance, options, make_layernorm_backward, "layernorm_backward",
                      out_dx, out_dscale, out_dbias, false);
    });
}

FE_EXPORT fe_status fe_graph_rmsnorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *scale,
                                              fe_tensor *inv_rms, const fe_norm_backward_options *options,
                                              fe_tensor **out_dx, fe_tensor **out_dscale, fe_tensor **out_dbias) {
    return guard("fe_graph_rmsnorm_backward", [&] {
        FE_REQUIRE(inv_rms);
        norm_backward(graph, dy, x, scale, nullptr, inv_rms, options, rmsnorm_backward_adapter, "rmsnorm_backward",
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
        norm_backward(graph, dy, x, scale, mean, inv_variance, options, make_instancenorm_backward,
                      "instancenorm_backward", out_dx, out_dscale, out_dbias, false);
    });
}

FE_EXPORT fe_status fe_graph_adalayernorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *scale,
                                                   fe_tensor *mean, fe_tensor *inv_variance,
                                                   const fe_norm_backward_options *options, fe_tensor **out_dx,
                                                   fe_tensor **out_dscale, fe_tensor **out_dbias) {
    return guard("fe_graph_adalayernorm_backward", [&] {
        FE_REQUIRE(mean);
        FE_REQUIRE(inv_variance);
        norm_backward(graph, dy, x, scale, mean, inv_variance, options, make_adalayernorm_backward,
                      "adalayernorm_backward", out_dx, out_dscale, out_dbias, true);
    });
}

FE_EXPORT fe_status fe_graph_batchnorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *scale,
                                                fe_tensor *mean, fe_tensor *inv_variance,
                                                const fe_norm_backward_options *options, fe_tensor **out_dx,
                                                fe_tensor **out_dscale, fe_tensor **out_dbias) {
    return guard("fe_graph_batchnorm_backward", [&] {
        FE_REQUIRE(mean);
        FE_REQUIRE(inv_variance);
        norm_backward(graph, dy, x, scale, mean, inv_variance, options, make_batchnorm_backward, "batchnorm_backward",
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
        std::vector<const char *> ports = {"Y"};
        if (o.generate_stats) ports.push_back("Stats");
        const std::vector<fe_tensor *> &outputs = add_with_ports(graph, make_softmax(x, o), o.name, "softmax", ports);
        if (o.generate_stats) keep_float(outputs[1]);
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
        *out_y = add(graph, make_rng(seed, offset, o), o.name, "rng", "Y");
        if (o.data_type != FE_DATA_NOT_SET) {
            (*out_y)->data_type = o.data_type;
            (*out_y)->user_data_type = true;
        }
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
        auto node = make_matmul_fp8(a, b, s, o);
        NameReservation reservation(graph);
        node->name = graph->unique_node_name(o.name, "matmul_fp8");
        graph->add_node(std::move(node), {"C", "Amax"});
        reservation.commit();
        const auto &outputs = graph->nodes.back()->outputs;
        outputs[1]->data_type = FE_DATA_FLOAT;  // amax is float whatever the io type
        outputs[1]->user_data_type = true;
        bool fp8_a = a->data_type == FE_DATA_FP8_E4M3 || a->data_type == FE_DATA_FP8_E5M2;
        if (outputs[0]->data_type == FE_DATA_NOT_SET && fp8_a) {
            outputs[0]->data_type = a->data_type;  // C in A's FP8 type unless the user says otherwise
        }
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
        auto node = make_block_scale_quantize(x, o);
        NameReservation reservation(graph);
        node->name = graph->unique_node_name(o.name, "block_scale_quantize");
        graph->add_node(std::move(node), {"Y", "Scale"});
        reservation.commit();
        const auto &outputs = graph->nodes.back()->outputs;
        outputs[0]->data_type = FE_DATA_FP8_E4M3;  // the user may set fp8_e5m2
        outputs[0]->user_data_type = true;
        outputs[1]->data_type = FE_DATA_FP8_E8M0;
        outputs[1]->user_data_type = true;
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
        *out_y = add(graph, make_block_scale_dequantize(x, scale, o), o.name, "block_scale_dequantize", "Y");
    });
}
