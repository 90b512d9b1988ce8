#include "graph/node.hpp"

#include "common/error.hpp"

namespace fe {

const char *Node::input_port(size_t index) const {
    static const char *names[] = {"IN_0", "IN_1", "IN_2", "IN_3"};
    return index < 4 ? names[index] : "IN";
}

void Node::write_attributes(AttributeWriter &) const {
    FE_FAIL(FE_STATUS_NOT_SUPPORTED, "operation '%s' (%s) has no JSON form", name.c_str(), kind());
}

void assign_inferred_shape(fe_tensor *tensor, const std::vector<int64_t> &dims,
                           const std::vector<int64_t> &layout_like) {
    if (tensor->user_dims) {
        FE_CHECK(tensor->dims == dims, FE_STATUS_VALIDATION,
                 "'%s' was given dims %s but the operation produces %s", tensor->name.c_str(),
                 dims_string(tensor->dims).c_str(), dims_string(dims).c_str());
    } else {
        tensor->dims = dims;
    }
    if (tensor->user_strides) {
        FE_CHECK(tensor->strides.size() == dims.size(), FE_STATUS_VALIDATION,
                 "'%s' was given %zu strides for %zu dims", tensor->name.c_str(),
                 tensor->strides.size(), dims.size());
    } else {
        tensor->strides = strides_in_order_of(dims, layout_like);
    }
}

}  // namespace fe
