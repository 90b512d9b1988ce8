package cudnnfe

import (
	"regexp"
	"strings"
)

// The Go names of the C functions: an error names the method the caller called (Graph.ConvFprop,
// not fe_graph_conv_fprop), and advice in a message ("mark a result with fe_tensor_set_output")
// names the Go method to call instead. A C function is named by its object (fe_graph_ -> Graph,
// fe_tensor_ -> Tensor, ...) and the rest in Pascal case (a getter without its get_); the table
// holds the functions whose Go function or method is named otherwise.
var goNames = map[string]string{
	"fe_graph_create":              "cudnnfe.NewGraph",
	"fe_handle_create":             "cudnnfe.NewHandle",
	"fe_kernel_cache_create":       "cudnnfe.NewKernelCache",
	"fe_buffer_create":             "cudnnfe.NewDeviceBuffer",
	"fe_buffer_create_for_tensor":  "cudnnfe.NewDeviceBufferFor",
	"fe_buffer_upload_float":       "DeviceBuffer.UploadFloat32",
	"fe_buffer_download_float":     "DeviceBuffer.DownloadFloat32",
	"fe_buffer_fill_bytes":         "DeviceBuffer.Fill",
	"fe_kernel_cache_deserialize":  "cudnnfe.DeserializeKernelCache",
	"fe_kernel_cache_load":         "cudnnfe.LoadKernelCache",
	"fe_graph_from_cache":          "cudnnfe.GraphFromCache",
	"fe_graph_deserialize":         "cudnnfe.Deserialize",
	"fe_serialized_describe":       "cudnnfe.DescribeSerialized",
	"fe_graph_from_json":           "cudnnfe.GraphFromJSON",
	"fe_graph_to_json":             "Graph.ToJSON",
	"fe_graph_input_count":         "Graph.Inputs",
	"fe_graph_input":               "Graph.Inputs",
	"fe_graph_output_count":        "Graph.Outputs",
	"fe_graph_output":              "Graph.Outputs",
	"fe_tensor_get_uid":            "Tensor.UID",
	"fe_tensor_set_uid":            "Tensor.SetUID",
	"fe_tensor_get_ndims":          "Tensor.Rank",
	"fe_graph_execute_by_uid":      "Graph.ExecuteByUID",
	"fe_graph_populate_cuda_graph": "Graph.PopulateCUDAGraph",
	"fe_graph_update_cuda_graph":   "Graph.UpdateCUDAGraph",
	"fe_plan_cache_stats":          "cudnnfe.PlanCacheCounters",
	"fe_plan_cache_evictions":      "cudnnfe.PlanCacheCounters",
	"fe_plan_cache_clear":          "cudnnfe.ClearPlanCache",
	"fe_op_schema_json":            "cudnnfe.OpSchemaJSON",
	"fe_device_properties_capture": "cudnnfe.CapturedDeviceProperties",
	"fe_device_enable_peer_access": "cudnnfe.EnablePeerAccess",
	"fe_log_set_level":             "cudnnfe.SetLogLevel",
	"fe_log_set_callback":          "cudnnfe.SetLogger",
	"fe_data_type_size":            "DataType.Size",
	"fe_data_type_bits":            "DataType.Bits",
	"fe_data_type_string":          "DataType.String",
	"fe_status_string":             "Status.String",
}

var goObjects = [][2]string{
	{"graph_", "Graph"}, {"tensor_", "Tensor"}, {"handle_", "Handle"}, {"buffer_", "DeviceBuffer"},
	{"kernel_cache_", "KernelCache"}, {"plan_cache_", "PlanCache"},
}

// Functions the library's advice names; only these are translated inside a message, so that the
// names of structs and fields (fe_conv_options, ...) stay as they are.
var adviceNames = regexp.MustCompile(`\bfe_(?:tensor_set_(?:output|strides|data_type|dims|name|uid|alignment|ragged_offset)` +
	`|graph_(?:build(?:_operation_graph|_plans|_plan_at_index)?|validate|check_support` +
	`|create_execution_plans|set_device_properties|select_plan|autotune|warmup|execute|describe` +
	`|set_kernel_cache|serialize|deserialize|tensor|scalar|constant)` +
	`|handle_(?:create|set_stream|set_cache_directory)|buffer_create(?:_for_tensor)?` +
	`|log_set_level|log_set_callback|device_enable_peer_access|strides_packed|strides_channels_last)\b`)

// methodName is the Go function or method that calls the C function: "Graph.ConvFprop" for
// fe_graph_conv_fprop, "cudnnfe.NewGraph" for fe_graph_create.
func methodName(function string) string {
	if known, ok := goNames[function]; ok {
		return known
	}
	if !strings.HasPrefix(function, "fe_") {
		return function
	}
	rest := function[3:]
	owner := "cudnnfe"
	for _, o := range goObjects {
		if strings.HasPrefix(rest, o[0]) {
			owner, rest = o[1], rest[len(o[0]):]
			break
		}
	}
	// An option struct's setter: fe_conv_options_set_stride -> ConvOptions.Stride.
	if i := strings.Index(rest, "_options_set_"); owner == "cudnnfe" && i > 0 {
		owner, rest = pascalName(rest[:i])+"Options", rest[i+len("_options_set_"):]
	}
	rest = strings.TrimPrefix(rest, "get_")
	return owner + "." + pascalName(rest)
}

// translateNames is the message with the C functions its advice names replaced by their Go names.
func translateNames(text string) string {
	return adviceNames.ReplaceAllStringFunc(text, methodName)
}

func pascalName(snake string) string {
	var out strings.Builder
	for _, p := range strings.Split(snake, "_") {
		if p != "" {
			out.WriteString(strings.ToUpper(p[:1]) + p[1:])
		}
	}
	return out.String()
}
