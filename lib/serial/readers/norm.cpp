// Readers of the normalizations: layernorm, rmsnorm, instancenorm, adalayernorm (forward and
// backward), batchnorm (training, inference, backward).
#include "ops/graph_ops.hpp"
#include "serial/option_codec.hpp"
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

// The options as the schema lists them for each kind (lib/ops/norm_schema.cpp).
template <typename Options>
Options options_of(OpReader &r, const Options &defaults) {
    Options o = defaults;
    read_option_fields(r, op_schema(r.kind().c_str()), &o);
    return o;
}

fe_norm_options norm_options(OpReader &r) {
    const fe_norm_options defaults = FE_NORM_OPTIONS_INIT;
    return options_of(r, defaults);
}

fe_norm_backward_options backward_options(OpReader &r) {
    const fe_norm_backward_options defaults = FE_NORM_BACKWARD_OPTIONS_INIT;
    return options_of(r, defaults);
}

// The forward norms but batchnorm: rmsnorm and adalayernorm take an optional bias.
template <bool bias_required>
void read_forward(OpReader &r) {
    fe_norm_options o = norm_options(r);
    fe_tensor *x = r.input("X"), *scale = r.input("scale");
    fe_tensor *bias = bias_required ? r.input("bias") : r.optional_input("bias");
    r.add([&](fe_graph &g) { add_norm(g, r.kind().c_str(), x, scale, bias, o); });
}

// The backward norms: the families whose bias is optional say whether the caller asked for
// dBias (output_dbias); rmsnorm reads its inverse RMS, the others their mean and variance.
template <bool dbias_optional>
void read_backward(OpReader &r) {
    fe_norm_backward_options o = backward_options(r);
    bool dbias = dbias_optional ? r.flag("output_dbias", true) : true;
    bool rms = r.kind() == "rmsnorm_backward";
    fe_tensor *dy = r.input("dY"), *x = r.input("X"), *scale = r.input("scale");
    fe_tensor *mean = rms ? nullptr : r.input("mean"), *inv = r.input(rms ? "inv_rms" : "inv_variance");
    r.add([&](fe_graph &g) { add_norm_backward(g, r.kind().c_str(), dy, x, scale, mean, inv, o, dbias); });
}

void read_batchnorm(OpReader &r) {
    const fe_batchnorm_options defaults = FE_BATCHNORM_OPTIONS_INIT;
    fe_batchnorm_options o = options_of(r, defaults);
    fe_tensor *x = r.input("X"), *scale = r.input("scale"), *bias = r.input("bias");
    r.add([&](fe_graph &g) { add_batchnorm(g, x, scale, bias, o); });
}

void read_batchnorm_inference(OpReader &r) {
    const fe_batchnorm_inference_options defaults = FE_BATCHNORM_INFERENCE_OPTIONS_INIT;
    fe_batchnorm_inference_options o = options_of(r, defaults);
    fe_tensor *x = r.input("X"), *mean = r.input("mean"), *inv = r.input("inv_variance");
    fe_tensor *scale = r.input("scale"), *bias = r.input("bias");
    r.add([&](fe_graph &g) { add_batchnorm_inference(g, x, mean, inv, scale, bias, o); });
}

void read_genstats(OpReader &r) {
    const fe_genstats_options defaults = FE_GENSTATS_OPTIONS_INIT;
    fe_genstats_options o = options_of(r, defaults);
    fe_tensor *x = r.input("X");
    r.add([&](fe_graph &g) { add_genstats(g, x, o); });
}

}  // namespace

void register_norm_readers(ReaderTable &table) {
    table.add("layernorm", read_forward<true>);
    table.add("rmsnorm", read_forward<false>);
    table.add("instancenorm", read_forward<true>);
    table.add("adalayernorm", read_forward<false>);
    table.add("layernorm_backward", read_backward<false>);
    table.add("rmsnorm_backward", read_backward<true>);
    table.add("instancenorm_backward", read_backward<false>);
    table.add("adalayernorm_backward", read_backward<true>);
    table.add("batchnorm", read_batchnorm);
    table.add("batchnorm_inference", read_batchnorm_inference);
    table.add("batchnorm_backward", read_backward<false>);
    table.add("genstats", read_genstats);
}

}  // namespace fe
