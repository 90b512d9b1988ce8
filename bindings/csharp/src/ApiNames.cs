using System.Collections.Generic;
using System.Text;
using System.Text.RegularExpressions;

namespace CudnnFe
{
    /// <summary>
    /// The C# names of the C functions: an error names the method the caller called
    /// (Graph.ConvFprop, not fe_graph_conv_fprop), and advice in a message ("mark a result with
    /// fe_tensor_set_output") names the C# method to call instead. A C function is named by its
    /// object (fe_graph_ -> Graph, fe_tensor_ -> Tensor, ...) and the rest in Pascal case (a getter
    /// without its get_); the table holds the functions whose C# member is named otherwise.
    /// </summary>
    internal static class ApiNames
    {
        private static readonly Dictionary<string, string> Methods = new Dictionary<string, string>
        {
            ["fe_graph_create"] = "new Graph",
            ["fe_handle_create"] = "new Handle",
            ["fe_kernel_cache_create"] = "new KernelCache",
            ["fe_graph_input_count"] = "Graph.Inputs",
            ["fe_graph_input"] = "Graph.Inputs",
            ["fe_graph_output_count"] = "Graph.Outputs",
            ["fe_graph_output"] = "Graph.Outputs",
            ["fe_graph_candidate_info"] = "Graph.GetCandidateInfo",
            ["fe_graph_plan_info"] = "Graph.GetPlanInfo",
            ["fe_graph_candidate_notes"] = "Graph.GetCandidateNotes",
            ["fe_serialized_describe"] = "Graph.DescribeSerialized",
            ["fe_tensor_get_ndims"] = "Tensor.Rank",
            ["fe_tensor_set_name"] = "Tensor.Name",
            ["fe_handle_set_stream"] = "Handle.Stream",
            ["fe_buffer_create"] = "DeviceBuffer.Allocate",
            ["fe_buffer_create_for_tensor"] = "DeviceBuffer.For",
            ["fe_buffer_upload_float"] = "DeviceBuffer.Upload",
            ["fe_buffer_download_float"] = "DeviceBuffer.Download",
            ["fe_buffer_fill_bytes"] = "DeviceBuffer.Fill",
            ["fe_plan_cache_evictions"] = "PlanCache.Stats",
            ["fe_device_properties_capture"] = "Library.CapturedDeviceProperties",
            ["fe_device_enable_peer_access"] = "Library.EnablePeerAccess",
            ["fe_log_set_level"] = "Library.SetLogLevel",
            ["fe_log_set_callback"] = "Logging.RouteTo",
            ["fe_data_type_size"] = "DataType.Size",
            ["fe_data_type_bits"] = "DataType.Bits",
            ["fe_data_type_string"] = "DataType.LibraryName",
            ["fe_status_string"] = "Status.LibraryName",
        };

        private static readonly string[,] Objects =
        {
            {"graph_", "Graph"}, {"tensor_", "Tensor"}, {"handle_", "Handle"}, {"buffer_", "DeviceBuffer"},
            {"kernel_cache_", "KernelCache"}, {"plan_cache_", "PlanCache"},
        };

        // Functions the library's advice names; only these are translated inside a message, so
        // that the names of structs and fields (fe_conv_options, ...) stay as they are.
        private static readonly Regex Advice = new Regex(
            @"\bfe_(?:tensor_set_(?:output|strides|data_type|dims|name|uid|alignment|ragged_offset)"
            + @"|graph_(?:build(?:_operation_graph|_plans|_plan_at_index)?|validate|check_support"
            + @"|create_execution_plans|set_device_properties|select_plan|autotune|warmup|execute|describe"
            + @"|set_kernel_cache|serialize|deserialize|tensor|scalar|constant)"
            + @"|handle_(?:create|set_stream|set_cache_directory)|buffer_create(?:_for_tensor)?"
            + @"|log_set_level|log_set_callback|device_enable_peer_access|strides_packed|strides_channels_last)\b");

        /// <summary>The C# member that calls the C function: "Graph.ConvFprop" for fe_graph_conv_fprop.</summary>
        internal static string Method(string function)
        {
            if (Methods.TryGetValue(function, out string known)) return known;
            if (!function.StartsWith("fe_")) return function;
            string rest = function.Substring(3);
            string owner = "Library";
            for (int i = 0; i < Objects.GetLength(0); ++i)
            {
                if (rest.StartsWith(Objects[i, 0]))
                {
                    owner = Objects[i, 1];
                    rest = rest.Substring(Objects[i, 0].Length);
                    break;
                }
            }
            // An option struct's setter: fe_conv_options_set_stride -> ConvOptions.Stride.
            int options = rest.IndexOf("_options_set_");
            if (owner == "Library" && options > 0)
            {
                owner = Pascal(rest.Substring(0, options)) + "Options";
                rest = rest.Substring(options + "_options_set_".Length);
            }
            if (rest.StartsWith("get_")) rest = rest.Substring(4);
            return owner + "." + Pascal(rest);
        }

        /// <summary>The message with the C functions its advice names replaced by their C# members.</summary>
        internal static string Translate(string text) => Advice.Replace(text, m => Method(m.Value));

        private static string Pascal(string snake)
        {
            var text = new StringBuilder();
            foreach (string part in snake.Split('_'))
                if (part.Length > 0) text.Append(char.ToUpperInvariant(part[0])).Append(part.Substring(1));
            return text.ToString();
        }
    }
}
