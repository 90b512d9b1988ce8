// The CUDA runtime's stream-capture and graph calls for the GPU tests, loaded as the library
// loads the runtime (nothing to link).
#pragma once

#include <dlfcn.h>

namespace cudnnfe_test {

// The CUDA runtime's graph calls, loaded as the library loads the runtime (nothing to link).
struct CudaGraphApi {
    int (*cudaStreamCreate)(void **) = nullptr;
    int (*cudaStreamDestroy)(void *) = nullptr;
    int (*cudaStreamSynchronize)(void *) = nullptr;
    int (*cudaStreamBeginCapture)(void *, int) = nullptr;
    int (*cudaStreamEndCapture)(void *, void **) = nullptr;
    int (*cudaGraphCreate)(void **, unsigned) = nullptr;
    int (*cudaGraphDestroy)(void *) = nullptr;
    int (*cudaGraphInstantiate)(void **, void *, unsigned long long) = nullptr;
    int (*cudaGraphExecDestroy)(void *) = nullptr;
    int (*cudaGraphLaunch)(void *, void *) = nullptr;
    int (*cudaGraphExecUpdate)(void *, void *, void *) = nullptr;
    int (*cudaGraphGetNodes)(void *, void **, size_t *) = nullptr;
    bool loaded = false;

    CudaGraphApi() {
        void *lib = nullptr;
        for (const char *name : {"libcudart.so.13", "libcudart.so.12", "libcudart.so"})
            if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
        if (!lib) return;
        loaded = load(lib, "cudaStreamCreate", &cudaStreamCreate) && load(lib, "cudaStreamDestroy", &cudaStreamDestroy) &&
                 load(lib, "cudaStreamSynchronize", &cudaStreamSynchronize) &&
                 load(lib, "cudaStreamBeginCapture", &cudaStreamBeginCapture) &&
                 load(lib, "cudaStreamEndCapture", &cudaStreamEndCapture) && load(lib, "cudaGraphCreate", &cudaGraphCreate) &&
                 load(lib, "cudaGraphDestroy", &cudaGraphDestroy) &&
                 load(lib, "cudaGraphInstantiate", &cudaGraphInstantiate) &&
                 load(lib, "cudaGraphExecDestroy", &cudaGraphExecDestroy) && load(lib, "cudaGraphLaunch", &cudaGraphLaunch) &&
                 load(lib, "cudaGraphExecUpdate", &cudaGraphExecUpdate) &&
                 load(lib, "cudaGraphGetNodes", &cudaGraphGetNodes);
    }
    template <typename F>
    static bool load(void *lib, const char *name, F *slot) {
        *slot = reinterpret_cast<F>(dlsym(lib, name));
        return *slot != nullptr;
    }
};

inline const CudaGraphApi &cuda_graphs() {
    static const CudaGraphApi api;
    return api;
}

constexpr int kCaptureModeThreadLocal = 1;

}  // namespace cudnnfe_test
