// Option structs from a newer header: a caller compiled against a cudnnfe.h whose struct has more
// fields passes a larger struct_size. The fields this library does not know are accepted while
// they are all zero (their defaults) and refused otherwise, naming the struct and both sizes.
#include <cstring>
#include <string>

#include "test_support.hpp"

namespace {

// An option struct as a newer header might declare it: the known fields, then some more.
template <typename Options>
struct Newer {
    Options known;
    unsigned char unknown[48];
};

class OptionsSize : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_FE_OK(fe_graph_create(nullptr, &graph)); }
    void TearDown() override { fe_graph_destroy(graph); }
    fe_tensor *tensor(const char *name, std::initializer_list<int64_t> dims) {
        fe_tensor *t = nullptr;
        std::vector<int64_t> d(dims);
        EXPECT_FE_OK(fe_graph_tensor(graph, name, d.size(), d.data(), nullptr, FE_DATA_HALF, &t));
        return t;
    }
    fe_graph *graph = nullptr;
};

TEST_F(OptionsSize, ALargerZeroedStructIsAccepted) {
    Newer<fe_conv_options> o;
    std::memset(&o, 0, sizeof o);
    o.known = FE_CONV_OPTIONS_INIT;
    o.known.struct_size = sizeof o;
    o.known.name = "newer";
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(graph, tensor("x", {1, 8, 6, 6}), tensor("w", {4, 8, 3, 3}), &o.known, &y));
    EXPECT_STREQ(name_of(y), "newer::Y");
}

TEST_F(OptionsSize, ALargerStructWithAnUnknownFieldSetIsRefused) {
    Newer<fe_conv_options> o;
    std::memset(&o, 0, sizeof o);
    o.known = FE_CONV_OPTIONS_INIT;
    o.known.struct_size = sizeof o;
    o.unknown[sizeof o.unknown - 1] = 1;  // the last byte of the last unknown field
    fe_tensor *y = nullptr;
    EXPECT_FE_STATUS(fe_graph_conv_fprop(graph, tensor("x", {1, 8, 6, 6}), tensor("w", {4, 8, 3, 3}), &o.known, &y),
                     FE_STATUS_INVALID_ARGUMENT);
    std::string expected = "fe_graph_conv_fprop: fe_conv_options has struct_size " + std::to_string(sizeof o) +
                           " but this library knows " + std::to_string(sizeof(fe_conv_options)) +
                           " bytes; the unknown fields are not all zero (built against a newer cudnnfe.h?)";
    EXPECT_EQ(std::string(fe_last_error_message()), expected);
    EXPECT_EQ(y, nullptr);
}

// Every struct goes through the same check: one of the graph, one of the build, one of the
// serialization entry points.
TEST_F(OptionsSize, EveryEntryPointChecksTheUnknownFields) {
    Newer<fe_graph_options> g;
    std::memset(&g, 0, sizeof g);
    g.known = FE_GRAPH_OPTIONS_INIT;
    g.known.struct_size = sizeof g;
    g.unknown[0] = 7;
    fe_graph *other = nullptr;
    EXPECT_FE_REFUSED(fe_graph_create(&g.known, &other), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_create: fe_graph_options has struct_size");
    g.unknown[0] = 0;
    ASSERT_FE_OK(fe_graph_create(&g.known, &other));
    fe_graph_destroy(other);

    Newer<fe_build_options> b;
    std::memset(&b, 0, sizeof b);
    b.known = FE_BUILD_OPTIONS_INIT;
    b.known.struct_size = sizeof b;
    b.unknown[5] = 1;
    EXPECT_FE_REFUSED(fe_graph_build(graph, nullptr, &b.known), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_build: fe_build_options has struct_size");

    Newer<fe_deserialize_options> d;
    std::memset(&d, 0, sizeof d);
    d.known = FE_DESERIALIZE_OPTIONS_INIT;
    d.known.struct_size = sizeof d;
    d.unknown[9] = 1;
    const char bytes[16] = {0};
    EXPECT_FE_REFUSED(fe_graph_deserialize(nullptr, bytes, sizeof bytes, &d.known, &other), FE_STATUS_INVALID_ARGUMENT,
                      "fe_graph_deserialize: fe_deserialize_options has struct_size");
}

}  // namespace
