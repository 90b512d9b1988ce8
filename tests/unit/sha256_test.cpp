// SHA-256 and HMAC-SHA256 against published vectors (FIPS 180-4 examples, RFC 4231), so the MAC
// that authenticates shared cache entries is the standard one.
#include <gtest/gtest.h>

#include <string>

#include "common/sha256.hpp"

namespace {

// The library's own hex form, which the published digests check too.
std::string hex(const fe::Sha256Digest &d) { return fe::hex_digest(d); }

std::string sha256(const std::string &text) {
    fe::Sha256 h;
    h.update(text.data(), text.size());
    return hex(h.finish());
}

std::string hmac(const std::string &key, const std::string &data) {
    return hex(fe::hmac_sha256(reinterpret_cast<const unsigned char *>(key.data()), key.size(), data.data(), data.size()));
}

TEST(Sha256, MatchesThePublishedDigests) {
    EXPECT_EQ(sha256(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(sha256(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, HmacMatchesRfc4231) {
    EXPECT_EQ(hmac(std::string(20, '\x0b'), "Hi There"),
              "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    EXPECT_EQ(hmac("Jefe", "what do ya want for nothing?"),
              "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    // A key longer than the block (131 bytes) is hashed first.
    EXPECT_EQ(hmac(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First"),
              "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(Sha256, HmacOfTwoPartsIsTheHmacOfTheirConcatenation) {
    const unsigned char key[] = "a key";
    fe::Sha256Digest joined = fe::hmac_sha256(key, 5, "part one, part two", 18);
    fe::Sha256Digest parts = fe::hmac_sha256(key, 5, "part one, ", 10, "part two", 8);
    EXPECT_EQ(hex(joined), hex(parts));
    EXPECT_TRUE(fe::same_digest(joined, parts.data()));
    parts[31] ^= 1;
    EXPECT_FALSE(fe::same_digest(joined, parts.data()));
}

}  // namespace
