// Sharing a cache directory between users through a secret (CUDNNFE_CACHE_SECRET): entries are
// signed and served whoever owns them when their MAC verifies; altered, unsigned or otherwise
// signed entries are misses that the rebuilt plan replaces; a secret others could read, a link,
// or a missing file leaves the cache unused and says why.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "cache_directory_support.hpp"
#include "plans_that_last.hpp"

using namespace cudnnfe_test;

namespace {

class CacheSecrets : public PlansThatLast {
  protected:
    void SetUp() override {
        PlansThatLast::SetUp();
        if (IsSkipped()) return;
        dir_ = make_temp_dir();
        secrets_ = make_temp_dir();
        secret_ = write_secret("secret", "0123456789abcdef0123456789abcdef", 0600);
    }
    void TearDown() override {
        remove_dir(dir_);
        remove_dir(secrets_);
        PlansThatLast::TearDown();
    }
    std::string write_secret(const char *name, const std::string &text, mode_t mode) {
        std::string path = secrets_ + "/" + name;
        std::ofstream(path, std::ios::binary) << text;
        chmod(path.c_str(), mode);
        return path;
    }
    static void write_file(const std::string &path, const std::vector<unsigned char> &bytes) {
        std::ofstream(path, std::ios::binary | std::ios::trunc)
            .write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    // Builds the seed's convolution once more with the in-process cache empty.
    Stats rebuild(const char *name) {
        fe_plan_cache_clear();
        Stats before = stats();
        fe_build_options o = options();
        EXPECT_FE_OK(fe_graph_build(seed_conv(name), nullptr, &o));
        Stats after = stats();
        return {after.memory - before.memory, after.disk - before.disk, after.misses - before.misses,
                after.rejected - before.rejected};
    }
    std::string dir_, secrets_, secret_;
};

TEST_F(CacheSecrets, EntriesAreSignedAndServed) {
    ScopedEnv cache("CUDNNFE_CACHE_DIR", dir_), key("CUDNNFE_CACHE_SECRET", secret_);
    fe_build_options o = options();
    std::string entry = entry_after_one_build(seed_conv("signed"), dir_, o);
    ASSERT_FALSE(entry.empty());
    std::vector<unsigned char> bytes = read_file(entry);
    ASSERT_GT(bytes.size(), 40u);
    EXPECT_EQ(std::memcmp(bytes.data() + bytes.size() - 40, "FEHMAC01", 8), 0) << "the entry carries no MAC";
    Stats s = rebuild("signed");
    EXPECT_EQ(s.disk, 1);
    EXPECT_EQ(s.misses, 0);
}

// Another user who holds the secret wrote this entry: it is served.
TEST_F(CacheSecrets, AnotherUsersSignedEntryIsServed) {
    if (geteuid() != 0) GTEST_SKIP() << "giving an entry to another user needs root";
    ScopedEnv cache("CUDNNFE_CACHE_DIR", dir_), key("CUDNNFE_CACHE_SECRET", secret_);
    fe_build_options o = options();
    std::string entry = entry_after_one_build(seed_conv("theirs"), dir_, o);
    ASSERT_EQ(chown(entry.c_str(), 65534, 65534), 0);
    Stats s = rebuild("theirs");
    EXPECT_EQ(s.disk, 1) << "a signed entry of another user was not served";
}

// Altered (checksum and all), stripped of its MAC, or signed with another secret: a miss,
// counted as rejected, and the rebuilt plan replaces it.
TEST_F(CacheSecrets, EntriesTheSecretDoesNotVerifyAreRejectedAndReplaced) {
    ScopedEnv cache("CUDNNFE_CACHE_DIR", dir_);
    fe_build_options o = options();
    std::string entry;
    std::vector<unsigned char> genuine;
    {
        ScopedEnv key("CUDNNFE_CACHE_SECRET", secret_);
        entry = entry_after_one_build(seed_conv("forged"), dir_, o);
        genuine = read_file(entry);
    }
    std::vector<unsigned char> altered = genuine, stripped(genuine.begin(), genuine.end() - 40), other_key;
    altered[altered.size() / 2] ^= 0x01;
    {
        ScopedEnv key("CUDNNFE_CACHE_SECRET", write_secret("other", "another secret of sixteen bytes or more", 0600));
        entry_after_one_build(seed_conv("forged"), dir_, o);  // replaces the entry
        other_key = read_file(entry);
    }
    ASSERT_NE(other_key, genuine);
    ScopedEnv key("CUDNNFE_CACHE_SECRET", secret_);
    for (const auto &bad : {altered, stripped, other_key}) {
        write_file(entry, bad);
        std::string log = library_warnings([&] {
            Stats s = rebuild("forged");
            EXPECT_EQ(s.disk, 0) << "an entry the secret does not verify was served";
            EXPECT_EQ(s.rejected, 1);
        });
        EXPECT_TRUE(log.find("MAC") != std::string::npos) << log;
        EXPECT_EQ(read_file(entry), genuine) << "the rebuilt plan did not replace the entry";
    }
}

// With the secret, a directory anyone can write (no sticky bit) is usable, entries in it directly.
TEST_F(CacheSecrets, ADirectoryOthersCanWriteIsUsableWithTheSecret) {
    ASSERT_EQ(chmod(dir_.c_str(), 0777), 0);
    ScopedEnv cache("CUDNNFE_CACHE_DIR", dir_), key("CUDNNFE_CACHE_SECRET", secret_);
    fe_handle *handle = nullptr;
    if (fe_handle_create(0, &handle) == FE_OK) {
        EXPECT_FE_OK(fe_handle_set_cache_directory(handle, dir_.c_str()));
        fe_handle_destroy(handle);
    }
    fe_build_options o = options();
    EXPECT_FALSE(entry_after_one_build(seed_conv("team"), dir_, o).empty());
    EXPECT_EQ(rebuild("team").disk, 1);
}

// A secret that is not one: the cache is not used, and the reason names the file and the cause.
TEST_F(CacheSecrets, AnUnusableSecretLeavesTheCacheUnused) {
    std::string link = secrets_ + "/link";
    ASSERT_EQ(symlink(secret_.c_str(), link.c_str()), 0);
    const struct {
        std::string path, cause;
    } cases[] = {
        {write_secret("readable", "0123456789abcdef0123456789abcdef", 0644), "others may read or write it"},
        {write_secret("short", "too short", 0600), "a secret is 16 to 4096 bytes"},
        {secrets_ + "/missing", "No such file"},
        {link, "Too many levels of symbolic links"},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.path);
        ScopedEnv cache("CUDNNFE_CACHE_DIR", dir_), key("CUDNNFE_CACHE_SECRET", c.path);
        std::string log = library_warnings([&] { EXPECT_EQ(rebuild("unused").disk, 0); });
        EXPECT_TRUE(plan_entries(dir_).empty()) << "an entry was written without a usable secret";
        EXPECT_NE(log.find("CUDNNFE_CACHE_SECRET " + c.path), std::string::npos) << log;
        EXPECT_NE(log.find(c.cause), std::string::npos) << log;
        fe_handle *handle = nullptr;
        if (fe_handle_create(0, &handle) == FE_OK) {
            EXPECT_FE_STATUS(fe_handle_set_cache_directory(handle, dir_.c_str()), FE_STATUS_INVALID_ARGUMENT);
            EXPECT_TRUE(LastErrorContains(c.cause)) << fe_last_error_message();
            fe_handle_destroy(handle);
        }
    }
}

}  // namespace
