#include "common/log.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>

namespace fe {

std::atomic<int> g_log_level{FE_LOG_OFF};

namespace {
std::mutex g_log_mutex;
FILE *g_log_file = nullptr;  // nullptr: stderr

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

void log_write(int level, const char *fmt, ...) {
    std::lock_guard<std::mutex> lock(g_log_mutex);
    FILE *out = g_log_file ? g_log_file : stderr;
    std::fprintf(out, "[cudnnfe %s] ", level_name(level));
    va_list args;
    va_start(args, fmt);
    std::vfprintf(out, fmt, args);
    va_end(args);
    std::fputc('\n', out);
    std::fflush(out);
}

}  // namespace fe
