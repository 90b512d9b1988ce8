// fe_buffer: device memory that cudnnfe allocates, for callers with no other CUDA binding.
#pragma once

#include <cstdint>

struct fe_buffer {
    int32_t device = 0;
    void *pointer = nullptr;
    int64_t bytes = 0;
    ~fe_buffer();
};

namespace fe {
fe_buffer *create_buffer(int32_t device, int64_t bytes);
void buffer_upload(fe_buffer &buffer, const void *host, int64_t bytes);
void buffer_download(const fe_buffer &buffer, void *host, int64_t bytes);
void buffer_upload_float(fe_buffer &buffer, const float *host, int64_t count, int type);
void buffer_download_float(const fe_buffer &buffer, float *host, int64_t count, int type);
void buffer_fill(fe_buffer &buffer, uint8_t value);
}  // namespace fe
