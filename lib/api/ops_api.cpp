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

}  // namespace

namespace {

// The conv option setters: n values for the first n spatial dims, which also fixes spatial_dims
// so that values for another rank are refused instead of silently left at their defaults.
void set_conv_values(fe_conv_options *options, size_t n, const int64_t *values, const char *what,
                     int64_t *first, int64_t *second) {
    FE_CHECK(n >= 1 && n <= FE_MAX_SPATIAL_DIMS, FE_STATUS_INVALID_ARGUMENT, "%zu spatial dims; 1 to %d allowed", n,
             FE_MAX_SPATIAL_DIMS);
    FE_CHECK(options->spatial_dims == 0 || options->spatial_dims == n, FE_STATUS_INVALID_ARGUMENT,
             "%s is given for %zu spatial dims but the options already have %zu", what, n, options->spatial_dims);
    for (size_t i = 0; i < n; ++i) {
        first[i] = values[i];
        if (second) second[i] = values[i];
    }
    options->spatial_dims = n;
}

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

FE_EXPORT fe_status fe_conv_options_set_padding(fe_conv_options *options, size_t n, const int64_t *padding) {
    return guard("fe_conv_options_set_padding", [&] {
        FE_REQUIRE(options);
        FE_REQUIRE(padding);
        set_conv_values(options, n, padding, "padding", options->pre_padding, options->post_padding);
    });
}

FE_EXPORT fe_status fe_conv_options_set_stride(fe_conv_options *options, size_t n, const int64_t *stride) {
    return guard("fe_conv_options_set_stride", [&] {
        FE_REQUIRE(options);
        FE_REQUIRE(stride);
        set_conv_values(options, n, stride, "stride", options->stride, nullptr);
    });
}

FE_EXPORT fe_status fe_conv_options_set_dilation(fe_conv_options *options, size_t n, const int64_t *dilation) {
    return guard("fe_conv_options_set_dilation", [&] {
        FE_REQUIRE(options);
        FE_REQUIRE(dilation);
        set_conv_values(options, n, dilation, "dilation", options->dilation, nullptr);
    });
}

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

FE_EXPORT fe_status fe_graph_bias(fe_graph *graph, fe_tensor *input, fe_tensor *bias, fe_tensor **out_y) {
    return guard("fe_graph_bias", [&] {
        FE_REQUIRE(input);
        FE_REQUIRE(bias);
        fe_pointwise_options o = pointwise_defaults();
        o.name = nullptr;
        FE_REQUIRE(graph);
        FE_REQUIRE(out_y);
        *out_y = add(graph, make_pointwise(FE_POINTWISE_ADD, input, bias, nullptr, o), nullptr, "bias", "Y");
    });
}

FE_EXPORT fe_status fe_graph_scale(fe_graph *graph, fe_tensor *input, fe_tensor *scale, fe_tensor **out_y) {
    return guard("fe_graph_scale", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(input);
        FE_REQUIRE(scale);
        FE_REQUIRE(out_y);
        *out_y = add(graph, make_pointwise(FE_POINTWISE_MUL, input, scale, nullptr, pointwise_defaults()), nullptr,
                     "scale", "Y");
    });
}

FE_EXPORT fe_status fe_graph_add(fe_graph *graph, fe_tensor *a, fe_tensor *b, fe_tensor **out_y) {
    return guard("fe_graph_add", [&] {
        FE_REQUIRE(a);
        FE_REQUIRE(b);
        pointwise(graph, FE_POINTWISE_ADD, a, b, nullptr, nullptr, out_y);
    });
}

FE_EXPORT fe_status fe_graph_mul(fe_graph *graph, fe_tensor *a, fe_tensor *b, fe_tensor **out_y) {
    return guard("fe_graph_mul", [&] {
        FE_REQUIRE(a);
        FE_REQUIRE(b);
        pointwise(graph, FE_POINTWISE_MUL, a, b, nullptr, nullptr, out_y);
    });
}

FE_EXPORT fe_status fe_graph_relu(fe_graph *graph, fe_tensor *input, fe_tensor **out_y) {
    return guard("fe_graph_relu", [&] {
        FE_REQUIRE(input);
        pointwise(graph, FE_POINTWISE_RELU_FWD, input, nullptr, nullptr, nullptr, out_y);
    });
}

FE_EXPORT fe_status fe_graph_gelu(fe_graph *graph, fe_tensor *input, fe_tensor **out_y) {
    return guard("fe_graph_gelu", [&] {
        FE_REQUIRE(input);
        pointwise(graph, FE_POINTWISE_GELU_FWD, input, nullptr, nullptr, nullptr, out_y);
    });
}

FE_EXPORT fe_status fe_graph_silu(fe_graph *graph, fe_tensor *input, fe_tensor **out_y) {
    return guard("fe_graph_silu", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(input);
        FE_REQUIRE(out_y);
        fe_pointwise_options o = pointwise_defaults();
        o.swish_beta = 1.0;
        *out_y = add(graph, make_pointwise(FE_POINTWISE_SWISH_FWD, input, nullptr, nullptr, o), nullptr, "silu", "Y");
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
        graph->add_node(std::move(node), {"dQ", "dK", "dV"});
        reservation.commit();
        const auto &outputs = graph->nodes.back()->outputs;
        *out_dq = outputs[0];
        *out_dk = outputs[1];
        *out_dv = outputs[2];
    });
}
