// What the libFuzzer targets share: the graph's JSON text, and keeping cuDNN out of a target
// that never needs it.
#pragma once

#include <cstdlib>
#include <string>

#include "cudnnfe.h"

namespace fuzz {

// fe_graph_to_json's text; false when the graph does not write.
inline bool graph_json(const fe_graph *g, std::string *out) {
    size_t n = 0;
    if (fe_graph_to_json(g, nullptr, 0, &n) != FE_STATUS_BUFFER_TOO_SMALL) return false;
    out->assign(n + 1, '\0');
    if (fe_graph_to_json(g, &(*out)[0], out->size(), &n) != FE_OK) return false;
    out->resize(n);
    return true;
}

// Reading, validating and describing graphs never load cuDNN or the CUDA runtime: make sure
// nothing does (a target that loads them would fuzz far fewer inputs).
inline void forbid_cuda_libraries() {
    setenv("CUDNNFE_CUDNN_LIBRARY", "/nonexistent/libcudnn.so.9", 1);
    setenv("CUDNNFE_CUDART_LIBRARY", "/nonexistent/libcudart.so", 1);
}

}  // namespace fuzz
