// The serialized container, read without cuDNN: a blob made here by the documented layout
// (lib/store/blob.hpp) is described; wrong magic, versions, truncation and checksums are errors.
#include <cstring>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

struct BlobMaker {
    std::vector<unsigned char> bytes;
    void u32(uint32_t v) { for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<unsigned char>(v >> (8 * i))); }
    void u64(uint64_t v) { for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<unsigned char>(v >> (8 * i))); }
    void text(const std::string &s) { u64(s.size()); bytes.insert(bytes.end(), s.begin(), s.end()); }
    void section(const char tag[5], const std::vector<unsigned char> &body) {
        u32(static_cast<uint32_t>(tag[0]) << 24 | static_cast<uint32_t>(tag[1]) << 16 | static_cast<uint32_t>(tag[2]) << 8 |
            static_cast<uint32_t>(tag[3]));
        u64(body.size());
        bytes.insert(bytes.end(), body.begin(), body.end());
    }
    void section(const char tag[5], const std::string &body) { section(tag, std::vector<unsigned char>(body.begin(), body.end())); }
    void seal() {
        uint64_t h = 14695981039346656037ull;
        for (unsigned char c : bytes) { h ^= c; h *= 1099511628211ull; }
        u64(h);
    }
};

std::vector<unsigned char> layout() {
    BlobMaker m;
    m.u64(4096);                 // workspace
    m.u64(7);                    // engine index
    m.text("eng7_k2=1");         // tag
    m.u64(0);                    // by-value uids
    m.u64(0);                    // internal scalars
    m.u64(0);                    // workspace tensors
    m.u64(0);                    // workspace tensor bytes
    m.u64(0);                    // attention nodes
    m.u32(0);                    // autotuned
    m.u64(0);                    // time
    m.u64(12);                   // candidates of the original build
    m.u64(9);                    // viable ones
    return m.bytes;
}

std::vector<unsigned char> blob(uint32_t format = 1, bool with_plan = true, bool extra_section = false) {
    BlobMaker m;
    const char magic[8] = {'C', 'U', 'D', 'N', 'N', 'F', 'E', '\0'};
    m.bytes.insert(m.bytes.end(), magic, magic + 8);
    m.u32(format);
    m.u32(100);
    m.u64(91900);
    m.section("FPRT", std::string("NVIDIA H100 80GB HBM3, sm 900, 132 SMs, 232448 B shared"));
    m.section("DEVI", std::string("{}"));
    m.section("GRPH", std::string("{\"name\":\"made_by_hand\"}"));
    m.section("OPTS", std::string("modes 3 2; policy 0; max workspace -1"));
    if (extra_section) m.section("ZZZZ", std::string("a section from a later format"));
    if (with_plan) m.section("PLAN", std::string("{}"));
    m.section("LAYO", layout());
    m.seal();
    return m.bytes;
}

fe_status describe(const std::vector<unsigned char> &bytes, std::string *text) {
    size_t n = 0;
    fe_status s = fe_serialized_describe(bytes.data(), bytes.size(), nullptr, 0, &n);
    if (s != FE_STATUS_BUFFER_TOO_SMALL) return s;
    text->assign(n + 1, '\0');
    s = fe_serialized_describe(bytes.data(), bytes.size(), &(*text)[0], text->size(), &n);
    text->resize(n);
    return s;
}

TEST(SerializedFormat, AHandMadeBlobIsDescribedWithoutCudnn) {
    std::string text;
    ASSERT_FE_OK(describe(blob(), &text));
    EXPECT_NE(text.find("cuDNN 9.19.0"), std::string::npos) << text;
    EXPECT_NE(text.find("cudnnfe 0.1.0"), std::string::npos) << text;
    EXPECT_NE(text.find("target: NVIDIA H100 80GB HBM3, sm 900, 132 SMs"), std::string::npos) << text;
    EXPECT_NE(text.find("plan: eng7_k2=1 (engine 7), workspace 4096 bytes"), std::string::npos) << text;
    EXPECT_NE(text.find("made_by_hand"), std::string::npos) << text;
}

TEST(SerializedFormat, UnknownSectionsAreSkipped) {
    std::string text;
    EXPECT_FE_OK(describe(blob(1, true, true), &text));
}

TEST(SerializedFormat, ErrorsNameTheCause) {
    std::string text;
    std::vector<unsigned char> b = blob();
    b[0] = 'X';
    EXPECT_EQ(describe(b, &text), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(fe_last_error_message()).find("magic"), std::string::npos) << fe_last_error_message();

    EXPECT_EQ(describe(blob(2), &text), FE_STATUS_NOT_SUPPORTED);
    EXPECT_NE(std::string(fe_last_error_message()).find("format version 2"), std::string::npos) << fe_last_error_message();

    b = blob();
    b[30] ^= 4;
    EXPECT_EQ(describe(b, &text), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(fe_last_error_message()).find("checksum"), std::string::npos) << fe_last_error_message();

    b = blob();
    for (size_t n = 0; n < b.size(); n += 7) {
        std::vector<unsigned char> cut(b.begin(), b.begin() + static_cast<ptrdiff_t>(n));
        cut.push_back(0);
        EXPECT_NE(describe(cut, &text), FE_OK) << "truncated to " << n;
    }

    EXPECT_EQ(describe(blob(1, false), &text), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(fe_last_error_message()).find("lacks its plan section"), std::string::npos)
        << fe_last_error_message();
}

}  // namespace
