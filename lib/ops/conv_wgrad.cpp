// Convolution weight gradient (image, dy -> dw): attributes, filter-size inference, checks,
// lowering.

// include/cudnnfe.h, section "Convolutions" (copied there by scripts/schema/generate_header.py):
// /** Weight gradient of fe_graph_conv_fprop (backward filter): dw [K, C / groups, filter...] from
//  *  the image [N, C, in...] and dy [N, K, out...], with the forward pass's options. dw_dims is
//  *  nullable (then dw_ndims is ignored): the filter size is inferred when exactly one size gives
//  *  dy, which always holds with stride 1; with a larger stride two sizes can (3 and 4 for a 3x3
//  *  stride-2 layer on an even image), and the call then fails asking for dw_dims. dw
//  *  ("<name>::DW") is laid out like the image. */
// FE_API fe_status fe_graph_conv_wgrad(fe_graph *graph, fe_tensor *image, fe_tensor *loss,
//                                      size_t dw_ndims, const int64_t *dw_dims,
//                                      const fe_conv_options *options, fe_tensor **out_dw);

#include <cudnn_graph.h>

#include <algorithm>

#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "ops/conv_common.hpp"
#include "ops/graph_ops.hpp"
#include "schema/schema.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"

namespace fe {
namespace {

long long ll(int64_t v) { return static_cast<long long>(v); }

// dy = conv(image, dw): the forward relation that wgrad differentiates.
const ConvRoles kRoles = {"image", "dw", "dy"};

std::string sizes_string(const std::vector<int64_t> &sizes) {
    std::string text;
    for (size_t i = 0; i < sizes.size(); ++i) text += (i ? (i + 1 == sizes.size() ? " and " : ", ") : "") + std::to_string(sizes[i]);
    return text;
}

// dw's dims when the caller gave none: [K, C / groups, filter...], each filter size the one that
// turns the image's size into dy's. With a stride above 1 the floor in the size relation lets
// several filter sizes do that; then only the caller knows which one the forward pass used.
std::vector<int64_t> infer_dw_dims(const fe_tensor *x, const fe_tensor *dy, const fe_conv_options &o) {
    size_t n = conv_spatial_dims(x->dims.size(), o, kRoles);
    FE_CHECK(dy->dims.size() == x->dims.size(), FE_STATUS_INVALID_ARGUMENT,
             "dy has rank %zu, image has rank %zu; they must match", dy->dims.size(), x->dims.size());
    FE_CHECK(x->dims[1] % o.groups == 0, FE_STATUS_INVALID_ARGUMENT,
             "groups (%lld) do not divide the %lld channels of image", ll(o.groups), ll(x->dims[1]));
    std::vector<int64_t> dw = {dy->dims[1], x->dims[1] / o.groups};
    for (size_t i = 0; i < n; ++i) {
        int64_t in = x->dims[2 + i], want = dy->dims[2 + i];
        std::vector<int64_t> fits;
        // size(f) = (padded - dilation * (f - 1) - 1) / stride + 1 (rounded down) equals dy's size
        // exactly for dilation * (f - 1) in [padded - want * stride, padded - 1 - (want - 1) * stride]:
        // the filter sizes in that range (the first few of them; one is the usual answer).
        const ConvWide padded = static_cast<ConvWide>(in) + o.pre_padding[i] + o.post_padding[i];
        const ConvWide stride = o.stride[i], dilation = o.dilation[i];
        auto floor_div = [](ConvWide a, ConvWide b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
        ConvWide first = std::max<ConvWide>(1, -floor_div(-(padded - want * stride), dilation) + 1);
        ConvWide last = floor_div(padded - 1 - (static_cast<ConvWide>(want) - 1) * stride, dilation) + 1;
        for (ConvWide f = first; want >= 1 && f <= last && f <= INT64_MAX && fits.size() < 8; ++f) {
            int64_t size = conv_output_size(in, static_cast<int64_t>(f), o.pre_padding[i], o.post_padding[i],
                                            o.stride[i], o.dilation[i]);
            if (size == want) fits.push_back(static_cast<int64_t>(f));
        }
        FE_CHECK(!fits.empty(), FE_STATUS_INVALID_ARGUMENT,
                 "spatial dim %zu: no filter size turns the image's %lld into dy's %lld with padding (%lld, %lld), "
                 "stride %lld and dilation %lld",
                 i, ll(in), ll(want), ll(o.pre_padding[i]), ll(o.post_padding[i]), ll(o.stride[i]), ll(o.dilation[i]));
        FE_CHECK(fits.size() == 1, FE_STATUS_INVALID_ARGUMENT,
                 "spatial dim %zu: filter sizes %s all turn the image's %lld into dy's %lld with stride %lld; pass "
                 "dw_dims to say which",
                 i, sizes_string(fits).c_str(), ll(in), ll(want), ll(o.stride[i]));
        dw.push_back(fits[0]);
    }
    return dw;
}

class ConvWgrad : public Node {
  public:
    ConvWgrad(fe_tensor *image, fe_tensor *loss, std::vector<int64_t> dw_dims, const fe_conv_options &o)
        : options_(o), dw_dims_(std::move(dw_dims)) {
        inputs = {image, loss};
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return "conv_wgrad"; }
    const char *input_port(size_t i) const override { return i == 0 ? "image" : "loss"; }

    size_t spatial() const { return spatial_dims_of(inputs[0]); }
    bool wants_rank3_lift() const override { return spatial() == 1; }
    bool wants_channels_last_pixels() const override { return true; }

    void infer() override {
        const fe_tensor *x = inputs[0], *dy = inputs[1];
        // dims the user set on dw later take the place of the ones given to (or inferred by) the call
        std::vector<int64_t> dw = outputs[0]->user_dims ? outputs[0]->dims
                                  : dw_dims_.empty()    ? infer_dw_dims(x, dy, options_)
                                                        : dw_dims_;
        FE_CHECK(dy->dims.size() == x->dims.size(), FE_STATUS_INVALID_ARGUMENT,
                 "dy has rank %zu, image has rank %zu; they must match", dy->dims.size(), x->dims.size());
        std::vector<int64_t> expected = conv_result_dims(x->dims, dw, options_, kRoles);
        reject_output_padding(options_, spatial());
        FE_CHECK(dy->dims[1] == dw[0], FE_STATUS_INVALID_ARGUMENT,
                 "dw has %lld output channels (its dim 0), dy has %lld channels", ll(dw[0]), ll(dy->dims[1]));
        FE_CHECK(expected == dy->dims, FE_STATUS_INVALID_ARGUMENT,
                 "dy has dims %s, but image %s convolved with dw %s gives %s", dims_string(dy->dims).c_str(),
                 dims_string(x->dims).c_str(), dims_string(dw).c_str(), dims_string(expected).c_str());
        assign_inferred_shape(outputs[0], dw, x->strides);
    }

    std::string attributes() const override { return conv_attributes(options_, spatial()); }
    void write_attributes(AttributeWriter &out) const override {
        write_conv_attributes(out, options_, spatial(), false);
        if (!dw_dims_.empty()) out.field("dw_dims", dw_dims_);  // absent: inferred
    }

    std::string unsupported_hint() const override {
        return conv_unsupported_hint(inputs[0], inputs[1], outputs[0], options_, spatial(), false, true);
    }

    void lower(Lowering &lowering) const override {
        refuse_known_bad_fusion_layouts(lowering, inputs[0], inputs[1]);
        bool asymmetric = false;
        for (size_t i = 0; i < spatial(); ++i)
            asymmetric = asymmetric || options_.pre_padding[i] != options_.post_padding[i];
        if (spatial() == 3 && options_.groups > 1 && asymmetric)
            lowering.require(Feature::conv_wgrad_depthwise_3d_asymmetric);
        const fe_tensor *x = inputs[0];
        const bool float_dw = x->data_type == FE_DATA_FLOAT || outputs[0]->data_type == FE_DATA_FLOAT;
        // Asymmetric padding of any size, in any layout: wrong dw now and then.
        if (float_dw && asymmetric)
            lowering.require(Feature::conv_wgrad_float_asymmetric_padding);
        // A half or bfloat16 x and dy into a float dw, not channels-last: dw left partly unwritten.
        const bool half_inputs = x->data_type == FE_DATA_HALF || x->data_type == FE_DATA_BFLOAT16;
        if (half_inputs && outputs[0]->data_type == FE_DATA_FLOAT && (!channels_last(x) || !channels_last(inputs[1])))
            lowering.require(Feature::conv_wgrad_half_float_dw_nchw);
        static const ConvDirection kBackwardFilter{
            CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
            {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
             CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW}, {"wgrad X", "wgrad DY", "wgrad DW"},
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA, "wgrad"};
        add_conv_operation(lowering, kBackwardFilter, options_, spatial(), lowering.compute_type(*this),
                           {inputs[0], inputs[1], outputs[0]}, "conv_wgrad '" + name + "'");
    }

  private:
    // Channels innermost (a single channel counts as either layout, so as channels-last).
    static bool channels_last(const fe_tensor *t) { return t->dims.size() < 3 || t->dims[1] <= 1 || t->strides[1] == 1; }

    fe_conv_options options_;
    std::vector<int64_t> dw_dims_;  // empty: inferred
};

const schema::Op kConvWgrad{"conv_wgrad",
                    "fe_graph_conv_wgrad",
                    "Convolutions",
                    {{"image", nullptr, "the forward image [N, C, in...]"}, {"loss", nullptr, "dy [N, K, out...]"}},
                    {{"DW", nullptr, "dw [K, C / groups, filter...], laid out like the image"}},
                    {{"dw_dims", schema::Type::dims_array, nullptr, false, "The weight's dims; inferred when absent."}},
                    &conv_options_description(),
                    conv_direct_fields(),
                    true,
                    "Weight gradient of a forward convolution with the same options."};

// dw_dims may be left out (inferred).
const std::vector<fe_tensor *> &add_conv_wgrad(fe_graph &g, const schema::Call &c) {
    const auto &o = c.options_as<fe_conv_options>();
    const std::vector<int64_t> &dw_dims = c.params[0].dims;
    if (!dw_dims.empty()) check_conv_dims(dw_dims, "dw_dims");
    return add_call(g, std::make_unique<ConvWgrad>(c.inputs[0], c.inputs[1], dw_dims, o), c, o.name);
}

const schema::Registration kRegistered(kConvWgrad, add_conv_wgrad);

}  // namespace

}  // namespace fe
