// Readers of rng and the block-scale quantize / dequantize.
#include "ops/graph_ops.hpp"
#include "serial/option_codec.hpp"
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

void read_rng(OpReader &r) {
    if (!r.has("dims")) r.fail("dims", "missing (the drawn tensor's dims)");
    fe_rng_options o = FE_RNG_OPTIONS_INIT;
    read_option_fields(r, op_schema("rng"), &o);
    fe_tensor *seed = r.input("Seed"), *offset = r.input("Offset");
    r.add([&](fe_graph &g) { add_rng(g, seed, offset, o); });
}

fe_block_scale_options block_options(OpReader &r) {
    fe_block_scale_options o = FE_BLOCK_SCALE_OPTIONS_INIT;
    read_option_fields(r, op_schema(r.kind().c_str()), &o);
    return o;
}

void read_block_scale_quantize(OpReader &r) {
    fe_block_scale_options o = block_options(r);
    fe_tensor *x = r.input("X");
    r.add([&](fe_graph &g) { add_block_scale_quantize(g, x, o); });
}

void read_block_scale_dequantize(OpReader &r) {
    fe_block_scale_options o = block_options(r);
    fe_tensor *x = r.input("X"), *scale = r.input("Scale");
    r.add([&](fe_graph &g) { add_block_scale_dequantize(g, x, scale, o); });
}

}  // namespace

void register_rng_readers(ReaderTable &table) { table.add("rng", read_rng); }

void register_block_scale_readers(ReaderTable &table) {
    table.add("block_scale_quantize", read_block_scale_quantize);
    table.add("block_scale_dequantize", read_block_scale_dequantize);
}

}  // namespace fe
