// Version, status and error queries, logging, library versions, device capture.
#include "api/guard.hpp"
#include "backend/known_devices.hpp"
#include "backend/loader.hpp"
#include "common/log.hpp"
#include "graph/tensor.hpp"
#include "plan/device_properties.hpp"

using namespace fe;

#define FE_STRINGIFY2(x) #x
#define FE_STRINGIFY(x) FE_STRINGIFY2(x)

FE_EXPORT uint32_t fe_version(void) { return FE_VERSION; }

FE_EXPORT const char *fe_version_string(void) {
    return FE_STRINGIFY(FE_VERSION_MAJOR) "." FE_STRINGIFY(FE_VERSION_MINOR) "." FE_STRINGIFY(FE_VERSION_PATCH);
}

FE_EXPORT const char *fe_status_string(fe_status status) {
    switch (status) {
        case FE_OK: return "FE_OK";
        case FE_STATUS_INVALID_ARGUMENT: return "FE_STATUS_INVALID_ARGUMENT";
        case FE_STATUS_NULL_POINTER: return "FE_STATUS_NULL_POINTER";
        case FE_STATUS_BAD_STATE: return "FE_STATUS_BAD_STATE";
        case FE_STATUS_NOT_FOUND: return "FE_STATUS_NOT_FOUND";
        case FE_STATUS_DUPLICATE: return "FE_STATUS_DUPLICATE";
        case FE_STATUS_VALIDATION: return "FE_STATUS_VALIDATION";
        case FE_STATUS_BUFFER_TOO_SMALL: return "FE_STATUS_BUFFER_TOO_SMALL";
        case FE_STATUS_MISALIGNED: return "FE_STATUS_MISALIGNED";
        case FE_STATUS_NOT_SUPPORTED: return "FE_STATUS_NOT_SUPPORTED";
        case FE_STATUS_LIBRARY_UNAVAILABLE: return "FE_STATUS_LIBRARY_UNAVAILABLE";
        case FE_STATUS_CUDNN_ERROR: return "FE_STATUS_CUDNN_ERROR";
        case FE_STATUS_CUDA_ERROR: return "FE_STATUS_CUDA_ERROR";
        case FE_STATUS_OUT_OF_MEMORY: return "FE_STATUS_OUT_OF_MEMORY";
        case FE_STATUS_NO_DEVICE: return "FE_STATUS_NO_DEVICE";
        case FE_STATUS_INTERNAL: return "FE_STATUS_INTERNAL";
        case FE_STATUS_CANNOT_TELL: return "FE_STATUS_CANNOT_TELL";
    }
    return "FE_STATUS_UNKNOWN";
}

FE_EXPORT const char *fe_last_error_message(void) { return last_error(); }

FE_EXPORT const char *fe_data_type_string(fe_data_type type) { return data_type_name(type); }

FE_EXPORT size_t fe_data_type_size(fe_data_type type) { return data_type_size(type); }

FE_EXPORT size_t fe_data_type_bits(fe_data_type type) { return data_type_bits(type); }

FE_EXPORT fe_status fe_log_set_level(fe_log_level level) {
    return guard("fe_log_set_level", [&] {
        FE_CHECK(level >= FE_LOG_OFF && level <= FE_LOG_DEBUG, FE_STATUS_INVALID_ARGUMENT,
                 "level %d is not one of FE_LOG_OFF..FE_LOG_DEBUG", static_cast<int>(level));
        g_log_level.store(level);
    });
}

FE_EXPORT fe_status fe_log_set_callback(fe_log_callback callback, void *user_data) {
    return guard("fe_log_set_callback", [&] { log_set_callback(callback, user_data); });
}

FE_EXPORT fe_status fe_cudnn_version(int64_t *out_version) {
    return guard("fe_cudnn_version", [&] {
        FE_REQUIRE(out_version);
        *out_version = static_cast<int64_t>(cudnn().cudnnGetVersion());
    });
}

FE_EXPORT fe_status fe_cuda_runtime_version(int32_t *out_version) {
    return guard("fe_cuda_runtime_version", [&] {
        FE_REQUIRE(out_version);
        int v = 0;
        check_cuda(cuda().cudaRuntimeGetVersion(&v), "cudaRuntimeGetVersion");
        *out_version = v;
    });
}

FE_EXPORT fe_status fe_device_count(int32_t *out_count) {
    return guard("fe_device_count", [&] {
        FE_REQUIRE(out_count);
        int n = 0;
        int code = cuda().cudaGetDeviceCount(&n);
        // "No device" and "no driver" are answers here, not errors.
        if (code == kCudaErrorNoDevice || code == kCudaErrorInsufficientDriver || code == kCudaErrorStubLibrary) {
            cuda().cudaGetLastError();
            n = 0;
        } else {
            check_cuda(code, "cudaGetDeviceCount");
        }
        *out_count = n;
    });
}

FE_EXPORT fe_status fe_device_properties_for_sm(int32_t sm_version, char *buf, size_t buf_size, size_t *out_length) {
    return guard("fe_device_properties_for_sm", [&] {
        FE_REQUIRE(out_length);
        const char *known = known_device_properties(sm_version);
        FE_CHECK(known, FE_STATUS_NOT_SUPPORTED,
                 "no description of an sm %d GPU is carried (the library has %s): capture the target's with "
                 "fe_device_properties_capture",
                 sm_version, known_sm_versions().c_str());
        copy_out(known, buf, buf_size, out_length);
    });
}

FE_EXPORT fe_status fe_device_properties_capture(int32_t device, char *buf, size_t buf_size, size_t *out_length) {
    return guard("fe_device_properties_capture", [&] {
        FE_REQUIRE(out_length);
        copy_out(capture_device_properties(device), buf, buf_size, out_length);
    });
}
