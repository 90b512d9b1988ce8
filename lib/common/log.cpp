#include "common/log.hpp"

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
FILE *g_log_file = nullptr;  // nullptr: stderr
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

// Runs when the library is loaded, so the environment is read once, not per call.
struct EnvironmentReader {
    EnvironmentReader() { log_init_from_environment(); }
} g_environment_reader;
}  // namespace

void log_init_from_environment() {
    g_log_level.store(parse_level(std::getenv("CUDNNFE_LOG_LEVEL")));
    const char *dest = std::getenv("CUDNNFE_LOG_DEST");
    std::lock_guard<std::mutex> lock(g_log_mutex);
    if (g_log_file && g_log_file != stdout && g_log_file != stderr) std::fclose(g_log_file);
    g_log_file = nullptr;
    if (!dest || !*dest || !std::strcmp(dest, "stderr")) return;
    if (!std::strcmp(dest, "stdout")) {
        g_log_file = stdout;
        return;
    }
    g_log_file = std::fopen(dest, "a");  // on failure we fall back to stderr
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
    va_list args;
    va_start(args, fmt);
    if (g_log_callback) {
        std::string line;
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
        } catch (...) {
            va_end(args);
            return;  // no memory for the line: logging never fails the call
        }
        va_end(args);
        g_log_callback(static_cast<fe_log_level>(level), line.c_str(), g_log_user_data);
        return;
    }
    FILE *out = g_log_file ? g_log_file : stderr;
    std::fprintf(out, "[cudnnfe %s] ", level_name(level));
    std::vfprintf(out, fmt, args);
    va_end(args);
    std::fputc('\n', out);
    std::fflush(out);
}

}  // namespace fe
