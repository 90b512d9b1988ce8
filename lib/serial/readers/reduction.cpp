// Readers of reduction and softmax.
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

void read_reduction(OpReader &r) {
    static const char *const names[] = {"add", "mul", "min", "max", "amax", "avg", "norm1", "norm2"};
    static const int values[] = {FE_REDUCTION_ADD,  FE_REDUCTION_MUL, FE_REDUCTION_MIN,   FE_REDUCTION_MAX,
                                 FE_REDUCTION_AMAX, FE_REDUCTION_AVG, FE_REDUCTION_NORM1, FE_REDUCTION_NORM2};
    if (!r.has("mode")) r.fail("mode", "missing (a reduction needs its mode)");
    fe_reduction_mode mode = static_cast<fe_reduction_mode>(r.choice("mode", names, values, 8, 0));
    fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
    o.name = r.name();
    o.compute_data_type = r.compute_data_type();
    std::vector<int64_t> axes;
    if (!r.integers("reduce_axes", &axes, 32)) r.fail("reduce_axes", "missing (the dims to reduce)");
    for (int64_t a : axes) {
        if (a < 0 || a >= 32) r.fail("reduce_axes", format("dim %lld is not in 0..31", static_cast<long long>(a)));
        if (o.reduce_axes & (1u << a)) r.fail("reduce_axes", format("dim %lld is listed twice", static_cast<long long>(a)));
        o.reduce_axes |= 1u << a;
    }
    fe_tensor *x = r.input("X"), *y = nullptr;
    r.check(fe_graph_reduction(r.graph(), x, mode, &o, &y));
}

void read_softmax(OpReader &r) {
    fe_softmax_options o = FE_SOFTMAX_OPTIONS_INIT;
    o.name = r.name();
    o.compute_data_type = r.compute_data_type();
    o.generate_stats = r.flag("generate_stats", false);
    fe_tensor *x = r.input("X"), *y = nullptr, *stats = nullptr;
    r.check(fe_graph_softmax(r.graph(), x, &o, &y, &stats));
}

}  // namespace

void register_reduction_readers(ReaderTable &table) {
    table.add("reduction", read_reduction);
    table.add("softmax", read_softmax);
}

}  // namespace fe
