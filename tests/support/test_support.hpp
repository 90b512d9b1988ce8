// Helpers shared by the test tiers: status assertions, the device description, GPU presence.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cudnnfe.h"

// Assert a call's status; on mismatch show the library's message.
#define EXPECT_FE_OK(call) EXPECT_EQ((call), FE_OK) << fe_last_error_message()
#define ASSERT_FE_OK(call) ASSERT_EQ((call), FE_OK) << fe_last_error_message()
#define EXPECT_FE_STATUS(call, status) EXPECT_EQ((call), (status)) << fe_last_error_message()
// A refused call: its status is `status` and the library's message contains `needle` (the two
// checks the rule tests make of every failure, each reported on its own).
#define EXPECT_FE_REFUSED(call, status, needle)      \
    do {                                             \
        EXPECT_FE_STATUS(call, status);              \
        EXPECT_TRUE(LastErrorContains(needle));      \
    } while (0)

// `text` with the first occurrence of `from` replaced by `to`: a graph or GPU description with one
// thing changed. A `from` that is not there fails the test (the change would silently not happen).
inline std::string with_replaced(std::string text, const std::string &from, const std::string &to) {
    size_t at = text.find(from);
    if (at == std::string::npos) {
        ADD_FAILURE() << "\"" << from << "\" is not in the text to change";
        return text;
    }
    return text.replace(at, from.size(), to);
}

// The message of the last failure contains `needle`.
inline ::testing::AssertionResult LastErrorContains(const std::string &needle) {
    std::string message = fe_last_error_message();
    if (message.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "last error \"" << message << "\" lacks \"" << needle << "\"";
}

// A tensor's or graph's name and a built graph's engine tag, for messages and comparisons: the
// library's string, or "" with a test failure when the query fails.
inline const char *name_of(const fe_tensor *tensor) {
    const char *name = nullptr;
    EXPECT_EQ(fe_tensor_get_name(tensor, &name), FE_OK) << fe_last_error_message();
    return name ? name : "";
}
inline const char *name_of(const fe_graph *graph) {
    const char *name = nullptr;
    EXPECT_EQ(fe_graph_get_name(graph, &name), FE_OK) << fe_last_error_message();
    return name ? name : "";
}
// A graph's text through the library's two-call protocol (size, then fill): fe_graph_to_json,
// fe_graph_describe, fe_graph_key.
inline std::string graph_text(fe_status (*read)(const fe_graph *, char *, size_t, size_t *), const fe_graph *graph) {
    size_t n = 0;
    read(graph, nullptr, 0, &n);
    std::string text(n + 1, '\0');
    EXPECT_EQ(read(graph, &text[0], text.size(), &n), FE_OK) << fe_last_error_message();
    text.resize(n);
    return text;
}

inline const char *engine_tag_of(const fe_graph *graph) {
    const char *tag = nullptr;
    EXPECT_EQ(fe_graph_engine_tag(graph, &tag), FE_OK) << fe_last_error_message();
    return tag ? tag : "";
}

namespace cudnnfe_test {

// The captured H100 description: $CUDNNFE_DEVICE_JSON, else the shared/devices copy.
inline std::string device_json() {
    const char *candidates[] = {std::getenv("CUDNNFE_DEVICE_JSON"), "../shared/devices/h100-sxm-80gb.json",
                                "../../shared/devices/h100-sxm-80gb.json"};
    for (const char *path : candidates) {
        if (!path) continue;
        std::ifstream in(path);
        if (!in) continue;
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }
    return "";
}

// A graph input with packed (or channels-last) strides.
inline fe_tensor *make_tensor(fe_graph *g, const char *name, const std::vector<int64_t> &dims, bool channels_last,
                              fe_data_type type) {
    std::vector<int64_t> strides(dims.size());
    if (channels_last)
        EXPECT_FE_OK(fe_strides_channels_last(dims.size(), dims.data(), strides.data()));
    else
        EXPECT_FE_OK(fe_strides_packed(dims.size(), dims.data(), strides.data()));
    fe_tensor *t = nullptr;
    EXPECT_FE_OK(fe_graph_tensor(g, name, dims.size(), dims.data(), strides.data(), type, &t));
    return t;
}

// An int8 tensor of `channels` channels stored NCHW_VECT_C in vectors of `count`
// (fe_tensor_set_vectorization): dims [n, channels / count, h, w], packed in vectors.
inline fe_tensor *make_vectorized_int8(fe_graph *g, const char *name, int64_t n, int64_t channels, int64_t h,
                                       int64_t w, int32_t count) {
    fe_tensor *t = make_tensor(g, name, {n, channels / count, h, w}, false, FE_DATA_INT8);
    EXPECT_FE_OK(fe_tensor_set_vectorization(t, count, 1));
    return t;
}

// Offset of value (n, c, y, x) of a [n, channels, height, width] tensor stored NCHW_VECT_C in
// vectors of v: its vector's offset times v, plus c % v.
inline int64_t vect_c_offset(int64_t n, int64_t c, int64_t y, int64_t x, int64_t channels, int64_t height,
                             int64_t width, int64_t v) {
    return (((n * (channels / v) + c / v) * height + y) * width + x) * v + c % v;
}

// A tensor's dims, strides and data type as the query API reports them. The queries' statuses
// are not checked here: a failed query yields an empty vector (or FE_DATA_NOT_SET), which the
// test's comparison against the expected value then reports.
inline std::vector<int64_t> read_shape(const fe_tensor *t, fe_status (*read)(const fe_tensor *, int64_t *, size_t)) {
    size_t n = 0;
    fe_tensor_get_ndims(t, &n);
    std::vector<int64_t> values(n);
    read(t, values.data(), n);
    return values;
}
inline std::vector<int64_t> dims_of(const fe_tensor *t) { return read_shape(t, fe_tensor_get_dims); }
inline std::vector<int64_t> strides_of(const fe_tensor *t) { return read_shape(t, fe_tensor_get_strides); }
inline fe_data_type data_type_of(const fe_tensor *t) {
    fe_data_type d = FE_DATA_NOT_SET;
    fe_tensor_get_data_type(t, &d);
    return d;
}

// A fixture owning one fresh graph per test, created with the library's default options or with
// the given name and I/O data type, and destroyed afterwards. The rule tests derive from it,
// build on `g`, and read results back with dims(), strides() and type().
class GraphTest : public ::testing::Test {
  protected:
    GraphTest() = default;
    GraphTest(const char *graph_name, fe_data_type io_data_type)
        : defaults_(false), graph_name_(graph_name), io_data_type_(io_data_type) {}
    void SetUp() override {
        fe_graph_options o = FE_GRAPH_OPTIONS_INIT;
        o.name = graph_name_;
        o.io_data_type = io_data_type_;
        ASSERT_FE_OK(fe_graph_create(defaults_ ? nullptr : &o, &g));
        declare_inputs();
    }
    void TearDown() override { fe_graph_destroy(g); }
    // Called once `g` exists: derived fixtures declare there the tensors all their tests use.
    virtual void declare_inputs() {}
    // A packed (or channels-last) graph input of `type` (FE_DATA_NOT_SET: the graph's I/O type).
    fe_tensor *tensor(const char *name, std::vector<int64_t> dims, fe_data_type type = FE_DATA_NOT_SET,
                      bool channels_last = false) {
        return make_tensor(g, name, dims, channels_last, type);
    }
    static std::vector<int64_t> dims(const fe_tensor *t) { return dims_of(t); }
    static std::vector<int64_t> strides(const fe_tensor *t) { return strides_of(t); }
    static fe_data_type type(const fe_tensor *t) { return data_type_of(t); }
    fe_graph *g = nullptr;

  private:
    bool defaults_ = true;
    const char *graph_name_ = nullptr;
    fe_data_type io_data_type_ = FE_DATA_NOT_SET;
};

// A fixture that owns every graph its tests make with graph() (and any they add to graphs_
// themselves, such as graphs read back from JSON or a plan). Derived fixtures call
// destroy_graphs() from their TearDown, after whatever was bound to the graphs is gone.
class GraphOwningTest : public ::testing::Test {
  protected:
    fe_graph *graph(const char *name, fe_data_type io, fe_data_type intermediate = FE_DATA_FLOAT,
                    fe_data_type compute = FE_DATA_FLOAT) {
        fe_graph_options o = FE_GRAPH_OPTIONS_INIT;
        o.name = name;
        o.io_data_type = io;
        o.intermediate_data_type = intermediate;
        o.compute_data_type = compute;
        fe_graph *g = nullptr;
        EXPECT_FE_OK(fe_graph_create(&o, &g));
        graphs_.push_back(g);
        return g;
    }

    fe_tensor *tensor(fe_graph *g, const char *name, std::vector<int64_t> dims, bool channels_last = false,
                      fe_data_type type = FE_DATA_NOT_SET) {
        return make_tensor(g, name, dims, channels_last, type);
    }

    void destroy_graphs() {
        for (fe_graph *g : graphs_) fe_graph_destroy(g);
        graphs_.clear();
    }

    std::vector<fe_graph *> graphs_;
};

inline bool cudnn_available() {
    int64_t version = 0;
    return fe_cudnn_version(&version) == FE_OK;
}

inline bool gpu_available() {
    int32_t count = 0;
    return fe_device_count(&count) == FE_OK && count > 0;
}

}  // namespace cudnnfe_test
