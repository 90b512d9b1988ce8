// Reduction over chosen axes (add, mul, min, max, amax, avg, norm1, norm2).

// include/cudnnfe.h, section "Reduction and softmax" (copied there by scripts/schema/generate_header.py):
// typedef struct fe_reduction_options {
//     uint32_t struct_size;
//     const char *name;
//     fe_data_type compute_data_type;
//     uint32_t reduce_axes; /* bit i set: dimension i is reduced to 1 */
//     /* 1: bitwise-repeatable results (cuDNN adds the partial results in a fixed order; cuDNN
//      * 9.11). cuDNN 9.19 fails to compile such a reduction's kernels: refused at build with
//      * FE_STATUS_NOT_SUPPORTED, saying so (docs/capabilities.md). */
//     int32_t deterministic;
// } fe_reduction_options;
// #define FE_REDUCTION_OPTIONS_INIT
//     { (uint32_t)sizeof(fe_reduction_options), NULL, FE_DATA_NOT_SET, 0u, 0 }
//
// /** Reduce `x` over the axes in options->reduce_axes (required: options is not nullable
//  *  here, and at least one axis must be named). The result keeps the rank, with 1 in the
//  *  reduced dimensions. */
// FE_API fe_status fe_graph_reduction(fe_graph *graph, fe_tensor *x, fe_reduction_mode mode,
//                                     const fe_reduction_options *options, fe_tensor **out_y);

#include <cstring>

#include <cudnn_graph.h>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "graph/tensor.hpp"
#include "ops/graph_ops.hpp"
#include "ops/no_engine_causes.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"
#include "schema/schema.hpp"
#include "schema/option_fields.hpp"

namespace fe {

const char *reduction_mode_name(fe_reduction_mode mode) {
    const char *name = schema::enum_name("fe_reduction_mode", mode);
    return std::strcmp(name, "invalid") == 0 ? nullptr : name;
}

namespace {

class Reduction : public Node {
  public:
    Reduction(fe_tensor *input, fe_reduction_mode mode, const fe_reduction_options &o)
        : mode_(mode), axes_(o.reduce_axes), deterministic_(o.deterministic != 0) {
        inputs = {input};
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return "reduction"; }
    const char *input_port(size_t) const override { return "X"; }

    void infer() override {
        const fe_tensor *x = inputs[0];
        size_t rank = x->dims.size();
        FE_CHECK(axes_ != 0, FE_STATUS_INVALID_ARGUMENT, "no axis to reduce: set reduce_axes (bit i reduces dim i)");
        FE_CHECK(rank >= 32 || (axes_ >> rank) == 0, FE_STATUS_INVALID_ARGUMENT,
                 "reduce_axes 0x%x names a dim beyond the input's rank %zu", axes_, rank);
        std::vector<int64_t> out = x->dims;
        for (size_t i = 0; i < rank; ++i)
            if (axes_ & (1u << i)) out[i] = 1;
        assign_inferred_shape(outputs[0], out, x->strides);
    }

    // The mode is a parameter of the call, not an option.
    void write_attributes(AttributeWriter &out) const override {
        out.field("mode", reduction_mode_name(mode_));
        fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
        o.reduce_axes = axes_;
        o.deterministic = deterministic_ ? 1 : 0;
        write_option_attributes(out, op_schema(kind()), &o, 0);
    }

    std::string attributes() const override {
        std::string axes;
        for (int i = 0; i < 32; ++i)
            if (axes_ & (1u << i)) axes += (axes.empty() ? "" : ",") + std::to_string(i);
        return std::string("mode=") + reduction_mode_name(mode_) + " axes=[" + axes + "]" +
               (deterministic_ ? " deterministic" : "");
    }

    void lower(Lowering &lowering) const override {
        if (deterministic_) {
            lowering.require(Feature::deterministic_reduction);
            // Its kernels fail to compile for a reduction on its own; fused after the operation
            // that produces its input (a matmul's epilogue, say) it compiles and runs right.
            if (!inputs[0]->producer) lowering.require(Feature::deterministic_reduction_kernels);
        }
        if (mode_ == FE_REDUCTION_MUL_NO_ZEROS) lowering.require(Feature::reduction_mul_no_zeros);
        if (mode_ == FE_REDUCTION_AVG || mode_ == FE_REDUCTION_NORM1 || mode_ == FE_REDUCTION_NORM2)
            lowering.require(Feature::reduction_mean_and_norms);
        refuse_unpacked_result(lowering);
        refuse_rank3_permuted_input(lowering);
        refuse_partial_spatial(lowering);
        emit_reduction(lowering, mode_, lowering.tensor(inputs[0]), lowering.tensor(outputs[0]),
                       lowering.compute_type(*this), "reduction '" + name + "'", deterministic_);
    }

    // What cuDNN's reduction engines were seen to take (rank 4, channels-last), for a graph none
    // of them runs. A fused input is virtual, but its inferred layout is what cuDNN sees.
    std::string unsupported_hint() const override {
        return explanation(reduction_no_engine_cause(inputs[0]), cudnn().cudnnGetVersion());
    }

  private:
    // cuDNN 9.19 writes the result packed in the input's order of dims whatever its strides: a
    // result with gaps, or its dims in another order, comes out in the wrong places
    // (capability reduction_unpacked_result). Only dims of extent above 1 place anything.
    void refuse_unpacked_result(Lowering &lowering) const {
        const fe_tensor *x = inputs[0], *y = outputs[0];
        const std::vector<int64_t> packed = strides_in_order_of(y->dims, x->strides);
        for (size_t d = 0; d < y->dims.size() && d < y->strides.size(); ++d)
            if (y->dims[d] > 1 && y->strides[d] != packed[d]) {
                lowering.require(Feature::reduction_unpacked_result);
                return;
            }
    }

    // A reduction of a rank-2 or rank-3 graph input (kept at its rank) laid out otherwise than
    // dim 0 outermost and the last dim innermost, unit dims included (their strides are what
    // cuDNN reads the order from): cuDNN 9.19 leaves elements out of it (capability
    // reduction_rank3_permuted_input).
    void refuse_rank3_permuted_input(Lowering &lowering) const {
        const fe_tensor *x = inputs[0];
        const size_t rank = x->dims.size();
        if (x->producer || rank < 2 || rank > 3 || x->strides.size() != rank) return;
        if (rank == 3 && lowering.lifts_rank3()) return;
        for (size_t d = 0; d + 1 < rank; ++d)
            if (x->strides[d] < x->strides[d + 1]) {
                lowering.require(Feature::reduction_rank3_permuted_input);
                return;
            }
    }

    // A reduction of a rank-4 or rank-5 tensor over some of its spatial dims (dim 2 on) while
    // keeping others, each of more than one element: cuDNN 9.19 reads the wrong elements
    // (capability reduction_partial_spatial).
    void refuse_partial_spatial(Lowering &lowering) const {
        const fe_tensor *x = inputs[0];
        if (x->dims.size() < 4) return;
        bool reduced = false, kept = false;
        for (size_t d = 2; d < x->dims.size(); ++d) {
            if (x->dims[d] <= 1) continue;
            if (axes_ & (1u << d))
                reduced = true;
            else
                kept = true;
        }
        if (reduced && kept) lowering.require(Feature::reduction_partial_spatial);
    }

    fe_reduction_mode mode_;
    uint32_t axes_;
    bool deterministic_;
};

}  // namespace

void emit_reduction(Lowering &lowering, fe_reduction_mode mode, const Descriptor &x, const Descriptor &y,
                    fe_data_type compute, const std::string &label, bool deterministic) {
    Descriptor red(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    red.set_data_type(CUDNN_ATTR_REDUCTION_COMP_TYPE, compute, "CUDNN_ATTR_REDUCTION_COMP_TYPE");
    cudnnReduceTensorOp_t op_type = static_cast<cudnnReduceTensorOp_t>(mode);
    red.set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &op_type,
            "CUDNN_ATTR_REDUCTION_OPERATOR");
    if (deterministic)
        red.set(CUDNN_ATTR_REDUCTION_IS_DETERMINISTIC, CUDNN_TYPE_BOOLEAN, 1, &deterministic,
                "CUDNN_ATTR_REDUCTION_IS_DETERMINISTIC");
    const Descriptor &kept = lowering.finalize_and_keep(std::move(red), "finalizing the reduction descriptor");
    lowering.add_operation(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR,
                           {{CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x, "reduction X"},
                            {CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y, "reduction Y"},
                            {CUDNN_ATTR_OPERATION_REDUCTION_DESC, kept, "reduction descriptor"}},
                           "finalizing " + label);
}

Results add_reduction(fe_graph &g, fe_tensor *x, fe_reduction_mode mode, const fe_reduction_options &o) {
    return g.add_op(std::make_unique<Reduction>(x, mode, o), o.name, "reduction", {"Y"});
}

namespace {

const schema::Enum kReductionMode{"fe_reduction_mode",
                          {{"FE_REDUCTION_ADD", "add", FE_REDUCTION_ADD},
                           {"FE_REDUCTION_MUL", "mul", FE_REDUCTION_MUL},
                           {"FE_REDUCTION_MIN", "min", FE_REDUCTION_MIN},
                           {"FE_REDUCTION_MAX", "max", FE_REDUCTION_MAX},
                           {"FE_REDUCTION_AMAX", "amax", FE_REDUCTION_AMAX},
                           {"FE_REDUCTION_AVG", "avg", FE_REDUCTION_AVG,
                            "The mean (refused at build with cuDNN 9.19: reduction_mean_and_norms)."},
                           {"FE_REDUCTION_NORM1", "norm1", FE_REDUCTION_NORM1,
                            "The sum of |x| (refused at build with cuDNN 9.19: reduction_mean_and_norms)."},
                           {"FE_REDUCTION_NORM2", "norm2", FE_REDUCTION_NORM2,
                            "The root of the sum of squares (refused at build with cuDNN 9.19: "
                            "reduction_mean_and_norms)."},
                           {"FE_REDUCTION_MUL_NO_ZEROS", "mul_no_zeros", FE_REDUCTION_MUL_NO_ZEROS,
                            "The product of the non-zero elements (refused at build with cuDNN 9.19)."}},
                          "What a reduction computes over the reduced dims."};

const schema::Struct kReductionOptions = FE_SCHEMA_OPTIONS(fe_reduction_options, FE_REDUCTION_OPTIONS_INIT,
    "A reduction's name, math type and reduced dims.",
    FE_SCHEMA_NAME_FIELD(fe_reduction_options),
    FE_SCHEMA_COMPUTE_FIELD(fe_reduction_options),
    FE_SCHEMA_FIELD(fe_reduction_options, reduce_axes, axes, "The reduced dims (in C a bit mask, bit i for dim i); at least one."),
    FE_SCHEMA_FIELD(fe_reduction_options, deterministic, flag, "Bitwise-repeatable results (cuDNN 9.11)."));

const schema::Op kReduction{"reduction",
                    "fe_graph_reduction",
                    "Reduction and softmax",
                    {{"X", nullptr, "the input"}},
                    {{"Y", nullptr, "x's rank, 1 in the reduced dims"}},
                    {{"mode", schema::Type::enumeration, &kReductionMode, true, "What is computed."}},
                    &kReductionOptions,
                    {},
                    true,
                    "Reduce over the dims in reduce_axes.",
                    nullptr,
                    nullptr,
                    {},
                    {},
                    nullptr,
                    "a reduction needs its reduced dims (FE_REDUCTION_OPTIONS_INIT, reduce_axes)"};

const std::vector<fe_tensor *> &add_reduction_call(fe_graph &g, const schema::Call &c) {
    return add_reduction(g, c.inputs[0], static_cast<fe_reduction_mode>(c.params[0].value),
                         c.options_as<fe_reduction_options>());
}

const schema::Registration kRegistered(kReduction, add_reduction_call);

}  // namespace

}  // namespace fe
