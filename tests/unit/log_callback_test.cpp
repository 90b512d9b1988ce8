// fe_log_set_callback: log lines reach the callback with their level and without the prefix, only
// at or above the level set, and NULL sends them back to the default destination.
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace {

struct Received {
    std::mutex mutex;
    std::vector<std::pair<fe_log_level, std::string>> lines;
};

void collect(fe_log_level level, const char *message, void *user_data) {
    auto *received = static_cast<Received *>(user_data);
    std::lock_guard<std::mutex> lock(received->mutex);
    received->lines.emplace_back(level, message);
}

// Builds the seed convolution's operation graph for the captured H100 (cuDNN, no GPU): at info it
// logs "graph 'log_callback': operation graph of ... operations".
bool build_operation_graph(const std::string &json, const char *name = "log_callback") {
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    options.name = name;
    fe_graph *g = nullptr;
    if (fe_graph_create(&options, &g) != FE_OK) return false;
    fe_tensor *x = cudnnfe_test::make_tensor(g, "x", {8, 64, 56, 56}, true, FE_DATA_HALF);
    fe_tensor *w = cudnnfe_test::make_tensor(g, "w", {32, 64, 3, 3}, true, FE_DATA_HALF);
    fe_tensor *y = nullptr;
    bool ok = fe_graph_conv_fprop(g, x, w, nullptr, &y) == FE_OK && fe_tensor_set_output(y, 1) == FE_OK &&
              fe_graph_set_device_properties(g, json.c_str()) == FE_OK &&
              fe_graph_build_operation_graph(g, nullptr) == FE_OK;
    fe_graph_destroy(g);
    return ok;
}

class LogCallback : public ::testing::Test {
  protected:
    void TearDown() override {
        EXPECT_FE_OK(fe_log_set_callback(nullptr, nullptr));
        EXPECT_FE_OK(fe_log_set_level(FE_LOG_OFF));
    }
};

TEST_F(LogCallback, NullIsAccepted) {
    EXPECT_FE_OK(fe_log_set_callback(nullptr, nullptr));
    int unused = 0;
    EXPECT_FE_OK(fe_log_set_callback(nullptr, &unused));
}

TEST_F(LogCallback, LinesReachTheCallbackWithTheirLevel) {
    std::string json = cudnnfe_test::device_json();
    if (!cudnnfe_test::cudnn_available() || json.empty()) GTEST_SKIP() << "needs cuDNN and the device description";
    Received received;
    ASSERT_FE_OK(fe_log_set_callback(collect, &received));
    ASSERT_FE_OK(fe_log_set_level(FE_LOG_INFO));
    ASSERT_TRUE(build_operation_graph(json)) << fe_last_error_message();
    bool found = false;
    {
        std::lock_guard<std::mutex> lock(received.mutex);
        for (const auto &line : received.lines) {
            EXPECT_LE(line.first, FE_LOG_INFO) << line.second;  // nothing above the level set
            EXPECT_EQ(line.second.find("[cudnnfe"), std::string::npos) << line.second;
            EXPECT_EQ(line.second.find('\n'), std::string::npos) << line.second;
            if (line.first == FE_LOG_INFO && line.second.find("graph 'log_callback': operation graph of") == 0)
                found = true;
        }
    }
    EXPECT_TRUE(found) << received.lines.size() << " lines";

    // At warn, the info lines are not sent.
    size_t before = received.lines.size();
    ASSERT_FE_OK(fe_log_set_level(FE_LOG_WARN));
    ASSERT_TRUE(build_operation_graph(json)) << fe_last_error_message();
    EXPECT_EQ(received.lines.size(), before);
}

TEST_F(LogCallback, NullRestoresTheDefaultDestination) {
    std::string json = cudnnfe_test::device_json();
    if (!cudnnfe_test::cudnn_available() || json.empty()) GTEST_SKIP() << "needs cuDNN and the device description";
    Received received;
    ASSERT_FE_OK(fe_log_set_callback(collect, &received));
    ASSERT_FE_OK(fe_log_set_callback(nullptr, nullptr));
    ASSERT_FE_OK(fe_log_set_level(FE_LOG_INFO));
    ::testing::internal::CaptureStderr();
    bool built = build_operation_graph(json);
    std::string err = ::testing::internal::GetCapturedStderr();
    ASSERT_TRUE(built) << fe_last_error_message();
    EXPECT_TRUE(received.lines.empty());
    EXPECT_NE(err.find("[cudnnfe info] graph 'log_callback': operation graph of"), std::string::npos) << err;
}

}  // namespace

namespace {

// A graph name with ESC and BEL (an xterm title sequence): the log line carries them escaped, so
// a terminal showing the log only displays them.
TEST_F(LogCallback, ControlCharactersInNamesAreEscaped) {
    std::string json = cudnnfe_test::device_json();
    if (!cudnnfe_test::cudnn_available() || json.empty()) GTEST_SKIP() << "needs cuDNN and the device description";
    Received received;
    ASSERT_FE_OK(fe_log_set_callback(collect, &received));
    ASSERT_FE_OK(fe_log_set_level(FE_LOG_INFO));
    ASSERT_TRUE(build_operation_graph(json, "title\x1b]0;pwned\x07")) << fe_last_error_message();
    std::lock_guard<std::mutex> lock(received.mutex);
    bool named = false;
    for (const auto &line : received.lines) {
        EXPECT_EQ(line.second.find('\x1b'), std::string::npos) << line.second;
        EXPECT_EQ(line.second.find('\x07'), std::string::npos) << line.second;
        named = named || line.second.find("title\\x1b]0;pwned\\x07") != std::string::npos;
    }
    EXPECT_TRUE(named) << "no line named the graph";
}

// The same name in an error message.
TEST_F(LogCallback, ControlCharactersInErrorMessagesAreEscaped) {
    fe_graph *g = nullptr;
    ASSERT_FE_OK(fe_graph_create(nullptr, &g));
    fe_tensor *t = nullptr;
    EXPECT_NE(fe_graph_tensor_by_name(g, "a\x1b[2Jb\x07", &t), FE_OK);
    std::string message = fe_last_error_message();
    EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
    EXPECT_NE(message.find("a\\x1b[2Jb\\x07"), std::string::npos) << message;
    fe_graph_destroy(g);
}

}  // namespace
