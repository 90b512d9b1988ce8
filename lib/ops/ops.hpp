// Factories for the op families; each is implemented in its own file under lib/ops/.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cudnnfe.h"
#include "graph/node.hpp"
#include "ops/score_modifier.hpp"

namespace fe {

// The spatial dims of an [N, C, spatial...] tensor (a convolution's or pooling's image): its
// rank - 2, kept within 0 and FE_MAX_SPATIAL_DIMS even when its dims were changed after the op
// was added (validation then refuses the rank; describing the op must not overrun).
inline size_t spatial_dims_of(const fe_tensor *image) {
    size_t rank = image->dims.size();
    return rank < 2 ? 0 : std::min<size_t>(rank - 2, FE_MAX_SPATIAL_DIMS);
}

class Descriptor;
class Lowering;
namespace schema {
struct Struct;
}

// fe_matmul_options' description (matmul.cpp), which matmul_fp8 takes too.
const schema::Struct &matmul_options_description();

// The transposed convolution's node: the data gradient's (conv_dgrad.cpp).
std::unique_ptr<Node> make_conv_transpose(fe_tensor *image, fe_tensor *weight, const fe_conv_options &options);
void alibi_slopes(int64_t heads, float *out);

// Emit one backend operation from already-lowered tensor descriptors. The op files use these
// for their own nodes; composite operations (attention) use them for their internal steps.
// Per-batch overrides of a matmul's M, N or K (int32 [b,1,1,1] tensors: attention's actual
// sequence lengths), and the value that fills the rows/columns past them.
struct MatmulOverrides {
    const Descriptor *m = nullptr;
    const Descriptor *n = nullptr;
    const Descriptor *k = nullptr;
    bool has_padding_value = false;
    double padding_value = 0.0;
};
void emit_matmul(Lowering &lowering, const Descriptor &a, const Descriptor &b, const Descriptor &c,
                 fe_data_type compute, const std::string &label, const MatmulOverrides &overrides = {});
void emit_pointwise(Lowering &lowering, fe_pointwise_mode mode, const Descriptor &x, const Descriptor *b,
                    const Descriptor *t, const Descriptor &y, fe_data_type compute, const fe_pointwise_options &options,
                    int64_t lowered_axis, const std::string &label);
void emit_reduction(Lowering &lowering, fe_reduction_mode mode, const Descriptor &x, const Descriptor &y,
                    fe_data_type compute, const std::string &label, bool deterministic = false);

void emit_reshape(Lowering &lowering, const Descriptor &x, const Descriptor &y, const std::string &label);

void emit_rng_bernoulli(Lowering &lowering, double keep_probability, const Descriptor &seed, const Descriptor &offset,
                        const Descriptor &y, const std::string &label);

void emit_paged_cache_load(Lowering &lowering, const Descriptor &container, const Descriptor &page_table,
                           const Descriptor &sequence_lengths, const Descriptor &y, const std::string &label);

// Short kind names used for automatic node names ("conv_fprop_0", "relu_1", ...).
const char *pointwise_mode_name(fe_pointwise_mode mode);
const char *reduction_mode_name(fe_reduction_mode mode);

}  // namespace fe
