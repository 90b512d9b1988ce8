#include "store/cache_secret.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/environment.hpp"
#include "common/error.hpp"
#include "common/file_read.hpp"
#include "common/sha256.hpp"

namespace fe {

namespace {

constexpr size_t kMinSecretBytes = 16, kMaxSecretBytes = 4096;
// The trailer: this magic, then the 32-byte MAC of a domain label and the entry's bytes.
const unsigned char kMagic[8] = {'F', 'E', 'H', 'M', 'A', 'C', '0', '1'};
const char kLabel[] = "cudnnfe cache entry";

Sha256Digest mac_of(const CacheSecret &secret, const unsigned char *bytes, size_t size) {
    return hmac_sha256(secret.key.data(), secret.key.size(), kLabel, sizeof kLabel, bytes, size);
}

}  // namespace

CacheSecret load_cache_secret() {
    CacheSecret secret;
    const char *path = environment("CUDNNFE_CACHE_SECRET");
    if (!path || !*path) return secret;
    const std::string where = std::string("CUDNNFE_CACHE_SECRET ") + path + ": ";
    int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        secret.error = where + std::strerror(errno);
        return secret;
    }
    struct stat st;
    if (::fstat(fd, &st) != 0) {
        secret.error = where + std::strerror(errno);
    } else if (!S_ISREG(st.st_mode)) {
        secret.error = where + "it is not a regular file";
    } else if (st.st_uid != ::geteuid()) {
        secret.error = where + format("it is owned by user %u, not by this process's user %u",
                                      static_cast<unsigned>(st.st_uid), static_cast<unsigned>(::geteuid()));
    } else if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        secret.error = where + format("others may read or write it (mode %03o): make it 0600",
                                      static_cast<unsigned>(st.st_mode & 0777));
    } else if (st.st_size < static_cast<off_t>(kMinSecretBytes) || st.st_size > static_cast<off_t>(kMaxSecretBytes)) {
        secret.error = where + format("it holds %lld bytes; a secret is %zu to %zu bytes",
                                      static_cast<long long>(st.st_size), kMinSecretBytes, kMaxSecretBytes);
    } else {
        std::vector<unsigned char> key = read_up_to(fd, static_cast<size_t>(st.st_size));
        if (key.size() == static_cast<size_t>(st.st_size))
            secret.key = std::move(key);
        else
            secret.error = where + "it could not be read whole";
    }
    ::close(fd);
    return secret;
}

std::vector<unsigned char> signed_entry(const CacheSecret &secret, const std::vector<unsigned char> &bytes) {
    Sha256Digest mac = mac_of(secret, bytes.data(), bytes.size());
    std::vector<unsigned char> out = bytes;
    out.insert(out.end(), kMagic, kMagic + sizeof kMagic);
    out.insert(out.end(), mac.begin(), mac.end());
    return out;
}

bool verify_signed_entry(const CacheSecret &secret, std::vector<unsigned char> *bytes, std::string *why) {
    const size_t trailer = sizeof kMagic + 32;
    if (bytes->size() < trailer || std::memcmp(bytes->data() + bytes->size() - trailer, kMagic, sizeof kMagic) != 0) {
        *why = "it carries no MAC (written without the cache's secret)";
        return false;
    }
    const size_t size = bytes->size() - trailer;
    if (!same_digest(mac_of(secret, bytes->data(), size), bytes->data() + size + sizeof kMagic)) {
        *why = "its MAC does not verify under the cache's secret (forged, altered, or written with another secret)";
        return false;
    }
    bytes->resize(size);
    return true;
}

}  // namespace fe
