// Logging, off by default. The level is one relaxed atomic load, so a disabled log costs
// nothing measurable on the execute path.
#pragma once

#include <atomic>

#include "cudnnfe.h"

namespace fe {

extern std::atomic<int> g_log_level;

void log_init_from_environment();
// fe_log_set_callback: NULL restores the file destination.
void log_set_callback(fe_log_callback callback, void *user_data);
void log_write(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace fe

#define FE_LOG(level, ...)                                                                  \
    do {                                                                                    \
        if (::fe::g_log_level.load(std::memory_order_relaxed) >= (level)) \
            ::fe::log_write((level), __VA_ARGS__);                                          \
    } while (0)
#define FE_LOG_INFO(...) FE_LOG(FE_LOG_INFO, __VA_ARGS__)
#define FE_LOG_DEBUG(...) FE_LOG(FE_LOG_DEBUG, __VA_ARGS__)
#define FE_LOG_WARN(...) FE_LOG(FE_LOG_WARN, __VA_ARGS__)
#define FE_LOG_ERROR(...) FE_LOG(FE_LOG_ERROR, __VA_ARGS__)
