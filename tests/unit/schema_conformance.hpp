// What the graph JSON writes for each op, held to the op schema (fe_op_schema_json): every
// attribute is one of the op's option fields or parameters, every input one of its ports or
// tensor options, every output one of its output ports. The round-trip test runs it on the
// graph of every op and collects the kinds it saw, so an op without a case fails too.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace cudnnfe_test {

// Checks each op of `graph_json` (gtest failures name the op and the member); adds the kinds
// it saw to `kinds`.
void expect_ops_match_schema(const std::string &graph_json, std::set<std::string> *kinds);
// Every op kind the schema describes (a family with one kind per mode contributes every mode).
std::set<std::string> schema_kinds();

// The graph JSON of one op with its default options, from its description alone: for every op
// whose required inputs all have example dims (and which has no required parameter), a float
// graph with those inputs and its unconditional outputs marked as outputs.
struct ExampleGraph {
    std::string kind, json;
};
std::vector<ExampleGraph> example_graphs();

}  // namespace cudnnfe_test
