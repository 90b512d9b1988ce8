// Errors inside the library: every failure is an fe::Error carrying a status and a message.
// The extern "C" boundary (lib/api) turns it into a status code plus the thread-local message.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

#include "cudnnfe.h"

namespace fe {

class Error : public std::runtime_error {
  public:
    Error(fe_status status, std::string message)
        : std::runtime_error(std::move(message)), status_(status) {}
    fe_status status() const { return status_; }

  private:
    fe_status status_;
};

// printf-style formatting into a std::string (messages are short, one line).
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

[[noreturn]] void fail(fe_status status, const std::string &message);

// Thread-local last error, written by the API boundary.
// `text` as one line a terminal only displays: line breaks and tabs become spaces, other control
// characters (ESC, BEL, DEL...) are written \xNN.
std::string one_printable_line(const std::string &text);
void set_last_error(const std::string &message);
const char *last_error();

}  // namespace fe

#define FE_FAIL(status, ...) ::fe::fail((status), ::fe::format(__VA_ARGS__))
#define FE_CHECK(cond, status, ...)              \
    do {                                         \
        if (!(cond)) FE_FAIL(status, __VA_ARGS__); \
    } while (0)
