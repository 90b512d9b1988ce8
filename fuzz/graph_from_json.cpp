// libFuzzer target: fe_graph_from_json on any bytes. Besides "no crash, no leak, no undefined
// behaviour", a graph that reads must write, and what it writes must read back to the same
// text (before and after validation): the text is the plan cache's key.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cudnnfe.h"
#include "fuzz_support.hpp"

namespace {

[[noreturn]] void finding(const char *what) {
    std::fprintf(stderr, "graph JSON property broken: %s (%s)\n", what, fe_last_error_message());
    std::abort();
}

// Write g, read the text back, and compare.
void check_round_trip(const fe_graph *g) {
    std::string first, second;
    if (!fuzz::graph_json(g, &first)) finding("a graph read from JSON does not write");
    fe_graph *back = nullptr;
    if (fe_graph_from_json(first.data(), first.size(), &back) != FE_OK) finding("the written text does not read");
    if (!fuzz::graph_json(back, &second)) finding("the re-read graph does not write");
    if (first != second) finding("the round trip changed the text");
    fe_graph_destroy(back);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    fuzz::forbid_cuda_libraries();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fe_graph *g = nullptr;
    fe_status status = fe_graph_from_json(reinterpret_cast<const char *>(data), size, &g);
    if (status != FE_OK) {
        const char *message = fe_last_error_message();
        if (g != nullptr) finding("the output was written on failure");
        if (std::strncmp(message, "fe_graph_from_json: ", 20) != 0 || std::strchr(message, '\n'))
            finding("the message is not one line naming the call");
        return 0;
    }
    check_round_trip(g);
    if (fe_graph_validate(g) == FE_OK) check_round_trip(g);
    fe_graph_destroy(g);
    return 0;
}
