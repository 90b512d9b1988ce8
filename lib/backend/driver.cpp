#include "backend/driver.hpp"
#include "common/environment.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "common/log.hpp"

namespace fe {

namespace {

DriverState probe() {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return DriverState::Missing;
    using Init = int (*)(unsigned int);
    Init init = reinterpret_cast<Init>(dlsym(lib, "cuInit"));
    if (!init) return DriverState::Missing;
    return driver_state_of_cuinit(init(0));
}

std::vector<std::string> stub_candidates() {
    std::vector<std::string> roots;
    for (const char *variable : {"CUDA_HOME", "CUDA_PATH"})
        if (const char *root = environment(variable)) roots.push_back(root);
    roots.push_back("/usr/local/cuda");
    std::vector<std::string> out;
    for (const std::string &root : roots)
        for (const char *dir : {"/lib64/stubs/libcuda.so", "/targets/x86_64-linux/lib/stubs/libcuda.so",
                                "/targets/sbsa-linux/lib/stubs/libcuda.so"})
            out.push_back(root + dir);
    return out;
}

}  // namespace

DriverState driver_state() {
    static const DriverState state = probe();
    return state;
}

void load_stub_driver_if_asked() {
    const char *asked = environment("CUDNNFE_STUB_DRIVER");
    if (!asked || !*asked || std::string(asked) == "0") return;
    if (void *real = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
        dlclose(real);
        return;  // a driver library loads: nothing to stand in for
    }
    std::vector<std::string> paths = std::string(asked) == "1" ? stub_candidates() : std::vector<std::string>{asked};
    for (const std::string &path : paths) {
        // Loaded globally under its soname, libcuda.so.1: cuDNN's own dlopen of that name finds it.
        if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE)) {
            FE_LOG_INFO("no CUDA driver library: loaded the CUDA toolkit's stub %s for support checks (no GPU work)",
                        path.c_str());
            return;
        }
    }
    FE_LOG_WARN("CUDNNFE_STUB_DRIVER=%s: no stub driver found (tried %s...)", asked, paths.empty() ? "" : paths[0].c_str());
}

std::string driver_remedy() {
    switch (driver_state()) {
        case DriverState::Real: return "";
        case DriverState::NoDevice:
            return "the CUDA driver here sees no GPU (cuInit: no CUDA-capable device): plans can be checked and "
                   "built for a described GPU (device_properties_json), and their kernels compiled where the GPU is";
        case DriverState::Stub:
            return "the CUDA driver library here is the CUDA toolkit's stub, which runs nothing: plans can be checked "
                   "and built for a described GPU (device_properties_json), not run";
        case DriverState::Missing:
            return "this machine has no CUDA driver library (libcuda.so.1): install the NVIDIA driver to run on a "
                   "GPU; without one, cuDNN lists no runtime-compiled engine (matmuls, pointwise and attention "
                   "fusions) even for a described GPU: set CUDNNFE_STUB_DRIVER=1 to check them with the CUDA "
                   "toolkit's stub driver";
    }
    return "";
}

}  // namespace fe
