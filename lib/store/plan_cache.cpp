#include "store/plan_cache.hpp"
#include "common/environment.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <list>
#include <mutex>
#include <random>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/error.hpp"
#include "common/file_read.hpp"
#include "common/log.hpp"
#include "store/blob.hpp"
#include "store/cache_secret.hpp"

namespace fe {

namespace {

// A map of at most `capacity` entries that drops the least recently used one first. Not
// thread-safe: MemoryCache's mutex guards it.
template <typename Value>
class LruMap {
  public:
    // The value under `key`, now the most recently used; nullptr when absent.
    const Value *find(const std::string &key) {
        auto it = index_.find(key);
        if (it == index_.end()) return nullptr;
        order_.splice(order_.begin(), order_, it->second);
        return &it->second->second;
    }

    // Store (or replace) the value under `key`; returns how many entries were dropped.
    size_t store(const std::string &key, Value value, size_t capacity) {
        auto it = index_.find(key);
        if (it != index_.end()) {
            it->second->second = std::move(value);
            order_.splice(order_.begin(), order_, it->second);
        } else {
            order_.emplace_front(key, std::move(value));
            // The index's keys view the list's own strings (list nodes never move), so a key
            // of tens of kilobytes of graph JSON is held once.
            index_.emplace(order_.front().first, order_.begin());
        }
        size_t dropped = 0;
        while (order_.size() > capacity) {
            index_.erase(order_.back().first);
            order_.pop_back();
            ++dropped;
        }
        return dropped;
    }

    void clear() {
        index_.clear();
        order_.clear();
    }

  private:
    using Entry = std::pair<std::string, Value>;
    std::list<Entry> order_;  // most recently used first
    std::unordered_map<std::string_view, typename std::list<Entry>::iterator> index_;
};

struct MemoryCache {
    std::mutex mutex;
    LruMap<std::shared_ptr<const PlanRecord>> by_key;
    LruMap<KeyedEntry> by_user_key;
};

MemoryCache &memory() {
    static MemoryCache *cache = new MemoryCache;  // never destroyed: graphs may outlive statics
    return *cache;
}

std::atomic<int64_t> g_counters[4];
std::atomic<int64_t> g_evictions{0};

constexpr size_t kDefaultMemoryEntries = 1024;

// Entries each in-process map keeps: CUDNNFE_PLAN_CACHE_ENTRIES when it is a positive integer.
// Read at each store (a store follows a build, which costs far more), so a process can change it.
size_t memory_capacity() {
    const char *text = environment("CUDNNFE_PLAN_CACHE_ENTRIES");
    if (!text || !*text) return kDefaultMemoryEntries;
    char *end = nullptr;
    long long entries = std::strtoll(text, &end, 10);
    if (*end != '\0' || entries <= 0) {
        FE_LOG_WARN("CUDNNFE_PLAN_CACHE_ENTRIES='%s' is not a positive integer; keeping %zu entries", text,
                    kDefaultMemoryEntries);
        return kDefaultMemoryEntries;
    }
    return static_cast<size_t>(entries);
}

void count_evictions(size_t dropped) {
    if (dropped == 0) return;
    g_evictions.fetch_add(static_cast<int64_t>(dropped));
    FE_LOG_INFO("plan cache: dropped %zu least recently used in-process entr%s", dropped, dropped == 1 ? "y" : "ies");
}

}  // namespace

std::shared_ptr<const PlanRecord> memory_lookup(const std::string &key) {
    MemoryCache &m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    const std::shared_ptr<const PlanRecord> *record = m.by_key.find(key);
    return record ? *record : nullptr;
}

void memory_store(const std::string &key, std::shared_ptr<const PlanRecord> record) {
    size_t capacity = memory_capacity();
    MemoryCache &m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    count_evictions(m.by_key.store(key, std::move(record), capacity));
}

void keyed_store(const std::string &user_key, KeyedEntry entry) {
    size_t capacity = memory_capacity();
    MemoryCache &m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    count_evictions(m.by_user_key.store(user_key, std::move(entry), capacity));
}

bool keyed_lookup(const std::string &user_key, KeyedEntry *out) {
    MemoryCache &m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    const KeyedEntry *entry = m.by_user_key.find(user_key);
    if (!entry) return false;
    *out = *entry;
    return true;
}

void memory_clear() {
    MemoryCache &m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    m.by_key.clear();
    m.by_user_key.clear();
}

int64_t memory_evictions() { return g_evictions.load(); }

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

namespace {

// Plans are kilobytes; a file larger than this is not one of ours and is never read.
constexpr int64_t kMaxEntryBytes = int64_t(256) << 20;
// A writer finishes in well under a second: an older temporary file was left by a killed one.
constexpr time_t kStaleTemporarySeconds = 10 * 60;

const char kEntrySuffix[] = ".fegraph";
const char kTemporaryMarker[] = ".fegraph.tmp.";

bool ends_with(const std::string &text, const char *suffix) {
    size_t n = std::strlen(suffix);
    return text.size() >= n && text.compare(text.size() - n, n, suffix) == 0;
}

bool is_temporary_name(const std::string &name) { return name.find(kTemporaryMarker) != std::string::npos; }

}  // namespace

std::vector<unsigned char> read_cache_file(const std::string &path) {
    const CacheSecret secret = load_cache_secret();
    if (!secret.error.empty()) {
        FE_LOG_WARN("plan cache: %s is not used: %s", path.c_str(), secret.error.c_str());
        return {};
    }
    // O_NOFOLLOW: a planted link is not followed. O_NONBLOCK: a planted FIFO does not wait for
    // a writer. The fstat that follows then refuses anything but a regular file of sane size.
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        if (errno != ENOENT) FE_LOG_WARN("plan cache: %s is not used: %s", path.c_str(), std::strerror(errno));
        return {};
    }
    std::vector<unsigned char> bytes;
    struct stat st;
    if (::fstat(fd, &st) != 0) {
        FE_LOG_WARN("plan cache: %s is not used: %s", path.c_str(), std::strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        // Not ours: left in place; the next write of this key renames a plan over it.
        FE_LOG_WARN("plan cache: %s is not used: it is not a regular file", path.c_str());
    } else if (!secret.usable() && st.st_uid != ::geteuid() && st.st_uid != 0) {
        // Another user's file is never read, whatever the directory allows (unless the cache's
        // secret authenticates it, below).
        FE_LOG_WARN("plan cache: %s is not used: it is owned by user %u, not by this process's user %u", path.c_str(),
                    static_cast<unsigned>(st.st_uid), static_cast<unsigned>(::geteuid()));
    } else if (st.st_size > kMaxEntryBytes) {
        FE_LOG_WARN("plan cache: removed %s: %lld bytes, more than an entry may hold (%lld)", path.c_str(),
                    static_cast<long long>(st.st_size), static_cast<long long>(kMaxEntryBytes));
        ::unlink(path.c_str());
    } else {
        bytes = read_up_to(fd, static_cast<size_t>(st.st_size));
    }
    ::close(fd);
    std::string why;
    if (secret.usable() && !bytes.empty() && !verify_signed_entry(secret, &bytes, &why)) {
        // Left in place (it may be another user's, in a directory where only they may remove
        // it); the rebuilt entry is renamed over it where the directory allows.
        FE_LOG_WARN("plan cache: %s is not used: %s", path.c_str(), why.c_str());
        count(CacheEvent::Rejected);
        return {};
    }
    return bytes;
}

namespace {
bool is_shared_directory(const struct stat &st) { return (st.st_mode & (S_IWGRP | S_IWOTH)) && (st.st_mode & S_ISVTX); }

std::string unsafe_directory_reason(const std::string &directory, const CacheSecret &secret) {
    if (!secret.error.empty()) return secret.error;
    struct stat st;
    if (::stat(directory.c_str(), &st) != 0) return errno == ENOENT ? "" : std::strerror(errno);
    if (!S_ISDIR(st.st_mode)) return "it is not a directory";
    // Every entry is authenticated: whoever may write the directory cannot plant one.
    if (secret.usable()) return "";
    uid_t self = ::geteuid();
    if (st.st_uid != self && st.st_uid != 0)
        return format("it is owned by user %u, not by this process's user %u", static_cast<unsigned>(st.st_uid),
                      static_cast<unsigned>(self));
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
        return "other users can write to it and it has no sticky bit";
    return "";
}
}  // namespace

std::string unsafe_directory_reason(const std::string &directory) {
    return unsafe_directory_reason(directory, load_cache_secret());
}

std::string private_cache_directory(const std::string &configured, std::string *why) {
    why->clear();
    const CacheSecret secret = load_cache_secret();
    std::string unsafe = unsafe_directory_reason(configured, secret);
    if (!unsafe.empty()) {
        *why = configured + ": " + unsafe;
        return "";
    }
    struct stat st;
    if (secret.usable() || ::stat(configured.c_str(), &st) != 0 || !is_shared_directory(st))
        return configured;
    // A shared directory (others may write; the sticky bit keeps them from our files): this user's
    // entries live in a directory of its own inside it, which must be a real directory only this
    // user can write (lstat: a link planted under that name is not followed).
    std::string own = configured + "/cudnnfe-" + std::to_string(static_cast<unsigned long>(::geteuid()));
    if (::mkdir(own.c_str(), 0700) != 0 && errno != EEXIST) {
        *why = own + ": " + std::strerror(errno);
        return "";
    }
    if (::lstat(own.c_str(), &st) != 0) {
        *why = own + ": " + std::strerror(errno);
    } else if (!S_ISDIR(st.st_mode)) {
        *why = own + ": it is not a directory";
    } else if (st.st_uid != ::geteuid()) {
        *why = format("%s: it is owned by user %u, not by this process's user %u", own.c_str(),
                      static_cast<unsigned>(st.st_uid), static_cast<unsigned>(::geteuid()));
    } else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        *why = own + ": other users can write to it";
    }
    return why->empty() ? own : "";
}

namespace {

// Missing components are created 0700: plans are read back as trusted input.
bool make_directories(const std::string &directory) {
    std::string path;
    size_t at = 0;
    while (at != std::string::npos) {
        at = directory.find('/', at + 1);
        path = directory.substr(0, at);
        if (path.empty()) continue;
        if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) return false;
    }
    return true;
}

bool older_than(const struct timespec &a, const struct timespec &b) {
    return a.tv_sec != b.tv_sec ? a.tv_sec < b.tv_sec : a.tv_nsec < b.tv_nsec;
}

struct DirectoryFile {
    std::string path;
    int64_t bytes;
    struct timespec written;
};

// The directory's regular files by the disk space they take (lstat: a link is neither followed
// nor counted), entries and temporary files apart. Stale temporary files are removed on the way.
void scan(const std::string &directory, std::vector<DirectoryFile> *entries, int64_t *total_bytes) {
    DIR *dir = ::opendir(directory.c_str());
    if (!dir) return;
    time_t now = ::time(nullptr);
    while (struct dirent *e = ::readdir(dir)) {
        std::string name = e->d_name;
        bool temporary = is_temporary_name(name);
        if (!temporary && !ends_with(name, kEntrySuffix)) continue;
        std::string path = directory + "/" + name;
        struct stat st;
        if (::fstatat(::dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
        if (temporary && now - st.st_mtim.tv_sec > kStaleTemporarySeconds) {
            ::unlink(path.c_str());
            FE_LOG_INFO("plan cache: removed %s, left by a writer that did not finish", path.c_str());
            continue;
        }
        // What the file takes on disk: a sparse file counts by its allocated blocks.
        int64_t bytes = static_cast<int64_t>(st.st_blocks) * 512;
        *total_bytes += bytes;
        // A fresh temporary file belongs to a writer at work: counted, not removed.
        if (!temporary) entries->push_back({path, bytes, st.st_mtim});
    }
    ::closedir(dir);
}

// Remove the least recently written entries until the directory holds at most limit bytes.
void trim(const std::string &directory, int64_t limit_bytes) {
    std::vector<DirectoryFile> entries;
    int64_t total = 0;
    scan(directory, &entries, &total);
    if (total <= limit_bytes) return;
    std::sort(entries.begin(), entries.end(),
              [](const DirectoryFile &a, const DirectoryFile &b) { return older_than(a.written, b.written); });
    for (const DirectoryFile &e : entries) {
        if (total <= limit_bytes) break;
        // Another process may have removed it already; either way it is gone.
        ::unlink(e.path.c_str());
        total -= e.bytes;
        FE_LOG_INFO("plan cache: removed %s to stay under %lld bytes", e.path.c_str(), static_cast<long long>(limit_bytes));
    }
}

// A new file next to `path` whose name no other process can predict, created (O_EXCL,
// O_NOFOLLOW) rather than opened, so nothing planted there is written through. -1 on failure.
int create_temporary(const std::string &path, std::string *temporary) {
    static std::atomic<uint64_t> sequence{0};
    std::random_device random;
    char suffix[96];
    std::snprintf(suffix, sizeof suffix, ".tmp.%d.%llu.%08x%08x", static_cast<int>(::getpid()),
                  static_cast<unsigned long long>(sequence.fetch_add(1)), random(), random());
    *temporary = path + suffix;
    return ::open(temporary->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
}

bool write_all(int fd, const std::vector<unsigned char> &bytes) {
    size_t written = 0;
    while (written < bytes.size()) {
        ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        written += static_cast<size_t>(n);
    }
    return true;
}

}  // namespace

void write_cache_file(const std::string &directory, const std::string &path, const std::vector<unsigned char> &bytes,
                      int64_t limit_bytes) {
    if (!make_directories(directory)) {
        FE_LOG_WARN("plan cache: cannot create %s: %s", directory.c_str(), std::strerror(errno));
        return;
    }
    // Checked again: another process may have made the directory since the build checked it
    // (an unusable secret is the reason too).
    const CacheSecret secret = load_cache_secret();
    std::string unsafe = unsafe_directory_reason(directory, secret);
    if (!unsafe.empty()) {
        FE_LOG_WARN("plan cache: %s is not used: %s", directory.c_str(), unsafe.c_str());
        return;
    }
    const std::vector<unsigned char> entry = secret.usable() ? signed_entry(secret, bytes) : bytes;
    // In the entry's own directory, so rename() replaces atomically: readers see the old entry
    // or the new one, never a partial file.
    std::string temporary;
    int fd = create_temporary(path, &temporary);
    if (fd < 0) {
        FE_LOG_WARN("plan cache: cannot write %s: %s", temporary.c_str(), std::strerror(errno));
        return;
    }
    bool ok = write_all(fd, entry) && ::fsync(fd) == 0;
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
