// Readers of attention: sdpa, sdpa_fp8, sdpa_backward, sdpa_fp8_backward. The score modifiers
// are the same attributes and optional inputs in all four (lib/ops/attention.cpp writes them).
#include "ops/graph_ops.hpp"
#include "serial/option_codec.hpp"
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

// The options as the schema lists them for each kind (lib/ops/attention_schema.cpp): the FP8
// ops take fewer than the others.
fe_sdpa_options forward_options(OpReader &r) {
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    read_option_fields(r, op_schema(r.kind().c_str()), &o);
    return o;
}

void read_sdpa(OpReader &r) {
    fe_sdpa_options o = forward_options(r);
    fe_tensor *q = r.input("Q"), *k = r.input("K"), *v = r.input("V");
    r.add([&](fe_graph &g) { add_sdpa(g, q, k, v, o); });
}

void read_sdpa_fp8(OpReader &r) {
    fe_sdpa_options o = forward_options(r);
    fe_tensor *q = r.input("Q"), *k = r.input("K"), *v = r.input("V");
    fe_sdpa_fp8_scales s = FE_SDPA_FP8_SCALES_INIT;
    s.descale_q = r.input("descale_q");
    s.descale_k = r.input("descale_k");
    s.descale_v = r.input("descale_v");
    s.descale_s = r.input("descale_s");
    s.scale_s = r.input("scale_s");
    s.scale_o = r.input("scale_o");
    r.add([&](fe_graph &g) { add_sdpa_fp8(g, q, k, v, s, o); });
}

fe_sdpa_backward_options backward_options(OpReader &r) {
    fe_sdpa_backward_options o = FE_SDPA_BACKWARD_OPTIONS_INIT;
    read_option_fields(r, op_schema(r.kind().c_str()), &o);
    return o;
}

void read_sdpa_backward(OpReader &r) {
    fe_sdpa_backward_options o = backward_options(r);
    fe_tensor *q = r.input("Q"), *k = r.input("K"), *v = r.input("V"), *out = r.input("O"), *d_o = r.input("dO");
    fe_tensor *stats = r.input("Stats");
    r.add([&](fe_graph &g) { add_sdpa_backward(g, q, k, v, out, d_o, stats, o); });
}

void read_sdpa_fp8_backward(OpReader &r) {
    fe_sdpa_backward_options o = backward_options(r);
    fe_tensor *q = r.input("Q"), *k = r.input("K"), *v = r.input("V"), *out = r.input("O"), *d_o = r.input("dO");
    fe_tensor *stats = r.input("Stats");
    fe_sdpa_fp8_backward_scales s = FE_SDPA_FP8_BACKWARD_SCALES_INIT;
    fe_tensor **scales[] = {&s.descale_q, &s.descale_k,  &s.descale_v, &s.descale_o, &s.descale_do, &s.descale_s,
                            &s.descale_dp, &s.scale_s,   &s.scale_dp,  &s.scale_dq,  &s.scale_dk,   &s.scale_dv};
    static const char *const ports[] = {"descale_q", "descale_k", "descale_v", "descale_o", "descale_do", "descale_s",
                                        "descale_dp", "scale_s",  "scale_dp",  "scale_dq",  "scale_dk",   "scale_dv"};
    for (size_t i = 0; i < 12; ++i) *scales[i] = r.input(ports[i]);
    r.add([&](fe_graph &g) { add_sdpa_fp8_backward(g, q, k, v, out, d_o, stats, s, o); });
}

}  // namespace

void register_attention_readers(ReaderTable &table) {
    table.add("sdpa", read_sdpa);
    table.add("sdpa_fp8", read_sdpa_fp8);
    table.add("sdpa_backward", read_sdpa_backward);
    table.add("sdpa_fp8_backward", read_sdpa_fp8_backward);
}

}  // namespace fe
