// The secret that lets users share one cache directory: with CUDNNFE_CACHE_SECRET naming a file
// (16 to 4096 bytes, owned by this process's user, readable and writable by no one else), every
// entry written carries an HMAC-SHA256 of its bytes under that secret, and an entry is read,
// whoever owns it, only when its MAC verifies. Whoever holds the secret can write entries that
// others will run; whoever does not can only delete them (a rebuild).
#pragma once

#include <string>
#include <vector>

namespace fe {

struct CacheSecret {
    std::vector<unsigned char> key;  // empty when none is configured or it is unusable
    std::string error;               // configured but unusable: why ("" otherwise)
    bool usable() const { return !key.empty(); }
};

// The secret CUDNNFE_CACHE_SECRET names now (read at each call: the file may change).
CacheSecret load_cache_secret();

// `bytes` followed by the trailer that authenticates them.
std::vector<unsigned char> signed_entry(const CacheSecret &secret, const std::vector<unsigned char> &bytes);

// Strips and checks the trailer: true when `bytes` held an entry signed with this secret (then
// they hold the entry alone); otherwise false with *why.
bool verify_signed_entry(const CacheSecret &secret, std::vector<unsigned char> *bytes, std::string *why);

}  // namespace fe
