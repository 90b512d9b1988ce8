package dev.cudnnfe;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Java names of the C functions: an error names the method the caller called (Graph.convFprop,
 * not fe_graph_conv_fprop), and advice in a message ("mark a result with fe_tensor_set_output")
 * names the Java method to call instead. A C function is named by its object (fe_graph_ -> Graph,
 * fe_tensor_ -> Tensor, ...) and the rest in camel case (a getter without its get_); the table
 * holds the functions whose Java method is named otherwise.
 */
final class ApiNames {
    private ApiNames() {}

    private static final Map<String, String> METHODS = Map.ofEntries(
            Map.entry("fe_graph_create", "Graph.create"),
            Map.entry("fe_graph_input_count", "Graph.inputs"),
            Map.entry("fe_graph_input", "Graph.inputs"),
            Map.entry("fe_graph_output_count", "Graph.outputs"),
            Map.entry("fe_graph_output", "Graph.outputs"),
            Map.entry("fe_graph_engine_knobs", "Graph.engineKnobs"),
            Map.entry("fe_graph_add_candidate", "Graph.addCandidate"),
            Map.entry("fe_serialized_describe", "Graph.describeSerialized"),
            Map.entry("fe_tensor_get_ndims", "Tensor.rank"),
            Map.entry("fe_buffer_create", "DeviceBuffer.allocate"),
            Map.entry("fe_buffer_create_for_tensor", "DeviceBuffer.forTensor"),
            Map.entry("fe_buffer_upload_float", "DeviceBuffer.upload"),
            Map.entry("fe_buffer_download_float", "DeviceBuffer.download"),
            Map.entry("fe_buffer_fill_bytes", "DeviceBuffer.fill"),
            Map.entry("fe_handle_create", "Handle.create"),
            Map.entry("fe_plan_cache_evictions", "PlanCache.stats"),
            Map.entry("fe_device_properties_capture", "CudnnFe.capturedDeviceProperties"),
            Map.entry("fe_device_enable_peer_access", "CudnnFe.enablePeerAccess"),
            Map.entry("fe_log_set_level", "CudnnFe.setLogLevel"),
            Map.entry("fe_log_set_callback", "Logging.routeTo"),
            Map.entry("fe_data_type_size", "DataType.size"),
            Map.entry("fe_data_type_bits", "DataType.bits"),
            Map.entry("fe_data_type_string", "DataType.libraryName"),
            Map.entry("fe_status_string", "Status.libraryName"));

    private static final String[][] OBJECTS = {
        {"graph_", "Graph"}, {"tensor_", "Tensor"}, {"handle_", "Handle"}, {"buffer_", "DeviceBuffer"},
        {"kernel_cache_", "KernelCache"}, {"plan_cache_", "PlanCache"},
    };

    // Functions the library's advice names; only these are translated inside a message, so that
    // the names of structs and fields (fe_conv_options, ...) stay as they are.
    private static final Pattern ADVICE = Pattern.compile(
            "\\bfe_(?:tensor_set_(?:output|strides|data_type|dims|name|uid|alignment|ragged_offset)"
            + "|graph_(?:build(?:_operation_graph|_plans|_plan_at_index)?|validate|check_support"
            + "|create_execution_plans|set_device_properties|select_plan|autotune|warmup|execute|describe"
            + "|set_kernel_cache|serialize|deserialize|tensor|scalar|constant)"
            + "|handle_(?:create|set_stream|set_cache_directory)|buffer_create(?:_for_tensor)?"
            + "|log_set_level|log_set_callback|device_enable_peer_access|strides_packed|strides_channels_last)\\b");

    /** The Java method that calls the C function: "Graph.convFprop" for fe_graph_conv_fprop. */
    static String method(String function) {
        String known = METHODS.get(function);
        if (known != null) return known;
        if (!function.startsWith("fe_")) return function;
        String rest = function.substring(3);
        String owner = "CudnnFe";
        for (String[] object : OBJECTS) {
            if (rest.startsWith(object[0])) {
                owner = object[1];
                rest = rest.substring(object[0].length());
                break;
            }
        }
        // An option struct's setter: fe_conv_options_set_stride -> ConvOptions.stride.
        int options = rest.indexOf("_options_set_");
        if (owner.equals("CudnnFe") && options > 0) {
            owner = pascal(rest.substring(0, options)) + "Options";
            rest = rest.substring(options + "_options_set_".length());
        }
        if (rest.startsWith("get_")) rest = rest.substring(4);
        String name = pascal(rest);
        return owner + "." + Character.toLowerCase(name.charAt(0)) + name.substring(1);
    }

    /** The message with the C functions its advice names replaced by their Java methods. */
    static String translate(String text) {
        Matcher m = ADVICE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) m.appendReplacement(out, Matcher.quoteReplacement(method(m.group())));
        m.appendTail(out);
        return out.toString();
    }

    private static String pascal(String snake) {
        StringBuilder out = new StringBuilder();
        for (String part : snake.split("_")) {
            if (part.isEmpty()) continue;
            out.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
        }
        return out.toString();
    }
}
