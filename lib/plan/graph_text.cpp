#include "plan/graph_text.hpp"

#include "serial/graph_json.hpp"

namespace fe {

std::string graph_to_json_text(const fe_graph &graph) { return graph_to_json(graph); }

std::unique_ptr<fe_graph> graph_from_json_text(const std::string &json) { return graph_from_json(json); }

}  // namespace fe
