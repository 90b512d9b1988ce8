// Concatenate: y holds the inputs one after another along one axis (cuDNN's concatenation
// operation). With an in-place index, that input already lies in y's buffer at its place
// (a cache being appended to) and only the others are written. cuDNN offers no engine for the
// operation on its own (Feature::standalone_concatenate); such graphs fail at build, saying so.

// include/cudnnfe.h, section "Resampling and layout operations" (copied there by scripts/schema/generate_header.py):
// typedef struct fe_concatenate_options {
//     uint32_t struct_size;
//     const char *name; /* nullable: "concatenate_<n>" */
//     /* The input that already lies inside y's buffer (e.g. a KV cache being appended to), so
//      * cuDNN does not copy it; -1 (the default) for none. */
//     int64_t in_place_index;
// } fe_concatenate_options;
// #define FE_CONCATENATE_OPTIONS_INIT { (uint32_t)sizeof(fe_concatenate_options), NULL, -1 }
//
// /** Concatenate count tensors (count >= 2, same rank, data type and dims except along axis) along
//  *  axis (0 <= axis < rank). y ("<name>::Y") is packed row-major unless its strides are set.
//  *  options->in_place_index >= 0 names the input that already lies inside y's buffer (e.g. a KV
//  *  cache being appended to), so cuDNN does not copy it; -1 for none. cuDNN 9.19 had no engine for
//  *  a concatenation on its own: such a graph fails at build with FE_STATUS_NOT_SUPPORTED saying so.
//  *  options nullable. */
// FE_API fe_status fe_graph_concatenate(fe_graph *graph, size_t count, fe_tensor *const *inputs, int64_t axis,
//                                       const fe_concatenate_options *options, fe_tensor **out_y);

#include <cudnn_graph.h>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "plan/lowering.hpp"
#include "ops/graph_ops.hpp"
#include "schema/schema.hpp"
#include "ops/ops.hpp"

namespace fe {
namespace {

class Concatenate : public Node {
  public:
    Concatenate(const std::vector<fe_tensor *> &xs, int64_t axis, int64_t in_place_index)
        : axis_(axis), in_place_index_(in_place_index) {
        inputs = xs;
        for (size_t i = 0; i < xs.size(); ++i) ports_.push_back("X" + std::to_string(i));
    }
    const char *kind() const override { return "concatenate"; }
    const char *input_port(size_t index) const override { return ports_[index].c_str(); }  // X0, X1, ...

    void infer() override {
        const fe_tensor *first = inputs[0];
        size_t rank = first->dims.size();
        FE_CHECK(axis_ >= 0 && axis_ < static_cast<int64_t>(rank), FE_STATUS_INVALID_ARGUMENT,
                 "axis is %lld; the inputs have rank %zu", static_cast<long long>(axis_), rank);
        std::vector<int64_t> dims = first->dims;
        dims[static_cast<size_t>(axis_)] = 0;
        for (const fe_tensor *x : inputs) {
            FE_CHECK(x->dims.size() == rank, FE_STATUS_INVALID_ARGUMENT, "'%s' has rank %zu, '%s' rank %zu",
                     x->name.c_str(), x->dims.size(), first->name.c_str(), rank);
            FE_CHECK(x->data_type == first->data_type, FE_STATUS_INVALID_ARGUMENT,
                     "'%s' is %s, '%s' %s: concatenated tensors share a data type", x->name.c_str(),
                     data_type_name(x->data_type), first->name.c_str(), data_type_name(first->data_type));
            for (size_t d = 0; d < rank; ++d)
                FE_CHECK(d == static_cast<size_t>(axis_) || x->dims[d] == first->dims[d], FE_STATUS_INVALID_ARGUMENT,
                         "'%s' has dims %s, '%s' %s: only dim %lld (the axis) may differ", x->name.c_str(),
                         dims_string(x->dims).c_str(), first->name.c_str(), dims_string(first->dims).c_str(),
                         static_cast<long long>(axis_));
            dims[static_cast<size_t>(axis_)] += x->dims[static_cast<size_t>(axis_)];
        }
        assign_inferred_shape(outputs[0], dims, packed_strides(dims));
    }

    std::string attributes() const override {
        std::string text = "axis=" + std::to_string(axis_);
        if (in_place_index_ >= 0) text += " in_place_index=" + std::to_string(in_place_index_);
        return text;
    }
    void write_attributes(AttributeWriter &out) const override {
        out.field("axis", axis_).field("in_place_index", in_place_index_);
    }
    std::string unsupported_hint() const override {
        return explanation(Feature::standalone_concatenate, cudnn().cudnnGetVersion());
    }

    void lower(Lowering &lowering) const override {
        for (const fe_tensor *x : inputs)
            if (x->is_virtual()) lowering.require(Feature::concatenate_of_results);
        std::vector<cudnnBackendDescriptor_t> xs;
        for (const fe_tensor *x : inputs) xs.push_back(lowering.tensor(x).get());
        Descriptor op(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR);
        op.set(CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(xs.size()),
               xs.data(), "CUDNN_ATTR_OPERATION_CONCAT_INPUT_DESCS");
        int64_t axis = lowered_axis(lowering);
        op.set_int64(CUDNN_ATTR_OPERATION_CONCAT_AXIS, axis, "CUDNN_ATTR_OPERATION_CONCAT_AXIS");
        if (in_place_index_ >= 0)
            op.set_int64(CUDNN_ATTR_OPERATION_CONCAT_INPLACE_INDEX, in_place_index_,
                         "CUDNN_ATTR_OPERATION_CONCAT_INPLACE_INDEX");
        op.set_desc(CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC, lowering.tensor(outputs[0]),
                    "CUDNN_ATTR_OPERATION_CONCAT_OUTPUT_DESC");
        lowering.finalize_and_add(std::move(op), "finalizing concatenate '" + name + "'");
    }

    // The in-place input already lies inside y's buffer: that is the point of it.
    std::vector<std::pair<size_t, size_t>> in_place_ports() const override {
        if (in_place_index_ < 0) return {};
        return {{static_cast<size_t>(in_place_index_), 0}};
    }

  private:
    // cuDNN counts the axis in the lowered shape (rank at least 3; see Lowering::lowered_shape).
    int64_t lowered_axis(const Lowering &lowering) const {
        int64_t rank = static_cast<int64_t>(outputs[0]->dims.size());
        if (lowering.lifts_rank3() && rank == 3) return axis_ >= 2 ? axis_ + 1 : axis_;
        if (lowering.pads_trailing() || rank >= 3) return axis_;
        return axis_ + 3 - rank;
    }

    std::vector<std::string> ports_;

    int64_t axis_;
    int64_t in_place_index_;
};

}  // namespace

static std::unique_ptr<Node> make_concatenate(const std::vector<fe_tensor *> &xs, int64_t axis, int64_t in_place_index) {
    return std::make_unique<Concatenate>(xs, axis, in_place_index);
}

Results add_concatenate(fe_graph &g, const std::vector<fe_tensor *> &xs, int64_t axis,
                        const fe_concatenate_options &o) {
    FE_CHECK(xs.size() >= 2, FE_STATUS_INVALID_ARGUMENT, "count is %zu; a concatenation takes at least 2 tensors",
             xs.size());
    FE_CHECK(o.in_place_index >= -1 && o.in_place_index < static_cast<int64_t>(xs.size()), FE_STATUS_INVALID_ARGUMENT,
             "options.in_place_index is %lld; -1 (none) or 0 to %zu", static_cast<long long>(o.in_place_index),
             xs.size() - 1);
    return g.add_op(make_concatenate(xs, axis, o.in_place_index), o.name, "concatenate", {"Y"});
}

namespace {

const schema::Struct kConcatenateOptions = FE_SCHEMA_OPTIONS(fe_concatenate_options, FE_CONCATENATE_OPTIONS_INIT,
    "A concatenation's name and in-place input.",
    FE_SCHEMA_NAME_FIELD(fe_concatenate_options),
    FE_SCHEMA_RANGE(fe_concatenate_options, in_place_index, integer, -1, ::fe::schema::kNoMaximum,
        "The input already inside y's buffer (a cache being appended to); -1: none."));

const schema::Op kConcatenate{"concatenate",
                      "fe_graph_concatenate",
                      "Resampling and layout operations",
                      {{"X0", nullptr, "the first input"}, {"X1", nullptr, "the second input; X2... follow"}},
                      {{"Y", nullptr, "packed row-major unless its strides are set"}},
                      {{"axis", schema::Type::integer, nullptr, true, "The dim along which inputs are joined."}},
                      &kConcatenateOptions,
                      {},
                      false,
                      "Concatenate two or more tensors along an axis.",
                      nullptr,
                      nullptr,
                      {},
                      {},
                      "X"};

const std::vector<fe_tensor *> &add_described(fe_graph &g, const schema::Call &c) {
    return add_concatenate(g, c.inputs, c.params[0].value, c.options_as<fe_concatenate_options>());
}

const schema::Registration kRegistered(kConcatenate, add_described);

}  // namespace

}  // namespace fe
