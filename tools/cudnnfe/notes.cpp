#include "notes.hpp"

#include <cstdio>

namespace tool {

namespace {

template <size_t N>
std::vector<std::string> note_names(const std::pair<int, const char *> (&names)[N], unsigned long long mask) {
    std::vector<std::string> out;
    for (const auto &n : names)
        if (mask & static_cast<unsigned long long>(n.first)) {
            out.push_back(n.second);
            mask &= ~static_cast<unsigned long long>(n.first);
        }
    for (int bit = 0; bit < 64; ++bit)
        if (mask & (1ull << bit)) {
            char hex[24];
            std::snprintf(hex, sizeof hex, "0x%llx", 1ull << bit);
            out.push_back(hex);
        }
    return out;
}

}  // namespace

std::vector<std::string> numerical_note_names(unsigned long long mask) { return note_names(kNumericalNotes, mask); }
std::vector<std::string> behavior_note_names(unsigned long long mask) { return note_names(kBehaviorNotes, mask); }

}  // namespace tool
