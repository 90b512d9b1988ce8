#include "common/error.hpp"

#include <cstdarg>
#include <cstdio>
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

std::string one_printable_line(const std::string &text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        unsigned char u = static_cast<unsigned char>(c);
        if (c == '\n' || c == '\r' || c == '\t') {
            out += ' ';
        } else if (u < 0x20 || u == 0x7f) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\x%02x", u);
            out += escape;
        } else {
            out += c;
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

void set_last_error(const std::string &message) {
    // Messages are one line (a cuDNN error text may bring newlines), and names from the caller
    // or a file may hold ESC or BEL: printed as they are, they would drive the reader's terminal.
    g_last_error = one_printable_line(message);
}

const char *last_error() { return g_last_error.c_str(); }

}  // namespace fe
