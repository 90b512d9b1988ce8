#include "store/plan_json.hpp"

#include <mutex>
#include <new>

#include "backend/loader.hpp"
#include "common/error.hpp"

namespace fe {

std::string plan_to_json(const Descriptor &plan) {
    // Graphs built from the plan cache share one plan descriptor, and cuDNN's JSON getter is not
    // safe on one descriptor from two threads (a data race inside cuDNN): one at a time.
    static std::mutex one_at_a_time;
    std::lock_guard<std::mutex> lock(one_at_a_time);
    const Cudnn &api = cudnn();
    int64_t size = 0;
    check_cudnn(api.cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
                                             CUDNN_TYPE_CHAR, 0, &size, nullptr),
                "sizing CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION");
    FE_CHECK(size > 0, FE_STATUS_NOT_SUPPORTED, "cuDNN gives no serialization for this plan");
    std::string json(static_cast<size_t>(size), '\0');
    check_cudnn(api.cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
                                             CUDNN_TYPE_CHAR, size, &size, &json[0]),
                "reading CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION");
    json.resize(static_cast<size_t>(size));
    while (!json.empty() && json.back() == '\0') json.pop_back();
    return json;
}

namespace {

// Hand cuDNN the plan's JSON and finalize it. The JSON comes from a blob or a cache file whose
// target and cuDNN version already matched, so any failure here (a status, or an exception
// cuDNN lets through its C API on malformed JSON) means the bytes are corrupt.
void load_plan_json(Descriptor &plan, const std::string &json) {
    const char *corrupt = "the serialized plan is corrupt: cuDNN cannot load it";
    try {
        plan.set(CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, static_cast<int64_t>(json.size()),
                 json.data(), "CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION");
        plan.finalize("loading a serialized execution plan", FE_STATUS_INVALID_ARGUMENT);
    } catch (const Error &e) {
        fail(FE_STATUS_INVALID_ARGUMENT, format("%s (%s)", corrupt, e.what()));
    } catch (const std::bad_alloc &) {
        throw;
    } catch (const std::exception &e) {
        fail(FE_STATUS_INVALID_ARGUMENT, format("%s (it threw: %s)", corrupt, e.what()));
    } catch (...) {
        fail(FE_STATUS_INVALID_ARGUMENT, format("%s (it threw an unknown exception)", corrupt));
    }
}

}  // namespace

int64_t loaded_plan_workspace(const Descriptor &plan) {
    int64_t needed = plan.get_int64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, "CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE");
    FE_CHECK(needed >= 0 && needed < FE_SERIALIZED_MAX_WORKSPACE_BYTES, FE_STATUS_INVALID_ARGUMENT,
             "the serialized plan is corrupt (cuDNN reports a workspace of %lld bytes for it)",
             static_cast<long long>(needed));
    return needed;
}

std::shared_ptr<const Descriptor> plan_from_json(const std::string &json, cudnnHandle_t handle,
                                                 const std::string &device_properties_json) {
    Descriptor plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    Descriptor props;
    if (handle) {
        // CUDNN_ATTR_EXECUTION_PLAN_HANDLE (400): deprecated for plans made from engine configs,
        // still how a plan loaded from JSON learns its handle. By number: the name warns.
        plan.set(static_cast<cudnnBackendAttributeName_t>(400), CUDNN_TYPE_HANDLE, 1, &handle, "CUDNN_ATTR_EXECUTION_PLAN_HANDLE");
    } else {
        FE_CHECK(!device_properties_json.empty(), FE_STATUS_BAD_STATE,
                 "loading a plan needs a handle (a GPU) or device properties");
        props = Descriptor(CUDNN_BACKEND_DEVICEPROP_DESCRIPTOR);
        props.set(CUDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
                  static_cast<int64_t>(device_properties_json.size()), device_properties_json.data(),
                  "CUDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION");
        props.finalize("loading the device properties JSON", FE_STATUS_INVALID_ARGUMENT);
        plan.set_desc(CUDNN_ATTR_EXECUTION_PLAN_DEVICEPROP, props, "CUDNN_ATTR_EXECUTION_PLAN_DEVICEPROP");
    }
    load_plan_json(plan, json);
    return std::make_shared<const Descriptor>(std::move(plan));
}

}  // namespace fe
