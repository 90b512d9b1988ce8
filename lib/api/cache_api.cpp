// Autotuning, plan cache and serialization entry points.
#include "api/guard.hpp"
#include "graph/graph.hpp"
#include "runtime/handle.hpp"

using namespace fe;

#define FE_NOT_YET(name) FE_FAIL(FE_STATUS_NOT_SUPPORTED, "%s is not implemented yet", name)

FE_EXPORT fe_status fe_graph_autotune(fe_graph *graph, fe_handle *handle, int32_t, int32_t, double *) {
    return guard("fe_graph_autotune", [&] { FE_REQUIRE(graph); FE_REQUIRE(handle); FE_NOT_YET("autotune"); });
}
FE_EXPORT fe_status fe_graph_plan_time_us(const fe_graph *graph, int64_t, double *out_us) {
    return guard("fe_graph_plan_time_us", [&] { FE_REQUIRE(graph); FE_REQUIRE(out_us); FE_NOT_YET("autotune"); });
}
FE_EXPORT fe_status fe_graph_from_cache(fe_handle *, const char *key, fe_graph **out_graph) {
    return guard("fe_graph_from_cache", [&] { FE_REQUIRE(key); FE_REQUIRE(out_graph); FE_NOT_YET("the plan cache"); });
}
FE_EXPORT fe_status fe_handle_set_cache_directory(fe_handle *handle, const char *) {
    return guard("fe_handle_set_cache_directory", [&] { FE_REQUIRE(handle); FE_NOT_YET("the plan cache"); });
}
FE_EXPORT fe_status fe_handle_set_cache_limit(fe_handle *handle, int64_t) {
    return guard("fe_handle_set_cache_limit", [&] { FE_REQUIRE(handle); FE_NOT_YET("the plan cache"); });
}
FE_EXPORT fe_status fe_plan_cache_stats(int64_t *, int64_t *, int64_t *, int64_t *) {
    return guard("fe_plan_cache_stats", [&] { FE_NOT_YET("the plan cache"); });
}
FE_EXPORT fe_status fe_plan_cache_clear(void) {
    return guard("fe_plan_cache_clear", [&] { FE_NOT_YET("the plan cache"); });
}
FE_EXPORT fe_status fe_graph_serialize(const fe_graph *graph, void *, size_t, size_t *out_size) {
    return guard("fe_graph_serialize", [&] { FE_REQUIRE(graph); FE_REQUIRE(out_size); FE_NOT_YET("serialization"); });
}
FE_EXPORT fe_status fe_graph_deserialize(fe_handle *, const void *data, size_t, const fe_deserialize_options *,
                                         fe_graph **out_graph) {
    return guard("fe_graph_deserialize", [&] { FE_REQUIRE(data); FE_REQUIRE(out_graph); FE_NOT_YET("serialization"); });
}
FE_EXPORT fe_status fe_serialized_describe(const void *data, size_t, char *, size_t, size_t *out_length) {
    return guard("fe_serialized_describe", [&] { FE_REQUIRE(data); FE_REQUIRE(out_length); FE_NOT_YET("serialization"); });
}
