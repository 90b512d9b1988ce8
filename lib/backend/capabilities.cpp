// The capability table: what each cuDNN version and GPU generation can run, and the words of
// every message about it. docs/capabilities.md is rendered from this table (a unit test checks
// that the committed file matches); change an entry here, then regenerate the doc.
#include "backend/capabilities.hpp"
#include "common/environment.hpp"

#include <cstdio>
#include <cstdlib>

#include "common/error.hpp"

namespace fe {
namespace {

// Versions verified on the device machine (an H100 with cuDNN 9.19). A known-bad entry whose
// first bad version is unknown starts at 9.0: it is not known good on any earlier 9.x.
constexpr int64_t kAnyCudnn9 = 90000;
constexpr int64_t kVerified = 91900;

const std::vector<Capability> kTable = {
    {Feature::cudnn_9, "cudnn_9", Gate::minimum_version, "cudnnfe", 90000, 0, 0, 0,
     "the graph API as this library lowers to it", nullptr},
    {Feature::deviceless_plans, "deviceless_plans", Gate::minimum_version,
     "building plans from a device-properties JSON (no GPU)", 90800, 0, 0, 0,
     "the first cuDNN with the device-properties descriptor", nullptr},
    {Feature::zero_centered_gamma, "zero_centered_gamma", Gate::minimum_version, "zero-centred gamma", 90700, 0, 0, 0,
     "the first cuDNN that fuses (1 + scale) into layernorm and rmsnorm", nullptr},
    {Feature::adalayernorm, "adalayernorm", Gate::minimum_version, "adalayernorm", 90900, 0, 0, 0,
     "the first cuDNN with the adaptive layernorm mode", nullptr},
    {Feature::adalayernorm_zero_centered_gamma, "adalayernorm_zero_centered_gamma", Gate::observed,
     "zero-centred gamma in adalayernorm", 0, 0, 0, kVerified,
     "refuses (1 + scale) fused into adaptive layernorm, so adalayernorm does not offer zero_centered_gamma",
     "H100"},
    {Feature::block_scaling, "block_scaling", Gate::minimum_version, "MXFP8 block scaling", 90700, 100, 0, 0,
     "the first cuDNN with the block-scale operations; their engines target Blackwell", nullptr},
    {Feature::fp8_matmul, "fp8_matmul", Gate::minimum_version, "FP8 matmuls", 0, 90, 0, 0,
     "cuDNN's FP8 engines target Hopper and later", nullptr},
    {Feature::fp8_attention, "fp8_attention", Gate::minimum_version, "FP8 attention", 0, 90, 0, 0,
     "cuDNN's FP8 engines target Hopper and later", nullptr},
    {Feature::native_sdpa, "native_sdpa", Gate::minimum_version, "the native SDPA operation", 91301, 0, 0, 0,
     "the first cuDNN with the SDPA operation (older ones run the composite pattern)", nullptr},
    {Feature::native_sdpa_padding_and_paging, "native_sdpa_padding_and_paging", Gate::minimum_version,
     "a padding mask or paged K/V in the native SDPA operation", 91500, 0, 0, 0,
     "the first cuDNN whose SDPA operation takes sequence lengths and page tables", nullptr},
    {Feature::native_sdpa_score_modifiers, "native_sdpa_score_modifiers", Gate::not_lowered,
     "the native SDPA operation", 92100, 0, 0, 0,
     "takes a causal mask, sliding window, band bounds, soft-capping, bias and ALiBi as a score subgraph, which this library does not build: "
     "graphs with them run the composite pattern",
     nullptr},
    {Feature::native_sdpa_dropout, "native_sdpa_dropout", Gate::not_lowered, "the native SDPA operation", 92200, 0,
     0, 0,
     "takes dropout as a score subgraph, which this library does not build: graphs with it run the composite "
     "pattern",
     nullptr},
    {Feature::native_sdpa_backward, "native_sdpa_backward", Gate::known_bad, "the native SDPA backward operation", 0,
     0, 91301, kVerified,
     "declares it but refuses it in operation graphs (CUDNN_STATUS_BAD_PARAM); the composite pattern runs instead",
     "H100"},
    {Feature::chained_matmuls, "chained_matmuls", Gate::known_bad,
     "two chained matmuls in one graph (through pointwise steps only)", 0, 0, kAnyCudnn9, kVerified,
     "fuses them into a runtime-compiled kernel that gave wrong results (chains through a reduction, as in "
     "attention, were verified good)",
     "H100"},
    {Feature::int8_conv_int32_result, "int8_conv_int32_result", Gate::known_bad,
     "an int8 convolution with an int32 result", 0, 0, kAnyCudnn9, kVerified,
     "accepts it and writes wrong values (it documents int8 or float results)", "H100"},
    {Feature::int8_conv_float_result_not_channels_last, "int8_conv_float_result_not_channels_last",
     Gate::known_bad, "an int8 convolution into a float result with x or w not channels-last", 0, 0, kAnyCudnn9,
     kVerified,
     "builds plans for it that write wrong values (7 of 19 randomized NCHW cases, 1-D to 3-D, grouped or not; "
     "every channels-last one of 141, and the NCHW ones into an int8 result, were right): lay x and w out "
     "channels-last",
     "H200"},
    {Feature::graph_level_rng, "graph_level_rng", Gate::observed, "a graph-level random draw", 0, 0, 0, kVerified,
     "has no engine for a graph-level random draw (alone, times a tensor, or in a matmul's epilogue); its engines "
     "draw only inside fused attention",
     "H100"},
    {Feature::standalone_softmax, "standalone_softmax", Gate::observed, "softmax on its own", 0, 0, 0, kVerified,
     "has no native softmax, and its engines take this composite only fused between two matmuls (the attention "
     "pattern that fe_graph_sdpa builds), not on its own",
     "H100"},
    {Feature::standalone_genstats, "standalone_genstats", Gate::observed, "genstats on its own", 0, 0, 0, kVerified,
     "runs genstats fused after the convolution whose result it reads (the convolution's output for batch "
     "normalization), not on its own",
     "H100"},
    {Feature::standalone_reshape, "standalone_reshape", Gate::observed, "a reshape on its own", 0, 0, 0, kVerified,
     "runs a reshape as a view inside a fused graph, not as a copy on its own", "H100"},
    {Feature::standalone_transpose, "standalone_transpose", Gate::observed, "a transpose on its own", 0, 0, 0,
     kVerified, "has no engine for a transpose's copy through a permuted view on its own", "H100"},
    {Feature::standalone_concatenate, "standalone_concatenate", Gate::observed, "a concatenation on its own", 0, 0, 0,
     kVerified, "has no engine for a concatenation on its own", "H100"},
    {Feature::standalone_batchnorm_inference, "standalone_batchnorm_inference", Gate::observed,
     "native inference-phase batchnorm on its own", 0, 0, 0, kVerified,
     "matches its native inference-phase batchnorm only inside the backward fusion (BN inference, dReLU, dBN), so "
     "this library lowers it as broadcast pointwise steps",
     "H100"},
    {Feature::upsampling, "upsampling", Gate::known_bad, "nearest and bilinear upsampling", 0, 0, kAnyCudnn9,
     kVerified, "has no engine for them and refuses their resample descriptor", "H100"},
    {Feature::max_pool_backward_from_x_and_y_channels_last, "max_pool_backward_from_x_and_y_channels_last",
     Gate::known_bad,
     "channels-last max pooling backward from x and y without the index (a single channel of stride 1 counts as "
     "channels-last)",
     0, 0, kAnyCudnn9,
     kVerified, "crashes in its heuristics on it instead of refusing it", "H100"},
    {Feature::max_pool_backward_layout, "max_pool_backward_layout", Gate::observed,
     "max pooling backward in other layouts than channels-last", 0, 0, 0, kVerified,
     "runs max pooling backward only channels-last (NHWC strides for dy, index and dx)", "H100"},
    {Feature::native_cuda_graph, "native_cuda_graph", Gate::minimum_version,
     "adding a plan's work to a CUDA graph (fe_graph_populate_cuda_graph)", 90500, 0, 0, 0,
     "the first cuDNN that populates and updates CUDA graphs itself, for the engines whose behaviour notes say so",
     nullptr},
    {Feature::sdpa_backward_zeroes_dq_accumulator, "sdpa_backward_zeroes_dq_accumulator", Gate::minimum_version,
     "attention backward engines that clear their float dQ accumulator", 90600, 0, 0, 0,
     "the first cuDNN whose attention backward engines clear the float dQ accumulator themselves; before it, "
     "execute clears it on every call",
     nullptr},
    {Feature::kernel_cache, "kernel_cache", Gate::minimum_version,
     "dynamic shapes with a kernel cache (fe_kernel_cache)", 90500, 0, 0, 0,
     "the first cuDNN that binds a kernel cache to an operation graph, so graphs of other dims reuse its kernels",
     nullptr},
    {Feature::kernel_cache_serialization, "kernel_cache_serialization", Gate::minimum_version,
     "writing a kernel cache out and reading it back (fe_kernel_cache_serialize)", 91000, 0, 0, 0,
     "the first cuDNN with the kernel cache's JSON form", nullptr},
    {Feature::engine_shared_memory, "engine_shared_memory", Gate::minimum_version,
     "an engine config's shared memory (fe_config_info, fe_graph_deselect_shared_memory_greater_than)", 90200, 0, 0,
     0, "the first cuDNN that reports the shared memory an engine config uses", nullptr},
    {Feature::execute_shape_overrides, "execute_shape_overrides", Gate::not_lowered,
     "a plan executed with other dims than it was built for", 92100, 0, 0, 0,
     "takes shape overrides at execution (the operation graph's override-shape mode, attention's included), which "
     "this library does not use: a new shape builds from a kernel cache (fe_kernel_cache) or, for attention, runs "
     "within a bucket's maximum with a padding mask or ragged tensors (examples/c/sdpa_variable_length.c)",
     nullptr},
    {Feature::deterministic_reduction, "deterministic_reduction", Gate::minimum_version,
     "a deterministic reduction (fe_reduction_options.deterministic)", 91100, 0, 0, 0,
     "the first cuDNN whose reductions take a fixed order of adding partial results", nullptr},
    {Feature::deterministic_reduction_kernels, "deterministic_reduction_kernels", Gate::known_bad,
     "a deterministic reduction on its own (fe_reduction_options.deterministic, of a graph input)", 0, 0, kAnyCudnn9,
     kVerified,
     "fails to compile its kernels (CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED from NVRTC) for every "
     "reduction tried on its own (add and max; over every dim, the channels or the rows; fp32 and fp16); fused "
     "after the operation that produces its input (a matmul, probed on an H200) it compiles and runs right",
     "H100"},
    {Feature::reduction_mul_no_zeros, "reduction_mul_no_zeros", Gate::known_bad,
     "the product of the non-zero elements (FE_REDUCTION_MUL_NO_ZEROS)", 0, 0, kAnyCudnn9, kVerified,
     "refuses it in the reduction descriptor of the graph API (CUDNN_STATUS_NOT_SUPPORTED)", "H100"},
    {Feature::native_sdpa_softmax_outputs, "native_sdpa_softmax_outputs", Gate::not_lowered,
     "the native SDPA operation", 92100, 0, 0, 0,
     "takes attention sinks and the Max and SumExp outputs through its softmax descriptor, which this library "
     "does not build: graphs with them run the composite pattern",
     nullptr},
    {Feature::attention_sinks, "attention_sinks", Gate::minimum_version, "attention sinks (sink_token)", 91300, 0, 0,
     0, "the first cuDNN whose fused attention engines take a sink logit in the softmax", nullptr},
    {Feature::max_sum_exp_with_sinks, "max_sum_exp_with_sinks", Gate::observed,
     "attention's Max and SumExp outputs with sinks", 0, 0, 0, kVerified,
     "has no fused attention engine that outputs Max and SumExp when the softmax has sinks (it has one for either "
     "alone, and for the stats with sinks): output the stats, or merge the sinks after a split-KV pass",
     "H100"},
    {Feature::packed_backward_workspace, "packed_backward_workspace", Gate::minimum_version,
     "a packed attention backward's workspace sized for its tokens (max_total_seq_len_q, max_total_seq_len_kv)",
     90600, 0, 0, 0,
     "the first cuDNN whose attention backward engines read ragged row sums, dQ accumulators and per-query-head dK "
     "and dV",
     nullptr},
    {Feature::moe_grouped_matmul, "moe_grouped_matmul", Gate::minimum_version,
     "the mixture-of-experts grouped matmul (fe_graph_moe_grouped_matmul)", 91800, 0, 0, 0,
     "the first cuDNN with engines for its grouped matmul operation (its weight gradient needs 9.22, which this "
     "library does not offer yet)",
     nullptr},
    {Feature::moe_grouped_matmul_gather, "moe_grouped_matmul_gather", Gate::known_bad,
     "the MoE grouped matmul's GATHER mode", 0, 0, 91800, kVerified,
     "builds a plan for it whose kernel makes an illegal memory access (the CUDA context is lost) for every routing "
     "tried, with or without top_k; route the rows first and use mode NONE",
     "H100"},
    {Feature::moe_grouped_matmul_scatter, "moe_grouped_matmul_scatter", Gate::observed,
     "the MoE grouped matmul's SCATTER mode", 0, 0, 0, kVerified,
     "has no engine for it; use mode NONE and return the rows to token order in a later step", "H100"},
    {Feature::standalone_matmul_overrides, "standalone_matmul_overrides", Gate::known_bad,
     "a matmul with M, N or K overrides (fe_matmul_options)", 0, 0, kAnyCudnn9, kVerified,
     "accepts them on a matmul of its own and writes wrong values (sums past the K override, columns past the N "
     "override computed instead of padded); attention's use of them inside its fused pattern was verified good",
     "H100"},
    {Feature::batchnorm_peer_stats, "batchnorm_peer_stats", Gate::minimum_version,
     "synchronized batchnorm (peer_stats)", 0, 80, 0, 0,
     "its batchnorm engines exchange statistics between the GPUs of a group through peer buffers", nullptr},
    {Feature::general_block_scaling, "general_block_scaling", Gate::minimum_version,
     "general block scaling (fe_graph_block_scale_dequantize with float, half or bfloat16 scales)", 91100, 0, 0, 0,
     "the first cuDNN that dequantizes 2-D blocks with float, half or bfloat16 scales into a matmul", nullptr},
    {Feature::general_block_scaling_b_row_blocks, "general_block_scaling_b_row_blocks", Gate::observed,
     "a matmul's B dequantized in blocks of one row (block_rows 1: each block along N)", 0, 0, 0, kVerified,
     "has no engine for a matmul's B dequantized in blocks of one row (75 randomized cases, blocks of 1 x 16 to "
     "1 x 128 with float, half or bfloat16 scales, A dequantized or not; B in blocks of 16 to 128 rows built): give "
     "B's blocks 16 rows or more, or dequantize B in a graph of its own",
     "H200"},
    {Feature::general_block_scaling_fp8_partial, "general_block_scaling_fp8_partial", Gate::known_bad,
     "general block scaling of an FP8 operand whose last two dims are not both multiples of 128", 0, 0, kAnyCudnn9,
     kVerified,
     "builds plans for it that write wrong values or whose kernels fault (an illegal memory access: the CUDA "
     "context is lost): 67 of 82 randomized FP8 cases that built (51 wrong, most of the result 0; 16 faults; blocks "
     "of 1 to 128 rows by 16 to 128 elements, float, half or bfloat16 scales); every one of 64 with half or "
     "bfloat16 operands was right, and so were FP8 operands of 256 x 512 and 512 x 256 in blocks of 1 x 128 and "
     "128 x 128: pad the FP8 operand to multiples of 128, or dequantize it in a graph of its own",
     "H200"},
    {Feature::norm_pointwise_epilogue, "norm_pointwise_epilogue", Gate::observed,
     "a layernorm or rmsnorm of a half or bfloat16 x followed by pointwise operations in one graph", 0, 0, 0,
     kVerified,
     "has no engine for it (mul, add, relu and silu were tried; a float x has one, and so has an FP8 quantize "
     "epilogue, y * scale written as FP8): mark the norm's Y as an output and run the pointwise operations in a graph "
     "of their own",
     "H100"},
    {Feature::fp8_attention_bias, "fp8_attention_bias", Gate::known_bad, "FP8 attention with a bias", 0, 0,
     kAnyCudnn9, kVerified,
     "builds a plan for it (eng2) that writes wrong values: a bfloat16 bias [1, h, s_q, s_kv] gave a relative error "
     "norm of 0.48 against the reference, where the same graph without the bias gives 0.04; add the bias in a "
     "bfloat16 attention, or fold it into Q and K",
     "H100"},
    {Feature::fp8_attention_dropout, "fp8_attention_dropout", Gate::known_bad, "FP8 attention with dropout", 0, 0,
     kAnyCudnn9, kVerified,
     "builds a plan for the forward (eng2) whose kernel makes an illegal memory access (the CUDA context is lost); "
     "the backward, which redraws or reads the forward's mask, is refused with it",
     "H100"},
    {Feature::concatenate_of_results, "concatenate_of_results", Gate::known_bad,
     "a concatenation of an operation's result (a convolution written into a concatenation)", 0, 0, kAnyCudnn9,
     kVerified,
     "lists engines for it and builds a plan (eng1) that writes wrong values in half the channels, whether the "
     "other input is copied or already in place: write the convolution's result to a slice of the buffer "
     "(fe_graph_slice views, or the output's strides and address) instead",
     "H200"},
    {Feature::fp8_attention_backward_deterministic, "fp8_attention_backward_deterministic", Gate::known_bad,
     "FP8 attention backward's deterministic mode", 0, 0, kAnyCudnn9, kVerified,
     "has no deterministic FP8 attention backward engine for Hopper: cuDNN 9.19 runs one on Blackwell only (a "
     "fixed engine configuration from 9.19, sm_100), which this library does not select (with the refusal lifted, a "
     "Hopper plan at head dim 128 computed right values in two runs; nothing shows it deterministic, so the mode "
     "stays refused); use the bfloat16 or half backward's deterministic mode",
     "H100, and the cuDNN frontend's routing"},
    {Feature::compile_time_constants, "compile_time_constants", Gate::minimum_version,
     "compile-time constant scalars (fe_graph_constant)", 92200, 0, 0, 0,
     "the first cuDNN that compiles a by-value tensor's value into the kernels (CUDNN_ATTR_TENSOR_CONSTANT_VALUE, "
     "in a cuDNN built for CUDA 13.1 or later)",
     nullptr},
    {Feature::int4_weights_layout, "int4_weights_layout", Gate::observed,
     "a matmul of 4-bit (int4 or uint4) weights stored N-contiguous (row-major, strides [K * N, N, 1])", 0, 0, 0,
     kVerified,
     "has no engine for it (its kernels do not load sub-byte rows); weights stored K-contiguous (strides [K * N, 1, K]) "
     "have one, converted as they are, scaled per column or dequantized per group of rows: store them K-contiguous",
     "H100"},
    {Feature::dbn_weight, "dbn_weight", Gate::minimum_version,
     "batchnorm's backward weight gradients (fe_graph_dbn_weight)", 90800, 80, 0, 0,
     "the first cuDNN with engines for convolution dgrad, ReLU backward and dbn_weight fused (Ampere and Hopper)",
     nullptr},
    {Feature::standalone_dbn_weight, "standalone_dbn_weight", Gate::observed, "dbn_weight on its own", 0, 0, 0,
     kVerified,
     "has no engine for dbn_weight on its own (its one candidate, eng0, reports an architecture mismatch): it runs "
     "it fused after a convolution's dgrad and a ReLU backward against the recomputed batchnorm output (the ResNet "
     "backward block); use fe_graph_batchnorm_backward for a batchnorm's backward alone",
     "H100"},
    {Feature::uint4_tensors, "uint4_tensors", Gate::known_bad, "uint4 tensors", 0, 0, kAnyCudnn9, kVerified,
     "lists engines for matmuls of uint4 weights (eng4 for them converted as they are, eng7 dequantized per group of "
     "rows) whose kernels make an illegal memory access or never finish, where the same graphs of int4 weights "
     "compute correctly: store the weights as int4 (subtract 8 and fold 8 * scale into a bias)",
     "H100 and H200"},
    {Feature::norm_backward_single_row, "norm_backward_single_row", Gate::observed,
     "a layer, RMS or adaptive layer norm backward over a single row", 0, 0, 0, kVerified,
     "has no engine for a layernorm or rmsnorm backward whose x has one row (x [1, d]; every candidate is "
     "refused), nor for most adaptive layernorm backward ones (4 of 6 randomized cases), where two rows or more "
     "have one: run it over two rows, the second with a zero dy (which adds nothing to dscale and dbias), and "
     "take the first row of dx",
     "H200"},
    {Feature::attention_backward_dropout_mask, "attention_backward_dropout_mask", Gate::known_bad,
     "attention backward with the caller's dropout mask", 0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that compute wrong dQ, dK and dV once the batch holds more than two heads in all "
     "(b * h_q > 2; 17 of 20 randomized cases, while the forward with the same mask was right in every case): "
     "draw the dropout with cuDNN (dropout_probability, seed and offset), whose backward redraws the same mask",
     "H200"},
    {Feature::fp8_attention_backward_unaligned, "fp8_attention_backward_unaligned", Gate::known_bad,
     "FP8 attention backward whose s_q or s_kv is not a multiple of 16, or both are 16", 0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that leave most of some rows of dQ (columns past the 16th) at zero (20 of 21 randomized "
     "cases), and for s_q = s_kv = 16 plans whose dQ and dK are wrong (4 of 18); the other multiples of 16 the "
     "suite drew (30 cases) were right: pad the sequences to a multiple of 16, and past 16, with a padding mask",
     "H200"},
    {Feature::fp8_attention_packed, "fp8_attention_packed", Gate::known_bad,
     "FP8 attention with packed (ragged) Q, K, V or O", 0, 0, kAnyCudnn9, kVerified,
     "builds plans for it whose kernels fault (an illegal instruction: the CUDA context is lost) for some shapes, "
     "short key sequences among them (3 of 8 randomized forward cases): use padded FP8 tensors with a padding mask, "
     "or packed bfloat16 or half attention",
     "H200"},
    {Feature::conv_fusion_mixed_layouts, "conv_fusion_mixed_layouts", Gate::known_bad,
     "a fused convolution graph whose image-shaped tensors are not all in one layout", 0, 0, kAnyCudnn9, kVerified,
     "builds plans for a convolution fused with pointwise operations (a bias and activation epilogue, a residual "
     "add, dgrad with the ReLU backward) when its image-shaped tensors mix channels-last and NCHW, that leave most "
     "of the result unwritten or fault with a misaligned address (8 of 8 randomized cases; the same graphs in one "
     "layout were right, and so were unfused convolutions in mixed layouts): give every tensor the image's layout",
     "H200"},
    {Feature::conv_wgrad_depthwise_3d_asymmetric, "conv_wgrad_depthwise_3d_asymmetric", Gate::known_bad,
     "the weight gradient of a 3-D grouped or depthwise convolution with asymmetric padding", 0, 0, kAnyCudnn9,
     kVerified,
     "builds plans for it that compute wrong weight gradients (2 of 2 randomized depthwise half-precision cases, "
     "relative errors 0.31 and 2.1, in every layout, and a grouped bfloat16 one, 4 groups of 2 channels, x "
     "channels-last and dy NCHW: 137 of 216 elements wrong; symmetric padding was right in 15 randomized 3-D grouped "
     "and depthwise cases): pad the image explicitly and convolve with symmetric padding",
     "H200"},
    {Feature::pooling_bf16_channels_last, "pooling_bf16_channels_last", Gate::known_bad,
     "bfloat16 channels-last pooling (forward) with a window or stride larger than 1, of channels not a multiple "
     "of 8 (one channel of stride 1 among them), or over 2 spatial dims without the index output",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that write garbage (values near 1e28, NaN) or wrong maxima: 11 of 13 randomized cases "
     "of channels not a multiple of 8 (and a later one of one channel, [5, 1, 16, 2] with strides [32, 1, 2, 1], "
     "average pooling 2 x 2: every element garbage), and 8 of 8 over 2 spatial dims of 8 to 48 channels without "
     "the index (3 "
     "max, 3 average excluding and 2 including the padding); half, float, NCHW bfloat16, the backward, max "
     "pooling with the index (3 randomized cases and the GPU suite) and 3 spatial dims (2 cases) were right: pool "
     "in NCHW, or in half or float, or ask max pooling for its index",
     "H200"},
    {Feature::pooling_index_layout, "pooling_index_layout", Gate::known_bad,
     "max pooling's index output (generate_index) in other layouts than channels-last, or over a single-pixel "
     "image (every spatial dim 1, whose strides cannot say which layout it is)", 0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that never write the index (7 of 7 randomized NCHW and NCDHW cases, and a half [3, 80, 1, "
     "1] image of channel stride 1 padded after: 240 of 240 indices unwritten; y was right, and the channels-last "
     "index over more than one pixel was right): pool channels-last to get the index, over an image of more than one "
     "pixel",
     "H200"},
    {Feature::pooling_avg_post_padding_layout, "pooling_avg_post_padding_layout", Gate::known_bad,
     "average pooling that counts padding, with more padding after than before, in other layouts than "
     "channels-last, or forward over a single-pixel image (every spatial dim 1)",
     0, 0, kAnyCudnn9, kVerified,
     "divides by a window that leaves out the padding past the image's end, forward and backward (NCHW and NCDHW "
     "randomized cases; channels-last: 28 of 29 right, the wrong one a bfloat16 image of one pixel, 56 channels, "
     "window 3x3x3 padded 0 before and 2 after): pool channels-last over more than one pixel, or pad symmetrically",
     "H200"},
    {Feature::pointwise_rank3_first_dim_broadcast, "pointwise_rank3_first_dim_broadcast", Gate::known_bad,
     "a rank-3 pointwise operation with an operand that varies only along the first dim (an [N, 1, 1] input, or "
     "the index along dim 0)",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that read that operand as if at index 0 for every N (3 randomized cases: an [N, 1, 1] "
     "operand of a pow and of a division, the index along dim 0 of an add_square; operands that vary along the "
     "last dim were right): add a unit dim in front (rank 4), or broadcast the operand along another dim",
     "H200"},
    {Feature::fp8_attention_bottom_right_window_padding, "fp8_attention_bottom_right_window_padding",
     Gate::known_bad, "FP8 attention with a sliding window aligned bottom-right over a padding mask", 0, 0, kAnyCudnn9,
     kVerified,
     "builds plans for it that compute wrong outputs (3 of 7 randomized cases, relative errors 0.5 to 0.8; the same "
     "window in bfloat16 and half, and FP8 without the window, were right): run the window in bfloat16 or half "
     "attention, or align it top-left",
     "H200"},
    {Feature::attention_alibi_single_query, "attention_alibi_single_query",
     Gate::known_bad, "attention with ALiBi over a single query row (s_q = 1, decoding)", 0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that compute wrong outputs now and then (3 of 28 randomized cases, relative errors 0.2 to "
     "1.0, with and without a padding mask or paged K/V; longer query blocks were right): add the ALiBi term as a "
     "bias [1, h, 1, s_kv], or decode with two query rows",
     "H200"},
    {Feature::packed_attention_backward_wide_keys, "packed_attention_backward_wide_keys",
     Gate::known_bad, "packed (ragged) attention backward with a head dim of Q and K above V's (d_qk > d_v)", 0, 0,
     kAnyCudnn9, kVerified,
     "builds plans for it that leave dK's columns past d_v unwritten (and dQ wrong) now and then (4 of 18 randomized "
     "cases; d_qk <= d_v and padded layouts were right): pad V's head dim to d_qk, or use padded tensors with a "
     "padding mask",
     "H200"},
    {Feature::packed_attention_stats_grouped_decode, "packed_attention_stats_grouped_decode", Gate::known_bad,
     "packed (ragged) grouped- or multi-query attention (h_q > h_k) over a single query row (s_q = 1) with the "
     "stats output",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that write the stats of only the first query head of each group, leaving the others "
     "unwritten (16 of 17 randomized cases, composite and native engines; the same with h_q = h_k, or padded "
     "tensors, was right): use padded Q and O with a padding mask, or decode with two query rows",
     "H200"},
    {Feature::attention_backward_softcap_dbias, "attention_backward_softcap_dbias",
     Gate::known_bad,
     "an attention backward with the dBias output and soft-capping or a score modifier gradient of the caller's "
     "(score_mod_grad_input) between dS and the attention scale", 0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that compute a wrong dBias, as if taken after the cap's or the modifier's derivative and "
     "the scale (2 randomized cases with soft-capping, 4 query heads over 1 and 8 over 8: relative errors 0.99; 2 "
     "with a modifier of the caller's: every dBias element the expected one times about the attention scale, 0.088 "
     "and 0.27, with or without dropout, sinks, ALiBi or a causal mask, in half and bfloat16; dQ, dK and dV right, "
     "and dBias right with neither): leave out the soft-cap and the modifier, or dBias",
     "H200"},
    {Feature::norm_forward_transposed_layout, "norm_forward_transposed_layout", Gate::known_bad,
     "a layer, RMS or adaptive layer norm forward whose x is laid out row-major over the dims scale varies along "
     "while its scale or bias is not, or the other way round (e.g. a transposed x with a row-major scale)",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it whose y is wrong (2 of 2 randomized cases that got a plan: an rmsnorm inference of x "
     "[1, 77, 768] laid out [B, D, S] and a bfloat16 layernorm training of x [3, 49, 4] laid out likewise, both "
     "with a row-major scale; 9 more such cases had no engine; 196 forward cases row-major over those dims, and "
     "a channels-last image layernorm with a channels-last scale and bias, were right): lay x, scale and bias out "
     "in one order (row-major) over the normalized dims",
     "H200"},
    {Feature::matmul_fp8_operand_conversion, "matmul_fp8_operand_conversion", Gate::known_bad,
     "a mixed matmul with an operand widened in the graph (an FP8 one, by the matmul or by the caller's cast, or a "
     "half or bfloat16 one into a float matmul) whose rows are not a multiple of 16 elements apart (a vector: more "
     "than 64 elements, not a multiple of 16; an FP8 vector: more than 32 elements; a single row or column whose "
     "unit dim has a stride that is not, with K above 32), or of E4M3 with E5M2",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that compute wrong results or whose kernels fault (an illegal address: the CUDA context "
     "is lost): 4 wrong and 4 faults in randomized FP8 cases (K from 1 to 629, e4m3 or e5m2 with half or with "
     "each other; E4M3 with E5M2 faulted with aligned rows too), 3 wrong of bfloat16 with float (one through the "
     "caller's cast), E4M3 vectors B of 35 (a bfloat16 A of 4 batches, B cast by the caller), 179 and 320 elements "
     "wrong; a half row of 160 elements into a float matmul, its unit dim M 23 elements apart, wrong (relative "
     "error 0.68, right with that stride aligned); 8 FP8 cases with K up to 70, vectors of 3, 9 and 34 elements, "
     "and aligned rows, were right, and 8 single rows or columns with unaligned unit dims and K up to 34: convert "
     "the operand in a graph of its own, or lay its rows out a multiple of 16 elements apart",
     "H200"},
    {Feature::matmul_leaky_relu_epilogue, "matmul_leaky_relu_epilogue", Gate::known_bad,
     "a leaky relu (a relu with a lower-clip slope) straight on a matmul's result", 0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that drop the slope and compute a plain relu (3 of 4 randomized cases, float and "
     "bfloat16, relative errors 0.02 to 0.2; a leaky relu after the bias in the same epilogue was right in 7 of 7): "
     "add a bias (zeros if need be) between the matmul and the leaky relu, or run the leaky relu in a graph of its "
     "own",
     "H200"},
    {Feature::matmul_strided_bias_operand, "matmul_strided_bias_operand", Gate::known_bad,
     "a matmul epilogue's row or column operand ([.., 1, N] broadcast along M, or [.., M, 1] along N, per batch "
     "or not) that is not contiguous along N (or M), or a column operand per batch ([b, M, 1], b above 1) whose "
     "unit N dim has a stride other than 1 and smaller than the batch's",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that read the operand as if it were contiguous (3 randomized cases: a float bias [1, 44] "
     "with N's stride 33, a float bias [4, 1, 238] laid out N outermost and a half column bias [1, 160, 1] with M's "
     "stride 9, relative errors 0.12 to 0.36; operands contiguous along their long dim were right in every case, "
     "and so was one other column operand with a strided M), and read a half column operand [5, 909, 1] whose unit "
     "N dim had the stride 55 wrong (3,075 of 4,545 elements of C; column operands of one batch with such a stride "
     "were right in 5 cases, and a column operand [8, 4, 1] laid out N, batch, M in 1): make the operand contiguous",
     "H200"},
    {Feature::conv_dgrad_float_dx_not_channels_last, "conv_dgrad_float_dx_not_channels_last", Gate::known_bad,
     "a convolution data gradient (or transposed convolution) into a float dx from half or bfloat16 dy, unless dy "
     "and dx are both channels-last (a single pixel counts as channels-last)",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that leave dx unwritten, all or part (the randomized cases: bfloat16 1-D dy NCHW into a "
     "float channels-last dx of 80 channels, 48 of them written; a half NCHW 5x3 image of 24 channels through a 5x5 "
     "transposed convolution into a float single-pixel result, none written; 3 of 10 with dy and dx both NCHW, "
     "1-D to 3-D, a batch of one and 8 to 32 channels, none written; the float dx of channels-last graphs, and "
     "dx of dy's type in any layout, were right): write dx in dy's type, or make dy and dx channels-last",
     "H200"},
    {Feature::pointwise_rank3_partial_broadcast, "pointwise_rank3_partial_broadcast", Gate::known_bad,
     "a rank-3 pointwise operation with an operand broadcast along the last dim that varies along another ([N, C, "
     "1], [1, C, 1], or the index along dim 1), or one that varies along the last dim only ([1, 1, W]) where N and "
     "C are above 1",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that read that operand's elements from the wrong places (12 of 15 randomized cases, "
     "relative errors 0.1 to 1.9, some results NaN; [N, 1, W] and [1, C, W] operands were right in 14 cases): add a "
     "unit dim to make the operation rank 4 ([N, C, 1, W]), or broadcast the operand to the full width first",
     "H200"},
    {Feature::pointwise_rank3_permuted_layout, "pointwise_rank3_permuted_layout", Gate::known_bad,
     "a rank-3 pointwise operation over a tensor not laid out dim 0 outermost and the last dim innermost", 0, 0,
     kAnyCudnn9, kVerified,
     "builds plans for it that leave most of the result unwritten or compute it from the wrong elements (7 of 7 "
     "randomized cases that got a plan, in float, half and bfloat16; row-major tensors, gaps allowed, were right in "
     "53 cases): lay the tensors out row-major, or add a unit dim to make them rank 4",
     "H200"},
    {Feature::pointwise_backward_channel_broadcast, "pointwise_backward_channel_broadcast", Gate::known_bad,
     "an activation's backward pointwise mode at rank 4 or 5 with dy or x broadcast along the channels (a "
     "per-pixel [N, 1, H, W] operand, or a by-value scalar dy) where the result has several, or at rank 2 with a "
     "per-row [M, 1] dy or x",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that compute wrong outputs (8 of 9 randomized cases at rank 4 and 5, 2 of 2 at rank 2, "
     "relative errors 0.04 to 1.4, some results NaN; per-channel operands, and forward modes with per-pixel "
     "operands, were right in 11 cases): expand "
     "the operand to the full shape with a forward operation first (add a full-shape zero input), or pass dy as a "
     "full tensor",
     "H200"},
    {Feature::reduction_unpacked_result, "reduction_unpacked_result", Gate::known_bad,
     "a reduction whose result is not packed in the input's order of dims (a gap, or its dims in another order)", 0,
     0, kAnyCudnn9, kVerified,
     "builds plans for it that write the result as if packed, leaving elements unwritten or in the wrong places (3 "
     "of 3 randomized cases: a gap after the reduced channels of a rank-5 result, a gap on a unit dim, an "
     "H-outermost result of a channels-last input; 41 packed results were right): leave the result's layout to the "
     "graph, or copy it into the layout wanted",
     "H200"},
    {Feature::reduction_rank3_permuted_input, "reduction_rank3_permuted_input", Gate::known_bad,
     "a reduction of a rank-2 or rank-3 graph input not laid out dim 0 outermost and the last dim innermost", 0, 0,
     kAnyCudnn9, kVerified,
     "builds plans for it that leave elements out of the reduction (2 randomized cases: a channels-last [68, 56, 1] "
     "bfloat16 min over dims 1 and 2, 55 of 68 results wrong; a half amax over dim 0 of a [193, 1] laid out dim 0 "
     "innermost, its one result 1.69 for 1.99; the other rank-2 and rank-3 reductions drawn had no engine): lay "
     "the input out row-major, or add a unit dim to make it a rank-4 channels-last tensor",
     "H200"},    {Feature::pointwise_rank4_one_channel, "pointwise_rank4_one_channel", Gate::observed,
     "a rank-4 or rank-5 pointwise operation with one channel (dim 1 is 1)", 0, 0, 0, kVerified,
     "has no engine for it in any layout (65 of 65 randomized cases, where the same shapes with more than one "
     "channel ran): drop the unit channel dim (an [N, 1, H, W] tensor is [N, H, W] in memory), whose rank-3 "
     "row-major graph has engines",
     "H200"},
    {Feature::pointwise_rank4_layout, "pointwise_rank4_layout", Gate::observed,
     "a rank-4 or rank-5 pointwise operand that is not packed channels-last", 0, 0, 0, kVerified,
     "has engines for rank-4 and rank-5 pointwise operations only when every operand is packed channels-last "
     "(NHWC, NDHWC), unit dims' strides included: NCHW, other dim orders, padded rows and odd strides on unit "
     "dims have none (45 of 46 randomized cases): give every operand packed channels-last strides",
     "H200"},
    {Feature::pointwise_rank3_layout, "pointwise_rank3_layout", Gate::observed,
     "a rank-2 or rank-3 pointwise operand whose dims are not in row-major order", 0, 0, 0, kVerified,
     "has no engine for a rank-2 or rank-3 pointwise operation with an operand whose dims (those longer than "
     "one) are not in row-major order, a transposed or channels-last one among them (23 of 23 randomized "
     "cases): lay every operand out row-major (a unit dim's stride and padded rows are taken)",
     "H200"},
    {Feature::pointwise_engine_envelope, "pointwise_engine_envelope", Gate::observed,
     "a pointwise graph outside what its engines were seen to take", 0, 0, 0, kVerified,
     "has pointwise engines for graphs whose operands all share one packed layout (row-major at rank 2 and 3, "
     "channels-last with more than one channel at rank 4 and 5); past that, some chains of comparisons and "
     "select, float results of half inputs and padded rank-3 rows were refused too (27 randomized cases, "
     "against 197 right ones with the same ops): give every operand one packed layout, or split the graph",
     "H200"},
    {Feature::conv_half_float_result, "conv_half_float_result", Gate::observed,
     "a half or bfloat16 convolution with a float result", 0, 0, 0, kVerified,
     "has engines for a half or bfloat16 convolution that writes a float result only in some shapes: dgrad, "
     "wgrad and the transposed convolution need channels per group (C / groups and K / groups) that are "
     "multiples of 8 (39 of 39 randomized cases without were refused, 7 of 10 with ran), and most 2-D "
     "forward ones were refused as well: write the result in the input's type and convert it, or pad the "
     "channels to a multiple of 8",
     "H200"},
    {Feature::conv_dgrad_drelu_layout, "conv_dgrad_drelu_layout", Gate::observed,
     "a dgrad fused with ReLU backward, in NCHW or in convolution mode", 0, 0, 0, kVerified,
     "has no engine for a convolution dgrad fused with the ReLU backward when its tensors are NCHW or it "
     "flips the filter (convolution mode) (21 of 21 randomized cases; channels-last cross-correlation ran "
     "in 29 cases): give every tensor channels-last strides and use cross-correlation with a flipped filter",
     "H200"},
    {Feature::conv_wgrad_image_prologue, "conv_wgrad_image_prologue", Gate::observed,
     "a wgrad whose image is scaled, biased and ReLU'd in the same graph", 0, 0, 0, kVerified,
     "has engines for a wgrad fused with its image's scale, bias and ReLU only for half image, dy, scale and "
     "bias, 2-D, ungrouped, channels-last and with symmetric padding (20 of 20 randomized cases outside that "
     "were refused; 18 of 19 inside ran): compute the image in a graph of its own, or stay inside those "
     "bounds",
     "H200"},
    {Feature::conv_fused_nchw_float_bias, "conv_fused_nchw_float_bias", Gate::observed,
     "a half or bfloat16 convolution fused with a float bias, in NCHW", 0, 0, 0, kVerified,
     "has no engine for most half or bfloat16 forward convolutions fused with a float bias or scale when "
     "the tensors are NCHW (7 of 8 randomized cases): give the bias the input's type, or the tensors "
     "channels-last strides",
     "H200"},
    {Feature::conv_engine_envelope, "conv_engine_envelope", Gate::observed,
     "a fused convolution outside what its engines were seen to take", 0, 0, 0, kVerified,
     "has fused convolution engines (bias and activation, residual add, dgrad with ReLU backward, wgrad with "
     "the image's scale, bias and ReLU) for channels-last tensors of one type; some small shapes were "
     "refused as well: grouped or 3-D dgrad with ReLU backward, and filters wider than the padded image with "
     "a one-pixel result (23 randomized cases): run the convolution unfused and apply the rest in a "
     "pointwise graph",
     "H200"},
    {Feature::reduction_rank, "reduction_rank", Gate::observed, "a reduction of a tensor that is not rank 4", 0, 0,
     0, kVerified,
     "has reduction engines for rank-4 inputs (NHWC) only: rank 2, 3 and 5 inputs were refused in 102 of 104 "
     "randomized cases: reshape the input to rank 4 with unit dims, channels-last",
     "H200"},
    {Feature::reduction_layout, "reduction_layout", Gate::observed,
     "a rank-4 reduction whose input is not channels-last", 0, 0, 0, kVerified,
     "has no engine for a rank-4 reduction whose input is not channels-last (NCHW or another order of its "
     "dims; 13 of 13 randomized cases): give the input channels-last strides",
     "H200"},
    {Feature::reduction_engine_envelope, "reduction_engine_envelope", Gate::observed,
     "a reduction outside what its engines were seen to take", 0, 0, 0, kVerified,
     "has reduction engines for rank-4 channels-last inputs; a few of those were refused too (33 randomized "
     "cases against 197 right, with no one feature in common): reduce over fewer axes at a time, or pass the "
     "input packed",
     "H200"},
    {Feature::batchnorm_unaligned_channels, "batchnorm_unaligned_channels", Gate::observed,
     "a batchnorm over a channel count that is not a multiple of 8", 0, 0, 0, kVerified,
     "has few batchnorm engines (training, backward, inference) for channel counts that are not multiples of "
     "8 (42 of 45 randomized cases were refused): pad the channels to a multiple of 8 with unit scale and "
     "zero bias",
     "H200"},
    {Feature::norm_backward_layout, "norm_backward_layout", Gate::observed,
     "a layer, RMS or adaptive layer norm backward whose x is not row-major", 0, 0, 0, kVerified,
     "has no engine for a layernorm, rmsnorm or adaptive layernorm backward whose x (and dy) are not "
     "row-major over their dims (channels-last or another order; 32 of 33 randomized cases), where row-major "
     "ones run: pass x and dy row-major, the normalized dims innermost",
     "H200"},
    {Feature::batchnorm_inference_layout, "batchnorm_inference_layout", Gate::observed,
     "a batchnorm inference whose x is not channels-last", 0, 0, 0, kVerified,
     "has no engine for the pointwise graph that batchnorm inference lowers to when x is not channels-last "
     "(NCHW or another order; 14 of 14 randomized cases with channels a multiple of 8): give x and y "
     "channels-last strides",
     "H200"},
    {Feature::norm_engine_envelope, "norm_engine_envelope", Gate::observed,
     "a normalization outside what its engines were seen to take", 0, 0, 0, kVerified,
     "has normalization engines for row-major x (layer, RMS, adaptive layer norm) and channels-last x with "
     "channels a multiple of 8 (batch norm); some graphs inside those bounds were refused as well (NCHW "
     "batchnorm training and backward, instancenorm; 30 randomized cases against 174 right; adaptive layer norm "
     "forwards, 16 against 43 right, refused when the operation graph is finalized): pass x "
     "channels-last with channels a multiple of 8, or row-major for the layer norms",
     "H200"},
    {Feature::matmul_two_batch_dims, "matmul_two_batch_dims", Gate::observed,
     "a matmul with two batch dims (rank-4 operands)", 0, 0, 0, kVerified,
     "has no matmul engine for rank-4 operands [B1, B2, M, K] x [B1, B2, K, N] (78 of 78 randomized cases, "
     "every type and layout), where rank-3 batched ones run: merge the batch dims into one ([B1 * B2, M, K]) "
     "when their strides nest",
     "H200"},
    {Feature::matmul_engine_envelope, "matmul_engine_envelope", Gate::observed,
     "a matmul outside what its engines were seen to take", 0, 0, 0, kVerified,
     "has matmul engines for rank-2 and rank-3 operands of one type with the batch dim outermost; a few of "
     "those were refused as well, mostly with a bias and an activation or an aux output fused, or with the "
     "batch dim stored inside the matrix (39 randomized cases against 433 right): run the epilogue as a "
     "separate pointwise graph, or store the batch dim outermost",
     "H200"},
    {Feature::resample_edge_padding, "resample_edge_padding", Gate::observed,
     "pooling with edge padding (padding_mode EDGE)", 0, 0, 0, kVerified,
     "has no pooling engine for edge-value padding (CUDNN_EDGE_VAL_PAD), forward or backward, max or average "
     "(25 of 25 randomized cases): pad the image by replicating its edges first and pool without padding",
     "H200"},
    {Feature::pooling_engine_envelope, "pooling_engine_envelope", Gate::observed,
     "a pooling outside what its engines were seen to take", 0, 0, 0, kVerified,
     "refused about a third of randomized average and max poolings (89 of 271) with no shape, layout, type "
     "or padding feature in common (channels-last or not, channels a multiple of 8 or not, 2-D or 3-D): no "
     "layout or shape was seen to always have an engine",
     "H200"},
    {Feature::moe_weight_n_contiguous, "moe_weight_n_contiguous", Gate::observed,
     "MoE grouped matmul weights stored N-contiguous (row-major, strides [K * N, N, 1])", 0, 0, 0, kVerified,
     "has no MoE grouped matmul engine for weights stored N-contiguous (40 of 40 randomized cases), where "
     "K-contiguous weights (strides [K * N, 1, K], with or without a gap between experts) run: store each "
     "expert's weight K-contiguous",
     "H200"},
    {Feature::norm_backward_transposed_layout, "norm_backward_transposed_layout", Gate::known_bad,
     "a layer, RMS or adaptive layer norm backward whose x or dy is not laid out row-major over the normalized "
     "dims (e.g. a transposed x)",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that compute wrong dx and dscale (the randomized case: a half adaptive layer norm "
     "backward of x [5, 4, 4] laid out [B, D, S], relative errors 2.9 and 1.7; 32 more such cases had no engine, "
     "one was right, and row-major backward cases were right): make x and dy contiguous (row-major) over the "
     "normalized dims",
     "H200"},
    {Feature::pointwise_gapped_broadcast_operand, "pointwise_gapped_broadcast_operand", Gate::known_bad,
     "a pointwise operation with an operand broadcast along a dim ([M, 1], [N, 1, W], [N, 1, D, H, W], ...) that "
     "is laid out with a gap (not packed)",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that read that operand from the wrong places (4 randomized cases left by the other "
     "entries: [67, 1] and [49, 1] operands with a row stride of 9, a [13, 1, 92] operand with a gap and a "
     "channels-last [3, 1, 5, 8, 46] one with a gap, relative errors 0.07 to 1.0; packed broadcast operands, and "
     "gapped full-size ones, were right): copy the operand to a packed tensor first",
     "H200"},
    {Feature::matmul_result_matrix_strided, "matmul_result_matrix_strided", Gate::known_bad,
     "a matmul whose result C, or an epilogue operand of C's shape, has neither M nor N contiguous: a batch dim of "
     "more than one laid out inside both (a stride smaller than theirs), or M and N above one with no stride of 1",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that leave most of C unwritten and the rest wrong (3 of 3 randomized cases that got a "
     "plan: batch 3 and 8 laid out inside M and N, and a bfloat16 [1, 488, 550] C laid out M, N, batch with a gap "
     "of 3 after the batch, N's stride 4; the same layouts with a batch of one and no gap were right in 3 cases), and "
     "for an epilogue operand so laid out (a bfloat16 bias [3, 358, 4] with its batch innermost: 4,008 of 4,296 "
     "elements of C wrong; 31 randomized full operands with M or N contiguous were right): "
     "lay C out with M or N contiguous and its batch dims outside them, and transpose it afterwards if need be",
     "H200"},
    {Feature::conv_fusion_nchw_pixel, "conv_fusion_nchw_pixel", Gate::known_bad,
     "a fused half or bfloat16 convolution graph over an NCHW image whose result is a single pixel (every spatial "
     "dim 1, one channel or more), and such a float convolution forward in groups",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that leave some of the result unwritten and the rest wrong (a 3x3x3 fp16 image, bias, "
     "residual and ReLU: wrong in 4 of 4 runs, whichever strides the single pixel's unit dims were given; a 1-D "
     "fp16 image of 3 grouped by 8, bias, residual and ReLU: wrong, relative error 0.85; 5 of 16 randomized 2-D "
     "graphs, each with a scaled residual, NaN or wrong; a float 1 x 2 image of 48 channels in 3 groups, a 5 x 5 "
     "filter at stride 3, bias and sigmoid: 92 of 96 elements wrong, while 3 other grouped float ones were right; "
     "a 1-D fp16 image of 32 channels 4 wide, an 8-wide filter at stride 2 into one channel of one pixel, with "
     "genstats: the result and both statistics wrong, relative error 4; "
     "channels-last graphs with a single-pixel result were right, as were ungrouped float NCHW ones, in 96 "
     "randomized cases and 2 more): lay the image out channels-last",
     "H200"},
    {Feature::matmul_int8_widened_long_rows, "matmul_int8_widened_long_rows", Gate::known_bad,
     "a mixed matmul that widens an int8 operand (by the caller's cast or by the matmul) whose rows, or whose "
     "batches, are not a multiple of 16 elements apart, or a single row or column of it (M or N of 1) whose unit "
     "dim has a stride that is not (1 among them), with K above 32",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that compute wrong results (10 of 22 randomized cases with K from 35 to 698, half, "
     "bfloat16 and float results alike, relative errors 0.3 to 0.9; 36 with K up to 32 were right; a batch of "
     "two int8 rows of 832 elements, 838 elements apart, into a half result, relative error 0.63; and 10 of 13 "
     "randomized single rows or columns, K 38 to 976, whose unit dim had a stride of 1 or an odd one, relative "
     "errors 0.09 to 0.95 (the 3 right had K of 38 and 48), 2 of them right with that stride a multiple of 16): lay the int8 operand's rows, "
     "batches and unit dims out a multiple of 16 elements apart, or convert it in a graph of its own",
     "H200"},
    {Feature::pointwise_rank3_unit_dim_gap, "pointwise_rank3_unit_dim_gap", Gate::known_bad,
     "a rank-3 pointwise result [N, 1, W] (N and W above 1) with a gap after its unit dim (strides [S, W, 1], "
     "S > W)",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that write a third of the result wrong ([32, 1, 2] with strides [34, 2, 1]: 2 of 2 runs; "
     "63 other rank-3 results with gaps were right, [10, 2, 2] and [103, 1, 1] with the same gap among them, and "
     "[N, 1, W] results with strides [S, S, 1] or [S, 1, 1]): give the unit dim the rows' stride, or write the result as [N, W]",
     "H200"},
    {Feature::attention_backward_dsink_dropout, "attention_backward_dsink_dropout", Gate::known_bad,
     "an attention backward that outputs dSink (the sinks' gradient) with dropout", 0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that compute dSink scaled by the keep rate 1 - p (4 of 4 randomized cases, dropout p from "
     "0.28 to 0.42, dSink over the reference 0.58 to 0.72; dQ, dK and dV were right): compute dSink in a backward "
     "without dropout",
     "H200"},
    {Feature::attention_backward_deterministic_grouped_wide_keys,
     "attention_backward_deterministic_grouped_wide_keys", Gate::known_bad,
     "the deterministic attention backward with a head dim of Q and K above V's (d_qk > d_v)",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it whose dQ is wrong in some runs and right in others (grouped: one case and 7 variants of "
     "it, 17 of 24 runs wrong, d_qk 136 and 144 over d_v 128; the same case with d_qk = d_v, with h_q = h_k, or not "
     "deterministic was right in 9 of 9 runs), and wrong with one head per K and V too once d_qk is 176 over d_v "
     "128 (5 randomized cases of 1 to 8 heads and 14 variants of one, half and bfloat16, s_kv 39 to 128: dQ "
     "relative errors 0.22 to 0.67; right not deterministic, with d_qk = d_v or 128; with one head per K and V, d_qk "
     "136 to 160 and 256 were right in 8 randomized cases and one at 232, but a later run had d_qk 152 over 128 "
     "wrong with one head, bfloat16, s 5 over 2: 342 of 1,520 dQ elements zero): use the backward "
     "that is not deterministic, or pad V's head dim to Q's",
     "H200"},
    {Feature::fp8_matmul_cublaslt_engines, "fp8_matmul_cublaslt_engines", Gate::known_bad,
     "an FP8 matmul (fe_graph_matmul_fp8) on cuDNN's engines that call cuBLASLt", 0, 0, kAnyCudnn9, kVerified,
     "builds plans for it on those engines, for A and B laid out K-innermost with M, N and K multiples of 16, whose "
     "every execute fails (CUDNN_STATUS_EXECUTION_FAILED_CUBLAS: cuBLASLt takes no scale for a half, bfloat16 or "
     "float C, and refused the FP8 C ones as well; 18 of 18 randomized cases); cuDNN's own engines ran all 227 "
     "FP8 cases of the same runs right, so these plans are built on them alone",
     "H200"},
    {Feature::matmul_column_operand_transposed_result, "matmul_column_operand_transposed_result", Gate::known_bad,
     "a matmul epilogue with a column operand ([.., M, 1], broadcast along N) whose result is stored M-innermost "
     "(transposed)",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that compute a third of the result wrong (a half [5, 2, 16] result with a column bias "
     "and GELU: 1 of 1 randomized case; 12 with the result stored N-innermost were right): store the result "
     "N-innermost, and transpose it afterwards if need be",
     "H200"},
    {Feature::paged_attention_sinks_grouped_decode, "paged_attention_sinks_grouped_decode", Gate::known_bad,
     "paged grouped- or multi-query attention (h_q > h_k) over a single query row (s_q = 1, decoding) with "
     "attention sinks",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that compute wrong outputs and stats (3 of 4 randomized cases, 4 to 32 query heads per "
     "K/V head; the same decode with sinks and contiguous K and V was right in 25 cases, and paged without sinks in "
     "3): bind K and V contiguous, or leave the sinks out",
     "H200"},
    {Feature::conv_wgrad_float_asymmetric_padding, "conv_wgrad_float_asymmetric_padding", Gate::known_bad,
     "a float weight gradient (dw) of a convolution with asymmetric padding", 0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that compute a wrong dw now and then, in every layout (NCHW: 3 of 5 randomized cases, "
     "padding 5 / 6 and 7 / 1 in 1-D and (1, 0) / (1, 1) in 2-D, relative errors 1.2 to 1.5; channels-last or "
     "single-channel: 2 of 44, a 2-D one padded (1, 0) before and (0, 1) after with stride 2 and a 1-D one padded "
     "3 / 0 with stride 4, relative errors 0.3 and 1.4, the same plan wrong in every run; and 2 of 2 NCHW cases "
     "whose padding reaches past the image, a float 2x5 image padded (3, 0) / (2, 0) and a half 6x2 one padded "
     "(0, 4) / (1, 4) into a float dw, relative errors 1.5): pad the image explicitly so that the convolution's "
     "own padding is symmetric",
     "H200"},
    {Feature::batchnorm_inference_batch_inside, "batchnorm_inference_batch_inside", Gate::known_bad,
     "batchnorm inference (fe_graph_batchnorm_inference) of an x whose batch dim is not outermost", 0, 0,
     kAnyCudnn9, kVerified,
     "builds a plan for the pointwise graph it lowers to whose kernel makes an illegal memory access (the CUDA "
     "context is lost) for an x laid out with the batch innermost ([6, 12, 28, 12] with strides [1, 2016, 72, "
     "6]), and whose output is wrong, mostly non-finite, for a batch of one given stride 1 ([1, 112, 4] with "
     "strides [1, 4, 1]): lay x out with its batch dim outermost (with a batch of one, give it the largest stride)",
     "H200"},
    {Feature::attention_backward_dropout_long_keys, "attention_backward_dropout_long_keys", Gate::known_bad,
     "the attention backward with dropout drawn by cuDNN over more than 128 keys (s_kv > 128), deterministic or not",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it whose dQ and dK are NaN, all or part (3 of 3 randomized cases of the backward that is not "
     "deterministic, s_kv 134 to 210; 7 of 14 deterministic ones, s_kv 158 to 221, run 8 at a time on one GPU, one "
     "of which was right run alone; dV right; the 59 cases with s_kv up to 126 were right): leave attention "
     "dropout out of training over longer sequences",
     "H200"},
    {Feature::attention_backward_dropout_single_query, "attention_backward_dropout_single_query", Gate::known_bad,
     "the attention backward with dropout drawn by cuDNN over a single query row (s_q = 1) and more than 64 keys",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it whose dQ and dK are NaN in every run (4 of 15 randomized cases with s_kv from 71 to "
     "248: 3 of 7 deterministic, 1 of 8 not, a packed one over 122 keys; the 88 with s_kv up to 64, or with "
     "dropout and two query rows, were right): leave dropout out of a single-row backward, or pad Q to two rows",
     "H200"},
    {Feature::conv_wgrad_half_float_dw_nchw, "conv_wgrad_half_float_dw_nchw", Gate::known_bad,
     "a weight gradient (dw) of a half or bfloat16 image and gradient into a float dw, with x or dy not "
     "channels-last", 0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that leave part of dw unwritten and the rest wrong (2 of 2 randomized NCHW cases that got "
     "a plan, 2-D, relative errors 1.4; 3 channels-last ones were right): lay x and dy out channels-last, or write "
     "dw in their type and convert it",
     "H200"},
    {Feature::reduction_partial_spatial, "reduction_partial_spatial", Gate::known_bad,
     "a reduction of a rank-4 or rank-5 tensor over some of its spatial dims (dim 2 on) while keeping others, each "
     "of more than one element", 0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that read the wrong elements (2 of 2 randomized cases that got a plan: max over dims 0 "
     "and 2 of a channels-last [4, 26, 5, 1, 4] and over dims 2 and 3 of a [1, 1, 2, 11, 3], relative errors "
     "above 1; 24 rank-5 reductions over the channels, over every spatial dim or over none were right): reduce "
     "over the spatial dims in two steps, or view the kept dims as the channels",
     "H200"},
    {Feature::norm_output_layout, "norm_output_layout", Gate::known_bad,
     "a normalization (layer, RMS, adaptive layer, batch or instance norm, forward or backward) whose y, dy or "
     "dx is not laid out as x (strides that differ on a dim of more than one element)", 0, 0, kAnyCudnn9,
     kVerified,
     "refuses it when the operation is finalized (CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH, \"!xDesc.hasSameShape\": "
     "572 of 11,000 randomized norm cases of seeds 14 to 35, each one of them refused by this entry now, and no "
     "graph cuDNN took): give y, dy and dx x's strides",
     "H200"},
    {Feature::norm_forward_unpacked_rows, "norm_forward_unpacked_rows", Gate::known_bad,
     "a layer, RMS or adaptive layer norm forward whose x is not packed with its normalized dims innermost (in any "
     "order): a gap anywhere in x, or a dim it is not normalized over laid out inside them",
     0, 0, kAnyCudnn9, kVerified,
     "refuses it when the operation graph is finalized (CUDNN_STATUS_BAD_PARAM \"rows ... cols ... deduced\", or "
     "CUDNN_STATUS_NOT_SUPPORTED: 924 of 11,000 randomized norm cases of seeds 14 to 35, each one of them refused "
     "by this entry now, and no graph cuDNN took): lay x out packed with its normalized dims innermost, e.g. "
     "[b, s, d] row-major with no gaps",
     "H200"},
    {Feature::attention_dropout_single_query_long_keys, "attention_dropout_single_query_long_keys", Gate::known_bad,
     "attention with dropout drawn by cuDNN over a single query row (s_q = 1) and more than 256 keys (s_kv > 256)",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it whose kernel makes an illegal memory access (the CUDA context is lost) for head dims up "
     "to 64 (a randomized case and 12 variants of it: head dims 8 to 64, 257 to 512 keys, with or without the "
     "stats and the mask output, dropout probability 0.01 or 0.21), and that leave the drawn mask partly unwritten "
     "for head dims 88 and 128 (2 randomized cases over 292 and 316 keys); 256 or 1024 keys, and no dropout, ran on "
     "other kernels: leave dropout out of decoding, or pass a dropout mask of your own (fe_sdpa_options.dropout_mask)",
     "H200"},
    {Feature::runtime_kernel_compilation, "runtime_kernel_compilation", Gate::observed,
     "a graph whose kernels cuDNN compiles at build time", 0, 0, 0, kVerified,
     "could not compile (CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED, from its runtime compiler NVRTC) the kernels "
     "of every engine config its heuristics offered for some graphs: 6 to 12 of 1,000 randomized float matmuls and "
     "21 to 28 of 800 pointwise, reduction and resampling graphs in each of five runs (most pointwise ones compare "
     "values or generated indices and select with the result); the same graphs fail alone and on one thread: split "
     "the graph, or use other data types or layouts",
     "H200"},
    {Feature::int8_conv_one_channel_unit_width, "int8_conv_one_channel_unit_width", Gate::known_bad,
     "a channels-last int8 convolution of one input channel into a float result one pixel wide and more than one "
     "high (its last spatial dim 1, another above 1)",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that leave most of the result unwritten (2 of 2 randomized 2-D cases, outputs 26 x 1 and "
     "2 x 1: 2,387 of 2,496 and 253 of 288 elements unwritten, every time); one-channel results of one pixel, 1-D "
     "ones and those wider than one pixel were right (53 randomized cases into float): give x a second channel of zeros (and w a second "
     "input channel), or lay the image out so that its wide dim is last",
     "H200"},
    {Feature::int8_conv_flipped_single_pixel, "int8_conv_flipped_single_pixel", Gate::known_bad,
     "a channels-last int8 convolution in convolution mode (the filter flipped), not grouped, its filter the size "
     "of the image (no padding or dilation: a single output pixel): 2-D or 3-D into a float result, 1-D into any",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that compute every element wrong (2 of 2 randomized 2-D cases, a 7 x 7 and a 3 x 3 "
     "filter over an image of its size: relative errors 1.2 and 1.4; a 1-D one, 11 wide over 40 channels, wrong "
     "into float and into int8 with 1 or 2 batches and 1, 32 or 40 channels, right with the output 2 wide, in 2-D, "
     "or in cross-correlation mode, while a 3-wide 1-D one was right); 2-D and 3-D single pixels in convolution "
     "mode into an int8 result (4 randomized cases), grouped (1) or from a padded image (1) into float were right: "
     "flip the filter yourself and use cross-correlation",
     "H200"},
    {Feature::paged_attention_stats_score_mod_tensor, "paged_attention_stats_score_mod_tensor", Gate::known_bad,
     "paged attention over a single query row (s_q = 1, decoding) with the stats (or the Max and SumExp) output "
     "and a score modifier of the caller's that reads a tensor (a per-head term, say)",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that compute wrong stats (a randomized grouped-query case, 2 query heads over 1 and 108 "
     "keys in pages of 8: one of two stats values wrong, every time, with or without a causal mask, in half and "
     "bfloat16; O right; and a packed half case, 4 query heads over 1, 50 keys in pages of 1, soft-capping after "
     "the per-head term: 3 of 4 Max values wrong); without the paging, without the per-head term (the modifier's "
     "by-value scalars kept) or without the stats it was right: gather the pages into a plain K and V, or leave "
     "out the stats",
     "H200"},
    {Feature::pointwise_softplus_backward_scalar_dy, "pointwise_softplus_backward_scalar_dy", Gate::known_bad,
     "a softplus backward (SOFTPLUS_BWD) of a by-value scalar dy over an x read from memory", 0, 0, kAnyCudnn9,
     kVerified,
     "builds plans for it that read x's first element for every element (a randomized half case, x [1, 2], beta "
     "2.87: element 1 came out as the softplus derivative at x[0], in 3 of 3 runs; softplus backward of a scalar dy "
     "over a computed x (3 cases), and swish and sigmoid backward of a scalar dy over an x in memory (2), were "
     "right): pass dy as a full tensor",
     "H200"},
    {Feature::conv_fusion_one_channel_unit_width, "conv_fusion_one_channel_unit_width", Gate::known_bad,
     "a convolution forward fused with pointwise operations (a bias, an activation, a residual add) over a "
     "channels-last image of one input channel (not grouped) more than one pixel wide, into a result one pixel wide "
     "and more than one high (its last spatial dim 1, another above 1)",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that leave most of the result unwritten (13 of 49 randomized 2-D cases drawn with one "
     "channel and a result one pixel wide: half, bfloat16 and float, bias with or without an activation, scale + "
     "bias + residual add + relu; e.g. a bfloat16 conv + bias 2 x 3 -> 4 x 1 with 48 filters: 517 of 576 elements "
     "unwritten, every time); the same shapes without the fusion (85 fprop, 58 dgrad, 67 wgrad and 70 transposed "
     "cases), over an image one pixel wide (14), or NCHW (150 cases) were right: run the convolution in a graph of its "
     "own and the pointwise operations after it, give x a second channel of zeros (and w a second input channel), "
     "or lay the image out so that its wide dim is last",
     "H200"},
    {Feature::pointwise_gen_index_gapped_input, "pointwise_gen_index_gapped_input", Gate::known_bad,
     "the index along a dim (GEN_INDEX) of a graph input laid out with a gap (not packed)", 0, 0, kAnyCudnn9,
     kVerified,
     "builds plans for it that give some elements another element's index (2 of 2 randomized float cases, [37, "
     "204] and [112, 8] inputs with a gap of 8 and 16 after each row, the indices along both dims compared: 63 of "
     "7,548 and 34 of 896 elements wrong); the index of packed inputs and of computed tensors was right (9 "
     "cases): take the index of a packed tensor of the same dims",
     "H200"},
    {Feature::attention_backward_alibi_unmasked, "attention_backward_alibi_unmasked", Gate::known_bad,
     "an attention backward with ALiBi and no mask over the keys (no padding mask, causal mask, sliding window or "
     "right bound), either in half precision with 4 or more query heads and s_kv a multiple of 64, or with "
     "soft-capping and either 16 or more query heads and a head dim of Q and K above V's (d_qk > d_v) or 4 to 15 "
     "query heads in half precision",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that write NaN into part of dQ and dV: 32 of 32 randomized half cases with s_q = 2 and "
     "s_kv = 64 and no mask over the keys, with 4 to 16 query heads (multi-, grouped- and multi-query; any head dims; "
     "with or without sinks, bias, soft-capping, dropout or the deterministic mode); with 1 or 2 heads (77 cases), "
     "with a mask over the keys (59, a sliding window longer than s_kv among them), with s_kv 16, 32, 63 or 65, "
     "or in bfloat16 they were right; and a half and bfloat16 case with 32 heads over 8, s_kv 53, soft-capping and "
     "d_qk 160 or 176 over d_v 128 (dQ NaN; right with 8 heads, d_qk 192, d_v 64 or without soft-capping); a half "
     "case with 8 heads, s 17/185, d 104, soft-capping and a score modifier of its own (dV 33,072 of 307,840 "
     "unwritten, 3 of 3 times, also with one batch, head dims 128 or one modifier step; right without ALiBi or "
     "without soft-capping): give it "
     "a sliding window as long as s_kv, which removes no key (the half cases with one were right), or run the half "
     "form in bfloat16",
     "H200"},
    {Feature::reduction_mean_and_norms, "reduction_mean_and_norms", Gate::known_bad,
     "the mean and the norms of a reduction (FE_REDUCTION_AVG, FE_REDUCTION_NORM1, FE_REDUCTION_NORM2)", 0, 0,
     kAnyCudnn9, kVerified,
     "refuses them when the reduction descriptor is finalized (CUDNN_STATUS_NOT_SUPPORTED: 75 of 75 randomized "
     "cases, float, half and bfloat16, rank 2 to 5, alone or after a pointwise operation), where the same graphs "
     "with ADD, MIN, MAX and AMAX ran: reduce with FE_REDUCTION_ADD and then scale by 1 / n (the mean), add the "
     "absolute values (NORM1), or add the squares and take the square root (NORM2), the last step in a graph of its "
     "own",
     "H200"},
    {Feature::fp8_attention_single_query, "fp8_attention_single_query", Gate::observed,
     "an FP8 attention forward over a single query row (s_q = 1, a decoding step)", 0, 0, 0, kVerified,
     "has no FP8 attention forward engine for a single query row (s_q = 1) on Hopper: 52 of 52 randomized cases that no other entry refused "
     "(E4M3 and E5M2, head dims 32 to 256, with or without paging, padding, masks or the stats), where each of 307 "
     "with two query rows or more ran: decode in half or bfloat16",
     "H200"},
    {Feature::fp8_attention_backward_head_dims, "fp8_attention_backward_head_dims", Gate::observed,
     "an FP8 attention backward with head dims other than 128 (d_qk or d_v)", 0, 0, 0, kVerified,
     "has FP8 attention backward engines on Hopper for head dims of 128 only: 92 of 92 randomized cases with other "
     "head dims (16 to 256, d_qk equal to d_v or not) that no other entry refused had none, and 50 with d_qk = d_v = "
     "128 ran: pad Q, K and V with zeros to a head dim of 128 (the scores do not change; keep the attention scale of "
     "the true head dim, and drop the padded columns of O, dQ, dK and dV), or run the backward in half or bfloat16",
     "H200"},
    {Feature::attention_backward_dbias_envelope, "attention_backward_dbias_envelope", Gate::observed,
     "an attention backward with a dBias output", 0, 0, 0, kVerified,
     "has no engine for a few attention backward graphs with a dBias output: 4 of 23 randomized cases that no other entry refused (half and "
     "bfloat16, s_q 1 to 115, s_kv 1 to 174, head dims 64 to 216, with or without the deterministic mode) with no "
     "size, mask, layout or mode in common: leave dBias out where the bias is not trained, or change the sequence "
     "lengths by padding them (with the padding mask)",
     "H200"},
    {Feature::norm_epilogue_envelope, "norm_epilogue_envelope", Gate::observed,
     "a layernorm or rmsnorm of a float x, or an adaptive layernorm, followed by pointwise operations in one graph",
     0, 0, 0, kVerified,
     "has engines for some and none for others, with no shape, layout or operation of the epilogue in common: 38 "
     "of 63 randomized float layer and RMS norm cases ran, 8 of 42 adaptive layernorm ones (the others refused by "
     "its heuristics or when the operation graph is finalized): mark the norm's Y as an output and run the pointwise "
     "operations in a graph of their own",
     "H200"},
    {Feature::pointwise_select_condition_broadcast, "pointwise_select_condition_broadcast", Gate::known_bad,
     "a select (BINARY_SELECT) whose condition is computed in the graph (a comparison, say) and broadcast along the "
     "result's innermost dim (an [M, 1] condition of a row-major [M, N] result, an [N, 1, ...] one of a "
     "channels-last result), or along another dim when the comparison broadcast one of its operands (a [1, 1, W] "
     "against a [1, H, W], for an [N, H, W] result)",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that pick the wrong side for some elements (3 randomized cases that no other entry "
     "refused: a float [7, 16] select on the comparison of two [7, 1] columns, a whole row wrong; a bfloat16 "
     "channels-last [26, 48, 1, 1, 7] one on a comparison of [26, 1, 1, 1, 7], 1,769 of 8,736 elements wrong; a "
     "float [21, 32, 32] one on the comparison of a [1, 1, 32] and a [1, 32, 32], 7,471 of 21,504 wrong; probed "
     "pinned: that comparison alone wrong, with or without a broadcast other side; a [1, 32, 32], [21, 1, 32] or "
     "[1, 16] condition from operands of its own shape right): compare operands broadcast to the result's shape, "
     "so that the condition has it",
     "H200"},
    {Feature::conv_dgrad_float_nchw_asymmetric_padding, "conv_dgrad_float_nchw_asymmetric_padding", Gate::known_bad,
     "a 2-D float data gradient (dx) (or transposed convolution), unless dy and dx are both channels-last, "
     "undilated, of a filter 5 or more wide and 2 or more high, padded asymmetrically along the width with 0 or 1 "
     "before, at a stride of 1 along the width",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that compute most of dx wrong, relative errors 1.0 to 1.5: a 7 x 7 filter over an 8 x 8 "
     "image padded (5, 1) before and (5, 6) after, wrong in 47 of 59 variants of it (right with 2 to 6 before, with "
     "a 3-wide filter, with one channel in or out, or over a 64 x 64 image; channels-last and half right); and 20 "
     "of 600 randomized float data gradients from an NCHW dy padded 0 or 1 before along the width of a filter 5 or "
     "more wide, every one of them inside this description (filters 2 to 7 high, 4 to 128 channels, dx NCHW or "
     "channels-last), which also covers 89 of the 580 that were right; 1-D and 3-D ones, dilated ones and those strided along the width were all "
     "right (375): lay dy and dx out channels-last, or pad symmetrically and crop",
     "H200"},
    {Feature::pointwise_rank4_permuted_layout, "pointwise_rank4_permuted_layout", Gate::known_bad,
     "a rank-4 or rank-5 pointwise operation over a tensor whose dims (those longer than one) are not in "
     "channels-last order (NHWC, NDHWC)",
     0, 0, kAnyCudnn9, kVerified,
     "has no engine for most of them (see pointwise_rank4_layout), and builds plans for others that compute from "
     "the wrong elements (a half erf of a [2, 5, 21, 6] input laid out with the batch innermost into a "
     "channels-last result: 1085 of 1260 elements wrong, relative error 1.4): lay every operand out "
     "channels-last",
     "H200"},
    {Feature::matmul_column_result_unit_stride, "matmul_column_result_unit_stride", Gate::known_bad,
     "a matmul with an epilogue (a scale, a bias or an activation) into a single-column result (N of 1, M above "
     "1) whose unit dim N has a stride above 1, from a B whose unit dim N has one too",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for some of it that compute most of the result wrong (3 of 13 randomized cases inside this "
     "description, float and half, relative errors 0.99 to 1.08; a float [7, 48] x [48, 1] with a scale and GELU "
     "into a result with strides [1, 7] was wrong with the scale alone, and right without the epilogue or with "
     "the result's strides [1, 1]; 140 neighbours outside it, single columns among them, were right): give the result's unit dim N a stride of 1 (a "
     "[M, 1] column with strides [1, 1] is the same memory)",
     "H200"},
    {Feature::fp8_attention_window_many_blocks, "fp8_attention_window_many_blocks", Gate::known_bad,
     "an FP8 attention forward with a sliding window over more blocks of 128 query rows (b * h_q * ceil(s_q / "
     "128)) than the GPU has SMs, where a padding mask is given or a whole block sees no key (the window's left "
     "bound past the last key, or the diagonal left of key 0, for 128 query rows in a row)",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it whose kernel never finishes: the stream waits until the process ends (2 cases of the "
     "conformance runs; 36 of 63 variations of them, with windows of 1 to 64 keys, no causal mask, top-left or "
     "bottom-right, E4M3 and E5M2, head dims 64 to 256, MHA and GQA; 7 of 25 randomized cases with 144 blocks on "
     "the 132-SM H200, padded among them; the same configurations ran right with 132 blocks or fewer, 14 of 14, "
     "and without the window, 2 of 2; some with keyless blocks at the end of the sequence ran right too): split "
     "the batch or the heads so that b * h_q * ceil(s_q / 128) stays within the SM count, leave out the query rows "
     "that see no key, or run the window in half or bfloat16 attention",
     "H200"},
    {Feature::pointwise_rank3_strided_row, "pointwise_rank3_strided_row", Gate::known_bad,
     "a rank-3 pointwise operation (kept at rank 3) over a tensor whose last dim is longer than one and not "
     "contiguous (a stride other than 1: a unit dim laid out innermost, say [1, 1, W] with strides [1, S, 9]), "
     "as a rank-3 transpose inside a fused graph reads its input when it moves the innermost dim away, and as a "
     "slice of such a tensor is read",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that compute from the wrong elements (a float gelu of a product over [1, 1, 103] with x0's "
     "elements 9 apart and a unit dim innermost: 96 of 103 wrong, 2 of 2 runs; probed pinned: the same with the unit "
     "dims' strides outermost, with elements 2 apart, and over [1, 2, 103], all wrong; x0 packed right; rank 2 and "
     "a middle dim strided have no engine; a rank-3 transpose read by a ReLU, the view's last dim strided: 2 of 2 "
     "randomized cases wrong, 85 and 325 elements of 126 and 455, while 26 transposes keeping the innermost dim "
     "were right; a slice of a tensor laid out with another dim innermost, read by a ReLU or an add: 3 of 3 "
     "randomized cases wrong, 65 of 84, 1 of 8 and 3 of 4 elements): copy the operand to a packed tensor first",
     "H200"},
    {Feature::fp8_attention_sinks, "fp8_attention_sinks", Gate::known_bad, "FP8 attention forward with attention sinks",
     0, 0, kAnyCudnn9, kVerified,
     "fails to compile the kernels of every engine config its heuristics offer for it "
     "(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED from NVRTC: 113 of 113 randomized cases, with or without "
     "masks, paging, soft-capping or a right bound): add the sinks in a bfloat16 or half attention",
     "H200"},
    {Feature::fp8_attention_score_modifiers, "fp8_attention_score_modifiers", Gate::known_bad,
     "FP8 attention forward with soft-capping or a score modifier of the caller's (score_mod_input)", 0, 0,
     kAnyCudnn9, kVerified,
     "builds plans for it (eng2) that compute wrong outputs: 58 of 61 randomized cases with soft-capping and 45 "
     "of 49 with a score modifier (a multiply, a per-head add or a tanh cap) were wrong, O saturated at the FP8 "
     "range in many (relative errors up to 1e2), where 290 of 290 cases without them were right: use a bfloat16 "
     "or half attention for modified scores",
     "H200"},
    {Feature::fp8_attention_max_sum_exp, "fp8_attention_max_sum_exp", Gate::known_bad,
     "FP8 attention forward that outputs the rows' Max and SumExp", 0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that write a wrong Max (34 of 36 randomized cases: every row's Max 1.443 times the "
     "true one, 1 / ln 2, as if in base-2 units; some SumExp wrong too): use the stats (generate_stats), which are "
     "right, or a bfloat16 or half attention where Max and SumExp are needed apart",
     "H200"},
    {Feature::pointwise_backward_uniform_dy, "pointwise_backward_uniform_dy", Gate::known_bad,
     "an activation's backward pointwise mode at rank 2 or 3 whose dy is one value for every element: a by-value "
     "scalar, or at rank 2 a [1, 1] graph input",
     0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that compute some results from the wrong elements: 14 of 98 randomized cases with a "
     "by-value scalar dy that got a plan (8 of 61 at rank 2, 6 of 37 at rank 3, over x read from memory or computed "
     "in the graph, float, half or bfloat16 scalars alike; relative errors 0.004 to 0.9), and the one case with a "
     "[1, 1] dy input; 95 more got no plan, every engine failing to compile. With dy a full tensor of the same "
     "value, 170 of the same 193 cases were right, 22 got no plan and the wrong one had that [1, 1] dy: pass dy as "
     "a full tensor",
     "H200"},
    {Feature::softmax_stats_keys_contiguous, "softmax_stats_keys_contiguous", Gate::known_bad,
     "a softmax with statistics (fe_graph_softmax) of a matmul's result whose B operand has its last dim longer "
     "than one and contiguous (K^T stored [b, h, d, s_kv], the keys contiguous)",
     0, 0, kAnyCudnn9, kVerified,
     "crashes the process (a segmentation fault in its runtime-compiled engines' heuristics, listing engine "
     "configs) for some of these graphs: 7 of 60 randomized matmul, softmax, matmul graphs of the conformance "
     "suite's softmax family building for a described H100, and the probe of one of them on an H200; with one "
     "query row it builds a plan whose kernel faults (a misaligned address: the CUDA context is lost; b 3, h 4, "
     "1 query over 4 keys, d 72, half, on an H200). With K read transposed (K stored [b, h, s_kv, d]) none "
     "crashed, nor did 1,000 more cases of five seeds once these were refused: store K so, or leave the "
     "statistics out",
     "H200"},
    {Feature::conv_reduction_nchw, "conv_reduction_nchw", Gate::known_bad,
     "a convolution (forward) fused with a reduction of its result, the image in NCHW", 0, 0, kAnyCudnn9, kVerified,
     "builds plans for it that write the convolution's result and the reduction wrong (15 of 27 randomized NCHW "
     "cases of the conformance suite's conv_reduction family on an H200: sums, maxima per image, channel, pixel "
     "or over all, half, bfloat16 and float alike, most of the result wrong or not finite; 0 of 84 channels-last "
     "cases wrong): lay the image out channels-last (NHWC)",
     "H200"},
    {Feature::matmul_cublaslt_unaligned_operand, "matmul_cublaslt_unaligned_operand", Gate::known_bad,
     "a matmul reading a slice that starts less than 16-byte aligned, on cuDNN's engines that call cuBLASLt", 0, 0,
     kAnyCudnn9, kVerified,
     "builds plans for it on those engines whose execute fails (CUDNN_STATUS_EXECUTION_FAILED_CUBLAS: 2 of 2 "
     "randomized bfloat16 slices read by a matmul, 78 and 1,322 bytes into their input, on an H200); the graph's "
     "plans are built on cuDNN's own engines alone",
     "H200"},
    {Feature::fp8_attention_backward_sinks, "fp8_attention_backward_sinks", Gate::known_bad,
     "FP8 attention backward with the forward's sinks and their gradient (dSink)", 0, 0, kAnyCudnn9, kVerified,
     "builds plans for it whose kernels make an illegal memory access (the CUDA context is lost: 2 of 2 randomized "
     "cases at head dim 128 and both probes, with and without soft-capping); dQ, dK and dV need only the stats, "
     "which include the sinks: leave sink_token out of the FP8 backward, or take dSink from a bfloat16 or half "
     "backward",
     "H200"},
    {Feature::fp8_attention_backward_score_modifiers, "fp8_attention_backward_score_modifiers", Gate::known_bad,
     "FP8 attention backward with soft-capping or a score modifier of the caller's (score_mod_input)", 0, 0,
     kAnyCudnn9, kVerified,
     "builds plans for it that compute wrong gradients: 13 of 14 randomized cases with soft-capping (dQ and dK "
     "saturated at the FP8 range, relative errors 0.6 to 2e4) and 13 of 13 with a score modifier (a multiply, a "
     "per-head add or a tanh cap; gradients near zero, relative errors about 1) at head dim 128, where the same "
     "cases without them are right, as the FP8 forward with them is wrong: use a bfloat16 or half attention for "
     "modified scores",
     "H200"},
    {Feature::complex_fp32_matmul, "complex_fp32_matmul", Gate::minimum_version, "complex fp32 matmuls", 91400, 0,
     0, 0, "the first cuDNN with engines for matmuls of complex operands", nullptr},
    {Feature::complex_matmul_envelope, "complex_matmul_envelope", Gate::observed,
     "a complex matmul outside what its engine was seen to take", 0, 0, 0, kVerified,
     "has one engine for complex matmuls, backed by cuBLASLt (so a build for a device description, with no GPU, "
     "finds none), which takes neither a batch one operand broadcasts (53 of 53 randomized cases without an "
     "engine) nor, mostly, N or K of 1 (38 of 43; the 203 others all ran right): give both operands the whole "
     "batch, and pad N or K to 2 with zeros",
     "H200"},
    {Feature::vectorized_conv_float_math, "vectorized_conv_float_math", Gate::observed,
     "a vectorized int8 convolution (INT8x4, INT8x32) in float math", 0, 0, 0, kVerified,
     "lists no engine for it, where int32 math has engines that run it right: set fe_conv_options.compute_data_type "
     "to FE_DATA_INT32",
     "H200"},
};

// GPU generations by their first compute capability, for "Blackwell (sm100)".
struct Generation {
    int sm;
    const char *name;
};
const Generation kGenerations[] = {{70, "Volta"}, {75, "Turing"}, {80, "Ampere"}, {89, "Ada"},
                                   {90, "Hopper"}, {100, "Blackwell"}};

std::string generation_text(int sm) {
    const char *name = nullptr;
    for (const Generation &g : kGenerations)
        if (g.sm <= sm) name = g.name;
    return name ? format("%s (sm%d)", name, sm) : format("sm%d", sm);
}

// The newest generation before the one that starts at `sm` ("Hopper (sm90)" for 100).
std::string previous_generation_text(int sm) {
    int previous = 0;
    for (const Generation &g : kGenerations)
        if (g.sm < sm) previous = g.sm;
    return previous ? generation_text(previous) : "older GPUs";
}

// The conformance tier's probes run a refused configuration to record what the loaded cuDNN
// does with it now (docs/capabilities-probes.md): CUDNNFE_PROBE_BYPASS names the entries, comma
// separated, whose refusal is lifted in that process. An internal switch for those probes, not an
// option: what it lets through is what the table found broken.
bool bypassed(const Capability &c) {
    static const std::string names = [] {
        const char *v = environment("CUDNNFE_PROBE_BYPASS");
        return v && *v ? "," + std::string(v) + "," : std::string();
    }();
    return !names.empty() && names.find("," + std::string(c.name) + ",") != std::string::npos;
}

std::string loaded_text(int64_t version) { return "cuDNN " + version_text(version) + " is loaded"; }

bool in_bad_range(const Capability &c, int64_t version) {
    return version >= c.bad_from && version / 100 <= c.bad_through / 100;
}

std::string bad_range_text(const Capability &c) {
    if (c.bad_from <= kAnyCudnn9) return "known bad through " + minor_version_text(c.bad_through);
    return "known bad from " + version_text(c.bad_from) + " through " + minor_version_text(c.bad_through);
}

std::string gpu_text(const Capability &c) {
    return generation_text(c.sm_min) + " and later GPUs; " + previous_generation_text(c.sm_min) +
           " and earlier have none";
}

// Markdown cells: "|" would end one.
std::string cell(const std::string &text) {
    std::string out;
    for (char ch : text) {
        if (ch == '|') out += '\\';
        out += ch;
    }
    return out;
}

}  // namespace

std::string version_text(int64_t version) {
    // cuDNN 8 counted major * 1000 + minor * 100 + patch; it is named only to be refused.
    if (version < 10000)
        return format("%lld.%lld.%lld", static_cast<long long>(version / 1000),
                      static_cast<long long>(version % 1000 / 100), static_cast<long long>(version % 100));
    return format("%lld.%lld.%lld", static_cast<long long>(version / 10000),
                  static_cast<long long>(version / 100 % 100), static_cast<long long>(version % 100));
}

std::string minor_version_text(int64_t version) {
    return format("%lld.%lld", static_cast<long long>(version / 10000), static_cast<long long>(version / 100 % 100));
}

const std::vector<Capability> &capabilities() { return kTable; }

const Capability &capability(Feature feature) {
    for (const Capability &c : kTable)
        if (c.feature == feature) return c;
    FE_FAIL(FE_STATUS_INTERNAL, "feature %d is missing from the capability table", static_cast<int>(feature));
}

std::string refusal(Feature feature, int64_t version, int sm) {
    const Capability &c = capability(feature);
    if (bypassed(c)) return "";
    switch (c.gate) {
        case Gate::minimum_version:
            if (version < c.minimum)
                return std::string(c.subject) + " needs cuDNN >= " + version_text(c.minimum) + " (" +
                       loaded_text(version) + ")";
            if (sm != 0 && c.sm_min != 0 && sm < c.sm_min)
                return std::string(c.subject) + " needs a " + generation_text(c.sm_min) +
                       " or later GPU; the target is " + generation_text(sm);
            return "";
        case Gate::known_bad:
            if (!in_bad_range(c, version)) return "";
            return std::string(c.subject) + ": refused with cuDNN " + version_text(version) + ", which " + c.problem +
                   " (" + bad_range_text(c) + ", verified on " + c.seen_on + ")";
        case Gate::observed:
            return "";
        case Gate::not_lowered:
            return not_lowered(feature, "such option", version);
    }
    return "";
}

void require(Feature feature, int64_t version, int sm) {
    std::string why = refusal(feature, version, sm);
    if (!why.empty()) throw Error(FE_STATUS_NOT_SUPPORTED, why);
}

std::string explanation(Feature feature, int64_t version) {
    const Capability &c = capability(feature);
    if (c.sm_min != 0)
        return "cuDNN's engines for " + std::string(c.subject) + " run on " + gpu_text(c) + " (" +
               loaded_text(version) + ")";
    if (c.bad_through == 0) return refusal(feature, version);
    return "cuDNN " + minor_version_text(c.bad_through) + " " + c.problem + " (seen on " + c.seen_on + "; " +
           loaded_text(version) + ")";
}

std::string not_lowered(Feature feature, const char *option, int64_t version) {
    const Capability &c = capability(feature);
    if (version < c.minimum)
        return std::string(c.subject) + " takes no " + option + " before cuDNN " + minor_version_text(c.minimum) +
               " (" + loaded_text(version) + ")";
    return std::string(c.subject) + " takes the " + option + " from cuDNN " + minor_version_text(c.minimum) +
           " as a score subgraph, which this library does not build (" + loaded_text(version) + ")";
}

std::string capabilities_markdown() {
    std::string md =
        "# What each cuDNN version and GPU can run\n\n"
        "Generated from the capability table in `lib/backend/capabilities.cpp`; do not edit by hand. After changing\n"
        "the table, regenerate this file with\n\n"
        "```\nCUDNNFE_WRITE_CAPABILITIES_DOC=1 build/tests/unit/cudnnfe_unit_tests --gtest_filter='CapabilitiesDoc.*'\n"
        "```\n\n"
        "Versions are those verified on an H100 (sm90) with cuDNN " + minor_version_text(kVerified) + ".\n";

    md += "\n## Minimum versions and GPU generations\n\n"
          "Refused at build, before cuDNN sees the graph, on an older cuDNN. A GPU generation is checked where\n"
          "the GPU is known; elsewhere cuDNN reports that it has no engine, and the message names the generations.\n\n"
          "| Feature | What | Needs cuDNN | GPUs | Why |\n|---|---|---|---|---|\n";
    for (const Capability &c : kTable) {
        if (c.gate != Gate::minimum_version) continue;
        md += "| `" + std::string(c.name) + "` | " + cell(c.subject) + " | " +
              (c.minimum ? ">= " + version_text(c.minimum) : std::string("any 9.x")) + " | " +
              (c.sm_min ? generation_text(c.sm_min) + " and later" : std::string("any")) + " | " + cell(c.problem) +
              " |\n";
    }

    md += "\n## Known bad\n\n"
          "Refused at build on the versions listed, where cuDNN gives wrong results, crashes or refuses. A newer\n"
          "cuDNN is let through: the GPU suite compares every result with an independent reference, so a version\n"
          "that is still broken shows up there, and the entry's range is then extended.\n\n"
          "| Feature | What | Refused on cuDNN | Verified on | What cuDNN does |\n|---|---|---|---|---|\n";
    for (const Capability &c : kTable) {
        if (c.gate != Gate::known_bad) continue;
        md += "| `" + std::string(c.name) + "` | " + cell(c.subject) + " | " + version_text(c.bad_from) +
              " through " + minor_version_text(c.bad_through) + ".x | " + c.seen_on + " with " +
              minor_version_text(c.bad_through) + " | " + cell(c.problem) + " |\n";
    }

    md += "\n## Observed\n\n"
          "Not refused by a version check: cuDNN decides and reports that it has no engine (the build's message\n"
          "adds this explanation, with the version it was seen on), or the library works around it.\n\n"
          "| Feature | What | Seen on | What cuDNN does |\n|---|---|---|---|\n";
    for (const Capability &c : kTable) {
        if (c.gate != Gate::observed) continue;
        md += "| `" + std::string(c.name) + "` | " + cell(c.subject) + " | " + c.seen_on + " with cuDNN " +
              minor_version_text(c.bad_through) + " | " + cell(c.problem) + " |\n";
    }

    md += "\n## In cuDNN, not lowered by this library\n\n"
          "| Feature | What | cuDNN has it from | Note |\n|---|---|---|---|\n";
    for (const Capability &c : kTable) {
        if (c.gate != Gate::not_lowered) continue;
        md += "| `" + std::string(c.name) + "` | " + cell(c.subject) + " | " + minor_version_text(c.minimum) + " | " +
              cell(c.problem) + " |\n";
    }
    return md;
}

}  // namespace fe
