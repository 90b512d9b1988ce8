// Readers of resampling (forward and backward) and the layout operations: transpose, reshape,
// slice, concatenate.
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

void read_spatial(OpReader &r, const char *key, int64_t *out, size_t n, bool required) {
    std::vector<int64_t> values;
    if (!r.integers(key, &values, FE_MAX_SPATIAL_DIMS)) {
        if (required) r.fail(key, "missing");
        return;
    }
    if (values.size() != n) r.fail(key, format("has %zu values for %zu spatial dims", values.size(), n));
    for (size_t i = 0; i < n; ++i) out[i] = values[i];
}

fe_resample_options read_resample_options(OpReader &r) {
    static const char *const modes[] = {"maxpool", "avgpool_include_padding", "avgpool_exclude_padding", "nearest",
                                        "bilinear"};
    static const int mode_values[] = {FE_RESAMPLE_MAXPOOL, FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING,
                                      FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING, FE_RESAMPLE_NEAREST,
                                      FE_RESAMPLE_BILINEAR};
    static const char *const paddings[] = {"auto", "zero", "neg_inf", "edge"};
    static const int padding_values[] = {FE_RESAMPLE_PADDING_AUTO, FE_RESAMPLE_PADDING_ZERO,
                                         FE_RESAMPLE_PADDING_NEG_INF, FE_RESAMPLE_PADDING_EDGE};
    fe_resample_options o = FE_RESAMPLE_OPTIONS_INIT;
    o.name = r.name();
    o.compute_data_type = r.compute_data_type();
    if (!r.has("mode")) r.fail("mode", "missing (resampling needs its mode)");
    o.mode = static_cast<fe_resample_mode>(r.choice("mode", modes, mode_values, 5, 0));
    o.padding_mode = static_cast<fe_resample_padding>(r.choice("padding_mode", paddings, padding_values, 4, 0));
    std::vector<int64_t> stride;
    if (!r.integers("stride", &stride, FE_MAX_SPATIAL_DIMS)) r.fail("stride", "missing");
    size_t n = stride.size();
    for (size_t i = 0; i < n; ++i) o.stride[i] = stride[i];
    read_spatial(r, "window", o.window, n, true);
    read_spatial(r, "pre_padding", o.pre_padding, n, false);
    read_spatial(r, "post_padding", o.post_padding, n, false);
    o.generate_index = r.flag("generate_index", false);
    o.index_data_type = r.data_type("index_data_type", FE_DATA_INT8);
    return o;
}

void read_resample(OpReader &r) {
    fe_resample_options o = read_resample_options(r);
    fe_tensor *x = r.input("X"), *y = nullptr, *index = nullptr;
    r.check(fe_graph_resample(r.graph(), x, &o, &y, &index));
}

void read_resample_backward(OpReader &r) {
    fe_resample_options o = read_resample_options(r);
    std::vector<int64_t> dx_dims;
    if (!r.integers("dx_dims", &dx_dims, FE_MAX_DIMS)) r.fail("dx_dims", "missing");
    fe_tensor *dy = r.input("DY"), *x = r.optional_input("X"), *y = r.optional_input("Y");
    fe_tensor *index = r.optional_input("Index"), *dx = nullptr;
    r.check(fe_graph_resample_backward(r.graph(), dy, x, y, index, dx_dims.size(), dx_dims.data(), &o, &dx));
}

void read_transpose(OpReader &r) {
    r.no_compute_data_type();
    std::vector<int64_t> perm;
    if (!r.integers("perm", &perm, FE_MAX_DIMS)) r.fail("perm", "missing (the order of x's dims)");
    fe_tensor *x = r.input("X"), *y = nullptr;
    fe_transpose_options o = FE_TRANSPOSE_OPTIONS_INIT;
    o.name = r.name();
    r.check(fe_graph_transpose(r.graph(), x, perm.size(), perm.data(), &o, &y));
}

void read_reshape(OpReader &r) {
    r.no_compute_data_type();
    std::vector<int64_t> dims;
    if (!r.integers("dims", &dims, FE_MAX_DIMS)) r.fail("dims", "missing (the result's dims)");
    fe_tensor *x = r.input("X"), *y = nullptr;
    fe_reshape_options o = FE_RESHAPE_OPTIONS_INIT;
    o.name = r.name();
    r.check(fe_graph_reshape(r.graph(), x, dims.size(), dims.data(), &o, &y));
}

void read_slice(OpReader &r) {
    r.no_compute_data_type();
    std::vector<int64_t> start, end;
    if (!r.integers("start", &start, FE_MAX_DIMS)) r.fail("start", "missing (the first index of each dim)");
    if (!r.integers("end", &end, FE_MAX_DIMS)) r.fail("end", "missing (the end of each dim, exclusive)");
    if (start.size() != end.size())
        r.fail("end", "has " + std::to_string(end.size()) + " entries, start " + std::to_string(start.size()));
    fe_tensor *x = r.input("X"), *y = nullptr;
    fe_slice_options o = FE_SLICE_OPTIONS_INIT;
    o.name = r.name();
    r.check(fe_graph_slice(r.graph(), x, start.size(), start.data(), end.data(), &o, &y));
}

void read_concatenate(OpReader &r) {
    r.no_compute_data_type();
    if (!r.has("axis")) r.fail("axis", "missing (the dim the inputs are joined along)");
    int64_t axis = r.integer("axis", 0);
    int64_t in_place_index = r.integer("in_place_index", -1);
    std::vector<fe_tensor *> xs;
    for (size_t i = 0; i < 64; ++i) {  // X0, X1, ... up to the first absent port
        std::string port = "X" + std::to_string(i);
        fe_tensor *x = i < 2 ? r.input(port.c_str()) : r.optional_input(port.c_str());
        if (!x) break;
        xs.push_back(x);
    }
    fe_tensor *y = nullptr;
    fe_concatenate_options o = FE_CONCATENATE_OPTIONS_INIT;
    o.name = r.name();
    o.in_place_index = in_place_index;
    r.check(fe_graph_concatenate(r.graph(), xs.size(), xs.data(), axis, &o, &y));
}

}  // namespace

void register_layout_readers(ReaderTable &table) {
    table.add("resample", read_resample);
    table.add("resample_backward", read_resample_backward);
    table.add("transpose", read_transpose);
    table.add("reshape", read_reshape);
    table.add("slice", read_slice);
    table.add("concatenate", read_concatenate);
}

}  // namespace fe
