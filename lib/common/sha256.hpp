// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104): the plan cache's key (on every cached build,
// hits included) and what authenticates the entries of a cache directory shared between users
// (store/cache_secret.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace fe {

using Sha256Digest = std::array<unsigned char, 32>;

class Sha256 {
  public:
    Sha256();
    void update(const void *data, size_t size);
    Sha256Digest finish();

  private:
    void block(const unsigned char *p);
    uint32_t state_[8];
    unsigned char buffer_[64];
    size_t buffered_ = 0;
    uint64_t length_ = 0;  // bytes
};

// HMAC-SHA256 under `key` of `data` followed by `more` (optional).
Sha256Digest hmac_sha256(const unsigned char *key, size_t key_size, const void *data, size_t size,
                         const void *more = nullptr, size_t more_size = 0);

// 64 lowercase hex digits.
std::string hex_digest(const Sha256Digest &digest);

// Compares without stopping at the first difference: a forger learns nothing from the time taken.
bool same_digest(const Sha256Digest &a, const unsigned char *b);

}  // namespace fe
