// The transposed convolution (upsampling): its description and how a call adds it. Its node is
// the data gradient's (conv_dgrad.cpp), the image playing dy and the result dx.

// include/cudnnfe.h, section "Convolutions" (copied there by scripts/schema/generate_header.py):
// /** Transposed convolution (upsampling): the data gradient of a convolution with these options,
//  *  applied to `image`, and lowered as one. image [N, C_in, in...], weight
//  *  [C_in, C_out / groups, filter...] (the layout of PyTorch's ConvTranspose), result
//  *  [N, C_out, out...] with out = (in - 1) * stride - pre - post + dilation * (filter - 1) + 1
//  *  + output_padding, laid out like the image. */
// FE_API fe_status fe_graph_conv_transpose(fe_graph *graph, fe_tensor *image, fe_tensor *weight,
//                                          const fe_conv_options *options, fe_tensor **out_y);

#include "ops/conv_common.hpp"
#include "ops/graph_ops.hpp"
#include "ops/ops.hpp"
#include "schema/schema.hpp"

namespace fe {

namespace {

const schema::Op kConvTranspose{"conv_transpose",
                        "fe_graph_conv_transpose",
                        "Convolutions",
                        {{"image", nullptr, "[N, C_in, in...]"}, {"weight", nullptr, "[C_in, C_out / groups, filter...]"}},
                        {{"Y", nullptr, "[N, C_out, out...], laid out like the image"}},
                        {},
                        &conv_options_description(),
                        {},
                        true,
                        "Transposed convolution (upsampling), lowered as a data gradient."};

const std::vector<fe_tensor *> &add_conv_transpose(fe_graph &g, const schema::Call &c) {
    const auto &o = c.options_as<fe_conv_options>();
    return add_call(g, make_conv_transpose(c.inputs[0], c.inputs[1], o), c, o.name);
}

const schema::Registration kRegistered(kConvTranspose, add_conv_transpose);

}  // namespace

}  // namespace fe
