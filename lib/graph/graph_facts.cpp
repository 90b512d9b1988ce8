#include "graph/graph_facts.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>

#include "graph/attribute_writer.hpp"

namespace fe {

namespace {

// A record's first byte: what follows, so that no two different sequences of records give the
// same bytes (every string and array is preceded by its length too).
enum Tag : unsigned char {
    kGraph = 'G', kTarget = 'D', kTensor = 'T', kScalar = 'S', kOp = 'O', kInput = 'I', kOutput = 'U',
    kOutputs = 'E', kInteger = 'i', kNumber = 'n', kBoolean = 'b', kText = 't', kIntegers = 'a',
};

// Writes integers little-endian whatever the host, so the key is the same on every machine.
class Records {
  public:
    explicit Records(std::string &out) : out_(out) {}
    void tag(Tag t) { out_.push_back(static_cast<char>(t)); }
    void integer(int64_t value) {
        char bytes[8];
        for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(static_cast<uint64_t>(value) >> (8 * i));
        out_.append(bytes, 8);
    }
    void flag(bool value) { integer(value ? 1 : 0); }
    // Every NaN is one value, as in the JSON ("nan"); -0 stays apart from 0 ("-0" there).
    void number(double value) {
        if (std::isnan(value)) value = std::numeric_limits<double>::quiet_NaN();
        int64_t bits;
        std::memcpy(&bits, &value, sizeof bits);
        integer(bits);
    }
    void text(std::string_view s) {
        integer(static_cast<int64_t>(s.size()));
        out_.append(s.data(), s.size());
    }
    void integers(const int64_t *values, size_t count) {
        integer(static_cast<int64_t>(count));
        for (size_t i = 0; i < count; ++i) integer(values[i]);
    }

  private:
    std::string &out_;
};

class RecordedAttributes final : public AttributeWriter {
  public:
    explicit RecordedAttributes(Records &r) : r_(r) {}
    void integer(std::string_view name, int64_t value) override { named(kInteger, name), r_.integer(value); }
    void number(std::string_view name, double value) override { named(kNumber, name), r_.number(value); }
    void boolean(std::string_view name, bool value) override { named(kBoolean, name), r_.flag(value); }
    void text(std::string_view name, std::string_view value) override { named(kText, name), r_.text(value); }
    void integers(std::string_view name, const int64_t *values, size_t count) override {
        named(kIntegers, name);
        r_.integers(values, count);
    }

  private:
    void named(Tag t, std::string_view name) {
        r_.tag(t);
        r_.text(name);
    }
    Records &r_;
};

void tensor_records(Records &r, const fe_tensor &t) {
    r.tag(t.by_value ? kScalar : kTensor);
    r.text(t.name);
    r.flag(t.has_uid);
    if (t.has_uid) r.integer(t.uid);
    r.integer(t.data_type);
    if (t.by_value) {
        r.number(t.scalar_value);
        r.flag(t.compile_time_constant);
        return;
    }
    r.integers(t.dims.data(), t.dims.size());
    r.integers(t.strides.data(), t.strides.size());
    r.flag(t.is_virtual());
    r.flag(t.is_output);
    r.text(t.ragged_offset ? std::string_view(t.ragged_offset->name) : std::string_view());
    r.integer(t.alignment);
    // A result's vectorization and reordering follow its operation's inputs; an input's are the caller's.
    const bool vectorized = t.vector_count > 1 && t.is_input();
    r.integer(vectorized ? t.vector_count : 1);
    r.integer(vectorized ? t.vector_dim : -1);
    r.flag(t.reordering == FE_TENSOR_REORDERING_INT8X32 && t.is_input());
}

void op_records(Records &r, const Node &node) {
    r.tag(kOp);
    r.text(node.kind());
    r.text(node.name);
    r.integer(node.compute_data_type);
    r.integer(static_cast<int64_t>(node.inputs.size()));
    for (const fe_tensor *input : node.inputs) {
        r.tag(kInput);
        r.text(input ? std::string_view(input->name) : std::string_view());
        r.flag(input != nullptr);
    }
    r.integer(static_cast<int64_t>(node.outputs.size()));
    for (size_t i = 0; i < node.outputs.size(); ++i) {
        r.tag(kOutput);
        r.text(i < node.output_ports.size() ? std::string_view(node.output_ports[i]) : std::string_view("OUT"));
        r.text(node.outputs[i]->name);
    }
    RecordedAttributes attributes(r);
    node.write_attributes(attributes);
}

}  // namespace

std::string graph_facts(const fe_graph &graph) {
    std::string facts;
    // One allocation for a small graph: the described GPU's text and about 100 bytes a tensor or op.
    facts.reserve(graph.device_properties_json.size() + 128 * (graph.tensors.size() + graph.nodes.size()) + 64);
    Records r(facts);
    r.tag(kGraph);
    r.text(graph.name);
    r.integer(graph.io_data_type);
    r.integer(graph.intermediate_data_type);
    r.integer(graph.compute_data_type);
    r.tag(kTarget);
    r.text(graph.device_properties_json);
    r.integer(static_cast<int64_t>(graph.tensors.size()));
    for (const auto &t : graph.tensors) tensor_records(r, *t);
    r.integer(static_cast<int64_t>(graph.nodes.size()));
    for (const auto &node : graph.nodes) op_records(r, *node);
    r.tag(kOutputs);
    r.integer(static_cast<int64_t>(graph.outputs.size()));
    for (const fe_tensor *t : graph.outputs) r.text(t->name);
    return facts;
}

}  // namespace fe
