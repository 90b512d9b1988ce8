#include "plan/lowering.hpp"

#include <algorithm>
#include <cstring>

#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/half.hpp"

namespace fe {

void Lowering::require(Feature feature) const {
    fe::require(feature, static_cast<int64_t>(cudnn().cudnnGetVersion()), state_.lowered.target.generation);
}

const TargetGpu &Lowering::target() const { return state_.lowered.target; }

void Lowering::avoid_engines(cudnnBackendBehaviorNote_t note, Feature feature) {
    std::string why = refusal(feature, static_cast<int64_t>(cudnn().cudnnGetVersion()), state_.lowered.target.generation);
    if (why.empty()) return;
    state_.lowered.avoided_behavior_notes |= uint64_t(1) << note;
    state_.lowered.avoided_because = why;
}

Lowering::Lowering(fe_graph &graph, BuildState &state) : graph_(graph), state_(state) {
    for (const auto &node : graph.nodes) lift_rank3_ = lift_rank3_ || node->wants_rank3_lift();
    for (const auto &node : graph.nodes) pad_trailing_ = pad_trailing_ || node->wants_trailing_unit_dims();
    if (graph.nodes.size() > 1)
        for (const auto &node : graph.nodes)
            channels_last_pixels_ = channels_last_pixels_ || node->wants_channels_last_pixels();
    int64_t max_uid = 0;
    for (const auto &t : graph.tensors) max_uid = std::max(max_uid, t->uid);
    state_.lowered.next_internal_uid = max_uid + 1;
}

// A single-pixel image [N, C, 1, 1(, 1)] reads the same memory whatever strides its unit dims
// have, and the packed NCHW form (C, 1, 1, 1) is also the natural one. cuDNN 9.19 reads that form
// as NCHW and, fused with a convolution, builds plans that fault (misaligned address) or leave
// elements unwritten, with an NCHW or a channels-last image alike (conformance runs of seeds
// 14-20 on an H200: 5 wrong and 5 faults in 71 such graphs as given, 1 wrong with unit dims
// described channels-last, which conv_fusion_nchw_pixel refuses). The unit dims are given
// the strides of the channels-last form: the same addresses, one layout for cuDNN.
static void describe_pixel_channels_last(const std::vector<int64_t> &dims, std::vector<int64_t> *strides) {
    const size_t rank = dims.size();
    if ((rank != 4 && rank != 5) || !single_pixel(dims, true)) return;
    for (size_t d = 2; d < rank; ++d) (*strides)[d] = dims[1] * (*strides)[1];
}

void Lowering::lowered_shape(const fe_tensor *t, std::vector<int64_t> *dims,
                             std::vector<int64_t> *strides) const {
    *dims = t->dims;
    *strides = t->strides;
    if (t->vector_count > 1) return;  // a rank-4 or rank-5 convolution tensor, as cuDNN takes it
    if (lift_rank3_ && dims->size() == 3) {
        // [N, C, W] -> [N, C, 1, W]; the unit dim's stride spans the dim after it.
        int64_t s = (*dims)[2] * (*strides)[2];
        dims->insert(dims->begin() + 2, 1);
        strides->insert(strides->begin() + 2, s);
    }
    // After the lift: a 1-D convolution's single pixel is a 2-D one to cuDNN.
    if (channels_last_pixels_) describe_pixel_channels_last(*dims, strides);
    while (pad_trailing_ && dims->size() < 3) {
        dims->push_back(1);
        strides->push_back(1);
    }
    while (dims->size() < 3) {
        // cuDNN's matmul and fusion engines want a batch dimension: prepend unit dims.
        int64_t s = (*dims)[0] * (*strides)[0];
        dims->insert(dims->begin(), 1);
        strides->insert(strides->begin(), s);
    }
}

// A host scalar in the bytes of its data type (what cuDNN reads through a by-value pointer).
static void encode_scalar(double value, fe_data_type type, unsigned char *out) {
    std::memset(out, 0, 8);
    switch (type) {
        case FE_DATA_FLOAT: {
            float v = static_cast<float>(value);
            std::memcpy(out, &v, sizeof v);
            break;
        }
        case FE_DATA_DOUBLE: std::memcpy(out, &value, sizeof(double)); break;
        case FE_DATA_HALF: {
            uint16_t v = float_to_half(static_cast<float>(value));
            std::memcpy(out, &v, sizeof v);
            break;
        }
        case FE_DATA_BFLOAT16: {
            uint16_t v = float_to_bfloat16(static_cast<float>(value));
            std::memcpy(out, &v, sizeof v);
            break;
        }
        case FE_DATA_INT32: {
            // Converting a double outside the type is undefined; the entry points refuse such
            // values, and this keeps a derived one (a window minus a diagonal) from slipping by.
            FE_CHECK(value >= -2147483648.0 && value <= 2147483647.0, FE_STATUS_INVALID_ARGUMENT,
                     "the value %g does not fit the int32 cuDNN takes", value);
            int32_t v = static_cast<int32_t>(value);
            std::memcpy(out, &v, sizeof v);
            break;
        }
        case FE_DATA_INT64: {
            FE_CHECK(value >= -9223372036854775808.0 && value < 9223372036854775808.0, FE_STATUS_INVALID_ARGUMENT,
                     "the value %g does not fit the int64 cuDNN takes", value);
            int64_t v = static_cast<int64_t>(value);
            std::memcpy(out, &v, sizeof v);
            break;
        }
        default: FE_FAIL(FE_STATUS_INTERNAL, "a scalar of type %s cannot be passed by value", data_type_name(type));
    }
}

// cuDNN 9.22's CUDNN_ATTR_TENSOR_CONSTANT_VALUE (a by-value tensor's value compiled into the
// kernels), named here because older headers lack it; only set where the capability table
// allows it.
static const cudnnBackendAttributeName_t kTensorConstantValue = static_cast<cudnnBackendAttributeName_t>(910);

// A finalized tensor descriptor, recorded in `table` as what it states. `constant`: the value
// of a compile-time constant, in its type's bytes.
static Descriptor make_tensor_descriptor(std::vector<LoweredTensor> &table, const std::vector<int64_t> &dims,
                                         const std::vector<int64_t> &strides, fe_data_type type, int64_t uid,
                                         bool is_virtual, bool by_value, const std::string &name,
                                         const Descriptor *ragged_offset = nullptr, int64_t alignment = 16,
                                         const unsigned char *constant = nullptr, int32_t vector_count = 1,
                                         int32_t vector_dim = -1,
                                         fe_tensor_reordering reordering = FE_TENSOR_REORDERING_NONE) {
    Descriptor d(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    d.set_data_type(CUDNN_ATTR_TENSOR_DATA_TYPE, type, "CUDNN_ATTR_TENSOR_DATA_TYPE");
    d.set_int64s(CUDNN_ATTR_TENSOR_DIMENSIONS, dims, "CUDNN_ATTR_TENSOR_DIMENSIONS");
    d.set_int64s(CUDNN_ATTR_TENSOR_STRIDES, strides, "CUDNN_ATTR_TENSOR_STRIDES");
    d.set_int64(CUDNN_ATTR_TENSOR_UNIQUE_ID, uid, "CUDNN_ATTR_TENSOR_UNIQUE_ID");
    d.set_int64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, alignment, "CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT");
    d.set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual, "CUDNN_ATTR_TENSOR_IS_VIRTUAL");
    if (by_value) d.set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value, "CUDNN_ATTR_TENSOR_IS_BY_VALUE");
    if (ragged_offset) d.set_desc(CUDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC, *ragged_offset, "CUDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC");
    if (vector_count > 1) {
        d.set_int64(CUDNN_ATTR_TENSOR_VECTOR_COUNT, vector_count, "CUDNN_ATTR_TENSOR_VECTOR_COUNT");
        d.set_int64(CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION, vector_dim, "CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION");
    }
    if (reordering == FE_TENSOR_REORDERING_INT8X32) {
        const cudnnBackendTensorReordering_t mode = CUDNN_TENSOR_REORDERING_INT8x32;
        d.set(CUDNN_ATTR_TENSOR_REORDERING_MODE, CUDNN_TYPE_TENSOR_REORDERING_MODE, 1, &mode,
              "CUDNN_ATTR_TENSOR_REORDERING_MODE");
    }
    if (constant) {
        const void *value = constant;
        d.set(kTensorConstantValue, CUDNN_TYPE_VOID_PTR, 1, &value, "CUDNN_ATTR_TENSOR_CONSTANT_VALUE");
    }
    std::string what = "finalizing the tensor descriptor of '" + name + "'";
    d.finalize(what.c_str(), FE_STATUS_NOT_SUPPORTED);
    table.push_back({uid, dims, strides, type, is_virtual, by_value, alignment, d.get()});
    return d;
}

const Descriptor &Lowering::tensor(const fe_tensor *t) {
    auto found = state_.lowered.tensor_index.find(t);
    if (found != state_.lowered.tensor_index.end()) return state_.lowered.tensor_descriptors[found->second];
    std::vector<int64_t> dims, strides;
    lowered_shape(t, &dims, &strides);
    if (t->by_value) encode_scalar(t->scalar_value, t->data_type, const_cast<fe_tensor *>(t)->scalar_bytes);
    if (t->compile_time_constant) require(Feature::compile_time_constants);
    if (t->data_type == FE_DATA_UINT4) require(Feature::uint4_tensors);
    const Descriptor *ragged = t->ragged_offset ? &tensor(t->ragged_offset) : nullptr;
    Descriptor d =
        make_tensor_descriptor(state_.lowered.tensor_table, dims, strides, t->data_type, t->uid, t->is_virtual(), t->by_value, t->name, ragged,
                               t->alignment, t->compile_time_constant ? t->scalar_bytes : nullptr, t->vector_count,
                               t->vector_dim, t->reordering);
    state_.lowered.tensor_index[t] = state_.lowered.tensor_descriptors.size();
    state_.lowered.tensor_descriptors.push_back(std::move(d));
    return state_.lowered.tensor_descriptors.back();
}

void Lowering::stand_in(const fe_tensor *t, const Descriptor &descriptor) {
    auto &all = state_.lowered.tensor_descriptors;
    for (size_t i = 0; i < all.size(); ++i) {
        if (&all[i] != &descriptor) continue;
        state_.lowered.tensor_index[t] = i;
        return;
    }
    FE_FAIL(FE_STATUS_INTERNAL, "'%s' stands in for a tensor this graph never lowered", t->name.c_str());
}

const Descriptor &Lowering::finalize_and_keep(Descriptor descriptor, const std::string &what) {
    descriptor.finalize(what.c_str(), FE_STATUS_NOT_SUPPORTED);
    state_.lowered.attribute_descriptors.push_back(std::move(descriptor));
    return state_.lowered.attribute_descriptors.back();
}

const Descriptor &Lowering::tensor_view(const fe_tensor *t, const std::vector<int64_t> &dims,
                                        const std::vector<int64_t> &strides) {
    FE_CHECK(!state_.lowered.tensor_index.count(t), FE_STATUS_NOT_SUPPORTED,
             "'%s' is read by another operation in its own layout and, here, transposed; give each its own tensor",
             t->name.c_str());
    const Descriptor *ragged = t->ragged_offset ? &tensor(t->ragged_offset) : nullptr;
    Descriptor d = make_tensor_descriptor(state_.lowered.tensor_table, dims, strides, t->data_type, t->uid, t->is_virtual(), false, t->name, ragged,
                                          t->alignment);
    state_.lowered.tensor_index[t] = state_.lowered.tensor_descriptors.size();
    state_.lowered.tensor_descriptors.push_back(std::move(d));
    return state_.lowered.tensor_descriptors.back();
}

const Descriptor &Lowering::internal_tensor(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides,
                                            fe_data_type type) {
    int64_t uid = state_.lowered.next_internal_uid++;
    state_.lowered.tensor_descriptors.push_back(
        make_tensor_descriptor(state_.lowered.tensor_table, dims, strides, type, uid, true, false, "internal #" + std::to_string(uid)));
    return state_.lowered.tensor_descriptors.back();
}

const Descriptor &Lowering::internal_scalar(double value, fe_data_type type, size_t rank) {
    InternalScalar scalar;
    scalar.uid = state_.lowered.next_internal_uid++;
    encode_scalar(value, type, scalar.bytes);
    state_.lowered.internal_scalars.push_back(scalar);
    std::vector<int64_t> ones(rank < 3 ? 3 : rank, 1);
    state_.lowered.tensor_descriptors.push_back(
        make_tensor_descriptor(state_.lowered.tensor_table, ones, ones, type, scalar.uid, false, true, format("constant %g", value)));
    return state_.lowered.tensor_descriptors.back();
}

const Descriptor &Lowering::workspace_tensor(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides,
                                             fe_data_type type, bool zero_before_run,
                                             const Descriptor *ragged_offset, int64_t bytes) {
    WorkspaceTensor t;
    t.uid = state_.lowered.next_internal_uid++;
    t.bytes = ragged_offset ? bytes : span_bytes(dims, strides, type);
    t.offset = state_.executable.workspace_tensor_bytes;
    t.zero_before_run = zero_before_run;
    state_.executable.workspace_tensor_bytes += (t.bytes + 255) / 256 * 256;
    state_.executable.workspace_tensors.push_back(t);
    state_.lowered.tensor_descriptors.push_back(
        make_tensor_descriptor(state_.lowered.tensor_table, dims, strides, type, t.uid, false, false,
                               "workspace tensor #" + std::to_string(t.uid), ragged_offset));
    return state_.lowered.tensor_descriptors.back();
}

const Descriptor &Lowering::slice_view(const fe_tensor *view, const fe_tensor *source, int64_t byte_offset) {
    FE_CHECK(!state_.lowered.tensor_index.count(view), FE_STATUS_INTERNAL, "'%s' was lowered twice", view->name.c_str());
    std::vector<int64_t> dims, strides;
    lowered_shape(view, &dims, &strides);
    // The slice is as aligned as the input's buffer only as far as its offset allows.
    int64_t alignment = source->alignment;
    while (byte_offset % alignment != 0) alignment /= 2;
    Descriptor d = make_tensor_descriptor(state_.lowered.tensor_table, dims, strides, view->data_type, view->uid, false, false, view->name, nullptr,
                                          alignment);
    SliceView v;
    v.uid = view->uid;
    v.source_uid = source->uid;
    v.byte_offset = byte_offset;
    state_.executable.slice_views.push_back(v);
    state_.lowered.tensor_index[view] = state_.lowered.tensor_descriptors.size();
    state_.lowered.tensor_descriptors.push_back(std::move(d));
    return state_.lowered.tensor_descriptors.back();
}

const Descriptor *Lowering::unread_alias(const fe_tensor *like, const fe_tensor *bound) {
    if (bound->is_virtual() || bound->by_value) return nullptr;
    std::vector<int64_t> dims, strides;
    lowered_shape(like, &dims, &strides);
    SliceView v;
    v.uid = state_.lowered.next_internal_uid++;
    v.source_uid = bound->uid;
    state_.executable.slice_views.push_back(v);
    state_.lowered.tensor_descriptors.push_back(make_tensor_descriptor(state_.lowered.tensor_table, dims, strides, like->data_type, v.uid, false, false,
                                                               "alias of '" + bound->name + "'"));
    return &state_.lowered.tensor_descriptors.back();
}

void Lowering::finalize_and_add(Descriptor operation, const std::string &what) {
    operation.finalize(what.c_str(), FE_STATUS_NOT_SUPPORTED);
    state_.lowered.operations.push_back(std::move(operation));
}

void Lowering::add_operation(cudnnBackendDescriptorType_t type, std::initializer_list<DescriptorAttribute> attributes,
                             const std::string &what) {
    Descriptor operation(type);
    for (const DescriptorAttribute &a : attributes) operation.set_desc(a.name, a.value, a.label);
    finalize_and_add(std::move(operation), what);
}

void set_scaling(Descriptor &op, cudnnBackendAttributeName_t name, fe_data_type compute, double value,
                 const char *label) {
    if (compute == FE_DATA_DOUBLE) {
        op.set(name, CUDNN_TYPE_DOUBLE, 1, &value, label);
    } else {
        float f = static_cast<float>(value);
        op.set(name, CUDNN_TYPE_FLOAT, 1, &f, label);
    }
}

}  // namespace fe
