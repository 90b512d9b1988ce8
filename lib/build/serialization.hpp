// fe_graph_serialize / fe_graph_deserialize / fe_serialized_describe.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.hpp"

struct fe_handle;

namespace fe {

std::vector<unsigned char> serialize_graph(const fe_graph &graph);
fe_graph *deserialize_graph(fe_handle *handle, const unsigned char *data, size_t size,
                            const fe_deserialize_options &options);
std::string describe_serialized(const unsigned char *data, size_t size);

}  // namespace fe
