#include "common/log.hpp"
#include "common/environment.hpp"
#include "common/error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>

namespace fe {

std::atomic<int> g_log_level{FE_LOG_OFF};

namespace {
std::mutex g_log_mutex;
FILE *g_log_file = nullptr;  // nullptr: stderr, or g_log_path once it is opened
std::string g_log_path;      // CUDNNFE_LOG_DEST's file, not yet opened
fe_log_callback g_log_callback = nullptr;  // set: lines go here instead of g_log_file
void *g_log_user_data = nullptr;

int parse_level(const char *text) {
    if (!text || !*text) return FE_LOG_OFF;
    if (text[0] >= '0' && text[0] <= '9') {
        int v = std::atoi(text);
        return v < FE_LOG_OFF ? FE_LOG_OFF : (v > FE_LOG_DEBUG ? FE_LOG_DEBUG : v);
    }
    if (!strcasecmp(text, "error")) return FE_LOG_ERROR;
    if (!strcasecmp(text, "warn") || !strcasecmp(text, "warning")) return FE_LOG_WARN;
    if (!strcasecmp(text, "info")) return FE_LOG_INFO;
    if (!strcasecmp(text, "debug")) return FE_LOG_DEBUG;
    return FE_LOG_OFF;
}

const char *level_name(int level) {
    switch (level) {
        case FE_LOG_ERROR: return "error";
        case FE_LOG_WARN: return "warn";
        case FE_LOG_INFO: return "info";
        default: return "debug";
    }
}

// The log file named by CUDNNFE_LOG_DEST, appended to: opened without following a link or
// waiting for a FIFO's reader, and used only if it is a regular file. Otherwise the log goes to
// stderr, which says why once.
FILE *open_log_file(const std::string &path) {
    int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    std::string why;
    struct stat st;
    if (fd < 0)
        why = std::strerror(errno);
    else if (::fstat(fd, &st) != 0)
        why = std::strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = "it is not a regular file";
    FILE *file = why.empty() ? ::fdopen(fd, "a") : nullptr;
    if (!file) {
        if (fd >= 0) ::close(fd);
        std::fprintf(stderr, "[cudnnfe warn] CUDNNFE_LOG_DEST %s is not used (%s): logging to stderr\n",
                     one_printable_line(path).c_str(), why.empty() ? std::strerror(errno) : why.c_str());
    }
    return file;
}

// Runs when the library is loaded, so the environment is read once, not per call.
struct EnvironmentReader {
    EnvironmentReader() { log_init_from_environment(); }
} g_environment_reader;
}  // namespace

void log_init_from_environment() {
    g_log_level.store(parse_level(environment("CUDNNFE_LOG_LEVEL")));
    const char *dest = environment("CUDNNFE_LOG_DEST");
    std::lock_guard<std::mutex> lock(g_log_mutex);
    if (g_log_file && g_log_file != stdout && g_log_file != stderr) std::fclose(g_log_file);
    g_log_file = nullptr;
    g_log_path.clear();
    if (!dest || !*dest || !std::strcmp(dest, "stderr")) return;
    if (!std::strcmp(dest, "stdout")) {
        g_log_file = stdout;
        return;
    }
    g_log_path = dest;  // opened by the first line written: with logging off, never touched
}

void log_set_callback(fe_log_callback callback, void *user_data) {
    // Under the mutex that log_write holds while it calls the callback: once this returns, the
    // previous callback runs no more.
    std::lock_guard<std::mutex> lock(g_log_mutex);
    g_log_callback = callback;
    g_log_user_data = callback ? user_data : nullptr;
}

void log_write(int level, const char *fmt, ...) {
    std::lock_guard<std::mutex> lock(g_log_mutex);
    std::string line;
    va_list args;
    va_start(args, fmt);
    try {
        va_list copy;
        va_copy(copy, args);
        int n = std::vsnprintf(nullptr, 0, fmt, copy);
        va_end(copy);
        if (n > 0) {
            line.resize(static_cast<size_t>(n) + 1);
            std::vsnprintf(&line[0], line.size(), fmt, args);
            line.resize(static_cast<size_t>(n));
        }
        // Names in a line come from callers and files: their control characters are escaped.
        line = one_printable_line(line);
    } catch (...) {
        va_end(args);
        return;  // no memory for the line: logging never fails the call
    }
    va_end(args);
    if (g_log_callback) {
        g_log_callback(static_cast<fe_log_level>(level), line.c_str(), g_log_user_data);
        return;
    }
    if (!g_log_file && !g_log_path.empty()) {
        g_log_file = open_log_file(g_log_path);
        g_log_path.clear();
    }
    FILE *out = g_log_file ? g_log_file : stderr;
    std::fprintf(out, "[cudnnfe %s] %s\n", level_name(level), line.c_str());
    std::fflush(out);
}

}  // namespace fe
