// cuDNN's description of a GPU (a JSON object), and the fingerprint plans are keyed by.
#pragma once

#include <cstdint>
#include <string>

#include "plan/target_gpu.hpp"

struct fe_handle;
struct fe_graph;

namespace fe {

std::string capture_device_properties(int32_t device);

// Refuse (FE_STATUS_INVALID_ARGUMENT, "<what>: not ...") text that is not a GPU description as
// cuDNN writes it: JSON (the parser's line and cause), an object, with "deviceName" and
// "deviceVer". cuDNN's own reading says only "BAD_PARAM (!json_object.IsObject())".
void check_device_description(const char *json, const char *what);

// The GPU a plan is built for, as messages name it: the name, the compute capability, the SM
// count and the shared memory per block. Not the device number, clocks or driver version, so a
// description captured on a GPU matches that GPU's handle later.
std::string device_fingerprint(const std::string &device_json);

// Whether a plan or kernel built for fingerprint `built_for` runs on `target`: the same compute
// capability, SM count and shared memory. The name is left out: the kernels are compiled for the
// architecture and tiled for the SMs and shared memory, so an H100 SXM's plans run on an H200.
bool same_plan_target(const std::string &built_for, const std::string &target);

// A described GPU: its compute capability from cuDNN's "deviceVer" (900: 90) and its SM count
// ("multiProcessorCount"); zeros for what the description lacks.
TargetGpu described_gpu(const std::string &device_json);

// The GPU a build of `graph` is for: its device properties (deviceless) or the handle's GPU;
// zeros when it has neither (the build then fails, saying so).
TargetGpu target_gpu(const fe_graph &graph, fe_handle *handle);

// The handle's GPU description and fingerprint, captured at first need and kept.
const std::string &handle_device_json(fe_handle &handle);
const std::string &handle_fingerprint(fe_handle &handle);

}  // namespace fe
