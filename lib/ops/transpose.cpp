// Transpose: y[i_0, ..., i_r-1] = x[...] with y's dim k being x's dim perm[k]; y is packed.
// cuDNN's graph API has no transpose operation. It is lowered as a pointwise IDENTITY that reads x
// through a permuted view (x's memory, y's dims, x's strides taken in perm's order) and writes
// y packed: one elementwise copy. cuDNN has no engine for it on its own (the build fails saying
// so; Feature::standalone_transpose). x can then be read by no other operation of the graph in its
// own layout (a tensor has one view per operation graph): give that one its own tensor.

// include/cudnnfe.h, section "Resampling and layout operations" (copied there by scripts/schema/generate_header.py):
// typedef struct fe_transpose_options {
//     uint32_t struct_size;
//     const char *name; /* nullable: "transpose_<n>" */
// } fe_transpose_options;
// #define FE_TRANSPOSE_OPTIONS_INIT { (uint32_t)sizeof(fe_transpose_options), NULL }
//
// /** Transpose: y's dim k is x's dim perm[k] (rank entries, a permutation of 0..rank-1); y
//  *  ("<name>::Y") is packed row-major. cuDNN has no transpose operation: this is an
//  *  elementwise copy (a pointwise identity) reading x through the permuted view, so x must not
//  *  also be read in its own layout by another operation of the same graph (the build fails saying
//  *  so). cuDNN 9.19 had no engine for this copy on its own: such a graph fails at build with
//  *  FE_STATUS_NOT_SUPPORTED saying so. options nullable. */
// FE_API fe_status fe_graph_transpose(fe_graph *graph, fe_tensor *x, size_t rank, const int64_t *perm,
//                                     const fe_transpose_options *options, fe_tensor **out_y);

#include <cudnn_graph.h>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"
#include "ops/graph_ops.hpp"
#include "schema/schema.hpp"

namespace fe {
namespace {

class Transpose : public Node {
  public:
    Transpose(fe_tensor *x, const std::vector<int64_t> &perm) : perm_(perm) { inputs = {x}; }
    const char *kind() const override { return "transpose"; }
    const char *input_port(size_t) const override { return "X"; }

    void infer() override {
        const fe_tensor *x = inputs[0];
        FE_CHECK(perm_.size() == x->dims.size(), FE_STATUS_INVALID_ARGUMENT,
                 "perm has %zu entries but x '%s' has rank %zu", perm_.size(), x->name.c_str(), x->dims.size());
        std::vector<bool> seen(perm_.size(), false);
        std::vector<int64_t> dims;
        for (size_t i = 0; i < perm_.size(); ++i) {
            int64_t p = perm_[i];
            FE_CHECK(p >= 0 && p < static_cast<int64_t>(perm_.size()) && !seen[static_cast<size_t>(p)],
                     FE_STATUS_INVALID_ARGUMENT, "perm %s is not a permutation of 0..%zu", dims_string(perm_).c_str(),
                     perm_.size() - 1);
            seen[static_cast<size_t>(p)] = true;
            dims.push_back(x->dims[static_cast<size_t>(p)]);
        }
        assign_inferred_shape(outputs[0], dims, packed_strides(dims));  // packed (row-major) unless the user set strides
    }

    std::string attributes() const override { return "perm=" + dims_string(perm_); }
    void write_attributes(AttributeWriter &out) const override { out.field("perm", perm_); }
    std::string unsupported_hint() const override {
        return explanation(Feature::standalone_transpose, cudnn().cudnnGetVersion());
    }

    void lower(Lowering &lowering) const override {
        const fe_tensor *x = inputs[0];
        fe_tensor view;  // x's memory seen with y's dims
        view.dims = outputs[0]->dims;
        for (int64_t p : perm_) view.strides.push_back(x->strides[static_cast<size_t>(p)]);
        std::vector<int64_t> dims, strides;
        lowering.lowered_shape(&view, &dims, &strides);
        // Inside a fused graph the identity reads the view as a rank-3 pointwise operand whose row
        // is strided when the transpose moves x's innermost dim away from the last (capability
        // pointwise_rank3_strided_row). On its own a transpose has no engine (standalone_transpose).
        if (lowering.graph().nodes.size() > 1 && !lowering.lifts_rank3() && dims.size() == 3 && dims[2] > 1 &&
            strides[2] != 1)
            lowering.require(Feature::pointwise_rank3_strided_row);
        const Descriptor &in = lowering.tensor_view(x, dims, strides);
        const fe_pointwise_options pw = FE_POINTWISE_OPTIONS_INIT;
        emit_pointwise(lowering, FE_POINTWISE_IDENTITY, in, nullptr, nullptr, lowering.tensor(outputs[0]),
                       lowering.compute_type(*this), pw, 0, "transpose '" + name + "'");
    }

  private:
    std::vector<int64_t> perm_;
};

// The op's description (lib/schema/schema.hpp) and how a call adds it.
const schema::Struct kTransposeOptions = FE_SCHEMA_OPTIONS(fe_transpose_options, FE_TRANSPOSE_OPTIONS_INIT,
    "A transpose's name.",
    FE_SCHEMA_NAME_FIELD(fe_transpose_options));
const schema::Op kTranspose{"transpose",
                    "fe_graph_transpose",
                    "Resampling and layout operations",
                    {{"X", nullptr, "the input"}},
                    {{"Y", nullptr, "packed row-major: y's dim k is x's dim perm[k]"}},
                    {{"perm", schema::Type::dims_array, nullptr, true, "A permutation of x's dims."}},
                    &kTransposeOptions,
                    {},
                    false,
                    "Transpose (a copy through a permuted view)."};

const std::vector<fe_tensor *> &add_transpose(fe_graph &g, const schema::Call &c) {
    const auto &o = c.options_as<fe_transpose_options>();
    return add_call(g, std::make_unique<Transpose>(c.inputs[0], c.params[0].dims), c, o.name);
}

const schema::Registration kRegistered(kTranspose, add_transpose);

}  // namespace

}  // namespace fe
