// Readers of the normalizations: layernorm, rmsnorm, instancenorm, adalayernorm (forward and
// backward), batchnorm (training, inference, backward).
#include "serial/option_codec.hpp"
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

using ForwardCall = fe_status (*)(fe_graph *, fe_tensor *, fe_tensor *, fe_tensor *, const fe_norm_options *,
                                  fe_tensor **, fe_tensor **, fe_tensor **);
using BackwardCall = fe_status (*)(fe_graph *, fe_tensor *, fe_tensor *, fe_tensor *, fe_tensor *, fe_tensor *,
                                   const fe_norm_backward_options *, fe_tensor **, fe_tensor **, fe_tensor **);

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

template <ForwardCall call, bool bias_required>
void read_forward(OpReader &r) {
    fe_norm_options o = norm_options(r);
    fe_tensor *x = r.input("X"), *scale = r.input("scale");
    fe_tensor *bias = bias_required ? r.input("bias") : r.optional_input("bias");
    fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr;
    r.check(call(r.graph(), x, scale, bias, &o, &y, &mean, &inv));
}

// rmsnorm has no mean: its C call takes one statistic fewer.
fe_status rmsnorm_call(fe_graph *g, fe_tensor *x, fe_tensor *scale, fe_tensor *bias, const fe_norm_options *o,
                       fe_tensor **y, fe_tensor **, fe_tensor **inv_rms) {
    return fe_graph_rmsnorm(g, x, scale, bias, o, y, inv_rms);
}

// The families whose bias is optional say whether the caller asked for dBias (output_dbias).
template <BackwardCall call, bool dbias_optional>
void read_backward(OpReader &r) {
    fe_norm_backward_options o = backward_options(r);
    bool dbias = dbias_optional ? r.flag("output_dbias", true) : true;
    fe_tensor *dy = r.input("dY"), *x = r.input("X"), *scale = r.input("scale");
    fe_tensor *mean = r.input("mean"), *inv = r.input("inv_variance");
    fe_tensor *dx = nullptr, *dscale = nullptr, *dbias_out = nullptr;
    r.check(call(r.graph(), dy, x, scale, mean, inv, &o, &dx, &dscale, dbias ? &dbias_out : nullptr));
}

void read_rmsnorm_backward(OpReader &r) {
    fe_norm_backward_options o = backward_options(r);
    bool dbias = r.flag("output_dbias", true);
    fe_tensor *dy = r.input("dY"), *x = r.input("X"), *scale = r.input("scale"), *inv = r.input("inv_rms");
    fe_tensor *dx = nullptr, *dscale = nullptr, *dbias_out = nullptr;
    r.check(fe_graph_rmsnorm_backward(r.graph(), dy, x, scale, inv, &o, &dx, &dscale, dbias ? &dbias_out : nullptr));
}

void read_batchnorm(OpReader &r) {
    const fe_batchnorm_options defaults = FE_BATCHNORM_OPTIONS_INIT;
    fe_batchnorm_options o = options_of(r, defaults);
    fe_tensor *x = r.input("X"), *scale = r.input("scale"), *bias = r.input("bias");
    fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr, *next_mean = nullptr, *next_var = nullptr;
    r.check(fe_graph_batchnorm(r.graph(), x, scale, bias, &o, &y, &mean, &inv, &next_mean, &next_var));
}

void read_batchnorm_inference(OpReader &r) {
    const fe_batchnorm_inference_options defaults = FE_BATCHNORM_INFERENCE_OPTIONS_INIT;
    fe_batchnorm_inference_options o = options_of(r, defaults);
    fe_tensor *x = r.input("X"), *mean = r.input("mean"), *inv = r.input("inv_variance");
    fe_tensor *scale = r.input("scale"), *bias = r.input("bias"), *y = nullptr;
    r.check(fe_graph_batchnorm_inference(r.graph(), x, mean, inv, scale, bias, &o, &y));
}

}  // namespace

void register_norm_readers(ReaderTable &table) {
    table.add("layernorm", read_forward<fe_graph_layernorm, true>);
    table.add("rmsnorm", read_forward<rmsnorm_call, false>);
    table.add("instancenorm", read_forward<fe_graph_instancenorm, true>);
    table.add("adalayernorm", read_forward<fe_graph_adalayernorm, false>);
    table.add("layernorm_backward", read_backward<fe_graph_layernorm_backward, false>);
    table.add("rmsnorm_backward", read_rmsnorm_backward);
    table.add("instancenorm_backward", read_backward<fe_graph_instancenorm_backward, false>);
    table.add("adalayernorm_backward", read_backward<fe_graph_adalayernorm_backward, true>);
    table.add("batchnorm", read_batchnorm);
    table.add("batchnorm_inference", read_batchnorm_inference);
    table.add("batchnorm_backward", read_backward<fe_graph_batchnorm_backward, false>);
}

}  // namespace fe
