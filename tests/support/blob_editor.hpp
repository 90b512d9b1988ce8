// Editing a serialized graph as a writer who fixes the checksum would: the forged-plan tests
// of the deviceless and GPU tiers build their forgeries with it.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace cudnnfe_test {

// The blob's sections by tag, and the bytes before them: enough to edit one and write it back
// with its checksum (FNV-1a 64 over every byte before the checksum).
struct EditableBlob {
    std::vector<unsigned char> head;                                  // magic and versions
    std::vector<std::pair<uint32_t, std::vector<unsigned char>>> sections;

    static constexpr uint32_t kGraph = 0x47525048, kPlan = 0x504C414E, kLayout = 0x4C41594F;

    explicit EditableBlob(const std::vector<unsigned char> &bytes) : head(bytes.begin(), bytes.begin() + 24) {
        size_t at = 24;
        while (at + 8 < bytes.size()) {
            uint32_t tag = 0;
            uint64_t length = 0;
            std::memcpy(&tag, &bytes[at], 4);
            std::memcpy(&length, &bytes[at + 4], 8);
            at += 12;
            sections.emplace_back(tag, std::vector<unsigned char>(bytes.begin() + static_cast<ptrdiff_t>(at),
                                                                 bytes.begin() + static_cast<ptrdiff_t>(at + length)));
            at += length;
        }
    }
    std::vector<unsigned char> &section(uint32_t tag) {
        for (auto &s : sections)
            if (s.first == tag) return s.second;
        ADD_FAILURE() << "no section " << tag;
        return sections.front().second;
    }
    std::string text(uint32_t tag) {
        const std::vector<unsigned char> &s = section(tag);
        return std::string(s.begin(), s.end());
    }
    void set_text(uint32_t tag, const std::string &text) { section(tag).assign(text.begin(), text.end()); }
    // Replaces every occurrence of `from`; fails the test when there is none.
    void replace(uint32_t tag, const std::string &from, const std::string &to) {
        std::string t = text(tag);
        size_t n = 0;
        for (size_t at = t.find(from); at != std::string::npos; at = t.find(from, at + to.size()), ++n)
            t.replace(at, from.size(), to);
        EXPECT_GT(n, 0u) << "'" << from << "' is not in section " << tag;
        set_text(tag, t);
    }
    std::vector<unsigned char> bytes() const {
        std::vector<unsigned char> out = head;
        for (const auto &s : sections) {
            uint64_t length = s.second.size();
            const auto *tag = reinterpret_cast<const unsigned char *>(&s.first);
            const auto *len = reinterpret_cast<const unsigned char *>(&length);
            out.insert(out.end(), tag, tag + 4);
            out.insert(out.end(), len, len + 8);
            out.insert(out.end(), s.second.begin(), s.second.end());
        }
        uint64_t hash = 14695981039346656037ull;
        for (unsigned char c : out) hash = (hash ^ c) * 1099511628211ull;
        const auto *h = reinterpret_cast<const unsigned char *>(&hash);
        out.insert(out.end(), h, h + 8);
        return out;
    }
};

}  // namespace cudnnfe_test
