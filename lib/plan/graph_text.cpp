#include "plan/graph_text.hpp"

#include "common/error.hpp"

namespace fe {

std::string graph_to_json_text(const fe_graph &graph) {
    size_t length = 0;
    fe_status st = fe_graph_to_json(&graph, nullptr, 0, &length);
    if (st != FE_STATUS_BUFFER_TOO_SMALL) throw Error(st, fe_last_error_message());
    std::string text(length + 1, '\0');
    st = fe_graph_to_json(&graph, &text[0], text.size(), &length);
    if (st != FE_OK) throw Error(st, fe_last_error_message());
    text.resize(length);
    return text;
}

std::unique_ptr<fe_graph> graph_from_json_text(const std::string &json) {
    fe_graph *graph = nullptr;
    fe_status st = fe_graph_from_json(json.data(), json.size(), &graph);
    if (st != FE_OK) throw Error(st, fe_last_error_message());
    return std::unique_ptr<fe_graph>(graph);
}

}  // namespace fe
