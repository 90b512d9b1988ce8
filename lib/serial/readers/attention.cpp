// Readers of attention: sdpa, sdpa_fp8, sdpa_backward, sdpa_fp8_backward. The score modifiers
// are the same attributes and optional inputs in all four (lib/ops/attention.cpp writes them).
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

// Fields fe_sdpa_options and fe_sdpa_backward_options share, by name.
template <typename Options>
void read_score_modifiers(OpReader &r, Options &o) {
    static const char *const masks[] = {"none", "top_left", "bottom_right"};
    static const int mask_values[] = {FE_CAUSAL_MASK_NONE, FE_CAUSAL_MASK_TOP_LEFT, FE_CAUSAL_MASK_BOTTOM_RIGHT};
    static const char *const implementations[] = {"auto", "composite", "native"};
    static const int implementation_values[] = {FE_SDPA_IMPLEMENTATION_AUTO, FE_SDPA_IMPLEMENTATION_COMPOSITE,
                                                FE_SDPA_IMPLEMENTATION_NATIVE};
    o.name = r.name();
    o.compute_data_type = r.compute_data_type();
    o.attn_scale = r.number("attn_scale", o.attn_scale);
    o.causal_mask = static_cast<fe_causal_mask>(r.choice("causal_mask", masks, mask_values, 3, FE_CAUSAL_MASK_NONE));
    o.sliding_window = r.integer("sliding_window", o.sliding_window);
    o.dropout_scale = r.number("dropout_scale", o.dropout_scale);
    o.dropout_probability = r.number("dropout_probability", o.dropout_probability);
    o.implementation = static_cast<fe_sdpa_implementation>(
        r.choice("implementation", implementations, implementation_values, 3, FE_SDPA_IMPLEMENTATION_AUTO));
    o.attn_scale_tensor = r.optional_input("attn_scale");
    o.bias = r.optional_input("bias");
    o.seq_len_q = r.optional_input("seq_len_q");
    o.seq_len_kv = r.optional_input("seq_len_kv");
    o.alibi_slopes = r.optional_input("alibi_slopes");
    o.dropout_mask = r.optional_input("dropout_mask");
    o.dropout_seed = r.optional_input("dropout_seed");
    o.dropout_offset = r.optional_input("dropout_offset");
}

fe_sdpa_options forward_options(OpReader &r) {
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    read_score_modifiers(r, o);
    o.max_seq_len_kv = r.integer("max_seq_len_kv", o.max_seq_len_kv);
    o.page_table_k = r.optional_input("page_table_k");
    o.page_table_v = r.optional_input("page_table_v");
    o.generate_stats = r.flag("generate_stats", false);
    o.output_dropout_mask = r.flag("output_dropout_mask", false);
    return o;
}

void read_sdpa(OpReader &r) {
    fe_sdpa_options o = forward_options(r);
    fe_tensor *q = r.input("Q"), *k = r.input("K"), *v = r.input("V"), *out = nullptr, *stats = nullptr;
    r.check(fe_graph_sdpa(r.graph(), q, k, v, &o, &out, &stats));
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
    fe_tensor *out = nullptr, *stats = nullptr, *amax_s = nullptr, *amax_o = nullptr;
    r.check(fe_graph_sdpa_fp8(r.graph(), q, k, v, &s, &o, &out, &stats, &amax_s, &amax_o));
}

fe_sdpa_backward_options backward_options(OpReader &r, bool fp8) {
    fe_sdpa_backward_options o = FE_SDPA_BACKWARD_OPTIONS_INIT;
    read_score_modifiers(r, o);
    if (!fp8) {  // refused by the FP8 backward, so never written for it
        o.output_dbias = r.flag("output_dbias", false);
        o.deterministic = r.flag("deterministic", false);
    }
    return o;
}

void read_sdpa_backward(OpReader &r) {
    fe_sdpa_backward_options o = backward_options(r, false);
    fe_tensor *q = r.input("Q"), *k = r.input("K"), *v = r.input("V"), *out = r.input("O"), *d_o = r.input("dO");
    fe_tensor *stats = r.input("Stats"), *dq = nullptr, *dk = nullptr, *dv = nullptr;
    r.check(fe_graph_sdpa_backward(r.graph(), q, k, v, out, d_o, stats, &o, &dq, &dk, &dv));
}

void read_sdpa_fp8_backward(OpReader &r) {
    fe_sdpa_backward_options o = backward_options(r, true);
    fe_tensor *q = r.input("Q"), *k = r.input("K"), *v = r.input("V"), *out = r.input("O"), *d_o = r.input("dO");
    fe_tensor *stats = r.input("Stats");
    fe_sdpa_fp8_backward_scales s = FE_SDPA_FP8_BACKWARD_SCALES_INIT;
    fe_tensor **scales[] = {&s.descale_q, &s.descale_k,  &s.descale_v, &s.descale_o, &s.descale_do, &s.descale_s,
                            &s.descale_dp, &s.scale_s,   &s.scale_dp,  &s.scale_dq,  &s.scale_dk,   &s.scale_dv};
    static const char *const ports[] = {"descale_q", "descale_k", "descale_v", "descale_o", "descale_do", "descale_s",
                                        "descale_dp", "scale_s",  "scale_dp",  "scale_dq",  "scale_dk",   "scale_dv"};
    for (size_t i = 0; i < 12; ++i) *scales[i] = r.input(ports[i]);
    fe_tensor *dq = nullptr, *dk = nullptr, *dv = nullptr, *a_dq = nullptr, *a_dk = nullptr, *a_dv = nullptr,
              *a_dp = nullptr;
    r.check(fe_graph_sdpa_fp8_backward(r.graph(), q, k, v, out, d_o, stats, &s, &o, &dq, &dk, &dv, &a_dq, &a_dk,
                                       &a_dv, &a_dp));
}

}  // namespace

void register_attention_readers(ReaderTable &table) {
    table.add("sdpa", read_sdpa);
    table.add("sdpa_fp8", read_sdpa_fp8);
    table.add("sdpa_backward", read_sdpa_backward);
    table.add("sdpa_fp8_backward", read_sdpa_fp8_backward);
}

}  // namespace fe
