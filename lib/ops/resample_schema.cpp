// Descriptions of resampling and the layout operations (lib/schema/schema.hpp): resample,
// resample_backward, transpose, reshape, slice, concatenate, and fe_resample_options.
#include "ops/graph_ops.hpp"
#include "schema/schema.hpp"

namespace fe::schema {

namespace {

const fe_resample_options kDefaults = FE_RESAMPLE_OPTIONS_INIT;
const fe_transpose_options kTransposeDefaults = FE_TRANSPOSE_OPTIONS_INIT;
const fe_reshape_options kReshapeDefaults = FE_RESHAPE_OPTIONS_INIT;
const fe_slice_options kSliceDefaults = FE_SLICE_OPTIONS_INIT;
const fe_concatenate_options kConcatenateDefaults = FE_CONCATENATE_OPTIONS_INIT;

}  // namespace

// resample.cpp names modes and paddings from these (one list of names).
const Enum kResampleMode{"fe_resample_mode",
                         {{"FE_RESAMPLE_MAXPOOL", "maxpool", FE_RESAMPLE_MAXPOOL},
                          {"FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING", "avgpool_include_padding",
                           FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING},
                          {"FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING", "avgpool_exclude_padding",
                           FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING},
                          {"FE_RESAMPLE_NEAREST", "nearest", FE_RESAMPLE_NEAREST},
                          {"FE_RESAMPLE_BILINEAR", "bilinear", FE_RESAMPLE_BILINEAR}},
                         "Pooling or upsampling."};

const Enum kResamplePadding{"fe_resample_padding",
                            {{"FE_RESAMPLE_PADDING_AUTO", "auto", FE_RESAMPLE_PADDING_AUTO},
                             {"FE_RESAMPLE_PADDING_ZERO", "zero", FE_RESAMPLE_PADDING_ZERO},
                             {"FE_RESAMPLE_PADDING_NEG_INF", "neg_inf", FE_RESAMPLE_PADDING_NEG_INF},
                             {"FE_RESAMPLE_PADDING_EDGE", "edge", FE_RESAMPLE_PADDING_EDGE}},
                            "What the padding holds (auto: -infinity for max pooling, zero otherwise)."};

namespace {

const Struct kOptions{
    "fe_resample_options",
    sizeof(fe_resample_options),
    &kDefaults,
    {
        FE_SCHEMA_FIELD(fe_resample_options, name, name, "The op's name; automatic when absent."),
        FE_SCHEMA_ENUM(fe_resample_options, mode, kResampleMode, "Pooling or upsampling."),
        FE_SCHEMA_ENUM(fe_resample_options, padding_mode, kResamplePadding, "What the padding holds."),
        FE_SCHEMA_FIELD(fe_resample_options, spatial_dims, spatial_count,
                        "How many spatial dims the arrays give; 0: x's rank - 2."),
        FE_SCHEMA_RANGE(fe_resample_options, window, spatial_array, 0, 2147483647, "The window (pooling: required)."),
        FE_SCHEMA_RANGE(fe_resample_options, stride, spatial_array, 1, 2147483647, "The stride."),
        FE_SCHEMA_RANGE(fe_resample_options, pre_padding, spatial_array, 0, 2147483647, "Padding before, below the window."),
        FE_SCHEMA_RANGE(fe_resample_options, post_padding, spatial_array, 0, 2147483647, "Padding after, below the window."),
        FE_SCHEMA_FIELD(fe_resample_options, compute_data_type, data_type, "Math type; not_set: the graph's."),
        FE_SCHEMA_FIELD(fe_resample_options, generate_index, flag,
                        "Max pooling, training: also return where each maximum came from."),
        FE_SCHEMA_FIELD(fe_resample_options, index_data_type, data_type, "The index's type: int8, int32 or int64."),
    },
    "Resampling's mode, window, stride and padding."};

const Struct kTransposeOptions{
    "fe_transpose_options", sizeof(fe_transpose_options), &kTransposeDefaults,
    {FE_SCHEMA_FIELD(fe_transpose_options, name, name, "The op's name; automatic when absent.")},
    "A transpose's name."};
const Struct kReshapeOptions{
    "fe_reshape_options", sizeof(fe_reshape_options), &kReshapeDefaults,
    {FE_SCHEMA_FIELD(fe_reshape_options, name, name, "The op's name; automatic when absent.")},
    "A reshape's name."};
const Struct kSliceOptions{
    "fe_slice_options", sizeof(fe_slice_options), &kSliceDefaults,
    {FE_SCHEMA_FIELD(fe_slice_options, name, name, "The op's name; automatic when absent.")},
    "A slice's name."};
const Struct kConcatenateOptions{
    "fe_concatenate_options",
    sizeof(fe_concatenate_options),
    &kConcatenateDefaults,
    {FE_SCHEMA_FIELD(fe_concatenate_options, name, name, "The op's name; automatic when absent."),
     FE_SCHEMA_RANGE(fe_concatenate_options, in_place_index, integer, -1, ::fe::schema::kNoMaximum,
                     "The input already inside y's buffer (a cache being appended to); -1: none.")},
    "A concatenation's name and in-place input."};

const Op kResample{"resample",
                   "fe_graph_resample",
                   "Resampling and layout operations",
                   {{"X", nullptr, "[N, C, spatial...], 2 or 3 spatial dims"}},
                   {{"Y", nullptr, "[N, C, out...], laid out like x"},
                    {"Index", "generate_index", "y's dims: the maximum's position in its window"}},
                   {},
                   &kOptions,
                   {},
                   true,
                   "Max or average pooling."};

const Op kResampleBackward{"resample_backward",
                           "fe_graph_resample_backward",
                           "Resampling and layout operations",
                           {{"DY", nullptr, "y's gradient"},
                            {"X", "optional", "the forward input (gives dx's dims and layout)"},
                            {"Y", "optional", "the forward result"},
                            {"Index", "optional", "max pooling: the forward's index"}},
                           {{"DX", nullptr, "x's gradient, laid out like dy"}},
                           {{"dx_dims", Type::dims_array, nullptr, false, "x's dims; required without X."}},
                           &kOptions,
                           {"name", "mode", "padding_mode", "spatial_dims", "window", "stride", "pre_padding",
                            "post_padding", "compute_data_type", "index_data_type"},
                           true,
                           "The gradient of a pooling with the same options."};

const Op kTranspose{"transpose",
                    "fe_graph_transpose",
                    "Resampling and layout operations",
                    {{"X", nullptr, "the input"}},
                    {{"Y", nullptr, "packed row-major: y's dim k is x's dim perm[k]"}},
                    {{"perm", Type::dims_array, nullptr, true, "A permutation of x's dims."}},
                    &kTransposeOptions,
                    {},
                    false,
                    "Transpose (a copy through a permuted view)."};

const Op kReshape{"reshape",
                  "fe_graph_reshape",
                  "Resampling and layout operations",
                  {{"X", nullptr, "packed row-major"}},
                  {{"Y", nullptr, "packed row-major"}},
                  {{"dims", Type::dims_array, nullptr, true, "The result's dims, x's element count."}},
                  &kReshapeOptions,
                  {},
                  false,
                  "Reshape (cuDNN's reshape, a view inside a fused graph)."};

const Op kSlice{"slice",
                "fe_graph_slice",
                "Resampling and layout operations",
                {{"X", nullptr, "a graph input"}},
                {{"Y", nullptr, "a view of x at an offset, with x's strides"}},
                {{"start", Type::dims_array, nullptr, true, "The first index of each dim."},
                 {"end", Type::dims_array, nullptr, true, "The end (exclusive) of each dim."}},
                &kSliceOptions,
                {},
                false,
                "Slice: a view of a graph input, nothing copied."};

const Op kConcatenate{"concatenate",
                      "fe_graph_concatenate",
                      "Resampling and layout operations",
                      {{"X0", nullptr, "the first input"}, {"X1", nullptr, "the second input; X2... follow"}},
                      {{"Y", nullptr, "packed row-major unless its strides are set"}},
                      {{"axis", Type::integer, nullptr, true, "The dim along which inputs are joined."}},
                      &kConcatenateOptions,
                      {},
                      false,
                      "Concatenate two or more tensors along an axis."};

const std::vector<fe_tensor *> &add_transpose_call(fe_graph &g, const Call &c) {
    return add_transpose(g, c.inputs[0], c.params[0].dims, c.options_as<fe_transpose_options>());
}
const std::vector<fe_tensor *> &add_reshape_call(fe_graph &g, const Call &c) {
    return add_reshape(g, c.inputs[0], c.params[0].dims, c.options_as<fe_reshape_options>());
}

const Registration kRegistered[] = {Registration(kResample), Registration(kResampleBackward),
                                    Registration(kTranspose, add_transpose_call), Registration(kReshape, add_reshape_call),
                                    Registration(kSlice),     Registration(kConcatenate)};

}  // namespace

}  // namespace fe::schema
