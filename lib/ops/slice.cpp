// Slice: y = x[start:end] per dim, a view of a graph input's memory with the input's strides.
// cuDNN's graph API has no slice operation; a view needs none. The slice becomes a non-virtual
// tensor of its own whose address execution computes from the input's (plus the offset of
// its first element), so the operations reading it read the input in place: nothing is
// copied, and the cuDNN operation graph never sees the input itself.

// include/cudnnfe.h, section "Resampling and layout operations" (copied there by scripts/schema/generate_header.py):
// typedef struct fe_slice_options {
//     uint32_t struct_size;
//     const char *name; /* nullable: "slice_<n>" */
// } fe_slice_options;
// #define FE_SLICE_OPTIONS_INIT { (uint32_t)sizeof(fe_slice_options), NULL }
//
// /** Slice: y is x[start[0]:end[0], ..., start[r-1]:end[r-1]] (rank entries each, end exclusive,
//  *  0 <= start < end <= dim), a view of x's memory with x's strides: nothing is copied. x must be
//  *  a graph input (its buffer is bound at execution; y is read at x's address plus the slice's
//  *  offset), and y feeds other operations: it cannot be a graph output. Typical use: Q, K and V
//  *  sliced out of one packed QKV buffer. options nullable. */
// FE_API fe_status fe_graph_slice(fe_graph *graph, fe_tensor *x, size_t rank, const int64_t *start,
//                                 const int64_t *end, const fe_slice_options *options, fe_tensor **out_y);

#include <cudnn_graph.h>

#include "backend/capabilities.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "plan/lowering.hpp"
#include "ops/graph_ops.hpp"
#include "schema/schema.hpp"
#include "ops/ops.hpp"

namespace fe {
namespace {

class Slice : public Node {
  public:
    Slice(fe_tensor *x, const std::vector<int64_t> &start, const std::vector<int64_t> &end) : start_(start), end_(end) {
        inputs = {x};
    }
    const char *kind() const override { return "slice"; }
    const char *input_port(size_t) const override { return "X"; }
    bool only_views_inputs() const override { return true; }

    void infer() override {
        const fe_tensor *x = inputs[0];
        fe_tensor *y = outputs[0];
        FE_CHECK(x->is_input() && !x->by_value, FE_STATUS_INVALID_ARGUMENT,
                 "x '%s' is %s; a slice views a graph input's buffer", x->name.c_str(),
                 x->by_value ? "a scalar passed by value" : "the result of an operation");
        FE_CHECK(start_.size() == x->dims.size(), FE_STATUS_INVALID_ARGUMENT,
                 "start and end have %zu entries but x '%s' has rank %zu", start_.size(), x->name.c_str(),
                 x->dims.size());
        std::vector<int64_t> dims;
        for (size_t i = 0; i < start_.size(); ++i) {
            FE_CHECK(start_[i] >= 0 && start_[i] < end_[i] && end_[i] <= x->dims[i], FE_STATUS_INVALID_ARGUMENT,
                     "dim %zu: the range [%lld, %lld) is not a non-empty part of x's %lld", i,
                     static_cast<long long>(start_[i]), static_cast<long long>(end_[i]),
                     static_cast<long long>(x->dims[i]));
            dims.push_back(end_[i] - start_[i]);
        }
        FE_CHECK(!y->user_strides || y->strides == x->strides, FE_STATUS_VALIDATION,
                 "'%s' was given strides %s, but a slice keeps x's %s", y->name.c_str(),
                 dims_string(y->strides).c_str(), dims_string(x->strides).c_str());
        FE_CHECK(!y->user_data_type || typed_ || y->data_type == x->data_type, FE_STATUS_VALIDATION,
                 "'%s' was given data type %s, but a slice keeps x's %s", y->name.c_str(),
                 data_type_name(y->data_type), data_type_name(x->data_type));
        FE_CHECK(!y->is_output, FE_STATUS_INVALID_ARGUMENT,
                 "'%s' is marked as an output; a slice is a view that operations read, not a result", y->name.c_str());
        assign_inferred_shape(y, dims, x->strides);
        y->strides = x->strides;
        if (x->data_type != FE_DATA_NOT_SET) {  // an input typed by the graph's io type is typed at validation
            y->data_type = x->data_type;
            y->user_data_type = typed_ = true;
        }
    }

    std::string attributes() const override {
        return "start=" + dims_string(start_) + " end=" + dims_string(end_);
    }
    void write_attributes(AttributeWriter &out) const override { out.field("start", start_).field("end", end_); }

    void lower(Lowering &lowering) const override {
        const fe_tensor *x = inputs[0];
        int64_t offset = 0;
        for (size_t i = 0; i < start_.size(); ++i) offset += start_[i] * x->strides[i];
        // A slice is bound at a byte address: a 4-bit tensor's slice may start inside a byte.
        FE_CHECK(data_type_size(x->data_type) != 0, FE_STATUS_NOT_SUPPORTED,
                 "'%s' is %s; slices of 4-bit tensors are not taken (they may start inside a byte)", x->name.c_str(),
                 data_type_name(x->data_type));
        const int64_t bytes = offset * static_cast<int64_t>(data_type_size(x->data_type));
        lowering.slice_view(outputs[0], x, bytes);
        // cuBLASLt-based engines fail at execute on an operand less than 16-byte aligned
        // (capability matmul_cublaslt_unaligned_operand); cuDNN's own engines take it.
        if (bytes % 16 != 0 && lowering.graph().has_op("matmul"))
            lowering.avoid_engines(CUDNN_BEHAVIOR_NOTE_CUBLASLT_DEPENDENCY, Feature::matmul_cublaslt_unaligned_operand);
    }

  private:
    std::vector<int64_t> start_, end_;
    bool typed_ = false;  // y's data type was set here (x's), not by the user
};

// The op's description (lib/schema/schema.hpp) and how a call adds it.
const schema::Struct kSliceOptions = FE_SCHEMA_OPTIONS(fe_slice_options, FE_SLICE_OPTIONS_INIT,
    "A slice's name.",
    FE_SCHEMA_NAME_FIELD(fe_slice_options));
const schema::Op kSlice{"slice",
                "fe_graph_slice",
                "Resampling and layout operations",
                {{"X", nullptr, "a graph input"}},
                {{"Y", nullptr, "a view of x at an offset, with x's strides"}},
                {{"start", schema::Type::dims_array, nullptr, true, "The first index of each dim."},
                 {"end", schema::Type::dims_array, nullptr, true, "The end (exclusive) of each dim."}},
                &kSliceOptions,
                {},
                false,
                "Slice: a view of a graph input, nothing copied."};

// start and end of one length (one count in the C call, two arrays in the graph JSON).
const std::vector<fe_tensor *> &add_slice(fe_graph &g, const schema::Call &c) {
    const std::vector<int64_t> &start = c.params[0].dims, &end = c.params[1].dims;
    FE_CHECK(start.size() == end.size(), FE_STATUS_INVALID_ARGUMENT, "slice: end has %zu entries, start %zu",
             end.size(), start.size());
    return add_call(g, std::make_unique<Slice>(c.inputs[0], start, end), c, c.options_as<fe_slice_options>().name);
}

const schema::Registration kRegistered(kSlice, add_slice);

}  // namespace

}  // namespace fe
