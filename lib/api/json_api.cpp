// Graph <-> JSON entry points (the format of docs/graph-json.md; the codec is lib/serial).
#include <string>

#include "api/guard.hpp"
#include "graph/graph.hpp"
#include "serial/graph_json.hpp"

using namespace fe;

FE_EXPORT fe_status fe_graph_to_json(const fe_graph *graph, char *buf, size_t buf_size, size_t *out_length) {
    return guard("fe_graph_to_json", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(out_length);
        copy_out(graph_to_json(*graph), buf, buf_size, out_length);
    });
}

FE_EXPORT fe_status fe_graph_key(const fe_graph *graph, char *buf, size_t buf_size, size_t *out_length) {
    return guard("fe_graph_key", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(out_length);
        copy_out(hex_digest(graph_json_digest(*graph).finish()), buf, buf_size, out_length);
    });
}

FE_EXPORT fe_status fe_graph_from_json(const char *json, size_t length, fe_graph **out_graph) {
    return guard("fe_graph_from_json", [&] {
        FE_REQUIRE(json);
        FE_REQUIRE(out_graph);
        *out_graph = graph_from_json(std::string_view(json, length)).release();
    });
}
