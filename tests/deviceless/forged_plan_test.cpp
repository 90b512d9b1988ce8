// A serialized graph edited by a writer who fixes the checksum: a plan that disagrees with its
// graph is refused (larger tensors, a larger batch in the graph, scaled results, other tensors,
// other operation attributes),
// and single-bit edits of the plan either are refused or load a graph
// that binds exactly what the original did. The same check guards the cache directory.
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>

#include "blob_editor.hpp"
#include "plans_that_last.hpp"

using cudnnfe_test::EditableBlob;
using cudnnfe_test::PlansThatLast;

namespace {

class ForgedPlans : public PlansThatLast {
  protected:
    // The seed's convolution (batch 16) built for the H100 description, serialized.
    std::vector<unsigned char> built_blob() {
        fe_graph *g = seed_conv("forged", 16);
        fe_build_options o = options();
        o.use_plan_cache = 0;
        EXPECT_FE_OK(fe_graph_build(g, nullptr, &o));
        EXPECT_FE_OK(fe_graph_workspace_size(g, &workspace_));
        return serialize(g);
    }
    void expect_refused(const std::vector<unsigned char> &bytes, const char *cause) {
        fe_graph *out = nullptr;
        EXPECT_EQ(deserialize(bytes, &out), FE_STATUS_INVALID_ARGUMENT) << "a forged plan loaded";
        EXPECT_TRUE(LastErrorContains("the plan does not match its graph")) << fe_last_error_message();
        EXPECT_TRUE(LastErrorContains(cause)) << fe_last_error_message();
    }
    // The seed's convolution + bias + relu (batch 16), serialized: a pointwise chain in the plan.
    std::vector<unsigned char> built_fused_blob() {
        fe_graph *g = graph("forged_fused", FE_DATA_HALF);
        fe_tensor *x = tensor(g, "X", {16, 64, 56, 56}, true), *w = tensor(g, "W", {32, 64, 3, 3}, true);
        fe_tensor *b = tensor(g, "B", {1, 32, 1, 1}, true), *y = nullptr, *biased = nullptr, *z = nullptr;
        fe_conv_options co = FE_CONV_OPTIONS_INIT;
        co.pre_padding[0] = co.pre_padding[1] = co.post_padding[0] = co.post_padding[1] = 1;
        EXPECT_FE_OK(fe_graph_conv_fprop(g, x, w, &co, &y));
        EXPECT_FE_OK(fe_graph_bias(g, y, b, nullptr, &biased));
        EXPECT_FE_OK(fe_graph_relu(g, biased, nullptr, &z));
        EXPECT_FE_OK(fe_tensor_set_output(z, 1));
        fe_build_options o = options();
        o.use_plan_cache = 0;
        EXPECT_FE_OK(fe_graph_build(g, nullptr, &o));
        return serialize(g);
    }
    int64_t workspace_ = -1;
};

TEST_F(ForgedPlans, AnUnchangedBlobLoads) {
    std::vector<unsigned char> bytes = built_blob();
    EXPECT_EQ(EditableBlob(bytes).bytes(), bytes) << "the test's blob editor does not write what it read";
    fe_graph *out = nullptr;
    ASSERT_FE_OK(deserialize(bytes, &out));
}

// Executing such a plan would read and write 64 times past the caller's buffers.
TEST_F(ForgedPlans, APlanWithLargerTensorsIsRefused) {
    EditableBlob blob(built_blob());
    blob.replace(EditableBlob::kPlan, "\"dim\":[16,", "\"dim\":[1024,");
    expect_refused(blob.bytes(), "is [1024,64,56,56]");
}

TEST_F(ForgedPlans, AGraphWithALargerBatchThanItsPlanIsRefused) {
    EditableBlob blob(built_blob());
    blob.replace(EditableBlob::kGraph, "\"dims\":[16,", "\"dims\":[32,");
    expect_refused(blob.bytes(), "[32,64,56,56]");
}

TEST_F(ForgedPlans, AScaledPlanIsRefused) {
    EditableBlob blob(built_blob());
    blob.replace(EditableBlob::kPlan, "\"alpha\":1.0", "\"alpha\":2.0");
    expect_refused(blob.bytes(), "has alpha 2; the graph's operations are unscaled");
    EditableBlob beta(built_blob());
    beta.replace(EditableBlob::kPlan, "\"beta\":0.0", "\"beta\":1.0");
    expect_refused(beta.bytes(), "has beta 1");
}

TEST_F(ForgedPlans, AnOperationOverOtherTensorsIsRefused) {
    EditableBlob blob(built_blob());
    blob.replace(EditableBlob::kPlan, "\"W\":\"2\"", "\"W\":\"1\"");
    expect_refused(blob.bytes(), "over tensors");
}

// The operations' own attributes: padding, strides, dilation, mode and math precision of the
// convolution; the mode and clips of the pointwise operations.
TEST_F(ForgedPlans, AnOperationWithOtherAttributesIsRefused) {
    const std::pair<const char *, const char *> conv_edits[] = {
        {"\"pad\":[1,1]", "\"pad\":[0,0]"},
        {"\"stride\":[1,1]", "\"stride\":[2,2]"},
        {"\"dilation\":[1,1]", "\"dilation\":[2,1]"},
        {"\"mode\":\"CUDNN_CROSS_CORRELATION\"", "\"mode\":\"CUDNN_CONVOLUTION\""},
        {"\"mathPrec\":\"CUDNN_DATA_FLOAT\"", "\"mathPrec\":\"CUDNN_DATA_HALF\""},
    };
    std::vector<unsigned char> conv = built_blob();
    for (const auto &edit : conv_edits) {
        EditableBlob blob(conv);
        blob.replace(EditableBlob::kPlan, edit.first, edit.second);
        SCOPED_TRACE(edit.second);
        expect_refused(blob.bytes(), "where the graph's lowering has another");
    }
    const std::pair<const char *, const char *> pointwise_edits[] = {
        {"\"pointwiseMode\":\"CUDNN_POINTWISE_ADD\"", "\"pointwiseMode\":\"CUDNN_POINTWISE_SUB\""},
        {"\"pointwiseMode\":\"CUDNN_POINTWISE_RELU_FWD\"", "\"pointwiseMode\":\"CUDNN_POINTWISE_TANH_FWD\""},
        {"\"lowerClip\":0.0", "\"lowerClip\":-1.0"},
        {"\"lowerClipSlope\":0.0", "\"lowerClipSlope\":0.5"},
    };
    std::vector<unsigned char> fused = built_fused_blob();
    fe_graph *out = nullptr;
    ASSERT_FE_OK(deserialize(fused, &out)) << "the unedited fused blob must load";
    for (const auto &edit : pointwise_edits) {
        EditableBlob blob(fused);
        blob.replace(EditableBlob::kPlan, edit.first, edit.second);
        SCOPED_TRACE(edit.second);
        expect_refused(blob.bytes(), "where the graph's lowering has another");
    }
}

// The largest user uid has 19 digits: its plan, named as cuDNN writes it, loads.
TEST_F(ForgedPlans, APlanWithTheLargestUidsLoads) {
    fe_graph *g = seed_conv("largest_uid", 16);
    fe_tensor *x = nullptr;
    ASSERT_FE_OK(fe_graph_tensor_by_name(g, "X", &x));
    ASSERT_FE_OK(fe_tensor_set_uid(x, FE_MAX_USER_UID));
    fe_build_options o = options();
    o.use_plan_cache = 0;
    ASSERT_FE_OK(fe_graph_build(g, nullptr, &o));
    fe_graph *out = nullptr;
    EXPECT_FE_OK(deserialize(serialize(g), &out)) << fe_last_error_message();
}

// The convolution's X and Y swapped: the same tensors, on other ports. Executed on an H200, such
// a plan overwrote the caller's input and never wrote the output.
TEST_F(ForgedPlans, TensorsOnOtherPortsAreRefused) {
    EditableBlob blob(built_blob());
    blob.replace(EditableBlob::kPlan, "\"X\":\"1\",\"W\":\"2\",\"Y\":\"3\"", "\"X\":\"3\",\"W\":\"2\",\"Y\":\"1\"");
    expect_refused(blob.bytes(), "has tensor 3 as X where the graph has tensor 1");
    EditableBlob weights(built_blob());
    weights.replace(EditableBlob::kPlan, "\"X\":\"1\",\"W\":\"2\"", "\"X\":\"2\",\"W\":\"1\"");
    expect_refused(weights.bytes(), "as X where the graph has tensor 1");
}

// cuDNN reads a reference with std::stoll: each of these names tensor 3 to cuDNN, and none is
// how cuDNN writes a name.
TEST_F(ForgedPlans, LooselyWrittenTensorNamesAreRefused) {
    for (const char *spelling : {"\"03\"", "\"+3\"", "\"3x\"", "\" 3\"", "\"-3\""}) {
        SCOPED_TRACE(spelling);
        EditableBlob blob(built_blob());
        blob.replace(EditableBlob::kPlan, "\"Y\":\"3\"", std::string("\"Y\":") + spelling);
        expect_refused(blob.bytes(), "which is not how cuDNN writes a tensor's name");
    }
    EditableBlob name(built_blob());
    name.replace(EditableBlob::kPlan, "{\"name\":\"3\"", "{\"name\":\"03\"");
    expect_refused(name.bytes(), "which is not how cuDNN writes a tensor's name");
}

// Members that the old check did not look at: a redirected Y beside a decoy naming the real Y,
// a second reference to a tensor, and a tensor member cuDNN does not write.
TEST_F(ForgedPlans, DecoyMembersAreRefused) {
    EditableBlob redirected(built_blob());
    redirected.replace(EditableBlob::kPlan, "\"Y\":\"3\"", "\"Y\":\"1x\",\"Z\":\"3\"");
    expect_refused(redirected.bytes(), "not how cuDNN writes");
    EditableBlob twice(built_blob());
    twice.replace(EditableBlob::kPlan, "\"Y\":\"3\"", "\"Y\":\"3\",\"Z\":\"1\"");
    expect_refused(twice.bytes(), "that the graph's lowering has not");
    EditableBlob tensor(built_blob());
    tensor.replace(EditableBlob::kPlan, "\"reordering\"", "\"decoy\":1,\"reordering\"");
    expect_refused(tensor.bytes(), "has a member \"decoy\" cuDNN does not write");
}

TEST_F(ForgedPlans, VectorizedOrReorderedTensorsAreRefused) {
    const std::pair<const char *, const char *> edits[] = {
        {"\"vectCount\":1", "\"vectCount\":4"},
        {"\"vectDim\":-1", "\"vectDim\":1"},
        {"CUDNN_TENSOR_REORDERING_NONE", "CUDNN_TENSOR_REORDERING_F16x16"},
    };
    for (const auto &edit : edits) {
        SCOPED_TRACE(edit.second);
        EditableBlob blob(built_blob());
        blob.replace(EditableBlob::kPlan, edit.first, edit.second);
        expect_refused(blob.bytes(), edit.first[1] == 'v' ? "is vectorized" : "is reordered");
    }
}

TEST_F(ForgedPlans, AnOversizedPlanSectionIsRefusedUnread) {
    EditableBlob blob(built_blob());
    blob.replace(EditableBlob::kPlan, "{\"cudnnVersion\"", std::string(FE_SERIALIZED_MAX_PLAN_BYTES, ' ') + "{\"cudnnVersion\"");
    fe_graph *out = nullptr;
    EXPECT_EQ(deserialize(blob.bytes(), &out), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("plan section is")) << fe_last_error_message();
    EXPECT_TRUE(LastErrorContains("over the 8388608 it may hold")) << fe_last_error_message();
}

// cuDNN writes an add, mul, min or max with a broadcast first operand with its operands the other
// way round (seen on an H200): the same values, so such a plan loads. A mode whose operands do
// not commute keeps them where the graph has them (the GPU tier's forged plans show both).
TEST_F(ForgedPlans, OperandsOfACommutativeModeMayTradePlaces) {
    EditableBlob add(built_fused_blob());
    add.replace(EditableBlob::kPlan, "\"X\":\"4\",\"Y\":\"5\",\"B\":\"3\"", "\"X\":\"3\",\"Y\":\"5\",\"B\":\"4\"");
    fe_graph *out = nullptr;
    EXPECT_FE_OK(deserialize(add.bytes(), &out)) << fe_last_error_message();
    EditableBlob result(built_fused_blob());
    result.replace(EditableBlob::kPlan, "\"X\":\"4\",\"Y\":\"5\",\"B\":\"3\"", "\"X\":\"4\",\"Y\":\"3\",\"B\":\"5\"");
    expect_refused(result.bytes(), "has tensor 5 as B where the graph has tensor 3");
}

// A loaded plan reports the tag its graph was built with (cuDNN lists the knobs the config left
// to the engine as -1 in a loaded plan; they are not part of the tag).
TEST_F(ForgedPlans, ALoadedPlanReportsTheTagItWasBuiltWith) {
    for (bool fused : {false, true}) {
        fe_graph *g = fused ? graph("tag_fused", FE_DATA_HALF) : seed_conv("tag", 16);
        if (fused) {
            fe_tensor *x = tensor(g, "X", {16, 64, 56, 56}, true), *w = tensor(g, "W", {32, 64, 3, 3}, true);
            fe_tensor *b = tensor(g, "B", {1, 32, 1, 1}, true), *y = nullptr, *z = nullptr;
            fe_conv_options co = FE_CONV_OPTIONS_INIT;
            ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &co, &y));
            ASSERT_FE_OK(fe_graph_bias(g, y, b, nullptr, &z));
            ASSERT_FE_OK(fe_tensor_set_output(z, 1));
        }
        fe_build_options o = options();
        o.use_plan_cache = 0;
        ASSERT_FE_OK(fe_graph_build(g, nullptr, &o));
        const char *built = nullptr, *loaded = nullptr;
        ASSERT_FE_OK(fe_graph_engine_tag(g, &built));
        fe_graph *back = nullptr;
        ASSERT_FE_OK(deserialize(serialize(g), &back));
        ASSERT_FE_OK(fe_graph_engine_tag(back, &loaded));
        EXPECT_STREQ(loaded, built);
        EXPECT_EQ(std::strstr(loaded, "=-1"), nullptr) << loaded;
    }
}

// The record's engine tag is only a record: what a loaded graph reports is the plan's own.
TEST_F(ForgedPlans, TheEngineTagIsThePlansOwn) {
    std::vector<unsigned char> bytes = built_blob();
    fe_graph *original = nullptr;
    ASSERT_FE_OK(deserialize(bytes, &original));
    const char *tag = nullptr;
    ASSERT_FE_OK(fe_graph_engine_tag(original, &tag));
    std::string real = tag;
    ASSERT_EQ(real.rfind("eng", 0), 0u) << real;
    std::string claimed = real;
    for (size_t i = 3; i < claimed.size() && std::isdigit(static_cast<unsigned char>(claimed[i])); ++i) claimed[i] = '9';
    ASSERT_NE(claimed, real);
    EditableBlob blob(bytes);
    blob.replace(EditableBlob::kLayout, real, claimed);
    fe_graph *forged = nullptr;
    ASSERT_FE_OK(deserialize(blob.bytes(), &forged));
    ASSERT_FE_OK(fe_graph_engine_tag(forged, &tag));
    EXPECT_EQ(std::string(tag), real) << "the record's claim " << claimed << " was reported";
}

// Every sampled bit of the plan flipped (checksum fixed): refused, or a graph that binds the
// original's tensors with the original's workspace.
TEST_F(ForgedPlans, FlippedBitsInThePlanAreRefusedOrHarmless) {
    std::vector<unsigned char> original = built_blob();
    fe_graph *reference = nullptr;
    ASSERT_FE_OK(deserialize(original, &reference));
    size_t reference_json = 0;
    ASSERT_EQ(fe_graph_to_json(reference, nullptr, 0, &reference_json), FE_STATUS_BUFFER_TOO_SMALL);
    size_t plan_bytes = EditableBlob(original).section(EditableBlob::kPlan).size(), loaded = 0, refused = 0;
    for (size_t at = 0; at < plan_bytes; at += 13) {
        EditableBlob blob(original);
        blob.section(EditableBlob::kPlan)[at] ^= static_cast<unsigned char>(1u << (at % 8));
        fe_graph *out = nullptr;
        fe_status s = deserialize(blob.bytes(), &out);
        if (s != FE_OK) {
            ++refused;
            EXPECT_TRUE(s == FE_STATUS_INVALID_ARGUMENT || s == FE_STATUS_NOT_SUPPORTED)
                << "byte " << at << ": " << fe_last_error_message();
            continue;
        }
        ++loaded;
        int64_t workspace = -1;
        size_t json = 0;
        EXPECT_FE_OK(fe_graph_workspace_size(out, &workspace));
        EXPECT_EQ(workspace, workspace_) << "byte " << at;
        EXPECT_EQ(fe_graph_to_json(out, nullptr, 0, &json), FE_STATUS_BUFFER_TOO_SMALL);
        EXPECT_EQ(json, reference_json) << "byte " << at;
    }
    std::printf("    %zu plan edits: %zu refused, %zu loaded the original's bindings\n", loaded + refused, refused,
                loaded);
}

// A cache directory entry forged the same way is a miss: rejected, removed and rebuilt. A plan
// whose Y cuDNN reads as another tensor ("3x" for 3) used to stay a hit that failed every execute.
class ForgedCacheEntries : public ForgedPlans {
  protected:
    void expect_rejected_and_rebuilt(const std::string &from, const std::string &to) {
        SCOPED_TRACE(to.substr(0, 80));
        char dir_template[] = "/tmp/cudnnfe-forged-XXXXXX";
        ASSERT_NE(mkdtemp(dir_template), nullptr);
        std::string dir = dir_template;
        setenv("CUDNNFE_CACHE_DIR", dir.c_str(), 1);
        fe_build_options o = options();
        ASSERT_FE_OK(fe_graph_build(seed_conv("cached", 16), nullptr, &o));
        std::string entry;
        if (DIR *d = opendir(dir.c_str())) {
            while (dirent *e = readdir(d))
                if (e->d_name[0] != '.') entry = dir + "/" + e->d_name;
            closedir(d);
        }
        ASSERT_FALSE(entry.empty());
        std::vector<unsigned char> bytes;
        {
            std::ifstream in(entry, std::ios::binary);
            bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        }
        EditableBlob blob(bytes);
        blob.replace(EditableBlob::kPlan, from, to);
        std::vector<unsigned char> forged = blob.bytes();
        std::ofstream(entry, std::ios::binary).write(reinterpret_cast<const char *>(forged.data()),
                                                     static_cast<std::streamsize>(forged.size()));
        fe_plan_cache_clear();
        Stats before = stats();
        fe_graph *rebuilt = seed_conv("cached", 16);
        ASSERT_FE_OK(fe_graph_build(rebuilt, nullptr, &o));
        Stats after = stats();
        unsetenv("CUDNNFE_CACHE_DIR");
        EXPECT_EQ(after.rejected - before.rejected, 1);
        EXPECT_EQ(after.disk - before.disk, 0);
        EXPECT_EQ(describe(rebuilt).find("plan from the cache directory"), std::string::npos) << describe(rebuilt);
        std::remove(entry.c_str());
        rmdir(dir.c_str());
    }
};

TEST_F(ForgedCacheEntries, ALargerTensorIsRejectedAndRebuilt) {
    expect_rejected_and_rebuilt("\"dim\":[16,", "\"dim\":[1024,");
}

// A 9 MiB plan section (padded with JSON's own blanks) once cost a minute and gigabytes per build.
TEST_F(ForgedCacheEntries, AnOversizedPlanSectionIsRejectedUnreadAndRebuilt) {
    expect_rejected_and_rebuilt("{\"cudnnVersion\"", std::string(9 << 20, ' ') + "{\"cudnnVersion\"");
}

TEST_F(ForgedCacheEntries, ALooselyNamedTensorIsRejectedAndRebuilt) {
    expect_rejected_and_rebuilt("\"Y\":\"3\"", "\"Y\":\"1x\",\"Z\":\"3\"");
}

}  // namespace
