// Forward convolution: attributes, output-shape inference, validation, lowering.

// include/cudnnfe.h, section "Convolutions" (copied there by scripts/schema/generate_header.py):
// /** Forward convolution. image: [N, C, spatial...], weight: [K, C / groups, filter...], result
//  *  [N, K, out...] with out = (in + pre + post - dilation*(filter-1) - 1) / stride + 1, laid out
//  *  like the image (channels-last stays channels-last). options nullable. */
// FE_API fe_status fe_graph_conv_fprop(fe_graph *graph, fe_tensor *image, fe_tensor *weight,
//                                      const fe_conv_options *options, fe_tensor **out_y);

#include <cudnn_graph.h>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "graph/tensor.hpp"
#include "ops/conv_common.hpp"
#include "ops/graph_ops.hpp"
#include "ops/no_engine_causes.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"
#include "schema/schema.hpp"

namespace fe {
namespace {

const ConvRoles kRoles = {"image", "weight", "result"};

class ConvFprop : public Node {
  public:
    ConvFprop(fe_tensor *image, fe_tensor *weight, const fe_conv_options &o) : options_(o) {
        inputs = {image, weight};
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return "conv_fprop"; }
    const char *input_port(size_t i) const override { return i == 0 ? "image" : "weight"; }

    size_t spatial() const { return spatial_dims_of(inputs[0]); }
    bool wants_rank3_lift() const override { return spatial() == 1; }
    bool wants_channels_last_pixels() const override { return true; }

    void infer() override {
        const fe_tensor *x = inputs[0], *w = inputs[1];
        std::vector<int64_t> out = conv_result_dims(x->dims, w->dims, options_, kRoles);
        reject_output_padding(options_, spatial());
        if (x->vector_count > 1 || w->vector_count > 1) out[1] = vectorized_channels(out[1]);
        assign_inferred_shape(outputs[0], out, x->strides);
        outputs[0]->vector_count = x->vector_count;
        outputs[0]->vector_dim = x->vector_dim;
    }

    std::string attributes() const override { return conv_attributes(options_, spatial()); }
    void write_attributes(AttributeWriter &out) const override { write_conv_attributes(out, options_, spatial(), false); }

    std::string unsupported_hint() const override {
        if (inputs[0]->vector_count > 1 && inputs[0]->graph->resolved_compute(*this) != FE_DATA_INT32)
            return explanation(Feature::vectorized_conv_float_math, cudnn().cudnnGetVersion());
        return conv_unsupported_hint(inputs[0], inputs[1], outputs[0], options_, spatial(), false, false);
    }

    void lower(Lowering &lowering) const override {
        refuse_known_bad_fusion_layouts(lowering, inputs[0], outputs[0]);
        if (lowering.graph().nodes.size() > 1 && options_.groups <= 1 && one_channel_unit_width() &&
            inputs[0]->dims.back() > 1)
            lowering.require(Feature::conv_fusion_one_channel_unit_width);
        // The same single-pixel fusion as in half and bfloat16 (refused whatever the groups), in
        // float and in groups.
        const fe_tensor *x = inputs[0];
        const bool grouped = inputs[1]->dims.size() > 1 && inputs[1]->dims[1] < x->dims[1];
        if (lowering.graph().nodes.size() > 1 && grouped && x->data_type == FE_DATA_FLOAT &&
            image_layout_class(x, x->dims.size()) == 0 && single_pixel(outputs[0]->dims, true))
            lowering.require(Feature::conv_fusion_nchw_pixel);
        if (image_layout_class(x, x->dims.size()) == 0 && lowering.graph().has_op("reduction"))
            lowering.require(Feature::conv_reduction_nchw);
        const fe_tensor *y = outputs[0];
        // cuDNN documents int8 convolutions with int8 or float results. Its engines also accept an
        // int32 result, and then write wrong values on some versions (Feature::int8_conv_int32_result).
        if (inputs[0]->data_type == FE_DATA_INT8 && inputs[1]->data_type == FE_DATA_INT8 && y->is_output &&
            y->data_type == FE_DATA_INT32) {
            std::string why = refusal(Feature::int8_conv_int32_result, cudnn().cudnnGetVersion());
            FE_CHECK(why.empty(), FE_STATUS_NOT_SUPPORTED,
                     "an int8 convolution gives an int8 or float result, not int32 ('%s'): %s", y->name.c_str(),
                     why.c_str());
        }
        if (inputs[0]->data_type == FE_DATA_INT8 && inputs[1]->data_type == FE_DATA_INT8 &&
            y->data_type == FE_DATA_FLOAT) {
            const size_t rank = inputs[0]->dims.size();
            if (image_layout_class(inputs[0], rank) == 0 || image_layout_class(inputs[1], rank) == 0)
                lowering.require(Feature::int8_conv_float_result_not_channels_last);
            refuse_known_bad_int8_float_shapes(lowering);
        }
        if (inputs[0]->data_type == FE_DATA_INT8 && inputs[1]->data_type == FE_DATA_INT8 && spatial() == 1 &&
            flipped_filter_over_the_whole_image())
            lowering.require(Feature::int8_conv_flipped_single_pixel);
        static const ConvDirection kForward{
            CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
            {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
             CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y}, {"conv X", "conv W", "conv Y"},
            CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
            CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, "conv"};
        add_conv_operation(lowering, kForward, options_, spatial(), lowering.compute_type(*this),
                           {inputs[0], inputs[1], outputs[0]}, "convolution '" + name + "'");
    }

  private:
    // A vectorized image and filter (the channels in vectors of the same count) give a result
    // vectorized the same way: its K output channels in K / count vectors.
    int64_t vectorized_channels(int64_t k) const {
        const fe_tensor *x = inputs[0], *w = inputs[1];
        FE_CHECK(x->vector_count == w->vector_count && x->vector_dim == w->vector_dim, FE_STATUS_INVALID_ARGUMENT,
                 "image '%s' is in vectors of %d values and filter '%s' in vectors of %d: vectorize both alike",
                 x->name.c_str(), x->vector_count, w->name.c_str(), w->vector_count);
        FE_CHECK(options_.groups == 1, FE_STATUS_INVALID_ARGUMENT,
                 "a vectorized convolution is not grouped (groups %lld)", static_cast<long long>(options_.groups));
        FE_CHECK(k % x->vector_count == 0, FE_STATUS_INVALID_ARGUMENT,
                 "filter '%s' has %lld output channels, which vectors of %d values do not divide", w->name.c_str(),
                 static_cast<long long>(k), x->vector_count);
        return k / x->vector_count;
    }

    // Shapes of channels-last int8 convolutions into float results that cuDNN gets wrong at 2 and
    // 3 spatial dims (the 1-D flipped single pixel is refused whatever the result's type).
    void refuse_known_bad_int8_float_shapes(Lowering &lowering) const {
        const fe_tensor *x = inputs[0];
        if (spatial() < 2 || x->strides.size() != x->dims.size() || x->strides[1] != 1) return;
        if (one_channel_unit_width()) lowering.require(Feature::int8_conv_one_channel_unit_width);
        if (flipped_filter_over_the_whole_image()) lowering.require(Feature::int8_conv_flipped_single_pixel);
    }

    // Convolution mode (the filter flipped), ungrouped, channels-last, the filter the size of the
    // image: a single output pixel (capability int8_conv_flipped_single_pixel).
    bool flipped_filter_over_the_whole_image() const {
        const fe_tensor *x = inputs[0];
        return options_.mode == FE_CONV_MODE_CONVOLUTION && options_.groups <= 1 &&
               x->strides.size() == x->dims.size() && x->strides[1] == 1 &&
               single_pixel(outputs[0]->dims, false) && filter_is_the_image();
    }

    // A channels-last image of one channel into a result one pixel wide and more than one high
    // (2-D or 3-D): a shape cuDNN leaves mostly unwritten in some plans.
    bool one_channel_unit_width() const {
        const fe_tensor *x = inputs[0], *y = outputs[0];
        const size_t rank = y->dims.size();
        if (spatial() < 2 || rank < 4 || x->strides.size() != rank || x->strides[1] != 1 || x->dims[1] != 1)
            return false;
        return y->dims[rank - 1] == 1 && !single_pixel(y->dims, false);
    }

    // The filter covers the image exactly: same spatial dims, no padding, no dilation.
    bool filter_is_the_image() const {
        const fe_tensor *x = inputs[0], *w = inputs[1];
        for (size_t i = 0; i < spatial(); ++i)
            if (x->dims[2 + i] != w->dims[2 + i] || options_.pre_padding[i] != 0 || options_.post_padding[i] != 0 ||
                options_.dilation[i] != 1)
                return false;
        return true;
    }

    fe_conv_options options_;
};

const schema::Op kConvFprop{"conv_fprop",
                    "fe_graph_conv_fprop",
                    "Convolutions",
                    {{"image", nullptr, "[N, C, spatial...]", {1, 8, 8, 8}},
                     {"weight", nullptr, "[K, C / groups, filter...]", {4, 8, 3, 3}}},
                    {{"Y", nullptr, "[N, K, out...], laid out like the image"}},
                    {},
                    &conv_options_description(),
                    conv_direct_fields(),
                    true,
                    "Forward convolution."};

const std::vector<fe_tensor *> &add_conv_fprop(fe_graph &g, const schema::Call &c) {
    const auto &o = c.options_as<fe_conv_options>();
    return add_call(g, std::make_unique<ConvFprop>(c.inputs[0], c.inputs[1], o), c, o.name);
}

const schema::Registration kRegistered(kConvFprop, add_conv_fprop);

}  // namespace

}  // namespace fe
