#include "ops/no_engine_causes.hpp"

#include <cstdint>
#include <limits>

namespace fe {

bool packed_in_order(const fe_tensor *t, const std::vector<size_t> &outer_to_inner) {
    if (t->strides.size() != t->dims.size() || outer_to_inner.size() != t->dims.size()) return false;
    int64_t step = 1;
    for (size_t k = outer_to_inner.size(); k-- > 0;) {
        size_t d = outer_to_inner[k];
        if (d >= t->dims.size() || t->strides[d] != step) return false;
        step *= t->dims[d];
    }
    return true;
}

bool ordered_like(const fe_tensor *t, const std::vector<size_t> &outer_to_inner) {
    int64_t outer = std::numeric_limits<int64_t>::max();
    for (size_t d : outer_to_inner) {
        if (d >= t->dims.size() || d >= t->strides.size() || t->dims[d] <= 1) continue;
        if (t->strides[d] >= outer) return false;
        outer = t->strides[d];
    }
    return true;
}

std::vector<size_t> channels_last_order(size_t rank) {
    std::vector<size_t> order = {0};
    for (size_t d = 2; d < rank; ++d) order.push_back(d);
    if (rank >= 2) order.push_back(1);
    return order;
}

std::vector<size_t> row_major_order(size_t rank) {
    std::vector<size_t> order(rank);
    for (size_t d = 0; d < rank; ++d) order[d] = d;
    return order;
}

// At rank 4 and 5 the pointwise engines took only packed channels-last operands with more than one
// channel; at rank 2 and 3 only row-major ones (gaps allowed). Scalars say nothing about a layout.
Feature pointwise_no_engine_cause(const std::vector<const fe_tensor *> &bound) {
    bool rank4_one_channel = false, rank4_layout = false, rank3_layout = false;
    for (const fe_tensor *t : bound) {
        int64_t elements = 1;
        for (int64_t d : t->dims) elements *= d;
        if (elements <= 1) continue;
        const size_t rank = t->dims.size();
        if (rank >= 4) {
            if (t->is_output && t->dims[1] == 1) rank4_one_channel = true;
            if (!packed_in_order(t, channels_last_order(rank))) rank4_layout = true;
        } else if (!ordered_like(t, row_major_order(rank))) {
            rank3_layout = true;
        }
    }
    if (rank4_one_channel) return Feature::pointwise_rank4_one_channel;
    if (rank4_layout) return Feature::pointwise_rank4_layout;
    if (rank3_layout) return Feature::pointwise_rank3_layout;
    return Feature::pointwise_engine_envelope;
}

std::optional<Feature> conv_no_engine_cause(const fe_tensor *image, const fe_tensor *other, const fe_tensor *result,
                                            const fe_conv_options &options, size_t spatial, bool dgrad, bool wgrad,
                                            const std::vector<const fe_tensor *> &bound, bool fused,
                                            bool image_computed) {
    auto half = [](fe_data_type t) { return t == FE_DATA_HALF || t == FE_DATA_BFLOAT16; };
    // The half operand that a float result widens: dy for dgrad, the image otherwise.
    const fe_tensor *activation = dgrad ? other : image;
    // Unfused convolutions without a float result of half operands always had an engine.
    if (!fused) {
        if (half(activation->data_type) && result->data_type == FE_DATA_FLOAT) return Feature::conv_half_float_result;
        return std::nullopt;
    }
    // Layout and types of the tensors the caller binds.
    bool nchw = false, float_input = false, all_half = true;
    const size_t rank = result->dims.size();
    for (const fe_tensor *t : bound) {
        if (image_layout_class(t, rank) == 0) nchw = true;
        if (t->is_input() && t->data_type == FE_DATA_FLOAT) float_input = true;
        if (t->is_input() && t->data_type != FE_DATA_HALF) all_half = false;
    }
    if (dgrad && (nchw || options.mode == FE_CONV_MODE_CONVOLUTION)) return Feature::conv_dgrad_drelu_layout;
    if (wgrad && image_computed) {
        bool symmetric = true;
        for (size_t i = 0; i < spatial && i < FE_MAX_SPATIAL_DIMS; ++i)
            symmetric = symmetric && options.pre_padding[i] == options.post_padding[i];
        if (!all_half || nchw || options.groups > 1 || spatial != 2 || !symmetric)
            return Feature::conv_wgrad_image_prologue;
    }
    if (!dgrad && !wgrad && half(image->data_type) && float_input && nchw) return Feature::conv_fused_nchw_float_bias;
    return Feature::conv_engine_envelope;
}

// Nearly every reduction that ran was rank 4 and channels-last.
Feature reduction_no_engine_cause(const fe_tensor *x) {
    if (x->dims.size() != 4) return Feature::reduction_rank;
    if (!ordered_like(x, channels_last_order(4))) return Feature::reduction_layout;
    return Feature::reduction_engine_envelope;
}

// Layer-like backward engines take two rows or more and a row-major x; batchnorm's take channels a
// multiple of 8. Adaptive layernorm's scale [N, d] is per sample, so dim 0 always counts as rows.
Feature norm_backward_no_engine_cause(NormKind kind, const fe_tensor *x, const fe_tensor *scale) {
    const bool ada = kind == NormKind::adaptive_layer;
    if (kind == NormKind::layer_or_rms || ada) {
        int64_t rows = 1;
        for (size_t d = 0; d < x->dims.size() && d < scale->dims.size(); ++d)
            if (scale->dims[d] == 1 || (ada && d == 0)) rows *= x->dims[d];
        if (rows == 1) return Feature::norm_backward_single_row;
        if (!ordered_like(x, row_major_order(x->dims.size()))) return Feature::norm_backward_layout;
    }
    if (kind == NormKind::batch && x->dims.size() >= 2 && x->dims[1] % 8 != 0)
        return Feature::batchnorm_unaligned_channels;
    return Feature::norm_engine_envelope;
}

Feature batchnorm_no_engine_cause(const fe_tensor *x, bool inference) {
    if (x->dims.size() >= 2 && x->dims[1] % 8 != 0) return Feature::batchnorm_unaligned_channels;
    // Inference lowers to a pointwise chain, which took channels-last x only.
    if (inference && !ordered_like(x, channels_last_order(x->dims.size()))) return Feature::batchnorm_inference_layout;
    return Feature::norm_engine_envelope;
}

// cuDNN's matmul engines take one batch dim.
Feature matmul_no_engine_cause(const fe_tensor *a, const fe_tensor *b) {
    if (a->data_type == FE_DATA_COMPLEX_FP32) return Feature::complex_matmul_envelope;
    if (a->dims.size() >= 4 || b->dims.size() >= 4) return Feature::matmul_two_batch_dims;
    return Feature::matmul_engine_envelope;
}

Feature pooling_no_engine_cause(const fe_resample_options &options) {
    if (options.padding_mode == FE_RESAMPLE_PADDING_EDGE) return Feature::resample_edge_padding;
    return Feature::pooling_engine_envelope;
}

// Weights [experts, K, N] with N contiguous had no engine; K-contiguous ones ran.
std::optional<Feature> moe_weight_no_engine_cause(const fe_tensor *w) {
    if (w->strides.size() == 3 && w->dims.size() == 3 && w->strides[2] == 1 && w->dims[2] > 1 && w->dims[1] > 1)
        return Feature::moe_weight_n_contiguous;
    return std::nullopt;
}

}  // namespace fe
