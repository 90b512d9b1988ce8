// Every required pointer of every entry point: NULL gives FE_STATUS_NULL_POINTER, a message
// naming the function and the argument, and leaves outputs untouched. No cuDNN needed.
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

struct Call {
    const char *function;
    std::function<fe_status()> run;
};

class NullArguments : public ::testing::Test {
  protected:
    void SetUp() override {
        fe_graph_options o = FE_GRAPH_OPTIONS_INIT;
        o.io_data_type = FE_DATA_HALF;
        ASSERT_FE_OK(fe_graph_create(&o, &g));
        int64_t dims[3] = {2, 4, 8};
        ASSERT_FE_OK(fe_graph_tensor(g, "x", 3, dims, nullptr, FE_DATA_NOT_SET, &x));
    }
    void TearDown() override { fe_graph_destroy(g); }
    fe_graph *g = nullptr;
    fe_tensor *x = nullptr;
};

TEST_F(NullArguments, AreRefusedWithTheFunctionsName) {
    int64_t dims[3] = {2, 4, 8}, out64 = 0;
    int32_t out32 = 0;
    size_t size = 0;
    char text[16];
    void *pointer = nullptr;
    const char *name = nullptr;
    fe_tensor *t = nullptr;
    fe_graph *graph = nullptr;
    fe_buffer *buffer = nullptr;
    fe_handle *handle = nullptr;
    fe_data_type type;
    float floats[4] = {0};
    fe_conv_options conv = FE_CONV_OPTIONS_INIT;
    fe_reduction_options reduction = FE_REDUCTION_OPTIONS_INIT;
    fe_resample_options resample = FE_RESAMPLE_OPTIONS_INIT;
    fe_sdpa_implementation implementation = FE_SDPA_IMPLEMENTATION_AUTO;
    std::vector<Call> calls = {
        {"fe_cudnn_version", [&] { return fe_cudnn_version(nullptr); }},
        {"fe_cuda_runtime_version", [&] { return fe_cuda_runtime_version(nullptr); }},
        {"fe_device_count", [&] { return fe_device_count(nullptr); }},
        {"fe_device_properties_capture", [&] { return fe_device_properties_capture(0, text, 16, nullptr); }},
        {"fe_handle_create", [&] { return fe_handle_create(0, nullptr); }},
        {"fe_handle_set_stream", [&] { return fe_handle_set_stream(nullptr, nullptr); }},
        {"fe_handle_get_stream", [&] { return fe_handle_get_stream(nullptr, &pointer); }},
        {"fe_handle_get_device", [&] { return fe_handle_get_device(nullptr, &out32); }},
        {"fe_handle_synchronize", [&] { return fe_handle_synchronize(nullptr); }},
        {"fe_handle_workspace_size", [&] { return fe_handle_workspace_size(nullptr, &out64); }},
        {"fe_buffer_create", [&] { return fe_buffer_create(0, 16, nullptr); }},
        {"fe_buffer_create_for_tensor", [&] { return fe_buffer_create_for_tensor(0, nullptr, &buffer); }},
        {"fe_buffer_device_pointer", [&] { return fe_buffer_device_pointer(nullptr, &pointer); }},
        {"fe_buffer_size", [&] { return fe_buffer_size(nullptr, &out64); }},
        {"fe_buffer_upload", [&] { return fe_buffer_upload(nullptr, floats, 4); }},
        {"fe_buffer_download", [&] { return fe_buffer_download(nullptr, floats, 4); }},
        {"fe_buffer_upload_float", [&] { return fe_buffer_upload_float(nullptr, floats, 1, FE_DATA_HALF); }},
        {"fe_buffer_download_float", [&] { return fe_buffer_download_float(nullptr, floats, 1, FE_DATA_HALF); }},
        {"fe_buffer_fill_bytes", [&] { return fe_buffer_fill_bytes(nullptr, 0); }},
        {"fe_graph_create", [&] { return fe_graph_create(nullptr, nullptr); }},
        {"fe_graph_tensor", [&] { return fe_graph_tensor(g, nullptr, 3, dims, nullptr, FE_DATA_HALF, &t); }},
        {"fe_graph_tensor", [&] { return fe_graph_tensor(g, "y", 3, nullptr, nullptr, FE_DATA_HALF, &t); }},
        {"fe_graph_tensor", [&] { return fe_graph_tensor(nullptr, "y", 3, dims, nullptr, FE_DATA_HALF, &t); }},
        {"fe_graph_tensor", [&] { return fe_graph_tensor(g, "y", 3, dims, nullptr, FE_DATA_HALF, nullptr); }},
        {"fe_graph_scalar", [&] { return fe_graph_scalar(g, "s", 1.0, FE_DATA_FLOAT, nullptr); }},
        {"fe_graph_constant", [&] { return fe_graph_constant(g, "c", 1.0, FE_DATA_FLOAT, nullptr); }},
        {"fe_graph_tensor_like", [&] { return fe_graph_tensor_like(g, nullptr, "like", &t); }},
        {"fe_graph_tensor_by_name", [&] { return fe_graph_tensor_by_name(g, nullptr, &t); }},
        {"fe_graph_tensor_by_uid", [&] { return fe_graph_tensor_by_uid(g, 1, nullptr); }},
        {"fe_graph_get_name", [&] { return fe_graph_get_name(nullptr, &name); }},
        {"fe_graph_get_name", [&] { return fe_graph_get_name(g, nullptr); }},
        {"fe_tensor_get_name", [&] { return fe_tensor_get_name(nullptr, &name); }},
        {"fe_tensor_get_name", [&] { return fe_tensor_get_name(x, nullptr); }},
        {"fe_graph_input_count", [&] { return fe_graph_input_count(nullptr, &size); }},
        {"fe_graph_input", [&] { return fe_graph_input(g, 0, nullptr); }},
        {"fe_graph_output_count", [&] { return fe_graph_output_count(g, nullptr); }},
        {"fe_graph_output", [&] { return fe_graph_output(nullptr, 0, &t); }},
        {"fe_strides_packed", [&] { return fe_strides_packed(3, dims, nullptr); }},
        {"fe_strides_channels_last", [&] { return fe_strides_channels_last(3, nullptr, dims); }},
        {"fe_tensor_set_name", [&] { return fe_tensor_set_name(x, nullptr); }},
        {"fe_tensor_set_dims", [&] { return fe_tensor_set_dims(nullptr, 3, dims); }},
        {"fe_tensor_set_strides", [&] { return fe_tensor_set_strides(x, 3, nullptr); }},
        {"fe_tensor_set_data_type", [&] { return fe_tensor_set_data_type(nullptr, FE_DATA_HALF); }},
        {"fe_tensor_set_uid", [&] { return fe_tensor_set_uid(nullptr, 1); }},
        {"fe_tensor_set_output", [&] { return fe_tensor_set_output(nullptr, 1); }},
        {"fe_tensor_set_ragged_offset", [&] { return fe_tensor_set_ragged_offset(nullptr, x); }},
        {"fe_tensor_set_alignment", [&] { return fe_tensor_set_alignment(nullptr, 64); }},
        {"fe_tensor_set_vectorization", [&] { return fe_tensor_set_vectorization(nullptr, 32, 1); }},
        {"fe_tensor_get_vector_count", [&] { return fe_tensor_get_vector_count(x, nullptr); }},
        {"fe_tensor_get_vector_dim", [&] { return fe_tensor_get_vector_dim(nullptr, &out32); }},
        {"fe_tensor_set_reordering", [&] { return fe_tensor_set_reordering(nullptr, FE_TENSOR_REORDERING_INT8X32); }},
        {"fe_tensor_get_reordering", [&] { return fe_tensor_get_reordering(x, nullptr); }},
        {"fe_handle_reorder_filter_int8x32",
         [&] { return fe_handle_reorder_filter_int8x32(nullptr, x, &out32, &out64); }},
        {"fe_tensor_get_ndims", [&] { return fe_tensor_get_ndims(x, nullptr); }},
        {"fe_tensor_get_dims", [&] { return fe_tensor_get_dims(nullptr, dims, 3); }},
        {"fe_tensor_get_strides", [&] { return fe_tensor_get_strides(x, nullptr, 3); }},
        {"fe_tensor_get_data_type", [&] { return fe_tensor_get_data_type(x, nullptr); }},
        {"fe_tensor_get_uid", [&] { return fe_tensor_get_uid(nullptr, &out64); }},
        {"fe_tensor_is_output", [&] { return fe_tensor_is_output(x, nullptr); }},
        {"fe_tensor_is_virtual", [&] { return fe_tensor_is_virtual(nullptr, &out32); }},
        {"fe_tensor_size_bytes", [&] { return fe_tensor_size_bytes(x, nullptr); }},
        {"fe_conv_options_set_padding", [&] { return fe_conv_options_set_padding(nullptr, 2, dims); }},
        {"fe_batchnorm_options_set_peer_stats",
         [&] { return fe_batchnorm_options_set_peer_stats(nullptr, 0, nullptr); }},
        {"fe_norm_backward_options_set_peer_stats",
         [&] {
             fe_norm_backward_options backward = FE_NORM_BACKWARD_OPTIONS_INIT;
             return fe_norm_backward_options_set_peer_stats(&backward, 2, nullptr);
         }},
        {"fe_graph_conv_fprop", [&] { return fe_graph_conv_fprop(g, x, nullptr, &conv, &t); }},
        {"fe_conv_options_set_stride", [&] { return fe_conv_options_set_stride(&conv, 2, nullptr); }},
        {"fe_conv_options_set_dilation", [&] { return fe_conv_options_set_dilation(nullptr, 2, dims); }},
        {"fe_conv_options_set_pre_padding", [&] { return fe_conv_options_set_pre_padding(&conv, 2, nullptr); }},
        {"fe_conv_options_set_post_padding", [&] { return fe_conv_options_set_post_padding(nullptr, 2, dims); }},
        {"fe_conv_options_set_output_padding",
         [&] { return fe_conv_options_set_output_padding(&conv, 2, nullptr); }},
        {"fe_graph_conv_dgrad", [&] { return fe_graph_conv_dgrad(g, nullptr, x, 3, dims, &conv, &t); }},
        {"fe_graph_conv_dgrad", [&] { return fe_graph_conv_dgrad(g, x, x, 3, nullptr, &conv, &t); }},
        {"fe_graph_conv_dgrad", [&] { return fe_graph_conv_dgrad(g, x, x, 3, dims, &conv, nullptr); }},
        {"fe_graph_conv_wgrad", [&] { return fe_graph_conv_wgrad(nullptr, x, x, 3, dims, &conv, &t); }},
        {"fe_graph_conv_wgrad", [&] { return fe_graph_conv_wgrad(g, x, nullptr, 0, nullptr, &conv, &t); }},
        {"fe_graph_conv_transpose", [&] { return fe_graph_conv_transpose(g, x, nullptr, &conv, &t); }},
        {"fe_graph_conv_transpose", [&] { return fe_graph_conv_transpose(g, x, x, &conv, nullptr); }},
        {"fe_graph_matmul", [&] { return fe_graph_matmul(g, nullptr, x, nullptr, &t); }},
        {"fe_graph_pointwise", [&] { return fe_graph_pointwise(g, FE_POINTWISE_ADD, x, nullptr, nullptr, nullptr, &t); }},
        {"fe_graph_pointwise", [&] { return fe_graph_pointwise(g, FE_POINTWISE_RELU_FWD, x, nullptr, nullptr, nullptr, nullptr); }},
        {"fe_graph_bias", [&] { return fe_graph_bias(g, x, nullptr, nullptr, &t); }},
        {"fe_graph_scale", [&] { return fe_graph_scale(nullptr, x, x, nullptr, &t); }},
        {"fe_graph_add", [&] { return fe_graph_add(g, nullptr, x, nullptr, &t); }},
        {"fe_graph_mul", [&] { return fe_graph_mul(g, x, nullptr, nullptr, &t); }},
        {"fe_graph_relu", [&] { return fe_graph_relu(g, nullptr, nullptr, &t); }},
        {"fe_graph_gelu", [&] { return fe_graph_gelu(g, x, nullptr, nullptr); }},
        {"fe_graph_silu", [&] { return fe_graph_silu(nullptr, x, nullptr, &t); }},
        {"fe_graph_transpose", [&] { return fe_graph_transpose(g, x, 3, nullptr, nullptr, &t); }},
        {"fe_graph_reshape", [&] { return fe_graph_reshape(g, nullptr, 3, dims, nullptr, &t); }},
        {"fe_graph_slice", [&] { return fe_graph_slice(g, x, 3, dims, nullptr, nullptr, &t); }},
        {"fe_graph_concatenate", [&] { return fe_graph_concatenate(g, 2, nullptr, 0, nullptr, &t); }},
        {"fe_graph_reduction", [&] { return fe_graph_reduction(g, x, FE_REDUCTION_ADD, nullptr, &t); }},
        {"fe_graph_reduction", [&] { return fe_graph_reduction(g, x, FE_REDUCTION_ADD, &reduction, nullptr); }},
        {"fe_graph_rng", [&] { return fe_graph_rng(g, nullptr, x, nullptr, &t); }},
        {"fe_graph_matmul_fp8", [&] { return fe_graph_matmul_fp8(g, x, x, nullptr, nullptr, &t, &t); }},
        {"fe_graph_block_scale_quantize", [&] { return fe_graph_block_scale_quantize(g, nullptr, nullptr, &t, &t); }},
        {"fe_graph_block_scale_dequantize", [&] { return fe_graph_block_scale_dequantize(g, x, x, nullptr, nullptr); }},
        {"fe_graph_sdpa", [&] { return fe_graph_sdpa(g, x, x, nullptr, nullptr, &t, nullptr); }},
        {"fe_alibi_slopes", [&] { return fe_alibi_slopes(4, nullptr); }},
        {"fe_graph_build", [&] { return fe_graph_build(nullptr, nullptr, nullptr); }},
        {"fe_graph_set_device_properties", [&] { return fe_graph_set_device_properties(g, nullptr); }},
        {"fe_graph_validate", [&] { return fe_graph_validate(nullptr); }},
        {"fe_graph_build_operation_graph", [&] { return fe_graph_build_operation_graph(nullptr, nullptr); }},
        {"fe_graph_create_execution_plans", [&] { return fe_graph_create_execution_plans(nullptr, nullptr, 0); }},
        {"fe_graph_deselect_workspace_greater_than", [&] { return fe_graph_deselect_workspace_greater_than(nullptr, 0); }},
        {"fe_graph_check_support", [&] { return fe_graph_check_support(nullptr); }},
        {"fe_graph_build_plans", [&] { return fe_graph_build_plans(nullptr, FE_BUILD_POLICY_ALL); }},
        {"fe_graph_candidate_count", [&] { return fe_graph_candidate_count(g, nullptr); }},
        {"fe_graph_viable_count", [&] { return fe_graph_viable_count(nullptr, &size); }},
        {"fe_graph_plan_count", [&] { return fe_graph_plan_count(g, nullptr); }},
        {"fe_graph_engine_count", [&] { return fe_graph_engine_count(g, nullptr); }},
        {"fe_graph_engine_knobs", [&] { return fe_graph_engine_knobs(nullptr, 0, nullptr, 0, &size); }},
        {"fe_graph_engine_knobs", [&] { return fe_graph_engine_knobs(g, 0, nullptr, 0, nullptr); }},
        {"fe_graph_add_candidate", [&] { return fe_graph_add_candidate(nullptr, 0, nullptr, 0); }},
        {"fe_graph_add_candidate", [&] { return fe_graph_add_candidate(g, 0, nullptr, 2); }},
        {"fe_graph_workspace_size", [&] { return fe_graph_workspace_size(nullptr, &out64); }},
        {"fe_graph_engine_index", [&] { return fe_graph_engine_index(g, nullptr); }},
        {"fe_graph_engine_tag", [&] { return fe_graph_engine_tag(nullptr, &name); }},
        {"fe_graph_engine_tag", [&] { return fe_graph_engine_tag(g, nullptr); }},
        {"fe_graph_is_built", [&] { return fe_graph_is_built(nullptr, &out32); }},
        {"fe_graph_background_state", [&] { return fe_graph_background_state(g, nullptr); }},
        {"fe_graph_wait_background", [&] { return fe_graph_wait_background(nullptr); }},
        {"fe_graph_describe", [&] { return fe_graph_describe(g, text, 16, nullptr); }},
        {"fe_graph_autotune", [&] { return fe_graph_autotune(g, nullptr, 1, 1, nullptr); }},
        {"fe_graph_plan_time_us", [&] { return fe_graph_plan_time_us(g, 0, nullptr); }},
        {"fe_graph_from_cache", [&] { return fe_graph_from_cache(nullptr, nullptr, &graph); }},
        {"fe_plan_cache_evictions", [&] { return fe_plan_cache_evictions(nullptr); }},
        {"fe_handle_set_cache_directory", [&] { return fe_handle_set_cache_directory(nullptr, "plans"); }},
        {"fe_handle_set_cache_limit", [&] { return fe_handle_set_cache_limit(nullptr, 1); }},
        {"fe_graph_serialize", [&] { return fe_graph_serialize(nullptr, text, 16, &size); }},
        {"fe_graph_deserialize", [&] { return fe_graph_deserialize(nullptr, nullptr, 0, nullptr, &graph); }},
        {"fe_serialized_describe", [&] { return fe_serialized_describe(text, 16, text, 16, nullptr); }},
        {"fe_graph_execute", [&] { return fe_graph_execute(g, nullptr, nullptr, nullptr, 0, nullptr); }},
        {"fe_graph_execute_buffers", [&] { return fe_graph_execute_buffers(nullptr, handle, nullptr, nullptr, 0, nullptr); }},
        {"fe_graph_execute_by_uid", [&] { return fe_graph_execute_by_uid(g, nullptr, nullptr, nullptr, 0, nullptr); }},
        {"fe_graph_execute_positional", [&] { return fe_graph_execute_positional(nullptr, nullptr, nullptr, 0, nullptr); }},
        {"fe_graph_warmup", [&] { return fe_graph_warmup(nullptr, nullptr); }},
        {"fe_graph_select_by_notes", [&] { return fe_graph_select_by_notes(nullptr, 0, 0, 0, 0); }},
        {"fe_graph_candidate_notes",
         [&] { return fe_graph_candidate_notes(nullptr, 0, nullptr, nullptr, nullptr); }},
        {"fe_graph_deselect_engines", [&] { return fe_graph_deselect_engines(nullptr, "eng0"); }},
        {"fe_graph_deselect_shared_memory_greater_than",
         [&] { return fe_graph_deselect_shared_memory_greater_than(nullptr, 0); }},
        {"fe_graph_candidate_info", [&] { return fe_graph_candidate_info(nullptr, 0, nullptr); }},
        {"fe_graph_plan_info", [&] { return fe_graph_plan_info(nullptr, 0, nullptr); }},
        {"fe_graph_build_plans_on_threads",
         [&] { return fe_graph_build_plans_on_threads(nullptr, FE_BUILD_POLICY_ALL, 2); }},
        {"fe_graph_build_plan_at_index", [&] { return fe_graph_build_plan_at_index(nullptr, 0); }},
        {"fe_graph_select_plan", [&] { return fe_graph_select_plan(nullptr, 0); }},
        {"fe_graph_set_kernel_cache", [&] { return fe_graph_set_kernel_cache(nullptr, nullptr); }},
        {"fe_kernel_cache_create", [&] { return fe_kernel_cache_create(nullptr); }},
        {"fe_kernel_cache_serialize", [&] { return fe_kernel_cache_serialize(nullptr, nullptr, 0, nullptr); }},
        {"fe_kernel_cache_deserialize", [&] { return fe_kernel_cache_deserialize(nullptr, 0, nullptr); }},
        {"fe_kernel_cache_store", [&] { return fe_kernel_cache_store(nullptr, nullptr, "name"); }},
        {"fe_kernel_cache_load", [&] { return fe_kernel_cache_load(nullptr, "name", nullptr); }},
        {"fe_graph_populate_cuda_graph",
         [&] { return fe_graph_populate_cuda_graph(nullptr, nullptr, nullptr, nullptr, 0, nullptr, nullptr); }},
        {"fe_graph_update_cuda_graph",
         [&] { return fe_graph_update_cuda_graph(nullptr, nullptr, nullptr, nullptr, 0, nullptr, nullptr); }},
        {"fe_op_schema_json", [&] { return fe_op_schema_json(text, 16, nullptr); }},
        {"fe_graph_sdpa_fp8",
         [&] { return fe_graph_sdpa_fp8(g, x, x, x, nullptr, nullptr, &t, nullptr, &t, &t); }},
        {"fe_graph_sdpa_fp8_backward",
         [&] { return fe_graph_sdpa_fp8_backward(g, x, x, x, x, x, x, nullptr, nullptr, &t, &t, &t, &t, &t, &t, &t); }},
        {"fe_graph_sdpa_backward",
         [&] { return fe_graph_sdpa_backward(nullptr, x, x, x, x, x, x, nullptr, &t, &t, &t); }},
        {"fe_graph_layernorm", [&] { return fe_graph_layernorm(g, x, x, nullptr, nullptr, &t, nullptr, nullptr); }},
        {"fe_graph_rmsnorm", [&] { return fe_graph_rmsnorm(nullptr, x, x, nullptr, nullptr, &t, nullptr); }},
        {"fe_graph_instancenorm",
         [&] { return fe_graph_instancenorm(g, x, x, nullptr, nullptr, &t, nullptr, nullptr); }},
        {"fe_graph_adalayernorm",
         [&] { return fe_graph_adalayernorm(nullptr, x, x, nullptr, nullptr, &t, nullptr, nullptr); }},
        {"fe_graph_batchnorm",
         [&] { return fe_graph_batchnorm(g, x, nullptr, x, nullptr, &t, &t, &t, nullptr, nullptr); }},
        {"fe_graph_batchnorm_inference",
         [&] { return fe_graph_batchnorm_inference(g, x, nullptr, x, x, x, nullptr, &t); }},
        {"fe_graph_layernorm_backward",
         [&] { return fe_graph_layernorm_backward(g, x, x, x, nullptr, x, nullptr, &t, &t, &t); }},
        {"fe_graph_rmsnorm_backward",
         [&] { return fe_graph_rmsnorm_backward(g, x, x, x, nullptr, nullptr, &t, &t, nullptr); }},
        {"fe_graph_instancenorm_backward",
         [&] { return fe_graph_instancenorm_backward(g, x, x, x, x, nullptr, nullptr, &t, &t, &t); }},
        {"fe_graph_adalayernorm_backward",
         [&] { return fe_graph_adalayernorm_backward(nullptr, x, x, x, x, x, nullptr, &t, &t, nullptr); }},
        {"fe_graph_batchnorm_backward",
         [&] { return fe_graph_batchnorm_backward(g, x, x, x, x, x, nullptr, nullptr, &t, &t); }},
        {"fe_graph_softmax", [&] { return fe_graph_softmax(g, nullptr, nullptr, &t, nullptr); }},
        {"fe_graph_genstats", [&] { return fe_graph_genstats(g, x, nullptr, &t, nullptr); }},
        {"fe_graph_dbn_weight",
         [&] { return fe_graph_dbn_weight(nullptr, x, x, x, x, x, nullptr, &t, &t, &t, &t, &t); }},
        {"fe_graph_dbn_weight",
         [&] { return fe_graph_dbn_weight(g, nullptr, x, x, x, x, nullptr, &t, &t, &t, &t, &t); }},
        {"fe_graph_dbn_weight",
         [&] { return fe_graph_dbn_weight(g, x, nullptr, x, x, x, nullptr, &t, &t, &t, &t, &t); }},
        {"fe_graph_dbn_weight",
         [&] { return fe_graph_dbn_weight(g, x, x, nullptr, x, x, nullptr, &t, &t, &t, &t, &t); }},
        {"fe_graph_dbn_weight",
         [&] { return fe_graph_dbn_weight(g, x, x, x, nullptr, x, nullptr, &t, &t, &t, &t, &t); }},
        {"fe_graph_dbn_weight",
         [&] { return fe_graph_dbn_weight(g, x, x, x, x, nullptr, nullptr, &t, &t, &t, &t, &t); }},
        {"fe_graph_dbn_weight",
         [&] { return fe_graph_dbn_weight(g, x, x, x, x, x, nullptr, nullptr, &t, &t, &t, &t); }},
        {"fe_graph_dbn_weight",
         [&] { return fe_graph_dbn_weight(g, x, x, x, x, x, nullptr, &t, nullptr, &t, &t, &t); }},
        {"fe_graph_dbn_weight",
         [&] { return fe_graph_dbn_weight(g, x, x, x, x, x, nullptr, &t, &t, nullptr, &t, &t); }},
        {"fe_graph_dbn_weight",
         [&] { return fe_graph_dbn_weight(g, x, x, x, x, x, nullptr, &t, &t, &t, nullptr, &t); }},
        {"fe_graph_dbn_weight",
         [&] { return fe_graph_dbn_weight(g, x, x, x, x, x, nullptr, &t, &t, &t, &t, nullptr); }},
        {"fe_graph_moe_grouped_matmul", [&] { return fe_graph_moe_grouped_matmul(g, x, x, nullptr, nullptr, &t); }},
        {"fe_resample_options_set_window", [&] { return fe_resample_options_set_window(nullptr, 2, dims); }},
        {"fe_resample_options_set_stride", [&] { return fe_resample_options_set_stride(&resample, 2, nullptr); }},
        {"fe_resample_options_set_padding", [&] { return fe_resample_options_set_padding(nullptr, 2, dims); }},
        {"fe_resample_options_set_pre_padding",
         [&] { return fe_resample_options_set_pre_padding(&resample, 2, nullptr); }},
        {"fe_resample_options_set_post_padding",
         [&] { return fe_resample_options_set_post_padding(nullptr, 2, dims); }},
        {"fe_graph_resample", [&] { return fe_graph_resample(g, x, nullptr, &t, nullptr); }},
        {"fe_graph_resample_backward",
         [&] { return fe_graph_resample_backward(g, nullptr, x, nullptr, nullptr, 0, nullptr, &resample, &t); }},
        {"fe_graph_attention_implementation",
         [&] { return fe_graph_attention_implementation(nullptr, nullptr, &implementation); }},
        {"fe_graph_to_json", [&] { return fe_graph_to_json(nullptr, text, 16, &size); }},
        {"fe_graph_key", [&] { return fe_graph_key(nullptr, text, 16, &size); }},
        {"fe_device_properties_for_sm", [&] { return fe_device_properties_for_sm(90, text, 16, nullptr); }},
        {"fe_graph_from_json", [&] { return fe_graph_from_json(nullptr, 0, &graph); }},
    };
    for (const Call &call : calls) {
        SCOPED_TRACE(call.function);
        t = reinterpret_cast<fe_tensor *>(0x1);  // sentinel: must survive the failure
        EXPECT_EQ(call.run(), FE_STATUS_NULL_POINTER) << fe_last_error_message();
        std::string message = fe_last_error_message();
        EXPECT_EQ(message.rfind(std::string(call.function) + ": ", 0), 0u) << message;
        EXPECT_NE(message.find("is NULL"), std::string::npos) << message;
        EXPECT_EQ(t, reinterpret_cast<fe_tensor *>(0x1)) << "an output was written on failure";
        EXPECT_EQ(name, nullptr) << "an output was written on failure";
    }
    (void)graph;
    (void)type;
}

// Every entry point that takes a pointer has a NULL case in the unit tests: in the list above, or
// in the same form ({"fe_x", [&] { ... }}) in the rules test of its family. A function added to
// the header without one fails here.
TEST(NullArgumentsList, CoversEveryEntryPointWithAPointer) {
    auto read = [](const std::string &path) {
        std::ifstream in(path);
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
    };
    std::string header = std::regex_replace(read(std::string(CUDNNFE_SOURCE_ROOT) + "/include/cudnnfe.h"),
                                            std::regex(R"(/\*[\s\S]*?\*/)"), " ");
    std::string cases;
    for (const auto &entry : std::filesystem::directory_iterator(std::string(CUDNNFE_SOURCE_ROOT) + "/tests/unit"))
        if (entry.path().extension() == ".cpp") cases += read(entry.path().string());
    // NULL is allowed everywhere in these: destroy(NULL) does nothing (Destroy below), and every
    // counter of fe_plan_cache_stats is nullable.
    // fe_log_set_callback: a NULL callback restores the default destination, and user_data is
    // the caller's, passed through untouched.
    const std::set<std::string> nullable = {"fe_graph_destroy", "fe_handle_destroy", "fe_buffer_destroy",
                                            "fe_plan_cache_stats", "fe_kernel_cache_destroy",
                                            "fe_log_set_callback"};
    std::regex function(R"(FE_API\s+[\w\s\*]*?\b(fe_\w+)\s*\(([^)]*)\))");
    int checked = 0;
    for (std::sregex_iterator it(header.begin(), header.end(), function), end; it != end; ++it) {
        std::string name = (*it)[1].str(), parameters = (*it)[2].str();
        if (parameters.find('*') == std::string::npos || nullable.count(name)) continue;
        ++checked;
        EXPECT_NE(cases.find("{\"" + name + "\","), std::string::npos) << name << " has no NULL case in tests/unit";
    }
    EXPECT_GT(checked, 100);
}

TEST(Destroy, NullIsANoOp) {
    fe_graph_destroy(nullptr);
    EXPECT_EQ(fe_kernel_cache_destroy(nullptr), FE_OK);
    fe_handle_destroy(nullptr);
    fe_buffer_destroy(nullptr);
}

// A query whose answer does not exist yet fails with its status rather than answering "".
TEST_F(NullArguments, EngineTagBeforeAPlanIsABadState) {
    const char *tag = reinterpret_cast<const char *>(0x1);
    EXPECT_FE_REFUSED(fe_graph_engine_tag(g, &tag), FE_STATUS_BAD_STATE, "fe_graph_engine_tag: graph ");
    EXPECT_TRUE(LastErrorContains("has no plan yet"));
    EXPECT_EQ(tag, reinterpret_cast<const char *>(0x1)) << "the output was written on failure";
}

TEST_F(NullArguments, GettersAnswerThroughTheirOutput) {
    const char *name = nullptr;
    ASSERT_FE_OK(fe_graph_get_name(g, &name));
    EXPECT_STREQ(name, "graph");
    ASSERT_FE_OK(fe_tensor_get_name(x, &name));
    EXPECT_STREQ(name, "x");
}

}  // namespace
