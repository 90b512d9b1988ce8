// Convolution data gradient (dy, weight -> dx), and the transposed convolution, which is the same
// operation applied forward to an image: attributes, checks, lowering.

// include/cudnnfe.h, section "Convolutions" (copied there by scripts/schema/generate_header.py):
// /** Data gradient of fe_graph_conv_fprop (backward data): dx from the loss gradient dy
//  *  [N, K, out...] and the weight [K, C / groups, filter...], with the forward pass's options.
//  *  dx_dims (dx_ndims of them) are the image's dims [N, C, in...] and are required: with a
//  *  stride above 1 several image sizes give the same dy, so dx's size cannot be inferred (the
//  *  call checks that these dims give dy). dx ("<name>::DX") is laid out like dy. */
// FE_API fe_status fe_graph_conv_dgrad(fe_graph *graph, fe_tensor *loss, fe_tensor *weight,
//                                      size_t dx_ndims, const int64_t *dx_dims,
//                                      const fe_conv_options *options, fe_tensor **out_dx);

#include <cudnn_graph.h>

#include <algorithm>
#include <climits>

#include "backend/capabilities.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "graph/tensor.hpp"
#include "ops/conv_common.hpp"
#include "ops/graph_ops.hpp"
#include "schema/schema.hpp"
#include "ops/no_engine_causes.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"

namespace fe {
namespace {

long long ll(int64_t v) { return static_cast<long long>(v); }

// dy = conv(dx, weight): the forward relation that dgrad inverts.
const ConvRoles kDgradRoles = {"dx", "weight", "dy"};
// A transposed convolution's result plays dx, and its image plays dy.
const ConvRoles kTransposeRoles = {"result", "weight", "image"};

class ConvDgrad : public Node {
  public:
    ConvDgrad(fe_tensor *loss, fe_tensor *weight, std::vector<int64_t> dx_dims, const fe_conv_options &o,
              bool transposed)
        : options_(o), dx_dims_(std::move(dx_dims)), transposed_(transposed) {
        inputs = {loss, weight};
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return transposed_ ? "conv_transpose" : "conv_dgrad"; }
    const char *input_port(size_t i) const override {
        if (i == 1) return "weight";
        return transposed_ ? "image" : "loss";
    }

    size_t spatial() const { return spatial_dims_of(inputs[0]); }
    bool wants_rank3_lift() const override { return spatial() == 1; }
    bool wants_channels_last_pixels() const override { return true; }

    void infer() override {
        const fe_tensor *dy = inputs[0], *w = inputs[1];
        const ConvRoles &roles = transposed_ ? kTransposeRoles : kDgradRoles;
        // dims the user set on dx later take the place of the ones given to the call
        const std::vector<int64_t> &dx = outputs[0]->user_dims ? outputs[0]->dims : dx_dims_;
        FE_CHECK(dx.size() == dy->dims.size(), FE_STATUS_INVALID_ARGUMENT,
                 "%s is given %zu dims but %s has rank %zu; they must match", roles.image, dx.size(), roles.result,
                 dy->dims.size());
        std::vector<int64_t> expected = conv_result_dims(dx, w->dims, options_, roles);
        if (!transposed_) reject_output_padding(options_, spatial());
        FE_CHECK(dy->dims[1] == w->dims[0], FE_STATUS_INVALID_ARGUMENT,
                 "%s has %lld channels but %s has %lld output channels (its dim 0)", roles.result, ll(dy->dims[1]),
                 roles.weight, ll(w->dims[0]));
        FE_CHECK(expected == dy->dims, FE_STATUS_INVALID_ARGUMENT,
                 "%s has dims %s, but %s %s convolved with %s %s gives %s", roles.result,
                 dims_string(dy->dims).c_str(), roles.image, dims_string(dx).c_str(), roles.weight,
                 dims_string(w->dims).c_str(), dims_string(expected).c_str());
        assign_inferred_shape(outputs[0], dx, dy->strides);
    }

    std::string attributes() const override {
        std::string text = conv_attributes(options_, spatial());
        if (transposed_) {
            size_t n = spatial();
            text += " output_padding=" +
                    dims_string(std::vector<int64_t>(options_.output_padding, options_.output_padding + n));
        }
        return text;
    }

    void write_attributes(AttributeWriter &out) const override {
        write_conv_attributes(out, options_, spatial(), transposed_);
        if (!transposed_) out.field("dx_dims", dx_dims_);  // a transposed convolution infers them
    }

    // The transposed convolution computes its result from the image inputs[0]; dgrad from dy.
    std::string unsupported_hint() const override {
        return conv_unsupported_hint(transposed_ ? inputs[0] : outputs[0], inputs[0], outputs[0], options_, spatial(),
                                     !transposed_, false);
    }

    void lower(Lowering &lowering) const override {
        refuse_known_bad_fusion_layouts(lowering, inputs[0], outputs[0]);
        // A float dx from half or bfloat16 dy where either is not channels-last: cuDNN 9.19
        // leaves dx unwritten, all or part.
        const fe_tensor *dy = inputs[0], *dx = outputs[0];
        const bool narrow_dy = dy->data_type == FE_DATA_HALF || dy->data_type == FE_DATA_BFLOAT16;
        const int dy_layout = layout_class(dy), dx_layout = layout_class(dx);
        if (dx->data_type == FE_DATA_FLOAT && narrow_dy && dy_layout >= 0 && dx_layout >= 0 &&
            !(dy_layout == 1 && dx_layout == 1))
            lowering.require(Feature::conv_dgrad_float_dx_not_channels_last);
        if (dx->data_type == FE_DATA_FLOAT && !(dy_layout == 1 && dx_layout == 1) &&
            wide_filter_padded_asymmetrically_from_the_edge())
            lowering.require(Feature::conv_dgrad_float_nchw_asymmetric_padding);
        static const ConvDirection kBackwardData{
            CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
            {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
             CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX}, {"dgrad DY", "dgrad W", "dgrad DX"},
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, "dgrad"};
        add_conv_operation(lowering, kBackwardData, options_, spatial(), lowering.compute_type(*this),
                           {inputs[0], inputs[1], outputs[0]}, std::string(kind()) + " '" + name + "'");
    }

  private:
    // A 2-D convolution, undilated, whose filter is 5 or more wide and 2 or more high, padded 0 or
    // 1 before along the width and otherwise after, with a stride of 1 along the width.
    bool wide_filter_padded_asymmetrically_from_the_edge() const {
        const fe_tensor *w = inputs[1];
        if (spatial() != 2 || w->dims.size() != 4) return false;
        if (options_.dilation[0] != 1 || options_.dilation[1] != 1 || options_.stride[1] != 1) return false;
        const int64_t pre = options_.pre_padding[1], post = options_.post_padding[1];
        return w->dims[3] >= 5 && w->dims[2] >= 2 && pre <= 1 && pre != post;
    }

    // 1: channels innermost (channels-last), 0: another layout, -1: one channel. A single pixel
    // counts as channels-last: its packed form has the channels' stride 1, and cuDNN reads it so.
    static int layout_class(const fe_tensor *t) {
        const size_t rank = t->dims.size();
        const int c = image_layout_class(t, rank);
        return c < 0 && rank >= 3 && t->strides.size() == rank && t->dims[1] > 1 ? 1 : c;
    }

    fe_conv_options options_;
    std::vector<int64_t> dx_dims_;
    bool transposed_;
};

// The result dims of a transposed convolution: the smallest image a convolution with these
// options maps onto `image`, plus the output padding (which picks a larger one of the same class).
std::vector<int64_t> transposed_result_dims(const fe_tensor *image, const fe_tensor *weight, const fe_conv_options &o) {
    const ConvRoles names = {"image", "weight", "result"};
    size_t n = conv_spatial_dims(image->dims.size(), o, names);
    FE_CHECK(weight->dims.size() == image->dims.size(), FE_STATUS_INVALID_ARGUMENT,
             "weight has rank %zu, image has rank %zu; they must match", weight->dims.size(), image->dims.size());
    FE_CHECK(image->dims[1] % o.groups == 0, FE_STATUS_INVALID_ARGUMENT,
             "groups (%lld) do not divide the %lld channels of image", ll(o.groups), ll(image->dims[1]));
    FE_CHECK(weight->dims[0] == image->dims[1], FE_STATUS_INVALID_ARGUMENT,
             "weight has %lld input channels, image has %lld (a transposed convolution's weight is "
             "[C_in, C_out / groups, filter...])",
             ll(weight->dims[0]), ll(image->dims[1]));
    ConvWide channels = static_cast<ConvWide>(weight->dims[1]) * o.groups;
    FE_CHECK(channels <= INT32_MAX, FE_STATUS_INVALID_ARGUMENT, "the result would have %lld channels",
             static_cast<long long>(std::min<ConvWide>(channels, INT64_MAX)));
    std::vector<int64_t> dims = {image->dims[0], static_cast<int64_t>(channels)};
    for (size_t i = 0; i < n; ++i) {
        int64_t extra = o.output_padding[i];
        // Below the stride the convolution of the result still gives the image back exactly.
        FE_CHECK(extra >= 0 && extra < o.stride[i], FE_STATUS_INVALID_ARGUMENT,
                 "output_padding of spatial dim %zu is %lld; it must be at least 0 and below the stride (%lld)", i,
                 ll(extra), ll(o.stride[i]));
        // In 128 bits: dims may come close to 2^63 (checked options stay below 2^31).
        ConvWide wide = static_cast<ConvWide>(image->dims[2 + i] - 1) * o.stride[i] - o.pre_padding[i] -
                        o.post_padding[i] + static_cast<ConvWide>(o.dilation[i]) * (weight->dims[2 + i] - 1) + 1 + extra;
        FE_CHECK(wide <= INT64_MAX, FE_STATUS_INVALID_ARGUMENT, "spatial dim %zu of the result exceeds 2^63", i);
        int64_t size = static_cast<int64_t>(wide);
        FE_CHECK(size > 0, FE_STATUS_INVALID_ARGUMENT,
                 "spatial dim %zu: the padding (%lld, %lld) removes more than the %lld elements the transposed "
                 "convolution produces",
                 i, ll(o.pre_padding[i]), ll(o.post_padding[i]), ll(size + o.pre_padding[i] + o.post_padding[i]));
        dims.push_back(size);
    }
    return dims;
}

const schema::Op kConvDgrad{"conv_dgrad",
                    "fe_graph_conv_dgrad",
                    "Convolutions",
                    {{"loss", nullptr, "dy [N, K, out...]"}, {"weight", nullptr, "[K, C / groups, filter...]"}},
                    {{"DX", nullptr, "dx [N, C, in...], laid out like dy"}},
                    {{"dx_dims", schema::Type::dims_array, nullptr, true,
                      "The forward image's dims (3 to 5), which dy cannot give: with a stride above 1 several "
                      "image sizes give the same dy."}},
                    &conv_options_description(),
                    conv_direct_fields(),
                    true,
                    "Data gradient of a forward convolution with the same options."};

const std::vector<fe_tensor *> &add_conv_dgrad(fe_graph &g, const schema::Call &c) {
    const auto &o = c.options_as<fe_conv_options>();
    const std::vector<int64_t> &dx_dims = c.params[0].dims;
    check_conv_dims(dx_dims, "dx_dims");
    return add_call(g, std::make_unique<ConvDgrad>(c.inputs[0], c.inputs[1], dx_dims, o, false), c, o.name);
}

const schema::Registration kRegistered(kConvDgrad, add_conv_dgrad);

}  // namespace

std::unique_ptr<Node> make_conv_transpose(fe_tensor *image, fe_tensor *weight, const fe_conv_options &options) {
    return std::make_unique<ConvDgrad>(image, weight, transposed_result_dims(image, weight, options), options, true);
}

}  // namespace fe
