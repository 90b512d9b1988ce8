// Probes of the capability table's attention entries: a pinned attention configuration, built
// and checked as the attention family checks every case.
#include "attention_family.hpp"
#include "probes.hpp"

namespace conformance {
namespace {

// A plain, well-conditioned attention configuration for a probe to change.
void plain(AttentionConfig &c) {
    c = AttentionConfig{};
    c.type = FE_DATA_BFLOAT16;
    c.b = 2;
    c.h_q = 4;
    c.h_k = 4;
    c.s_q = 128;
    c.s_kv = 256;
    c.d = c.d_v = 64;
    c.scale = 0.125;
    c.order_q = c.order_k = c.order_v = c.order_o = {0, 1, 2, 3};
    c.gaps_q = c.gaps_k = c.gaps_v = c.gaps_o = std::vector<int64_t>(4, 0);
}

}  // namespace

void register_attention_probes(std::vector<Probe> &out) {
    out.push_back({"max_sum_exp_with_sinks", "bf16 attention forward, b 2, h 4, s 128/256, d 64, sinks, Max and SumExp",
                   [](Case &k) {
                       attention_case(k, false, [](AttentionConfig &c) {
                           plain(c);
                           c.sink = true;
                           c.max_sum_exp = true;
                       });
                   }});
    out.push_back({"native_sdpa_backward", "bf16 attention backward through the native SDPA operation, b 2, h 4, "
                                           "s 128/256, d 64, no mask",
                   [](Case &k) {
                       attention_case(k, true, [](AttentionConfig &c) {
                           plain(c);
                           c.implementation = FE_SDPA_IMPLEMENTATION_NATIVE;
                       });
                   }});
    out.push_back({"fp8_attention_bias", "FP8 (E4M3) attention forward, b 2, h 4, s 128/256, d 64, a bias [1, h, s_q, s_kv]",
                   [](Case &k) {
                       attention_fp8_case(k, false, [](AttentionConfig &c) {
                           plain(c);
                           c.type = FE_DATA_FP8_E4M3;
                           c.bias = 1;
                           c.stats = true;
                       });
                   }});
    out.push_back({"fp8_attention_dropout", "FP8 (E4M3) attention forward, b 2, h 4, s 128/256, d 64, dropout 0.1 "
                                            "drawn by cuDNN with its mask as an output",
                   [](Case &k) {
                       attention_fp8_case(k, false, [](AttentionConfig &c) {
                           plain(c);
                           c.type = FE_DATA_FP8_E4M3;
                           c.dropout = 1;
                           c.dropout_p = 0.1;
                           c.stats = true;
                       });
                   }});
    out.push_back({"fp8_attention_backward_deterministic",
                   "FP8 (E4M3) attention backward, b 2, h 4, s 128/128, d 64, causal, deterministic",
                   [](Case &k) {
                       attention_fp8_case(k, true, [](AttentionConfig &c) {
                           plain(c);
                           c.type = FE_DATA_FP8_E4M3;
                           c.s_kv = 128;
                           c.causal = FE_CAUSAL_MASK_TOP_LEFT;
                           c.deterministic = true;
                       });
                   }});
}

}  // namespace conformance
