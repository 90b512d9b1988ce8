// fe_buffer_* entry points.
#include "api/guard.hpp"
#include "graph/tensor.hpp"
#include "runtime/buffer.hpp"

using namespace fe;

FE_EXPORT fe_status fe_buffer_create(int32_t device, int64_t size_bytes, fe_buffer **out_buffer) {
    return guard("fe_buffer_create", [&] {
        FE_REQUIRE(out_buffer);
        *out_buffer = create_buffer(device, size_bytes);
    });
}

FE_EXPORT fe_status fe_buffer_create_for_tensor(int32_t device, const fe_tensor *tensor, fe_buffer **out_buffer) {
    return guard("fe_buffer_create_for_tensor", [&] {
        FE_REQUIRE(tensor);
        FE_REQUIRE(out_buffer);
        FE_CHECK(tensor->data_type != FE_DATA_NOT_SET, FE_STATUS_BAD_STATE,
                 "'%s' has no data type yet (set one, or validate the graph first)", tensor->name.c_str());
        *out_buffer = create_buffer(device, tensor_bytes(*tensor));
    });
}

FE_EXPORT void fe_buffer_destroy(fe_buffer *buffer) { delete buffer; }

FE_PROPERTY(fe_buffer_device_pointer, fe_buffer, buffer, void *, out_pointer, buffer->pointer)

FE_PROPERTY(fe_buffer_size, fe_buffer, buffer, int64_t, out_bytes, buffer->bytes)

FE_EXPORT fe_status fe_buffer_upload(fe_buffer *buffer, const void *host, int64_t size_bytes) {
    return guard("fe_buffer_upload", [&] {
        FE_REQUIRE(buffer);
        FE_REQUIRE(host);
        buffer_upload(*buffer, host, size_bytes);
    });
}

FE_EXPORT fe_status fe_buffer_download(const fe_buffer *buffer, void *host, int64_t size_bytes) {
    return guard("fe_buffer_download", [&] {
        FE_REQUIRE(buffer);
        FE_REQUIRE(host);
        buffer_download(*buffer, host, size_bytes);
    });
}

FE_EXPORT fe_status fe_buffer_upload_float(fe_buffer *buffer, const float *host, int64_t count,
                                           fe_data_type device_type) {
    return guard("fe_buffer_upload_float", [&] {
        FE_REQUIRE(buffer);
        FE_REQUIRE(host);
        buffer_upload_float(*buffer, host, count, device_type);
    });
}

FE_EXPORT fe_status fe_buffer_download_float(const fe_buffer *buffer, float *host, int64_t count,
                                             fe_data_type device_type) {
    return guard("fe_buffer_download_float", [&] {
        FE_REQUIRE(buffer);
        FE_REQUIRE(host);
        buffer_download_float(*buffer, host, count, device_type);
    });
}

FE_SETTER(fe_buffer_fill_bytes, fe_buffer, buffer, uint8_t, value, buffer_fill(*buffer, value))
