// The op readers, one file per family under lib/serial/readers/; registry.cpp lists them.
// To add an op family: write register_<family>_readers in its file, declare it here, call it
// from registry.cpp and add the file to meson.build.
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

void register_conv_readers(ReaderTable &table);
void register_matmul_readers(ReaderTable &table);
void register_pointwise_readers(ReaderTable &table);
void register_reduction_readers(ReaderTable &table);
void register_layout_readers(ReaderTable &table);
void register_norm_readers(ReaderTable &table);
void register_attention_readers(ReaderTable &table);
void register_rng_readers(ReaderTable &table);
void register_block_scale_readers(ReaderTable &table);

}  // namespace fe
