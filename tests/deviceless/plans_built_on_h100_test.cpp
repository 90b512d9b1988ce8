// Plans that cudnnfe built on an H100 (tests/deviceless/plans_built_on_h100/: one serialized
// graph per operation family, from the GPU suite and the examples) pass the check a plan read
// from disk gets against its graph. Without a GPU, cuDNN then cannot load the runtime-compiled
// ones (CUDA_DRIVER or NOT_SUPPORTED: their kernels need a driver); that is the only failure
// allowed here. A check that refuses
// a genuine plan would turn every cache entry of that family into a rebuild.
#include <dirent.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "blob_editor.hpp"
#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;
using cudnnfe_test::EditableBlob;

namespace {

const std::string kPlans = std::string(CUDNNFE_SOURCE_ROOT) + "/tests/deviceless/plans_built_on_h100";
// Plans of every operation cuDNN wrote in a conformance run on an H200 (CUDNNFE_CONFORMANCE_PLANS),
// one for each key under which its plans name a tensor: norms forward and backward, dbn_weight,
// RNG, paged K/V, block scaling, the MoE grouped matmul, attention with stats and padding, the
// composite attention backward (its reshapes), and from the GPU suite (CUDNNFE_GPU_TEST_PLANS)
// cuDNN's native SDPA operation with page tables and sequence lengths.
const std::string kH200Plans = std::string(CUDNNFE_SOURCE_ROOT) + "/tests/deviceless/plans_built_on_h200";

std::vector<std::string> plan_files(const std::string &dir = kPlans) {
    std::vector<std::string> out;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d)) {
            std::string name = e->d_name;
            if (name.size() > 8 && name.compare(name.size() - 8, 8, ".fegraph") == 0) out.push_back(name);
        }
        closedir(d);
    }
    return out;
}

class PlansBuiltOnH100 : public Deviceless {};

// An edited blob (its checksum fixed up) read back for the GPU `device_json` describes: refused
// before cuDNN sees its plan.
void expect_refused_as_another_plan(const EditableBlob &blob, const std::string &device_json) {
    std::vector<unsigned char> edited = blob.bytes();
    fe_deserialize_options o = FE_DESERIALIZE_OPTIONS_INIT;
    o.device_properties_json = device_json.c_str();
    fe_graph *g = nullptr;
    EXPECT_EQ(fe_graph_deserialize(nullptr, edited.data(), edited.size(), &o, &g), FE_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(LastErrorContains("the plan does not match its graph")) << fe_last_error_message();
    fe_graph_destroy(g);
}

// Loads every plan of `dir` devicelessly for the GPU `device_json` describes (empty: the one each
// blob names, its device section): each must pass the check (cuDNN's own load may then need a GPU).
void expect_plans_pass_the_check(const std::string &dir, size_t at_least, const std::string &device_json) {
    std::vector<std::string> files = plan_files(dir);
    ASSERT_GE(files.size(), at_least) << "the committed plans are missing from " << dir;
    int loaded = 0, need_a_driver = 0;
    for (const std::string &name : files) {
        std::ifstream in(dir + "/" + name, std::ios::binary);
        std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const uint32_t kDevice = 0x44455649;
        std::string device = device_json.empty() ? EditableBlob(bytes).text(kDevice) : device_json;
        fe_deserialize_options o = FE_DESERIALIZE_OPTIONS_INIT;
        o.device_properties_json = device.c_str();
        fe_graph *g = nullptr;
        fe_status s = fe_graph_deserialize(nullptr, bytes.data(), bytes.size(), &o, &g);
        std::string message = s == FE_OK ? "" : fe_last_error_message();
        fe_graph_destroy(g);
        if (s == FE_OK) {
            ++loaded;
        } else if (message.find("cuDNN cannot load it") != std::string::npos) {
            // cuDNN's own load comes after the check: the plan passed it.
            ++need_a_driver;
        } else {
            ADD_FAILURE() << name << ": " << message;
        }
    }
    std::printf("    %zu plans: %d loaded, %d passed the check and need a GPU to load\n", files.size(), loaded,
                need_a_driver);
}

TEST_F(PlansBuiltOnH100, PassTheCheckAgainstTheirGraphs) { expect_plans_pass_the_check(kPlans, 18, json_); }

TEST_F(PlansBuiltOnH100, PlansBuiltOnAnH200PassTheCheck) { expect_plans_pass_the_check(kH200Plans, 20, ""); }

// Each family's own attributes, edited in a genuine plan (checksum fixed up), are refused before
// cuDNN sees the plan: resampling's mode, window, stride and padding mode, a reduction's
// operator, bn_finalize's mode, a matmul's precision.
TEST_F(PlansBuiltOnH100, EditedOperationAttributesAreRefused) {
    struct Edit {
        const char *file, *from, *to;
    };
    const Edit edits[] = {
        {"max_pool", "\"mode\":\"CUDNN_RESAMPLE_MAXPOOL\"", "\"mode\":\"CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING\""},
        {"max_pool", "\"windowDim\":[[3,1],[3,1]]", "\"windowDim\":[[5,1],[3,1]]"},
        {"max_pool", "\"paddingMode\":\"CUDNN_NEG_INF_PAD\"", "\"paddingMode\":\"CUDNN_ZERO_PAD\""},
        {"pool_backward", "\"stride\":[[2,1],[2,1]]", "\"stride\":[[1,1],[2,1]]"},
        {"reduction_row_max", "CUDNN_REDUCE_TENSOR_MAX", "CUDNN_REDUCE_TENSOR_MIN"},
        {"bn_finalize", "CUDNN_BN_FINALIZE_STATISTICS_TRAINING", "CUDNN_BN_FINALIZE_STATISTICS_INFERENCE"},
        {"matmul", "\"mathPrec\":\"CUDNN_DATA_FLOAT\"", "\"mathPrec\":\"CUDNN_DATA_HALF\""},
    };
    for (const Edit &e : edits) {
        std::ifstream in(kPlans + "/" + e.file + ".fegraph", std::ios::binary);
        std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        ASSERT_FALSE(bytes.empty()) << e.file;
        EditableBlob blob(bytes);
        blob.replace(EditableBlob::kPlan, e.from, e.to);
        std::vector<unsigned char> edited = blob.bytes();
        fe_deserialize_options o = FE_DESERIALIZE_OPTIONS_INIT;
        o.device_properties_json = json_.c_str();
        fe_graph *g = nullptr;
        EXPECT_EQ(fe_graph_deserialize(nullptr, edited.data(), edited.size(), &o, &g), FE_STATUS_INVALID_ARGUMENT)
            << e.file << ": " << e.to;
        EXPECT_TRUE(LastErrorContains("the plan does not match its graph")) << e.to << ": " << fe_last_error_message();
        fe_graph_destroy(g);
    }
}

// A reshape's X and Y exchanged in a genuine plan (checksum fixed up): refused, as any port swap.
TEST_F(PlansBuiltOnH100, AReshapeWithItsPortsSwappedIsRefused) {
    std::ifstream in(kH200Plans + "/sdpa_backward_composite.fegraph", std::ios::binary);
    std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(bytes.empty());
    EditableBlob blob(bytes);
    const uint32_t kDevice = 0x44455649;
    std::string device = blob.text(kDevice);
    const std::string plan = blob.text(EditableBlob::kPlan);
    const std::string op = "\"operation\":\"CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR\",\"X\":\"";
    size_t at = plan.find(op);
    ASSERT_NE(at, std::string::npos) << "the plan has no reshape";
    size_t x_end = plan.find('"', at + op.size());
    const std::string x = plan.substr(at + op.size(), x_end - at - op.size());
    const std::string y_key = "\",\"Y\":\"";
    ASSERT_EQ(plan.compare(x_end, y_key.size(), y_key), 0);
    size_t y_end = plan.find('"', x_end + y_key.size());
    const std::string y = plan.substr(x_end + y_key.size(), y_end - x_end - y_key.size());
    blob.replace(EditableBlob::kPlan, op + x + y_key + y + "\"", op + y + y_key + x + "\"");
    expect_refused_as_another_plan(blob, device);
}

// The native SDPA operation's page tables, or its sequence lengths, exchanged in a genuine plan
// (checksum fixed up): refused, as any port swap; the plan as built loads.
TEST_F(PlansBuiltOnH100, NativeAttentionWithItsPageTablesSwappedIsRefused) {
    std::ifstream in(kH200Plans + "/sdpa_native_paged.fegraph", std::ios::binary);
    std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(bytes.empty());
    const std::string pages = "\"pageTableK\":\"4\",\"pageTableV\":\"5\"";
    const std::string lengths = "\"seqLenQ\":\"6\",\"seqLenKV\":\"7\"";
    ASSERT_NE(EditableBlob(bytes).text(EditableBlob::kPlan).find(pages + "," + lengths), std::string::npos)
        << "the plan's SDPA operation names its page tables and lengths otherwise";
    struct Edit {
        std::string from, to;
    };
    for (const Edit &e : {Edit{pages, "\"pageTableK\":\"5\",\"pageTableV\":\"4\""},
                          Edit{lengths, "\"seqLenQ\":\"7\",\"seqLenKV\":\"6\""}}) {
        SCOPED_TRACE(e.to);
        EditableBlob blob(bytes);
        const std::string device = blob.text(0x44455649);
        blob.replace(EditableBlob::kPlan, e.from, e.to);
        expect_refused_as_another_plan(blob, device);
    }
}

}  // namespace
