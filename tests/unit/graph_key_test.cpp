// The hooks a framework keys its own caches and builds with: the graph's key (what the graph is,
// the same in every process), the tensor of a uid, and a GPU description for a compute capability.
#include <string>
#include <vector>

#include "common/sha256.hpp"
#include "test_support.hpp"

namespace {

std::string key(const fe_graph *g) { return graph_text(fe_graph_key, g); }

// A channels-last 3x3 convolution and a relu, of that many input channels and that stride.
fe_graph *conv(int64_t channels, int64_t stride) {
    fe_graph_options o = FE_GRAPH_OPTIONS_INIT;
    o.name = "conv";
    o.io_data_type = FE_DATA_HALF;
    fe_graph *g = nullptr;
    EXPECT_FE_OK(fe_graph_create(&o, &g));
    fe_tensor *x = cudnnfe_test::make_tensor(g, "x", {4, channels, 16, 16}, true, FE_DATA_NOT_SET);
    fe_tensor *w = cudnnfe_test::make_tensor(g, "w", {32, channels, 3, 3}, true, FE_DATA_NOT_SET);
    fe_conv_options c = FE_CONV_OPTIONS_INIT;
    const int64_t one = 1;
    EXPECT_FE_OK(fe_conv_options_set_padding(&c, 1, &one));
    EXPECT_FE_OK(fe_conv_options_set_stride(&c, 1, &stride));
    fe_tensor *y = nullptr, *r = nullptr;
    EXPECT_FE_OK(fe_graph_conv_fprop(g, x, w, &c, &y));
    EXPECT_FE_OK(fe_graph_relu(g, y, nullptr, &r));
    EXPECT_FE_OK(fe_tensor_set_output(r, 1));
    return g;
}

}  // namespace

// The key is the SHA-256 of the graph's JSON, in hex: the same bytes in every process.
TEST(GraphKey, IsTheSha256OfTheGraphsJson) {
    fe_graph *g = conv(64, 1);
    std::string json = graph_text(fe_graph_to_json, g), k = key(g);
    fe::Sha256 digest;
    digest.update(json.data(), json.size());
    std::string expected;
    for (unsigned char byte : digest.finish()) expected += "0123456789abcdef"[byte >> 4], expected += "0123456789abcdef"[byte & 15];
    EXPECT_EQ(k, expected);
    EXPECT_EQ(k.size(), 64u);
    fe_graph_destroy(g);
}

// The same graph made again, or read back from its JSON, has the same key; another dim, attribute
// or uid gives another; the described GPU does not change it. Validation resolves the types, which
// the key then holds: the same graphs validated have the same key again.
TEST(GraphKey, FollowsWhatTheGraphIsNotWhereItIsBuilt) {
    fe_graph *a = conv(64, 1), *b = conv(64, 1), *wider = conv(128, 1), *strided = conv(64, 2);
    EXPECT_EQ(key(a), key(b));
    EXPECT_NE(key(a), key(wider));
    EXPECT_NE(key(a), key(strided));
    std::string json = graph_text(fe_graph_to_json, a);
    fe_graph *read = nullptr;
    ASSERT_FE_OK(fe_graph_from_json(json.data(), json.size(), &read));
    EXPECT_EQ(key(read), key(a));
    const std::string before = key(a);
    EXPECT_FE_OK(fe_graph_set_device_properties(a, "{\"deviceName\":\"any\",\"deviceVer\":900}"));
    EXPECT_EQ(key(a), before);
    EXPECT_FE_OK(fe_graph_validate(a));
    EXPECT_FE_OK(fe_graph_validate(b));
    EXPECT_EQ(key(a), key(b));
    EXPECT_NE(key(a), before);
    fe_tensor *x = nullptr;
    ASSERT_FE_OK(fe_graph_tensor_by_name(b, "x", &x));
    ASSERT_FE_OK(fe_tensor_set_uid(x, 7));
    EXPECT_NE(key(b), before);
    for (fe_graph *g : {a, b, wider, strided, read}) fe_graph_destroy(g);
}

TEST(GraphKey, ErrorsNameTheCall) {
    fe_graph *g = conv(64, 1);
    char small[8];
    size_t length = 0;
    EXPECT_FE_STATUS(fe_graph_key(g, small, sizeof small, &length), FE_STATUS_BUFFER_TOO_SMALL);
    EXPECT_EQ(length, 64u);
    EXPECT_FE_STATUS(fe_graph_key(nullptr, small, sizeof small, &length), FE_STATUS_NULL_POINTER);
    EXPECT_EQ(std::string(fe_last_error_message()), "fe_graph_key: argument 'graph' is NULL");
    EXPECT_FE_STATUS(fe_graph_key(g, small, sizeof small, nullptr), FE_STATUS_NULL_POINTER);
    fe_graph_destroy(g);
}

// A uid set finds its tensor; one no tensor has is NOT_FOUND, saying the build assigns the rest.
TEST(TensorByUid, FindsTheTensorOfAUidSet) {
    fe_graph *g = conv(64, 1);
    fe_tensor *w = nullptr, *found = nullptr;
    ASSERT_FE_OK(fe_graph_tensor_by_name(g, "w", &w));
    ASSERT_FE_OK(fe_tensor_set_uid(w, 42));
    EXPECT_FE_OK(fe_graph_tensor_by_uid(g, 42, &found));
    EXPECT_EQ(found, w);
    EXPECT_FE_STATUS(fe_graph_tensor_by_uid(g, 43, &found), FE_STATUS_NOT_FOUND);
    EXPECT_EQ(std::string(fe_last_error_message()),
              "fe_graph_tensor_by_uid: graph 'conv' has no tensor with uid 43 (uids are assigned by the build)");
    EXPECT_FE_STATUS(fe_graph_tensor_by_uid(nullptr, 42, &found), FE_STATUS_NULL_POINTER);
    EXPECT_FE_STATUS(fe_graph_tensor_by_uid(g, 42, nullptr), FE_STATUS_NULL_POINTER);
    fe_graph_destroy(g);
}

// sm 90 is carried (an H100 SXM's description, cuDNN's JSON); another is refused, naming it.
TEST(DevicePropertiesForSm, CarriesSm90AndNamesWhatItCarries) {
    size_t length = 0;
    char small[4];
    EXPECT_FE_STATUS(fe_device_properties_for_sm(90, small, sizeof small, &length), FE_STATUS_BUFFER_TOO_SMALL);
    std::string json(length + 1, '\0');
    ASSERT_FE_OK(fe_device_properties_for_sm(90, &json[0], json.size(), &length));
    json.resize(length);
    EXPECT_NE(json.find("\"deviceVer\":900"), std::string::npos) << json;
    EXPECT_NE(json.find("\"multiProcessorCount\":132"), std::string::npos) << json;
    EXPECT_FE_STATUS(fe_device_properties_for_sm(80, small, sizeof small, &length), FE_STATUS_NOT_SUPPORTED);
    EXPECT_EQ(std::string(fe_last_error_message()),
              "fe_device_properties_for_sm: no description of an sm 80 GPU is carried (the library has 90): capture "
              "the target's with fe_device_properties_capture");
}
