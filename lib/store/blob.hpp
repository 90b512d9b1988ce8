// The serialized form of a built graph: a versioned, checksummed container of sections.
//
//   "CUDNNFE\0"  magic (8 bytes)
//   u32          format version (kBlobFormat)
//   u32          cudnnfe version (FE_VERSION)
//   u64          cuDNN version (cudnnGetVersion)
//   sections     u32 tag, u64 length, bytes  (unknown tags are skipped: later formats may add)
//   u64          FNV-1a 64 of every byte before it
//
// All integers little-endian. Reading checks every length against the bytes left, so
// truncated or corrupted input is an error, never a crash.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/plan_record.hpp"

namespace fe {

constexpr uint32_t kBlobFormat = 1;

struct Blob {
    uint32_t format = kBlobFormat;
    uint32_t library_version = 0;
    uint64_t cudnn_version = 0;
    std::string fingerprint;   // the target GPU (device_fingerprint)
    std::string device_json;   // cuDNN's description of that GPU (deviceless reloads)
    std::string graph_json;    // the graph, as fe_graph_to_json writes it
    std::string build_options; // what the plan was built with (part of the cache key)
    std::string plan_json;     // cuDNN's serialization of the chosen plan
    // The record's fields other than the plan (workspace, engine, scalars, ...), encoded.
    PlanRecord record;
};

std::vector<unsigned char> write_blob(const Blob &blob);
// Throws FE_STATUS_INVALID_ARGUMENT naming what is wrong (magic, truncation, checksum, ...).
Blob read_blob(const unsigned char *data, size_t size);

uint64_t fnv1a64(const void *data, size_t size, uint64_t seed = 14695981039346656037ull);

}  // namespace fe
