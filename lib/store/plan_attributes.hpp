// The attributes of an operation in a plan read from disk (cuDNN's plan JSON) against the values
// lowering set for the graph: modes, math precisions, paddings, strides, windows, clips,
// probabilities. Keys cuDNN writes that are not in the table are not compared; the tensors and
// operation types are compared by plan_check.cpp.
#pragma once

#include <cudnn_graph.h>

#include <cstdint>
#include <string>
#include <unordered_map>

#include "backend/descriptor.hpp"
#include "common/json.hpp"

namespace fe {

// A data type's name as cuDNN writes it in a plan's JSON ("CUDNN_DATA_HALF"), by cuDNN's value;
// "?" for a value cuDNN does not write.
std::string cudnn_data_type_name(int64_t value);

// FE_STATUS_INVALID_ARGUMENT ("the plan does not match its graph: ...") when a node's attribute
// differs from what lowering set on `op` or on the descriptors it references (`attributes`, by
// raw handle), or when the node sets one that lowering left unset.
void check_node_attributes(const json::Value &node, const Descriptor &op,
                           const std::unordered_map<cudnnBackendDescriptor_t, const Descriptor *> &attributes);

}  // namespace fe
