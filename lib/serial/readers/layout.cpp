// Readers of resampling (forward and backward), slice and concatenate: what their descriptions
// cannot say (attributes a written graph always has, start and end of one length, X0, X1, ...).
#include "ops/graph_ops.hpp"
#include "schema/option_fields.hpp"
#include "serial/option_reader.hpp"
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

// Resampling's options as the schema lists them (lib/ops/resample.cpp); the mode, the
// window and the stride are always written, so a graph without them was not written by cudnnfe.
fe_resample_options read_resample_options(OpReader &r) {
    for (const char *key : {"mode", "window", "stride"})
        if (!r.has(key)) r.fail(key, "missing (resampling needs it)");
    fe_resample_options o = FE_RESAMPLE_OPTIONS_INIT;
    read_option_fields(r, op_schema(r.kind().c_str()), &o);
    return o;
}

void read_resample(OpReader &r) {
    fe_resample_options o = read_resample_options(r);
    fe_tensor *x = r.input("X");
    r.add([&](fe_graph &g) { add_resample(g, x, o); });
}

void read_resample_backward(OpReader &r) {
    fe_resample_options o = read_resample_options(r);
    std::vector<int64_t> dx_dims;
    if (!r.integers("dx_dims", &dx_dims, FE_MAX_DIMS)) r.fail("dx_dims", "missing");
    fe_tensor *dy = r.input("DY"), *x = r.optional_input("X"), *y = r.optional_input("Y");
    fe_tensor *index = r.optional_input("Index");
    r.add([&](fe_graph &g) { add_resample_backward(g, dy, x, y, index, dx_dims, o); });
}

void read_slice(OpReader &r) {
    std::vector<int64_t> start, end;
    if (!r.integers("start", &start, FE_MAX_DIMS)) r.fail("start", "missing (the first index of each dim)");
    if (!r.integers("end", &end, FE_MAX_DIMS)) r.fail("end", "missing (the end of each dim, exclusive)");
    if (start.size() != end.size())
        r.fail("end", "has " + std::to_string(end.size()) + " entries, start " + std::to_string(start.size()));
    fe_tensor *x = r.input("X");
    fe_slice_options o = FE_SLICE_OPTIONS_INIT;
    read_option_fields(r, op_schema("slice"), &o);
    r.add([&](fe_graph &g) { add_slice(g, x, start, end, o); });
}

void read_concatenate(OpReader &r) {
    if (!r.has("axis")) r.fail("axis", "missing (the dim the inputs are joined along)");
    int64_t axis = r.integer("axis", 0);
    std::vector<fe_tensor *> xs;
    for (size_t i = 0; i < 64; ++i) {  // X0, X1, ... up to the first absent port
        std::string port = "X" + std::to_string(i);
        fe_tensor *x = i < 2 ? r.input(port.c_str()) : r.optional_input(port.c_str());
        if (!x) break;
        xs.push_back(x);
    }
    fe_concatenate_options o = FE_CONCATENATE_OPTIONS_INIT;
    read_option_fields(r, op_schema("concatenate"), &o);
    r.add([&](fe_graph &g) { add_concatenate(g, xs, axis, o); });
}

}  // namespace

void register_layout_readers(ReaderTable &table) {
    table.add("resample", read_resample);
    table.add("resample_backward", read_resample_backward);
    table.add("slice", read_slice);
    table.add("concatenate", read_concatenate);
}

}  // namespace fe
