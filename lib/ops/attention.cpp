// include/cudnnfe.h, section "Attention" (copied there by scripts/schema/generate_header.py):
// typedef enum fe_causal_mask FE_ENUM_BASE {
//     FE_CAUSAL_MASK_NONE = 0,
//     FE_CAUSAL_MASK_TOP_LEFT = 1,    /* query i sees keys 0..i */
//     FE_CAUSAL_MASK_BOTTOM_RIGHT = 2 /* aligned to the last key: query i sees keys 0..diagonal(i),
//                                        diagonal(i) as FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT says */
// } fe_causal_mask;
//
// /* Where the diagonal of a band (fe_sdpa_options.right_bound and sliding_window) sits when
//  * there is no causal mask; a causal mask sets it itself.
//  * With a padding mask (seq_len_q and seq_len_kv), a bottom-right diagonal is aligned to each
//  * sequence's own last key: in sequence b, query i's diagonal is key
//  * i + seq_len_kv[b] - seq_len_q[b] (the chunked-prefill and KV-cache case); without one it is
//  * key i + s_kv - s_q, the tensors' dims (for paged K/V: max_seq_len_kv). A top-left diagonal is
//  * key i either way. Rows that see no key (a diagonal left of key 0) have undefined output. */
// typedef enum fe_diagonal_alignment FE_ENUM_BASE {
//     FE_DIAGONAL_ALIGNMENT_TOP_LEFT = 0,    /* query i's diagonal is key i */
//     FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT = 1 /* query i's diagonal is key i + s_kv - s_q, per sequence
//                                               under a padding mask (see above) */
// } fe_diagonal_alignment;
//
// /* How attention is lowered. cuDNN recognises attention either as a pattern of matmul,
//  * pointwise and reduction operations in one operation graph (composite) or as its single SDPA
//  * operation (native, cuDNN >= 9.13.1, which takes fewer options: see fe_graph_sdpa). */
// typedef enum fe_sdpa_implementation FE_ENUM_BASE {
//     FE_SDPA_IMPLEMENTATION_AUTO = 0,      /* native where it takes every option given and has an
//                                              engine for the target GPU, else composite */
//     FE_SDPA_IMPLEMENTATION_COMPOSITE = 1,
//     FE_SDPA_IMPLEMENTATION_NATIVE = 2     /* fails at build, naming the option or version, when
//                                              the native operation cannot take the graph */
// } fe_sdpa_implementation;
//
// typedef struct fe_sdpa_options {
//     uint32_t struct_size;
//     const char *name;
//     int32_t generate_stats;       /* training: also return the softmax stats (log-sum-exp) */
//     double attn_scale;            /* scores are Q.K^T * attn_scale (finite); 0: no scaling */
//     fe_tensor *attn_scale_tensor; /* nullable: the scale as a one-element float tensor instead */
//     fe_causal_mask causal_mask;
//     fe_data_type compute_data_type; /* default: the graph's (float) */
//     /* Additive bias on the scores, [1 or b, 1 or h_q, s_q, s_kv] (nullable). */
//     fe_tensor *bias;
//     /* Sliding window, the band's left bound: > 0 keeps keys j with j > diagonal(i) - window
//      * (i the query, the diagonal aligned like the causal mask, else by diagonal_alignment);
//      * 0: no window. At most 2147483647 (INT32_MAX,
//      * as cuDNN takes it). */
//     int64_t sliding_window;
//     /* Padding mask: per-batch actual lengths, int32 [b, 1, 1, 1] (both or neither). Scores of
//      * keys at or past seq_len_kv[b] are masked; output rows at or past seq_len_q[b] are
//      * undefined. */
//     fe_tensor *seq_len_q;
//     fe_tensor *seq_len_kv;
//     /* ALiBi: float slopes [1, h_q, 1, 1] (nullable); adds slope[h] * (j - i) to score (i, j).
//      * fe_alibi_slopes computes the usual slopes on the host for upload. */
//     fe_tensor *alibi_slopes;
//     /* Dropout with a caller's mask: the probabilities are multiplied by dropout_scale (usually
//      * 1 / (1 - p); finite, and positive with a mask) and by the mask,
//      * [b or 1, h_q or 1, s_q, s_kv] of 0/1 values (nullable). */
//     fe_tensor *dropout_mask;
//     double dropout_scale;
//     /* Dropout drawn by cuDNN (Philox): probability p of dropping in (0, 1), with int64 seed and
//      * offset tensors of one element (device tensors or fe_graph_scalar). The kept
//      * probabilities are scaled by 1 / (1 - p). The backward pass given the same p, seed and
//      * offset redraws the same mask. */
//     double dropout_probability;
//     fe_tensor *dropout_seed;
//     fe_tensor *dropout_offset;
//     /* With dropout_probability: also output the drawn mask as "<node>::DropoutMask"
//      * ([b, h_q, s_q, s_kv] of 0/1, float; find it with fe_graph_tensor_by_name). Where the
//      * causal, window or padding mask excludes the key its value is unspecified (cuDNN may leave
//      * it unwritten). */
//     int32_t output_dropout_mask;
//     /* Paged K/V caches (decoding): k and v are page containers [pages, h_k, page_size, d(_v)],
//      * the page tables int32 [b, 1, pages per sequence, 1] map each sequence's pages, and
//      * max_seq_len_kv is the longest sequence; needs seq_len_q and seq_len_kv (padding mask). */
//     fe_tensor *page_table_k;
//     fe_tensor *page_table_v;
//     int64_t max_seq_len_kv;
//     fe_sdpa_implementation implementation; /* default AUTO */
//     /* Attention sinks: float [1, h_q, 1, 1], one learned logit per head that joins every row's
//      * softmax as a key with no value, so a row's weights sum to less than one (nullable). The
//      * stats, Max and SumExp include it. */
//     fe_tensor *sink_token;
//     /* Also output each row's largest score "<node>::Max" and its sum of exponentials
//      * "<node>::SumExp" (exp(score - Max) summed; float [b, h_q, s_q, 1]; find them with
//      * fe_graph_tensor_by_name): the partial results a split-KV (flash-decoding) merge needs.
//      * Not with generate_stats: cuDNN's engines give one or the other (stats = Max + log(SumExp)).
//      * cuDNN 9.19 has no engine for them with sink_token (docs/capabilities.md). */
//     int32_t output_max_sum_exp;
//     /* A diagonal band's right bound: query i sees keys j <= diagonal(i) + right_bound
//      * (look-ahead), -1: none (default). With sliding_window as the left bound this is a band
//      * of both bounds (chunked or local attention); right_bound 0 alone is the causal mask,
//      * which may be given either way but not both. At most 2147483647. */
//     int64_t right_bound;
//     /* The band's diagonal when causal_mask is NONE (with a causal mask, the mask's alignment
//      * holds and this must be TOP_LEFT or the same). Default TOP_LEFT. */
//     fe_diagonal_alignment diagonal_alignment;
//     /* Soft-capping (Gemma 2): > 0 turns the scaled scores s into softcap * tanh(s / softcap),
//      * before bias and masks; 0: none. Finite. */
//     double softcap;
//     /* A score modifier of the caller's own (the flexible graphs of cuDNN's frontend): pointwise
//      * operations of this graph that cuDNN runs inside the fused attention kernel, on the scaled
//      * scores, before soft-capping, bias and the masks above. score_mod_input is a float input
//      * tensor [b, h_q, s_q, s_kv] declared with fe_graph_tensor that stands for the scores (it is
//      * never bound: it stops being a graph input); score_mod_output is the result of the chain
//      * of fe_graph_pointwise operations that reads it (both or neither). The chain's operations
//      * may read the scores, fe_graph_scalar values, broadcast graph inputs (a per-head tensor
//      * [1, h_q, 1, 1], say) and each other's results, which nothing outside the chain may read
//      * or output. The composite implementation only; not for FP8 attention. */
//     fe_tensor *score_mod_input;
//     fe_tensor *score_mod_output;
// } fe_sdpa_options;
// #define FE_SDPA_OPTIONS_INIT
//     { (uint32_t)sizeof(fe_sdpa_options), NULL, 0, 0.0, NULL, FE_CAUSAL_MASK_NONE, FE_DATA_NOT_SET,
//       NULL, 0, NULL, NULL, NULL, NULL, 1.0, 0.0, NULL, NULL, 0, NULL, NULL, 0,
//       FE_SDPA_IMPLEMENTATION_AUTO, NULL, 0, -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0.0, NULL, NULL }
//
// /** The most heads fe_alibi_slopes computes slopes for. */
// #define FE_MAX_ALIBI_HEADS 65536
// /** The ALiBi paper's slopes for `heads` heads (geometric from 2^(-8/n); heads that are not a
//  *  power of two take the interleaved extra slopes) into out[0..heads). heads is 1 to
//  *  FE_MAX_ALIBI_HEADS; others return FE_STATUS_INVALID_ARGUMENT. */
// FE_API fe_status fe_alibi_slopes(int64_t heads, float *out);
//
// typedef struct fe_sdpa_backward_options {
//     uint32_t struct_size;
//     const char *name;
//     /* The same score modifiers as the forward pass that produced O and the stats. */
//     double attn_scale;
//     fe_tensor *attn_scale_tensor;
//     fe_causal_mask causal_mask;
//     fe_data_type compute_data_type;
//     fe_tensor *bias;
//     int64_t sliding_window;
//     fe_tensor *seq_len_q;
//     fe_tensor *seq_len_kv;
//     fe_tensor *alibi_slopes;
//     /* The caller's dropout mask is refused at build on the cuDNN versions that compute its
//      * gradients wrongly (docs/capabilities.md, attention_backward_dropout_mask); dropout drawn
//      * by cuDNN (dropout_probability, seed and offset) is taken. */
//     fe_tensor *dropout_mask;
//     double dropout_scale;
//     double dropout_probability;
//     fe_tensor *dropout_seed;
//     fe_tensor *dropout_offset;
//     fe_sdpa_implementation implementation; /* default AUTO */
//     /* With a bias: also output its gradient as "<node>::dBias" (float, the bias's dims; find it
//      * with fe_graph_tensor_by_name). Needs a bias of [1, h_q, s_q, s_kv]. */
//     int32_t output_dbias;
//     /* Deterministic backward: dQ, dK and dV accumulate in a fixed order, so repeated runs give
//      * identical bits (somewhat slower); 0 lets cuDNN accumulate with atomics. */
//     int32_t deterministic;
//     /* The forward's sinks, for their gradient: with output_dsink, "<node>::dSink" (float
//      * [1, h_q, 1, 1], summed over the batch and the queries; find it with
//      * fe_graph_tensor_by_name). dQ, dK and dV need only the stats, which include the sinks, so
//      * a sink_token without output_dsink is refused. */
//     fe_tensor *sink_token;
//     int32_t output_dsink;
//     /* The forward's band and soft-capping (fe_sdpa_options). */
//     int64_t right_bound;
//     fe_diagonal_alignment diagonal_alignment;
//     double softcap;
//     /* Packed (ragged) Q: at least the tokens of the batch (the sum of seq_len_q, which lives on
//      * the GPU and is not checked). > 0 sizes the float row sums and dQ accumulator in the
//      * workspace for these tokens, laid out like the stats and dQ (give both ragged offsets),
//      * instead of for b * s_q rows. 0: sized for the padded batch. Needs cuDNN 9.6, ragged Q and
//      * head dims that are multiples of 16. */
//     int64_t max_total_seq_len_q;
//     /* The forward's score modifier (fe_sdpa_options), rebuilt in this graph: the backward
//      * recomputes the modified scores with it. */
//     fe_tensor *score_mod_input;
//     fe_tensor *score_mod_output;
//     /* The score modifier's derivative, which the caller writes as cuDNN's frontend has it (the
//      * library does not differentiate the chain): score_mod_grad_input, a float input tensor
//      * [b, h_q, s_q, s_kv] declared like score_mod_input, stands for the gradient with respect
//      * to the modified scores; score_mod_grad_output, the end of a chain of pointwise operations
//      * that reads it, is the gradient with respect to the scores before the modifier. That chain
//      * may also read the forward chain's results and its input (the scores). Required with
//      * score_mod_input; applied after soft-capping's derivative, before the attention scale. */
//     fe_tensor *score_mod_grad_input;
//     fe_tensor *score_mod_grad_output;
//     /* Packed (ragged) K and V with grouped query heads (h_q > h_k): at least the batch's key
//      * tokens (the sum of seq_len_kv). > 0 sizes the per-query-head dK and dV, which are summed
//      * over each group, for these tokens, laid out like dK and dV (packed, their ragged offsets)
//      * instead of for b * s_kv rows. 0: sized for the padded batch. With h_q = h_k there are no
//      * such buffers and it changes nothing. Needs cuDNN 9.6, ragged K and head dims that are
//      * multiples of 16. */
//     int64_t max_total_seq_len_kv;
// } fe_sdpa_backward_options;
// #define FE_SDPA_BACKWARD_OPTIONS_INIT
//     { (uint32_t)sizeof(fe_sdpa_backward_options), NULL, 0.0, NULL, FE_CAUSAL_MASK_NONE,
//       FE_DATA_NOT_SET, NULL, 0, NULL, NULL, NULL, NULL, 1.0, 0.0, NULL, NULL,
//       FE_SDPA_IMPLEMENTATION_AUTO, 0, 0, NULL, 0, -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0.0, 0,
//       NULL, NULL, NULL, NULL, 0 }

#include "ops/attention.hpp"

#include <limits>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/values.hpp"
#include "graph/attribute_writer.hpp"
#include "schema/schema.hpp"
#include "ops/graph_ops.hpp"

namespace fe {

AttentionNode::AttentionNode(std::vector<fe_tensor *> required, std::vector<const char *> required_ports,
                             const AttentionOptions &options, fe_data_type compute)
    : options_(options) {
    inputs = std::move(required);
    ports_ = std::move(required_ports);
    // Optional inputs follow the required ones; remember where each one sits.
    auto optional = [this](fe_tensor *t, const char *port) {
        if (!t) return -1;
        inputs.push_back(t);
        ports_.push_back(port);
        return static_cast<int>(inputs.size() - 1);
    };
    scale_ = optional(options.attn_scale_tensor, "attn_scale");
    bias_ = optional(options.bias, "bias");
    seq_q_ = optional(options.seq_len_q, "seq_len_q");
    seq_kv_ = optional(options.seq_len_kv, "seq_len_kv");
    alibi_ = optional(options.alibi_slopes, "alibi_slopes");
    dropout_ = optional(options.dropout_mask, "dropout_mask");
    seed_ = optional(options.dropout_seed, "dropout_seed");
    offset_ = optional(options.dropout_offset, "dropout_offset");
    page_k_ = optional(options.page_table_k, "page_table_k");
    page_v_ = optional(options.page_table_v, "page_table_v");
    sink_ = optional(options.sink_token, "sink_token");
    // The score modifiers' ends: the stand-ins name them in the graph JSON, the results order
    // this op after their chains.
    optional(options.score_mod.input, "score_mod_input");
    optional(options.score_mod.output, "score_mod_output");
    optional(options.score_mod_grad.input, "score_mod_grad_input");
    optional(options.score_mod_grad.output, "score_mod_grad_output");
    compute_data_type = compute;
}

const char *AttentionNode::input_port(size_t i) const { return i < ports_.size() ? ports_[i] : "IN"; }

std::string AttentionNode::combination() const {
    const fe_tensor *q = inputs[0], *k = inputs[1], *v = inputs[2];
    if (q->dims.size() != 4 || k->dims.size() != 4 || v->dims.size() != 4) return "";
    std::string s = format("%s '%s': %s, b=%lld h_q=%lld h_k=%lld s_q=%lld s_kv=%lld d=%lld d_v=%lld", kind(),
                           name.c_str(), data_type_name(q->data_type), static_cast<long long>(q->dims[0]),
                           static_cast<long long>(q->dims[1]), static_cast<long long>(k->dims[1]),
                           static_cast<long long>(q->dims[2]), static_cast<long long>(k->dims[2]),
                           static_cast<long long>(q->dims[3]), static_cast<long long>(v->dims[3]));
    std::string options = option_attributes();
    return s + (options.empty() ? "" : ", " + options);
}

std::vector<const char *> attention_forward_ports(bool stats, bool fp8_amaxes, bool dropout_mask, bool max_sum_exp) {
    std::vector<const char *> ports = {"O"};
    if (stats) ports.push_back("Stats");
    if (fp8_amaxes) ports.insert(ports.end(), {"Amax_S", "Amax_O"});
    if (dropout_mask) ports.push_back("DropoutMask");
    if (max_sum_exp) ports.insert(ports.end(), {"Max", "SumExp"});
    return ports;
}

void AttentionNode::infer_forward_outputs(const AttentionDims &d, const ForwardOutputs &outs) {
    FE_CHECK(!outs.dropout_mask || seed_ >= 0, FE_STATUS_INVALID_ARGUMENT,
             "output_dropout_mask needs dropout drawn by cuDNN (dropout_probability with seed and offset)");
    FE_CHECK(!(outs.max_sum_exp && outs.stats), FE_STATUS_INVALID_ARGUMENT,
             "generate_stats and output_max_sum_exp: cuDNN's engines give the stats or Max and SumExp, not both "
             "(the stats are Max + log(SumExp))");
    const std::vector<int64_t> rows = {d.b, d.h_q, d.s_q, 1};
    assign_inferred_shape(outputs[0], {d.b, d.h_q, d.s_q, d.d_v}, inputs[0]->strides);
    if (outs.stats) assign_inferred_shape(outputs[outs.stats_port], rows, packed_strides(rows));
    if (outs.dropout_mask) {
        const std::vector<int64_t> scores = {d.b, d.h_q, d.s_q, d.s_kv};
        assign_inferred_shape(outputs[outs.mask_port], scores, packed_strides(scores));
    }
    if (outs.max_sum_exp)
        for (size_t port : {outs.max_port, outs.max_port + 1}) assign_inferred_shape(outputs[port], rows, packed_strides(rows));
}

void AttentionNode::check_backward_inputs(const AttentionDims &d, int o, int d_o, int stats) const {
    const std::vector<int64_t> o_dims = {d.b, d.h_q, d.s_q, d.d_v};
    for (int port : {o, d_o}) {
        const fe_tensor *t = inputs[static_cast<size_t>(port)];
        FE_CHECK(t->dims == o_dims, FE_STATUS_INVALID_ARGUMENT, "%s '%s' is %s; it must be %s", ports_[port],
                 t->name.c_str(), dims_string(t->dims).c_str(), dims_string(o_dims).c_str());
    }
    const fe_tensor *t = inputs[static_cast<size_t>(stats)];
    FE_CHECK(t->dims == std::vector<int64_t>({d.b, d.h_q, d.s_q, 1}), FE_STATUS_INVALID_ARGUMENT,
             "Stats '%s' is %s; the forward's stats are [%lld, %lld, %lld, 1]", t->name.c_str(),
             dims_string(t->dims).c_str(), static_cast<long long>(d.b), static_cast<long long>(d.h_q),
             static_cast<long long>(d.s_q));
}

AttentionDims AttentionNode::check_qkv(const fe_tensor *q, const fe_tensor *k, const fe_tensor *v) const {
        for (const fe_tensor *t : {q, k, v}) {
            FE_CHECK(t->dims.size() == 4, FE_STATUS_INVALID_ARGUMENT,
                     "'%s' has rank %zu; attention takes [batch, heads, sequence, head dim]", t->name.c_str(),
                     t->dims.size());
            FE_CHECK(t->strides[3] == 1, FE_STATUS_INVALID_ARGUMENT,
                     "'%s' has stride %lld in its head dim; attention needs it contiguous (stride 1)", t->name.c_str(),
                     static_cast<long long>(t->strides[3]));
        }
        // cuDNN reads K transposed and compiles one kernel parameter per operand: the same
        // tensor in two roles breaks both, so each role needs its own tensor (sharing memory is fine).
        FE_CHECK(k != q && k != v && q != v, FE_STATUS_INVALID_ARGUMENT,
                 "'%s' is given as both %s; declare Q, K and V as separate tensors (they may share memory)",
                 (k == q || k == v) ? k->name.c_str() : q->name.c_str(), k == q ? "Q and K" : (k == v ? "K and V" : "Q and V"));
        int64_t b = q->dims[0], h_q = q->dims[1], s_q = q->dims[2], d = q->dims[3];
        int64_t h_k = k->dims[1], s_kv = k->dims[2], d_v = v->dims[3];
        if (page_k_ >= 0 || page_v_ >= 0) {
            // K and V are page containers [pages, h_k, page_size, d]; the tables say whose page is whose.
            FE_CHECK(page_k_ >= 0 && page_v_ >= 0, FE_STATUS_INVALID_ARGUMENT,
                     "paged K/V caches need both page_table_k and page_table_v");
            FE_CHECK(options_.max_seq_len_kv > 0, FE_STATUS_INVALID_ARGUMENT,
                     "paged K/V caches need max_seq_len_kv (the longest sequence), not %lld",
                     static_cast<long long>(options_.max_seq_len_kv));
            FE_CHECK(k->dims[3] == d && v->dims[1] == h_k && v->dims[2] == k->dims[2], FE_STATUS_INVALID_ARGUMENT,
                     "the K container %s and V container %s do not match (head dim %lld)", dims_string(k->dims).c_str(),
                     dims_string(v->dims).c_str(), static_cast<long long>(d));
            for (int index : {page_k_, page_v_}) {
                const fe_tensor *t = inputs[static_cast<size_t>(index)];
                // pages >= ceil(max_seq_len_kv / page_size), without the product that overflows.
                int64_t page_size = k->dims[2];
                int64_t pages_needed = options_.max_seq_len_kv / page_size + (options_.max_seq_len_kv % page_size != 0);
                FE_CHECK(t->dims.size() == 4 && t->dims[0] == b && t->dims[1] == 1 && t->dims[3] == 1 &&
                             t->dims[2] >= pages_needed,
                         FE_STATUS_INVALID_ARGUMENT,
                         "page table '%s' is %s; it must be [%lld, 1, pages, 1] with pages * %lld >= %lld",
                         t->name.c_str(), dims_string(t->dims).c_str(), static_cast<long long>(b),
                         static_cast<long long>(k->dims[2]), static_cast<long long>(options_.max_seq_len_kv));
            }
            FE_CHECK(h_q % h_k == 0, FE_STATUS_INVALID_ARGUMENT,
                     "Q has %lld heads, not a multiple of K's %lld (grouped-query attention needs one)",
                     static_cast<long long>(h_q), static_cast<long long>(h_k));
            return {b, h_q, h_k, s_q, options_.max_seq_len_kv, d, d_v};
        }
        FE_CHECK(k->dims[0] == b && v->dims[0] == b, FE_STATUS_INVALID_ARGUMENT,
                 "batch sizes differ: Q %lld, K %lld, V %lld", static_cast<long long>(b),
                 static_cast<long long>(k->dims[0]), static_cast<long long>(v->dims[0]));
        FE_CHECK(k->dims[3] == d, FE_STATUS_INVALID_ARGUMENT, "Q has head dim %lld but K has %lld",
                 static_cast<long long>(d), static_cast<long long>(k->dims[3]));
        FE_CHECK(v->dims[2] == s_kv, FE_STATUS_INVALID_ARGUMENT, "K has %lld keys but V has %lld values",
                 static_cast<long long>(s_kv), static_cast<long long>(v->dims[2]));
        FE_CHECK(v->dims[1] == h_k, FE_STATUS_INVALID_ARGUMENT, "K has %lld heads but V has %lld",
                 static_cast<long long>(h_k), static_cast<long long>(v->dims[1]));
        FE_CHECK(h_q % h_k == 0, FE_STATUS_INVALID_ARGUMENT,
                 "Q has %lld heads, not a multiple of K's %lld (grouped-query attention needs one)",
                 static_cast<long long>(h_q), static_cast<long long>(h_k));
        return {b, h_q, h_k, s_q, s_kv, d, d_v};
}

void AttentionNode::check_option_values() const {
    require_finite(options_.attn_scale, "options.attn_scale");
    require_finite(options_.dropout_scale, "options.dropout_scale");
    // The ranges of sliding_window (cuDNN takes it as an int32), right_bound and softcap, and the
    // enumerations' values, are the schema's, checked for every call (schema::check_ranges).
    FE_CHECK(options_.causal_mask == FE_CAUSAL_MASK_NONE || options_.right_bound < 0, FE_STATUS_INVALID_ARGUMENT,
             "options.causal_mask and options.right_bound %lld both bound the band on the right; a causal mask is "
             "right_bound 0: give one of them",
             static_cast<long long>(options_.right_bound));
    FE_CHECK(!(options_.causal_mask == FE_CAUSAL_MASK_TOP_LEFT &&
               options_.diagonal_alignment == FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT),
             FE_STATUS_INVALID_ARGUMENT,
             "options.causal_mask is TOP_LEFT but options.diagonal_alignment is BOTTOM_RIGHT; the causal mask sets "
             "the diagonal (use FE_CAUSAL_MASK_BOTTOM_RIGHT)");
}

bool AttentionNode::packed() const {
    for (size_t i = 0; i < 3; ++i)
        if (inputs[i]->ragged_offset) return true;
    for (const fe_tensor *out : outputs)
        if (out->ragged_offset) return true;
    return false;
}

bool AttentionNode::bottom_right() const {
    return options_.causal_mask == FE_CAUSAL_MASK_BOTTOM_RIGHT ||
           (options_.causal_mask == FE_CAUSAL_MASK_NONE &&
            options_.diagonal_alignment == FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT);
}

int64_t AttentionNode::diagonal_offset(const AttentionDims &d) const { return bottom_right() ? d.s_kv - d.s_q : 0; }

void AttentionNode::check_options(const AttentionDims &dims) {
    check_option_values();
    check_scale_bias_and_alibi(dims);
    check_dropout(dims);
    check_sinks_and_score_modifiers(dims);
    check_padding(dims);
}

// One attention scale; a bias of the scores' shape, broadcast over the batch or the heads; one
// ALiBi slope per query head.
void AttentionNode::check_scale_bias_and_alibi(const AttentionDims &dims) {
    const int64_t b = dims.b, h_q = dims.h_q, s_q = dims.s_q, s_kv = dims.s_kv;
    if (scale_ >= 0) {
        fe_tensor *scale = inputs[static_cast<size_t>(scale_)];
        if (scale->by_value) {
            shape_single_element(scale, "attn_scale_tensor", 4);
        } else {
            int64_t n = element_count(scale->dims);
            FE_CHECK(n == 1, FE_STATUS_INVALID_ARGUMENT, "attn_scale_tensor '%s' must hold one element, not %lld",
                     scale->name.c_str(), static_cast<long long>(n));
        }
    }
    if (bias_ >= 0) {
        const fe_tensor *bias = inputs[static_cast<size_t>(bias_)];
        const std::vector<int64_t> &bd = bias->dims;
        FE_CHECK(bd.size() == 4 && (bd[0] == 1 || bd[0] == b) && (bd[1] == 1 || bd[1] == h_q) && bd[2] == s_q &&
                     bd[3] == s_kv,
                 FE_STATUS_INVALID_ARGUMENT, "bias '%s' is %s; it must be [1 or %lld, 1 or %lld, %lld, %lld]",
                 bias->name.c_str(), dims_string(bd).c_str(), static_cast<long long>(b),
                 static_cast<long long>(h_q), static_cast<long long>(s_q), static_cast<long long>(s_kv));
        FE_CHECK(bias->data_type == FE_DATA_NOT_SET || bias->data_type == FE_DATA_FLOAT ||
                     bias->data_type == FE_DATA_HALF || bias->data_type == FE_DATA_BFLOAT16,
                 FE_STATUS_INVALID_ARGUMENT, "bias '%s' is %s; attention adds a float, half or bfloat16 bias",
                 bias->name.c_str(), data_type_name(bias->data_type));
    }
    if (alibi_ >= 0) {
        const fe_tensor *slopes = inputs[static_cast<size_t>(alibi_)];
        FE_CHECK(slopes->dims == std::vector<int64_t>({1, h_q, 1, 1}), FE_STATUS_INVALID_ARGUMENT,
                 "alibi_slopes '%s' is %s; it must be [1, %lld, 1, 1]", slopes->name.c_str(),
                 dims_string(slopes->dims).c_str(), static_cast<long long>(h_q));
    }
}

// A mask of the scores' shape, or a probability with its seed and offset: not both.
void AttentionNode::check_dropout(const AttentionDims &dims) {
    const int64_t b = dims.b, h_q = dims.h_q, s_q = dims.s_q, s_kv = dims.s_kv;
    if (dropout_ >= 0) {
        const fe_tensor *mask = inputs[static_cast<size_t>(dropout_)];
        const std::vector<int64_t> &md = mask->dims;
        FE_CHECK(md.size() == 4 && (md[0] == 1 || md[0] == b) && (md[1] == 1 || md[1] == h_q) && md[2] == s_q &&
                     md[3] == s_kv,
                 FE_STATUS_INVALID_ARGUMENT, "dropout_mask '%s' is %s; it must be [1 or %lld, 1 or %lld, %lld, %lld]",
                 mask->name.c_str(), dims_string(md).c_str(), static_cast<long long>(b),
                 static_cast<long long>(h_q), static_cast<long long>(s_q), static_cast<long long>(s_kv));
        FE_CHECK(options_.dropout_scale > 0, FE_STATUS_INVALID_ARGUMENT, "dropout_scale is %g; it must be positive",
                 options_.dropout_scale);
    }
    if (options_.dropout_probability != 0.0 || seed_ >= 0 || offset_ >= 0) {
        FE_CHECK(options_.dropout_probability > 0.0 && options_.dropout_probability < 1.0,
                 FE_STATUS_INVALID_ARGUMENT, "dropout_probability is %g; it must be in (0, 1)",
                 options_.dropout_probability);
        FE_CHECK(seed_ >= 0 && offset_ >= 0, FE_STATUS_INVALID_ARGUMENT,
                 "dropout with a probability needs dropout_seed and dropout_offset tensors");
        FE_CHECK(dropout_ < 0, FE_STATUS_INVALID_ARGUMENT,
                 "give dropout either a probability (drawn by cuDNN) or a dropout_mask, not both");
        for (int index : {seed_, offset_}) {
            fe_tensor *t = inputs[static_cast<size_t>(index)];
            int64_t n = element_count(t->dims);
            FE_CHECK(n == 1 && (t->data_type == FE_DATA_INT64 || t->data_type == FE_DATA_NOT_SET),
                     FE_STATUS_INVALID_ARGUMENT, "'%s' must be one int64 element (it is %s %s)", t->name.c_str(),
                     data_type_name(t->data_type), dims_string(t->dims).c_str());
            if (t->dims.size() != 4) {
                t->dims.assign(4, 1);
                t->strides.assign(4, 1);
            }
        }
    }
}

// One float sink logit per query head; score modifiers over float tensors of the scores' shape.
void AttentionNode::check_sinks_and_score_modifiers(const AttentionDims &dims) {
    const int64_t b = dims.b, h_q = dims.h_q, s_q = dims.s_q, s_kv = dims.s_kv;
    if (sink_ >= 0) {
        const fe_tensor *sink = inputs[static_cast<size_t>(sink_)];
        FE_CHECK(sink->dims == std::vector<int64_t>({1, h_q, 1, 1}), FE_STATUS_INVALID_ARGUMENT,
                 "sink_token '%s' is %s; it must be [1, %lld, 1, 1] (one logit per query head)", sink->name.c_str(),
                 dims_string(sink->dims).c_str(), static_cast<long long>(h_q));
        FE_CHECK(sink->data_type == FE_DATA_FLOAT || sink->data_type == FE_DATA_NOT_SET, FE_STATUS_INVALID_ARGUMENT,
                 "sink_token '%s' is %s; the sinks are float", sink->name.c_str(), data_type_name(sink->data_type));
    }
    const std::vector<int64_t> score_dims = {b, h_q, s_q, s_kv};
    for (const ScoreModifier *m : {&options_.score_mod, &options_.score_mod_grad}) {
        if (!m->given()) continue;
        for (const fe_tensor *t : {m->input, m->output}) {
            FE_CHECK(t->dims == score_dims, FE_STATUS_INVALID_ARGUMENT,
                     "score modifier tensor '%s' is %s; the scores are %s", t->name.c_str(),
                     dims_string(t->dims).c_str(), dims_string(score_dims).c_str());
            FE_CHECK(t->data_type == FE_DATA_FLOAT || t->data_type == FE_DATA_NOT_SET, FE_STATUS_INVALID_ARGUMENT,
                     "score modifier tensor '%s' is %s; the scores are float", t->name.c_str(),
                     data_type_name(t->data_type));
        }
    }
}

// Packed or paged tensors need a padding mask: both lengths, int32 [b, 1, 1, 1].
void AttentionNode::check_padding(const AttentionDims &dims) {
    const int64_t b = dims.b;
    bool ragged = false;
    for (size_t i = 0; i < 3; ++i) ragged = ragged || inputs[i]->ragged_offset;
    FE_CHECK(!ragged || seq_q_ >= 0, FE_STATUS_INVALID_ARGUMENT,
             "ragged (packed) Q, K or V needs a padding mask: set seq_len_q and seq_len_kv");
    FE_CHECK(page_k_ < 0 || seq_q_ >= 0, FE_STATUS_INVALID_ARGUMENT,
             "paged K/V caches need a padding mask: set seq_len_q and seq_len_kv");
    FE_CHECK((seq_q_ >= 0) == (seq_kv_ >= 0), FE_STATUS_INVALID_ARGUMENT,
             "a padding mask needs both seq_len_q and seq_len_kv");
    for (int index : {seq_q_, seq_kv_}) {
        if (index < 0) continue;
        const fe_tensor *t = inputs[static_cast<size_t>(index)];
        FE_CHECK(t->data_type == FE_DATA_INT32 || t->data_type == FE_DATA_NOT_SET, FE_STATUS_INVALID_ARGUMENT,
                 "'%s' is %s; sequence lengths are int32", t->name.c_str(), data_type_name(t->data_type));
        FE_CHECK(t->dims == std::vector<int64_t>({b, 1, 1, 1}), FE_STATUS_INVALID_ARGUMENT,
                 "'%s' is %s; sequence lengths are [%lld, 1, 1, 1]", t->name.c_str(), dims_string(t->dims).c_str(),
                 static_cast<long long>(b));
    }
}

void AttentionNode::check_types(const std::vector<const fe_tensor *> &tensors) {
    for (const fe_tensor *t : tensors)
        FE_CHECK(t->data_type == FE_DATA_HALF || t->data_type == FE_DATA_BFLOAT16, FE_STATUS_NOT_SUPPORTED,
                 "attention takes half or bfloat16 tensors; '%s' is %s", t->name.c_str(), data_type_name(t->data_type));
    for (const fe_tensor *t : tensors)
        FE_CHECK(t->data_type == tensors[0]->data_type, FE_STATUS_NOT_SUPPORTED,
                 "attention's tensors must share a data type ('%s' is %s, '%s' is %s)", tensors[0]->name.c_str(),
                 data_type_name(tensors[0]->data_type), t->name.c_str(), data_type_name(t->data_type));
}

std::string AttentionNode::option_attributes() const {
    std::string a = format("attn_scale=%g", options_.attn_scale);
    if (options_.attn_scale_tensor) a = "attn_scale=" + options_.attn_scale_tensor->name;
    if (options_.causal_mask == FE_CAUSAL_MASK_TOP_LEFT) a += " causal=top_left";
    if (options_.causal_mask == FE_CAUSAL_MASK_BOTTOM_RIGHT) a += " causal=bottom_right";
    if (options_.bias) a += " bias=" + options_.bias->name;
    if (options_.sliding_window > 0) a += format(" window=%lld", static_cast<long long>(options_.sliding_window));
    if (options_.right_bound >= 0) a += format(" right_bound=%lld", static_cast<long long>(options_.right_bound));
    if (options_.causal_mask == FE_CAUSAL_MASK_NONE && options_.diagonal_alignment == FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT)
        a += " diagonal=bottom_right";
    if (options_.softcap > 0) a += format(" softcap=%g", options_.softcap);
    if (options_.score_mod.given())
        a += format(" score_mod=%s(%zu ops)", options_.score_mod.output->name.c_str(), options_.score_mod.nodes.size());
    if (options_.score_mod_grad.given())
        a += format(" score_mod_grad=%s(%zu ops)", options_.score_mod_grad.output->name.c_str(),
                    options_.score_mod_grad.nodes.size());
    if (options_.sink_token) a += " sink=" + options_.sink_token->name;
    if (options_.seq_len_q) a += " padding_mask";
    if (options_.alibi_slopes) a += " alibi";
    if (options_.dropout_mask)
        a += format(" dropout(mask=%s, scale=%g)", options_.dropout_mask->name.c_str(), options_.dropout_scale);
    if (options_.dropout_seed) a += format(" dropout(p=%g)", options_.dropout_probability);
    return a;
}

std::string AttentionNode::native_obstacle(size_t cudnn_version, bool backward, const std::string &extra) const {
    // What cuDNN's native SDPA operation takes, by version: the capability table's native_sdpa*
    // entries (later versions take masks, bias and dropout as a score subgraph; this library
    // lowers those as the composite pattern).
    const int64_t version = static_cast<int64_t>(cudnn_version);
    std::string why = refusal(Feature::native_sdpa, version);
    if (why.empty() && backward) why = refusal(Feature::native_sdpa_backward, version);
    if (!why.empty()) return why;
    auto score_modifier = [&](const char *option) {
        return not_lowered(Feature::native_sdpa_score_modifiers, option, version);
    };
    if (options_.causal_mask != FE_CAUSAL_MASK_NONE) return score_modifier("causal mask");
    if (options_.sliding_window > 0) return score_modifier("sliding window");
    if (options_.right_bound >= 0) return score_modifier("right bound");
    if (options_.softcap > 0) return score_modifier("soft-capping");
    if (options_.score_mod.given() || options_.score_mod_grad.given())
        return "the native SDPA operation takes no score modifier of the caller's (score_mod_input)";
    if (sink_ >= 0) return not_lowered(Feature::native_sdpa_softmax_outputs, "attention sinks", version);
    if (bias_ >= 0) return score_modifier("bias");
    if (alibi_ >= 0) return score_modifier("ALiBi");
    if (dropout_ >= 0) return "the native SDPA operation takes no caller-supplied dropout mask";
    if (seed_ >= 0) return not_lowered(Feature::native_sdpa_dropout, "dropout", version);
    if (seq_q_ >= 0 || page_k_ >= 0) why = refusal(Feature::native_sdpa_padding_and_paging, version);
    if (!why.empty()) return why;
    for (size_t i = 0; i < 3; ++i)
        if (inputs[i]->ragged_offset) return "the native SDPA operation takes no ragged (packed) layouts";
    if (compute_data_type != FE_DATA_NOT_SET && compute_data_type != FE_DATA_FLOAT)
        return "the native SDPA operation computes in float only";
    if (!extra.empty()) return "the native SDPA operation takes no " + extra;
    return "";
}

bool AttentionNode::lowers_native(Lowering &lowering, bool backward, const std::string &extra,
                                  const std::string &what) const {
    const fe_sdpa_implementation requested = options_.implementation;
    FE_CHECK(requested >= FE_SDPA_IMPLEMENTATION_AUTO && requested <= FE_SDPA_IMPLEMENTATION_NATIVE,
             FE_STATUS_INVALID_ARGUMENT, "%s: unknown implementation %d", what.c_str(), static_cast<int>(requested));
    bool native = false;
    if (requested != FE_SDPA_IMPLEMENTATION_COMPOSITE) {
        std::string obstacle = native_obstacle(cudnn().cudnnGetVersion(), backward, extra);
        FE_CHECK(requested != FE_SDPA_IMPLEMENTATION_NATIVE || obstacle.empty(), FE_STATUS_NOT_SUPPORTED,
                 "implementation NATIVE: %s", obstacle.c_str());
        native = obstacle.empty() && !(requested == FE_SDPA_IMPLEMENTATION_AUTO && lowering.composite_attention_only());
    }
    lowering.record_attention(*this, native, requested == FE_SDPA_IMPLEMENTATION_AUTO);
    return native;
}

const Descriptor *AttentionNode::dropout_mask(Lowering &lowering, const AttentionDims &d, const fe_tensor *drawn_output,
                                              const std::string &what) const {
    if (dropout_ >= 0) return &lowering.tensor(inputs[static_cast<size_t>(dropout_)]);
    if (seed_ < 0) return nullptr;
    const std::vector<int64_t> scores = {d.b, d.h_q, d.s_q, d.s_kv};
    const Descriptor &mask = drawn_output ? lowering.tensor(drawn_output)
                                          : lowering.internal_tensor(scores, packed_strides(scores), FE_DATA_FLOAT);
    emit_rng_bernoulli(lowering, 1.0 - options_.dropout_probability, lowering.tensor(inputs[static_cast<size_t>(seed_)]),
                       lowering.tensor(inputs[static_cast<size_t>(offset_)]), mask, what + " dropout draw");
    return &mask;
}

const Descriptor *AttentionNode::softmax(Lowering &lowering, const Descriptor &s, const AttentionDims &d,
                                         fe_data_type compute, const Descriptor *stats, fe_data_type type,
                                         const std::string &what, const Descriptor *max,
                                         const Descriptor *sum_exp) const {
    const std::vector<int64_t> scores = {d.b, d.h_q, d.s_q, d.s_kv};
    const std::vector<int64_t> rows = {d.b, d.h_q, d.s_q, 1};
    const fe_pointwise_options pw = FE_POINTWISE_OPTIONS_INIT;
    auto label = [&what](const char *step) { return what + " " + step; };
    auto scores_tensor = [&](fe_data_type t) -> const Descriptor & {
        return lowering.internal_tensor(scores, packed_strides(scores), t);
    };
    auto row_tensor = [&]() -> const Descriptor & { return lowering.internal_tensor(rows, packed_strides(rows), FE_DATA_FLOAT); };
    // The row max (with a sink: the larger of it and the sink's logit).
    const Descriptor &row_max = max && !has_sink() ? *max : row_tensor();
    emit_reduction(lowering, FE_REDUCTION_MAX, s, row_max, compute, label("row max"));
    const Descriptor *top = &row_max;
    if (has_sink()) {
        top = max ? max : &row_tensor();
        emit_pointwise(lowering, FE_POINTWISE_MAX, row_max, &sink(lowering), nullptr, *top, compute, pw, 0,
                       label("max with sink"));
    }
    const Descriptor &centered = scores_tensor(FE_DATA_FLOAT);
    emit_pointwise(lowering, FE_POINTWISE_SUB, s, top, nullptr, centered, compute, pw, 0, label("subtract max"));
    const Descriptor &exps = scores_tensor(FE_DATA_FLOAT);
    emit_pointwise(lowering, FE_POINTWISE_EXP, centered, nullptr, nullptr, exps, compute, pw, 0, label("exp"));
    // The row sum (with a sink: plus exp(sink - max)).
    const Descriptor &row_sum = sum_exp && !has_sink() ? *sum_exp : row_tensor();
    const Descriptor *total = &row_sum;
    if (has_sink()) {
        const Descriptor &sink_centered = row_tensor();
        emit_pointwise(lowering, FE_POINTWISE_SUB, sink(lowering), top, nullptr, sink_centered, compute, pw, 0,
                       label("sink minus max"));
        const Descriptor &sink_exp = row_tensor();
        emit_pointwise(lowering, FE_POINTWISE_EXP, sink_centered, nullptr, nullptr, sink_exp, compute, pw, 0,
                       label("sink exp"));
        emit_reduction(lowering, FE_REDUCTION_ADD, exps, row_sum, compute, label("row sum"));
        total = sum_exp ? sum_exp : &row_tensor();
        emit_pointwise(lowering, FE_POINTWISE_ADD, row_sum, &sink_exp, nullptr, *total, compute, pw, 0,
                       label("sum with sink"));
    } else {
        emit_reduction(lowering, FE_REDUCTION_ADD, exps, row_sum, compute, label("row sum"));
    }
    // The stats, unless Max and SumExp are output instead (cuDNN's engines match one or the other).
    if (!max) {
        const Descriptor &log_sum = row_tensor();
        emit_pointwise(lowering, FE_POINTWISE_LOG, *total, nullptr, nullptr, log_sum, compute, pw, 0, label("log sum"));
        emit_pointwise(lowering, FE_POINTWISE_ADD, *top, &log_sum, nullptr, stats ? *stats : row_tensor(), compute, pw,
                       0, label("stats"));
    }
    const Descriptor &probabilities = scores_tensor(type);
    emit_pointwise(lowering, FE_POINTWISE_DIV, exps, total, nullptr, probabilities, compute, pw, 0,
                   label("normalize"));
    return &probabilities;
}

const Descriptor *AttentionNode::apply_dropout(Lowering &lowering, const Descriptor &p, const AttentionDims &d,
                                               fe_data_type compute, const fe_tensor *drawn_output, fe_data_type type,
                                               const std::string &what) const {
    const Descriptor *mask = dropout_mask(lowering, d, drawn_output, what);
    if (!mask) return &p;
    // P * mask / keep rate (a caller's mask: P * scale * mask, as cuDNN matches that form).
    const std::vector<int64_t> scores = {d.b, d.h_q, d.s_q, d.s_kv};
    const fe_pointwise_options pw = FE_POINTWISE_OPTIONS_INIT;
    const Descriptor &scale = lowering.internal_scalar(dropout_scale(), FE_DATA_FLOAT, 4);
    const Descriptor &first = lowering.internal_tensor(scores, packed_strides(scores), FE_DATA_FLOAT);
    const Descriptor &dropped = lowering.internal_tensor(scores, packed_strides(scores), type);
    bool drawn = seed_ >= 0;
    emit_pointwise(lowering, FE_POINTWISE_MUL, p, drawn ? mask : &scale, nullptr, first, compute, pw, 0,
                   what + (drawn ? " dropout mask" : " dropout scale"));
    emit_pointwise(lowering, FE_POINTWISE_MUL, first, drawn ? &scale : mask, nullptr, dropped, compute, pw, 0,
                   what + (drawn ? " dropout scale" : " dropout mask"));
    return &dropped;
}

const Descriptor &AttentionNode::keys_transposed(Lowering &lowering, const AttentionDims &d,
                                                 const std::string &what) const {
    const fe_tensor *k = inputs[1];
    if (!paged())  // K read transposed by swapping its last two dims and strides
        return lowering.tensor_view(k, {d.b, d.h_k, d.d, d.s_kv},
                                    {k->strides[0], k->strides[1], k->strides[3], k->strides[2]});
    const Descriptor &keys = lowering.internal_tensor({d.b, d.h_k, d.d, d.s_kv},
                                                      {d.d * d.s_kv * d.h_k, d.d * d.s_kv, 1, d.d}, k->data_type);
    emit_paged_cache_load(lowering, lowering.tensor(k), lowering.tensor(inputs[static_cast<size_t>(page_k_)]),
                          *length_kv(lowering), keys, what + " K pages");
    return keys;
}

const Descriptor &AttentionNode::values(Lowering &lowering, const AttentionDims &d, const std::string &what) const {
    const fe_tensor *v = inputs[2];
    if (!paged()) return lowering.tensor(v);
    const std::vector<int64_t> dims = {d.b, d.h_k, d.s_kv, d.d_v};
    const Descriptor &vals = lowering.internal_tensor(dims, packed_strides(dims), v->data_type);
    emit_paged_cache_load(lowering, lowering.tensor(v), lowering.tensor(inputs[static_cast<size_t>(page_v_)]),
                          *length_kv(lowering), vals, what + " V pages");
    return vals;
}

const Descriptor *AttentionNode::length_q(Lowering &lowering) const {
    return seq_q_ >= 0 ? &lowering.tensor(inputs[static_cast<size_t>(seq_q_)]) : nullptr;
}

const Descriptor *AttentionNode::length_kv(Lowering &lowering) const {
    return seq_kv_ >= 0 ? &lowering.tensor(inputs[static_cast<size_t>(seq_kv_)]) : nullptr;
}

// The scores being modified: the current tensor, and what each step makes (float, int32 and
// boolean tensors of the scores' shape, indices, comparisons, masks).
struct AttentionNode::ScorePass {
    ScorePass(Lowering &l, const Descriptor *scores_in, const AttentionDims &dims, fe_data_type c,
              const std::string &w, const Descriptor *lq, const Descriptor *lkv)
        : lowering(l), s(scores_in), scores{dims.b, dims.h_q, dims.s_q, dims.s_kv},
          score_strides(packed_strides(scores)), compute(c), what(w), len_q(lq), len_kv(lkv) {}
    Lowering &lowering;
    const Descriptor *s;
    const std::vector<int64_t> scores, score_strides;
    const fe_data_type compute;
    const std::string &what;
    const Descriptor *len_q, *len_kv;
    const fe_pointwise_options pw = FE_POINTWISE_OPTIONS_INIT;
    const Descriptor *row = nullptr, *col = nullptr;

    std::string label(const char *step) const { return what + " " + step; }
    const Descriptor &scores_tensor(fe_data_type type) const {
        return lowering.internal_tensor(scores, score_strides, type);
    }
    // s = s (mode) y, in float.
    void apply(fe_pointwise_mode mode, const Descriptor *y, const char *step) {
        const Descriptor &out = scores_tensor(FE_DATA_FLOAT);
        emit_pointwise(lowering, mode, *s, y, nullptr, out, compute, pw, 0, label(step));
        s = &out;
    }
    // The row and column indices of the scores. Each mask generates its own from the scores it
    // masks: cuDNN's engines match the pattern mask by mask, so index tensors are not shared.
    void indices() {
        row = &scores_tensor(FE_DATA_INT32);
        emit_pointwise(lowering, FE_POINTWISE_GEN_INDEX, *s, nullptr, nullptr, *row, FE_DATA_INT32, pw, 2,
                       label("row index"));
        col = &scores_tensor(FE_DATA_INT32);
        emit_pointwise(lowering, FE_POINTWISE_GEN_INDEX, *s, nullptr, nullptr, *col, FE_DATA_INT32, pw, 3,
                       label("column index"));
    }
    // Keeps the scores where `keep` holds and sets the others to -inf.
    void apply_mask(const Descriptor &keep, const char *step) {
        const Descriptor &minus_inf =
            lowering.internal_scalar(-std::numeric_limits<double>::infinity(), FE_DATA_FLOAT, 4);
        const Descriptor &masked = scores_tensor(FE_DATA_FLOAT);
        emit_pointwise(lowering, FE_POINTWISE_BINARY_SELECT, *s, &minus_inf, &keep, masked, compute, pw, 0,
                       label(step));
        s = &masked;
    }
    const Descriptor &add_int(const Descriptor &x, const Descriptor &y, const char *step) const {
        const Descriptor &sum = scores_tensor(FE_DATA_INT32);
        emit_pointwise(lowering, FE_POINTWISE_ADD, x, &y, nullptr, sum, FE_DATA_INT32, pw, 0, label(step));
        return sum;
    }
    const Descriptor &compare(fe_pointwise_mode mode, const Descriptor &x, const Descriptor &y,
                              const char *step) const {
        const Descriptor &keep = scores_tensor(FE_DATA_BOOLEAN);
        emit_pointwise(lowering, mode, x, &y, nullptr, keep, FE_DATA_BOOLEAN, pw, 0, label(step));
        return keep;
    }
    // index (first) seq_len_kv (second) seq_len_q, per sequence.
    const Descriptor &shift_by_lengths(const Descriptor &index, fe_pointwise_mode first, fe_pointwise_mode second,
                                       const char *first_step, const char *second_step) const {
        const Descriptor &partial = scores_tensor(FE_DATA_INT32);
        emit_pointwise(lowering, first, index, len_kv, nullptr, partial, FE_DATA_INT32, pw, 0, label(first_step));
        const Descriptor &shifted = scores_tensor(FE_DATA_INT32);
        emit_pointwise(lowering, second, partial, len_q, nullptr, shifted, FE_DATA_INT32, pw, 0, label(second_step));
        return shifted;
    }
};

const Descriptor *AttentionNode::modify_scores(Lowering &lowering, const Descriptor *s, const AttentionDims &dims,
                                               fe_data_type compute, const std::string &what,
                                               const std::vector<const Descriptor *> &factors,
                                               const Descriptor **capped) const {
    const Descriptor *len_q = length_q(lowering), *len_kv = length_kv(lowering);
    ScorePass pass(lowering, s, dims, compute, what, len_q, len_kv);
    scale_cap_and_bias_scores(pass, factors, capped);
    if (alibi_ >= 0) add_alibi(pass);
    mask_scores(pass, dims);
    return pass.s;
}

// The attention scale, the factors, the caller's score modifier, the soft-cap and the bias.
void AttentionNode::scale_cap_and_bias_scores(ScorePass &pass, const std::vector<const Descriptor *> &factors,
                                              const Descriptor **capped) const {
    Lowering &lowering = pass.lowering;
    if (scale_ >= 0 || options_.attn_scale != 0.0) {
        const Descriptor &scale = scale_ >= 0 ? lowering.tensor(inputs[static_cast<size_t>(scale_)])
                                              : lowering.internal_scalar(options_.attn_scale, FE_DATA_FLOAT, 4);
        pass.apply(FE_POINTWISE_MUL, &scale, "scale");
    }
    for (const Descriptor *factor : factors) pass.apply(FE_POINTWISE_MUL, factor, "descale");
    if (options_.score_mod.given()) pass.s = &lower_score_modifier(lowering, options_.score_mod, *pass.s);
    if (options_.softcap > 0) {
        // s = cap * tanh(s / cap)
        const Descriptor &cap = lowering.internal_scalar(options_.softcap, FE_DATA_FLOAT, 4);
        pass.apply(FE_POINTWISE_DIV, &cap, "softcap divide");
        if (capped) *capped = pass.s;
        pass.apply(FE_POINTWISE_TANH_FWD, nullptr, "softcap tanh");
        pass.apply(FE_POINTWISE_MUL, &cap, "softcap");
    }
    if (bias_ >= 0) {
        const Descriptor &biased = pass.scores_tensor(FE_DATA_FLOAT);
        emit_pointwise(lowering, FE_POINTWISE_ADD, *pass.s, &lowering.tensor(inputs[static_cast<size_t>(bias_)]),
                       nullptr, biased, pass.compute, pass.pw, 0, pass.label("bias"));
        pass.s = &biased;
    }
}

// score += slope[h] * (j - i)
void AttentionNode::add_alibi(ScorePass &pass) const {
    Lowering &lowering = pass.lowering;
    pass.indices();
    const Descriptor &distance = pass.scores_tensor(FE_DATA_INT32);
    emit_pointwise(lowering, FE_POINTWISE_SUB, *pass.col, pass.row, nullptr, distance, FE_DATA_INT32, pass.pw, 0,
                   pass.label("alibi distance"));
    const Descriptor &alibi = pass.scores_tensor(FE_DATA_FLOAT);
    emit_pointwise(lowering, FE_POINTWISE_MUL, distance, &lowering.tensor(inputs[static_cast<size_t>(alibi_)]), nullptr,
                   alibi, pass.compute, pass.pw, 0, pass.label("alibi slope"));
    pass.apply(FE_POINTWISE_ADD, &alibi, "alibi");
}

// The padding mask, the band's right bound (the causal mask: 0) and the sliding window, each
// keeping the scores where a comparison of row and column indices holds.
void AttentionNode::mask_scores(ScorePass &pass, const AttentionDims &dims) const {
    Lowering &lowering = pass.lowering;
    const int64_t right_bound = effective_right_bound();
    // Bottom-right alignment puts query i's diagonal at key i + s_kv - s_q: each sequence's own
    // lengths under a padding mask (seq_len_kv[b] - seq_len_q[b]), else the tensors' dims.
    const bool per_sequence = bottom_right() && pass.len_q && pass.len_kv;
    const int64_t diagonal = per_sequence ? 0 : diagonal_offset(dims);
    if (seq_q_ >= 0) {
        pass.indices();
        const Descriptor &row_in = pass.compare(FE_POINTWISE_CMP_LT, *pass.row, *pass.len_q, "row < seq_len_q");
        const Descriptor &col_in = pass.compare(FE_POINTWISE_CMP_LT, *pass.col, *pass.len_kv, "column < seq_len_kv");
        const Descriptor &keep = pass.scores_tensor(FE_DATA_BOOLEAN);
        emit_pointwise(lowering, FE_POINTWISE_LOGICAL_AND, row_in, &col_in, nullptr, keep, FE_DATA_BOOLEAN, pass.pw, 0,
                       pass.label("padding"));
        pass.apply_mask(keep, "padding mask");
    }
    if (right_bound >= 0) {
        // Keep (i, j) with diagonal(i) + right_bound >= j.
        pass.indices();
        const Descriptor *shifted = pass.row;
        if (per_sequence)
            shifted = &pass.shift_by_lengths(*pass.row, FE_POINTWISE_ADD, FE_POINTWISE_SUB, "row + seq_len_kv",
                                             "row + seq_len_kv - seq_len_q");
        if (diagonal + right_bound != 0)
            shifted = &pass.add_int(
                *shifted, lowering.internal_scalar(static_cast<double>(diagonal + right_bound), FE_DATA_INT32, 4),
                "diagonal shift");
        pass.apply_mask(pass.compare(FE_POINTWISE_CMP_GE, *shifted, *pass.col, "causal comparison"), "causal mask");
    }
    if (options_.sliding_window > 0) {
        // Keep (i, j) with j + window - (diagonal(i) - i) > i.
        pass.indices();
        const Descriptor *reach = &pass.add_int(
            *pass.col,
            lowering.internal_scalar(static_cast<double>(options_.sliding_window - diagonal), FE_DATA_INT32, 4),
            "window reach");
        if (per_sequence)
            reach = &pass.shift_by_lengths(*reach, FE_POINTWISE_SUB, FE_POINTWISE_ADD, "window reach - seq_len_kv",
                                           "window reach - seq_len_kv + seq_len_q");
        pass.apply_mask(pass.compare(FE_POINTWISE_CMP_GT, *reach, *pass.row, "window comparison"), "sliding window");
    }
}

}  // namespace fe

// What the four attention ops share in their descriptions (lib/schema/schema.hpp): the option
// structs of the forward and backward passes, with their enums, and the input ports; each op's own
// description is in its file (sdpa.cpp, sdpa_fp8.cpp, sdpa_backward.cpp, sdpa_fp8_backward.cpp).
namespace fe {

namespace {

const schema::Enum &causal_mask_enum() {
    static const schema::Enum names{"fe_causal_mask",
                           {{"FE_CAUSAL_MASK_NONE", "none", FE_CAUSAL_MASK_NONE},
                            {"FE_CAUSAL_MASK_TOP_LEFT", "top_left", FE_CAUSAL_MASK_TOP_LEFT, "Query i sees keys 0..i."},
                            {"FE_CAUSAL_MASK_BOTTOM_RIGHT", "bottom_right", FE_CAUSAL_MASK_BOTTOM_RIGHT,
                             "Query i sees keys up to its diagonal, key i + s_kv - s_q of its own sequence's "
                             "lengths under a padding mask."}},
                           "The causal mask's alignment."};
    return names;
}

const schema::Enum &implementation_enum() {
    static const schema::Enum names{"fe_sdpa_implementation",
                               {{"FE_SDPA_IMPLEMENTATION_AUTO", "auto", FE_SDPA_IMPLEMENTATION_AUTO,
                                 "Native where it takes every option given and has an engine for the GPU, "
                                 "else composite."},
                                {"FE_SDPA_IMPLEMENTATION_COMPOSITE", "composite", FE_SDPA_IMPLEMENTATION_COMPOSITE},
                                {"FE_SDPA_IMPLEMENTATION_NATIVE", "native", FE_SDPA_IMPLEMENTATION_NATIVE,
                                 "Fails at build, naming the option or version, when the native operation "
                                 "cannot take the graph."}},
                               "How attention is lowered: cuDNN's SDPA operation or the composite pattern."};
    return names;
}

const schema::Enum &diagonal_alignment_enum() {
    static const schema::Enum names{"fe_diagonal_alignment",
                                  {{"FE_DIAGONAL_ALIGNMENT_TOP_LEFT", "top_left", FE_DIAGONAL_ALIGNMENT_TOP_LEFT,
                                    "Query i's diagonal is key i."},
                                   {"FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT", "bottom_right",
                                    FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT,
                                    "Query i's diagonal is key i + s_kv - s_q, per sequence under a padding mask."}},
                                  "Where a band's diagonal sits when there is no causal mask."};
    return names;
}

// The band and soft-capping fields both option structs append, in the same order.
#define FE_SDPA_BAND_FIELDS(S)                                                                                     \
    FE_SCHEMA_RANGE(S, right_bound, integer, -1, 2147483647, "The band's right bound (look-ahead); -1: none."),   \
        FE_SCHEMA_ENUM(S, diagonal_alignment, diagonal_alignment_enum(), "The band's diagonal without a causal mask."),  \
        FE_SCHEMA_RANGE(S, softcap, number, 0, 1.7e308, "Soft-capping: cap * tanh(s / cap); 0: none.")

// A caller's pointwise chain on the scores, both structs' last fields before the backward's own.
#define FE_SDPA_SCORE_MOD_FIELDS(S)                                                                                \
    FE_SCHEMA_TENSOR(S, score_mod_input, nullptr, "Stands for the scaled scores, float [b, h_q, s_q, s_kv]."),    \
        FE_SCHEMA_TENSOR(S, score_mod_output, nullptr, "The end of the caller's pointwise chain on the scores.")

// The score modifiers both option structs have, in the same order.
#define FE_SDPA_SCORE_FIELDS(S)                                                                                    \
    FE_SCHEMA_FIELD(S, attn_scale, number, "Scores are Q.K^T * attn_scale; 0: no scaling."),                      \
        FE_SCHEMA_TENSOR(S, attn_scale_tensor, "attn_scale", "The scale as a one-element float tensor."),        \
        FE_SCHEMA_ENUM(S, causal_mask, causal_mask_enum(), "The causal mask."),                                          \
        FE_SCHEMA_COMPUTE_FIELD(S),                     \
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

}  // namespace

const schema::Struct &sdpa_options_description() {
    static const schema::Struct description = FE_SCHEMA_OPTIONS(fe_sdpa_options, FE_SDPA_OPTIONS_INIT,
        "Attention's score modifiers, masks, sinks, dropout and paged caches.",
        FE_SCHEMA_NAME_FIELD(fe_sdpa_options),
        FE_SCHEMA_FIELD(fe_sdpa_options, generate_stats, flag, "Training: also return the softmax stats."),
        FE_SDPA_SCORE_FIELDS(fe_sdpa_options),
        FE_SCHEMA_FIELD(fe_sdpa_options, output_dropout_mask, flag, "Also output the drawn mask."),
        FE_SCHEMA_TENSOR(fe_sdpa_options, page_table_k, nullptr, "Paged K cache: the page table."),
        FE_SCHEMA_TENSOR(fe_sdpa_options, page_table_v, nullptr, "Paged V cache: the page table."),
        FE_SCHEMA_RANGE(fe_sdpa_options, max_seq_len_kv, integer, 0, ::fe::schema::kNoMaximum, "Paged caches: the longest sequence."),
        FE_SCHEMA_ENUM(fe_sdpa_options, implementation, implementation_enum(), "Native, composite or either."),
        FE_SCHEMA_TENSOR(fe_sdpa_options, sink_token, nullptr, "Attention sinks: float [1, h_q, 1, 1] logits."),
        FE_SCHEMA_FIELD(fe_sdpa_options, output_max_sum_exp, flag, "Also output the rows' Max and SumExp."),
        FE_SDPA_BAND_FIELDS(fe_sdpa_options),
        FE_SDPA_SCORE_MOD_FIELDS(fe_sdpa_options));
    return description;
}

const schema::Struct &sdpa_backward_options_description() {
    static const schema::Struct description = FE_SCHEMA_OPTIONS(fe_sdpa_backward_options, FE_SDPA_BACKWARD_OPTIONS_INIT,
        "Attention backward's score modifiers (those of the forward pass) and outputs.",
        FE_SCHEMA_NAME_FIELD(fe_sdpa_backward_options),
        FE_SDPA_SCORE_FIELDS(fe_sdpa_backward_options),
        FE_SCHEMA_ENUM(fe_sdpa_backward_options, implementation, implementation_enum(), "Native, composite or either."),
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
        FE_SCHEMA_RANGE(fe_sdpa_backward_options, max_total_seq_len_kv, integer, 0, ::fe::schema::kNoMaximum,
            "Packed K and V with grouped query heads: the batch's key tokens, to size the workspace; 0: padded."));
    return description;
}

const std::vector<schema::Port> &attention_qkv_ports() {
    static const std::vector<schema::Port> ports = {{"Q", nullptr, "[b, h_q, s_q, d]"},
                                                    {"K", nullptr, "[b, h_k, s_kv, d]"},
                                                    {"V", nullptr, "[b, h_k, s_kv, d_v]"}};
    return ports;
}

const std::vector<schema::Port> &attention_backward_input_ports() {
    static const std::vector<schema::Port> ports = {
        {"Q", nullptr, "the forward Q"}, {"K", nullptr, "the forward K"},   {"V", nullptr, "the forward V"},
        {"O", nullptr, "the forward O"}, {"dO", nullptr, "O's gradient"}, {"Stats", nullptr, "the forward stats"}};
    return ports;
}

}  // namespace fe
