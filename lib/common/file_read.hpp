// Reading an open file descriptor whole, for the files the library reads as untrusted input (cache
// entries, the cache's secret): sized by the caller's fstat, never past it.
#pragma once

#include <cstddef>
#include <vector>

namespace fe {

// Reads `size` bytes from `fd`, or fewer when the file was shortened meanwhile (interrupted
// reads are retried).
std::vector<unsigned char> read_up_to(int fd, size_t size);

}  // namespace fe
