// The GPU descriptions the library carries, for deviceless builds where the caller captured none
// (fe_device_properties_for_sm): cuDNN's JSON of one GPU per compute capability, as captured by
// fe_device_properties_capture on that GPU.
#pragma once

#include <string>

namespace fe {

// The description of the usual GPU of `sm_version` (e.g. 90), or nullptr when none is carried.
const char *known_device_properties(int sm_version);

// The compute capabilities carried, for a refusal's message ("90").
std::string known_sm_versions();

}  // namespace fe
