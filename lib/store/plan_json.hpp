// cuDNN's own serialization of a finalized execution plan (a JSON text that, for runtime-
// compiled engines, carries the compiled kernels), and loading one back without heuristics
// or compilation.
#pragma once

#include <memory>
#include <string>

#include "backend/descriptor.hpp"
#include "store/plan_record.hpp"

namespace fe {

std::string plan_to_json(const Descriptor &plan);

// Finalize a plan from its JSON for the handle's GPU or, with no handle, for the GPU the
// device-properties JSON describes. A plan cuDNN cannot load throws FE_STATUS_INVALID_ARGUMENT
// ("the serialized plan is corrupt") with cuDNN's reason.
std::shared_ptr<const Descriptor> plan_from_json(const std::string &json, cudnnHandle_t handle,
                                                 const std::string &device_properties_json);

// The workspace a loaded plan needs on this machine, as cuDNN reports it: what execution
// allocates, whatever the record says (the machine that wrote it may have been answered
// otherwise, e.g. a build without a GPU). Out of bounds: FE_STATUS_INVALID_ARGUMENT.
int64_t loaded_plan_workspace(const Descriptor &plan);

}  // namespace fe
