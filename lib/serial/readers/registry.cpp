// Every op kind the graph JSON reads, by the name Node::kind() writes.
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

ReaderTable make_table() {
    ReaderTable table;
    register_conv_readers(table);
    register_matmul_readers(table);
    register_pointwise_readers(table);
    register_reduction_readers(table);
    register_norm_readers(table);
    register_attention_readers(table);
    register_rng_readers(table);
    register_block_scale_readers(table);
    register_layout_readers(table);
    return table;
}

}  // namespace

OpReadFunction find_op_reader(const std::string &kind) {
    static const ReaderTable table = make_table();
    return table.find(kind);
}

}  // namespace fe
