// The plan cache: identical graphs reuse a plan in this process, under the caller's key, and
// from a cache directory shared by processes (corrupt entries rebuilt and replaced; planted
// links, special files, oversized files and unsafe directories neither trusted nor followed).
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "blob_editor.hpp"
#include "cache_directory_support.hpp"
#include "plans_that_last.hpp"

using namespace cudnnfe_test;

namespace {

double build_ms(fe_graph *g, const fe_build_options &o) {
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_FE_OK(fe_graph_build(g, nullptr, &o));
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// A program built next to this test.
std::string sibling_program(const char *name) {
    char self[4096] = {0};
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    std::string path = len > 0 ? std::string(self, static_cast<size_t>(len)) : std::string();
    return path.substr(0, path.rfind('/') + 1) + name;
}

TEST_F(PlansThatLast, AnIdenticalGraphReusesThePlanInProcess) {
    fe_build_options o = options();
    Stats before = stats();
    fe_graph *first = seed_conv("first");
    double cold = build_ms(first, o);
    fe_graph *second = seed_conv("first");
    double warm = build_ms(second, o);
    Stats after = stats();
    EXPECT_EQ(after.misses - before.misses, 1);
    EXPECT_EQ(after.memory - before.memory, 1);
    EXPECT_STREQ(engine_tag_of(second), engine_tag_of(first));
    EXPECT_NE(describe(second).find("plan from the in-process plan cache"), std::string::npos) << describe(second);
    std::printf("    cold build %.2f ms, in-process hit %.3f ms\n", cold, warm);
    // Another batch size is another graph.
    fe_graph *other = seed_conv("first", 4);
    build_ms(other, o);
    EXPECT_EQ(stats().misses - after.misses, 1);
    // Turned off per build.
    fe_graph *off = seed_conv("first");
    o.use_plan_cache = 0;
    build_ms(off, o);
    EXPECT_EQ(stats().memory, after.memory);
}

TEST_F(PlansThatLast, TheCallersKeyGivesAGraphReadyToRun) {
    fe_graph *g = seed_conv("keyed");
    fe_build_options o = options();
    o.cache_key = "conv n=8 fp16 nhwc";
    ASSERT_FE_OK(fe_graph_build(g, nullptr, &o));
    fe_graph *again = nullptr;
    ASSERT_FE_OK(fe_graph_from_cache(nullptr, "conv n=8 fp16 nhwc", &again));
    graphs_.push_back(again);
    int32_t built = 0;
    EXPECT_FE_OK(fe_graph_is_built(again, &built));
    EXPECT_EQ(built, 1);
    EXPECT_STREQ(engine_tag_of(again), engine_tag_of(g));
    fe_tensor *x = nullptr;
    EXPECT_FE_OK(fe_graph_tensor_by_name(again, "X", &x));
    fe_graph *missing = nullptr;
    EXPECT_EQ(fe_graph_from_cache(nullptr, "conv n=16", &missing), FE_STATUS_NOT_FOUND);
    EXPECT_NE(std::string(fe_last_error_message()).find("conv n=16"), std::string::npos);
    EXPECT_EQ(fe_graph_from_cache(nullptr, nullptr, &missing), FE_STATUS_NULL_POINTER);
}

int64_t evictions() {
    int64_t n = -1;
    EXPECT_FE_OK(fe_plan_cache_evictions(&n));
    return n;
}

// Bounded to two plans: the least recently used one goes, a lookup counts as a use.
TEST_F(PlansThatLast, TheInProcessCacheDropsTheLeastRecentlyUsedPlan) {
    ScopedEnv bound("CUDNNFE_PLAN_CACHE_ENTRIES", "2");
    fe_build_options o = options();
    int64_t evicted = evictions();
    build_ms(seed_conv("lru", 1), o);
    build_ms(seed_conv("lru", 2), o);
    Stats before = stats();
    build_ms(seed_conv("lru", 1), o);  // a hit: batch 1 is now the most recent
    build_ms(seed_conv("lru", 3), o);  // a miss: batch 2 goes
    EXPECT_EQ(evictions() - evicted, 1);
    Stats after = stats();
    EXPECT_EQ(after.memory - before.memory, 1);
    EXPECT_EQ(after.misses - before.misses, 1);
    build_ms(seed_conv("lru", 1), o);
    EXPECT_EQ(stats().memory - after.memory, 1) << "the most recently used plan was dropped";
    build_ms(seed_conv("lru", 2), o);
    EXPECT_EQ(stats().misses - after.misses, 1) << "the least recently used plan was kept";
}

TEST_F(PlansThatLast, TheCallersKeysAreBoundedToo) {
    ScopedEnv bound("CUDNNFE_PLAN_CACHE_ENTRIES", "2");
    fe_build_options o = options();
    int64_t evicted = evictions();
    for (const char *key : {"a", "b"}) {
        o.cache_key = key;
        build_ms(seed_conv("keyed_lru"), o);
    }
    fe_graph *again = nullptr;
    ASSERT_FE_OK(fe_graph_from_cache(nullptr, "a", &again));  // "a" is now the most recent
    graphs_.push_back(again);
    o.cache_key = "c";
    build_ms(seed_conv("keyed_lru"), o);
    EXPECT_EQ(evictions() - evicted, 1);
    EXPECT_FE_STATUS(fe_graph_from_cache(nullptr, "b", &again), FE_STATUS_NOT_FOUND);
    for (const char *key : {"a", "c"}) {
        ASSERT_FE_OK(fe_graph_from_cache(nullptr, key, &again)) << key;
        graphs_.push_back(again);
    }
}

TEST_F(PlansThatLast, TheCacheDirectoryServesANewProcessAndReplacesCorruptEntries) {
    std::string dir = make_temp_dir();
    ASSERT_FALSE(dir.empty());
    ScopedEnv env("CUDNNFE_CACHE_DIR", dir + "/plans");  // created on first write
    fe_build_options o = options();
    ASSERT_FE_OK(fe_graph_build(seed_conv("disk"), nullptr, &o));
    std::vector<std::string> files = entries(dir + "/plans");
    ASSERT_EQ(files.size(), 1u);
    // A new process has an empty memory cache: clearing it stands in for one.
    fe_plan_cache_clear();
    Stats before = stats();
    fe_graph *loaded = seed_conv("disk");
    ASSERT_FE_OK(fe_graph_build(loaded, nullptr, &o));
    EXPECT_EQ(stats().disk - before.disk, 1);
    EXPECT_NE(describe(loaded).find("plan from the cache directory"), std::string::npos) << describe(loaded);

    // Corrupt the entry: it is rejected, rebuilt and replaced by a valid one.
    {
        std::vector<unsigned char> bytes = read_file(files[0]);
        bytes[bytes.size() / 3] ^= 0xff;
        std::ofstream(files[0], std::ios::binary).write(reinterpret_cast<const char *>(bytes.data()),
                                                        static_cast<std::streamsize>(bytes.size()));
    }
    fe_plan_cache_clear();
    before = stats();
    fe_graph *rebuilt = seed_conv("disk");
    ASSERT_FE_OK(fe_graph_build(rebuilt, nullptr, &o));
    Stats after = stats();
    EXPECT_EQ(after.rejected - before.rejected, 1);
    EXPECT_EQ(after.misses - before.misses, 1);
    std::vector<unsigned char> replaced = read_file(files[0]);
    size_t n = 0;
    EXPECT_FE_OK(fe_serialized_describe(replaced.data(), replaced.size(), nullptr, 0, &n) == FE_STATUS_BUFFER_TOO_SMALL
                     ? FE_OK
                     : FE_STATUS_INTERNAL);
    remove_dir(dir + "/plans");
    remove_dir(dir);
}

// An entry under the right name whose graph, options and target agree but which another cuDNN
// wrote (its checksum fixed up): rejected and rebuilt, not served.
TEST_F(PlansThatLast, AnEntryOfAnotherCudnnIsRejected) {
    std::string dir = make_temp_dir();
    ASSERT_FALSE(dir.empty());
    ScopedEnv env("CUDNNFE_CACHE_DIR", dir + "/plans");
    fe_build_options o = options();
    ASSERT_FE_OK(fe_graph_build(seed_conv("versions"), nullptr, &o));
    std::vector<std::string> files = entries(dir + "/plans");
    ASSERT_EQ(files.size(), 1u);
    {
        EditableBlob blob(read_file(files[0]));
        uint64_t cudnn_version = 0;
        std::memcpy(&cudnn_version, &blob.head[16], 8);  // after the magic, format and cudnnfe version
        cudnn_version += 100;
        std::memcpy(&blob.head[16], &cudnn_version, 8);
        std::vector<unsigned char> bytes = blob.bytes();
        std::ofstream(files[0], std::ios::binary).write(reinterpret_cast<const char *>(bytes.data()),
                                                        static_cast<std::streamsize>(bytes.size()));
    }
    fe_plan_cache_clear();
    Stats before = stats();
    ASSERT_FE_OK(fe_graph_build(seed_conv("versions"), nullptr, &o));
    Stats after = stats();
    EXPECT_EQ(after.disk - before.disk, 0);
    EXPECT_EQ(after.rejected - before.rejected, 1);
    EXPECT_EQ(after.misses - before.misses, 1);
    remove_dir(dir + "/plans");
    remove_dir(dir);
}

TEST_F(PlansThatLast, TheDirectoryStaysUnderItsLimit) {
    // fe_handle_set_cache_limit needs a handle (a GPU); deviceless builds use the default, so
    // here the limit is checked through what it must not do: evict below a single entry.
    std::string dir = make_temp_dir();
    ScopedEnv env("CUDNNFE_CACHE_DIR", dir);
    fe_build_options o = options();
    for (int64_t n : {1, 2, 3}) ASSERT_FE_OK(fe_graph_build(seed_conv("sizes", n), nullptr, &o));
    EXPECT_EQ(entries(dir).size(), 3u);
    remove_dir(dir);
}

// Several processes fill one directory at once; every entry read back afterwards is valid.
TEST_F(PlansThatLast, ProcessesShareOneDirectory) {
    std::string writer = sibling_program("cache_writer");
    if (access(writer.c_str(), X_OK) != 0) GTEST_SKIP() << "the cache_writer program is not built at " << writer;
    std::string dir = make_temp_dir();
    std::string device = dir + "/../" + dir.substr(dir.rfind('/') + 1) + ".json";
    std::ofstream(device) << json_;
    std::string command;
    for (int p = 0; p < 4; ++p)
        command += "CUDNNFE_CACHE_DIR=" + dir + " CUDNNFE_DEVICE_JSON_TEXT_FILE=" + device + " " + writer + " " +
                   std::to_string(p) + " > " + dir + "/log" + std::to_string(p) + " 2>&1 & ";
    command += "wait";
    ASSERT_EQ(std::system(command.c_str()), 0);
    int valid = 0;
    for (const std::string &f : entries(dir)) {
        if (f.find("/log") != std::string::npos) {
            std::ifstream log(f);
            std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
            EXPECT_NE(text.find("ok"), std::string::npos) << f << ": " << text;
            continue;
        }
        EXPECT_EQ(f.find(".tmp."), std::string::npos) << "a temporary file was left behind: " << f;
        std::vector<unsigned char> bytes = read_file(f);
        fe_graph *g = nullptr;
        ASSERT_FE_OK(deserialize(bytes, &g)) << f;
        ++valid;
    }
    // Each process builds the same 3 graphs, overlapping with the others: 3 entries.
    EXPECT_EQ(valid, 3);
    remove_dir(dir);
    std::remove(device.c_str());
}

// ---- a directory others may have written to ----

const int64_t kGiB = int64_t(1) << 30;

// A sparse file of `bytes` (no disk used), its modification time `age_seconds` in the past
// (negative: in the future).
void make_sparse_file(const std::string &path, int64_t bytes, long age_seconds) {
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0) << path;
    ASSERT_EQ(ftruncate(fd, bytes), 0) << path;
    struct timespec times[2];
    clock_gettime(CLOCK_REALTIME, &times[0]);
    times[0].tv_sec -= age_seconds;
    times[1] = times[0];
    ASSERT_EQ(futimens(fd, times), 0) << path;
    close(fd);
}

int64_t size_of(const std::string &path) {
    struct stat st;
    return lstat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
}

// A link named like an entry, to a file larger than the limit: trim counts the link by its own
// size, so the legitimate entries stay (following it evicted all of them).
TEST_F(PlansThatLast, TrimCountsALinkByItsOwnSizeAndNeverFollowsIt) {
    std::string dir = make_temp_dir();
    ScopedEnv env("CUDNNFE_CACHE_DIR", dir);
    fe_build_options o = options();
    for (int64_t n : {1, 2}) ASSERT_FE_OK(fe_graph_build(seed_conv("linked", n), nullptr, &o));
    std::string big = dir + ".big";
    make_sparse_file(big, 2 * kGiB, -86400);  // newest of all, so evicted last if followed
    std::string link = dir + "/ffffffffffffffffffffffffffffffff.fegraph";
    ASSERT_EQ(symlink(big.c_str(), link.c_str()), 0);
    ASSERT_FE_OK(fe_graph_build(seed_conv("linked", 3), nullptr, &o));
    EXPECT_EQ(plan_entries(dir).size(), 3u) << "trim evicted legitimate entries";
    EXPECT_EQ(size_of(big), 2 * kGiB);
    remove_dir(dir);
    std::remove(big.c_str());
}

// A killed writer leaves its temporary file behind: the next write removes it once it is older
// than 10 minutes, and leaves a fresh one (a writer at work) alone.
TEST_F(PlansThatLast, StaleTemporaryFilesAreRemoved) {
    std::string dir = make_temp_dir();
    ScopedEnv env("CUDNNFE_CACHE_DIR", dir);
    std::string stale = dir + "/0000000000000000000000000000000a.fegraph.tmp.12345.0.678";
    std::string fresh = dir + "/0000000000000000000000000000000b.fegraph.tmp.12345.1.678";
    make_sparse_file(stale, 4096, 11 * 60);
    make_sparse_file(fresh, 4096, 0);
    fe_build_options o = options();
    ASSERT_FE_OK(fe_graph_build(seed_conv("stale", 1), nullptr, &o));
    EXPECT_FALSE(is_regular_file(stale)) << "a stale temporary file was left: " << stale;
    EXPECT_TRUE(is_regular_file(fresh)) << "a fresh temporary file was removed: " << fresh;
    EXPECT_EQ(plan_entries(dir).size(), 1u);
    remove_dir(dir);
}

// Temporary files take disk space too: a 1.5 GiB one (its blocks allocated) pushes the
// directory over its 1 GiB limit, so the older entries go.
TEST_F(PlansThatLast, TemporaryFilesCountAgainstTheLimit) {
    std::string dir = make_temp_dir();
    ScopedEnv env("CUDNNFE_CACHE_DIR", dir);
    fe_build_options o = options();
    ASSERT_FE_OK(fe_graph_build(seed_conv("temporaries", 1), nullptr, &o));
    std::vector<std::string> first = plan_entries(dir);
    ASSERT_EQ(first.size(), 1u);
    std::string temporary = dir + "/0000000000000000000000000000000c.fegraph.tmp.12345.2.678";
    int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    int allocated = posix_fallocate(fd, 0, 3 * kGiB / 2);
    close(fd);
    if (allocated != 0) {
        remove_dir(dir);
        GTEST_SKIP() << "this file system cannot allocate 1.5 GiB for the test: " << std::strerror(allocated);
    }
    ASSERT_FE_OK(fe_graph_build(seed_conv("temporaries", 2), nullptr, &o));
    EXPECT_FALSE(is_regular_file(first[0])) << "the temporary file was not counted against the limit";
    remove_dir(dir);
}

// A sparse 2 GiB file named like an entry holds almost nothing on disk: counted by its blocks, it
// evicts no entry (counted by its size, it evicted every one).
TEST_F(PlansThatLast, ASparseFileCountsByItsBlocks) {
    std::string dir = make_temp_dir();
    ScopedEnv env("CUDNNFE_CACHE_DIR", dir);
    fe_build_options o = options();
    for (int64_t n : {1, 2}) ASSERT_FE_OK(fe_graph_build(seed_conv("sparse", n), nullptr, &o));
    make_sparse_file(dir + "/eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee.fegraph", 2 * kGiB, -86400);
    ASSERT_FE_OK(fe_graph_build(seed_conv("sparse", 3), nullptr, &o));
    EXPECT_EQ(plan_entries(dir).size(), 4u) << "a sparse file evicted entries";
    remove_dir(dir);
}

TEST_F(PlansThatLast, TheCacheDirectoryIsCreatedOwnerOnly) {
    std::string dir = make_temp_dir();
    ScopedEnv env("CUDNNFE_CACHE_DIR", dir + "/plans/cache");
    fe_build_options o = options();
    ASSERT_FE_OK(fe_graph_build(seed_conv("private"), nullptr, &o));
    for (const std::string &created : {dir + "/plans", dir + "/plans/cache"}) {
        struct stat st;
        ASSERT_EQ(stat(created.c_str(), &st), 0) << created;
        EXPECT_EQ(st.st_mode & 07777, 0700u) << created;
    }
    remove_dir(dir + "/plans/cache");
    remove_dir(dir + "/plans");
    remove_dir(dir);
}

// Anyone could plant entries in a directory others can write to without the sticky bit: the
// build goes on without it, and the log says why.
TEST_F(PlansThatLast, ADirectoryOthersCanWriteIsNotUsed) {
    std::string dir = make_temp_dir();
    ASSERT_EQ(chmod(dir.c_str(), 0777), 0);
    ScopedEnv env("CUDNNFE_CACHE_DIR", dir);
    fe_build_options o = options();
    std::string log = library_warnings([&] { ASSERT_FE_OK(fe_graph_build(seed_conv("open"), nullptr, &o)); });
    EXPECT_TRUE(plan_entries(dir).empty()) << "a plan was written to a directory anyone can write to";
    EXPECT_NE(log.find(dir), std::string::npos) << log;
    EXPECT_NE(log.find("sticky"), std::string::npos) << log;
    // With the sticky bit (as /tmp has) others cannot replace our files: it is used, through a
    // directory of this user's own inside it.
    ASSERT_EQ(chmod(dir.c_str(), 01777), 0);
    fe_plan_cache_clear();
    ASSERT_FE_OK(fe_graph_build(seed_conv("open"), nullptr, &o));
    std::string own = dir + "/cudnnfe-" + std::to_string(geteuid());
    EXPECT_TRUE(plan_entries(dir).empty()) << "a plan was written where other users write";
    EXPECT_EQ(plan_entries(own).size(), 1u);
    struct stat st;
    ASSERT_EQ(lstat(own.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0700u);
    remove_dir(own);
    remove_dir(dir);
}

// In a shared directory, a name planted where this user's own directory goes (a link, another
// user's directory) makes the cache unused, and the log says why; nothing is read through it.
TEST_F(PlansThatLast, APlantedOwnDirectoryInASharedDirectoryIsNotUsed) {
    std::string dir = make_temp_dir();
    ASSERT_EQ(chmod(dir.c_str(), 01777), 0);
    std::string own = dir + "/cudnnfe-" + std::to_string(geteuid());
    std::string elsewhere = make_temp_dir();
    ASSERT_EQ(symlink(elsewhere.c_str(), own.c_str()), 0);
    ScopedEnv env("CUDNNFE_CACHE_DIR", dir);
    fe_build_options o = options();
    std::string log = library_warnings([&] { ASSERT_FE_OK(fe_graph_build(seed_conv("planted"), nullptr, &o)); });
    EXPECT_TRUE(plan_entries(elsewhere).empty()) << "a plan was written through a planted link";
    EXPECT_NE(log.find("it is not a directory"), std::string::npos) << log;
    std::remove(own.c_str());
    if (geteuid() == 0) {
        ASSERT_EQ(mkdir(own.c_str(), 0700), 0);
        ASSERT_EQ(chown(own.c_str(), 65534, 65534), 0);
        fe_plan_cache_clear();
        log = library_warnings([&] { ASSERT_FE_OK(fe_graph_build(seed_conv("planted"), nullptr, &o)); });
        EXPECT_TRUE(plan_entries(own).empty()) << "a plan was written to another user's directory";
        EXPECT_NE(log.find("owned by user 65534"), std::string::npos) << log;
        remove_dir(own);
    }
    remove_dir(elsewhere);
    remove_dir(dir);
}

TEST_F(PlansThatLast, ADirectoryOfAnotherUserIsNotUsed) {
    std::string dir = make_temp_dir();
    if (geteuid() != 0 || chown(dir.c_str(), 65534, 65534) != 0) {
        remove_dir(dir);
        GTEST_SKIP() << "giving a directory to another user needs root";
    }
    ScopedEnv env("CUDNNFE_CACHE_DIR", dir);
    fe_build_options o = options();
    std::string log = library_warnings([&] { ASSERT_FE_OK(fe_graph_build(seed_conv("theirs"), nullptr, &o)); });
    EXPECT_TRUE(plan_entries(dir).empty()) << "a plan was written to another user's directory";
    EXPECT_NE(log.find(dir), std::string::npos) << log;
    EXPECT_NE(log.find("owned by user 65534"), std::string::npos) << log;
    remove_dir(dir);
}

// An entry another user owns is never read, even in a directory this user owns; the rebuilt plan
// replaces it.
TEST_F(PlansThatLast, AnotherUsersEntryIsNeverRead) {
    if (geteuid() != 0) GTEST_SKIP() << "giving an entry to another user needs root";
    std::string dir = make_temp_dir();
    ScopedEnv env("CUDNNFE_CACHE_DIR", dir);
    fe_build_options o = options();
    std::string entry = entry_after_one_build(seed_conv("foreign"), dir, o);
    ASSERT_FALSE(entry.empty());
    ASSERT_EQ(chown(entry.c_str(), 65534, 65534), 0);
    Stats before = stats();
    std::string log = library_warnings([&] { ASSERT_FE_OK(fe_graph_build(seed_conv("foreign"), nullptr, &o)); });
    EXPECT_EQ(stats().disk - before.disk, 0) << "another user's entry was served";
    EXPECT_EQ(stats().misses - before.misses, 1);
    EXPECT_NE(log.find("owned by user 65534"), std::string::npos) << log;
    struct stat st;
    ASSERT_EQ(lstat(entry.c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, geteuid()) << "the rebuilt plan did not replace the entry";
    remove_dir(dir);
}

// A FIFO in place of an entry is a miss: opening it must not wait for a writer.
TEST_F(PlansThatLast, AFifoInPlaceOfAnEntryIsAMiss) {
    std::string dir = make_temp_dir();
    ScopedEnv env("CUDNNFE_CACHE_DIR", dir);
    fe_build_options o = options();
    std::string entry = entry_after_one_build(seed_conv("fifo"), dir, o);
    ASSERT_FALSE(entry.empty());
    ASSERT_EQ(std::remove(entry.c_str()), 0);
    ASSERT_EQ(mkfifo(entry.c_str(), 0600), 0);
    // If the build blocks on the FIFO for 10 s, a writer opens and closes it: the build goes on
    // and the test fails instead of hanging.
    std::atomic<bool> done{false}, blocked{false};
    std::thread watchdog([&] {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!done && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        while (!done) {
            int fd = open(entry.c_str(), O_WRONLY | O_NONBLOCK);
            if (fd >= 0) {
                blocked = true;
                close(fd);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    });
    Stats before = stats();
    fe_status status = fe_graph_build(seed_conv("fifo"), nullptr, &o);
    done = true;
    watchdog.join();
    EXPECT_FE_OK(status);
    EXPECT_FALSE(blocked) << "the build waited for a writer on a FIFO in the cache directory";
    EXPECT_EQ(stats().misses - before.misses, 1);
    EXPECT_TRUE(is_regular_file(entry)) << "the rebuilt plan did not replace the FIFO";
    remove_dir(dir);
}

// A sparse 64 GiB file in place of an entry is a miss, replaced by the rebuilt plan: never read
// into memory (which failed every build of the graph with FE_STATUS_OUT_OF_MEMORY).
TEST_F(PlansThatLast, AnOversizedEntryIsAMissAndIsReplaced) {
    std::string dir = make_temp_dir();
    ScopedEnv env("CUDNNFE_CACHE_DIR", dir);
    fe_build_options o = options();
    std::string entry = entry_after_one_build(seed_conv("huge"), dir, o);
    ASSERT_FALSE(entry.empty());
    ASSERT_EQ(truncate(entry.c_str(), 64 * kGiB), 0);
    Stats before = stats();
    EXPECT_FE_OK(fe_graph_build(seed_conv("huge"), nullptr, &o));
    EXPECT_EQ(stats().misses - before.misses, 1);
    EXPECT_LT(size_of(entry), int64_t(1) << 20) << "the oversized entry was not replaced";
    remove_dir(dir);
}

// Writers killed with SIGKILL in the middle of their builds while they write entries; a reader
// that lists the directory all along never finds an entry that does not load. Kills are timed by
// the writers' own reports of finished builds, so a loaded machine (sanitizers, other jobs) makes
// the test slower, never emptier.
struct CacheWriter {
    pid_t pid = -1;
    int reports = -1;  // read end of the writer's stdout: one byte per finished build
    int builds = 0;
    std::chrono::steady_clock::time_point last;
    std::chrono::steady_clock::duration interval{};

    void drain() {
        char bytes[256];
        ssize_t n;
        while ((n = read(reports, bytes, sizeof bytes)) > 0) {
            auto now = std::chrono::steady_clock::now();
            builds += int(n);
            interval = (now - last) / n;
            last = now;
        }
    }
    void kill_and_reap() {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
        close(reports);
    }
};

TEST_F(PlansThatLast, WritersKilledMidWriteNeverExposeAnInvalidEntry) {
    std::string writer = sibling_program("cache_writer");
    if (access(writer.c_str(), X_OK) != 0) GTEST_SKIP() << "the cache_writer program is not built at " << writer;
    std::string dir = make_temp_dir();
    std::string device = dir + ".json";
    std::ofstream(device) << json_;
    std::string cache_env = "CUDNNFE_CACHE_DIR=" + dir, device_env = "CUDNNFE_DEVICE_JSON_TEXT_FILE=" + device;
    std::vector<std::string> environment;
    for (char **e = environ; *e; ++e) environment.push_back(*e);
    environment.push_back(cache_env);
    environment.push_back(device_env);
    int spawned = 0;
    auto spawn = [&]() -> CacheWriter {
        // Each writer starts at batch sizes no other writer has built, so it keeps writing.
        std::string first = std::to_string(1 + 200 * spawned++);
        std::vector<char *> argv = {&writer[0], const_cast<char *>("forever"), &first[0], nullptr};
        std::vector<char *> envp;
        for (std::string &e : environment) envp.push_back(&e[0]);
        envp.push_back(nullptr);
        int pipe_ends[2];
        EXPECT_EQ(pipe2(pipe_ends, O_CLOEXEC), 0);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], 1);
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
        CacheWriter w;
        EXPECT_EQ(posix_spawn(&w.pid, writer.c_str(), &actions, nullptr, argv.data(), envp.data()), 0);
        posix_spawn_file_actions_destroy(&actions);
        close(pipe_ends[1]);
        fcntl(pipe_ends[0], F_SETFL, O_NONBLOCK);
        w.reports = pipe_ends[0];
        w.last = std::chrono::steady_clock::now();
        return w;
    };
    std::vector<CacheWriter> writers;
    for (int w = 0; w < 3; ++w) writers.push_back(spawn());

    std::atomic<bool> stop{false};
    std::atomic<size_t> read_back{0};
    std::set<std::string> checked;
    std::vector<std::string> invalid;
    std::thread reader([&] {
        while (!stop.load()) {
            for (const std::string &f : plan_entries(dir)) {
                if (checked.count(f)) continue;
                std::vector<unsigned char> bytes = read_file(f);
                fe_deserialize_options o = FE_DESERIALIZE_OPTIONS_INIT;
                o.device_properties_json = json_.c_str();
                fe_graph *g = nullptr;
                if (fe_graph_deserialize(nullptr, bytes.data(), bytes.size(), &o, &g) != FE_OK)
                    invalid.push_back(f + ": " + fe_last_error_message());
                fe_graph_destroy(g);
                checked.insert(f);
                ++read_back;
            }
        }
    });
    int kills = 0;
    // Each kill waits until its victim has finished a build since it started (so it is past its
    // start-up and writing entries), then cuts its next build at a random point of its length.
    // The hour bound only turns a hang into a failure.
    std::mt19937 random_point(20261129);
    std::uniform_real_distribution<double> fraction(0.0, 1.2);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::hours(1);
    bool gave_up = false;
    for (unsigned turn = 0; !(kills >= 9 && read_back.load() >= 10); ++turn) {
        CacheWriter &victim = writers[turn % writers.size()];
        while (victim.builds == 0 && !(gave_up = std::chrono::steady_clock::now() > give_up)) {
            for (CacheWriter &w : writers) w.drain();
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        if (gave_up) break;
        std::this_thread::sleep_for(victim.interval * fraction(random_point));
        victim.kill_and_reap();
        ++kills;
        victim = spawn();
    }
    for (CacheWriter &w : writers) w.kill_and_reap();
    EXPECT_FALSE(gave_up) << "the writers finished too few builds in an hour";
    stop = true;
    reader.join();
    EXPECT_TRUE(invalid.empty()) << invalid.size() << " invalid entries, the first " << invalid.front();
    EXPECT_GE(checked.size(), 10u) << "the writers wrote too few entries to say anything";
    std::printf("    %d writers killed, %zu entries read back while written, all valid\n", kills, checked.size());
    remove_dir(dir);
    std::remove(device.c_str());
}

}  // namespace
