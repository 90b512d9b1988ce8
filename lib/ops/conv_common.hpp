// What the three directions of a convolution (fprop, dgrad, wgrad) share: the checks of their
// options, the size relation result = conv(image, weight) that each direction solves for a
// different tensor, and the cuDNN convolution descriptor.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <cudnn_graph.h>

#include "cudnnfe.h"

namespace fe {

namespace schema {
struct Struct;
}

class AttributeWriter;
class Descriptor;
class Lowering;

// 128-bit integers for the size arithmetic of huge dims (dims may come close to 2^63; the
// checked options stay below 2^31), so no product overflows before its check.
__extension__ typedef __int128 ConvWide;

// How a direction names the three tensors of result = conv(image, weight) in its messages:
// fprop {image, weight, result}, dgrad {dx, weight, dy}, wgrad {image, dw, dy}.
struct ConvRoles {
    const char *image;
    const char *weight;
    const char *result;
};

// The number of spatial dims of an image of rank `image_rank` (3 to 5), checked against
// options.spatial_dims when the options fix it.
size_t conv_spatial_dims(size_t image_rank, const fe_conv_options &options, const ConvRoles &roles);

// The mode, groups, padding, stride, dilation and output padding stay within the schema's values
// and ranges (1 or 0 to INT32_MAX: beyond 32 bits no convolution exists, and the size arithmetic
// stays in range), checked for every call (schema::check_ranges). Output padding belongs to the
// transposed convolution; the others refuse it (reject_output_padding).
void reject_output_padding(const fe_conv_options &options, size_t n);

// Size along one spatial dim of conv(image, weight), or -1 where the dilated filter does not fit
// the padded image.
int64_t conv_output_size(int64_t in, int64_t filter, int64_t pre, int64_t post, int64_t stride, int64_t dilation);

// The dims of conv(image, weight), after checking ranks, options, channels per group and that
// the filter fits the padded image.
std::vector<int64_t> conv_result_dims(const std::vector<int64_t> &image, const std::vector<int64_t> &weight,
                                      const fe_conv_options &options, const ConvRoles &roles);

// fe_conv_options' description, which the four convolutions share, and the fields the direct
// ones (forward, data and weight gradients) take: all but output_padding.
const schema::Struct &conv_options_description();
const std::vector<const char *> &conv_direct_fields();

// Refuses (INVALID_ARGUMENT) dims given for a convolution's tensor (`what`: "dx_dims") that are
// not 3 to 5 positive dims.
void check_conv_dims(const std::vector<int64_t> &dims, const char *what);

// "pre_padding=[1,1] post_padding=[1,1] stride=[1,1] dilation=[1,1] mode=cross_correlation"
// (and " groups=G" when grouped), for fe_graph_describe.
std::string conv_attributes(const fe_conv_options &options, size_t n);

// The options' JSON attributes (pre_padding, post_padding, stride, dilation for n spatial dims,
// mode, groups; output_padding too for the transposed convolution).
void write_conv_attributes(AttributeWriter &out, const fe_conv_options &options, size_t n, bool transposed);

// Refuses a convolution fused with other operations whose layouts cuDNN 9.19 builds wrong plans
// for: image-shaped tensors (the graph's non-virtual tensors of the image's rank with channels
// and space) that mix channels-last and other layouts (capability conv_fusion_mixed_layouts), and
// a half or bfloat16 NCHW image whose `result` (the image-shaped tensor on the convolution's
// output side: y, dx, or dy for wgrad) is a single pixel (conv_fusion_nchw_pixel).
void refuse_known_bad_fusion_layouts(Lowering &lowering, const fe_tensor *image, const fe_tensor *result);

// Why cuDNN may have no engine for a convolution, in the capability table's words; "" when none of
// the observed causes applies. `image` is the activation (dx for dgrad), `other` the second operand,
// `result` the tensor the direction computes; `dgrad` and `wgrad` name the direction (neither: fprop
// or the transposed convolution).
std::string conv_unsupported_hint(const fe_tensor *image, const fe_tensor *other, const fe_tensor *result,
                                  const fe_conv_options &options, size_t spatial, bool dgrad, bool wgrad);

// The cuDNN convolution descriptor, kept alive by the lowering. 1-D convolutions run as 2-D with
// a unit height (see Lowering::lifts_rank3), so their attributes get a leading unit dim.
const Descriptor &lower_conv_descriptor(Lowering &lowering, const fe_conv_options &options, size_t n,
                                        fe_data_type compute);

// One direction of a convolution as cuDNN's operation: its descriptor type, the attributes of its
// three tensors (two operands, then the result) with the names errors give them, and those of its
// convolution descriptor and scaling factors.
struct ConvDirection {
    cudnnBackendDescriptorType_t type;
    cudnnBackendAttributeName_t tensors[3];
    const char *tensor_labels[3];
    cudnnBackendAttributeName_t conv, alpha, beta;
    const char *label;  // what errors call the direction ("conv", "dgrad", "wgrad")
};

// Lowers a convolution of direction `d` over `tensors` (in the direction's order): its convolution
// descriptor, then the operation (alpha 1, beta 0), finalized into the graph; `what` names the node.
void add_conv_operation(Lowering &lowering, const ConvDirection &d, const fe_conv_options &options, size_t spatial,
                        fe_data_type compute, const std::array<const fe_tensor *, 3> &tensors, const std::string &what);

}  // namespace fe
