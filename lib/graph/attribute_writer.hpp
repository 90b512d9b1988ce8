// What an operation states about itself besides its ports: its attributes, by name, in a fixed
// order (Node::write_attributes). Two writers take them: the graph JSON, which writes them as
// members (lib/serial), and the graph's facts, which records them in binary without making any
// text (graph/graph_facts.hpp, the plan cache's key).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace fe {

class AttributeWriter {
  public:
    virtual ~AttributeWriter() = default;
    virtual void integer(std::string_view name, int64_t value) = 0;
    virtual void number(std::string_view name, double value) = 0;
    virtual void boolean(std::string_view name, bool value) = 0;
    virtual void text(std::string_view name, std::string_view value) = 0;
    virtual void integers(std::string_view name, const int64_t *values, size_t count) = 0;

    AttributeWriter &field(std::string_view name, int64_t value) { return integer(name, value), *this; }
    AttributeWriter &field(std::string_view name, int32_t value) { return integer(name, value), *this; }
    AttributeWriter &field(std::string_view name, bool value) { return boolean(name, value), *this; }
    AttributeWriter &field(std::string_view name, const char *value) { return text(name, value), *this; }
    AttributeWriter &field(std::string_view name, const std::vector<int64_t> &values) {
        return integers(name, values.data(), values.size()), *this;
    }
};

}  // namespace fe
