#pragma once

#include <cstdint>
#include <string>

namespace fe {
// cuDNN's JSON description of a live GPU (CUDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION).
std::string capture_device_properties(int32_t device);
}  // namespace fe
