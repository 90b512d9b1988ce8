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

}  // namespace fe
