// libFuzzer target: serialized graphs (lib/store/blob.*) on any bytes, through
// fe_serialized_describe and fe_graph_deserialize, and the container reader and graph JSON
// inside it directly (cuDNN is kept unloadable so that every input stays within cudnnfe's own
// code: the plan section is cuDNN's to read). The mutator keeps the FNV-1a checksum valid most
// of the time, and mutates one section at a time, so inputs get past the checksum to the
// sections' contents.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "cudnnfe.h"
#include "fuzz_support.hpp"
#include "graph/graph.hpp"
#include "store/blob.hpp"
#include "serial/graph_json.hpp"

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

namespace {

const char kDevice[] = "{\"deviceName\":\"fuzz\",\"multiProcessorCount\":132}";
const size_t kHeader = 8 + 4 + 4 + 8;  // magic, format, cudnnfe version, cuDNN version

uint64_t read64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(p[i]) << (8 * i);
    return v;
}

void write64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

bool looks_like_blob(const uint8_t *data, size_t size) {
    return size >= kHeader + 8 && std::memcmp(data, "CUDNNFE\0", 8) == 0;
}

void fix_checksum(uint8_t *data, size_t size) {
    if (looks_like_blob(data, size)) write64(data + size - 8, fe::fnv1a64(data, size - 8));
}

// Mutate the body of one section chosen by `seed`, rewriting its length; false when the
// bytes do not parse as sections.
bool mutate_section(std::vector<uint8_t> &blob, size_t max_size, unsigned seed) {
    struct Section {
        size_t start, body, length;
    };
    std::vector<Section> sections;
    size_t at = kHeader, end = blob.size() - 8;
    while (at < end) {
        if (end - at < 12) return false;
        uint64_t length = read64(&blob[at + 4]);
        if (length > end - at - 12) return false;
        sections.push_back({at, at + 12, static_cast<size_t>(length)});
        at += 12 + length;
    }
    if (sections.empty()) return false;
    const Section &s = sections[seed % sections.size()];
    std::vector<uint8_t> body(blob.begin() + static_cast<ptrdiff_t>(s.body),
                              blob.begin() + static_cast<ptrdiff_t>(s.body + s.length));
    size_t room = max_size > blob.size() ? max_size - blob.size() + s.length : s.length;
    body.resize(room + 1);
    size_t n = LLVMFuzzerMutate(body.data(), s.length, room);
    body.resize(n);
    std::vector<uint8_t> out(blob.begin(), blob.begin() + static_cast<ptrdiff_t>(s.body));
    write64(&out[s.start + 4], n);
    out.insert(out.end(), body.begin(), body.end());
    out.insert(out.end(), blob.begin() + static_cast<ptrdiff_t>(s.body + s.length), blob.end());
    if (out.size() > max_size) return false;
    blob.swap(out);
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    fuzz::forbid_cuda_libraries();
    return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    if (looks_like_blob(data, size) && seed % 2 == 0) {
        std::vector<uint8_t> blob(data, data + size);
        if (mutate_section(blob, max_size, seed / 2)) {
            fix_checksum(blob.data(), blob.size());
            std::memcpy(data, blob.data(), blob.size());
            return blob.size();
        }
    }
    size_t n = LLVMFuzzerMutate(data, size, max_size);
    if (seed % 8 != 1) fix_checksum(data, n);  // now and then a bad checksum, to test that path too
    return n;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t length = 0;
    if (fe_serialized_describe(data, size, nullptr, 0, &length) == FE_STATUS_BUFFER_TOO_SMALL) {
        std::string text(length + 1, '\0');
        if (fe_serialized_describe(data, size, &text[0], text.size(), &length) != FE_OK) std::abort();
    }
    fe_deserialize_options options = FE_DESERIALIZE_OPTIONS_INIT;
    options.device_properties_json = kDevice;
    fe_graph *graph = nullptr;
    if (fe_graph_deserialize(nullptr, data, size, &options, &graph) == FE_OK) fe_graph_destroy(graph);
    // What fe_graph_deserialize reads before it needs cuDNN.
    try {
        fe::Blob blob = fe::read_blob(data, size);
        std::unique_ptr<fe_graph> g = fe::graph_from_json(blob.graph_json);
        g->validate();
        g->assign_uids();
        fe::graph_to_json(*g);
    } catch (const fe::Error &) {
    }
    return 0;
}
