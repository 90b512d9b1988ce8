// Attention's descriptions (lib/schema/schema.hpp): sdpa, sdpa_fp8, sdpa_backward,
// sdpa_fp8_backward, with fe_sdpa_options, fe_sdpa_backward_options and the FP8 scales.
#include "ops/graph_ops.hpp"
#include "schema/schema.hpp"

namespace fe::schema {

namespace {

const fe_sdpa_options kForwardDefaults = FE_SDPA_OPTIONS_INIT;
const fe_sdpa_backward_options kBackwardDefaults = FE_SDPA_BACKWARD_OPTIONS_INIT;
const fe_sdpa_fp8_scales kFp8Defaults = FE_SDPA_FP8_SCALES_INIT;
const fe_sdpa_fp8_backward_scales kFp8BackwardDefaults = FE_SDPA_FP8_BACKWARD_SCALES_INIT;

const Enum kCausalMask{"fe_causal_mask",
                       {{"FE_CAUSAL_MASK_NONE", "none", FE_CAUSAL_MASK_NONE},
                        {"FE_CAUSAL_MASK_TOP_LEFT", "top_left", FE_CAUSAL_MASK_TOP_LEFT},
                        {"FE_CAUSAL_MASK_BOTTOM_RIGHT", "bottom_right", FE_CAUSAL_MASK_BOTTOM_RIGHT}},
                       "The causal mask's alignment."};

const Enum kImplementation{"fe_sdpa_implementation",
                           {{"FE_SDPA_IMPLEMENTATION_AUTO", "auto", FE_SDPA_IMPLEMENTATION_AUTO},
                            {"FE_SDPA_IMPLEMENTATION_COMPOSITE", "composite", FE_SDPA_IMPLEMENTATION_COMPOSITE},
                            {"FE_SDPA_IMPLEMENTATION_NATIVE", "native", FE_SDPA_IMPLEMENTATION_NATIVE}},
                           "How attention is lowered: cuDNN's SDPA operation or the composite pattern."};

const Enum kDiagonalAlignment{"fe_diagonal_alignment",
                              {{"FE_DIAGONAL_ALIGNMENT_TOP_LEFT", "top_left", FE_DIAGONAL_ALIGNMENT_TOP_LEFT},
                               {"FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT", "bottom_right",
                                FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT}},
                              "Where a band's diagonal sits when there is no causal mask."};

// The band and soft-capping fields both option structs append, in the same order.
#define FE_SDPA_BAND_FIELDS(S)                                                                                     \
    FE_SCHEMA_RANGE(S, right_bound, integer, -1, 2147483647, "The band's right bound (look-ahead); -1: none."),   \
        FE_SCHEMA_ENUM(S, diagonal_alignment, kDiagonalAlignment, "The band's diagonal without a causal mask."),  \
        FE_SCHEMA_RANGE(S, softcap, number, 0, 1.7e308, "Soft-capping: cap * tanh(s / cap); 0: none.")

// A caller's pointwise chain on the scores, both structs' last fields before the backward's own.
#define FE_SDPA_SCORE_MOD_FIELDS(S)                                                                                \
    FE_SCHEMA_TENSOR(S, score_mod_input, nullptr, "Stands for the scaled scores, float [b, h_q, s_q, s_kv]."),    \
        FE_SCHEMA_TENSOR(S, score_mod_output, nullptr, "The end of the caller's pointwise chain on the scores.")

// The score modifiers both option structs have, in the same order.
#define FE_SDPA_SCORE_FIELDS(S)                                                                                    \
    FE_SCHEMA_FIELD(S, attn_scale, number, "Scores are Q.K^T * attn_scale; 0: no scaling."),                      \
        FE_SCHEMA_TENSOR(S, attn_scale_tensor, "attn_scale", "The scale as a one-element float tensor."),        \
        FE_SCHEMA_ENUM(S, causal_mask, kCausalMask, "The causal mask."),                                          \
        FE_SCHEMA_FIELD(S, compute_data_type, data_type, "Math type; not_set: the graph's."),                     \
        FE_SCHEMA_TENSOR(S, bias, nullptr, "Additive bias on the scores."),                                       \
        FE_SCHEMA_RANGE(S, sliding_window, integer, 0, 2147483647, "Sliding window; 0: none."),                       \
        FE_SCHEMA_TENSOR(S, seq_len_q, nullptr, "Padding mask: per-batch query lengths, int32 [b, 1, 1, 1]."),    \
        FE_SCHEMA_TENSOR(S, seq_len_kv, nullptr, "Padding mask: per-batch key lengths, int32 [b, 1, 1, 1]."),     \
        FE_SCHEMA_TENSOR(S, alibi_slopes, nullptr, "ALiBi slopes, float [1, h_q, 1, 1]."),                        \
        FE_SCHEMA_TENSOR(S, dropout_mask, nullptr, "Dropout with a caller's 0/1 mask."),                          \
        FE_SCHEMA_FIELD(S, dropout_scale, number, "With dropout_mask: the probabilities' scale."),               \
        FE_SCHEMA_RANGE(S, dropout_probability, number, 0, 1, "Dropout drawn by cuDNN: the probability."),        \
        FE_SCHEMA_TENSOR(S, dropout_seed, nullptr, "Dropout drawn by cuDNN: the int64 seed."),                    \
        FE_SCHEMA_TENSOR(S, dropout_offset, nullptr, "Dropout drawn by cuDNN: the int64 offset.")

const Struct kForwardOptions{
    "fe_sdpa_options",
    sizeof(fe_sdpa_options),
    &kForwardDefaults,
    {
        FE_SCHEMA_FIELD(fe_sdpa_options, name, name, "The op's name; automatic when absent."),
        FE_SCHEMA_FIELD(fe_sdpa_options, generate_stats, flag, "Training: also return the softmax stats."),
        FE_SDPA_SCORE_FIELDS(fe_sdpa_options),
        FE_SCHEMA_FIELD(fe_sdpa_options, output_dropout_mask, flag, "Also output the drawn mask."),
        FE_SCHEMA_TENSOR(fe_sdpa_options, page_table_k, nullptr, "Paged K cache: the page table."),
        FE_SCHEMA_TENSOR(fe_sdpa_options, page_table_v, nullptr, "Paged V cache: the page table."),
        FE_SCHEMA_RANGE(fe_sdpa_options, max_seq_len_kv, integer, 0, ::fe::schema::kNoMaximum, "Paged caches: the longest sequence."),
        FE_SCHEMA_ENUM(fe_sdpa_options, implementation, kImplementation, "Native, composite or either."),
        FE_SCHEMA_TENSOR(fe_sdpa_options, sink_token, nullptr, "Attention sinks: float [1, h_q, 1, 1] logits."),
        FE_SCHEMA_FIELD(fe_sdpa_options, output_max_sum_exp, flag, "Also output the rows' Max and SumExp."),
        FE_SDPA_BAND_FIELDS(fe_sdpa_options),
        FE_SDPA_SCORE_MOD_FIELDS(fe_sdpa_options),
    },
    "Attention's score modifiers, masks, sinks, dropout and paged caches."};

const Struct kBackwardOptions{
    "fe_sdpa_backward_options",
    sizeof(fe_sdpa_backward_options),
    &kBackwardDefaults,
    {
        FE_SCHEMA_FIELD(fe_sdpa_backward_options, name, name, "The op's name; automatic when absent."),
        FE_SDPA_SCORE_FIELDS(fe_sdpa_backward_options),
        FE_SCHEMA_ENUM(fe_sdpa_backward_options, implementation, kImplementation, "Native, composite or either."),
        FE_SCHEMA_FIELD(fe_sdpa_backward_options, output_dbias, flag, "With a bias: also output its gradient."),
        FE_SCHEMA_FIELD(fe_sdpa_backward_options, deterministic, flag, "Accumulate dQ, dK, dV in a fixed order."),
        FE_SCHEMA_TENSOR(fe_sdpa_backward_options, sink_token, nullptr, "The forward's sinks, for dSink."),
        FE_SCHEMA_FIELD(fe_sdpa_backward_options, output_dsink, flag, "With sink_token: output dSink."),
        FE_SDPA_BAND_FIELDS(fe_sdpa_backward_options),
        FE_SCHEMA_RANGE(fe_sdpa_backward_options, max_total_seq_len_q, integer, 0, ::fe::schema::kNoMaximum,
                        "Packed Q: the batch's tokens, to size the workspace; 0: padded."),
        FE_SDPA_SCORE_MOD_FIELDS(fe_sdpa_backward_options),
        FE_SCHEMA_TENSOR(fe_sdpa_backward_options, score_mod_grad_input, nullptr,
                         "Stands for the gradient of the modified scores, float [b, h_q, s_q, s_kv]."),
        FE_SCHEMA_TENSOR(fe_sdpa_backward_options, score_mod_grad_output, nullptr,
                         "The score modifier's derivative: the gradient of the scores before it."),
    },
    "Attention backward's score modifiers (those of the forward pass) and outputs."};

const Struct kFp8Scales{"fe_sdpa_fp8_scales",
                        sizeof(fe_sdpa_fp8_scales),
                        &kFp8Defaults,
                        {
                            FE_SCHEMA_TENSOR(fe_sdpa_fp8_scales, descale_q, nullptr, "Q's descale."),
                            FE_SCHEMA_TENSOR(fe_sdpa_fp8_scales, descale_k, nullptr, "K's descale."),
                            FE_SCHEMA_TENSOR(fe_sdpa_fp8_scales, descale_v, nullptr, "V's descale."),
                            FE_SCHEMA_TENSOR(fe_sdpa_fp8_scales, descale_s, nullptr, "The FP8 probabilities' descale."),
                            FE_SCHEMA_TENSOR(fe_sdpa_fp8_scales, scale_s, nullptr, "Quantizes the probabilities."),
                            FE_SCHEMA_TENSOR(fe_sdpa_fp8_scales, scale_o, nullptr, "Quantizes O."),
                        },
                        "FP8 attention's scaling factors: one-element float tensors, all required."};

const Struct kFp8BackwardScales{
    "fe_sdpa_fp8_backward_scales",
    sizeof(fe_sdpa_fp8_backward_scales),
    &kFp8BackwardDefaults,
    {
        FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, descale_q, nullptr, "Q's descale."),
        FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, descale_k, nullptr, "K's descale."),
        FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, descale_v, nullptr, "V's descale."),
        FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, descale_o, nullptr, "O's descale."),
        FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, descale_do, nullptr, "dO's descale."),
        FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, descale_s, nullptr, "The FP8 probabilities' descale."),
        FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, descale_dp, nullptr, "The FP8 score gradient's descale."),
        FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, scale_s, nullptr, "Quantizes the probabilities."),
        FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, scale_dp, nullptr, "Quantizes the score gradient."),
        FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, scale_dq, nullptr, "Quantizes dQ."),
        FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, scale_dk, nullptr, "Quantizes dK."),
        FE_SCHEMA_TENSOR(fe_sdpa_fp8_backward_scales, scale_dv, nullptr, "Quantizes dV."),
    },
    "FP8 attention backward's scaling factors: one-element float tensors, all required."};

const std::vector<Port> kQkv = {{"Q", nullptr, "[b, h_q, s_q, d]"},
                                {"K", nullptr, "[b, h_k, s_kv, d]"},
                                {"V", nullptr, "[b, h_k, s_kv, d_v]"}};
const std::vector<Port> kBackwardInputs = {{"Q", nullptr, "the forward Q"},  {"K", nullptr, "the forward K"},
                                           {"V", nullptr, "the forward V"},  {"O", nullptr, "the forward O"},
                                           {"dO", nullptr, "O's gradient"}, {"Stats", nullptr, "the forward stats"}};

const Op kSdpa{"sdpa",
               "fe_graph_sdpa",
               "Attention",
               kQkv,
               {{"O", nullptr, "[b, h_q, s_q, d_v], laid out like q"},
                {"Stats", "generate_stats", "float [b, h_q, s_q, 1]"},
                {"DropoutMask", "output_dropout_mask", "the drawn mask"},
                {"Max", "output_max_sum_exp", "float [b, h_q, s_q, 1]: each row's largest score"},
                {"SumExp", "output_max_sum_exp", "float [b, h_q, s_q, 1]: each row's sum of exp(score - Max)"}},
               {},
               &kForwardOptions,
               {},
               true,
               "Scaled dot-product attention (flash attention), forward."};

const Op kSdpaFp8{"sdpa_fp8",
                  "fe_graph_sdpa_fp8",
                  "Attention",
                  kQkv,
                  {{"O", nullptr, "[b, h_q, s_q, d_v], fp8"},
                   {"Stats", "generate_stats", "float [b, h_q, s_q, 1]"},
                   {"Amax_S", nullptr, "the probabilities' amax"},
                   {"Amax_O", nullptr, "O's amax"},
                   {"DropoutMask", "output_dropout_mask", "the drawn mask"}},
                  {},
                  &kForwardOptions,
                  {"name", "generate_stats", "attn_scale", "attn_scale_tensor", "causal_mask", "compute_data_type",
                   "bias", "sliding_window", "seq_len_q", "seq_len_kv", "alibi_slopes", "dropout_mask",
                   "dropout_scale", "dropout_probability", "dropout_seed", "dropout_offset", "output_dropout_mask",
                   "page_table_k", "page_table_v", "max_seq_len_kv", "implementation"},
                  true,
                  "FP8 attention, forward (Hopper and later).",
                  nullptr,
                  &kFp8Scales};

const Op kSdpaBackward{"sdpa_backward",
                       "fe_graph_sdpa_backward",
                       "Attention",
                       kBackwardInputs,
                       {{"dQ", nullptr, "Q's gradient"},
                        {"dK", nullptr, "K's gradient"},
                        {"dV", nullptr, "V's gradient"},
                        {"dBias", "output_dbias", "the bias's gradient"},
                        {"dSink", "output_dsink", "float [1, h_q, 1, 1]: the sinks' gradient"}},
                       {},
                       &kBackwardOptions,
                       {},
                       true,
                       "Attention backward: dQ, dK, dV."};

const Op kSdpaFp8Backward{"sdpa_fp8_backward",
                          "fe_graph_sdpa_fp8_backward",
                          "Attention",
                          kBackwardInputs,
                          {{"dQ", nullptr, "Q's gradient, fp8"},
                           {"dK", nullptr, "K's gradient, fp8"},
                           {"dV", nullptr, "V's gradient, fp8"},
                           {"Amax_dQ", nullptr, "dQ's amax"},
                           {"Amax_dK", nullptr, "dK's amax"},
                           {"Amax_dV", nullptr, "dV's amax"},
                           {"Amax_dP", nullptr, "the score gradient's amax"}},
                          {},
                          &kBackwardOptions,
                          {"name", "attn_scale", "attn_scale_tensor", "causal_mask", "compute_data_type", "bias",
                           "sliding_window", "seq_len_q", "seq_len_kv", "dropout_mask", "dropout_scale",
                           "dropout_probability", "dropout_seed", "dropout_offset", "implementation", "deterministic"},
                          true,
                          "FP8 attention backward (Hopper and later).",
                          nullptr,
                          &kFp8BackwardScales};

const std::vector<fe_tensor *> &add_sdpa_call(fe_graph &g, const Call &c) {
    return add_sdpa(g, c.inputs[0], c.inputs[1], c.inputs[2], c.options_as<fe_sdpa_options>());
}
const std::vector<fe_tensor *> &add_sdpa_fp8_call(fe_graph &g, const Call &c) {
    return add_sdpa_fp8(g, c.inputs[0], c.inputs[1], c.inputs[2], c.scales_as<fe_sdpa_fp8_scales>(),
                        c.options_as<fe_sdpa_options>());
}
const std::vector<fe_tensor *> &add_sdpa_backward_call(fe_graph &g, const Call &c) {
    return add_sdpa_backward(g, c.inputs[0], c.inputs[1], c.inputs[2], c.inputs[3], c.inputs[4], c.inputs[5],
                             c.options_as<fe_sdpa_backward_options>());
}
const std::vector<fe_tensor *> &add_sdpa_fp8_backward_call(fe_graph &g, const Call &c) {
    return add_sdpa_fp8_backward(g, c.inputs[0], c.inputs[1], c.inputs[2], c.inputs[3], c.inputs[4], c.inputs[5],
                                 c.scales_as<fe_sdpa_fp8_backward_scales>(), c.options_as<fe_sdpa_backward_options>());
}

const Registration kRegistered[] = {Registration(kSdpa, add_sdpa_call), Registration(kSdpaFp8, add_sdpa_fp8_call), Registration(kSdpaBackward, add_sdpa_backward_call),
                                    Registration(kSdpaFp8Backward, add_sdpa_fp8_backward_call)};

}  // namespace

}  // namespace fe::schema
