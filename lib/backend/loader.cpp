#include "backend/loader.hpp"
#include "common/environment.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "backend/capabilities.hpp"
#include "backend/driver.hpp"
#include "common/error.hpp"
#include "common/log.hpp"

namespace fe {

namespace {

// Opens the first library that loads: the environment override alone when it is set (so a
// user who names a library never silently gets another), else the usual sonames. On failure
// `error` says what could not be loaded, each name tried and why.
void *open_first(const char *what, const char *env_var, const std::vector<const char *> &names, std::string *error) {
    std::string tried;
    std::vector<std::string> candidates;
    if (const char *override_path = environment(env_var); override_path && *override_path)
        candidates.emplace_back(override_path);
    else
        for (const char *name : names) candidates.emplace_back(name);
    for (const std::string &name : candidates) {
        void *lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            FE_LOG_INFO("loaded %s", name.c_str());
            return lib;
        }
        const char *why = dlerror();
        if (!tried.empty()) tried += "; ";
        tried += name + " (" + (why ? why : "not found") + ")";
    }
    *error = std::string(what) + " could not be loaded (set " + env_var + " to override); tried " + tried;
    return nullptr;
}

template <typename F>
bool bind(void *lib, const char *symbol, F *slot, std::string *missing) {
    void *p = dlsym(lib, symbol);
    if (!p) {
        if (!missing->empty()) *missing += ", ";
        *missing += symbol;
        return false;
    }
    *slot = reinterpret_cast<F>(p);
    return true;
}

struct CudnnLoad {
    Cudnn table{};
    std::string error;
};

struct CudaLoad {
    CudaRuntime table{};
    std::string error;
};

// cuDNN loads NVRTC to compile runtime-compiled engines and unloads it when the build is done;
// every load leaks memory inside NVRTC (about 0.5 MB per build measured with cuDNN 9.19). Holding
// one reference of our own for the life of the process keeps it loaded: the growth falls to a
// few kilobytes per build. Without NVRTC installed there is nothing to hold.
void keep_nvrtc_loaded() {
    for (const char *name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"})
        if (dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) {
            FE_LOG_INFO("holding %s loaded for runtime-compiled engines", name);
            return;
        }
}

CudnnLoad load_cudnn() {
    load_stub_driver_if_asked();
    CudnnLoad out;
    void *lib = open_first("cuDNN", "CUDNNFE_CUDNN_LIBRARY", {"libcudnn.so.9", "libcudnn.so"}, &out.error);
    if (!lib) return out;
    std::string missing;
    Cudnn &t = out.table;
    bind(lib, "cudnnGetVersion", &t.cudnnGetVersion, &missing);
    bind(lib, "cudnnGetErrorString", &t.cudnnGetErrorString, &missing);
    bind(lib, "cudnnGetLastErrorString", &t.cudnnGetLastErrorString, &missing);
    bind(lib, "cudnnCreate", &t.cudnnCreate, &missing);
    bind(lib, "cudnnDestroy", &t.cudnnDestroy, &missing);
    bind(lib, "cudnnSetStream", &t.cudnnSetStream, &missing);
    bind(lib, "cudnnBackendCreateDescriptor", &t.cudnnBackendCreateDescriptor, &missing);
    bind(lib, "cudnnBackendDestroyDescriptor", &t.cudnnBackendDestroyDescriptor, &missing);
    bind(lib, "cudnnBackendFinalize", &t.cudnnBackendFinalize, &missing);
    bind(lib, "cudnnBackendSetAttribute", &t.cudnnBackendSetAttribute, &missing);
    bind(lib, "cudnnBackendGetAttribute", &t.cudnnBackendGetAttribute, &missing);
    bind(lib, "cudnnBackendExecute", &t.cudnnBackendExecute, &missing);
    std::string optional;  // absent before cuDNN 9.5: the capability table says so when used
    bind(lib, "cudnnBackendPopulateCudaGraph", &t.cudnnBackendPopulateCudaGraph, &optional);
    bind(lib, "cudnnBackendUpdateCudaGraph", &t.cudnnBackendUpdateCudaGraph, &optional);
    bind(lib, "cudnnCreateFilterDescriptor", &t.cudnnCreateFilterDescriptor, &optional);
    bind(lib, "cudnnSetFilterNdDescriptor", &t.cudnnSetFilterNdDescriptor, &optional);
    bind(lib, "cudnnDestroyFilterDescriptor", &t.cudnnDestroyFilterDescriptor, &optional);
    bind(lib, "cudnnReorderFilterAndBias", &t.cudnnReorderFilterAndBias, &optional);
    if (!missing.empty()) {
        out.error = "the loaded cuDNN lacks " + missing + " (cuDNN 9 is required)";
        return out;
    }
    out.error = refusal(Feature::cudnn_9, static_cast<int64_t>(t.cudnnGetVersion()));
    if (out.error.empty()) keep_nvrtc_loaded();
    return out;
}

CudaLoad load_cuda() {
    CudaLoad out;
    void *lib = open_first("the CUDA runtime", "CUDNNFE_CUDART_LIBRARY",
                           {"libcudart.so.13", "libcudart.so.12", "libcudart.so"}, &out.error);
    if (!lib) return out;
    std::string missing;
    CudaRuntime &t = out.table;
    bind(lib, "cudaRuntimeGetVersion", &t.cudaRuntimeGetVersion, &missing);
    bind(lib, "cudaDriverGetVersion", &t.cudaDriverGetVersion, &missing);
    bind(lib, "cudaGetDeviceCount", &t.cudaGetDeviceCount, &missing);
    bind(lib, "cudaGetDevice", &t.cudaGetDevice, &missing);
    bind(lib, "cudaSetDevice", &t.cudaSetDevice, &missing);
    bind(lib, "cudaMalloc", &t.cudaMalloc, &missing);
    bind(lib, "cudaFree", &t.cudaFree, &missing);
    bind(lib, "cudaMemcpy", &t.cudaMemcpy, &missing);
    bind(lib, "cudaMemset", &t.cudaMemset, &missing);
    bind(lib, "cudaMemsetAsync", &t.cudaMemsetAsync, &missing);
    bind(lib, "cudaStreamSynchronize", &t.cudaStreamSynchronize, &missing);
    bind(lib, "cudaEventCreate", &t.cudaEventCreate, &missing);
    bind(lib, "cudaEventDestroy", &t.cudaEventDestroy, &missing);
    bind(lib, "cudaEventRecord", &t.cudaEventRecord, &missing);
    bind(lib, "cudaEventSynchronize", &t.cudaEventSynchronize, &missing);
    bind(lib, "cudaEventElapsedTime", &t.cudaEventElapsedTime, &missing);
    bind(lib, "cudaStreamCreateWithFlags", &t.cudaStreamCreateWithFlags, &missing);
    bind(lib, "cudaStreamDestroy", &t.cudaStreamDestroy, &missing);
    bind(lib, "cudaStreamBeginCapture", &t.cudaStreamBeginCapture, &missing);
    bind(lib, "cudaStreamEndCapture", &t.cudaStreamEndCapture, &missing);
    bind(lib, "cudaGraphInstantiate", &t.cudaGraphInstantiate, &missing);
    bind(lib, "cudaGraphLaunch", &t.cudaGraphLaunch, &missing);
    bind(lib, "cudaGraphExecDestroy", &t.cudaGraphExecDestroy, &missing);
    bind(lib, "cudaGraphDestroy", &t.cudaGraphDestroy, &missing);
    bind(lib, "cudaStreamIsCapturing", &t.cudaStreamIsCapturing, &missing);
    bind(lib, "cudaGraphGetNodes", &t.cudaGraphGetNodes, &missing);
    bind(lib, "cudaDeviceCanAccessPeer", &t.cudaDeviceCanAccessPeer, &missing);
    bind(lib, "cudaDeviceEnablePeerAccess", &t.cudaDeviceEnablePeerAccess, &missing);
    bind(lib, "cudaGetLastError", &t.cudaGetLastError, &missing);
    bind(lib, "cudaGetErrorString", &t.cudaGetErrorString, &missing);
    bind(lib, "cudaGetErrorName", &t.cudaGetErrorName, &missing);
    if (!missing.empty()) out.error = "the loaded CUDA runtime lacks " + missing;
    return out;
}

}  // namespace

const Cudnn &cudnn() {
    static CudnnLoad loaded = load_cudnn();  // thread-safe one-time initialization
    if (!loaded.error.empty()) fail(FE_STATUS_LIBRARY_UNAVAILABLE, loaded.error);
    return loaded.table;
}

const CudaRuntime &cuda() {
    static CudaLoad loaded = load_cuda();
    if (!loaded.error.empty()) fail(FE_STATUS_LIBRARY_UNAVAILABLE, loaded.error);
    return loaded.table;
}

void use_device(int32_t device) {
    const CudaRuntime &rt = cuda();
    int count = 0;
    check_cuda(rt.cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    FE_CHECK(count > 0, FE_STATUS_NO_DEVICE, "no CUDA device is present");
    FE_CHECK(device >= 0 && device < count, FE_STATUS_INVALID_ARGUMENT, "device %d does not exist (%d present)",
             device, count);
    check_cuda(rt.cudaSetDevice(device), "cudaSetDevice");
}

void check_cuda(int code, const char *what) {
    if (code == 0) return;
    const CudaRuntime &rt = cuda();
    rt.cudaGetLastError();  // clear the sticky-free error state for the next call
    std::string text = format("%s failed: %s (%s)", what, rt.cudaGetErrorName(code),
                              rt.cudaGetErrorString(code));
    if (code == kCudaErrorNoDevice || code == kCudaErrorInsufficientDriver || code == kCudaErrorStubLibrary) {
        // A driver without a GPU: cuda's own "no CUDA-capable device" says it best.
        std::string remedy = driver_state() == DriverState::NoDevice ? "" : driver_remedy();
        fail(FE_STATUS_NO_DEVICE, remedy.empty() ? text : format("%s failed: %s", what, remedy.c_str()));
    }
    if (code == kCudaErrorMemoryAllocation) fail(FE_STATUS_OUT_OF_MEMORY, text);
    fail(FE_STATUS_CUDA_ERROR, text);
}

std::string cudnn_last_error_text() {
    char buffer[2048];
    buffer[0] = '\0';
    cudnn().cudnnGetLastErrorString(buffer, sizeof buffer);
    std::string text(buffer);
    for (char &c : text)
        if (c == '\n' || c == '\r') c = ' ';
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text;
}

}  // namespace fe
