// Readers of matmul and matmul_fp8 (neither has attributes).
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

fe_matmul_options matmul_options(OpReader &r) {
    fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
    o.name = r.name();
    o.compute_data_type = r.compute_data_type();
    return o;
}

void read_matmul(OpReader &r) {
    fe_matmul_options o = matmul_options(r);
    fe_tensor *a = r.input("A"), *b = r.input("B"), *c = nullptr;
    r.check(fe_graph_matmul(r.graph(), a, b, &o, &c));
}

void read_matmul_fp8(OpReader &r) {
    fe_matmul_options o = matmul_options(r);
    fe_tensor *a = r.input("A"), *b = r.input("B"), *c = nullptr, *amax = nullptr;
    fe_matmul_fp8_scales s = FE_MATMUL_FP8_SCALES_INIT;
    s.descale_a = r.input("descale_a");
    s.descale_b = r.input("descale_b");
    s.scale_c = r.input("scale_c");
    r.check(fe_graph_matmul_fp8(r.graph(), a, b, &s, &o, &c, &amax));
}

}  // namespace

void register_matmul_readers(ReaderTable &table) {
    table.add("matmul", read_matmul);
    table.add("matmul_fp8", read_matmul_fp8);
}

}  // namespace fe
