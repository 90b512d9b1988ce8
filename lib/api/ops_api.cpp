// Operation entry points: each validates its arguments, builds the node, infers its result.
#include <map>
#include <string>

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

FE_EXPORT fe_status fe_conv_options_set_padding(fe_conv_options *options, size_t n, const int64_t *padding) {
    return guard("fe_conv_options_set_padding", [&] {
        FE_REQUIRE(options);
        FE_REQUIRE(padding);
        FE_CHECK(n >= 1 && n <= FE_MAX_SPATIAL_DIMS, FE_STATUS_INVALID_ARGUMENT, "%zu spatial dims; 1 to %d allowed", n,
                 FE_MAX_SPATIAL_DIMS);
        for (size_t i = 0; i < n; ++i) options->pre_padding[i] = options->post_padding[i] = padding[i];
    });
}

FE_EXPORT fe_status fe_graph_conv_fprop(fe_graph *graph, fe_tensor *image, fe_tensor *weight,
                                        const fe_conv_options *options, fe_tensor **out_y) {
    return guard("fe_graph_conv_fprop", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(image);
        FE_REQUIRE(weight);
        FE_REQUIRE(out_y);
        const fe_conv_options defaults = FE_CONV_OPTIONS_INIT;
        fe_conv_options o = read_options(options, defaults);
        FE_CHECK(o.mode == FE_CONV_MODE_CONVOLUTION || o.mode == FE_CONV_MODE_CROSS_CORRELATION,
                 FE_STATUS_INVALID_ARGUMENT, "unknown convolution mode %d", static_cast<int>(o.mode));
        *out_y = add(graph, make_conv_fprop(image, weight, o), o.name, "conv_fprop", "Y");
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
