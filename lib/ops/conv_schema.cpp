// The convolutions' descriptions (lib/schema/schema.hpp): conv_fprop, conv_dgrad, conv_wgrad,
// conv_transpose and fe_conv_options.
#include "ops/graph_ops.hpp"
#include "schema/schema.hpp"

namespace fe::schema {

namespace {

const fe_conv_options kConvDefaults = FE_CONV_OPTIONS_INIT;

const Enum kConvMode{"fe_conv_mode",
                     {{"FE_CONV_MODE_CROSS_CORRELATION", "cross_correlation", FE_CONV_MODE_CROSS_CORRELATION},
                      {"FE_CONV_MODE_CONVOLUTION", "convolution", FE_CONV_MODE_CONVOLUTION}},
                     "Whether the filter is flipped (convolution) or not (cross-correlation, as in frameworks)."};

const Struct kConvOptions{
    "fe_conv_options",
    sizeof(fe_conv_options),
    &kConvDefaults,
    {
        FE_SCHEMA_FIELD(fe_conv_options, name, name, "The op's name; automatic when absent."),
        FE_SCHEMA_FIELD(fe_conv_options, spatial_dims, spatial_count,
                        "How many spatial dims the arrays give; 0: the image's rank - 2."),
        FE_SCHEMA_RANGE(fe_conv_options, pre_padding, spatial_array, 0, 2147483647, "Padding before each spatial dim."),
        FE_SCHEMA_RANGE(fe_conv_options, post_padding, spatial_array, 0, 2147483647, "Padding after each spatial dim."),
        FE_SCHEMA_RANGE(fe_conv_options, stride, spatial_array, 1, 2147483647, "Stride of each spatial dim."),
        FE_SCHEMA_RANGE(fe_conv_options, dilation, spatial_array, 1, 2147483647, "Dilation of each spatial dim."),
        FE_SCHEMA_ENUM(fe_conv_options, mode, kConvMode, "Cross-correlation (the default) or convolution."),
        FE_SCHEMA_FIELD(fe_conv_options, compute_data_type, data_type, "Math type; not_set: the graph's."),
        FE_SCHEMA_RANGE(fe_conv_options, groups, integer, 1, 2147483647,
                        "Grouped convolution: the channels split into this many groups (depthwise: C)."),
        FE_SCHEMA_RANGE(fe_conv_options, output_padding, spatial_array, 0, 2147483647,
                        "Transposed convolution only: extra result size on the far side of each spatial dim."),
    },
    "A convolution's geometry, per spatial dim (1 to 3)."};

const std::vector<const char *> kDirectFields = {"name",     "spatial_dims", "pre_padding",       "post_padding",
                                                 "stride",   "dilation",     "mode",              "compute_data_type",
                                                 "groups"};

const Op kConvFprop{"conv_fprop",
                    "fe_graph_conv_fprop",
                    "Convolutions",
                    {{"image", nullptr, "[N, C, spatial...]", {1, 8, 8, 8}},
                     {"weight", nullptr, "[K, C / groups, filter...]", {4, 8, 3, 3}}},
                    {{"Y", nullptr, "[N, K, out...], laid out like the image"}},
                    {},
                    &kConvOptions,
                    kDirectFields,
                    true,
                    "Forward convolution."};

const Op kConvDgrad{"conv_dgrad",
                    "fe_graph_conv_dgrad",
                    "Convolutions",
                    {{"loss", nullptr, "dy [N, K, out...]"}, {"weight", nullptr, "[K, C / groups, filter...]"}},
                    {{"DX", nullptr, "dx [N, C, in...], laid out like dy"}},
                    {{"dx_dims", Type::dims_array, nullptr, true, "The forward image's dims (3 to 5)."}},
                    &kConvOptions,
                    kDirectFields,
                    true,
                    "Data gradient of a forward convolution with the same options."};

const Op kConvWgrad{"conv_wgrad",
                    "fe_graph_conv_wgrad",
                    "Convolutions",
                    {{"image", nullptr, "the forward image [N, C, in...]"}, {"loss", nullptr, "dy [N, K, out...]"}},
                    {{"DW", nullptr, "dw [K, C / groups, filter...], laid out like the image"}},
                    {{"dw_dims", Type::dims_array, nullptr, false, "The weight's dims; inferred when absent."}},
                    &kConvOptions,
                    kDirectFields,
                    true,
                    "Weight gradient of a forward convolution with the same options."};

const Op kConvTranspose{"conv_transpose",
                        "fe_graph_conv_transpose",
                        "Convolutions",
                        {{"image", nullptr, "[N, C_in, in...]"}, {"weight", nullptr, "[C_in, C_out / groups, filter...]"}},
                        {{"Y", nullptr, "[N, C_out, out...], laid out like the image"}},
                        {},
                        &kConvOptions,
                        {},
                        true,
                        "Transposed convolution (upsampling), lowered as a data gradient."};

// How a call adds each convolution (the C entry points and the graph JSON reader both call).
const std::vector<fe_tensor *> &add_fprop(fe_graph &g, const Call &c) {
    return add_conv_fprop(g, c.inputs[0], c.inputs[1], c.options_as<fe_conv_options>());
}
const std::vector<fe_tensor *> &add_dgrad(fe_graph &g, const Call &c) {
    return add_conv_dgrad(g, c.inputs[0], c.inputs[1], c.params[0].dims, c.options_as<fe_conv_options>());
}
const std::vector<fe_tensor *> &add_wgrad(fe_graph &g, const Call &c) {
    return add_conv_wgrad(g, c.inputs[0], c.inputs[1], c.params[0].dims, c.options_as<fe_conv_options>());
}
const std::vector<fe_tensor *> &add_transpose(fe_graph &g, const Call &c) {
    return add_conv_transpose(g, c.inputs[0], c.inputs[1], c.options_as<fe_conv_options>());
}

const Registration kRegistered[] = {Registration(kConvFprop, add_fprop), Registration(kConvDgrad, add_dgrad), Registration(kConvWgrad, add_wgrad),
                                    Registration(kConvTranspose, add_transpose)};

}  // namespace

}  // namespace fe::schema
