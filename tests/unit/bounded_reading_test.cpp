// Reading JSON costs time and memory in proportion to the input: sizes that a quadratic step
// would take minutes over read in well under the bounds asserted here, and inputs over the
// documented size limit are refused before they are parsed.
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <functional>
#include <string>

#include "common/json.hpp"
#include "test_support.hpp"

namespace {

// The quadratic scans these tests guard against took 40 s and more; a linear read takes well under a
// second, and a few seconds in the unoptimized sanitizer build. Timed in the reading thread's own
// CPU time, which other jobs on a loaded machine do not stretch.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr double kLinearReadSeconds = 20.0;
// The sanitizers' shadow memory and guard zones come on top of what the reader holds.
constexpr long long kPeakPerTextByte = 12;
// The dense texts below read about 15 times slower under the sanitizers: a quarter of the size
// keeps the time bound far from load, and the memory bounds as telling.
constexpr size_t kDenseTextBytes = size_t(16) << 20;
#else
constexpr size_t kDenseTextBytes = size_t(64) << 20;
constexpr double kLinearReadSeconds = 5.0;
constexpr long long kPeakPerTextByte = 8;
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
    fe::json::Document document = fe::json::parse(text);
    EXPECT_LT(seconds_since(start), kLinearReadSeconds) << text.size() << " bytes";
    EXPECT_EQ(document.root().object().size(), 200000u);
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
    EXPECT_FE_REFUSED(fe_graph_from_json(named_twice.data(), named_twice.size(), &g), FE_STATUS_DUPLICATE,
                      "already has an operation named 'relu_named_1'");
    std::string uid_twice = text;
    uid_twice.replace(uid_twice.find("\"uid\":5"), 7, "\"uid\":2");
    EXPECT_FE_REFUSED(fe_graph_from_json(uid_twice.data(), uid_twice.size(), &g), FE_STATUS_INVALID_ARGUMENT,
                      "uid 2 is already used by 'y0'");
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
    EXPECT_FE_REFUSED(fe_graph_from_json(text.data(), text.size(), &g), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_from_json: the graph JSON is 67108865 bytes; a graph may take at most "
                      "67108864 bytes (64 MiB)");
    EXPECT_EQ(g, reinterpret_cast<fe_graph *>(0x1));
}

// Runs `body` in a child process; returns how far its peak resident memory rose over what it
// held when it started, in bytes, or -1 when the child failed (its exit status is body's).
long long peak_growth_in_child(const std::function<bool()> &body) {
    std::fflush(nullptr);
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(pipe_fds[0]);
        rusage before{}, after{};
        getrusage(RUSAGE_SELF, &before);
        bool ok = body();
        getrusage(RUSAGE_SELF, &after);
        long long growth = (after.ru_maxrss - before.ru_maxrss) * 1024LL;
        if (write(pipe_fds[1], &growth, sizeof growth) != sizeof growth) _exit(3);
        _exit(ok ? 0 : 1);
    }
    close(pipe_fds[1]);
    long long growth = -1;
    if (read(pipe_fds[0], &growth, sizeof growth) != sizeof growth) growth = -1;
    close(pipe_fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? growth : -1;
}

// 64 MiB of one-digit numbers: as a tree of values it took 60 times the text (3.8 GiB and a
// minute). Read in seconds, in at most 8 times the text: the document holds 16 bytes a value.
TEST(BoundedReading, ADenseTextIsReadInEightTimesItsSize) {
    const size_t elements = (kDenseTextBytes - 2) / 2;
    std::string text(2 * elements + 1, ',');  // "[0,0,...,0]"
    text[0] = '[';
    for (size_t i = 1; i < text.size(); i += 2) text[i] = '0';
    text.back() = ']';
    const size_t size = text.size();
    long long growth = peak_growth_in_child([&] {
        double start = thread_cpu_seconds();
        try {
            fe::json::Document document = fe::json::parse(text);
            const size_t values = elements + 1;  // the array and its elements
            return document.bytes() <= 8 * size + 16 && document.root().array().size() + 1 == values &&
                   seconds_since(start) < kLinearReadSeconds;
        } catch (const std::exception &e) {
            std::fprintf(stderr, "%s\n", e.what());
            return false;
        }
    });
    ASSERT_GE(growth, 0) << "the text was refused, read slowly, or into a document over 8 times its size";
    EXPECT_LE(growth, kPeakPerTextByte * static_cast<long long>(size) + (16LL << 20)) << "reading took " << growth << " bytes";
    std::printf("    a %zu-byte dense text read in %lld MiB\n", size, growth >> 20);
}

// Whatever the text, the document is at most 8 times it and 16 bytes: the densest forms of each
// kind of value (numbers, strings, empty containers, members with empty names, nesting).
TEST(BoundedReading, EveryFormOfTextIsReadInEightTimesItsSize) {
    auto repeated = [](const std::string &open, const std::string &item, const std::string &close, size_t n) {
        std::string text = open;
        for (size_t i = 0; i < n; ++i) text += (i ? "," : "") + item;
        return text + close;
    };
    const std::vector<std::string> texts = {
        "0", "[]", "{}", "\"\"", "[0]", "{\"\":0}", repeated("[", "0", "]", 1000), repeated("[", "\"\"", "]", 1000),
        repeated("[", "[]", "]", 1000), repeated("[", "{}", "]", 1000), repeated("{", "\"\":0", "}", 1),
        repeated("[", "{\"\":0}", "]", 1000), repeated("[", "\"\\u0000\"", "]", 1000),
        std::string(63, '[') + std::string(63, ']')};
    for (const std::string &text : texts) {
        fe::json::Document document = fe::json::parse(text);
        EXPECT_LE(document.bytes(), 8 * text.size() + 16) << text.substr(0, 40);
    }
    // A wide object: its names are checked for duplicates with 4 bytes a member beside the document.
    std::string members = "{";
    for (int i = 0; i < 100000; ++i) members += (i ? ",\"" : "\"") + std::to_string(i) + "\":0";
    members += "}";
    EXPECT_LE(fe::json::parse(members).bytes() + 4 * 100000, 8 * members.size());
}

// A dense text like it checked without keeping values (a kernel cache's JSON before cuDNN reads it):
// accepted, in seconds, in memory that does not grow with it; a text that is not one JSON value
// is refused.
TEST(BoundedReading, CheckingATextKeepsNoValues) {
    const size_t size = kDenseTextBytes;
    std::string text = "{\"k\":[";
    text.reserve(size + 16);
    while (text.size() < size) text += "0,";
    text += "0]}";
    long long growth = peak_growth_in_child([&] {
        double start = thread_cpu_seconds();
        try {
            return fe::json::check(text) == fe::json::Type::Object && seconds_since(start) < kLinearReadSeconds;
        } catch (const std::exception &e) {
            std::fprintf(stderr, "%s\n", e.what());
            return false;
        }
    });
    ASSERT_GE(growth, 0) << "the text was refused, or checked too slowly";
    EXPECT_LT(growth, 16LL << 20) << "checking took " << growth << " bytes";
    EXPECT_THROW(fe::json::check("{\"k\":[1,2,]}"), std::exception);
    EXPECT_THROW(fe::json::check("[1] 2"), std::exception);
    EXPECT_EQ(fe::json::check(" [1, {\"a\": null}] "), fe::json::Type::Array);
}

}  // namespace
