// Graph files: one graph object of docs/graph-json.md, or a JSON array of such objects.
#pragma once

#include <string>
#include <vector>

#include "cudnnfe.h"

namespace tool {

struct GraphSource {
    int index = 1;     // 1-based position in the file
    int count = 1;     // graphs in the file
    int line = 1;      // where the graph's text starts in the file
    std::string text;  // the graph's text, preceded by blank lines and spaces so that the
                       // library's "line N" in an error is the line of the file
};

// Splits a file's text into its graphs. Only the array's own structure is checked here (empty
// file, empty array, trailing comma, unclosed array, text after it); each graph's text goes to
// fe_graph_from_json, whose messages name the line and the field. false with `error`.
bool split_graph_file(const std::string &content, std::vector<GraphSource> &out, std::string &error);

// "FILE" for a file of one graph, "FILE, graph 2 of 3" otherwise.
std::string where(const std::string &path, const GraphSource &source);

// fe_graph_from_json on one source; on failure, the status (the message is the library's).
fe_status load_graph(const GraphSource &source, fe_graph **out);

}  // namespace tool
