// The names resampling's modes and paddings have in descriptions and in the graph JSON
// (resample.cpp).
#pragma once

#include <memory>
#include <vector>

#include "cudnnfe.h"
#include "graph/node.hpp"

namespace fe {

const char *resample_mode_name(fe_resample_mode mode);
const char *resample_padding_name(fe_resample_padding padding);

}  // namespace fe
