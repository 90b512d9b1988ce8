#include "gpu_description.hpp"

#include "cli.hpp"
#include "json.hpp"

namespace tool {

namespace {

double number_field(const Json &object, const char *key) {
    const Json *v = object.get(key);
    return v && v->is_number() ? v->number : 0;
}

}  // namespace

bool read_gpu_description(const std::string &json, GpuDescription &out, std::string &error) {
    Json doc;
    if (!parse_json(json, doc, error)) {
        error = "not JSON (" + error + ")";
        return false;
    }
    const Json *name = doc.is_object() ? doc.get("deviceName") : nullptr;
    const Json *version = doc.is_object() ? doc.get("deviceVer") : nullptr;
    if (!name || !name->is_string() || !version || !version->is_number()) {
        error = "not a GPU description (no \"deviceName\" and \"deviceVer\"; capture one with 'cudnnfe device capture')";
        return false;
    }
    GpuDescription gpu;
    gpu.name = name->text;
    gpu.sm_version = static_cast<long long>(version->number);
    gpu.sm_count = static_cast<long long>(number_field(doc, "multiProcessorCount"));
    gpu.memory_bytes = number_field(doc, "totalGlobalMem");
    gpu.l2_bytes = number_field(doc, "l2CacheSize");
    gpu.shared_per_block_optin = number_field(doc, "maxSharedMemoryPerBlockOptin");
    gpu.sm_clock_khz = static_cast<long long>(number_field(doc, "smClockRateKHz"));
    gpu.memory_clock_khz = static_cast<long long>(number_field(doc, "memClockRateKHz"));
    gpu.driver_version = static_cast<long long>(number_field(doc, "driverVer"));
    out = gpu;
    return true;
}

std::string gpu_headline(const GpuDescription &gpu) {
    long long major = gpu.sm_version / 100, minor = gpu.sm_version % 100 / 10;
    return gpu.name + ", compute capability " + std::to_string(major) + "." + std::to_string(minor) + " (sm_" +
           std::to_string(major) + std::to_string(minor) + "), " + std::to_string(gpu.sm_count) + " SMs";
}

std::string gpu_details(const GpuDescription &gpu, const std::string &indent) {
    std::string out;
    out += indent + "memory:                " + bytes_text(gpu.memory_bytes) + "\n";
    out += indent + "L2 cache:              " + bytes_text(gpu.l2_bytes) + "\n";
    out += indent + "shared memory / block: " + bytes_text(gpu.shared_per_block_optin) + " (opt-in)\n";
    out += indent + "SM clock:              " + std::to_string(gpu.sm_clock_khz / 1000) + " MHz\n";
    out += indent + "memory clock:          " + std::to_string(gpu.memory_clock_khz / 1000) + " MHz\n";
    if (gpu.driver_version > 0) out += indent + "driver (CUDA):         " + cuda_version_text(gpu.driver_version) + "\n";
    return out;
}

}  // namespace tool
