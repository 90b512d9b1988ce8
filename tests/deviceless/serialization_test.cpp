// fe_graph_serialize / fe_graph_deserialize on a plan built devicelessly for the H100: the
// round trip, every corruption an error (never a crash), and mismatched targets.
#include <stdexcept>

#include "plans_that_last.hpp"

using cudnnfe_test::PlansThatLast;

namespace {

std::string describe_blob(const std::vector<unsigned char> &bytes) {
    size_t n = 0;
    fe_serialized_describe(bytes.data(), bytes.size(), nullptr, 0, &n);
    std::string s(n + 1, '\0');
    EXPECT_FE_OK(fe_serialized_describe(bytes.data(), bytes.size(), &s[0], s.size(), &n));
    s.resize(n);
    return s;
}

std::string tensor_summary(fe_graph *g) {
    std::string out;
    size_t inputs = 0, outputs = 0;
    EXPECT_FE_OK(fe_graph_input_count(g, &inputs));
    EXPECT_FE_OK(fe_graph_output_count(g, &outputs));
    for (size_t i = 0; i < inputs + outputs; ++i) {
        fe_tensor *t = nullptr;
        EXPECT_FE_OK(i < inputs ? fe_graph_input(g, i, &t) : fe_graph_output(g, i - inputs, &t));
        int64_t uid = 0, bytes = 0;
        EXPECT_FE_OK(fe_tensor_get_uid(t, &uid));
        EXPECT_FE_OK(fe_tensor_size_bytes(t, &bytes));
        out += std::string(name_of(t)) + " uid " + std::to_string(uid) + " " + std::to_string(bytes) + "B; ";
    }
    return out;
}

// A blob taken apart by the layout of lib/store/blob.hpp, to change one field and seal it again
// (so that the checksum passes and the change itself is what is read).
struct BlobParts {
    static constexpr size_t kHeader = 24;  // magic, format, cudnnfe version, cuDNN version
    static constexpr uint32_t kPlan = 0x504C414E, kLayout = 0x4C41594F;
    std::vector<unsigned char> header;
    std::vector<std::pair<uint32_t, std::vector<unsigned char>>> sections;

    explicit BlobParts(const std::vector<unsigned char> &bytes) : header(bytes.begin(), bytes.begin() + kHeader) {
        size_t at = kHeader;
        while (at < bytes.size() - 8) {
            uint32_t tag = static_cast<uint32_t>(read(bytes, at, 4));
            size_t length = static_cast<size_t>(read(bytes, at + 4, 8));
            sections.emplace_back(tag, std::vector<unsigned char>(bytes.begin() + at + 12, bytes.begin() + at + 12 + length));
            at += 12 + length;
        }
    }
    static uint64_t read(const std::vector<unsigned char> &b, size_t at, int n) {
        uint64_t v = 0;
        for (int i = 0; i < n; ++i) v |= uint64_t(b[at + i]) << (8 * i);
        return v;
    }
    static void write(std::vector<unsigned char> &b, size_t at, uint64_t v, int n) {
        for (int i = 0; i < n; ++i) b[at + i] = static_cast<unsigned char>(v >> (8 * i));
    }
    std::vector<unsigned char> &section(uint32_t tag) {
        for (auto &s : sections)
            if (s.first == tag) return s.second;
        throw std::runtime_error("no such section");
    }
    std::vector<unsigned char> seal() const {
        std::vector<unsigned char> out = header;
        for (const auto &s : sections) {
            size_t at = out.size();
            out.resize(at + 12);
            write(out, at, s.first, 4);
            write(out, at + 4, s.second.size(), 8);
            out.insert(out.end(), s.second.begin(), s.second.end());
        }
        uint64_t h = 14695981039346656037ull;
        for (unsigned char c : out) h = (h ^ c) * 1099511628211ull;
        size_t at = out.size();
        out.resize(at + 8);
        write(out, at, h, 8);
        return out;
    }
};

TEST_F(PlansThatLast, ARoundTripGivesTheSamePlanAndBindings) {
    fe_graph *g = seed_conv("seed_conv");
    fe_build_options o = options();
    o.use_plan_cache = 0;
    ASSERT_FE_OK(fe_graph_build(g, nullptr, &o));
    std::vector<unsigned char> bytes = serialize(g);

    std::string text = describe_blob(bytes);
    EXPECT_NE(text.find("target: NVIDIA H100 80GB HBM3, sm 900, 132 SMs"), std::string::npos) << text;
    EXPECT_NE(text.find(engine_tag_of(g)), std::string::npos) << text;

    fe_graph *back = nullptr;
    ASSERT_FE_OK(deserialize(bytes, &back));
    int32_t built = 0;
    ASSERT_FE_OK(fe_graph_is_built(back, &built));
    EXPECT_EQ(built, 1);
    EXPECT_STREQ(engine_tag_of(back), engine_tag_of(g));
    int64_t ws_a = -1, ws_b = -2;
    EXPECT_FE_OK(fe_graph_workspace_size(g, &ws_a));
    EXPECT_FE_OK(fe_graph_workspace_size(back, &ws_b));
    EXPECT_EQ(ws_a, ws_b);
    EXPECT_EQ(tensor_summary(back), tensor_summary(g));
    EXPECT_NE(describe(back).find("plan from the serialized graph"), std::string::npos) << describe(back);
    // A deserialized graph serializes again, to a blob that describes the same plan.
    std::vector<unsigned char> again = serialize(back);
    EXPECT_EQ(describe_blob(again), describe_blob(bytes));
}

TEST_F(PlansThatLast, AnUnbuiltGraphDoesNotSerialize) {
    fe_graph *g = seed_conv("unbuilt");
    size_t n = 0;
    EXPECT_EQ(fe_graph_serialize(g, nullptr, 0, &n), FE_STATUS_BAD_STATE);
    EXPECT_NE(std::string(fe_last_error_message()).find("not built"), std::string::npos) << fe_last_error_message();
}

TEST_F(PlansThatLast, CorruptedOrTruncatedBytesAreErrors) {
    fe_graph *g = seed_conv("corrupt");
    fe_build_options o = options();
    ASSERT_FE_OK(fe_graph_build(g, nullptr, &o));
    std::vector<unsigned char> bytes = serialize(g);
    fe_graph *out = nullptr;
    // Every truncation.
    for (size_t n : {size_t(0), size_t(4), size_t(8), size_t(20), size_t(40), bytes.size() / 2, bytes.size() - 1}) {
        std::vector<unsigned char> cut(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(n));
        if (cut.empty()) cut.push_back(0);
        EXPECT_EQ(deserialize(cut, &out), FE_STATUS_INVALID_ARGUMENT) << "truncated to " << n;
        size_t len = 0;
        EXPECT_EQ(fe_serialized_describe(cut.data(), cut.size(), nullptr, 0, &len), FE_STATUS_INVALID_ARGUMENT);
    }
    // A flipped bit anywhere (sampled): the checksum catches it.
    for (size_t at = 0; at < bytes.size(); at += 97) {
        std::vector<unsigned char> bad = bytes;
        bad[at] ^= 0x20;
        fe_status s = deserialize(bad, &out);
        EXPECT_NE(s, FE_OK) << "a flipped bit at " << at << " went unnoticed";
    }
    std::vector<unsigned char> bad = bytes;
    bad[bytes.size() / 2] ^= 1;
    EXPECT_EQ(deserialize(bad, &out), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(fe_last_error_message()).find("checksum"), std::string::npos) << fe_last_error_message();
    std::vector<unsigned char> garbage(100, 'x');
    EXPECT_EQ(deserialize(garbage, &out), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(fe_last_error_message()).find("magic"), std::string::npos) << fe_last_error_message();
}

// A plan cuDNN cannot load (cut short, not JSON, JSON of something else) is a corrupt blob: the
// caller's bytes are wrong, not the library.
TEST_F(PlansThatLast, ACorruptPlanIsAnInvalidArgument) {
    fe_graph *g = seed_conv("corrupt_plan");
    fe_build_options o = options();
    ASSERT_FE_OK(fe_graph_build(g, nullptr, &o));
    std::vector<unsigned char> bytes = serialize(g);
    std::vector<unsigned char> plan = BlobParts(bytes).section(BlobParts::kPlan);
    std::string half(plan.begin(), plan.begin() + static_cast<ptrdiff_t>(plan.size() / 2));
    for (const std::string &bad : {half, std::string("not json"), std::string("{\"engine\": 1}"), std::string("[]")}) {
        BlobParts parts(bytes);
        parts.section(BlobParts::kPlan).assign(bad.begin(), bad.end());
        fe_graph *out = nullptr;
        EXPECT_FE_STATUS(deserialize(parts.seal(), &out), FE_STATUS_INVALID_ARGUMENT) << bad.substr(0, 40);
        EXPECT_TRUE(LastErrorContains("fe_graph_deserialize: the serialized plan is corrupt")) << bad.substr(0, 40);
    }
}

TEST_F(PlansThatLast, ABlobOfAnotherLibraryVersionIsRefused) {
    fe_graph *g = seed_conv("other_library");
    fe_build_options o = options();
    ASSERT_FE_OK(fe_graph_build(g, nullptr, &o));
    std::vector<unsigned char> bytes = serialize(g);
    for (uint32_t version : {uint32_t(100), uint32_t(FE_VERSION + 1), uint32_t(FE_VERSION + 10000)}) {
        BlobParts parts(bytes);
        BlobParts::write(parts.header, 12, version, 4);
        fe_graph *out = nullptr;
        for (fe_mismatch_policy policy : {FE_MISMATCH_REFUSE, FE_MISMATCH_REBUILD}) {
            EXPECT_FE_STATUS(deserialize(parts.seal(), &out, "", policy), FE_STATUS_NOT_SUPPORTED) << version;
            std::string written = std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
                                  std::to_string(version % 100);
            EXPECT_TRUE(LastErrorContains("the serialized graph was written by cudnnfe " + written +
                                          "; this cudnnfe reads those written by cudnnfe"));
        }
    }
}

// A recorded workspace out of bounds is refused; one the plan does not need is replaced by what
// the plan needs here (execution allocates that), as happens when a plan built without a GPU is
// loaded on one.
TEST_F(PlansThatLast, ARecordedWorkspaceOutOfBoundsIsRefusedAndThePlansOwnIsUsed) {
    fe_graph *g = seed_conv("workspace");
    fe_build_options o = options();
    ASSERT_FE_OK(fe_graph_build(g, nullptr, &o));
    int64_t workspace = 0;
    ASSERT_FE_OK(fe_graph_workspace_size(g, &workspace));
    std::vector<unsigned char> bytes = serialize(g);
    struct Case { int64_t recorded; const char *message; };
    for (Case c : {Case{int64_t(1) << 62, "it records a workspace of 4611686018427387904 bytes; the bound is 0 to"},
                   Case{-1, "it records a workspace of -1 bytes"},
                   Case{FE_SERIALIZED_MAX_WORKSPACE_BYTES, "the bound is 0 to 1099511627776"}}) {
        BlobParts parts(bytes);
        BlobParts::write(parts.section(BlobParts::kLayout), 0, static_cast<uint64_t>(c.recorded), 8);
        fe_graph *out = nullptr;
        EXPECT_FE_STATUS(deserialize(parts.seal(), &out), FE_STATUS_INVALID_ARGUMENT) << c.recorded;
        EXPECT_TRUE(LastErrorContains(c.message)) << c.recorded;
    }
    for (int64_t recorded : {workspace + 256, int64_t(0)}) {
        BlobParts parts(bytes);
        BlobParts::write(parts.section(BlobParts::kLayout), 0, static_cast<uint64_t>(recorded), 8);
        fe_graph *out = nullptr;
        ASSERT_FE_OK(deserialize(parts.seal(), &out)) << recorded;
        int64_t used = -1;
        ASSERT_FE_OK(fe_graph_workspace_size(out, &used));
        EXPECT_EQ(used, workspace) << "recorded " << recorded;
    }
}

TEST_F(PlansThatLast, AnotherGpuIsRefusedOrRebuilt) {
    fe_graph *g = seed_conv("other_gpu");
    fe_build_options o = options();
    ASSERT_FE_OK(fe_graph_build(g, nullptr, &o));
    std::vector<unsigned char> bytes = serialize(g);
    // The PCIe H100: 114 SMs.
    const std::string pcie = with_replaced(json_, "\"multiProcessorCount\":132", "\"multiProcessorCount\":114");
    fe_graph *out = nullptr;
    EXPECT_EQ(deserialize(bytes, &out, pcie), FE_STATUS_NOT_SUPPORTED);
    std::string message = fe_last_error_message();
    EXPECT_NE(message.find("132 SMs"), std::string::npos) << message;
    EXPECT_NE(message.find("114 SMs"), std::string::npos) << message;
    ASSERT_FE_OK(deserialize(bytes, &out, pcie, FE_MISMATCH_REBUILD));
    EXPECT_EQ(describe(out).find("plan from the serialized graph"), std::string::npos) << "it was not rebuilt";
    std::string text = describe_blob(serialize(out));
    EXPECT_NE(text.find("114 SMs"), std::string::npos) << text;
}

// An H200 has an H100 SXM's compute capability, SM count and shared memory: a plan built for one
// loads on the other as it was built (the name is not part of what a plan depends on).
TEST_F(PlansThatLast, AGpuOfAnotherNameAndTheSameShapeLoadsThePlan) {
    fe_graph *g = seed_conv("same_shape_gpu");
    fe_build_options o = options();
    ASSERT_FE_OK(fe_graph_build(g, nullptr, &o));
    std::vector<unsigned char> bytes = serialize(g);
    const std::string h200 = with_replaced(json_, "NVIDIA H100 80GB HBM3", "NVIDIA H200");
    fe_graph *out = nullptr;
    ASSERT_FE_OK(deserialize(bytes, &out, h200));
    EXPECT_NE(describe(out).find("plan from the serialized graph"), std::string::npos) << "it was rebuilt";
}

TEST_F(PlansThatLast, BadArgumentsAreErrors) {
    std::vector<unsigned char> bytes(64, 0);
    fe_graph *out = nullptr;
    EXPECT_EQ(fe_graph_deserialize(nullptr, nullptr, 0, nullptr, &out), FE_STATUS_NULL_POINTER);
    EXPECT_EQ(fe_graph_deserialize(nullptr, bytes.data(), bytes.size(), nullptr, nullptr), FE_STATUS_NULL_POINTER);
    fe_deserialize_options o = FE_DESERIALIZE_OPTIONS_INIT;
    o.on_mismatch = static_cast<fe_mismatch_policy>(7);
    o.device_properties_json = json_.c_str();
    EXPECT_EQ(fe_graph_deserialize(nullptr, bytes.data(), bytes.size(), &o, &out), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(fe_last_error_message()).find("mismatch policy"), std::string::npos);
}

}  // namespace
