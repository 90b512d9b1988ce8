// include/cudnnfe.h, section "Convolutions" (copied there by scripts/schema/generate_header.py):
// typedef struct fe_conv_options {
//     uint32_t struct_size;
//     const char *name;                        /* nullable */
//     size_t spatial_dims;                     /* 0: taken from the image's rank */
//     int64_t pre_padding[FE_MAX_SPATIAL_DIMS];  /* per spatial dim, default 0 */
//     int64_t post_padding[FE_MAX_SPATIAL_DIMS]; /* default 0 */
//     int64_t stride[FE_MAX_SPATIAL_DIMS];       /* default 1 */
//     int64_t dilation[FE_MAX_SPATIAL_DIMS];     /* default 1 */
//     fe_conv_mode mode;                         /* default cross-correlation */
//     fe_data_type compute_data_type;            /* default: the graph's */
//     /* Grouped convolution: the channels split into `groups` groups that are convolved
//      * separately; the weight is [K, C / groups, filter...] and groups divide both C and K.
//      * Depthwise: groups = C. Default 1. */
//     int64_t groups;
//     /* fe_graph_conv_transpose only: extra result size on the far side of each spatial dim,
//      * below the stride (picks one of the sizes a strided convolution maps to the same input).
//      * Default 0. */
//     int64_t output_padding[FE_MAX_SPATIAL_DIMS];
// } fe_conv_options;
// #define FE_CONV_OPTIONS_INIT
//     { (uint32_t)sizeof(fe_conv_options), NULL, 0, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1},
//       FE_CONV_MODE_CROSS_CORRELATION, FE_DATA_NOT_SET, 1, {0, 0, 0} }
// /* The setters take either one value, which applies to every spatial dim whatever the image's
//  * rank (as PyTorch reads `padding=1`), or one value per spatial dim (n = 2 or 3), which also fixes
//  * options->spatial_dims to n: a setter given another count of 2 or more, or an image of another
//  * rank, is refused rather than leaving the other dims at their defaults. Any other n is refused.
//  * The Java, C# and Go bindings go through these setters, so the rule is the same everywhere. */
// /** Pre and post padding alike. */
// FE_API fe_status fe_conv_options_set_padding(fe_conv_options *options, size_t n,
//                                              const int64_t *padding);
// /** Padding before each spatial dim only. */
// FE_API fe_status fe_conv_options_set_pre_padding(fe_conv_options *options, size_t n,
//                                                  const int64_t *padding);
// /** Padding after each spatial dim only. */
// FE_API fe_status fe_conv_options_set_post_padding(fe_conv_options *options, size_t n,
//                                                   const int64_t *padding);
// FE_API fe_status fe_conv_options_set_stride(fe_conv_options *options, size_t n,
//                                             const int64_t *stride);
// FE_API fe_status fe_conv_options_set_dilation(fe_conv_options *options, size_t n,
//                                               const int64_t *dilation);
// /** fe_graph_conv_transpose's output_padding. */
// FE_API fe_status fe_conv_options_set_output_padding(fe_conv_options *options, size_t n,
//                                                     const int64_t *padding);

#include "ops/conv_common.hpp"

#include <cudnn_graph.h>

#include <algorithm>
#include <climits>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "graph/graph.hpp"
#include "graph/tensor.hpp"
#include "ops/no_engine_causes.hpp"
#include "plan/lowering.hpp"
#include "schema/option_fields.hpp"
#include "schema/schema.hpp"

namespace fe {

namespace {
long long ll(int64_t v) { return static_cast<long long>(v); }
}  // namespace

size_t conv_spatial_dims(size_t image_rank, const fe_conv_options &options, const ConvRoles &roles) {
    FE_CHECK(image_rank >= 3 && image_rank <= 5, FE_STATUS_INVALID_ARGUMENT,
             "%s has rank %zu; a convolution takes [N, C, spatial...] with 1 to 3 spatial dims", roles.image,
             image_rank);
    size_t n = image_rank - 2;
    FE_CHECK(options.spatial_dims == 0 || options.spatial_dims == n, FE_STATUS_INVALID_ARGUMENT,
             "options give %zu spatial dims (padding, stride, dilation) but %s has %zu", options.spatial_dims,
             roles.image, n);
    return n;
}


void reject_output_padding(const fe_conv_options &o, size_t n) {
    for (size_t i = 0; i < n; ++i)
        FE_CHECK(o.output_padding[i] == 0, FE_STATUS_INVALID_ARGUMENT,
                 "output_padding of spatial dim %zu is %lld; it applies to fe_graph_conv_transpose only", i,
                 ll(o.output_padding[i]));
}

int64_t conv_output_size(int64_t in, int64_t filter, int64_t pre, int64_t post, int64_t stride, int64_t dilation) {
    // In 128 bits: dims may come close to 2^63 (checked options stay below 2^31).
    ConvWide extent = static_cast<ConvWide>(dilation) * (filter - 1) + 1;
    ConvWide padded = static_cast<ConvWide>(in) + pre + post;
    if (padded < extent) return -1;
    ConvWide size = (padded - extent) / stride + 1;
    return size > INT64_MAX ? -1 : static_cast<int64_t>(size);
}

std::vector<int64_t> conv_result_dims(const std::vector<int64_t> &image, const std::vector<int64_t> &weight,
                                      const fe_conv_options &o, const ConvRoles &roles) {
    size_t n = conv_spatial_dims(image.size(), o, roles);
    FE_CHECK(weight.size() == image.size(), FE_STATUS_INVALID_ARGUMENT, "%s has rank %zu, %s has rank %zu; they must match",
             roles.weight, weight.size(), roles.image, image.size());
    int64_t channels = image[1], groups = o.groups;
    // Groups first: a weight sized for the wrong grouping is best explained by the grouping.
    FE_CHECK(channels % groups == 0, FE_STATUS_INVALID_ARGUMENT, "groups (%lld) do not divide the %lld channels of %s",
             ll(groups), ll(channels), roles.image);
    FE_CHECK(weight[0] % groups == 0, FE_STATUS_INVALID_ARGUMENT,
             "groups (%lld) do not divide the %lld output channels of %s (its dim 0)", ll(groups), ll(weight[0]),
             roles.weight);
    if (groups == 1)
        FE_CHECK(weight[1] == channels, FE_STATUS_INVALID_ARGUMENT, "%s has %lld input channels, %s has %lld",
                 roles.weight, ll(weight[1]), roles.image, ll(channels));
    else
        FE_CHECK(weight[1] * groups == channels, FE_STATUS_INVALID_ARGUMENT,
                 "%s has %lld input channels per group, so %lld groups take %lld channels, but %s has %lld",
                 roles.weight, ll(weight[1]), ll(groups), ll(weight[1] * groups), roles.image, ll(channels));
    std::vector<int64_t> out = {image[0], weight[0]};
    for (size_t i = 0; i < n; ++i) {
        int64_t size = conv_output_size(image[2 + i], weight[2 + i], o.pre_padding[i], o.post_padding[i], o.stride[i],
                                        o.dilation[i]);
        FE_CHECK(size > 0, FE_STATUS_INVALID_ARGUMENT,
                 "spatial dim %zu: the dilated filter spans %lld but the padded %s has %lld", i,
                 static_cast<long long>(std::min<ConvWide>(static_cast<ConvWide>(o.dilation[i]) * (weight[2 + i] - 1) + 1, INT64_MAX)),
                 roles.image,
                 static_cast<long long>(std::min<ConvWide>(static_cast<ConvWide>(image[2 + i]) + o.pre_padding[i] + o.post_padding[i], INT64_MAX)));
        out.push_back(size);
    }
    return out;
}

std::string conv_attributes(const fe_conv_options &o, size_t n) {
    auto list = [n](const int64_t *v) { return dims_string(std::vector<int64_t>(v, v + n)); };
    std::string text = "pre_padding=" + list(o.pre_padding) + " post_padding=" + list(o.post_padding) +
                       " stride=" + list(o.stride) + " dilation=" + list(o.dilation) +
                       (o.mode == FE_CONV_MODE_CONVOLUTION ? " mode=convolution" : " mode=cross_correlation");
    if (o.groups != 1) text += format(" groups=%lld", ll(o.groups));
    return text;
}

void write_conv_attributes(AttributeWriter &out, const fe_conv_options &o, size_t n, bool transposed) {
    // The four convolutions take the same fields but output_padding, which only the transposed
    // one takes: the schema says which (conv_options_description, conv_direct_fields).
    write_option_attributes(out, op_schema(transposed ? "conv_transpose" : "conv_fprop"), &o, n);
}

const Descriptor &lower_conv_descriptor(Lowering &lowering, const fe_conv_options &o, size_t n, fe_data_type compute) {
    std::vector<int64_t> pre(o.pre_padding, o.pre_padding + n);
    std::vector<int64_t> post(o.post_padding, o.post_padding + n);
    std::vector<int64_t> stride(o.stride, o.stride + n);
    std::vector<int64_t> dilation(o.dilation, o.dilation + n);
    if (n == 1) {  // runs as 2-D with a unit height (see Lowering::lifts_rank3)
        pre.insert(pre.begin(), 0);
        post.insert(post.begin(), 0);
        stride.insert(stride.begin(), 1);
        dilation.insert(dilation.begin(), 1);
    }
    Descriptor conv(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    conv.set_data_type(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, compute, "CUDNN_ATTR_CONVOLUTION_COMP_TYPE");
    cudnnConvolutionMode_t mode = o.mode == FE_CONV_MODE_CONVOLUTION ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
    conv.set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode, "CUDNN_ATTR_CONVOLUTION_CONV_MODE");
    conv.set_int64(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, static_cast<int64_t>(pre.size()),
                   "CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS");
    conv.set_int64s(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, pre, "CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS");
    conv.set_int64s(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, post, "CUDNN_ATTR_CONVOLUTION_POST_PADDINGS");
    conv.set_int64s(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, stride, "CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES");
    conv.set_int64s(CUDNN_ATTR_CONVOLUTION_DILATIONS, dilation, "CUDNN_ATTR_CONVOLUTION_DILATIONS");
    return lowering.finalize_and_keep(std::move(conv), "finalizing the convolution descriptor");
}

void add_conv_operation(Lowering &lowering, const ConvDirection &d, const fe_conv_options &options, size_t spatial,
                        fe_data_type compute, const std::array<const fe_tensor *, 3> &tensors, const std::string &what) {
    const Descriptor &conv = lower_conv_descriptor(lowering, options, spatial, compute);
    Descriptor op(d.type);
    for (size_t i = 0; i < tensors.size(); ++i)
        op.set_desc(d.tensors[i], lowering.tensor(tensors[i]), d.tensor_labels[i]);
    std::string label = std::string(d.label) + " descriptor";
    op.set_desc(d.conv, conv, label.c_str());
    label = std::string(d.label) + " alpha";
    set_scaling(op, d.alpha, compute, 1.0, label.c_str());
    label = std::string(d.label) + " beta";
    set_scaling(op, d.beta, compute, 0.0, label.c_str());
    lowering.finalize_and_add(std::move(op), "finalizing " + what);
}

void refuse_known_bad_fusion_layouts(Lowering &lowering, const fe_tensor *image, const fe_tensor *result) {
    const fe_graph &graph = lowering.graph();
    if (graph.nodes.size() < 2) return;
    const size_t rank = image->dims.size();
    int expected = image_layout_class(image, rank);
    if (expected == 0 && (image->data_type == FE_DATA_HALF || image->data_type == FE_DATA_BFLOAT16) &&
        result->dims.size() == rank && single_pixel(result->dims, false))
        lowering.require(Feature::conv_fusion_nchw_pixel);
    for (const auto &t : graph.tensors) {
        if (t->is_virtual()) continue;
        int c = image_layout_class(t.get(), rank);
        if (c < 0) continue;
        if (expected < 0) expected = c;
        if (c != expected) {
            lowering.require(Feature::conv_fusion_mixed_layouts);
            return;
        }
    }
}

std::string conv_unsupported_hint(const fe_tensor *image, const fe_tensor *other, const fe_tensor *result,
                                  const fe_conv_options &options, size_t spatial, bool dgrad, bool wgrad) {
    const fe_graph &graph = *result->graph;
    std::vector<const fe_tensor *> bound;
    for (const auto &t : graph.tensors)
        if (!t->is_virtual() && !t->by_value) bound.push_back(t.get());
    std::optional<Feature> cause = conv_no_engine_cause(image, other, result, options, spatial, dgrad, wgrad, bound,
                                                        graph.nodes.size() > 1, image->producer != nullptr);
    return cause ? explanation(*cause, cudnn().cudnnGetVersion()) : std::string();
}

const schema::Struct &conv_options_description() {
    static const schema::Enum mode{"fe_conv_mode",
                     {{"FE_CONV_MODE_CROSS_CORRELATION", "cross_correlation", FE_CONV_MODE_CROSS_CORRELATION,
                       "The default, as in deep-learning frameworks: the filter is not flipped."},
                      {"FE_CONV_MODE_CONVOLUTION", "convolution", FE_CONV_MODE_CONVOLUTION}},
                     "Whether the filter is flipped (convolution) or not (cross-correlation, as in frameworks)."};
    static const schema::Struct description = FE_SCHEMA_OPTIONS(fe_conv_options, FE_CONV_OPTIONS_INIT,
        "A convolution's geometry, per spatial dim (1 to 3).",
        FE_SCHEMA_NAME_FIELD(fe_conv_options),
        FE_SCHEMA_FIELD(fe_conv_options, spatial_dims, spatial_count,
            "How many spatial dims the arrays give; 0: the image's rank - 2."),
        FE_SCHEMA_RANGE(fe_conv_options, pre_padding, spatial_array, 0, 2147483647, "Padding before each spatial dim."),
        FE_SCHEMA_RANGE(fe_conv_options, post_padding, spatial_array, 0, 2147483647, "Padding after each spatial dim."),
        FE_SCHEMA_RANGE(fe_conv_options, stride, spatial_array, 1, 2147483647, "Stride of each spatial dim."),
        FE_SCHEMA_RANGE(fe_conv_options, dilation, spatial_array, 1, 2147483647, "Dilation of each spatial dim."),
        FE_SCHEMA_ENUM(fe_conv_options, mode, mode, "Cross-correlation (the default) or convolution."),
        FE_SCHEMA_COMPUTE_FIELD(fe_conv_options),
        FE_SCHEMA_RANGE(fe_conv_options, groups, integer, 1, 2147483647,
            "Grouped convolution: the channels split into this many groups (depthwise: C)."),
        FE_SCHEMA_RANGE(fe_conv_options, output_padding, spatial_array, 0, 2147483647,
            "Transposed convolution only: extra result size on the far side of each spatial dim."));
    return description;
}

const std::vector<const char *> &conv_direct_fields() {
    static const std::vector<const char *> fields = {"name",     "spatial_dims", "pre_padding",       "post_padding",
                                                 "stride",   "dilation",     "mode",              "compute_data_type",
                                                 "groups"};
    return fields;
}

void check_conv_dims(const std::vector<int64_t> &dims, const char *what) {
    FE_CHECK(dims.size() >= 3 && dims.size() <= 5, FE_STATUS_INVALID_ARGUMENT,
             "%s has %zu dims; a convolution's tensors have 3 to 5 ([N, C, spatial...])", what, dims.size());
    for (size_t i = 0; i < dims.size(); ++i)
        FE_CHECK(dims[i] > 0, FE_STATUS_INVALID_ARGUMENT, "%s[%zu] is %lld; dims must be positive", what, i,
                 static_cast<long long>(dims[i]));
}

}  // namespace fe
