// Every op kind the graph JSON reads, by the name Node::kind() writes: each is read from its
// description (read_described_op).
#include "schema/schema.hpp"
#include "serial/readers/readers.hpp"

namespace fe {

OpReadFunction find_op_reader(const std::string &kind) {
    const schema::Op *op = schema::find_op(kind);
    return op && op->add ? read_described_op : nullptr;
}

}  // namespace fe
