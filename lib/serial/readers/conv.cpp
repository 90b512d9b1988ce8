// Readers of the convolutions: conv_fprop, conv_dgrad, conv_wgrad, conv_transpose.
#include <vector>

#include "ops/graph_ops.hpp"
#include "serial/option_codec.hpp"
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

// The options the convolutions take, as their schema lists them (lib/ops/conv_schema.cpp).
fe_conv_options conv_options(OpReader &r) {
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    read_option_fields(r, op_schema(r.kind().c_str()), &o);
    return o;
}

// dx_dims / dw_dims: the rank of a convolution's tensors.
bool result_dims(OpReader &r, const char *key, std::vector<int64_t> *dims) { return r.integers(key, dims, 5); }

void read_conv_fprop(OpReader &r) {
    fe_conv_options o = conv_options(r);
    fe_tensor *image = r.input("image"), *weight = r.input("weight");
    r.add([&](fe_graph &g) { add_conv_fprop(g, image, weight, o); });
}

void read_conv_dgrad(OpReader &r) {
    fe_conv_options o = conv_options(r);
    fe_tensor *loss = r.input("loss"), *weight = r.input("weight");
    std::vector<int64_t> dims;
    if (!result_dims(r, "dx_dims", &dims)) r.fail("dx_dims", "missing (conv_dgrad needs the forward image's dims)");
    r.add([&](fe_graph &g) { add_conv_dgrad(g, loss, weight, dims, o); });
}

void read_conv_wgrad(OpReader &r) {
    fe_conv_options o = conv_options(r);
    fe_tensor *image = r.input("image"), *loss = r.input("loss");
    std::vector<int64_t> dims;
    result_dims(r, "dw_dims", &dims);
    r.add([&](fe_graph &g) { add_conv_wgrad(g, image, loss, dims, o); });
}

void read_conv_transpose(OpReader &r) {
    fe_conv_options o = conv_options(r);
    fe_tensor *image = r.input("image"), *weight = r.input("weight");
    r.add([&](fe_graph &g) { add_conv_transpose(g, image, weight, o); });
}

}  // namespace

void register_conv_readers(ReaderTable &table) {
    table.add("conv_fprop", read_conv_fprop);
    table.add("conv_dgrad", read_conv_dgrad);
    table.add("conv_wgrad", read_conv_wgrad);
    table.add("conv_transpose", read_conv_transpose);
}

}  // namespace fe
