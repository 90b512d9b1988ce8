// Autotuning, plan cache and serialization entry points.
#include <cstring>
#include <string>

#include "api/guard.hpp"
#include "plan/autotune.hpp"
#include "build/build_graph.hpp"
#include "plan/build_state.hpp"
#include "store/plan_cache.hpp"
#include "build/serialization.hpp"
#include "runtime/handle.hpp"

using namespace fe;

FE_EXPORT fe_status fe_graph_autotune(fe_graph *graph, fe_handle *handle, int32_t warmup, int32_t iterations,
                                      double *out_best_us) {
    return guard("fe_graph_autotune", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(handle);
        double best = autotune(*graph, *handle, warmup, iterations);
        if (out_best_us) *out_best_us = best;
    });
}

FE_EXPORT fe_status fe_graph_plan_time_us(const fe_graph *graph, size_t plan_index, double *out_us) {
    return guard("fe_graph_plan_time_us", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(out_us);
        FE_CHECK(graph->stage == fe_graph::Stage::Built && graph->build && !graph->build->search.plan_times_us.empty(),
                 FE_STATUS_BAD_STATE, "graph '%s' has not been autotuned", graph->name.c_str());
        const std::vector<double> &times = graph->build->search.plan_times_us;
        FE_CHECK(plan_index < times.size(), FE_STATUS_INVALID_ARGUMENT, "plan index %zu is out of range (%zu timed)",
                 plan_index, times.size());
        *out_us = times[plan_index];
    });
}

FE_EXPORT fe_status fe_graph_from_cache(fe_handle *handle, const char *cache_key, fe_graph **out_graph) {
    return guard("fe_graph_from_cache", [&] {
        FE_REQUIRE(cache_key);
        FE_REQUIRE(out_graph);
        if (handle) handle->make_current();
        fe_graph *graph = graph_from_user_key(handle, cache_key);
        FE_CHECK(graph != nullptr, FE_STATUS_NOT_FOUND, "no graph was built under the key '%s'", cache_key);
        *out_graph = graph;
    });
}

FE_EXPORT fe_status fe_handle_set_cache_directory(fe_handle *handle, const char *directory) {
    return guard("fe_handle_set_cache_directory", [&] {
        FE_REQUIRE(handle);
        if (!directory) {
            handle->cache_mode = fe_handle::CacheDirectory::Off;
            handle->cache_directory.clear();
            return;
        }
        FE_CHECK(*directory != '\0', FE_STATUS_INVALID_ARGUMENT, "the directory is empty (NULL turns the cache off)");
        std::string unsafe = unsafe_directory_reason(directory);
        FE_CHECK(unsafe.empty(), FE_STATUS_INVALID_ARGUMENT, "%s: %s", directory, unsafe.c_str());
        handle->cache_mode = fe_handle::CacheDirectory::Set;
        handle->cache_directory = directory;
    });
}

FE_EXPORT fe_status fe_handle_set_cache_limit(fe_handle *handle, int64_t max_bytes) {
    return guard("fe_handle_set_cache_limit", [&] {
        FE_REQUIRE(handle);
        FE_CHECK(max_bytes > 0, FE_STATUS_INVALID_ARGUMENT, "the limit must be positive, got %lld",
                 static_cast<long long>(max_bytes));
        handle->cache_limit_bytes = max_bytes;
    });
}

FE_EXPORT fe_status fe_plan_cache_stats(int64_t *out_memory_hits, int64_t *out_disk_hits, int64_t *out_misses,
                                        int64_t *out_rejected) {
    return guard("fe_plan_cache_stats", [&] { cache_stats(out_memory_hits, out_disk_hits, out_misses, out_rejected); });
}

FE_EXPORT fe_status fe_plan_cache_clear(void) {
    return guard("fe_plan_cache_clear", [&] { memory_clear(); });
}

FE_EXPORT fe_status fe_plan_cache_evictions(int64_t *out_evictions) {
    return guard("fe_plan_cache_evictions", [&] {
        FE_REQUIRE(out_evictions);
        *out_evictions = memory_evictions();
    });
}

FE_EXPORT fe_status fe_graph_serialize(const fe_graph *graph, void *buf, size_t buf_size, size_t *out_size) {
    return guard("fe_graph_serialize", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(out_size);
        std::vector<unsigned char> bytes = serialize_graph(*graph);
        *out_size = bytes.size();
        FE_CHECK(buf && buf_size >= bytes.size(), FE_STATUS_BUFFER_TOO_SMALL,
                 "the serialized graph needs %zu bytes; the buffer has %zu", bytes.size(), buf ? buf_size : size_t(0));
        std::memcpy(buf, bytes.data(), bytes.size());
    });
}

FE_EXPORT fe_status fe_graph_deserialize(fe_handle *handle, const void *data, size_t size,
                                         const fe_deserialize_options *options, fe_graph **out_graph) {
    return guard("fe_graph_deserialize", [&] {
        FE_REQUIRE(data);
        FE_REQUIRE(out_graph);
        const fe_deserialize_options defaults = FE_DESERIALIZE_OPTIONS_INIT;
        fe_deserialize_options o = read_options(options, defaults);
        if (handle) handle->make_current();
        *out_graph = deserialize_graph(handle, static_cast<const unsigned char *>(data), size, o);
    });
}

FE_EXPORT fe_status fe_serialized_describe(const void *data, size_t size, char *buf, size_t buf_size,
                                           size_t *out_length) {
    return guard("fe_serialized_describe", [&] {
        FE_REQUIRE(data);
        FE_REQUIRE(out_length);
        copy_out(describe_serialized(static_cast<const unsigned char *>(data), size), buf, buf_size, out_length);
    });
}
