#include "plan/kernel_cache.hpp"

#include <algorithm>
#include <cstring>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "cudnnfe.h"
#include "common/json.hpp"

namespace fe {

namespace {

// cuDNN's JSON of a cache holds compiled kernels: megabytes, not gigabytes.
constexpr size_t kMaxJsonBytes = size_t(256) << 20;
const char kEntryMagic[] = "cudnnfe kernel cache 1\n";

int64_t loaded_version() { return static_cast<int64_t>(cudnn().cudnnGetVersion()); }

}  // namespace

std::shared_ptr<KernelCache> make_kernel_cache() {
    require(Feature::kernel_cache, loaded_version());
    auto cache = std::make_shared<KernelCache>();
    cache->descriptor = Descriptor(CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR);
    return cache;
}

std::shared_ptr<KernelCache> kernel_cache_from_json(const char *json, size_t length) {
    require(Feature::kernel_cache_serialization, loaded_version());
    FE_CHECK(length <= kMaxJsonBytes, FE_STATUS_INVALID_ARGUMENT, "the kernel cache is %zu bytes, over the %zu a cache may hold",
             length, kMaxJsonBytes);
    // cuDNN parses it too, but the text may come from disk or another process: it reaches cuDNN
    // only once it is known to be one well-formed JSON object.
    json::Type type = json::check(std::string_view(json, length));
    FE_CHECK(type == json::Type::Object, FE_STATUS_INVALID_ARGUMENT, "the kernel cache is %s, not a JSON object",
             json::type_name(type));
    auto cache = make_kernel_cache();
    cudnnStatus_t st = cudnn().cudnnBackendSetAttribute(cache->descriptor.get(), CUDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION,
                                                        CUDNN_TYPE_CHAR, static_cast<int64_t>(length), json);
    if (st != CUDNN_STATUS_SUCCESS) {
        std::string reason = cudnn_last_error_text();
        FE_FAIL(FE_STATUS_INVALID_ARGUMENT, "cuDNN did not read the kernel cache: %s%s%s%s",
                cudnn().cudnnGetErrorString(st), reason.empty() ? "" : " (", reason.c_str(), reason.empty() ? "" : ")");
    }
    return cache;
}

std::string kernel_cache_to_json(KernelCache &cache) {
    require(Feature::kernel_cache_serialization, loaded_version());
    FE_CHECK(cache.finalized, FE_STATUS_BAD_STATE,
             "the kernel cache holds no kernels yet: build a graph with it (fe_build_options.kernel_cache) first");
    int64_t size = 0;
    check_cudnn(cudnn().cudnnBackendGetAttribute(cache.descriptor.get(), CUDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION,
                                                 CUDNN_TYPE_CHAR, 0, &size, nullptr),
                "reading the size of CUDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION");
    std::string json(static_cast<size_t>(size), '\0');
    check_cudnn(cudnn().cudnnBackendGetAttribute(cache.descriptor.get(), CUDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION,
                                                 CUDNN_TYPE_CHAR, size, &size, json.data()),
                "reading CUDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION");
    json.resize(std::strlen(json.c_str()));  // cuDNN counts the terminating NUL
    return json;
}

void prepare_kernel_cache(KernelCache &cache, const Descriptor &operation_graph) {
    if (cache.finalized) return;
    cache.descriptor.set_desc(CUDNN_ATTR_KERNEL_CACHE_OPERATION_GRAPH, operation_graph,
                              "CUDNN_ATTR_KERNEL_CACHE_OPERATION_GRAPH");
    // A cache read back is parsed by cuDNN here: a text it cannot use is the caller's input.
    cache.descriptor.finalize("binding the kernel cache to the operation graph", FE_STATUS_INVALID_ARGUMENT);
    cache.finalized = true;
}

bool holds_config(const KernelCache &cache, const std::string &tag) {
    return std::find(cache.compiled.begin(), cache.compiled.end(), tag) != cache.compiled.end();
}

void note_config(KernelCache &cache, const std::string &tag) {
    auto at = std::find(cache.compiled.begin(), cache.compiled.end(), tag);
    if (at != cache.compiled.end()) cache.compiled.erase(at);
    cache.compiled.insert(cache.compiled.begin(), tag);
}

std::string kernel_cache_key(const std::string &name, const std::string &fingerprint) {
    return format("kernel cache %s\n%s\ncuDNN %lld\ncudnnfe %d\n", name.c_str(), fingerprint.c_str(),
                  static_cast<long long>(loaded_version()), FE_VERSION);
}

// An entry: the magic line, the key, a line of the configs the cache holds, then cuDNN's JSON.
std::vector<unsigned char> kernel_cache_entry(KernelCache &cache, const std::string &key) {
    std::string configs;
    for (const std::string &tag : cache.compiled) configs += (configs.empty() ? "" : ",") + tag;
    std::string text = kEntryMagic + key + "\nconfigs " + configs + "\n" + kernel_cache_to_json(cache);
    return std::vector<unsigned char>(text.begin(), text.end());
}

std::shared_ptr<KernelCache> kernel_cache_from_entry(const std::vector<unsigned char> &bytes, const std::string &key) {
    std::string header = kEntryMagic + key + "\n";
    FE_CHECK(bytes.size() > header.size() && std::memcmp(bytes.data(), header.data(), header.size()) == 0,
             FE_STATUS_INVALID_ARGUMENT, "it is not a kernel cache for this name, GPU and cuDNN");
    std::string rest(reinterpret_cast<const char *>(bytes.data()) + header.size(), bytes.size() - header.size());
    size_t end = rest.find('\n');
    FE_CHECK(rest.compare(0, 8, "configs ") == 0 && end != std::string::npos && end < 64 * 1024, FE_STATUS_INVALID_ARGUMENT,
             "it has no list of the engine configs it holds");
    std::vector<std::string> compiled;
    std::string list = rest.substr(8, end - 8);
    for (size_t from = 0; from < list.size();) {
        size_t comma = list.find(',', from);
        if (comma == std::string::npos) comma = list.size();
        std::string tag = list.substr(from, comma - from);
        // Tags are the library's own ("eng<N>_k<type>=<value>..."): plain characters only.
        FE_CHECK(!tag.empty() && tag.size() < 256 &&
                     tag.find_first_not_of("engk_=-0123456789") == std::string::npos,
                 FE_STATUS_INVALID_ARGUMENT, "its list of engine configs holds a name that is no engine config tag");
        if (std::find(compiled.begin(), compiled.end(), tag) == compiled.end()) compiled.push_back(tag);
        from = comma + 1;
    }
    auto cache = kernel_cache_from_json(rest.data() + end + 1, rest.size() - end - 1);
    cache->compiled = std::move(compiled);
    return cache;
}

}  // namespace fe
