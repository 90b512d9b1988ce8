// The mixture-of-experts grouped matmul: what cuDNN 9.19 cannot run is refused or explained at
// build, and every bad routing setup is refused with its reason.
#include "deviceless_support.hpp"

using cudnnfe_test::Deviceless;

namespace {

class MoeSupport : public Deviceless {
  protected:
    struct Inputs {
        fe_tensor *x, *w, *offsets, *index, *ks;
    };
    Inputs inputs(fe_graph *g, int64_t rows, int64_t routed, bool with_ks = true) {
        int64_t wd[3] = {8, 256, 512}, ws[3] = {256 * 512, 1, 256};
        Inputs in{};
        in.x = tensor(g, "x", {1, rows, 256});
        EXPECT_FE_OK(fe_graph_tensor(g, "w", 3, wd, ws, FE_DATA_NOT_SET, &in.w));
        in.offsets = tensor(g, "offsets", {8, 1, 1}, false, FE_DATA_INT32);
        in.index = tensor(g, "token_index", {1, routed, 1}, false, FE_DATA_INT32);
        if (with_ks) in.ks = tensor(g, "token_ks", {1, routed, 1}, false, FE_DATA_INT32);
        return in;
    }
};

// Weight-only INT4 experts, K-contiguous 4-bit weights dequantized in the graph into the grouped
// matmul (mode NONE): with per-group block scales (float or bfloat16) or a per-column scale cuDNN
// 9.19 has engines for the H100; the 4-bit weights taken as they are, none.
TEST_F(MoeSupport, Int4ExpertsDequantizedInTheGraph) {
    const int64_t E = 8, K = 512, N = 256;
    enum class Form { groups_float, groups_bf16, per_column, as_is };
    for (Form form : {Form::groups_float, Form::groups_bf16, Form::per_column, Form::as_is}) {
        SCOPED_TRACE(static_cast<int>(form));
        fe_graph *g = graph("moe_int4", FE_DATA_BFLOAT16);
        const int64_t dims[] = {E, K, N}, k_contiguous[] = {K * N, 1, K};
        fe_tensor *w = nullptr, *weights = nullptr, *y = nullptr;
        ASSERT_FE_OK(fe_graph_tensor(g, "w", 3, dims, k_contiguous, FE_DATA_INT4, &w));
        if (form == Form::per_column) {
            ASSERT_FE_OK(fe_graph_pointwise(g, FE_POINTWISE_MUL, w, tensor(g, "scale", {E, 1, N}, false, FE_DATA_BFLOAT16),
                                            nullptr, nullptr, &weights));
        } else if (form != Form::as_is) {
            fe_block_scale_options o = FE_BLOCK_SCALE_OPTIONS_INIT;
            o.block_rows = 32;
            o.block_size = 1;
            fe_data_type scale_type = form == Form::groups_float ? FE_DATA_FLOAT : FE_DATA_BFLOAT16;
            ASSERT_FE_OK(fe_graph_block_scale_dequantize(g, w, tensor(g, "scale", {E, K / 32, N}, false, scale_type), &o,
                                                         &weights));
        }
        if (weights) {
            ASSERT_FE_OK(fe_tensor_set_data_type(weights, FE_DATA_BFLOAT16));
        }
        fe_moe_grouped_matmul_options mo = FE_MOE_GROUPED_MATMUL_OPTIONS_INIT;
        ASSERT_FE_OK(fe_graph_moe_grouped_matmul(g, tensor(g, "x", {1, 256, K}), weights ? weights : w,
                                                 tensor(g, "offsets", {E, 1, 1}, false, FE_DATA_INT32), &mo, &y));
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        EXPECT_FE_STATUS(support_status(g), form == Form::as_is ? FE_STATUS_NOT_SUPPORTED : FE_OK);
    }
}

// cuDNN 9.19 on Hopper runs mode NONE (the GPU tier checks its numbers).
TEST_F(MoeSupport, ModeNoneIsSupported) {
    fe_graph *g = graph("moe_none", FE_DATA_BFLOAT16);
    int64_t wd[3] = {8, 1024, 4096}, ws[3] = {1024 * 4096, 1, 1024};
    fe_tensor *x = tensor(g, "x", {1, 1024, 1024}), *w = nullptr, *y = nullptr;
    ASSERT_FE_OK(fe_graph_tensor(g, "w", 3, wd, ws, FE_DATA_NOT_SET, &w));
    fe_tensor *offsets = tensor(g, "offsets", {8, 1, 1});  // int32 when not given a type
    ASSERT_FE_OK(fe_graph_moe_grouped_matmul(g, x, w, offsets, nullptr, &y));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    expect_supported(g);
    fe_data_type type;
    ASSERT_FE_OK(fe_tensor_get_data_type(offsets, &type));
    EXPECT_EQ(type, FE_DATA_INT32);
    EXPECT_NE(describe(g).find("mode=none"), std::string::npos);
}

// GATHER crashes on the GPU and is refused before cuDNN sees it; SCATTER has no engine, and
// the build says so.
TEST_F(MoeSupport, GatherIsRefusedAndScatterExplainedAtBuild) {
    for (fe_moe_mode mode : {FE_MOE_MODE_GATHER, FE_MOE_MODE_SCATTER}) {
        fe_graph *g = graph("moe", FE_DATA_BFLOAT16);
        Inputs in = inputs(g, mode == FE_MOE_MODE_GATHER ? 256 : 512, 512, mode == FE_MOE_MODE_SCATTER);
        fe_moe_grouped_matmul_options o = FE_MOE_GROUPED_MATMUL_OPTIONS_INIT;
        o.mode = mode;
        o.token_index = in.index;
        if (mode == FE_MOE_MODE_SCATTER) {
            o.token_ks = in.ks;
            o.top_k = 2;
        }
        fe_tensor *y = nullptr;
        ASSERT_FE_OK(fe_graph_moe_grouped_matmul(g, in.x, in.w, in.offsets, &o, &y));
        int64_t dims[3];
        ASSERT_FE_OK(fe_tensor_get_dims(y, dims, 3));
        EXPECT_EQ(dims[1], 512);
        EXPECT_EQ(dims[2], 512);
        ASSERT_FE_OK(fe_tensor_set_output(y, 1));
        EXPECT_NE(describe(g).find(mode == FE_MOE_MODE_SCATTER ? "mode=scatter top_k=2" : "mode=gather"),
                  std::string::npos);
        EXPECT_FE_STATUS(build(g), FE_STATUS_NOT_SUPPORTED);
        EXPECT_TRUE(LastErrorContains(mode == FE_MOE_MODE_GATHER ? "illegal memory access" : "has no engine for it"))
            << fe_last_error_message();
    }
}

TEST_F(MoeSupport, BadRoutingIsRefusedWithItsReason) {
    fe_graph *g = graph("refusals", FE_DATA_BFLOAT16);
    Inputs in = inputs(g, 512, 512);
    fe_tensor *y = nullptr;
    auto refused = [&](const fe_moe_grouped_matmul_options &o, fe_tensor *x, fe_tensor *offsets, const char *why) {
        EXPECT_FE_STATUS(fe_graph_moe_grouped_matmul(g, x, in.w, offsets, &o, &y), FE_STATUS_INVALID_ARGUMENT) << why;
        EXPECT_TRUE(LastErrorContains(why)) << fe_last_error_message();
    };
    fe_moe_grouped_matmul_options o = FE_MOE_GROUPED_MATMUL_OPTIONS_INIT;
    o.mode = FE_MOE_MODE_GATHER;
    refused(o, in.x, in.offsets, "mode GATHER needs options.token_index");
    o.mode = FE_MOE_MODE_NONE;
    o.token_index = in.index;
    refused(o, in.x, in.offsets, "mode NONE takes no token_index");
    o = FE_MOE_GROUPED_MATMUL_OPTIONS_INIT;
    o.top_k = 2;
    refused(o, in.x, in.offsets, "options.top_k is 2; it applies to mode SCATTER only");
    o = FE_MOE_GROUPED_MATMUL_OPTIONS_INIT;
    o.mode = FE_MOE_MODE_SCATTER;
    o.token_index = in.index;
    o.token_ks = in.ks;
    refused(o, in.x, in.offsets, "mode SCATTER needs options.top_k");
    o.mode = static_cast<fe_moe_mode>(5);
    refused(o, in.x, in.offsets, "options.mode is 5");
    o = FE_MOE_GROUPED_MATMUL_OPTIONS_INIT;
    refused(o, tensor(g, "x_wide", {1, 512, 128}), in.offsets, "has K = 128 but weight 'w' has 256 rows per expert");
    refused(o, tensor(g, "x_batched", {2, 512, 256}), in.offsets, "it must be [1, rows, K]");
    refused(o, in.x, tensor(g, "offsets_7", {7, 1, 1}, false, FE_DATA_INT32), "groups a multiple of the 8 experts");
    refused(o, in.x, tensor(g, "offsets_i64", {8, 1, 1}, false, FE_DATA_INT64), "it must be int32");
}

}  // namespace
