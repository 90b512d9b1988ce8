// The reader of reduction: its mode and reduced axes are required in the JSON.
#include "ops/graph_ops.hpp"
#include "schema/option_fields.hpp"
#include "serial/option_reader.hpp"
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

void read_reduction(OpReader &r) {
    if (!r.has("mode")) r.fail("mode", "missing (a reduction needs its mode)");
    const schema::Op &op = op_schema("reduction");
    auto mode = static_cast<fe_reduction_mode>(read_enum(r, "mode", *op.params[0].enumeration, 0));
    if (!r.has("reduce_axes")) r.fail("reduce_axes", "missing (the dims to reduce)");
    fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
    read_option_fields(r, op, &o);
    fe_tensor *x = r.input("X");
    r.add([&](fe_graph &g) { add_reduction(g, x, mode, o); });
}

}  // namespace

void register_reduction_readers(ReaderTable &table) {
    table.add("reduction", read_reduction);
}

}  // namespace fe
