// Reading JSON costs time and memory in proportion to the input: sizes that a quadratic step
// would take minutes over read in well under the bounds asserted here, and inputs over the
// documented size limit are refused before they are parsed.
#include <time.h>

#include <string>

#include "serial/json.hpp"
#include "test_support.hpp"

namespace {

// The quadratic scans these tests guard against took 40 s and more; a linear read takes well under a
// second, and a few seconds in the unoptimized sanitizer build. Timed in the reading thread's own
// CPU time, which other jobs on a loaded machine do not stretch.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr double kLinearReadSeconds = 20.0;
#else
constexpr double kLinearReadSeconds = 5.0;
#endif

double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

double seconds_since(double start) { return thread_cpu_seconds() - start; }

// One object with `members` distinct keys ("k0": 0, "k1": 1, ...), about 15 bytes a member.
std::string wide_object(size_t members) {
    std::string text = "{";
    for (size_t i = 0; i < members; ++i) text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
    return text + "}";
}

// A chain of `count` ReLUs, every result declared with a uid; odd ops are named, even ones take
// automatic names (both naming paths check the names already taken).
std::string relu_chain(size_t count) {
    std::string tensors = "{\"name\":\"x\",\"uid\":1,\"dims\":[1,8],\"data_type\":\"float\"}";
    std::string ops;
    for (size_t i = 0; i < count; ++i) {
        std::string in = i == 0 ? "x" : "y" + std::to_string(i - 1), out = "y" + std::to_string(i);
        ops += (i ? ",\n" : "\n") + std::string("{\"op\":\"relu\",") +
               (i % 2 ? "\"name\":\"relu_named_" + std::to_string(i) + "\"," : "") + "\"inputs\":{\"IN_0\":\"" + in +
               "\"},\"outputs\":{\"Y\":\"" + out + "\"}}";
        tensors += ",\n{\"name\":\"" + out + "\",\"uid\":" + std::to_string(i + 2) + "}";
    }
    return "{\"format\":\"cudnnfe.graph\",\"version\":1,\"name\":\"chain\",\"tensors\":[" + tensors + "],\"ops\":[" + ops +
           "],\"outputs\":[\"y" + std::to_string(count - 1) + "\"]}";
}

// 200k members (3 MB): a scan of the earlier keys per key is 2e10 comparisons.
TEST(BoundedReading, DuplicateKeyCheckIsLinearInTheMembers) {
    std::string text = wide_object(200000);
    double start = thread_cpu_seconds();
    fe::json::Value v = fe::json::parse(text);
    EXPECT_LT(seconds_since(start), kLinearReadSeconds) << text.size() << " bytes";
    EXPECT_EQ(v.object.size(), 200000u);
    // Still refused: the same key twice, however far apart.
    text.back() = ',';
    text += "\"k0\":1}";
    try {
        fe::json::parse(text);
        ADD_FAILURE() << "a duplicate key was accepted";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("the member \"k0\" appears twice"), std::string::npos) << e.what();
    }
}

// 64k ops: naming each op, or setting each uid, by scanning the graph is 2e9 comparisons.
TEST(BoundedReading, ManyOperationsReadInLinearTime) {
    const size_t count = 65536;
    std::string text = relu_chain(count);
    fe_graph *g = nullptr;
    double start = thread_cpu_seconds();
    ASSERT_FE_OK(fe_graph_from_json(text.data(), text.size(), &g));
    EXPECT_LT(seconds_since(start), kLinearReadSeconds) << text.size() << " bytes";
    size_t outputs = 0;
    EXPECT_FE_OK(fe_graph_output_count(g, &outputs));
    EXPECT_EQ(outputs, 1u);
    fe_tensor *last = nullptr;
    ASSERT_FE_OK(fe_graph_tensor_by_name(g, ("y" + std::to_string(count - 1)).c_str(), &last));
    int64_t uid = 0;
    EXPECT_FE_OK(fe_tensor_get_uid(last, &uid));
    EXPECT_EQ(uid, static_cast<int64_t>(count + 1));
    fe_graph_destroy(g);
}

// Names and uids stay unique with the linear checks: a taken op name or uid is still refused.
TEST(BoundedReading, TakenNamesAndUidsAreStillRefused) {
    std::string text = relu_chain(4);
    std::string named_twice = text;
    named_twice.replace(named_twice.find("relu_named_3"), 12, "relu_named_1");
    fe_graph *g = nullptr;
    EXPECT_FE_STATUS(fe_graph_from_json(named_twice.data(), named_twice.size(), &g), FE_STATUS_DUPLICATE);
    EXPECT_TRUE(LastErrorContains("already has an operation named 'relu_named_1'"));
    std::string uid_twice = text;
    uid_twice.replace(uid_twice.find("\"uid\":5"), 7, "\"uid\":2");
    EXPECT_FE_STATUS(fe_graph_from_json(uid_twice.data(), uid_twice.size(), &g), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("uid 2 is already used by 'y0'"));
    // An automatic name skips one the text took already.
    std::string taken = text;
    taken.replace(taken.find("relu_named_1"), 12, "relu_2");
    ASSERT_FE_OK(fe_graph_from_json(taken.data(), taken.size(), &g));
    fe_tensor *t = nullptr;
    EXPECT_FE_OK(fe_graph_tensor_by_name(g, "y0", &t));
    fe_graph_destroy(g);
}

TEST(BoundedReading, GraphJsonOverTheSizeLimitIsRefusedUnread) {
    std::string text(size_t(FE_GRAPH_JSON_MAX_BYTES) + 1, ' ');
    text[0] = '{';
    text.back() = '}';
    fe_graph *g = reinterpret_cast<fe_graph *>(0x1);
    EXPECT_FE_STATUS(fe_graph_from_json(text.data(), text.size(), &g), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("fe_graph_from_json: the graph JSON is 67108865 bytes; a graph may take at most "
                                  "67108864 bytes (64 MiB)"));
    EXPECT_EQ(g, reinterpret_cast<fe_graph *>(0x1));
}

}  // namespace
