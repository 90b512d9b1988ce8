// Readers of matmul and matmul_fp8 (neither has attributes).
#include "ops/graph_ops.hpp"
#include "serial/option_codec.hpp"
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

fe_matmul_options matmul_options(OpReader &r) {
    fe_matmul_options o = FE_MATMUL_OPTIONS_INIT;
    read_option_fields(r, op_schema(r.kind().c_str()), &o);
    return o;
}

void read_matmul(OpReader &r) {
    fe_matmul_options o = matmul_options(r);
    fe_tensor *a = r.input("A"), *b = r.input("B");
    r.add([&](fe_graph &g) { add_matmul(g, a, b, o); });
}

void read_matmul_fp8(OpReader &r) {
    fe_matmul_options o = matmul_options(r);
    fe_tensor *a = r.input("A"), *b = r.input("B");
    fe_matmul_fp8_scales s = FE_MATMUL_FP8_SCALES_INIT;
    s.descale_a = r.input("descale_a");
    s.descale_b = r.input("descale_b");
    s.scale_c = r.input("scale_c");
    r.add([&](fe_graph &g) { add_matmul_fp8(g, a, b, s, o); });
}

}  // namespace

void register_matmul_readers(ReaderTable &table) {
    table.add("matmul", read_matmul);
    table.add("matmul_fp8", read_matmul_fp8);
}

}  // namespace fe
