// Helpers of the cache directory's tests: temporary directories, their entries, the library's
// warnings while a body runs, environment variables set for one test.
#pragma once

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "deviceless_support.hpp"

namespace cudnnfe_test {

inline std::string make_temp_dir() {
    char pattern[] = "/tmp/cudnnfe-cache-XXXXXX";
    char *dir = mkdtemp(pattern);
    return dir ? dir : "";
}

inline std::vector<std::string> entries(const std::string &dir) {
    std::vector<std::string> out;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d)) {
            std::string name = e->d_name;
            if (name != "." && name != "..") out.push_back(dir + "/" + name);
        }
        closedir(d);
    }
    return out;
}

inline void remove_dir(const std::string &dir) {
    for (const std::string &f : entries(dir)) std::remove(f.c_str());
    rmdir(dir.c_str());
}

inline std::vector<unsigned char> read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<unsigned char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Environment variable set for one test.
struct ScopedEnv {
    ScopedEnv(const char *name, const std::string &value) : name_(name) { setenv(name, value.c_str(), 1); }
    ~ScopedEnv() { unsetenv(name_); }
    const char *name_;
};

inline bool is_regular_file(const std::string &path) {
    struct stat st;
    return lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

inline std::vector<std::string> plan_entries(const std::string &dir) {
    std::vector<std::string> out;
    for (const std::string &f : entries(dir))
        if (f.size() > 8 && f.compare(f.size() - 8, 8, ".fegraph") == 0 && is_regular_file(f)) out.push_back(f);
    return out;
}

// What the library writes to stderr (its log at warn level) while `body` runs.
template <typename Body>
std::string library_warnings(Body body) {
    std::fflush(stderr);
    char path[] = "/tmp/cudnnfe-log-XXXXXX";
    int capture = mkstemp(path);
    int saved = dup(2);
    dup2(capture, 2);
    fe_log_set_level(FE_LOG_WARN);
    body();
    fe_log_set_level(FE_LOG_OFF);
    std::fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(capture);
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::remove(path);
    return text;
}

// The entry's path after one build of the graph, with the in-process cache cleared so the next
// build reads the directory.
inline std::string entry_after_one_build(fe_graph *graph, const std::string &dir, const fe_build_options &o) {
    EXPECT_FE_OK(fe_graph_build(graph, nullptr, &o));
    std::vector<std::string> files = plan_entries(dir);
    EXPECT_EQ(files.size(), 1u);
    fe_plan_cache_clear();
    return files.empty() ? "" : files[0];
}

}  // namespace cudnnfe_test
