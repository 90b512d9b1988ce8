// Run with CUDNNFE_CUDNN_LIBRARY and CUDNNFE_CUDART_LIBRARY naming files that do not exist:
// the library still loads, builds and validates graphs, and calls that need cuDNN or the CUDA
// runtime fail with FE_STATUS_LIBRARY_UNAVAILABLE naming what was tried.
#include <cstdlib>
#include <string>

#include "test_support.hpp"

namespace {

class Unavailable : public ::testing::Test {
  protected:
    void SetUp() override {
        const char *cudnn = std::getenv("CUDNNFE_CUDNN_LIBRARY");
        if (!cudnn || std::string(cudnn).find("/nonexistent/") == std::string::npos)
            GTEST_SKIP() << "run with CUDNNFE_CUDNN_LIBRARY=/nonexistent/libcudnn.so.9 (the test runner does)";
    }
};

TEST_F(Unavailable, VersionQueriesSayWhatWasTried) {
    int64_t version = 0;
    EXPECT_FE_REFUSED(fe_cudnn_version(&version), FE_STATUS_LIBRARY_UNAVAILABLE,
                      "fe_cudnn_version: cuDNN could not be loaded");
    EXPECT_TRUE(LastErrorContains("/nonexistent/libcudnn.so.9"));
    int32_t runtime = 0;
    EXPECT_FE_REFUSED(fe_cuda_runtime_version(&runtime), FE_STATUS_LIBRARY_UNAVAILABLE, "/nonexistent/libcudart.so");
    fe_handle *handle = nullptr;
    EXPECT_FE_STATUS(fe_handle_create(0, &handle), FE_STATUS_LIBRARY_UNAVAILABLE);
    EXPECT_EQ(handle, nullptr);
    fe_buffer *buffer = nullptr;
    EXPECT_FE_STATUS(fe_buffer_create(0, 64, &buffer), FE_STATUS_LIBRARY_UNAVAILABLE);
}

TEST_F(Unavailable, GraphsStillBuildUpToLowering) {
    fe_graph_options o = FE_GRAPH_OPTIONS_INIT;
    o.io_data_type = FE_DATA_HALF;
    fe_graph *g = nullptr;
    ASSERT_FE_OK(fe_graph_create(&o, &g));
    int64_t xd[4] = {1, 8, 16, 16}, wd[4] = {8, 8, 3, 3};
    fe_tensor *x, *w, *y;
    ASSERT_FE_OK(fe_graph_tensor(g, "x", 4, xd, nullptr, FE_DATA_NOT_SET, &x));
    ASSERT_FE_OK(fe_graph_tensor(g, "w", 4, wd, nullptr, FE_DATA_NOT_SET, &w));
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    ASSERT_FE_OK(fe_graph_validate(g));
    fe_build_options b = FE_BUILD_OPTIONS_INIT;
    b.device_properties_json = "{\"deviceName\": \"NVIDIA H100\", \"deviceVer\": 900}";
    EXPECT_FE_REFUSED(fe_graph_build(g, nullptr, &b), FE_STATUS_LIBRARY_UNAVAILABLE,
                      "fe_graph_build: cuDNN could not be loaded");
    // The failed build leaves the graph as it was: still valid, still describable.
    ASSERT_FE_OK(fe_graph_validate(g));
    size_t length = 0;
    EXPECT_FE_STATUS(fe_graph_describe(g, nullptr, 0, &length), FE_STATUS_BUFFER_TOO_SMALL);
    fe_graph_destroy(g);
}

}  // namespace
