// Pointwise operations: every cuDNN pointwise mode, unary, binary (broadcasting) and ternary.

// include/cudnnfe.h, section "Pointwise" (copied there by scripts/schema/generate_header.py):
// typedef struct fe_pointwise_options {
//     uint32_t struct_size;
//     const char *name;
//     fe_data_type compute_data_type;
//     double relu_lower_clip;       /* RELU: default 0; finite or -inf (no clip) */
//     double relu_upper_clip;       /* RELU: default +inf (no clip); finite or +inf */
//     double relu_lower_clip_slope; /* RELU: leaky slope below the lower clip, default 0 */
//     double elu_alpha;             /* default 1 */
//     double softplus_beta;         /* default 1 */
//     double swish_beta;            /* default 1 (silu) */
//     int64_t axis;                 /* GEN_INDEX: the dimension whose index is generated */
// } fe_pointwise_options;
// #define FE_POINTWISE_OPTIONS_INIT
//     { (uint32_t)sizeof(fe_pointwise_options), NULL, FE_DATA_NOT_SET, 0.0, 1e300, 0.0, 1.0,
//       1.0, 1.0, 0 }
//
// /** A pointwise operation. Unary modes use in_0; binary modes in_0 and in_1 (broadcast to a common
//  *  shape; same rank required); BINARY_SELECT uses in_0, in_1 and the boolean mask in_2. Unused
//  *  inputs must be NULL. options nullable. */
// FE_API fe_status fe_graph_pointwise(fe_graph *graph, fe_pointwise_mode mode, fe_tensor *in_0,
//                                     fe_tensor *in_1, fe_tensor *in_2,
//                                     const fe_pointwise_options *options, fe_tensor **out_y);
// /* Conveniences of the seeds, each one pointwise node: bias and add are FE_POINTWISE_ADD, scale
//  * and mul FE_POINTWISE_MUL, relu RELU_FWD, gelu GELU_FWD, silu SWISH_FWD (silu with the default
//  * swish_beta of 1). options nullable: as for fe_graph_pointwise (name, compute type and the
//  * mode's parameters); automatic names are "bias_<n>", "scale_<n>", "silu_<n>" and the mode's
//  * name ("add_<n>", "relu_<n>", ...). */
// FE_API fe_status fe_graph_bias(fe_graph *graph, fe_tensor *input, fe_tensor *bias,
//                                const fe_pointwise_options *options, fe_tensor **out_y);
// FE_API fe_status fe_graph_scale(fe_graph *graph, fe_tensor *input, fe_tensor *scale,
//                                 const fe_pointwise_options *options, fe_tensor **out_y);
// FE_API fe_status fe_graph_add(fe_graph *graph, fe_tensor *a, fe_tensor *b,
//                               const fe_pointwise_options *options, fe_tensor **out_y);
// FE_API fe_status fe_graph_mul(fe_graph *graph, fe_tensor *a, fe_tensor *b,
//                               const fe_pointwise_options *options, fe_tensor **out_y);
// FE_API fe_status fe_graph_relu(fe_graph *graph, fe_tensor *input,
//                                const fe_pointwise_options *options, fe_tensor **out_y);
// FE_API fe_status fe_graph_gelu(fe_graph *graph, fe_tensor *input,
//                                const fe_pointwise_options *options, fe_tensor **out_y);
// FE_API fe_status fe_graph_silu(fe_graph *graph, fe_tensor *input,
//                                const fe_pointwise_options *options, fe_tensor **out_y);

#include <cudnn_graph.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/values.hpp"
#include "graph/attribute_writer.hpp"
#include "graph/graph.hpp"
#include "ops/graph_ops.hpp"
#include "ops/no_engine_causes.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"
#include "schema/option_fields.hpp"
#include "schema/schema.hpp"

namespace fe {

namespace {
// Each mode's arity; its name (the op kind) is the schema's (kPointwiseMode, below).
struct ModeInfo {
    fe_pointwise_mode mode;
    int arity;
};
const ModeInfo kModes[] = {
    {FE_POINTWISE_ADD, 2}, {FE_POINTWISE_MUL, 2}, {FE_POINTWISE_MIN, 2},
    {FE_POINTWISE_MAX, 2}, {FE_POINTWISE_SQRT, 1}, {FE_POINTWISE_ADD_SQUARE, 2},
    {FE_POINTWISE_DIV, 2}, {FE_POINTWISE_MOD, 2}, {FE_POINTWISE_POW, 2},
    {FE_POINTWISE_SUB, 2}, {FE_POINTWISE_ABS, 1}, {FE_POINTWISE_CEIL, 1},
    {FE_POINTWISE_COS, 1}, {FE_POINTWISE_EXP, 1}, {FE_POINTWISE_FLOOR, 1},
    {FE_POINTWISE_LOG, 1}, {FE_POINTWISE_NEG, 1}, {FE_POINTWISE_RSQRT, 1},
    {FE_POINTWISE_SIN, 1}, {FE_POINTWISE_TAN, 1}, {FE_POINTWISE_ERF, 1},
    {FE_POINTWISE_IDENTITY, 1}, {FE_POINTWISE_RECIPROCAL, 1}, {FE_POINTWISE_ATAN2, 2},
    {FE_POINTWISE_RELU_FWD, 1}, {FE_POINTWISE_TANH_FWD, 1}, {FE_POINTWISE_SIGMOID_FWD, 1},
    {FE_POINTWISE_ELU_FWD, 1}, {FE_POINTWISE_GELU_FWD, 1}, {FE_POINTWISE_SOFTPLUS_FWD, 1},
    {FE_POINTWISE_SWISH_FWD, 1}, {FE_POINTWISE_GELU_APPROX_TANH_FWD, 1}, {FE_POINTWISE_RELU_BWD, 2},
    {FE_POINTWISE_TANH_BWD, 2}, {FE_POINTWISE_SIGMOID_BWD, 2}, {FE_POINTWISE_ELU_BWD, 2},
    {FE_POINTWISE_GELU_BWD, 2}, {FE_POINTWISE_SOFTPLUS_BWD, 2}, {FE_POINTWISE_SWISH_BWD, 2},
    {FE_POINTWISE_GELU_APPROX_TANH_BWD, 2}, {FE_POINTWISE_CMP_EQ, 2}, {FE_POINTWISE_CMP_NEQ, 2},
    {FE_POINTWISE_CMP_GT, 2}, {FE_POINTWISE_CMP_GE, 2}, {FE_POINTWISE_CMP_LT, 2},
    {FE_POINTWISE_CMP_LE, 2}, {FE_POINTWISE_LOGICAL_AND, 2}, {FE_POINTWISE_LOGICAL_OR, 2},
    {FE_POINTWISE_LOGICAL_NOT, 1}, {FE_POINTWISE_GEN_INDEX, 1}, {FE_POINTWISE_BINARY_SELECT, 3},
};

const ModeInfo *find_mode(fe_pointwise_mode mode) {
    for (const ModeInfo &m : kModes)
        if (m.mode == mode) return &m;
    return nullptr;
}

bool is_backward(fe_pointwise_mode mode) { return mode >= 200 && mode < 300; }

// Whether the dims of extent above 1 have strictly decreasing strides, dim 0 outermost (gaps
// between them allowed).
bool row_major_order(const fe_tensor *t) {
    int64_t outer = std::numeric_limits<int64_t>::max();
    for (size_t d = 0; d < t->dims.size() && d < t->strides.size(); ++d) {
        if (t->dims[d] <= 1) continue;
        if (t->strides[d] >= outer) return false;
        outer = t->strides[d];
    }
    return true;
}

// Whether every operation of the graph is pointwise: cuDNN runs such a graph on its pointwise
// kernels, not as the epilogue of a matmul or convolution, and the faults the checks on rank-3
// shapes and layouts and on backward broadcasts describe were seen there only.
// `views_too` counts slices in: a slice is a view cuDNN never sees, so pointwise operations reading
// slices are a pointwise graph to it (the strided-row check below needs this; the other checks'
// faults were not seen through slices).
bool pointwise_only(const fe_graph &graph, bool views_too = false) {
    for (const auto &node : graph.nodes)
        if (!node->is_pointwise() && !(views_too && node->only_views_inputs())) return false;
    return true;
}

class Pointwise : public Node {
  public:
    bool is_pointwise() const override { return true; }
    Pointwise(const ModeInfo &info, fe_tensor *in0, fe_tensor *in1, fe_tensor *in2, const fe_pointwise_options &o)
        : info_(info), options_(o) {
        inputs = {in0, in1, in2};
        inputs.resize(static_cast<size_t>(info.arity));
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return pointwise_mode_name(info_.mode); }
    const char *input_port(size_t i) const override {
        if (is_backward(info_.mode)) return i == 0 ? "loss (dy)" : "input (x)";
        static const char *ports[] = {"IN_0", "IN_1", "IN_2 (mask)"};
        return i < 3 ? ports[i] : "IN";
    }

    void infer() override {
        // A by-value scalar takes the rank of the non-scalar operands (all dims 1).
        size_t rank = 0;
        for (const fe_tensor *t : inputs)
            if (!t->by_value) rank = rank ? rank : t->dims.size();
        for (fe_tensor *t : inputs)
            if (t->by_value && rank && t->dims.size() != rank) {
                t->dims.assign(rank, 1);
                t->strides.assign(rank, 1);
            }
        const fe_tensor *first = inputs[0];
        std::vector<int64_t> out = first->dims;
        for (size_t i = 1; i < inputs.size(); ++i) {
            const fe_tensor *t = inputs[i];
            FE_CHECK(t->dims.size() == out.size(), FE_STATUS_INVALID_ARGUMENT,
                     "%s '%s' has rank %zu but %s '%s' has rank %zu; pointwise operands need the same rank "
                     "(use 1 for broadcast dims)",
                     input_port(0), first->name.c_str(), out.size(), input_port(i), t->name.c_str(),
                     t->dims.size());
            for (size_t d = 0; d < out.size(); ++d) {
                FE_CHECK(t->dims[d] == out[d] || t->dims[d] == 1 || out[d] == 1, FE_STATUS_INVALID_ARGUMENT,
                         "dim %zu is %lld in '%s' and %lld in '%s'; they must be equal or 1 to broadcast", d,
                         static_cast<long long>(out[d]), first->name.c_str(), static_cast<long long>(t->dims[d]),
                         t->name.c_str());
                if (t->dims[d] > out[d]) out[d] = t->dims[d];
            }
        }
        // Lay the result out like the operand that already has the full shape.
        std::vector<int64_t> like = packed_strides(out);
        for (const fe_tensor *t : inputs)
            if (t->dims == out) {
                like = t->strides;
                break;
            }
        assign_inferred_shape(outputs[0], out, like);
        if (info_.mode == FE_POINTWISE_GEN_INDEX)
            FE_CHECK(options_.axis >= 0 && options_.axis < static_cast<int64_t>(out.size()), FE_STATUS_INVALID_ARGUMENT,
                     "gen_index axis %lld is outside rank %zu", static_cast<long long>(options_.axis), out.size());
    }

    const char *json_input(size_t i) const override {
        static const char *ports[] = {"IN_0", "IN_1", "IN_2"};
        return i < 3 ? ports[i] : "IN";
    }

    // The options the mode reads, named as in fe_pointwise_options.
    // The parameters of this mode, as the description lists them.
    void write_attributes(AttributeWriter &out) const override {
        write_option_attributes(out, op_schema("add"), &options_, 0, info_.mode);
    }

    std::string attributes() const override {
        switch (info_.mode) {
            case FE_POINTWISE_RELU_FWD:
            case FE_POINTWISE_RELU_BWD:
                return format("lower_clip=%g upper_clip=%g lower_clip_slope=%g", options_.relu_lower_clip,
                              options_.relu_upper_clip, options_.relu_lower_clip_slope);
            case FE_POINTWISE_ELU_FWD:
            case FE_POINTWISE_ELU_BWD: return format("alpha=%g", options_.elu_alpha);
            case FE_POINTWISE_SOFTPLUS_FWD:
            case FE_POINTWISE_SOFTPLUS_BWD: return format("beta=%g", options_.softplus_beta);
            case FE_POINTWISE_SWISH_FWD:
            case FE_POINTWISE_SWISH_BWD: return format("beta=%g", options_.swish_beta);
            case FE_POINTWISE_GEN_INDEX: return format("axis=%lld", static_cast<long long>(options_.axis));
            default: return "";
        }
    }

    void lower(Lowering &lowering) const override {
        refuse_first_dim_broadcast(lowering);
        refuse_rank3_partial_broadcast(lowering);
        refuse_rank3_permuted_layout(lowering);
        refuse_rank4_permuted_layout(lowering);
        refuse_backward_channel_broadcast(lowering);
        refuse_softplus_backward_of_scalar_dy(lowering);
        refuse_backward_of_uniform_dy(lowering);
        refuse_gapped_broadcast_operand(lowering);
        refuse_rank3_unit_dim_gap(lowering);
        refuse_rank3_strided_row(lowering);
        refuse_index_of_gapped_input(lowering);
        refuse_select_condition_broadcast(lowering);
        int64_t axis = options_.axis;
        if (info_.mode == FE_POINTWISE_GEN_INDEX) {
            // A lifted or padded rank shifts the axis as cuDNN sees it.
            std::vector<int64_t> dims, strides;
            lowering.lowered_shape(outputs[0], &dims, &strides);
            if (lowering.lifts_rank3() && outputs[0]->dims.size() == 3)
                axis += axis >= 2 ? 1 : 0;
            else if (!lowering.pads_trailing())
                axis += static_cast<int64_t>(dims.size() - outputs[0]->dims.size());
        }
        const Descriptor &x = lowering.tensor(inputs[0]);
        const Descriptor *b = inputs.size() > 1 ? &lowering.tensor(inputs[1]) : nullptr;
        const Descriptor *t = inputs.size() > 2 ? &lowering.tensor(inputs[2]) : nullptr;
        emit_pointwise(lowering, info_.mode, x, b, t, lowering.tensor(outputs[0]), lowering.compute_type(*this),
                       options_, axis, std::string(kind()) + " '" + name + "'");
    }

    // Why cuDNN may have no engine for this graph's pointwise operations (the layouts its engines
    // were seen to take), worded once per graph, by its first pointwise node, and only for graphs
    // of pointwise operations alone: a fused graph's other operation speaks for it. Rank-3
    // permuted layouts kept at rank 3 never get here (refused as pointwise_rank3_permuted_layout).
    std::string unsupported_hint() const override {
        const fe_graph &graph = *outputs[0]->graph;
        if (!pointwise_only(graph) || graph.nodes.empty() || graph.nodes.front().get() != this) return "";
        std::vector<const fe_tensor *> bound;
        for (const auto &t : graph.tensors)
            if (!t->is_virtual() && !t->by_value) bound.push_back(t.get());
        return explanation(pointwise_no_engine_cause(bound), cudnn().cudnnGetVersion());
    }

  private:
    // In a rank-3 pointwise operation, an operand that varies only along the first dim (an
    // [N, 1, 1] input, or the index along dim 0) is read as if at index 0 by cuDNN 9.19
    // (capability pointwise_rank3_first_dim_broadcast).
    void refuse_first_dim_broadcast(Lowering &lowering) const {
        const fe_tensor *y = outputs[0];
        if (y->dims.size() != 3 || y->dims[1] * y->dims[2] == 1) return;
        bool first_dim_only = info_.mode == FE_POINTWISE_GEN_INDEX && options_.axis == 0 && y->dims[0] > 1;
        for (const fe_tensor *in : inputs)
            first_dim_only = first_dim_only || (in && in->dims.size() == 3 && in->dims[0] > 1 && in->dims[1] == 1 &&
                                                in->dims[2] == 1);
        if (first_dim_only) lowering.require(Feature::pointwise_rank3_first_dim_broadcast);
    }

    // In a rank-3 pointwise operation of a graph that keeps rank 3 (no 1-D convolution lifts it),
    // cuDNN 9.19 reads wrong elements of an operand broadcast along the last dim that varies
    // along another ([N, C, 1], [1, C, 1], or the index along dim 1), and of one that varies
    // along the last dim only ([1, 1, W]) where N and C are both above 1 (capability
    // pointwise_rank3_partial_broadcast). [N, 1, W] and [1, C, W] operands are read right.
    void refuse_rank3_partial_broadcast(Lowering &lowering) const {
        const fe_tensor *y = outputs[0];
        if (lowering.lifts_rank3() || y->dims.size() != 3 || !pointwise_only(lowering.graph())) return;
        const int64_t n = y->dims[0], c = y->dims[1], w = y->dims[2];
        bool partial = info_.mode == FE_POINTWISE_GEN_INDEX && options_.axis == 1 && c > 1 && w > 1;
        for (const fe_tensor *in : inputs) {
            if (!in || in->by_value || in->dims.size() != 3) continue;
            const std::vector<int64_t> &d = in->dims;
            partial = partial || (w > 1 && d[2] == 1 && d[0] * d[1] > 1);
            partial = partial || (n > 1 && c > 1 && d[0] == 1 && d[1] == 1 && d[2] > 1);
        }
        if (partial) lowering.require(Feature::pointwise_rank3_partial_broadcast);
    }

    // A rank-3 pointwise operation (kept at rank 3) over a tensor whose dims are not laid out
    // outermost-first (dim 0 outermost, the last dim innermost): cuDNN 9.19's plans for it leave
    // most of the result unwritten or compute it from the wrong elements (capability
    // pointwise_rank3_permuted_layout).
    void refuse_rank3_permuted_layout(Lowering &lowering) const {
        const fe_tensor *y = outputs[0];
        if (lowering.lifts_rank3() || y->dims.size() != 3 || !pointwise_only(lowering.graph())) return;
        bool permuted = !row_major_order(y);
        for (const fe_tensor *in : inputs)
            if (in && !in->by_value && in->dims.size() == 3) permuted = permuted || !row_major_order(in);
        if (permuted) lowering.require(Feature::pointwise_rank3_permuted_layout);
    }

    // A rank-4 or rank-5 pointwise operation over a tensor whose dims (those longer than one) are
    // not in channels-last order: cuDNN 9.19 has no engine for most of them, and the plans it
    // builds for the others compute from the wrong elements (capability
    // pointwise_rank4_permuted_layout).
    void refuse_rank4_permuted_layout(Lowering &lowering) const {
        if (!pointwise_only(lowering.graph())) return;
        std::vector<const fe_tensor *> tensors(inputs.begin(), inputs.end());
        tensors.push_back(outputs[0]);
        for (const fe_tensor *t : tensors)
            if (t && !t->by_value && t->dims.size() >= 4 && !ordered_like(t, channels_last_order(t->dims.size()))) {
                lowering.require(Feature::pointwise_rank4_permuted_layout);
                return;
            }
    }

    // An activation's backward mode at rank 4 or 5 whose dy or x is broadcast along the channels
    // (a per-pixel [N, 1, H, W] operand, or a by-value scalar) while the result has several, or
    // at rank 2 along the columns (a per-row [M, 1] operand):
    // cuDNN 9.19 computes it from the wrong elements (capability
    // pointwise_backward_channel_broadcast). Per-channel operands, and forward modes with
    // per-pixel operands, are right.
    void refuse_backward_channel_broadcast(Lowering &lowering) const {
        const fe_tensor *y = outputs[0];
        const size_t rank = y->dims.size();
        if (!is_backward(info_.mode) || rank == 3 || rank < 2 || y->dims[1] == 1 || !pointwise_only(lowering.graph()))
            return;
        for (const fe_tensor *in : inputs)
            // At rank 2 only a per-row [M, 1] operand was seen wrong (scalars were not drawn there).
            if (in && in->dims.size() == rank && in->dims[1] == 1 && (rank > 2 || in->dims[0] > 1)) {
                lowering.require(Feature::pointwise_backward_channel_broadcast);
                return;
            }
    }

    // Softplus backward of a by-value scalar dy over an x read from memory: cuDNN 9.19 reads x's
    // first element for every element (capability pointwise_softplus_backward_scalar_dy).
    void refuse_softplus_backward_of_scalar_dy(Lowering &lowering) const {
        const fe_tensor *dy = inputs[0], *x = inputs.size() > 1 ? inputs[1] : nullptr;
        if (info_.mode == FE_POINTWISE_SOFTPLUS_BWD && dy && dy->by_value && x && x->is_input() && !x->by_value &&
            pointwise_only(lowering.graph()))
            lowering.require(Feature::pointwise_softplus_backward_scalar_dy);
    }

    // An activation's backward mode at rank 2 or 3 whose dy is one value for every element (a
    // by-value scalar, or at rank 2 a [1, 1] graph input): cuDNN 9.19 computes some results from the
    // wrong elements (capability pointwise_backward_uniform_dy).
    void refuse_backward_of_uniform_dy(Lowering &lowering) const {
        const fe_tensor *dy = inputs[0];
        const size_t rank = outputs[0]->dims.size();
        if (!is_backward(info_.mode) || (rank != 2 && rank != 3) || !dy || !pointwise_only(lowering.graph())) return;
        bool unit_input = rank == 2 && dy->is_input() && dy->dims.size() == 2 && dy->dims[0] == 1 && dy->dims[1] == 1;
        if (dy->by_value || unit_input) lowering.require(Feature::pointwise_backward_uniform_dy);
    }

    // A pointwise operation (a rank-3 one kept at that rank) with an operand broadcast along a dim
    // the result spans ([M, 1], [N, 1, W], [N, 1, D, H, W], ...) and laid out with a gap: cuDNN 9.19
    // reads that operand from the wrong places (capability pointwise_gapped_broadcast_operand).
    void refuse_gapped_broadcast_operand(Lowering &lowering) const {
        const fe_tensor *y = outputs[0];
        const size_t rank = y->dims.size();
        if ((rank == 3 && lowering.lifts_rank3()) || rank < 2 || rank > 5 || !pointwise_only(lowering.graph()))
            return;
        for (const fe_tensor *in : inputs) {
            if (!in || in->by_value || in->dims.size() != rank || in->strides.size() != rank) continue;
            bool broadcast = false, all_unit = true;
            int64_t elements = 1, span = 1;
            for (size_t d = 0; d < rank; ++d) {
                broadcast = broadcast || (in->dims[d] == 1 && y->dims[d] > 1);
                all_unit = all_unit && in->dims[d] == 1;
                elements *= in->dims[d];
                span += (in->dims[d] - 1) * in->strides[d];
            }
            if (broadcast && !all_unit && span > elements) {
                lowering.require(Feature::pointwise_gapped_broadcast_operand);
                return;
            }
        }
    }

    // The index along a dim of a graph input laid out with a gap (not packed): cuDNN 9.19 gives
    // some elements another element's index (capability pointwise_gen_index_gapped_input).
    void refuse_index_of_gapped_input(Lowering &lowering) const {
        const fe_tensor *x = inputs[0];
        if (info_.mode != FE_POINTWISE_GEN_INDEX || !x->is_input() || x->by_value || x->strides.size() != x->dims.size())
            return;
        int64_t span = 1;
        for (size_t d = 0; d < x->dims.size(); ++d) span += (x->dims[d] - 1) * x->strides[d];
        if (span > element_count(x->dims)) lowering.require(Feature::pointwise_gen_index_gapped_input);
    }

    // A select whose condition is computed in the graph (a comparison, say) and broadcast along
    // the result's innermost dim (an [M, 1] condition of a row-major [M, N] result, an [N, 1, ...]
    // one of a channels-last result), or along another dim when the comparison itself broadcast
    // one of its operands (a [1, 1, W] against a [1, H, W], for an [N, H, W] result): cuDNN 9.19
    // picks the wrong side for some elements (capability pointwise_select_condition_broadcast).
    // A condition of the result's shape, or one from operands of its own shape broadcast along an
    // outer dim, was right.
    void refuse_select_condition_broadcast(Lowering &lowering) const {
        if (info_.mode != FE_POINTWISE_BINARY_SELECT || inputs.size() < 3 || !inputs[2] || !inputs[2]->producer)
            return;
        const fe_tensor *y = outputs[0], *condition = inputs[2];
        if (condition->dims.size() != y->dims.size() || y->strides.size() != y->dims.size()) return;
        size_t innermost = y->dims.size();
        bool broadcast = false;
        for (size_t d = 0; d < y->dims.size(); ++d) {
            if (y->dims[d] > 1 && (innermost == y->dims.size() || y->strides[d] < y->strides[innermost])) innermost = d;
            if (y->dims[d] > 1 && condition->dims[d] == 1) broadcast = true;
        }
        bool broadcast_innermost = innermost < y->dims.size() && condition->dims[innermost] == 1;
        bool compared_broadcast = false;
        for (const fe_tensor *operand : condition->producer->inputs)
            if (operand && !operand->by_value && operand->dims != condition->dims) compared_broadcast = true;
        if (broadcast_innermost || (broadcast && compared_broadcast))
            lowering.require(Feature::pointwise_select_condition_broadcast);
    }

    // A rank-3 result [N, 1, W] (kept at rank 3; N and W above 1) whose unit dim's stride spans a
    // packed row and whose rows lie further apart (strides [S, W, 1], S > W): cuDNN 9.19 writes
    // part of it wrong (capability pointwise_rank3_unit_dim_gap). The same gap with the unit dim's
    // stride equal to the rows' ([S, S, 1]) or innermost ([S, 1, 1]) is right.
    void refuse_rank3_unit_dim_gap(Lowering &lowering) const {
        const fe_tensor *y = outputs[0];
        if (lowering.lifts_rank3() || y->is_virtual() || y->dims.size() != 3 || y->strides.size() != 3 ||
            !pointwise_only(lowering.graph()))
            return;
        const std::vector<int64_t> &d = y->dims, &s = y->strides;
        if (d[0] > 1 && d[1] == 1 && d[2] > 1 && s[1] == d[2] * s[2] && s[0] > s[1])
            lowering.require(Feature::pointwise_rank3_unit_dim_gap);
    }

    // A rank-3 tensor (kept at rank 3) whose last dim is longer than one with a stride other than
    // 1: cuDNN 9.19 computes from the wrong elements (capability pointwise_rank3_strided_row).
    // Whether a unit dim or none holds stride 1 makes no difference; packed rows are right.
    void refuse_rank3_strided_row(Lowering &lowering) const {
        if (lowering.lifts_rank3() || outputs[0]->dims.size() != 3 || !pointwise_only(lowering.graph(), true))
            return;
        std::vector<const fe_tensor *> tensors(inputs.begin(), inputs.end());
        tensors.push_back(outputs[0]);
        for (const fe_tensor *t : tensors)
            if (t && !t->by_value && t->dims.size() == 3 && t->strides.size() == 3 && t->dims[2] > 1 &&
                t->strides[2] != 1) {
                lowering.require(Feature::pointwise_rank3_strided_row);
                return;
            }
    }

    ModeInfo info_;
    fe_pointwise_options options_;
};

}  // namespace

void emit_pointwise(Lowering &lowering, fe_pointwise_mode mode_value, const Descriptor &x, const Descriptor *b,
                    const Descriptor *t, const Descriptor &y, fe_data_type compute, const fe_pointwise_options &options,
                    int64_t lowered_axis, const std::string &label) {
    Descriptor pw(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    cudnnPointwiseMode_t mode = static_cast<cudnnPointwiseMode_t>(mode_value);
    pw.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode, "CUDNN_ATTR_POINTWISE_MODE");
    pw.set_data_type(CUDNN_ATTR_POINTWISE_MATH_PREC, compute, "CUDNN_ATTR_POINTWISE_MATH_PREC");
    switch (mode_value) {
        case FE_POINTWISE_RELU_FWD:
        case FE_POINTWISE_RELU_BWD: {
            double lower = options.relu_lower_clip, slope = options.relu_lower_clip_slope;
            double upper = options.relu_upper_clip;
            // cuDNN rejects an upper clip the math type cannot represent.
            if (compute != FE_DATA_DOUBLE && upper > FLT_MAX) upper = FLT_MAX;
            pw.set(CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, CUDNN_TYPE_DOUBLE, 1, &lower, "relu lower clip");
            pw.set(CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, CUDNN_TYPE_DOUBLE, 1, &upper, "relu upper clip");
            pw.set(CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, CUDNN_TYPE_DOUBLE, 1, &slope, "relu slope");
            break;
        }
        case FE_POINTWISE_ELU_FWD:
        case FE_POINTWISE_ELU_BWD:
            pw.set(CUDNN_ATTR_POINTWISE_ELU_ALPHA, CUDNN_TYPE_DOUBLE, 1, &options.elu_alpha, "elu alpha");
            break;
        case FE_POINTWISE_SOFTPLUS_FWD:
        case FE_POINTWISE_SOFTPLUS_BWD:
            pw.set(CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA, CUDNN_TYPE_DOUBLE, 1, &options.softplus_beta, "softplus beta");
            break;
        case FE_POINTWISE_SWISH_FWD:
        case FE_POINTWISE_SWISH_BWD:
            pw.set(CUDNN_ATTR_POINTWISE_SWISH_BETA, CUDNN_TYPE_DOUBLE, 1, &options.swish_beta, "swish beta");
            break;
        case FE_POINTWISE_GEN_INDEX:
            pw.set_int64(CUDNN_ATTR_POINTWISE_AXIS, lowered_axis, "gen_index axis");
            break;
        default: break;
    }
    const Descriptor &kept = lowering.finalize_and_keep(std::move(pw), "finalizing the pointwise descriptor");

    Descriptor op(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    op.set_desc(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, kept, "pointwise descriptor");
    if (is_backward(mode_value)) {
        // Backward modes: the first operand is dy, the second x; the result is dx.
        op.set_desc(CUDNN_ATTR_OPERATION_POINTWISE_DYDESC, x, "pointwise dy");
        op.set_desc(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, *b, "pointwise x");
        op.set_desc(CUDNN_ATTR_OPERATION_POINTWISE_DXDESC, y, "pointwise dx");
    } else {
        op.set_desc(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x, "pointwise x");
        if (b) op.set_desc(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b, "pointwise b");
        if (t) op.set_desc(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, *t, "pointwise t");
        op.set_desc(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y, "pointwise y");
    }
    lowering.finalize_and_add(std::move(op), "finalizing " + label);
}

const char *pointwise_mode_name(fe_pointwise_mode mode) {
    return find_mode(mode) ? schema::enum_name("fe_pointwise_mode", mode) : nullptr;
}

namespace {

// NaN is no clip, slope or coefficient; an infinite clip on its own side is no clip at all.
void check_parameters(const fe_pointwise_options &o) {
    require_finite_or(-HUGE_VAL, o.relu_lower_clip, "options.relu_lower_clip");
    require_finite_or(HUGE_VAL, o.relu_upper_clip, "options.relu_upper_clip");
    require_finite(o.relu_lower_clip_slope, "options.relu_lower_clip_slope");
    require_finite(o.elu_alpha, "options.elu_alpha");
    require_finite(o.softplus_beta, "options.softplus_beta");
    require_finite(o.swish_beta, "options.swish_beta");
}

}  // namespace

Results add_pointwise(fe_graph &g, fe_pointwise_mode mode, fe_tensor *in0, fe_tensor *in1, fe_tensor *in2,
                      const fe_pointwise_options &options, const char *naming_kind) {
    check_parameters(options);
    const ModeInfo *info = find_mode(mode);
    FE_CHECK(info != nullptr, FE_STATUS_INVALID_ARGUMENT, "unknown pointwise mode %d", static_cast<int>(mode));
    fe_tensor *given[3] = {in0, in1, in2};
    for (int i = 0; i < 3; ++i) {
        if (i < info->arity)
            FE_CHECK(given[i] != nullptr, FE_STATUS_NULL_POINTER, "%s takes %d input(s); input %d is NULL",
                     pointwise_mode_name(mode), info->arity, i);
        else
            FE_CHECK(given[i] == nullptr, FE_STATUS_INVALID_ARGUMENT, "%s takes %d input(s); input %d must be NULL",
                     pointwise_mode_name(mode), info->arity, i);
    }
    return g.add_op(std::make_unique<Pointwise>(*info, in0, in1, in2, options), options.name,
                    naming_kind ? naming_kind : pointwise_mode_name(mode), {"Y"});
}

namespace {

// The op kinds: Pointwise::kind() names its nodes by them.
const schema::Enum kPointwiseMode{"fe_pointwise_mode",
                          {
     {"FE_POINTWISE_ADD", "add", FE_POINTWISE_ADD},
     {"FE_POINTWISE_MUL", "mul", FE_POINTWISE_MUL},
     {"FE_POINTWISE_MIN", "min", FE_POINTWISE_MIN},
     {"FE_POINTWISE_MAX", "max", FE_POINTWISE_MAX},
     {"FE_POINTWISE_SQRT", "sqrt", FE_POINTWISE_SQRT},
     {"FE_POINTWISE_ADD_SQUARE", "add_square", FE_POINTWISE_ADD_SQUARE},
     {"FE_POINTWISE_DIV", "div", FE_POINTWISE_DIV},
     {"FE_POINTWISE_MOD", "mod", FE_POINTWISE_MOD},
     {"FE_POINTWISE_POW", "pow", FE_POINTWISE_POW},
     {"FE_POINTWISE_SUB", "sub", FE_POINTWISE_SUB},
     {"FE_POINTWISE_ABS", "abs", FE_POINTWISE_ABS},
     {"FE_POINTWISE_CEIL", "ceil", FE_POINTWISE_CEIL},
     {"FE_POINTWISE_COS", "cos", FE_POINTWISE_COS},
     {"FE_POINTWISE_EXP", "exp", FE_POINTWISE_EXP},
     {"FE_POINTWISE_FLOOR", "floor", FE_POINTWISE_FLOOR},
     {"FE_POINTWISE_LOG", "log", FE_POINTWISE_LOG},
     {"FE_POINTWISE_NEG", "neg", FE_POINTWISE_NEG},
     {"FE_POINTWISE_RSQRT", "rsqrt", FE_POINTWISE_RSQRT},
     {"FE_POINTWISE_SIN", "sin", FE_POINTWISE_SIN},
     {"FE_POINTWISE_TAN", "tan", FE_POINTWISE_TAN},
     {"FE_POINTWISE_ERF", "erf", FE_POINTWISE_ERF},
     {"FE_POINTWISE_IDENTITY", "identity", FE_POINTWISE_IDENTITY},
     {"FE_POINTWISE_RECIPROCAL", "reciprocal", FE_POINTWISE_RECIPROCAL},
     {"FE_POINTWISE_ATAN2", "atan2", FE_POINTWISE_ATAN2},
     {"FE_POINTWISE_RELU_FWD", "relu", FE_POINTWISE_RELU_FWD},
     {"FE_POINTWISE_TANH_FWD", "tanh", FE_POINTWISE_TANH_FWD},
     {"FE_POINTWISE_SIGMOID_FWD", "sigmoid", FE_POINTWISE_SIGMOID_FWD},
     {"FE_POINTWISE_ELU_FWD", "elu", FE_POINTWISE_ELU_FWD},
     {"FE_POINTWISE_GELU_FWD", "gelu", FE_POINTWISE_GELU_FWD},
     {"FE_POINTWISE_SOFTPLUS_FWD", "softplus", FE_POINTWISE_SOFTPLUS_FWD},
     {"FE_POINTWISE_SWISH_FWD", "swish", FE_POINTWISE_SWISH_FWD},
     {"FE_POINTWISE_GELU_APPROX_TANH_FWD", "gelu_tanh", FE_POINTWISE_GELU_APPROX_TANH_FWD},
     {"FE_POINTWISE_RELU_BWD", "relu_backward", FE_POINTWISE_RELU_BWD},
     {"FE_POINTWISE_TANH_BWD", "tanh_backward", FE_POINTWISE_TANH_BWD},
     {"FE_POINTWISE_SIGMOID_BWD", "sigmoid_backward", FE_POINTWISE_SIGMOID_BWD},
     {"FE_POINTWISE_ELU_BWD", "elu_backward", FE_POINTWISE_ELU_BWD},
     {"FE_POINTWISE_GELU_BWD", "gelu_backward", FE_POINTWISE_GELU_BWD},
     {"FE_POINTWISE_SOFTPLUS_BWD", "softplus_backward", FE_POINTWISE_SOFTPLUS_BWD},
     {"FE_POINTWISE_SWISH_BWD", "swish_backward", FE_POINTWISE_SWISH_BWD},
     {"FE_POINTWISE_GELU_APPROX_TANH_BWD", "gelu_tanh_backward", FE_POINTWISE_GELU_APPROX_TANH_BWD},
     {"FE_POINTWISE_CMP_EQ", "cmp_eq", FE_POINTWISE_CMP_EQ},
     {"FE_POINTWISE_CMP_NEQ", "cmp_neq", FE_POINTWISE_CMP_NEQ},
     {"FE_POINTWISE_CMP_GT", "cmp_gt", FE_POINTWISE_CMP_GT},
     {"FE_POINTWISE_CMP_GE", "cmp_ge", FE_POINTWISE_CMP_GE},
     {"FE_POINTWISE_CMP_LT", "cmp_lt", FE_POINTWISE_CMP_LT},
     {"FE_POINTWISE_CMP_LE", "cmp_le", FE_POINTWISE_CMP_LE},
     {"FE_POINTWISE_LOGICAL_AND", "logical_and", FE_POINTWISE_LOGICAL_AND},
     {"FE_POINTWISE_LOGICAL_OR", "logical_or", FE_POINTWISE_LOGICAL_OR},
     {"FE_POINTWISE_LOGICAL_NOT", "logical_not", FE_POINTWISE_LOGICAL_NOT},
     {"FE_POINTWISE_GEN_INDEX", "gen_index", FE_POINTWISE_GEN_INDEX},
     {"FE_POINTWISE_BINARY_SELECT", "binary_select", FE_POINTWISE_BINARY_SELECT},
                          },
                          "The pointwise modes; each mode's JSON name is its op kind."};

const schema::Struct kOptions = FE_SCHEMA_OPTIONS(fe_pointwise_options, FE_POINTWISE_OPTIONS_INIT,
    "A pointwise operation's name, math type and the parameters of its mode.",
    FE_SCHEMA_NAME_FIELD(fe_pointwise_options),
    FE_SCHEMA_COMPUTE_FIELD(fe_pointwise_options),
    FE_SCHEMA_FIELD(fe_pointwise_options, relu_lower_clip, number, "relu, relu_backward: the lower clip."),
    FE_SCHEMA_FIELD(fe_pointwise_options, relu_upper_clip, number, "relu, relu_backward: the upper clip (1e300: none)."),
    FE_SCHEMA_FIELD(fe_pointwise_options, relu_lower_clip_slope, number,
        "relu, relu_backward: the leaky slope below the lower clip."),
    FE_SCHEMA_FIELD(fe_pointwise_options, elu_alpha, number, "elu, elu_backward: alpha."),
    FE_SCHEMA_FIELD(fe_pointwise_options, softplus_beta, number, "softplus, softplus_backward: beta."),
    FE_SCHEMA_FIELD(fe_pointwise_options, swish_beta, number, "swish, swish_backward: beta (1: silu)."),
    FE_SCHEMA_RANGE(fe_pointwise_options, axis, integer, 0, 7, "gen_index: the dim whose index is generated."));

const schema::Op kPointwise{"pointwise",
                    "fe_graph_pointwise",
                    "Pointwise",
                    {{"IN_0", nullptr, "the first operand (backward modes: dy)"},
                     {"IN_1", "optional", "binary and backward modes: the second operand (backward modes: x)"},
                     {"IN_2", "optional", "binary_select: the mask"}},
                    {{"Y", nullptr, "the operands' broadcast dims"}},
                    {},
                    &kOptions,
                    {},
                    true,
                    "An elementwise operation; the op kind is the mode.",
                    &kPointwiseMode,
                    nullptr,
                    {{{FE_POINTWISE_RELU_FWD, FE_POINTWISE_RELU_BWD},
                      {"relu_lower_clip", "relu_upper_clip", "relu_lower_clip_slope"}},
                     {{FE_POINTWISE_ELU_FWD, FE_POINTWISE_ELU_BWD}, {"elu_alpha"}},
                     {{FE_POINTWISE_SOFTPLUS_FWD, FE_POINTWISE_SOFTPLUS_BWD}, {"softplus_beta"}},
                     {{FE_POINTWISE_SWISH_FWD, FE_POINTWISE_SWISH_BWD}, {"swish_beta"}},
                     {{FE_POINTWISE_GEN_INDEX}, {"axis"}}}};

// The seeds' conveniences (declared above): each one mode under a name of its own.
const std::vector<schema::Convenience> kConveniences = {
    {"fe_graph_bias", FE_POINTWISE_ADD, {"input", "bias"}, "bias",
     "input + bias (broadcast); the options ({null}: the defaults) name the node and set its compute type."},
    {"fe_graph_scale", FE_POINTWISE_MUL, {"input", "scale"}, "scale",
     "input * scale (broadcast); the options ({null}: the defaults) name the node and set its compute type."},
    {"fe_graph_add", FE_POINTWISE_ADD, {"a", "b"}, nullptr,
     "a + b; the options ({null}: the defaults) name the node and set its compute type."},
    {"fe_graph_mul", FE_POINTWISE_MUL, {"a", "b"}, nullptr,
     "a * b; the options ({null}: the defaults) name the node and set its compute type."},
    {"fe_graph_relu", FE_POINTWISE_RELU_FWD, {"input"}, nullptr,
     "max(input, 0); the options ({null}: the defaults) name the node, set its compute type and may clip it or "
     "give it a leaky slope."},
    {"fe_graph_gelu", FE_POINTWISE_GELU_FWD, {"input"}, nullptr,
     "The GELU activation of input; the options ({null}: the defaults) name the node and set its compute type."},
    {"fe_graph_silu", FE_POINTWISE_SWISH_FWD, {"input"}, "silu",
     "input * sigmoid(input); the options ({null}: the defaults) name the node and set its compute type."},
};

const std::vector<fe_tensor *> &add_described(fe_graph &g, const schema::Call &c) {
    return add_pointwise(g, static_cast<fe_pointwise_mode>(c.kind_value), c.inputs[0], c.inputs[1], c.inputs[2],
                         c.options_as<fe_pointwise_options>(), c.automatic_name);
}

const schema::Registration kRegistered(kPointwise, add_described, nullptr, &kConveniences);

}  // namespace

}  // namespace fe
