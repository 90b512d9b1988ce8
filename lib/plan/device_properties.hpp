// cuDNN's description of a GPU (a JSON object), and the fingerprint plans are keyed by.
#pragma once

#include <cstdint>
#include <string>

struct fe_handle;

namespace fe {

std::string capture_device_properties(int32_t device);

// What decides whether a plan built for one GPU runs on another: the name, the compute
// capability, the SM count and the shared memory per block. Not the device number, clocks or
// driver version, so a description captured on a GPU matches that GPU's handle later.
std::string device_fingerprint(const std::string &device_json);

// The handle's GPU description and fingerprint, captured at first need and kept.
const std::string &handle_device_json(fe_handle &handle);
const std::string &handle_fingerprint(fe_handle &handle);

}  // namespace fe
