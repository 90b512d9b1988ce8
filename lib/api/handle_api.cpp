// fe_handle_* entry points.
#include "api/guard.hpp"
#include "backend/descriptor.hpp"
#include "backend/loader.hpp"
#include "runtime/handle.hpp"
#include "runtime/reorder.hpp"

using namespace fe;

FE_EXPORT fe_status fe_handle_create(int32_t device, fe_handle **out_handle) {
    return guard("fe_handle_create", [&] {
        FE_REQUIRE(out_handle);
        *out_handle = create_handle(device);
    });
}

FE_EXPORT fe_status fe_device_enable_peer_access(int32_t device, int32_t peer) {
    return guard("fe_device_enable_peer_access", [&] {
        const CudaRuntime &rt = cuda();
        int count = 0;
        check_cuda(rt.cudaGetDeviceCount(&count), "cudaGetDeviceCount");
        for (int32_t d : {device, peer})
            FE_CHECK(d >= 0 && d < count, FE_STATUS_INVALID_ARGUMENT, "device %d does not exist (%d present)", d, count);
        FE_CHECK(device != peer, FE_STATUS_INVALID_ARGUMENT, "device and peer are both %d: a GPU reaches its own memory",
                 device);
        int possible = 0;
        check_cuda(rt.cudaDeviceCanAccessPeer(&possible, device, peer), "cudaDeviceCanAccessPeer");
        FE_CHECK(possible, FE_STATUS_NOT_SUPPORTED, "device %d cannot reach device %d's memory (no peer path)", device,
                 peer);
        make_device_current(device);
        int code = rt.cudaDeviceEnablePeerAccess(peer, 0);
        if (code == kCudaErrorPeerAccessAlreadyEnabled) {
            rt.cudaGetLastError();  // not an error here; clear it
            return;
        }
        check_cuda(code, "cudaDeviceEnablePeerAccess");
    });
}

FE_EXPORT void fe_handle_destroy(fe_handle *handle) { delete handle; }

FE_EXPORT fe_status fe_handle_set_stream(fe_handle *handle, void *stream) {
    return guard("fe_handle_set_stream", [&] {
        FE_REQUIRE(handle);
        check_cudnn(cudnn().cudnnSetStream(handle->cudnn, static_cast<cudaStream_t>(stream)), "cudnnSetStream");
        handle->stream = stream;
    });
}

FE_PROPERTY(fe_handle_get_stream, fe_handle, handle, void *, out_stream, handle->stream)

FE_EXPORT fe_status fe_handle_reorder_filter_int8x32(fe_handle *handle, const fe_tensor *filter, const void *values,
                                                     void *reordered) {
    return guard("fe_handle_reorder_filter_int8x32", [&] {
        FE_REQUIRE(handle);
        FE_REQUIRE(filter);
        FE_REQUIRE(values);
        FE_REQUIRE(reordered);
        reorder_filter_int8x32(*handle, *filter, values, reordered);
    });
}

FE_PROPERTY(fe_handle_get_device, fe_handle, handle, int32_t, out_device, handle->device)

FE_EXPORT fe_status fe_handle_synchronize(fe_handle *handle) {
    return guard("fe_handle_synchronize", [&] {
        FE_REQUIRE(handle);
        handle->make_current();
        check_cuda(cuda().cudaStreamSynchronize(handle->stream), "cudaStreamSynchronize");
    });
}

FE_PROPERTY(fe_handle_workspace_size, fe_handle, handle, int64_t, out_bytes, handle->workspace_bytes)
