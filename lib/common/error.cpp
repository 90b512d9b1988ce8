#include "common/error.hpp"

#include <cstdarg>
#include <vector>

namespace fe {

std::string format(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    va_list copy;
    va_copy(copy, args);
    int n = std::vsnprintf(nullptr, 0, fmt, copy);
    va_end(copy);
    std::string out;
    if (n > 0) {
        out.resize(static_cast<size_t>(n) + 1);
        std::vsnprintf(&out[0], out.size(), fmt, args);
        out.resize(static_cast<size_t>(n));
    }
    va_end(args);
    return out;
}

void fail(fe_status status, const std::string &message) { throw Error(status, message); }

namespace {
thread_local std::string g_last_error;
}

void set_last_error(const std::string &message) {
    // Messages are one line: fold any newline that a cuDNN error text brought along.
    g_last_error = message;
    for (char &c : g_last_error)
        if (c == '\n' || c == '\r') c = ' ';
    while (!g_last_error.empty() && g_last_error.back() == ' ') g_last_error.pop_back();
}

const char *last_error() { return g_last_error.c_str(); }

}  // namespace fe
