// Capturing cuDNN's description of a live GPU, for deviceless builds on other machines.
#include "plan/device_properties.hpp"

#include <cstdlib>

#include "backend/capabilities.hpp"
#include "backend/descriptor.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "graph/graph.hpp"
#include "runtime/handle.hpp"
#include "common/json.hpp"

namespace fe {

std::string capture_device_properties(int32_t device) {
    const Cudnn &api = cudnn();
    require(Feature::deviceless_plans, static_cast<int64_t>(api.cudnnGetVersion()));
    use_device(device);
    Descriptor props(CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR);
    int32_t id = device;
    props.set(CUDNN_ATTR_DEVICEPROP_DEVICE_ID, CUDNN_TYPE_INT32, 1, &id, "CUDNN_ATTR_DEVICEPROP_DEVICE_ID");
    props.finalize("reading the device's properties", FE_STATUS_CUDNN_ERROR);
    int64_t size = 0;
    check_cudnn(api.cudnnBackendGetAttribute(props.get(), CUDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
                                             0, &size, nullptr),
                "sizing CUDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION");
    std::string json(static_cast<size_t>(size), '\0');
    check_cudnn(api.cudnnBackendGetAttribute(props.get(), CUDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
                                             size, &size, &json[0]),
                "reading CUDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION");
    while (!json.empty() && json.back() == '\0') json.pop_back();
    return json;
}

}  // namespace fe

namespace fe {

namespace {

// The text of a top-level "key": value in cuDNN's flat device JSON ("" when absent).
std::string json_field(const std::string &json, const char *key) {
    std::string needle = std::string("\"") + key + "\":";
    size_t at = json.find(needle);
    if (at == std::string::npos) return "";
    size_t start = at + needle.size(), end = start;
    if (end < json.size() && json[end] == '"') {
        end = json.find('"', start + 1);
        return end == std::string::npos ? "" : json.substr(start + 1, end - start - 1);
    }
    while (end < json.size() && json[end] != ',' && json[end] != '}') ++end;
    return json.substr(start, end - start);
}

}  // namespace

void check_device_description(const char *json, const char *what) {
    json::Document document;
    try {
        document = json::parse(json);
    } catch (const Error &e) {
        FE_FAIL(FE_STATUS_INVALID_ARGUMENT, "%s: not JSON (%s)", what, e.what());
    }
    const json::Value &v = document.root();
    FE_CHECK(v.type() == json::Type::Object, FE_STATUS_INVALID_ARGUMENT, "%s: not a JSON object", what);
    const json::Value *name = v.find("deviceName"), *version = v.find("deviceVer");
    FE_CHECK(name && name->type() == json::Type::String && version && version->is_integer(), FE_STATUS_INVALID_ARGUMENT,
             "%s: not a GPU description: it lacks \"deviceName\" or \"deviceVer\" (capture one with "
             "fe_device_properties_capture on the target)",
             what);
}

std::string device_fingerprint(const std::string &device_json) {
    return json_field(device_json, "deviceName") + ", sm " + json_field(device_json, "deviceVer") + ", " +
           json_field(device_json, "multiProcessorCount") + " SMs, " +
           json_field(device_json, "maxSharedMemoryPerBlockOptin") + " B shared";
}

bool same_plan_target(const std::string &built_for, const std::string &target) {
    // Fingerprints read "<name>, sm ..."; a name may hold ", sm " itself, so the last one starts the rest.
    auto without_name = [](const std::string &fingerprint) {
        size_t at = fingerprint.rfind(", sm ");
        return at == std::string::npos ? fingerprint : fingerprint.substr(at + 2);
    };
    return without_name(built_for) == without_name(target);
}

namespace {
// A whole number field in (0, limit], else 0.
int positive_field(const std::string &device_json, const char *key, long limit) {
    std::string text = json_field(device_json, key);
    char *end = nullptr;
    long value = std::strtol(text.c_str(), &end, 10);
    return text.empty() || *end != '\0' || value <= 0 || value > limit ? 0 : static_cast<int>(value);
}
}  // namespace

TargetGpu described_gpu(const std::string &device_json) {
    TargetGpu gpu;
    gpu.generation = positive_field(device_json, "deviceVer", 10000) / 10;
    gpu.sm_count = positive_field(device_json, "multiProcessorCount", 1 << 20);
    return gpu;
}

TargetGpu target_gpu(const fe_graph &graph, fe_handle *handle) {
    if (!graph.device_properties_json.empty()) return described_gpu(graph.device_properties_json);
    return handle ? described_gpu(handle_device_json(*handle)) : TargetGpu{};
}

const std::string &handle_device_json(fe_handle &handle) {
    if (handle.device_json.empty()) handle.device_json = capture_device_properties(handle.device);
    return handle.device_json;
}

const std::string &handle_fingerprint(fe_handle &handle) {
    if (handle.fingerprint.empty()) handle.fingerprint = device_fingerprint(handle_device_json(handle));
    return handle.fingerprint;
}

}  // namespace fe
