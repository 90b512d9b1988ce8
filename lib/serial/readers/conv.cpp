// Readers of the convolutions: conv_fprop, conv_dgrad, conv_wgrad, conv_transpose.
#include <vector>

#include "serial/readers/readers.hpp"

namespace fe {

namespace {

// The attributes of write_conv_json (lib/ops/conv_common.cpp) into options for the C calls.
fe_conv_options conv_options(OpReader &r, bool transposed) {
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    o.name = r.name();
    o.compute_data_type = r.compute_data_type();
    struct Array {
        const char *key;
        int64_t *first;
        int64_t *second;
    };
    const Array arrays[] = {{"pre_padding", o.pre_padding, nullptr},
                            {"post_padding", o.post_padding, nullptr},
                            {"stride", o.stride, nullptr},
                            {"dilation", o.dilation, nullptr},
                            {"output_padding", o.output_padding, nullptr}};
    for (const Array &a : arrays) {
        if (!transposed && a.first == o.output_padding) continue;  // refused as unknown
        std::vector<int64_t> values;
        if (!r.integers(a.key, &values, FE_MAX_SPATIAL_DIMS)) continue;
        if (o.spatial_dims != 0 && values.size() != o.spatial_dims)
            r.fail(a.key, format("%zu values, but the other spatial options have %zu", values.size(), o.spatial_dims));
        o.spatial_dims = values.size();
        for (size_t i = 0; i < values.size(); ++i) a.first[i] = values[i];
    }
    static const char *const modes[] = {"cross_correlation", "convolution"};
    static const int mode_values[] = {FE_CONV_MODE_CROSS_CORRELATION, FE_CONV_MODE_CONVOLUTION};
    o.mode = static_cast<fe_conv_mode>(r.choice("mode", modes, mode_values, 2, FE_CONV_MODE_CROSS_CORRELATION));
    o.groups = r.integer("groups", 1);
    return o;
}

// dx_dims / dw_dims: the rank of a convolution's tensors.
bool result_dims(OpReader &r, const char *key, std::vector<int64_t> *dims) { return r.integers(key, dims, 5); }

void read_conv_fprop(OpReader &r) {
    fe_conv_options o = conv_options(r, false);
    fe_tensor *image = r.input("image"), *weight = r.input("weight"), *y = nullptr;
    r.check(fe_graph_conv_fprop(r.graph(), image, weight, &o, &y));
}

void read_conv_dgrad(OpReader &r) {
    fe_conv_options o = conv_options(r, false);
    fe_tensor *loss = r.input("loss"), *weight = r.input("weight"), *dx = nullptr;
    std::vector<int64_t> dims;
    if (!result_dims(r, "dx_dims", &dims)) r.fail("dx_dims", "missing (conv_dgrad needs the forward image's dims)");
    r.check(fe_graph_conv_dgrad(r.graph(), loss, weight, dims.size(), dims.data(), &o, &dx));
}

void read_conv_wgrad(OpReader &r) {
    fe_conv_options o = conv_options(r, false);
    fe_tensor *image = r.input("image"), *loss = r.input("loss"), *dw = nullptr;
    std::vector<int64_t> dims;
    bool given = result_dims(r, "dw_dims", &dims);
    r.check(fe_graph_conv_wgrad(r.graph(), image, loss, dims.size(), given ? dims.data() : nullptr, &o, &dw));
}

void read_conv_transpose(OpReader &r) {
    fe_conv_options o = conv_options(r, true);
    fe_tensor *image = r.input("image"), *weight = r.input("weight"), *y = nullptr;
    r.check(fe_graph_conv_transpose(r.graph(), image, weight, &o, &y));
}

}  // namespace

void register_conv_readers(ReaderTable &table) {
    table.add("conv_fprop", read_conv_fprop);
    table.add("conv_dgrad", read_conv_dgrad);
    table.add("conv_wgrad", read_conv_wgrad);
    table.add("conv_transpose", read_conv_transpose);
}

}  // namespace fe
