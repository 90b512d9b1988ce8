// The graph as JSON text and back (docs/graph-json.md). Both throw fe::Error; reading errors
// name the line and the field ("line 12, ops[1].attributes.stride: expected ...").
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/sha256.hpp"
#include "graph/graph.hpp"

namespace fe {

// Appends the canonical text to `out` (the same graph always gives the same bytes). `drain`, when
// given, is called after each tensor and operation with the text written so far, which it may
// consume and clear: the graph's key hashes the text that way without ever holding it whole.
// `with_target` false leaves out the described GPU (device_properties), which says where the graph
// is built, not what it is.
void write_graph_json(const fe_graph &graph, std::string &out, const std::function<void(std::string &)> &drain = {},
                      bool with_target = true);
std::string graph_to_json(const fe_graph &graph);

// The SHA-256 of the canonical text less the target, hashed as it is written (never held whole):
// the graph's key (fe_graph_key), which a caller can check against the text. The plan cache keys
// on the same facts without the text (graph/graph_facts.hpp).
Sha256 graph_json_digest(const fe_graph &graph);

// Throws FE_STATUS_INVALID_ARGUMENT when `bytes` is over FE_GRAPH_JSON_MAX_BYTES.
void check_graph_json_size(size_t bytes);

// A new graph, built through the same calls as the C API (every check and inference runs);
// text over FE_GRAPH_JSON_MAX_BYTES is refused unread.
std::unique_ptr<fe_graph> graph_from_json(std::string_view text);

// Data type names as the JSON spells them ("half", "fp8_e4m3", "not_set").
bool data_type_from_name(std::string_view name, fe_data_type *out);

}  // namespace fe
