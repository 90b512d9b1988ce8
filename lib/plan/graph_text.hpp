// A graph as JSON text and back (the format of docs/graph-json.md), for the plan cache's keys
// and the serialized form. Both throw fe::Error.
#pragma once

#include <memory>
#include <string>

#include "graph/graph.hpp"

namespace fe {

std::string graph_to_json_text(const fe_graph &graph);
std::unique_ptr<fe_graph> graph_from_json_text(const std::string &json);

}  // namespace fe
