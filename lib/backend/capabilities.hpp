// What each cuDNN version and GPU generation can run: one table (capabilities.cpp) that the
// lowering asks, that error messages quote, and that docs/capabilities.md is rendered from. A
// version fact is written there once; code names the feature, never a version number.
//
// Versions are cudnnGetVersion()'s numbers: major * 10000 + minor * 100 + patch (9.19.0 is
// 91900). Compute capabilities are major * 10 + minor (sm90 is 90). Both are parameters, not
// read from the loaded library here, so that every gate can be tested at any version.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fe {

enum class Feature {
    cudnn_9,                      // cudnnfe itself
    deviceless_plans,             // plans built from a device-properties JSON, with no GPU
    zero_centered_gamma,          // (1 + scale) in layernorm and rmsnorm
    adalayernorm,                 // adaptive layernorm (per-sample scale and bias)
    adalayernorm_zero_centered_gamma,
    block_scaling,                // MXFP8 block-scale quantize and dequantize
    fp8_matmul,
    fp8_attention,
    native_sdpa,                  // cuDNN's own SDPA operation (rather than the composite)
    native_sdpa_padding_and_paging,
    native_sdpa_score_modifiers,  // causal mask, band bounds, soft-capping, bias, ALiBi
    native_sdpa_dropout,
    native_sdpa_backward,
    chained_matmuls,              // matmul -> pointwise steps -> matmul in one graph
    int8_conv_int32_result,
    int8_conv_float_result_not_channels_last,
    graph_level_rng,              // a random draw outside fused attention
    standalone_softmax,
    standalone_genstats,
    standalone_reshape,
    standalone_transpose,
    standalone_concatenate,
    standalone_batchnorm_inference,
    upsampling,                   // nearest and bilinear resampling
    max_pool_backward_from_x_and_y_channels_last,
    max_pool_backward_layout,
    native_cuda_graph,            // a plan's work added to a caller's CUDA graph by cuDNN
    sdpa_backward_zeroes_dq_accumulator,  // the engines clear the float dQ accumulator themselves
    kernel_cache,                 // dynamic-shape builds that share compiled kernels
    kernel_cache_serialization,   // a kernel cache written out and read back as JSON
    engine_shared_memory,         // an engine config's shared memory, as cuDNN reports it
    execute_shape_overrides,      // a plan run with other dims than it was built for
    deterministic_reduction,      // a reduction that adds its partial results in a fixed order
    deterministic_reduction_kernels,  // cuDNN compiles the kernels of a deterministic reduction
    reduction_mul_no_zeros,       // the product of the non-zero elements
    native_sdpa_softmax_outputs,  // sinks, Max and SumExp through the native operation's softmax
    attention_sinks,              // a learned sink logit per head in attention's softmax
    max_sum_exp_with_sinks,       // attention's Max and SumExp outputs when it has sinks
    packed_backward_workspace,    // attention backward's workspace sized for a packed batch's tokens
    moe_grouped_matmul,           // cuDNN's mixture-of-experts grouped matmul
    moe_grouped_matmul_gather,    // its GATHER mode (rows read through token_index)
    moe_grouped_matmul_scatter,   // its SCATTER mode (results written through token_index)
    standalone_matmul_overrides,  // a matmul's M, N, K overrides outside attention's pattern
    batchnorm_peer_stats,         // synchronized batchnorm: statistics exchanged between GPUs
    general_block_scaling,        // block-scaled matmul operands: 2-D blocks, float/half/bf16 scales
    general_block_scaling_b_row_blocks,
    general_block_scaling_fp8_partial,
    norm_pointwise_epilogue,      // layernorm / rmsnorm of a half or bfloat16 x, then pointwise steps
    fp8_attention_bias,           // FP8 attention forward with an additive bias
    fp8_attention_dropout,        // FP8 attention forward with dropout
    concatenate_of_results,       // a concatenation of an operation's result (conv into a concat)
    fp8_attention_backward_deterministic,  // FP8 attention backward accumulating in a fixed order
    compile_time_constants,       // scalars whose values cuDNN compiles into the kernels
    int4_weights_layout,          // 4-bit matmul weights stored N-contiguous (row-major)
    dbn_weight,                   // batchnorm's backward weight gradients (fused after dgrad and dReLU)
    standalone_dbn_weight,        // dbn_weight with no dgrad and ReLU backward before it
    uint4_tensors,                // 4-bit unsigned integers in a graph
    norm_backward_single_row,     // a layer, RMS or adaptive layer norm backward whose x has one row
    attention_backward_dropout_mask,  // attention backward with the caller's dropout mask
    fp8_attention_backward_unaligned,  // FP8 attention backward with s_q or s_kv not a multiple of 16
    fp8_attention_packed,         // FP8 attention with packed (ragged) Q, K, V or O
    conv_fusion_mixed_layouts,    // a fused convolution graph whose tensors are not all in one layout
    conv_wgrad_depthwise_3d_asymmetric,  // 3-D depthwise wgrad with asymmetric padding
    pooling_bf16_channels_last,   // bfloat16 channels-last pooling forward
    pooling_index_layout,         // max pooling's index output in other layouts than channels-last
    pooling_avg_post_padding_layout,  // average pooling with padding, post > pre, not channels-last
    pointwise_rank3_first_dim_broadcast,  // a rank-3 pointwise operand that varies along dim 0 only
    fp8_attention_bottom_right_window_padding,  // FP8 attention: bottom-right window over padding
    attention_alibi_single_query,  // attention forward with ALiBi and one query row (s_q = 1)
    packed_attention_backward_wide_keys,  // packed attention backward with d_qk > d_v
    packed_attention_stats_grouped_decode,  // packed GQA/MQA attention, one query row, stats output
    attention_backward_softcap_dbias,  // attention backward: soft-capping or a score modifier, and dBias
    norm_forward_transposed_layout,  // a norm forward whose x, scale or bias is not row-major over scale's dims
    matmul_fp8_operand_conversion,  // a mixed matmul's FP8 operand widened in the graph, unaligned rows, K > 64
    matmul_leaky_relu_epilogue,   // a leaky relu (lower-clip slope) straight on a matmul's result
    matmul_strided_bias_operand,  // a matmul epilogue's row or column operand not contiguous along its long dim
    conv_dgrad_float_dx_not_channels_last,  // float dx from half/bf16 dy, unless both are channels-last
    pointwise_rank3_partial_broadcast,  // a rank-3 pointwise operand broadcast along W ([N, C, 1], [1, C, 1], [1, 1, W])
    pointwise_rank3_permuted_layout,    // a rank-3 pointwise tensor not laid out dim 0 outermost
    pointwise_backward_channel_broadcast,  // a rank-4/5 backward mode with dy or x broadcast along C
    reduction_unpacked_result,          // a reduction result not packed in the input's order
    reduction_rank3_permuted_input,     // a lone reduction of a permuted rank-3 input
    pointwise_rank4_one_channel,  // a rank-4/5 pointwise graph whose channel dim (dim 1) is 1
    pointwise_rank4_layout,       // a rank-4/5 pointwise operand not packed channels-last
    pointwise_rank3_layout,       // a rank-2/3 pointwise operand whose dims are not in row-major order
    pointwise_engine_envelope,    // what cuDNN's pointwise engines take, for a refusal none of the above explains
    conv_half_float_result,       // a half or bfloat16 convolution that writes a float result
    conv_dgrad_drelu_layout,      // dgrad fused with ReLU backward: NCHW tensors or convolution mode
    conv_wgrad_image_prologue,    // wgrad of an image scaled, biased and ReLU'd in the same graph
    conv_fused_nchw_float_bias,   // a half convolution fused with a float bias in NCHW
    conv_engine_envelope,         // what cuDNN's convolution engines take, for other refusals
    reduction_rank,               // a reduction whose input is not rank 4
    reduction_layout,             // a rank-4 reduction whose input is not channels-last
    reduction_engine_envelope,    // what cuDNN's reduction engines take, for other refusals
    batchnorm_unaligned_channels, // batchnorm over a channel count that is not a multiple of 8
    norm_backward_layout,         // a layer, RMS or adaptive layer norm backward whose x is not row-major
    batchnorm_inference_layout,   // batchnorm inference (fe_graph_batchnorm_inference) of an x not channels-last
    norm_engine_envelope,         // what cuDNN's normalization engines take, for other refusals
    matmul_two_batch_dims,        // a matmul whose operands have two batch dims (rank 4)
    matmul_engine_envelope,       // what cuDNN's matmul engines take, for other refusals
    resample_edge_padding,        // pooling with padding_mode EDGE (CUDNN_EDGE_VAL_PAD)
    pooling_engine_envelope,      // what cuDNN's pooling engines take, for other refusals
    moe_weight_n_contiguous,      // MoE grouped matmul weights stored N-contiguous (row-major)
    norm_backward_transposed_layout,  // a layer/RMS/adaptive norm backward, x or dy not row-major
    pointwise_gapped_broadcast_operand,  // rank-2/3 pointwise operand broadcast along a dim, laid out with a gap
    matmul_result_matrix_strided,  // a matmul result with neither M nor N contiguous
    conv_fusion_nchw_pixel,         // a fused half/bf16 NCHW convolution graph with a single-pixel result
    matmul_int8_widened_long_rows,  // a mixed matmul widening int8 with unaligned rows or unit-dim strides, K > 32
    pointwise_rank3_unit_dim_gap,   // a rank-3 pointwise result [N, 1, W] whose rows are more than W apart
    attention_backward_dsink_dropout,  // attention backward with dSink and dropout
    attention_backward_deterministic_grouped_wide_keys,  // deterministic GQA/MQA backward with d_qk > d_v
    fp8_matmul_cublaslt_engines,    // FP8 matmuls on cuDNN's cuBLASLt-backed engines
    matmul_column_operand_transposed_result,  // an epilogue's column operand, the result stored M-innermost
    paged_attention_sinks_grouped_decode,  // paged GQA/MQA attention, one query row, with sinks
    conv_wgrad_float_asymmetric_padding,  // float wgrad with asymmetric padding
    batchnorm_inference_batch_inside,  // batchnorm inference of an x whose batch dim is not outermost
    attention_backward_dropout_long_keys,  // backward, dropout drawn by cuDNN, s_kv > 128
    attention_backward_dropout_single_query,  // backward, cuDNN's dropout, s_q = 1, s_kv > 64
    conv_wgrad_half_float_dw_nchw,  // half/bf16 NCHW wgrad into a float dw
    reduction_partial_spatial,      // a rank-4/5 reduction over some spatial dims, keeping others
    norm_output_layout,             // a normalization whose y, dy or dx is not laid out as x
    norm_forward_unpacked_rows,     // a layer-like norm forward of an x not packed with its normalized dims innermost
    attention_dropout_single_query_long_keys,  // forward, cuDNN's dropout, s_q = 1, s_kv > 256
    runtime_kernel_compilation,   // cuDNN's runtime compiler (NVRTC) failing on the kernels of a graph
    int8_conv_one_channel_unit_width,  // channels-last int8 conv, one input channel, float result one pixel wide
    int8_conv_flipped_single_pixel,    // int8 conv in convolution mode into a float result of one pixel
    paged_attention_stats_score_mod_tensor,  // paged decode with stats, a score modifier reading a tensor
    pointwise_softplus_backward_scalar_dy,  // softplus backward of a by-value scalar dy over an x in memory
    conv_fusion_one_channel_unit_width,     // fused channels-last conv fprop, one input channel, result one pixel wide
    pointwise_gen_index_gapped_input,       // the index along a dim of a graph input with a gap
    attention_backward_alibi_unmasked,      // ALiBi backward, no mask over the keys: fp16 s_kv % 64, or soft-capping
    reduction_mean_and_norms,               // FE_REDUCTION_AVG, NORM1 and NORM2, refused by cuDNN's descriptor
    fp8_attention_single_query,             // FP8 attention forward over one query row (decoding)
    fp8_attention_backward_head_dims,       // FP8 attention backward with head dims other than 128
    attention_backward_dbias_envelope,      // attention backward with dBias: a few sizes without an engine
    norm_epilogue_envelope,                 // float layer/RMS or any adaptive layer norm with a pointwise epilogue
    pointwise_select_condition_broadcast,  // select on a computed condition broadcast along a dim of the result
    conv_dgrad_float_nchw_asymmetric_padding,  // float NCHW 2-D dgrad, wide filter padded asymmetrically, 0 or 1 before
    pointwise_rank4_permuted_layout,     // a rank-4/5 pointwise tensor whose dims are not in channels-last order
    matmul_column_result_unit_stride,    // an epilogue's single-column result and B, unit dim N strided
    fp8_attention_window_many_blocks,    // FP8 forward window, blocks without keys, more blocks than SMs
    pointwise_rank3_strided_row,         // a rank-3 pointwise tensor whose last dim is not contiguous
    fp8_attention_sinks,                 // FP8 attention forward with attention sinks
    fp8_attention_score_modifiers,       // FP8 attention forward with soft-capping or a score modifier
    fp8_attention_max_sum_exp,           // FP8 attention forward outputting Max and SumExp
    pointwise_backward_uniform_dy,       // a rank-2/3 backward mode of one dy value for every element
    softmax_stats_keys_contiguous,       // softmax with stats after a matmul reading K^T keys-contiguous
    conv_reduction_nchw,                 // a convolution fused with a reduction, its image NCHW
    matmul_cublaslt_unaligned_operand,   // cuBLASLt engines for a matmul reading an unaligned slice
    fp8_attention_backward_sinks,        // FP8 attention backward with the forward's sinks (dSink)
    fp8_attention_backward_score_modifiers,  // FP8 attention backward with soft-capping or a score modifier
    complex_fp32_matmul,                 // a matmul of complex fp32 operands
    complex_matmul_envelope,             // a complex matmul outside what its engine was seen to take
    vectorized_conv_float_math,          // a vectorized int8 convolution in float math
};

// How the library treats a fact of the table.
enum class Gate {
    // Refused (before cuDNN sees it) on versions below `minimum`, and on GPUs below `sm_min`
    // where the GPU is known.
    minimum_version,
    // Refused on the versions in [bad_from, bad_through]: cuDNN gives wrong results, crashes or
    // refuses there. A newer cuDNN is let through: the GPU suite compares every result with an
    // independent reference, so a version that is still broken shows up there and its entry's
    // bad_through is then moved up. `bad_through` names a minor release: its patch releases
    // count as bad too (9.19 covers 9.19.0 to 9.19.99).
    known_bad,
    // Not refused: cuDNN decides (it reports no engine). The table words the explanation that
    // is added to that report, with the version and GPU it was seen on (`bad_through`).
    observed,
    // Never lowered to the native operation by this library (it lowers the composite instead);
    // `minimum` is the first cuDNN that has it, for the message and the docs.
    not_lowered,
};

struct Capability {
    Feature feature;
    const char *name;       // identifier in docs/capabilities.md: "native_sdpa"
    Gate gate;
    const char *subject;    // what it is, as a message names it: "the native SDPA operation"
    int64_t minimum;        // first cuDNN version that has it; 0: any cuDNN 9
    int sm_min;             // lowest GPU generation cuDNN has engines for; 0: any
    int64_t bad_from;       // known_bad: first version refused (the first one not known good)
    int64_t bad_through;    // known_bad: last minor release verified bad; observed: seen on
    const char *problem;    // known_bad and observed: what cuDNN does, after "cuDNN 9.19 "
    const char *seen_on;    // known_bad and observed: the GPU it was verified on
};

// Every entry, in Feature order.
const std::vector<Capability> &capabilities();
const Capability &capability(Feature feature);

// Why `feature` cannot be used with cuDNN `version` on a GPU of compute capability `sm` (0: not
// known, not checked); "" when it can. Entries that only observe (Gate::observed) never refuse.
std::string refusal(Feature feature, int64_t version, int sm = 0);
// Throws FE_STATUS_NOT_SUPPORTED with refusal()'s text when it is not empty.
void require(Feature feature, int64_t version, int sm = 0);
// The table's explanation of a known-bad or observed fact, qualified with the version and GPU it
// was seen on and with the loaded `version`: "cuDNN 9.19 has no engine for ... (seen on H100;
// cuDNN 9.21.0 is loaded)". For GPU-bound entries: which generations have engines.
std::string explanation(Feature feature, int64_t version);
// "the native SDPA operation takes no causal mask before cuDNN 9.21 (...)" for not_lowered
// entries, `option` naming which of the entry's options the graph uses.
std::string not_lowered(Feature feature, const char *option, int64_t version);

// "9.19.0" and "9.19".
std::string version_text(int64_t version);
std::string minor_version_text(int64_t version);

// docs/capabilities.md: the table as Markdown.
std::string capabilities_markdown();

}  // namespace fe
