// Layout operations: transpose (transpose.cpp), concatenate (concatenate.cpp).
#pragma once

#include <memory>
#include <vector>

#include "cudnnfe.h"
#include "graph/node.hpp"

namespace fe {

std::unique_ptr<Node> make_transpose(fe_tensor *x, const std::vector<int64_t> &perm);

}  // namespace fe
