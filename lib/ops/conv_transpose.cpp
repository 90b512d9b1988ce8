// The transposed convolution (upsampling): its description and how a call adds it. Its node is
// the data gradient's (conv_dgrad.cpp), the image playing dy and the result dx.
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
