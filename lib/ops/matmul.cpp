// Matrix multiplication (2-D and batched with broadcast batch dims).

// include/cudnnfe.h, section "Matmuls" (copied there by scripts/schema/generate_header.py):
// typedef struct fe_matmul_options {
//     uint32_t struct_size;
//     const char *name;
//     fe_data_type compute_data_type;
//     /* Variable-length batches (fe_graph_matmul only): each batch's actual sizes, int32 tensors of
//      * C's batch dims followed by [1, 1] (nullable each). Only rows below m_override[b] and
//      * columns below n_override[b] are computed, and the sum stops at k_override[b]; with an M or
//      * N override, C's other rows and columns receive padding_value. cuDNN 9.19 computes them
//      * wrongly on a matmul of its own: the build refuses them there (docs/capabilities.md). */
//     fe_tensor *m_override;
//     fe_tensor *n_override;
//     fe_tensor *k_override;
//     double padding_value; /* with m_override or n_override; default 0 */
//     /* fe_graph_matmul_fp8 only: FP8 math with fast accumulation (cuDNN's FAST_FLOAT_FOR_FP8 compute
//      * type for the product; the descales and amax stay float): faster on Hopper, with fewer bits
//      * kept while the products are summed. Default 0. */
//     int32_t fast_accumulate;
// } fe_matmul_options;
// #define FE_MATMUL_OPTIONS_INIT { (uint32_t)sizeof(fe_matmul_options), NULL, FE_DATA_NOT_SET, NULL, NULL, NULL, 0.0, 0 }
//
// /** C = A x B. A: [..., M, K], B: [..., K, N], C: [..., M, N]; batch dims broadcast (equal, or
//  *  1 on one side). 2-D operands are allowed. options nullable; its M, N and K overrides make a
//  *  padded batch of variable-length matrices one matmul. */
// FE_API fe_status fe_graph_matmul(fe_graph *graph, fe_tensor *a, fe_tensor *b,
//                                  const fe_matmul_options *options, fe_tensor **out_c);

#include <cudnn_graph.h>

#include <cstdlib>
#include <set>
#include <string>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "graph/graph.hpp"
#include "ops/graph_ops.hpp"
#include "ops/matmul_shape.hpp"
#include "ops/no_engine_causes.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"
#include "common/values.hpp"
#include "schema/schema.hpp"
#include "schema/option_fields.hpp"

namespace fe {
namespace {

class Matmul : public Node {
  public:
    Matmul(fe_tensor *a, fe_tensor *b, const fe_matmul_options &o) : given_(o) {
        given_.name = nullptr;
        inputs = {a, b};
        for (fe_tensor *t : {o.m_override, o.n_override, o.k_override}) override_.push_back(t ? add_input(t) : -1);
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return "matmul"; }
    void write_attributes(AttributeWriter &out) const override { write_option_attributes(out, op_schema(kind()), &given_, 0); }
    const char *input_port(size_t i) const override {
        static const char *const kOverrides[] = {"m_override", "n_override", "k_override"};
        if (i < 2) return i == 0 ? "A" : "B";
        for (size_t o = 0; o < 3; ++o)
            if (override_[o] == static_cast<int>(i)) return kOverrides[o];
        return "IN";
    }
    std::string attributes() const override {
        std::string a;
        static const char *const kNames[] = {"M", "N", "K"};
        for (size_t o = 0; o < 3; ++o)
            if (override_[o] >= 0)
                a += std::string(a.empty() ? "" : " ") + kNames[o] + "=" + inputs[static_cast<size_t>(override_[o])]->name;
        if (has_padding()) a += format(" padding=%g", given_.padding_value);
        return a;
    }

    void infer() override {
        const std::vector<int64_t> out = matmul_result_dims(inputs[0], inputs[1]);
        // Each override: int32, C's batch dims then [1, 1].
        std::vector<int64_t> per_batch(out.begin(), out.end() - 2);
        per_batch.push_back(1);
        per_batch.push_back(1);
        static const char *const kNames[] = {"m_override", "n_override", "k_override"};
        for (size_t o = 0; o < 3; ++o) {
            if (override_[o] < 0) continue;
            fe_tensor *t = inputs[static_cast<size_t>(override_[o])];
            FE_CHECK(t->dims == per_batch, FE_STATUS_INVALID_ARGUMENT, "options.%s '%s' is %s; it must be %s", kNames[o],
                     t->name.c_str(), dims_string(t->dims).c_str(), dims_string(per_batch).c_str());
            FE_CHECK(t->data_type == FE_DATA_INT32 || t->data_type == FE_DATA_NOT_SET, FE_STATUS_INVALID_ARGUMENT,
                     "options.%s '%s' is %s; the sizes are int32", kNames[o], t->name.c_str(),
                     data_type_name(t->data_type));
            t->data_type = FE_DATA_INT32;
        }
        require_finite(given_.padding_value, "options.padding_value");
        FE_CHECK(given_.padding_value == 0.0 || has_padding(), FE_STATUS_INVALID_ARGUMENT,
                 "options.padding_value is %g; it fills what an M or N override leaves out, and there is none",
                 given_.padding_value);
        assign_inferred_shape(outputs[0], out, packed_strides(out));
    }

    void lower(Lowering &lowering) const override {
        refuse_chained_matmul();
        if (is_complex(inputs[0]) || is_complex(inputs[1]) || is_complex(outputs[0])) check_complex(lowering);
        if (override_[0] >= 0 || override_[1] >= 0 || override_[2] >= 0)
            lowering.require(Feature::standalone_matmul_overrides);
        MatmulOverrides overrides;
        const Descriptor **slots[] = {&overrides.m, &overrides.n, &overrides.k};
        for (size_t o = 0; o < 3; ++o)
            if (override_[o] >= 0) *slots[o] = &lowering.tensor(inputs[static_cast<size_t>(override_[o])]);
        overrides.has_padding_value = has_padding();
        overrides.padding_value = given_.padding_value;
        // cuDNN's matmul engines take operands of one type: a mixed matmul (int8 or FP8 weights
        // with half activations, say) converts the narrower operand first, in the same graph.
        fe_data_type common = operand_type(inputs[0]->data_type, inputs[1]->data_type);
        refuse_known_bad(lowering, common);
        const Descriptor &a = converted(lowering, inputs[0], common, "A");
        const Descriptor &b = converted(lowering, inputs[1], common, "B");
        emit_matmul(lowering, a, b, lowering.tensor(outputs[0]), lowering.compute_type(*this), "matmul '" + name + "'",
                    overrides);
    }

    std::string unsupported_hint() const override {
        // 4-bit weights B [.., K, N], read as they are or through the scaling that dequantizes
        // them, stored with N contiguous.
        const fe_tensor *b = inputs[1];
        if (b->producer && (b->producer->is_pointwise() || std::string(b->producer->kind()) == "block_scale_dequantize"))
            b = b->producer->inputs[0];
        bool four_bits = b->data_type == FE_DATA_INT4 || b->data_type == FE_DATA_UINT4;
        if (four_bits && b->strides.size() >= 2 && b->strides.back() == 1 && b->dims.back() > 1)
            return explanation(Feature::int4_weights_layout, cudnn().cudnnGetVersion());
        // The matmul family's causes describe a matmul alone or with pointwise steps around it;
        // in a graph with another kind of operation that one may be the cause.
        const Feature cause = matmul_no_engine_cause(inputs[0], inputs[1]);
        if (cause == Feature::matmul_engine_envelope)
            for (const auto &node : inputs[0]->graph->nodes)
                if (node.get() != this && !node->is_pointwise()) return "";
        return explanation(cause, cudnn().cudnnGetVersion());
    }

  private:
    static bool is_complex(const fe_tensor *t) { return t->data_type == FE_DATA_COMPLEX_FP32; }

    // cuDNN's complex matmul multiplies complex A and B into complex C, in float, with none of
    // the real matmul's overrides.
    void check_complex(Lowering &lowering) const {
        const fe_tensor *a = inputs[0], *b = inputs[1], *c = outputs[0];
        FE_CHECK(is_complex(a) && is_complex(b) && is_complex(c), FE_STATUS_NOT_SUPPORTED,
                 "A '%s' is %s, B '%s' %s and C '%s' %s: a complex matmul takes complex_fp32 A and B into a "
                 "complex_fp32 C",
                 a->name.c_str(), data_type_name(a->data_type), b->name.c_str(), data_type_name(b->data_type),
                 c->name.c_str(), data_type_name(c->data_type));
        FE_CHECK(override_[0] < 0 && override_[1] < 0 && override_[2] < 0 && !has_padding(), FE_STATUS_NOT_SUPPORTED,
                 "a complex matmul takes no M, N or K override and no padding value");
        const fe_data_type math = lowering.compute_type(*this);
        FE_CHECK(math == FE_DATA_FLOAT, FE_STATUS_NOT_SUPPORTED,
                 "a complex matmul computes in float; its compute type is %s", data_type_name(math));
        lowering.require(Feature::complex_fp32_matmul);
    }

    // The type both operands are multiplied in: the wider of the two (8-bit types widen to the
    // other; half and bfloat16 meet in bfloat16, anything and float in float).
    static fe_data_type operand_type(fe_data_type a, fe_data_type b) {
        if (a == b) return a;
        auto rank = [](fe_data_type t) {
            switch (t) {
                case FE_DATA_FLOAT: return 4;
                case FE_DATA_BFLOAT16: return 3;
                case FE_DATA_HALF: return 2;
                default: return 1;  // int8, uint8, fp8
            }
        };
        if (rank(a) == 1 && rank(b) == 1) return FE_DATA_HALF;
        return rank(a) >= rank(b) ? a : b;
    }
    const Descriptor &converted(Lowering &lowering, const fe_tensor *t, fe_data_type type, const char *which) const {
        if (t->data_type == type) return lowering.tensor(t);
        std::vector<int64_t> dims, strides;
        lowering.lowered_shape(t, &dims, &strides);
        const Descriptor &out = lowering.internal_tensor(dims, strides, type);
        const fe_pointwise_options pw = FE_POINTWISE_OPTIONS_INIT;
        emit_pointwise(lowering, FE_POINTWISE_IDENTITY, lowering.tensor(t), nullptr, nullptr, out, FE_DATA_FLOAT, pw, 0,
                       format("matmul '%s' %s as %s", name.c_str(), which, data_type_name(type)));
        return out;
    }

    static bool is_fp8(fe_data_type t) { return t == FE_DATA_FP8_E4M3 || t == FE_DATA_FP8_E5M2; }

    // The tensor that operand `t` is widened from inside the graph: `t` itself when the matmul
    // converts it to `common`, or the input of the pointwise (a caller's cast) that produces it;
    // nullptr when no FP8 operand, nor a half or bfloat16 one into a float matmul, is widened.
    static const fe_tensor *widened_source(const fe_tensor *t, fe_data_type common) {
        auto widened = [common](fe_data_type from) {
            return is_fp8(from) || (common == FE_DATA_FLOAT && (from == FE_DATA_HALF || from == FE_DATA_BFLOAT16));
        };
        if (t->data_type != common && widened(t->data_type)) return t;
        if (!t->is_virtual() || !t->producer->is_pointwise() || t->producer->inputs.empty()) return nullptr;
        const fe_tensor *source = t->producer->inputs[0];
        return source && widened(source->data_type) && source->data_type != common ? source : nullptr;
    }

    // The int8 tensor that operand `t` is widened from inside the graph (by this matmul, or by
    // the caller's cast that produces it); nullptr when it is not one.
    static const fe_tensor *widened_int8(const fe_tensor *t, fe_data_type common) {
        if (t->data_type == FE_DATA_INT8) return common != FE_DATA_INT8 ? t : nullptr;
        if (!t->is_virtual() || !t->producer->is_pointwise() || t->producer->inputs.empty()) return nullptr;
        const fe_tensor *source = t->producer->inputs[0];
        return source && source->data_type == FE_DATA_INT8 ? source : nullptr;
    }

    // A row stride of a matrix (a stride of one of its last two dims, where that dim is not the
    // contiguous one) that is not a multiple of 16 elements.
    static bool unaligned_rows(const fe_tensor *t) {
        const size_t rank = t->dims.size();
        for (size_t d = rank - 2; d < rank; ++d)
            if (t->dims[d] > 1 && t->strides[d] != 1 && t->strides[d] % 16 != 0) return true;
        // A vector (one of the two dims 1) is one row: more than 64 elements, not a multiple of
        // 16; an FP8 one of more than 32 elements whatever its length (35 and 320 were wrong too).
        for (size_t d = rank - 2; d < rank; ++d) {
            const size_t other = d == rank - 1 ? rank - 2 : rank - 1;
            if (t->dims[other] != 1) continue;
            if (is_fp8(t->data_type) ? t->dims[d] > 32 : (t->dims[d] > 64 && t->dims[d] % 16 != 0)) return true;
        }
        return false;
    }

    // A batch of matrices (a batch dim above one) that do not start a multiple of 16 elements apart.
    static bool unaligned_batches(const fe_tensor *t) {
        for (size_t d = 0; d + 2 < t->dims.size(); ++d)
            if (t->dims[d] > 1 && t->strides[d] % 16 != 0) return true;
        return false;
    }

    // A unit dim of a matrix (M of a single row, N of a single column) whose stride is not a
    // multiple of 16 elements (1 among them): cuDNN reads it as a row stride all the same.
    static bool unaligned_unit_dims(const fe_tensor *t) {
        const size_t rank = t->dims.size();
        for (size_t d = rank - 2; d < rank; ++d)
            if (t->dims[d] == 1 && t->strides[d] % 16 != 0) return true;
        return false;
    }

    // The configurations cuDNN 9.19 was seen to run wrongly (or to fault on); each entry of the
    // capability table says which.
    void refuse_known_bad(Lowering &lowering, fe_data_type common) const {
        const fe_tensor *a = inputs[0], *b = inputs[1];
        const size_t rank = a->dims.size();
        // Operands widened in the graph (by this matmul or by the caller's cast) with rows that
        // are not 16-element aligned: wrong results, and kernels that fault.
        // A single row or column of one, its unit dim's stride unaligned and K above 32, likewise
        // (cuDNN reads that stride as a row stride, as for int8 below).
        for (const fe_tensor *in : {a, b}) {
            const fe_tensor *source = widened_source(in, common);
            if (source && (unaligned_rows(source) || (a->dims[rank - 1] > 32 && unaligned_unit_dims(source))))
                lowering.require(Feature::matmul_fp8_operand_conversion);
        }
        // An int8 operand widened, its rows, its batches or a unit dim unaligned and K above 32,
        // whatever the result type.
        if (a->dims[rank - 1] > 32)
            for (const fe_tensor *in : {a, b}) {
                const fe_tensor *source = widened_int8(in, common);
                if (source && (unaligned_rows(source) || unaligned_batches(source) || unaligned_unit_dims(source)))
                    lowering.require(Feature::matmul_int8_widened_long_rows);
            }
        // E4M3 with E5M2 faulted whatever the alignment (K = 1 among them).
        if (is_fp8(a->data_type) && is_fp8(b->data_type) && a->data_type != b->data_type)
            lowering.require(Feature::matmul_fp8_operand_conversion);
        // A result with neither M nor N contiguous: most of it left unwritten.
        if (strided_matrix(outputs[0])) lowering.require(Feature::matmul_result_matrix_strided);
        refuse_known_bad_epilogue(lowering);
    }

    // Whether result `c` has neither M nor N contiguous: a batch dim of more than one laid out
    // inside both (a smaller stride than theirs), or M and N both above one with no stride of 1
    // (a gap after a unit dim laid out innermost).
    static bool strided_matrix(const fe_tensor *c) {
        const size_t rank = c->dims.size();
        if (rank < 2 || c->strides.size() != rank) return false;
        const size_t m = rank - 2, n = rank - 1;
        if (c->dims[m] > 1 && c->dims[n] > 1 && c->strides[m] != 1 && c->strides[n] != 1) return true;
        for (size_t d = 0; d + 2 < rank; ++d)
            if (c->dims[d] > 1 && (c->dims[m] <= 1 || c->strides[d] < c->strides[m]) &&
                (c->dims[n] <= 1 || c->strides[d] < c->strides[n]))
                return true;
        return false;
    }

    // The epilogue: the pointwise operations fed, step by step, by this matmul's result, and the
    // results they store.
    void refuse_known_bad_epilogue(Lowering &lowering) const {
        std::set<const fe_tensor *> chain = {outputs[0]};
        const size_t rank = outputs[0]->dims.size();
        bool column_operand = false;
        std::vector<const fe_tensor *> stored;
        for (const auto &node : lowering.graph().nodes) {
            if (!node->is_pointwise() || node->outputs.empty()) continue;
            bool fed = false;
            for (const fe_tensor *in : node->inputs) fed = fed || (in && chain.count(in));
            if (!fed) continue;
            // A leaky relu (a lower-clip slope) straight on the matmul's result: the slope is
            // dropped (the result is a plain relu).
            if (node->inputs[0] == outputs[0]) {
                const std::string attributes = node->attributes();
                const std::string key = "lower_clip_slope=";
                const size_t at = attributes.find(key);
                if (at != std::string::npos && std::strtod(attributes.c_str() + at + key.size(), nullptr) != 0.0)
                    lowering.require(Feature::matmul_leaky_relu_epilogue);
            }
            // A row operand ([.., 1, N]: broadcast along M, per batch or not) whose N is not
            // contiguous, or a column operand ([.., M, 1]) whose M is not: read as if it were.
            for (const fe_tensor *in : node->inputs) {
                if (!in || chain.count(in) || in->by_value || in->dims.size() != rank || rank < 2) continue;
                bool row = in->dims[rank - 1] > 1 && in->dims[rank - 2] == 1;
                bool column = in->dims[rank - 1] == 1 && in->dims[rank - 2] > 1;
                if ((row && in->strides[rank - 1] != 1) || (column && in->strides[rank - 2] != 1))
                    lowering.require(Feature::matmul_strided_bias_operand);
                // A column operand per batch whose unit N dim has a stride of its own, smaller
                // than the batch's (N placed between M and the batch).
                if (column && rank >= 3 && in->dims[0] > 1 && in->strides[rank - 1] != 1 &&
                    in->strides[rank - 1] < in->strides[0])
                    lowering.require(Feature::matmul_strided_bias_operand);
                // An operand of C's shape with neither M nor N contiguous, as C itself.
                if (!row && !column && strided_matrix(in)) lowering.require(Feature::matmul_result_matrix_strided);
                column_operand = column_operand || column;
            }
            chain.insert(node->outputs[0]);
            if (!node->outputs[0]->is_virtual()) stored.push_back(node->outputs[0]);
        }
        for (const fe_tensor *c : stored) {
            // The result stored after the epilogue, as the matmul's own (refuse_known_bad).
            if (strided_matrix(c)) lowering.require(Feature::matmul_result_matrix_strided);
            // A column operand ([.., M, 1]) with the result stored M-innermost (transposed).
            const size_t r = c->dims.size();
            if (column_operand && r >= 2 && c->strides.size() == r && c->dims[r - 1] > 1 && c->dims[r - 2] > 1 &&
                c->strides[r - 2] < c->strides[r - 1])
                lowering.require(Feature::matmul_column_operand_transposed_result);
            // A single-column result (N of 1) whose unit dim N has a stride above 1, of a B whose
            // unit dim N has one too.
            const fe_tensor *b = inputs[1];
            if (r >= 2 && c->strides.size() == r && c->dims[r - 1] == 1 && c->dims[r - 2] > 1 &&
                c->strides[r - 1] > 1 && b->dims.size() == r && b->dims[r - 1] == 1 && b->strides[r - 1] > 1)
                lowering.require(Feature::matmul_column_result_unit_stride);
        }
    }

    int add_input(fe_tensor *t) {
        inputs.push_back(t);
        return static_cast<int>(inputs.size() - 1);
    }
    bool has_padding() const { return override_[0] >= 0 || override_[1] >= 0; }

    fe_matmul_options given_;   // as the caller gave them (name dropped), for the graph JSON
    std::vector<int> override_;  // M, N, K: index in inputs, or -1

    // A matmul fed by another matmul through virtual tensors and pointwise steps only (e.g.
    // matmul, gelu, matmul): refused on the cuDNN versions whose fused kernel for that chain gave
    // wrong results (Feature::chained_matmuls). Chains through a reduction (softmax between two
    // matmuls, attention's pattern) were verified and stay.
    void refuse_chained_matmul() const {
        for (const fe_tensor *in : inputs) {
            const fe_tensor *t = in;
            for (int depth = 0; t && t->is_virtual() && depth < 16; ++depth) {
                const Node *producer = t->producer;
                if (std::string(producer->kind()) == "matmul") {
                    std::string why = refusal(Feature::chained_matmuls, cudnn().cudnnGetVersion());
                    FE_CHECK(why.empty(), FE_STATUS_NOT_SUPPORTED,
                             "its input '%s' comes from matmul '%s' through virtual tensors; %s: mark '%s' as an "
                             "output and run this matmul in a graph of its own",
                             in->name.c_str(), producer->name.c_str(), why.c_str(), in->name.c_str());
                }
                if (!producer->is_pointwise()) break;
                t = producer->inputs.empty() ? nullptr : producer->inputs[0];
            }
        }
    }
};

}  // namespace

void emit_matmul(Lowering &lowering, const Descriptor &a, const Descriptor &b, const Descriptor &c,
                 fe_data_type compute, const std::string &label, const MatmulOverrides &overrides) {
    Descriptor mm(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    mm.set_data_type(CUDNN_ATTR_MATMUL_COMP_TYPE, compute, "CUDNN_ATTR_MATMUL_COMP_TYPE");
    if (overrides.has_padding_value)
        mm.set(CUDNN_ATTR_MATMUL_PADDING_VALUE, CUDNN_TYPE_DOUBLE, 1, &overrides.padding_value,
               "CUDNN_ATTR_MATMUL_PADDING_VALUE");
    const Descriptor &kept = lowering.finalize_and_keep(std::move(mm), "finalizing the matmul descriptor");
    Descriptor op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    op.set_desc(CUDNN_ATTR_OPERATION_MATMUL_ADESC, a, "matmul A");
    op.set_desc(CUDNN_ATTR_OPERATION_MATMUL_BDESC, b, "matmul B");
    op.set_desc(CUDNN_ATTR_OPERATION_MATMUL_CDESC, c, "matmul C");
    op.set_desc(CUDNN_ATTR_OPERATION_MATMUL_DESC, kept, "matmul descriptor");
    if (overrides.m) op.set_desc(CUDNN_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC, *overrides.m, "matmul M override");
    if (overrides.n) op.set_desc(CUDNN_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC, *overrides.n, "matmul N override");
    if (overrides.k) op.set_desc(CUDNN_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC, *overrides.k, "matmul K override");
    lowering.finalize_and_add(std::move(op), "finalizing " + label);
}

const schema::Struct &matmul_options_description() {
    static const schema::Struct description = FE_SCHEMA_OPTIONS(fe_matmul_options, FE_MATMUL_OPTIONS_INIT,
        "A matmul's name, math type and variable-length overrides.",
        FE_SCHEMA_NAME_FIELD(fe_matmul_options),
        FE_SCHEMA_COMPUTE_FIELD(fe_matmul_options),
        FE_SCHEMA_TENSOR(fe_matmul_options, m_override, nullptr,
            "Per batch: the rows computed, int32 [batch..., 1, 1]."),
        FE_SCHEMA_TENSOR(fe_matmul_options, n_override, nullptr,
            "Per batch: the columns computed, int32 [batch..., 1, 1]."),
        FE_SCHEMA_TENSOR(fe_matmul_options, k_override, nullptr,
            "Per batch: where the sum stops, int32 [batch..., 1, 1]."),
        FE_SCHEMA_FIELD(fe_matmul_options, padding_value, number,
            "With an M or N override: C's value outside them."),
        FE_SCHEMA_FIELD(fe_matmul_options, fast_accumulate, flag,
            "matmul_fp8: FP8 math with fast accumulation (cuDNN's FAST_FLOAT_FOR_FP8 compute type)."));
    return description;
}

namespace {

const schema::Op kMatmul{"matmul",
                 "fe_graph_matmul",
                 "Matmuls",
                 {{"A", nullptr, "[..., M, K]"}, {"B", nullptr, "[..., K, N]"}},
                 {{"C", nullptr, "[..., M, N]; batch dims broadcast"}},
                 {},
                 &matmul_options_description(),
                 {"name", "compute_data_type", "m_override", "n_override", "k_override", "padding_value"},
                 true,
                 "C = A x B."};

const std::vector<fe_tensor *> &add_matmul(fe_graph &g, const schema::Call &c) {
    const auto &o = c.options_as<fe_matmul_options>();
    return add_call(g, std::make_unique<Matmul>(c.inputs[0], c.inputs[1], o), c, o.name);
}

const schema::Registration kRegistered(kMatmul, add_matmul);

}  // namespace

}  // namespace fe
