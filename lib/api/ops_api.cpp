// The pointwise conveniences (fe_graph_bias, fe_graph_add, fe_graph_relu, ...), each a mode of the
// pointwise description under a name of its own, and fe_alibi_slopes. Every op's own entry point is
// generated from its description (lib/api/generate_entry_points.py).
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

// A pointwise convenience (bias, add, relu, ...): one node of `mode` over its one or two operands
// (each named for the message of a NULL one), named by the options or automatically after `kind`
// (NULL: the mode's name).
struct Operand {
    fe_tensor *tensor;
    const char *name;
};

fe_status convenience(const char *function, fe_graph *graph, fe_pointwise_mode mode, const char *kind,
                      std::initializer_list<Operand> operands, const fe_pointwise_options *options,
                      fe_tensor **out_y) noexcept {
    return guard(function, [&] {
        for (const Operand &operand : operands)
            FE_CHECK(operand.tensor != nullptr, FE_STATUS_NULL_POINTER, "argument '%s' is NULL", operand.name);
        FE_REQUIRE(graph);
        FE_REQUIRE(out_y);
        fe_pointwise_options o = read_options(options, pointwise_defaults());
        fe_tensor *a = operands.begin()[0].tensor, *b = operands.size() > 1 ? operands.begin()[1].tensor : nullptr;
        *out_y = add_pointwise(*graph, mode, a, b, nullptr, o, kind)[0];
    });
}

}  // namespace

FE_EXPORT fe_status fe_graph_bias(fe_graph *graph, fe_tensor *input, fe_tensor *bias,
                                  const fe_pointwise_options *options, fe_tensor **out_y) {
    return convenience("fe_graph_bias", graph, FE_POINTWISE_ADD, "bias",
                      {{input, "input"}, {bias, "bias"}}, options, out_y);
}

FE_EXPORT fe_status fe_graph_scale(fe_graph *graph, fe_tensor *input, fe_tensor *scale,
                                   const fe_pointwise_options *options, fe_tensor **out_y) {
    return convenience("fe_graph_scale", graph, FE_POINTWISE_MUL, "scale",
                      {{input, "input"}, {scale, "scale"}}, options, out_y);
}

FE_EXPORT fe_status fe_graph_add(fe_graph *graph, fe_tensor *a, fe_tensor *b, const fe_pointwise_options *options,
                                 fe_tensor **out_y) {
    return convenience("fe_graph_add", graph, FE_POINTWISE_ADD, nullptr, {{a, "a"}, {b, "b"}}, options, out_y);
}

FE_EXPORT fe_status fe_graph_mul(fe_graph *graph, fe_tensor *a, fe_tensor *b, const fe_pointwise_options *options,
                                 fe_tensor **out_y) {
    return convenience("fe_graph_mul", graph, FE_POINTWISE_MUL, nullptr, {{a, "a"}, {b, "b"}}, options, out_y);
}

FE_EXPORT fe_status fe_graph_relu(fe_graph *graph, fe_tensor *input, const fe_pointwise_options *options,
                                  fe_tensor **out_y) {
    return convenience("fe_graph_relu", graph, FE_POINTWISE_RELU_FWD, nullptr, {{input, "input"}}, options, out_y);
}

FE_EXPORT fe_status fe_graph_gelu(fe_graph *graph, fe_tensor *input, const fe_pointwise_options *options,
                                  fe_tensor **out_y) {
    return convenience("fe_graph_gelu", graph, FE_POINTWISE_GELU_FWD, nullptr, {{input, "input"}}, options, out_y);
}

FE_EXPORT fe_status fe_graph_silu(fe_graph *graph, fe_tensor *input, const fe_pointwise_options *options,
                                  fe_tensor **out_y) {
    return convenience("fe_graph_silu", graph, FE_POINTWISE_SWISH_FWD, "silu", {{input, "input"}}, options, out_y);
}

FE_EXPORT fe_status fe_alibi_slopes(int64_t heads, float *out) {
    return guard("fe_alibi_slopes", [&] {
        FE_REQUIRE(out);
        alibi_slopes(heads, out);
    });
}
