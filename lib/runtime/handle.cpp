#include "runtime/handle.hpp"

#include <memory>

#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/log.hpp"

namespace fe {

fe_handle *create_handle(int32_t device) {
    const Cudnn &dnn = cudnn();
    use_device(device);
    auto handle = std::make_unique<fe_handle>();
    handle->device = device;
    check_cudnn(dnn.cudnnCreate(&handle->cudnn), "cudnnCreate");
    FE_LOG_INFO("handle created on device %d", device);
    return handle.release();
}

}  // namespace fe

fe_handle::~fe_handle() {
    try {
        if (workspace || cudnn) fe::cuda().cudaSetDevice(device);  // both belong to this device
        for (CachedPack &p : packs) p.pack = fe::Descriptor();
        if (workspace) fe::cuda().cudaFree(workspace);
        if (cudnn) fe::cudnn().cudnnDestroy(cudnn);
    } catch (...) {
        // The libraries were loaded when this handle was made; nothing can fail here.
    }
}

namespace {
// cuDNN calls the driver API, which needs a current context on the calling thread. A thread
// that never made a CUDA runtime call has none, and cudaGetDevice alone does not create one,
// so each thread calls cudaSetDevice at least once.
thread_local bool t_context_bound = false;
}  // namespace

void fe::make_device_current(int32_t device) {
    const fe::CudaRuntime &rt = fe::cuda();
    int current = -1;
    fe::check_cuda(rt.cudaGetDevice(&current), "cudaGetDevice");
    if (!t_context_bound || current != device) {
        fe::check_cuda(rt.cudaSetDevice(device), "cudaSetDevice");
        t_context_bound = true;
    }
}

void fe_handle::make_current() const { fe::make_device_current(device); }

void *fe_handle::ensure_workspace(int64_t bytes) {
    if (bytes <= workspace_bytes) return workspace;
    const fe::CudaRuntime &rt = fe::cuda();
    make_current();
    if (workspace) {
        // Work queued on the stream may still use the old block.
        fe::check_cuda(rt.cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        rt.cudaFree(workspace);
        workspace = nullptr;
        workspace_bytes = 0;
        forget_packs();  // the cached variant packs point at the old block
    }
    void *p = nullptr;
    fe::check_cuda(rt.cudaMalloc(&p, static_cast<size_t>(bytes)), "cudaMalloc (workspace)");
    workspace = p;
    workspace_bytes = bytes;
    FE_LOG_INFO("handle workspace grown to %lld bytes", static_cast<long long>(bytes));
    return workspace;
}
