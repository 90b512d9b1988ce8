// Every op kind the graph JSON reads, by the name Node::kind() writes: a reader of its own, or
// else the reader of its description.
#include "schema/schema.hpp"
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

ReaderTable make_table() {
    ReaderTable table;
    register_layout_readers(table);
    return table;
}

}  // namespace

OpReadFunction find_op_reader(const std::string &kind) {
    static const ReaderTable table = make_table();
    if (OpReadFunction own = table.find(kind)) return own;
    const schema::Op *op = schema::find_op(kind);
    return op && op->add ? read_described_op : nullptr;
}

}  // namespace fe
