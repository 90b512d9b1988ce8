// Readers of rng and the block-scale quantize / dequantize.
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

void read_rng(OpReader &r) {
    static const char *const names[] = {"bernoulli", "uniform", "normal"};
    static const int values[] = {FE_RNG_BERNOULLI, FE_RNG_UNIFORM, FE_RNG_NORMAL};
    r.no_compute_data_type();
    fe_rng_options o = FE_RNG_OPTIONS_INIT;
    o.name = r.name();
    o.distribution = static_cast<fe_rng_distribution>(r.choice("distribution", names, values, 3, FE_RNG_BERNOULLI));
    o.probability = r.number("probability", o.probability);
    o.min = r.number("min", o.min);
    o.max = r.number("max", o.max);
    o.mean = r.number("mean", o.mean);
    o.std = r.number("std", o.std);
    std::vector<int64_t> dims;
    if (!r.integers("dims", &dims, 8)) r.fail("dims", "missing (the drawn tensor's dims)");
    o.ndims = dims.size();
    for (size_t i = 0; i < dims.size(); ++i) o.dims[i] = dims[i];
    o.data_type = r.data_type("data_type", FE_DATA_NOT_SET);
    fe_tensor *seed = r.input("Seed"), *offset = r.input("Offset"), *y = nullptr;
    r.check(fe_graph_rng(r.graph(), seed, offset, &o, &y));
}

fe_block_scale_options block_options(OpReader &r) {
    fe_block_scale_options o = FE_BLOCK_SCALE_OPTIONS_INIT;
    o.name = r.name();
    o.compute_data_type = r.compute_data_type();
    o.block_size = r.int32("block_size", o.block_size);
    return o;
}

void read_block_scale_quantize(OpReader &r) {
    fe_block_scale_options o = block_options(r);
    fe_tensor *x = r.input("X"), *y = nullptr, *scale = nullptr;
    r.check(fe_graph_block_scale_quantize(r.graph(), x, &o, &y, &scale));
}

void read_block_scale_dequantize(OpReader &r) {
    fe_block_scale_options o = block_options(r);
    fe_tensor *x = r.input("X"), *scale = r.input("Scale"), *y = nullptr;
    r.check(fe_graph_block_scale_dequantize(r.graph(), x, scale, &o, &y));
}

}  // namespace

void register_rng_readers(ReaderTable &table) { table.add("rng", read_rng); }

void register_block_scale_readers(ReaderTable &table) {
    table.add("block_scale_quantize", read_block_scale_quantize);
    table.add("block_scale_dequantize", read_block_scale_dequantize);
}

}  // namespace fe
