// fe_handle: a device, a stream, a cuDNN handle, a managed workspace, and per-handle scratch
// that lets execution run without allocating.
#pragma once

#include <cudnn_graph.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/descriptor.hpp"

struct fe_handle {
    int32_t device = 0;
    void *stream = nullptr;
    cudnnHandle_t cudnn = nullptr;

    void *workspace = nullptr;
    int64_t workspace_bytes = 0;

    // Scratch for binding: one pointer per slot; grows to the largest graph seen, then stays.
    std::vector<void *> pointers;
    // The variant pack's pointers when it takes a subset of `pointers` (inputs read only
    // through slices); grows like `pointers`.
    std::vector<void *> pack_pointers;

    // The variant packs cuDNN was last given, so that an execute whose plan, pointers and
    // workspace match one of them builds no descriptor: the same buffers call after call (an
    // inference loop), or a few sets taken in turn (double buffering, a training loop's
    // alternating activations). Replaced in turn; build_id 0 marks an empty entry.
    struct CachedPack {
        fe::Descriptor pack;
        uint64_t build_id = 0;
        std::vector<void *> pointers;
        void *workspace = nullptr;
    };
    std::array<CachedPack, 4> packs;
    size_t next_pack = 0;          // the entry the next new pack replaces
    CachedPack *current = nullptr;  // the pack the execute in progress runs
    void forget_packs() {
        for (CachedPack &p : packs) p.build_id = 0;
    }

    // The GPU's description and fingerprint (plan cache keys, serialization); captured at
    // first need.
    std::string device_json;
    std::string fingerprint;
    // Persistent plan cache: Unset reads CUDNNFE_CACHE_DIR at each build.
    enum class CacheDirectory { Unset, Set, Off } cache_mode = CacheDirectory::Unset;
    std::string cache_directory;
    int64_t cache_limit_bytes = int64_t(1) << 30;

    ~fe_handle();
    // Grow the managed workspace to at least `bytes` (waits for in-flight work first).
    void *ensure_workspace(int64_t bytes);
    // Make the handle's device current on this thread if it is not.
    void make_current() const;
};

namespace fe {
fe_handle *create_handle(int32_t device);
// Make `device` current on this thread if it is not (cuDNN works on the current device).
void make_device_current(int32_t device);
}
