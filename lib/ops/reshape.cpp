// Reshape: the same elements under another shape (cuDNN's reshape operation). Attention's
// backward uses emit_reshape to read P and dS transposed; the graph-level operation views a
// packed row-major tensor under other dims. Engines take it inside fused graphs, as a view
// an operation reads through, not as a copy on its own.

// include/cudnnfe.h, section "Resampling and layout operations" (copied there by scripts/schema/generate_header.py):
// typedef struct fe_reshape_options {
//     uint32_t struct_size;
//     const char *name; /* nullable: "reshape_<n>" */
// } fe_reshape_options;
// #define FE_RESHAPE_OPTIONS_INIT { (uint32_t)sizeof(fe_reshape_options), NULL }
//
// /** Reshape: the elements of x under other dims (ndims of them, the same element count), in
//  *  row-major order; y ("<name>::Y") is packed row-major. Lowered to cuDNN's reshape operation,
//  *  which engines take as a view inside a fused graph (e.g. feeding a matmul), not as a copy on
//  *  its own: such a graph fails at build with FE_STATUS_NOT_SUPPORTED saying so. x must be packed
//  *  row-major (FE_STATUS_INVALID_ARGUMENT otherwise). options nullable. */
// FE_API fe_status fe_graph_reshape(fe_graph *graph, fe_tensor *x, size_t ndims, const int64_t *dims,
//                                   const fe_reshape_options *options, fe_tensor **out_y);

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

void emit_reshape(Lowering &lowering, const Descriptor &x, const Descriptor &y, const std::string &label) {
    Descriptor op(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
    op.set_desc(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, x, "reshape X");
    op.set_desc(CUDNN_ATTR_OPERATION_RESHAPE_YDESC, y, "reshape Y");
    lowering.finalize_and_add(std::move(op), "finalizing " + label);
}

namespace {

int64_t element_count(const std::vector<int64_t> &dims) {
    int64_t n = 1;
    for (int64_t d : dims) n = __builtin_mul_overflow(n, d, &n) ? INT64_MAX : n;
    return n;
}

class Reshape : public Node {
  public:
    Reshape(fe_tensor *x, const std::vector<int64_t> &dims) : dims_(dims) { inputs = {x}; }
    const char *kind() const override { return "reshape"; }
    const char *input_port(size_t) const override { return "X"; }

    void infer() override {
        const fe_tensor *x = inputs[0];
        FE_CHECK(x->strides == packed_strides(x->dims), FE_STATUS_INVALID_ARGUMENT,
                 "x '%s' has strides %s; a reshape reads a packed row-major tensor (%s)", x->name.c_str(),
                 dims_string(x->strides).c_str(), dims_string(packed_strides(x->dims)).c_str());
        FE_CHECK(element_count(dims_) == element_count(x->dims), FE_STATUS_INVALID_ARGUMENT,
                 "dims %s hold %lld elements, x '%s' %s holds %lld", dims_string(dims_).c_str(),
                 static_cast<long long>(element_count(dims_)), x->name.c_str(), dims_string(x->dims).c_str(),
                 static_cast<long long>(element_count(x->dims)));
        assign_inferred_shape(outputs[0], dims_, packed_strides(dims_));
    }

    std::string attributes() const override { return "dims=" + dims_string(dims_); }
    void write_attributes(AttributeWriter &out) const override { out.field("dims", dims_); }
    std::string unsupported_hint() const override {
        return explanation(Feature::standalone_reshape, cudnn().cudnnGetVersion());
    }

    void lower(Lowering &lowering) const override {
        emit_reshape(lowering, lowering.tensor(inputs[0]), lowering.tensor(outputs[0]), "reshape '" + name + "'");
    }

  private:
    std::vector<int64_t> dims_;
};

// The op's description (lib/schema/schema.hpp) and how a call adds it.
const schema::Struct kReshapeOptions = FE_SCHEMA_OPTIONS(fe_reshape_options, FE_RESHAPE_OPTIONS_INIT,
    "A reshape's name.",
    FE_SCHEMA_NAME_FIELD(fe_reshape_options));
const schema::Op kReshape{"reshape",
                  "fe_graph_reshape",
                  "Resampling and layout operations",
                  {{"X", nullptr, "packed row-major"}},
                  {{"Y", nullptr, "packed row-major"}},
                  {{"dims", schema::Type::dims_array, nullptr, true, "The result's dims, x's element count."}},
                  &kReshapeOptions,
                  {},
                  false,
                  "Reshape (cuDNN's reshape, a view inside a fused graph)."};

const std::vector<fe_tensor *> &add_reshape(fe_graph &g, const schema::Call &c) {
    const std::vector<int64_t> &dims = c.params[0].dims;
    for (size_t i = 0; i < dims.size(); ++i)
        FE_CHECK(dims[i] > 0, FE_STATUS_INVALID_ARGUMENT, "dims[%zu] is %lld; dims must be positive", i,
                 static_cast<long long>(dims[i]));
    return add_call(g, std::make_unique<Reshape>(c.inputs[0], dims), c, c.options_as<fe_reshape_options>().name);
}

const schema::Registration kRegistered(kReshape, add_reshape);

}  // namespace

}  // namespace fe
