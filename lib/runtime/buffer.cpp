#include "runtime/buffer.hpp"

#include <cstring>
#include <memory>
#include <vector>

#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/half.hpp"
#include "graph/tensor.hpp"

namespace fe {

namespace {
void set_device(int32_t device) { check_cuda(cuda().cudaSetDevice(device), "cudaSetDevice"); }

void check_fits(const fe_buffer &buffer, int64_t bytes, const char *what) {
    FE_CHECK(bytes >= 0, FE_STATUS_INVALID_ARGUMENT, "%s size %lld is negative", what, static_cast<long long>(bytes));
    FE_CHECK(bytes <= buffer.bytes, FE_STATUS_BUFFER_TOO_SMALL, "%s of %lld bytes does not fit the buffer of %lld bytes",
             what, static_cast<long long>(bytes), static_cast<long long>(buffer.bytes));
}

size_t float_type_size(int type) {
    switch (type) {
        case FE_DATA_FLOAT: return 4;
        case FE_DATA_DOUBLE: return 8;
        case FE_DATA_HALF:
        case FE_DATA_BFLOAT16: return 2;
        case FE_DATA_FP8_E4M3:
        case FE_DATA_FP8_E5M2: return 1;
        default:
            FE_FAIL(FE_STATUS_INVALID_ARGUMENT,
                    "conversion from float supports float, double, half, bfloat16, fp8_e4m3 and fp8_e5m2, not %s",
                    data_type_name(static_cast<fe_data_type>(type)));
    }
}
}  // namespace

fe_buffer *create_buffer(int32_t device, int64_t bytes) {
    FE_CHECK(bytes > 0, FE_STATUS_INVALID_ARGUMENT, "size %lld must be positive", static_cast<long long>(bytes));
    use_device(device);
    const CudaRuntime &rt = cuda();
    void *p = nullptr;
    check_cuda(rt.cudaMalloc(&p, static_cast<size_t>(bytes)), "cudaMalloc");
    auto buffer = std::make_unique<fe_buffer>();
    buffer->device = device;
    buffer->pointer = p;
    buffer->bytes = bytes;
    return buffer.release();
}

void buffer_upload(fe_buffer &buffer, const void *host, int64_t bytes) {
    check_fits(buffer, bytes, "an upload");
    if (bytes == 0) return;
    set_device(buffer.device);
    check_cuda(cuda().cudaMemcpy(buffer.pointer, host, static_cast<size_t>(bytes), kCudaMemcpyHostToDevice),
               "cudaMemcpy (host to device)");
}

void buffer_download(const fe_buffer &buffer, void *host, int64_t bytes) {
    check_fits(buffer, bytes, "a download");
    if (bytes == 0) return;
    set_device(buffer.device);
    check_cuda(cuda().cudaMemcpy(host, buffer.pointer, static_cast<size_t>(bytes), kCudaMemcpyDeviceToHost),
               "cudaMemcpy (device to host)");
}

void buffer_upload_float(fe_buffer &buffer, const float *host, int64_t count, int type) {
    size_t size = float_type_size(type);
    FE_CHECK(count >= 0, FE_STATUS_INVALID_ARGUMENT, "count %lld is negative", static_cast<long long>(count));
    check_fits(buffer, count * static_cast<int64_t>(size), "an upload");
    if (type == FE_DATA_FLOAT) return buffer_upload(buffer, host, count * 4);
    std::vector<unsigned char> staged(static_cast<size_t>(count) * size);
    for (int64_t i = 0; i < count; ++i) {
        if (type == FE_DATA_DOUBLE) {
            double v = host[i];
            std::memcpy(&staged[static_cast<size_t>(i) * 8], &v, 8);
        } else if (size == 1) {
            staged[static_cast<size_t>(i)] =
                type == FE_DATA_FP8_E4M3 ? float_to_fp8_e4m3(host[i]) : float_to_fp8_e5m2(host[i]);
        } else {
            uint16_t v = type == FE_DATA_HALF ? float_to_half(host[i]) : float_to_bfloat16(host[i]);
            std::memcpy(&staged[static_cast<size_t>(i) * 2], &v, 2);
        }
    }
    buffer_upload(buffer, staged.data(), static_cast<int64_t>(staged.size()));
}

void buffer_download_float(const fe_buffer &buffer, float *host, int64_t count, int type) {
    size_t size = float_type_size(type);
    FE_CHECK(count >= 0, FE_STATUS_INVALID_ARGUMENT, "count %lld is negative", static_cast<long long>(count));
    check_fits(buffer, count * static_cast<int64_t>(size), "a download");
    if (type == FE_DATA_FLOAT) return buffer_download(buffer, host, count * 4);
    std::vector<unsigned char> staged(static_cast<size_t>(count) * size);
    buffer_download(buffer, staged.data(), static_cast<int64_t>(staged.size()));
    for (int64_t i = 0; i < count; ++i) {
        if (type == FE_DATA_DOUBLE) {
            double v;
            std::memcpy(&v, &staged[static_cast<size_t>(i) * 8], 8);
            host[i] = static_cast<float>(v);
        } else if (size == 1) {
            uint8_t v = staged[static_cast<size_t>(i)];
            host[i] = type == FE_DATA_FP8_E4M3 ? fp8_e4m3_to_float(v) : fp8_e5m2_to_float(v);
        } else {
            uint16_t v;
            std::memcpy(&v, &staged[static_cast<size_t>(i) * 2], 2);
            host[i] = type == FE_DATA_HALF ? half_to_float(v) : bfloat16_to_float(v);
        }
    }
}

void buffer_fill(fe_buffer &buffer, uint8_t value) {
    set_device(buffer.device);
    check_cuda(cuda().cudaMemset(buffer.pointer, value, static_cast<size_t>(buffer.bytes)), "cudaMemset");
}

}  // namespace fe

fe_buffer::~fe_buffer() {
    try {
        if (pointer) {
            fe::cuda().cudaSetDevice(device);
            fe::cuda().cudaFree(pointer);
        }
    } catch (...) {
    }
}
