// The plan cache: built plans reused by identical graphs, in this process (a map from the
// canonical key to a shared record) and across processes (a directory of serialized graphs).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "store/plan_record.hpp"

namespace fe {

// ---- in-process ----
// Each map below keeps at most CUDNNFE_PLAN_CACHE_ENTRIES entries (default 1024), dropping the
// least recently used first; a lookup counts as a use.
std::shared_ptr<const PlanRecord> memory_lookup(const std::string &key);
void memory_store(const std::string &key, std::shared_ptr<const PlanRecord> record);

// The caller's own keys (fe_build_options.cache_key): the graph JSON to recreate the graph
// from, the target's device JSON (deviceless graphs) and the record.
struct KeyedEntry {
    std::string graph_json;
    std::string device_json;
    bool deviceless = false;
    std::shared_ptr<const PlanRecord> record;
};
void keyed_store(const std::string &user_key, KeyedEntry entry);
bool keyed_lookup(const std::string &user_key, KeyedEntry *out);

void memory_clear();
// Entries dropped so far to stay within the bound.
int64_t memory_evictions();

// ---- counters ----
enum class CacheEvent { MemoryHit, DiskHit, Miss, Rejected };
void count(CacheEvent event);
void cache_stats(int64_t *memory_hits, int64_t *disk_hits, int64_t *misses, int64_t *rejected);

// ---- the directory ----
// Why other users could plant or replace entries in `directory` (owned by someone other than
// this process's user or root; writable by group or others without the sticky bit), or "" when
// it is safe or does not exist yet. With the cache's secret (store/cache_secret.hpp) any directory
// is safe, entries being authenticated; a secret configured but unusable is the reason.
std::string unsafe_directory_reason(const std::string &directory);
// Where this process's user keeps entries for the configured directory: the directory itself
// when only this user (or root) can write it, or when the cache's secret authenticates entries;
// in a shared directory others write to under the sticky bit (as /tmp), its own subdirectory
// "cudnnfe-<uid>", created 0700. "" when neither is safe, with *why saying why.
std::string private_cache_directory(const std::string &configured, std::string *why);
// The file holding `key` in `directory` (named by the key's hash).
std::string cache_file(const std::string &directory, const std::string &key);
// The bytes of an entry, or empty when there is none or it is not usable: a link or special file
// (neither followed nor waited on), a file another user owns (not read, unless the cache's secret
// is set), a file over 256 MiB (removed), or, with the secret, one whose MAC does not verify
// (counted as rejected). Never blocks.
std::vector<unsigned char> read_cache_file(const std::string &path);
// Write atomically (signed with the cache's secret when one is set; a temporary file with an
// unpredictable name, created in the directory and renamed over the entry), then remove temporary files left over 10 minutes ago and the oldest
// entries while the directory's regular files take more than limit_bytes of disk (allocated
// blocks: a sparse file counts by what it holds). Missing directories
// are created 0700. Failures are logged, not raised: a cache that cannot be written only costs
// a rebuild.
void write_cache_file(const std::string &directory, const std::string &path,
                      const std::vector<unsigned char> &bytes, int64_t limit_bytes);
void remove_cache_file(const std::string &path);

}  // namespace fe
