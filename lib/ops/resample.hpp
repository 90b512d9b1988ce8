// Resampling (resample.cpp): pooling and upsampling, forward and backward, and the names its
// modes have in descriptions and in the graph JSON.
#pragma once

#include <memory>
#include <vector>

#include "cudnnfe.h"
#include "graph/node.hpp"

namespace fe {

std::unique_ptr<Node> make_resample(fe_tensor *x, const fe_resample_options &options);
// dx_dims may be empty when x is given (dx takes x's dims).
std::unique_ptr<Node> make_resample_backward(fe_tensor *dy, fe_tensor *x, fe_tensor *y, fe_tensor *index,
                                             const std::vector<int64_t> &dx_dims,
                                             const fe_resample_options &options);

const char *resample_mode_name(fe_resample_mode mode);
const char *resample_padding_name(fe_resample_padding padding);

}  // namespace fe
