#include "plan_round_trip.hpp"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "harness.hpp"

namespace conformance {
namespace {

std::atomic<int64_t> not_loaded_back{0};

std::string engine_tag(const fe_graph *graph) {
    const char *tag = nullptr;
    if (fe_graph_engine_tag(graph, &tag) != FE_OK || !tag) return "?";
    return tag;
}

// Whether this blob is one of the first few of its family (counted across threads).
bool wanted(const std::string &family) {
    static std::mutex mutex;
    static std::map<std::string, long> written;
    const char *per = std::getenv("CUDNNFE_CONFORMANCE_PLANS_PER_FAMILY");
    const long limit = per && *per ? std::strtol(per, nullptr, 10) : 20;
    std::lock_guard<std::mutex> lock(mutex);
    return written[family]++ < limit;
}

void keep(const std::vector<unsigned char> &bytes, const std::string &family, uint64_t seed, int64_t index) {
    const char *dir = std::getenv("CUDNNFE_CONFORMANCE_PLANS");
    if (!dir || !*dir || !wanted(family)) return;
    write_case_file(dir, family, seed, index, ".fegraph", bytes.data(), bytes.size());
}

// Empty, or why the graph's plan does not come back as itself; `bytes` receives the blob.
std::string round_trip(const fe_graph *graph, fe_handle *handle, std::vector<unsigned char> &bytes) {
    size_t n = 0;
    fe_status s = fe_graph_serialize(graph, nullptr, 0, &n);
    if (s != FE_STATUS_BUFFER_TOO_SMALL) return std::string("fe_graph_serialize: ") + fe_last_error_message();
    bytes.resize(n);
    if (fe_graph_serialize(graph, bytes.data(), bytes.size(), &n) != FE_OK)
        return std::string("fe_graph_serialize: ") + fe_last_error_message();
    fe_graph *back = nullptr;
    if (fe_graph_deserialize(handle, bytes.data(), n, nullptr, &back) != FE_OK)
        return std::string("the plan cuDNN built does not load back: ") + fe_last_error_message();
    std::string built = engine_tag(graph), loaded = engine_tag(back);
    fe_graph_destroy(back);
    if (built != loaded) return "the plan built as " + built + " loads back as " + loaded;
    return "";
}

}  // namespace

int64_t plans_not_loaded_back() { return not_loaded_back.load(); }

std::string plan_round_trip(const fe_graph *graph, fe_handle *handle, const std::string &family, uint64_t seed,
                            int64_t index) {
    std::vector<unsigned char> bytes;
    std::string why = round_trip(graph, handle, bytes);
    if (!why.empty()) {
        ++not_loaded_back;
        return why;
    }
    keep(bytes, family, seed, index);
    return "";
}

}  // namespace conformance
