// The shared library exports the C ABI and nothing else, under its soname.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "test_support.hpp"

namespace {

std::string run(const std::string &command) {
    std::string out;
    FILE *pipe = popen(command.c_str(), "r");
    if (!pipe) return out;
    char buffer[512];
    while (fgets(buffer, sizeof buffer, pipe)) out += buffer;
    pclose(pipe);
    return out;
}

const char *library() {
    const char *path = std::getenv("CUDNNFE_LIBRARY_PATH");
    return path ? path : "";
}

TEST(Exports, OnlyFeSymbolsAreExported) {
    if (!*library()) GTEST_SKIP() << "CUDNNFE_LIBRARY_PATH is not set";
    std::string symbols = run(std::string("nm -D --defined-only ") + library() + " | awk '{print $3}' | sed 's/@.*//'");
    ASSERT_FALSE(symbols.empty()) << "nm printed nothing for " << library();
    size_t count = 0, start = 0;
    while (start < symbols.size()) {
        size_t end = symbols.find('\n', start);
        std::string name = symbols.substr(start, end - start);
        start = end == std::string::npos ? symbols.size() : end + 1;
        if (name.empty() || name == "CUDNNFE_1") continue;
        ++count;
        EXPECT_EQ(name.rfind("fe_", 0), 0u) << "unexpected exported symbol " << name;
    }
    EXPECT_GT(count, 80u);
    for (const char *required : {"fe_graph_create", "fe_graph_build", "fe_graph_execute", "fe_graph_sdpa",
                                 "fe_graph_conv_fprop", "fe_last_error_message", "fe_handle_create"})
        EXPECT_NE(symbols.find(std::string(required) + "\n"), std::string::npos) << required;
}

TEST(Exports, SonameCarriesTheMajorVersion) {
    if (!*library()) GTEST_SKIP() << "CUDNNFE_LIBRARY_PATH is not set";
    std::string dynamic = run(std::string("objdump -p ") + library() + " | grep SONAME");
    EXPECT_NE(dynamic.find("libcudnnfe.so.1"), std::string::npos) << dynamic;
}

}  // namespace
