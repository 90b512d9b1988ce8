#include "common/file_read.hpp"

#include <unistd.h>

#include <cerrno>

namespace fe {

std::vector<unsigned char> read_up_to(int fd, size_t size) {
    std::vector<unsigned char> bytes(size);
    size_t got = 0;
    while (got < bytes.size()) {
        ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += static_cast<size_t>(n);
    }
    bytes.resize(got);
    return bytes;
}

}  // namespace fe
