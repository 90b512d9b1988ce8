#include "backend/known_devices.hpp"

namespace fe {

namespace {

struct KnownDevice {
    int sm_version;
    const char *properties;
};

// Captured on an NVIDIA H100 80GB HBM3 (SXM, 132 SMs) with cuDNN 9.19 and driver 580 (CUDA 13.0).
// A plan built for it runs on GPUs with the same properties that decide kernels (SM count,
// shared memory per block); an H200 has them too.
const KnownDevice kKnown[] = {
    {90, R"json({"maxGridSize":[2147483647,65535,65535],"maxBlockSize":[1024,1024,64],"regsPerBlock":65536,"multiProcessorCount":132,"warpSize":32,"maxSharedMemoryPerBlock":49152,"maxSharedMemoryPerBlockOptin":232448,"reservedSharedMemoryPerBlock":1024,"maxRegistersPerSM":65536,"maxCtasPerSM":32,"maxThreadsPerBlock":1024,"maxThreadsPerSM":2048,"pciDeviceId":6,"isTccDriver":0,"supportCoopLaunch":1,"totalGlobalMem":85017493504,"smClockRateKHz":1980000,"memClockRateKHz":2619000,"l2CacheSize":52428800,"cudaDeviceId":0,"deviceVer":900,"driverVer":13000,"deviceName":"NVIDIA H100 80GB HBM3"})json"},
};

}  // namespace

const char *known_device_properties(int sm_version) {
    for (const KnownDevice &d : kKnown)
        if (d.sm_version == sm_version) return d.properties;
    return nullptr;
}

std::string known_sm_versions() {
    std::string out;
    for (const KnownDevice &d : kKnown) out += (out.empty() ? "" : ", ") + std::to_string(d.sm_version);
    return out;
}

}  // namespace fe
