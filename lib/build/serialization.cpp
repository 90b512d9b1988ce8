#include "build/serialization.hpp"

#include <memory>

#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "store/blob.hpp"
#include "build/build_graph.hpp"
#include "plan/build_state.hpp"
#include "plan/device_properties.hpp"
#include "serial/graph_json.hpp"
#include "store/plan_check.hpp"
#include "store/plan_json.hpp"
#include "store/plan_record.hpp"
#include "runtime/handle.hpp"

namespace fe {

std::vector<unsigned char> serialize_graph(const fe_graph &graph) {
    std::shared_ptr<const PlanRecord> record = record_of(graph);
    const BuildState &state = *graph.build;
    Blob blob;
    blob.library_version = FE_VERSION;
    blob.cudnn_version = cudnn().cudnnGetVersion();
    blob.fingerprint = state.fingerprint;
    blob.device_json = state.device_json;
    blob.graph_json = graph_to_json(graph);
    blob.build_options = state.options_text;
    blob.plan_json = plan_to_json(*record->plan);
    blob.record = *record;
    return write_blob(blob);
}

namespace {

std::string version_text(uint64_t v) {
    return format("%llu.%llu.%llu", static_cast<unsigned long long>(v / 10000),
                  static_cast<unsigned long long>(v / 100 % 100), static_cast<unsigned long long>(v % 100));
}

// Blobs of this major version, up to this release: a later release may record more than this
// one knows to read, another major version may lay the record out differently.
void check_library_version(uint32_t written_by) {
    uint32_t oldest = FE_VERSION_MAJOR * 10000;
    FE_CHECK(written_by >= oldest && written_by <= FE_VERSION, FE_STATUS_NOT_SUPPORTED,
             "the serialized graph was written by cudnnfe %s; this cudnnfe reads those written by cudnnfe %s to %s",
             version_text(written_by).c_str(), version_text(oldest).c_str(), version_text(FE_VERSION).c_str());
}

}  // namespace

fe_graph *deserialize_graph(fe_handle *handle, const unsigned char *data, size_t size,
                            const fe_deserialize_options &options) {
    FE_CHECK(options.on_mismatch == FE_MISMATCH_REFUSE || options.on_mismatch == FE_MISMATCH_REBUILD,
             FE_STATUS_INVALID_ARGUMENT, "unknown mismatch policy %d", static_cast<int>(options.on_mismatch));
    Blob blob = read_blob(data, size);
    check_library_version(blob.library_version);
    if (options.device_properties_json)
        check_device_description(options.device_properties_json, "options.device_properties_json");
    std::string device_json = options.device_properties_json ? options.device_properties_json : "";
    FE_CHECK(handle || !device_json.empty(), FE_STATUS_NULL_POINTER,
             "argument 'handle' is NULL and options give no device properties");
    if (device_json.empty()) device_json = handle_device_json(*handle);
    std::string fingerprint = device_fingerprint(device_json);
    uint64_t cudnn_now = cudnn().cudnnGetVersion();

    std::string mismatch;
    if (blob.cudnn_version != cudnn_now)
        mismatch = format("it was built with cuDNN %s and this process has cuDNN %s", version_text(blob.cudnn_version).c_str(),
                          version_text(cudnn_now).c_str());
    else if (!same_plan_target(blob.fingerprint, fingerprint))
        mismatch = format("it was built for '%s' and the target is '%s'", blob.fingerprint.c_str(), fingerprint.c_str());

    std::unique_ptr<fe_graph> graph = graph_from_json(blob.graph_json);
    // The target is the options' device or the handle's GPU, never the one the graph was built for.
    graph->device_properties_json = options.device_properties_json ? device_json : std::string();
    if (!mismatch.empty()) {
        FE_CHECK(options.on_mismatch == FE_MISMATCH_REBUILD, FE_STATUS_NOT_SUPPORTED,
                 "the serialized graph '%s' cannot be loaded: %s (FE_MISMATCH_REBUILD rebuilds it)", graph->name.c_str(),
                 mismatch.c_str());
        FE_LOG_INFO("graph '%s': %s; rebuilding", graph->name.c_str(), mismatch.c_str());
        fe_build_options build = FE_BUILD_OPTIONS_INIT;
        build_graph(*graph, handle, build);
        return graph.release();
    }
    graph->validate();
    graph->assign_uids();
    bool deviceless = options.device_properties_json != nullptr;
    adopt_record(*graph,
                 checked_record(*graph, blob.record, blob.plan_json, deviceless ? nullptr : handle,
                                deviceless ? device_json : std::string(), described_gpu(device_json)),
                 "serialized graph");
    BuildState &state = *graph->build;
    state.device_json = device_json;
    state.fingerprint = fingerprint;
    state.options_text = blob.build_options;
    return graph.release();
}

std::string describe_serialized(const unsigned char *data, size_t size) {
    Blob blob = read_blob(data, size);
    const PlanRecord &r = blob.record;
    std::string out;
    out += format("cudnnfe serialized graph, format %u, %zu bytes\n", blob.format, size);
    out += format("built by: cudnnfe %s with cuDNN %s\n", version_text(blob.library_version).c_str(),
                  version_text(blob.cudnn_version).c_str());
    out += format("target: %s\n", blob.fingerprint.c_str());
    out += format("build options: %s\n", blob.build_options.c_str());
    out += format("plan: %s (engine %lld), workspace %lld bytes", r.tag.c_str(), static_cast<long long>(r.engine_index),
                  static_cast<long long>(r.workspace));
    if (!r.workspace_tensors.empty())
        out += format(" + %lld bytes of workspace tensors", static_cast<long long>(r.workspace_tensor_bytes));
    out += "\n";
    if (r.autotuned) out += format("autotuned: %.2f us median\n", r.time_us);
    for (const auto &a : r.attention)
        out += format("attention '%s': %s\n", a.first.c_str(), a.second ? "native" : "composite");
    out += format("constants: %zu by-value scalar(s), %zu made by lowering\n", r.by_value_uids.size(),
                  r.internal_scalars.size());
    out += format("cuDNN plan: %zu bytes of JSON\n", blob.plan_json.size());
    out += "graph:\n" + blob.graph_json;
    if (out.back() != '\n') out += "\n";
    return out;
}

}  // namespace fe
