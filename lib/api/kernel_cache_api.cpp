// Kernel cache entry points: dynamic-shape builds that share compiled kernels.
#include <string>

#include "api/guard.hpp"
#include "common/log.hpp"
#include "build/build_graph.hpp"
#include "plan/device_properties.hpp"
#include "plan/kernel_cache.hpp"
#include "store/plan_cache.hpp"
#include "runtime/handle.hpp"

using namespace fe;

namespace {

// Names become part of a file's key: short and plain, so that a name is never a path.
void require_entry_name(const char *name) {
    size_t n = 0;
    for (const char *c = name; *c; ++c, ++n) {
        bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
                     *c == '_' || *c == '.';
        FE_CHECK(plain, FE_STATUS_INVALID_ARGUMENT,
                 "name '%s' has a character other than letters, digits, '-', '_' and '.'", name);
    }
    FE_CHECK(n >= 1 && n <= 64, FE_STATUS_INVALID_ARGUMENT, "name '%s' has %zu characters: 1 to 64", name, n);
}

std::string directory_or_fail(const fe_handle *handle) {
    std::string directory = persistent_cache_directory(handle);
    FE_CHECK(!directory.empty(), FE_STATUS_BAD_STATE,
             "there is no usable cache directory: set one with fe_handle_set_cache_directory or CUDNNFE_CACHE_DIR");
    return directory;
}

fe_kernel_cache *wrap(std::shared_ptr<KernelCache> cache) {
    auto *out = new fe_kernel_cache;
    out->cache = std::move(cache);
    return out;
}

}  // namespace

FE_EXPORT fe_status fe_kernel_cache_create(fe_kernel_cache **out_cache) {
    return guard("fe_kernel_cache_create", [&] {
        FE_REQUIRE(out_cache);
        *out_cache = nullptr;
        *out_cache = wrap(make_kernel_cache());
    });
}

FE_EXPORT fe_status fe_kernel_cache_destroy(fe_kernel_cache *cache) {
    return guard("fe_kernel_cache_destroy", [&] { delete cache; });
}

FE_EXPORT fe_status fe_kernel_cache_serialize(const fe_kernel_cache *cache, char *buf, size_t buf_size,
                                              size_t *out_length) {
    return guard("fe_kernel_cache_serialize", [&] {
        FE_REQUIRE(cache);
        FE_REQUIRE(out_length);
        std::string json;
        {
            std::lock_guard<std::mutex> lock(cache->cache->mutex);
            json = kernel_cache_to_json(*cache->cache);
        }
        copy_out(json, buf, buf_size, out_length);
    });
}

FE_EXPORT fe_status fe_kernel_cache_deserialize(const char *json, size_t length, fe_kernel_cache **out_cache) {
    return guard("fe_kernel_cache_deserialize", [&] {
        FE_REQUIRE(out_cache);
        *out_cache = nullptr;
        FE_REQUIRE(json);
        *out_cache = wrap(kernel_cache_from_json(json, length));
    });
}

FE_EXPORT fe_status fe_kernel_cache_store(const fe_kernel_cache *cache, fe_handle *handle, const char *name) {
    return guard("fe_kernel_cache_store", [&] {
        FE_REQUIRE(cache);
        FE_REQUIRE(name);
        require_entry_name(name);
        std::string directory = directory_or_fail(handle);
        std::vector<unsigned char> entry;
        {
            KernelCache &c = *cache->cache;
            std::lock_guard<std::mutex> lock(c.mutex);
            FE_CHECK(!c.fingerprint.empty(), FE_STATUS_BAD_STATE,
                     "the kernel cache holds no kernels yet: build a graph with it (fe_build_options.kernel_cache) first");
            std::string key = kernel_cache_key(name, c.fingerprint);
            entry = kernel_cache_entry(c, key);
            write_cache_file(directory, cache_file(directory, key), entry, persistent_cache_limit(handle));
        }
    });
}

FE_EXPORT fe_status fe_kernel_cache_load(fe_handle *handle, const char *name, fe_kernel_cache **out_cache) {
    return guard("fe_kernel_cache_load", [&] {
        FE_REQUIRE(out_cache);
        *out_cache = nullptr;
        FE_REQUIRE(handle);
        FE_REQUIRE(name);
        require_entry_name(name);
        std::string directory = directory_or_fail(handle);
        std::string key = kernel_cache_key(name, handle_fingerprint(*handle));
        std::string path = cache_file(directory, key);
        std::vector<unsigned char> bytes = read_cache_file(path);
        FE_CHECK(!bytes.empty(), FE_STATUS_NOT_FOUND, "no kernel cache named '%s' for this GPU and cuDNN in %s", name,
                 directory.c_str());
        std::shared_ptr<KernelCache> cache;
        try {
            cache = kernel_cache_from_entry(bytes, key);
        } catch (const Error &e) {
            FE_LOG_WARN("kernel cache: rejected %s (%s); removed", path.c_str(), e.what());
            count(CacheEvent::Rejected);
            remove_cache_file(path);
            FE_FAIL(FE_STATUS_NOT_FOUND, "the kernel cache named '%s' in %s was not usable (%s); it was removed", name,
                    directory.c_str(), e.what());
        }
        cache->fingerprint = handle_fingerprint(*handle);
        *out_cache = wrap(std::move(cache));
    });
}

FE_EXPORT fe_status fe_graph_set_kernel_cache(fe_graph *graph, fe_kernel_cache *cache) {
    return guard("fe_graph_set_kernel_cache", [&] {
        FE_REQUIRE(graph);
        graph->require_editable();
        graph->kernel_cache = cache ? cache->cache : nullptr;
    });
}
