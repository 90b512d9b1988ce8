// Which observed capability entry explains that cuDNN has no engine for an operation, judged from
// the caller's tensors (dims and strides after inference, before the lowering lifts small ranks):
// the op families' unsupported_hint() overrides word the entry these return. The predicates are
// those that separated refused from accepted randomized cases on a GPU; they never refuse a graph
// themselves, they only name the likely cause in a report that is already a refusal.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "backend/capabilities.hpp"
#include "cudnnfe.h"
#include "graph/tensor.hpp"

namespace fe {

// True when t's strides are the packed strides of its dims in the order outer_to_inner, unit
// dims included (cuDNN classifies a layout by every stride, a unit dim's too).
bool packed_in_order(const fe_tensor *t, const std::vector<size_t> &outer_to_inner);
// True when t's dims longer than one lie in memory in the order outer_to_inner (strictly
// decreasing strides); unit dims and gaps between dims are ignored.
bool ordered_like(const fe_tensor *t, const std::vector<size_t> &outer_to_inner);
// [0, 2, 3, ..., rank - 1, 1]: channels-last (NHWC, NDHWC), outermost first.
std::vector<size_t> channels_last_order(size_t rank);
// [0, 1, ..., rank - 1].
std::vector<size_t> row_major_order(size_t rank);

// A graph of pointwise operations only; `bound` are its tensors the caller binds (neither
// virtual nor by value).
Feature pointwise_no_engine_cause(const std::vector<const fe_tensor *> &bound);

// A convolution direction: `image` is the activation (dx for dgrad), `other` the second operand,
// `result` the tensor the direction computes; `dgrad` and `wgrad` name the direction (neither:
// fprop or the transposed convolution). `bound` are the graph's bound tensors, `fused` says
// whether the graph holds other operations and `image_computed` whether the image is computed in
// it (a scale, bias and ReLU before a wgrad). Nothing when no observed cause applies.
std::optional<Feature> conv_no_engine_cause(const fe_tensor *image, const fe_tensor *other, const fe_tensor *result,
                                            const fe_conv_options &options, size_t spatial, bool dgrad, bool wgrad,
                                            const std::vector<const fe_tensor *> &bound, bool fused,
                                            bool image_computed);

// A reduction of x.
Feature reduction_no_engine_cause(const fe_tensor *x);

// The normalization families as their no-engine causes tell them apart.
enum class NormKind { layer_or_rms, adaptive_layer, batch, instance };
// A normalization backward over x with this scale.
Feature norm_backward_no_engine_cause(NormKind kind, const fe_tensor *x, const fe_tensor *scale);
// Batchnorm training (inference: false) or fe_graph_batchnorm_inference (true) over x.
Feature batchnorm_no_engine_cause(const fe_tensor *x, bool inference);

// A matmul of a and b.
Feature matmul_no_engine_cause(const fe_tensor *a, const fe_tensor *b);

// A pooling (upsampling modes have their own hint).
Feature pooling_no_engine_cause(const fe_resample_options &options);

// A MoE grouped matmul's weight [experts, K, N]; nothing when its layout is one that runs.
std::optional<Feature> moe_weight_no_engine_cause(const fe_tensor *weight);

}  // namespace fe
