// Floating-point operations of one execution of a graph, from its JSON (docs/graph-json.md), for
// bench's TFLOPS column. Counted for the operations that dominate (matmuls, convolutions,
// attention); 0 when the graph has none of them.
#pragma once

#include <string>

namespace tool {

double graph_flops(const std::string &graph_json);

}  // namespace tool
