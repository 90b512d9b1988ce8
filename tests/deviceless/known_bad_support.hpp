// What the tests of the capability table's "known bad" refusals share: a refused graph names its
// reason and the table's version range; the same graph without the offending option or layout
// lowers to an operation graph (runtime-compiled engines need a driver for the plan itself).
#pragma once

#include <vector>

#include "deviceless_support.hpp"

namespace cudnnfe_test {

inline std::vector<int64_t> packed_strides(const std::vector<int64_t> &dims) {
    std::vector<int64_t> s(dims.size());
    EXPECT_FE_OK(fe_strides_packed(dims.size(), dims.data(), s.data()));
    return s;
}

inline std::vector<int64_t> channels_last_strides(const std::vector<int64_t> &dims) {
    std::vector<int64_t> s(dims.size());
    EXPECT_FE_OK(fe_strides_channels_last(dims.size(), dims.data(), s.data()));
    return s;
}

// Channels-last or packed strides for `dims`, for the cases run in both layouts.
inline std::vector<int64_t> layout_strides(bool channels_last, const std::vector<int64_t> &dims) {
    return channels_last ? channels_last_strides(dims) : packed_strides(dims);
}

inline fe_tensor *strided(fe_graph *g, const char *name, const std::vector<int64_t> &dims,
                          const std::vector<int64_t> &strides, fe_data_type type = FE_DATA_NOT_SET) {
    fe_tensor *t = nullptr;
    EXPECT_FE_OK(fe_graph_tensor(g, name, dims.size(), dims.data(), strides.data(), type, &t));
    return t;
}

// Marks an optional result the graph names (such as "sdpa_backward_0::dSink") as an output.
inline void set_output_by_name(fe_graph *g, const char *name) {
    fe_tensor *t = nullptr;
    ASSERT_FE_OK(fe_graph_tensor_by_name(g, name, &t));
    ASSERT_FE_OK(fe_tensor_set_output(t, 1));
}

// c = a @ b with c of `c_type`, marked as the graph's output.
inline void matmul_output(fe_graph *g, fe_tensor *a, fe_tensor *b, fe_data_type c_type) {
    fe_tensor *c = nullptr;
    ASSERT_FE_OK(fe_graph_matmul(g, a, b, nullptr, &c));
    ASSERT_FE_OK(fe_tensor_set_data_type(c, c_type));
    ASSERT_FE_OK(fe_tensor_set_output(c, 1));
}

class KnownBadRefusal : public Deviceless {
  protected:
    void expect_refused(fe_graph *g, const char *reason) {
        EXPECT_EQ(build(g), FE_STATUS_NOT_SUPPORTED) << fe_last_error_message();
        EXPECT_TRUE(LastErrorContains(reason)) << fe_last_error_message();
        EXPECT_TRUE(LastErrorContains("known bad through 9.19")) << fe_last_error_message();
    }
    void expect_lowered(fe_graph *g) {
        EXPECT_FE_OK(fe_graph_set_device_properties(g, json_.c_str()));
        EXPECT_FE_OK(fe_graph_build_operation_graph(g, nullptr));
    }
    // The forms on either side of a table entry: the graph is refused for `reason` when
    // `refused`, and otherwise lowers.
    void expect_refused_or_lowered(fe_graph *g, bool refused, const char *reason) {
        if (refused)
            expect_refused(g, reason);
        else
            expect_lowered(g);
    }
};

}  // namespace cudnnfe_test
