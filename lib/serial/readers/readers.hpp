// The op readers. Most ops need none: their description (an add function in the schema) is
// read by read_described_op. The few whose JSON needs more than the description says have a
// reader of their own, one file per family under lib/serial/readers/, listed in registry.cpp.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "serial/readers/reader.hpp"

namespace fe {

class ReaderTable {
  public:
    void add(const char *kind, OpReadFunction read) { entries_.emplace_back(kind, read); }
    OpReadFunction find(const std::string &kind) const {
        for (const auto &e : entries_)
            if (kind == e.first) return e.second;
        return nullptr;
    }

  private:
    std::vector<std::pair<const char *, OpReadFunction>> entries_;
};

// The reader of an op whose description has an add function (described.cpp).
void read_described_op(OpReader &reader);

void register_layout_readers(ReaderTable &table);

}  // namespace fe
