// The runtime version queries agree with the header and with the package version (the first
// entry of debian/changelog), so a release bumps all of them together.
#include <cstdio>
#include <fstream>
#include <regex>
#include <string>

#include "test_support.hpp"

namespace {

// "cudnnfe (1.0.0) unstable; ..." or "cudnnfe (1.0.0-1) ...": the upstream part, 1.0.0.
std::string changelog_version() {
    std::ifstream file(std::string(CUDNNFE_SOURCE_ROOT) + "/debian/changelog");
    std::string first;
    std::getline(file, first);
    std::smatch match;
    if (!std::regex_search(first, match, std::regex(R"(^cudnnfe \((?:[0-9]+:)?([0-9.]+)(?:-[^)]*)?\))")))
        return "";
    return match[1];
}

std::string header_version() {
    return std::to_string(FE_VERSION_MAJOR) + "." + std::to_string(FE_VERSION_MINOR) + "." +
           std::to_string(FE_VERSION_PATCH);
}

TEST(Version, StringMatchesTheHeader) {
    ASSERT_NE(fe_version_string(), nullptr);
    EXPECT_EQ(std::string(fe_version_string()), header_version());
}

TEST(Version, NumberMatchesTheHeader) {
    EXPECT_EQ(fe_version(), static_cast<uint32_t>(FE_VERSION));
    EXPECT_EQ(fe_version(), static_cast<uint32_t>(FE_VERSION_MAJOR * 10000 + FE_VERSION_MINOR * 100 + FE_VERSION_PATCH));
}

TEST(Version, MatchesThePackageVersion) {
    std::string packaged = changelog_version();
    ASSERT_FALSE(packaged.empty()) << "no 'cudnnfe (VERSION)' first line in " CUDNNFE_SOURCE_ROOT "/debian/changelog";
    EXPECT_EQ(std::string(fe_version_string()), packaged)
        << "debian/changelog's first entry and the library disagree: bump both (and meson.build)";
}

}  // namespace
