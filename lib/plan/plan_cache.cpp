#include "plan/plan_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <unordered_map>
#include <vector>

#include "common/error.hpp"
#include "common/log.hpp"
#include "plan/blob.hpp"

namespace fe {

namespace {

struct MemoryCache {
    std::mutex mutex;
    std::unordered_map<std::string, std::shared_ptr<const PlanRecord>> by_key;
    std::unordered_map<std::string, KeyedEntry> by_user_key;
};

MemoryCache &memory() {
    static MemoryCache *cache = new MemoryCache;  // never destroyed: graphs may outlive statics
    return *cache;
}

std::atomic<int64_t> g_counters[4];

}  // namespace

std::shared_ptr<const PlanRecord> memory_lookup(const std::string &key) {
    MemoryCache &m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    auto it = m.by_key.find(key);
    return it == m.by_key.end() ? nullptr : it->second;
}

void memory_store(const std::string &key, std::shared_ptr<const PlanRecord> record) {
    MemoryCache &m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    m.by_key[key] = std::move(record);
}

void keyed_store(const std::string &user_key, KeyedEntry entry) {
    MemoryCache &m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    m.by_user_key[user_key] = std::move(entry);
}

bool keyed_lookup(const std::string &user_key, KeyedEntry *out) {
    MemoryCache &m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    auto it = m.by_user_key.find(user_key);
    if (it == m.by_user_key.end()) return false;
    *out = it->second;
    return true;
}

void memory_clear() {
    MemoryCache &m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    m.by_key.clear();
    m.by_user_key.clear();
}

void count(CacheEvent event) { g_counters[static_cast<int>(event)].fetch_add(1); }

void cache_stats(int64_t *memory_hits, int64_t *disk_hits, int64_t *misses, int64_t *rejected) {
    if (memory_hits) *memory_hits = g_counters[0].load();
    if (disk_hits) *disk_hits = g_counters[1].load();
    if (misses) *misses = g_counters[2].load();
    if (rejected) *rejected = g_counters[3].load();
}

std::string cache_file(const std::string &directory, const std::string &key) {
    // Two independent 64-bit hashes: a collision would only cost a rebuild (each entry also
    // carries its full key, compared on load), but it should practically never happen.
    char name[64];
    std::snprintf(name, sizeof name, "%016llx%016llx.fegraph",
                  static_cast<unsigned long long>(fnv1a64(key.data(), key.size())),
                  static_cast<unsigned long long>(fnv1a64(key.data(), key.size(), 0x9e3779b97f4a7c15ull)));
    return directory + "/" + name;
}

std::vector<unsigned char> read_cache_file(const std::string &path) {
    std::vector<unsigned char> bytes;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return bytes;
    struct stat st;
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
        bytes.resize(static_cast<size_t>(st.st_size));
        size_t got = 0;
        while (got < bytes.size()) {
            ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
            if (n <= 0) break;
            got += static_cast<size_t>(n);
        }
        bytes.resize(got);
    }
    ::close(fd);
    return bytes;
}

namespace {

bool make_directories(const std::string &directory) {
    std::string path;
    size_t at = 0;
    while (at != std::string::npos) {
        at = directory.find('/', at + 1);
        path = directory.substr(0, at);
        if (path.empty()) continue;
        if (::mkdir(path.c_str(), 0775) != 0 && errno != EEXIST) return false;
    }
    return true;
}

// Remove the least recently written entries until the directory holds at most limit bytes.
void trim(const std::string &directory, int64_t limit_bytes) {
    DIR *dir = ::opendir(directory.c_str());
    if (!dir) return;
    struct Entry { std::string path; int64_t bytes; struct timespec written; };
    std::vector<Entry> entries;
    int64_t total = 0;
    while (struct dirent *e = ::readdir(dir)) {
        std::string name = e->d_name;
        if (name.size() < 8 || name.compare(name.size() - 8, 8, ".fegraph") != 0) continue;
        std::string path = directory + "/" + name;
        struct stat st;
        if (::stat(path.c_str(), &st) != 0) continue;
        entries.push_back({path, static_cast<int64_t>(st.st_size), st.st_mtim});
        total += st.st_size;
    }
    ::closedir(dir);
    if (total <= limit_bytes) return;
    std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
        return a.written.tv_sec != b.written.tv_sec ? a.written.tv_sec < b.written.tv_sec
                                                    : a.written.tv_nsec < b.written.tv_nsec;
    });
    for (const Entry &e : entries) {
        if (total <= limit_bytes) break;
        // Another process may have removed it already; either way it is gone.
        ::unlink(e.path.c_str());
        total -= e.bytes;
        FE_LOG_INFO("plan cache: removed %s to stay under %lld bytes", e.path.c_str(), static_cast<long long>(limit_bytes));
    }
}

}  // namespace

void write_cache_file(const std::string &directory, const std::string &path, const std::vector<unsigned char> &bytes,
                      int64_t limit_bytes) {
    if (!make_directories(directory)) {
        FE_LOG_WARN("plan cache: cannot create %s: %s", directory.c_str(), std::strerror(errno));
        return;
    }
    // Unique per process and call, in the same directory, so rename() replaces atomically:
    // readers see the old entry or the new one, never a partial file.
    static std::atomic<uint64_t> sequence{0};
    std::random_device random;
    char suffix[64];
    std::snprintf(suffix, sizeof suffix, ".tmp.%d.%llu.%u", static_cast<int>(::getpid()),
                  static_cast<unsigned long long>(sequence.fetch_add(1)), random());
    std::string temporary = path + suffix;
    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0664);
    if (fd < 0) {
        FE_LOG_WARN("plan cache: cannot write %s: %s", temporary.c_str(), std::strerror(errno));
        return;
    }
    size_t written = 0;
    while (written < bytes.size()) {
        ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n <= 0) break;
        written += static_cast<size_t>(n);
    }
    bool ok = written == bytes.size() && ::fsync(fd) == 0;
    ::close(fd);
    if (!ok || ::rename(temporary.c_str(), path.c_str()) != 0) {
        FE_LOG_WARN("plan cache: writing %s failed: %s", path.c_str(), std::strerror(errno));
        ::unlink(temporary.c_str());
        return;
    }
    trim(directory, limit_bytes);
}

void remove_cache_file(const std::string &path) { ::unlink(path.c_str()); }

}  // namespace fe
