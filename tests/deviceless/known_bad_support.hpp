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

inline fe_tensor *strided(fe_graph *g, const char *name, const std::vector<int64_t> &dims,
                          const std::vector<int64_t> &strides, fe_data_type type = FE_DATA_NOT_SET) {
    fe_tensor *t = nullptr;
    EXPECT_FE_OK(fe_graph_tensor(g, name, dims.size(), dims.data(), strides.data(), type, &t));
    return t;
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
};

}  // namespace cudnnfe_test
