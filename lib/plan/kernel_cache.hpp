// The kernel cache of dynamic-shape builds: cuDNN's CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, shared
// by the graphs built with it, and its form in the persistent cache directory.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/descriptor.hpp"

namespace fe {

struct KernelCache {
    // cuDNN writes the cache while it finalizes a plan built with it, and reads it when it
    // serializes: one at a time.
    std::mutex mutex;
    Descriptor descriptor;   // CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR
    bool finalized = false;  // bound to the operation graph of the first build
    std::string fingerprint; // the GPU kind of that build (device_fingerprint)
    // The CUDA device of the first build on a GPU (-1: none yet, or deviceless builds only): the
    // kernels cuDNN loads from the cache live there.
    int32_t device = -1;
    // The engine configs (tags) whose kernels the cache holds: a new shape builds fastest from
    // one of them. Kept with a stored cache; a cache read from cuDNN's JSON starts without them.
    std::vector<std::string> compiled;  // most recently built first
};

// Record that the cache holds this config's kernels (it moves to the front). Caller holds
// cache.mutex.
void note_config(KernelCache &cache, const std::string &tag);

// Whether the cache holds the kernels of this engine config (by its tag; cuDNN 9.19 does not
// answer the question itself). Caller holds cache.mutex.
bool holds_config(const KernelCache &cache, const std::string &tag);

// A new cache, or one read from cuDNN's JSON form (checked, then given to cuDNN).
std::shared_ptr<KernelCache> make_kernel_cache();
std::shared_ptr<KernelCache> kernel_cache_from_json(const char *json, size_t length);
// cuDNN's JSON form (cuDNN 9.10); BAD_STATE before any graph was built with the cache.
std::string kernel_cache_to_json(KernelCache &cache);

// Bind the cache to a finalized dynamic-shape operation graph at its first use (cuDNN needs one
// operation graph to finalize the cache); later graphs only use it. Caller holds cache.mutex.
void prepare_kernel_cache(KernelCache &cache, const Descriptor &operation_graph);

// The entry `name` for a GPU kind and the loaded cuDNN, in a cache directory.
std::string kernel_cache_key(const std::string &name, const std::string &fingerprint);
std::vector<unsigned char> kernel_cache_entry(KernelCache &cache, const std::string &key);
// The cache an entry holds; raises INVALID_ARGUMENT (saying why) for an entry of another key or
// one that is not ours.
std::shared_ptr<KernelCache> kernel_cache_from_entry(const std::vector<unsigned char> &bytes, const std::string &key);

}  // namespace fe

// The caller's reference to a cache that the graphs built with it share.
struct fe_kernel_cache {
    std::shared_ptr<fe::KernelCache> cache;
};
