// cuDNN's JSON description of a GPU (what `cudnnfe device capture` writes and deviceless
// builds read), in the words people use.
#pragma once

#include <string>

namespace tool {

struct GpuDescription {
    std::string name;          // "NVIDIA H100 80GB HBM3"
    long long sm_version = 0;  // 900 for compute capability 9.0
    long long sm_count = 0;
    double memory_bytes = 0;
    double l2_bytes = 0;
    double shared_per_block_optin = 0;
    long long sm_clock_khz = 0;
    long long memory_clock_khz = 0;
    long long driver_version = 0;  // CUDA encoding: 13000
};

// false with `error` when the text is not JSON or lacks the fields every description has.
bool read_gpu_description(const std::string &json, GpuDescription &out, std::string &error);

// "NVIDIA H100 80GB HBM3, compute capability 9.0 (sm_90), 132 SMs"
std::string gpu_headline(const GpuDescription &gpu);
// The remaining properties, one "name: value" per line, each line starting with `indent`.
std::string gpu_details(const GpuDescription &gpu, const std::string &indent);

}  // namespace tool
