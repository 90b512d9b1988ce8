// Layout operations, one file each: transpose, reshape, slice, concatenate.
#pragma once

#include <memory>
#include <vector>

#include "cudnnfe.h"
#include "graph/node.hpp"

namespace fe {

std::unique_ptr<Node> make_transpose(fe_tensor *x, const std::vector<int64_t> &perm);
std::unique_ptr<Node> make_reshape(fe_tensor *x, const std::vector<int64_t> &dims);
std::unique_ptr<Node> make_slice(fe_tensor *x, const std::vector<int64_t> &start, const std::vector<int64_t> &end);
std::unique_ptr<Node> make_concatenate(const std::vector<fe_tensor *> &xs, int64_t axis, int64_t in_place_index);

}  // namespace fe
