#include "plan/lowering.hpp"

#include <cstring>

#include "common/error.hpp"
#include "common/half.hpp"

namespace fe {

Lowering::Lowering(fe_graph &graph, BuildState &state) : graph_(graph), state_(state) {
    for (const auto &node : graph.nodes) lift_rank3_ = lift_rank3_ || node->wants_rank3_lift();
}

void Lowering::lowered_shape(const fe_tensor *t, std::vector<int64_t> *dims,
                             std::vector<int64_t> *strides) const {
    *dims = t->dims;
    *strides = t->strides;
    if (lift_rank3_ && dims->size() == 3) {
        // [N, C, W] -> [N, C, 1, W]; the unit dim's stride spans the dim after it.
        int64_t s = (*dims)[2] * (*strides)[2];
        dims->insert(dims->begin() + 2, 1);
        strides->insert(strides->begin() + 2, s);
    }
    while (dims->size() < 3) {
        // cuDNN's matmul and fusion engines want a batch dimension: prepend unit dims.
        int64_t s = (*dims)[0] * (*strides)[0];
        dims->insert(dims->begin(), 1);
        strides->insert(strides->begin(), s);
    }
}

static void encode_scalar(fe_tensor *t) {
    std::memset(t->scalar_bytes, 0, sizeof t->scalar_bytes);
    switch (t->data_type) {
        case FE_DATA_FLOAT: {
            float v = static_cast<float>(t->scalar_value);
            std::memcpy(t->scalar_bytes, &v, sizeof v);
            break;
        }
        case FE_DATA_DOUBLE: std::memcpy(t->scalar_bytes, &t->scalar_value, sizeof(double)); break;
        case FE_DATA_HALF: {
            uint16_t v = float_to_half(static_cast<float>(t->scalar_value));
            std::memcpy(t->scalar_bytes, &v, sizeof v);
            break;
        }
        case FE_DATA_BFLOAT16: {
            uint16_t v = float_to_bfloat16(static_cast<float>(t->scalar_value));
            std::memcpy(t->scalar_bytes, &v, sizeof v);
            break;
        }
        case FE_DATA_INT32: {
            int32_t v = static_cast<int32_t>(t->scalar_value);
            std::memcpy(t->scalar_bytes, &v, sizeof v);
            break;
        }
        case FE_DATA_INT64: {
            int64_t v = static_cast<int64_t>(t->scalar_value);
            std::memcpy(t->scalar_bytes, &v, sizeof v);
            break;
        }
        default: FE_FAIL(FE_STATUS_INTERNAL, "scalar '%s' has unsupported type", t->name.c_str());
    }
}

const Descriptor &Lowering::tensor(const fe_tensor *t) {
    auto found = state_.tensor_index.find(t);
    if (found != state_.tensor_index.end()) return state_.tensor_descriptors[found->second];
    std::vector<int64_t> dims, strides;
    lowered_shape(t, &dims, &strides);
    Descriptor d(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    d.set_data_type(CUDNN_ATTR_TENSOR_DATA_TYPE, t->data_type, "CUDNN_ATTR_TENSOR_DATA_TYPE");
    d.set_int64s(CUDNN_ATTR_TENSOR_DIMENSIONS, dims, "CUDNN_ATTR_TENSOR_DIMENSIONS");
    d.set_int64s(CUDNN_ATTR_TENSOR_STRIDES, strides, "CUDNN_ATTR_TENSOR_STRIDES");
    d.set_int64(CUDNN_ATTR_TENSOR_UNIQUE_ID, t->uid, "CUDNN_ATTR_TENSOR_UNIQUE_ID");
    d.set_int64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 16, "CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT");
    bool is_virtual = t->is_virtual();
    d.set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual, "CUDNN_ATTR_TENSOR_IS_VIRTUAL");
    if (t->by_value) {
        bool by_value = true;
        d.set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value, "CUDNN_ATTR_TENSOR_IS_BY_VALUE");
        encode_scalar(const_cast<fe_tensor *>(t));
    }
    std::string what = "finalizing the tensor descriptor of '" + t->name + "'";
    d.finalize(what.c_str(), FE_STATUS_NOT_SUPPORTED);
    state_.tensor_index[t] = state_.tensor_descriptors.size();
    state_.tensor_descriptors.push_back(std::move(d));
    return state_.tensor_descriptors.back();
}

const Descriptor &Lowering::keep(Descriptor descriptor) {
    state_.attribute_descriptors.push_back(std::move(descriptor));
    return state_.attribute_descriptors.back();
}

void Lowering::add_operation(Descriptor operation) { state_.operations.push_back(std::move(operation)); }

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
