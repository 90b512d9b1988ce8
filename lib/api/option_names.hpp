// The name of each option struct of the header, for read_options' messages. One overload per
// struct: read_options on a struct that has none does not compile, so a new struct gets its line.
#pragma once

#include "cudnnfe.h"

namespace fe {

#define FE_OPTIONS_NAME(TYPE) \
    constexpr const char *options_name(const TYPE *) { return #TYPE; }

FE_OPTIONS_NAME(fe_graph_options)
FE_OPTIONS_NAME(fe_build_options)
FE_OPTIONS_NAME(fe_deserialize_options)
FE_OPTIONS_NAME(fe_conv_options)
FE_OPTIONS_NAME(fe_matmul_options)
FE_OPTIONS_NAME(fe_matmul_fp8_scales)
FE_OPTIONS_NAME(fe_pointwise_options)
FE_OPTIONS_NAME(fe_reduction_options)
FE_OPTIONS_NAME(fe_rng_options)
FE_OPTIONS_NAME(fe_block_scale_options)
FE_OPTIONS_NAME(fe_sdpa_options)
FE_OPTIONS_NAME(fe_sdpa_fp8_scales)
FE_OPTIONS_NAME(fe_sdpa_backward_options)
FE_OPTIONS_NAME(fe_sdpa_fp8_backward_scales)
FE_OPTIONS_NAME(fe_norm_options)
FE_OPTIONS_NAME(fe_batchnorm_options)
FE_OPTIONS_NAME(fe_batchnorm_inference_options)
FE_OPTIONS_NAME(fe_norm_backward_options)
FE_OPTIONS_NAME(fe_softmax_options)
FE_OPTIONS_NAME(fe_resample_options)
FE_OPTIONS_NAME(fe_transpose_options)
FE_OPTIONS_NAME(fe_reshape_options)
FE_OPTIONS_NAME(fe_slice_options)
FE_OPTIONS_NAME(fe_concatenate_options)

#undef FE_OPTIONS_NAME

}  // namespace fe
