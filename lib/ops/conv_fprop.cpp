// Forward convolution: attributes, output-shape inference, validation, lowering.
#include <cudnn_graph.h>

#include "common/error.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"

namespace fe {
namespace {

class ConvFprop : public Node {
  public:
    ConvFprop(fe_tensor *image, fe_tensor *weight, const fe_conv_options &o) : options_(o) {
        inputs = {image, weight};
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return "conv_fprop"; }
    const char *input_port(size_t i) const override { return i == 0 ? "image" : "weight"; }

    size_t spatial() const { return inputs[0]->dims.size() - 2; }
    bool wants_rank3_lift() const override { return spatial() == 1; }

    void infer() override {
        const fe_tensor *x = inputs[0], *w = inputs[1];
        size_t rank = x->dims.size();
        FE_CHECK(rank >= 3 && rank <= 5, FE_STATUS_INVALID_ARGUMENT,
                 "image has rank %zu; a convolution takes [N, C, spatial...] with 1 to 3 spatial dims", rank);
        FE_CHECK(w->dims.size() == rank, FE_STATUS_INVALID_ARGUMENT,
                 "weight has rank %zu, image has rank %zu; they must match", w->dims.size(), rank);
        size_t n = spatial();
        FE_CHECK(options_.spatial_dims == 0 || options_.spatial_dims == n, FE_STATUS_INVALID_ARGUMENT,
                 "options give %zu spatial dims but the image has %zu", options_.spatial_dims, n);
        FE_CHECK(w->dims[1] == x->dims[1], FE_STATUS_INVALID_ARGUMENT,
                 "weight has %lld input channels, image has %lld", static_cast<long long>(w->dims[1]),
                 static_cast<long long>(x->dims[1]));
        std::vector<int64_t> out = {x->dims[0], w->dims[0]};
        for (size_t i = 0; i < n; ++i) {
            int64_t pre = options_.pre_padding[i], post = options_.post_padding[i];
            int64_t stride = options_.stride[i], dilation = options_.dilation[i];
            FE_CHECK(pre >= 0 && post >= 0, FE_STATUS_INVALID_ARGUMENT,
                     "padding of spatial dim %zu is negative (%lld, %lld)", i, static_cast<long long>(pre),
                     static_cast<long long>(post));
            FE_CHECK(stride > 0, FE_STATUS_INVALID_ARGUMENT, "stride of spatial dim %zu is %lld; it must be positive",
                     i, static_cast<long long>(stride));
            FE_CHECK(dilation > 0, FE_STATUS_INVALID_ARGUMENT,
                     "dilation of spatial dim %zu is %lld; it must be positive", i, static_cast<long long>(dilation));
            int64_t extent = dilation * (w->dims[2 + i] - 1) + 1;
            int64_t padded = x->dims[2 + i] + pre + post;
            FE_CHECK(padded >= extent, FE_STATUS_INVALID_ARGUMENT,
                     "spatial dim %zu: the dilated filter spans %lld but the padded image has %lld", i,
                     static_cast<long long>(extent), static_cast<long long>(padded));
            out.push_back((padded - extent) / stride + 1);
        }
        assign_inferred_shape(outputs[0], out, x->strides);
    }

    std::string attributes() const override {
        size_t n = spatial();
        auto list = [n](const int64_t *v) {
            return dims_string(std::vector<int64_t>(v, v + n));
        };
        return "pre_padding=" + list(options_.pre_padding) + " post_padding=" + list(options_.post_padding) +
               " stride=" + list(options_.stride) + " dilation=" + list(options_.dilation) +
               (options_.mode == FE_CONV_MODE_CONVOLUTION ? " mode=convolution" : " mode=cross_correlation");
    }

    void lower(Lowering &lowering) const override {
        fe_data_type compute = lowering.compute_type(*this);
        size_t n = spatial();
        std::vector<int64_t> pre(options_.pre_padding, options_.pre_padding + n);
        std::vector<int64_t> post(options_.post_padding, options_.post_padding + n);
        std::vector<int64_t> stride(options_.stride, options_.stride + n);
        std::vector<int64_t> dilation(options_.dilation, options_.dilation + n);
        if (n == 1) {  // runs as 2-D with a unit height (see Lowering::lifts_rank3)
            pre.insert(pre.begin(), 0);
            post.insert(post.begin(), 0);
            stride.insert(stride.begin(), 1);
            dilation.insert(dilation.begin(), 1);
        }
        Descriptor conv(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
        conv.set_data_type(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, compute, "CUDNN_ATTR_CONVOLUTION_COMP_TYPE");
        cudnnConvolutionMode_t mode =
            options_.mode == FE_CONV_MODE_CONVOLUTION ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
        conv.set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode,
                 "CUDNN_ATTR_CONVOLUTION_CONV_MODE");
        conv.set_int64(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, static_cast<int64_t>(pre.size()),
                       "CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS");
        conv.set_int64s(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, pre, "CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS");
        conv.set_int64s(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, post, "CUDNN_ATTR_CONVOLUTION_POST_PADDINGS");
        conv.set_int64s(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, stride, "CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES");
        conv.set_int64s(CUDNN_ATTR_CONVOLUTION_DILATIONS, dilation, "CUDNN_ATTR_CONVOLUTION_DILATIONS");
        conv.finalize("finalizing the convolution descriptor", FE_STATUS_NOT_SUPPORTED);
        const Descriptor &kept = lowering.keep(std::move(conv));

        Descriptor op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
        op.set_desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, lowering.tensor(inputs[0]), "conv X");
        op.set_desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, lowering.tensor(inputs[1]), "conv W");
        op.set_desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, lowering.tensor(outputs[0]), "conv Y");
        op.set_desc(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, kept, "conv descriptor");
        set_scaling(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, compute, 1.0, "conv alpha");
        set_scaling(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, compute, 0.0, "conv beta");
        std::string what = "finalizing convolution '" + name + "'";
        op.finalize(what.c_str(), FE_STATUS_NOT_SUPPORTED);
        lowering.add_operation(std::move(op));
    }

  private:
    fe_conv_options options_;
};

}  // namespace

std::unique_ptr<Node> make_conv_fprop(fe_tensor *image, fe_tensor *weight, const fe_conv_options &options) {
    return std::make_unique<ConvFprop>(image, weight, options);
}

}  // namespace fe
