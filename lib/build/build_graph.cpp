#include "build/build_graph.hpp"
#include "common/environment.hpp"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "graph/graph_facts.hpp"
#include "plan/autotune.hpp"
#include "store/blob.hpp"
#include "plan/build_state.hpp"
#include "plan/device_properties.hpp"
#include "plan/engine_knobs.hpp"
#include "plan/kernel_cache.hpp"
#include "store/plan_check.hpp"
#include "serial/graph_json.hpp"
#include "store/plan_cache.hpp"
#include "store/plan_json.hpp"
#include "store/plan_record.hpp"
#include "runtime/handle.hpp"

namespace fe {

namespace {

std::vector<fe_heur_mode> modes_of(const fe_build_options &o) {
    if (!o.heur_modes || o.num_heur_modes == 0) return {FE_HEUR_MODE_A, FE_HEUR_MODE_FALLBACK};
    return std::vector<fe_heur_mode>(o.heur_modes, o.heur_modes + o.num_heur_modes);
}

// The numerical notes a build deselects: the options' mask, with the nondeterministic note when
// the options ask for deterministic engines.
int64_t deselected_numerical_notes(const fe_build_options &o) {
    return o.deselect_numerical_notes | (o.deterministic ? int64_t(FE_NUMERICAL_NOTE_NONDETERMINISTIC) : 0);
}

// Everything in the options that changes which plan is built (not the cache switches or the
// number of threads building plans).
std::string options_text(const fe_build_options &o, bool dynamic_shapes) {
    std::string text = "modes";
    for (fe_heur_mode m : modes_of(o)) text += format(" %d", static_cast<int>(m));
    text += format("; policy %d; max workspace %lld", static_cast<int>(o.policy), static_cast<long long>(o.max_workspace_bytes));
    if (o.autotune) text += format("; autotune %d", o.autotune_candidates > 0 ? o.autotune_candidates : 8);
    if (o.autotune && o.autotune_knob_search > 0) text += format("; knob search %d", o.autotune_knob_search);
    int64_t deselect_numerical = deselected_numerical_notes(o);
    if (deselect_numerical || o.deselect_behavior_notes || o.require_numerical_notes || o.require_behavior_notes)
        text += format("; notes -%llx -%llx +%llx +%llx", static_cast<unsigned long long>(deselect_numerical),
                       static_cast<unsigned long long>(o.deselect_behavior_notes),
                       static_cast<unsigned long long>(o.require_numerical_notes),
                       static_cast<unsigned long long>(o.require_behavior_notes));
    if (o.deselect_engines && *o.deselect_engines) text += std::string("; not engines ") + o.deselect_engines;
    if (o.max_shared_memory_bytes > 0)
        text += format("; max shared memory %lld", static_cast<long long>(o.max_shared_memory_bytes));
    if (o.sm_count_target > 0) text += format("; sm count %d", o.sm_count_target);
    if (dynamic_shapes) text += "; dynamic shapes";
    return text;
}

std::string configured_cache_directory(const fe_handle *handle) {
    if (handle && handle->cache_mode == fe_handle::CacheDirectory::Off) return "";
    if (handle && handle->cache_mode == fe_handle::CacheDirectory::Set) return handle->cache_directory;
    const char *env = environment("CUDNNFE_CACHE_DIR");
    return env ? env : "";
}

// The cache directory this build reads and writes, or "" for none. One that other users could
// plant entries in is left out (and the log says why): a cache never stops a build.
std::string cache_directory(const fe_handle *handle) {
    std::string directory = configured_cache_directory(handle);
    if (directory.empty()) return directory;
    std::string why;
    std::string usable = private_cache_directory(directory, &why);
    if (usable.empty()) FE_LOG_WARN("fe_graph_build: plan cache directory %s is not used: %s", directory.c_str(), why.c_str());
    return usable;
}

int64_t cache_limit(const fe_handle *handle) { return handle ? handle->cache_limit_bytes : int64_t(1) << 30; }

// The plan cache's key: the graph's facts (graph/graph_facts.hpp, taken from the graph in memory),
// then the options that decide the plan, the target's fingerprint and the versions. Kept whole, not
// hashed: a lookup compares it, so no two builds can share a plan by a collision.
std::string cache_key(std::string key, const std::string &options, const std::string &fingerprint) {
    static const std::string versions = format("\ncuDNN %zu\ncudnnfe %d", cudnn().cudnnGetVersion(), FE_VERSION);
    key.reserve(key.size() + options.size() + fingerprint.size() + versions.size() + 2);
    key += '\n';
    key += options;
    key += '\n';
    key += fingerprint;
    key += versions;
    return key;
}

// The target of a build: the described GPU (deviceless) or the handle's.
void target_of(const fe_graph &graph, fe_handle *handle, std::string *device_json, std::string *fingerprint) {
    if (!graph.device_properties_json.empty()) {
        *device_json = graph.device_properties_json;
        *fingerprint = device_fingerprint(*device_json);
    } else {
        FE_CHECK(handle != nullptr, FE_STATUS_BAD_STATE,
                 "graph '%s' needs a handle (a GPU) or device properties to build for", graph.name.c_str());
        *device_json = handle_device_json(*handle);
        *fingerprint = handle_fingerprint(*handle);
    }
}

// Where a build's plan may be found and kept: the in-process cache under `key` (the graph, options
// and GPU kind, shared by every GPU of the kind) and `device_key` (finalized for the handle's
// device), the cache directory, and a caller's own key.
struct CacheKeys {
    std::string options, directory;
    std::string key, device_key, device_json, fingerprint;
    bool on_gpu = false;
    // The graph's JSON text, written only for what needs it (a caller's key; the cache directory,
    // once the in-process cache has missed): the key does not.
    std::string graph_json;
};

// Load an entry of the cache directory, or nullptr (a missing entry, or one rejected as
// corrupt, stale or for another key, which is then removed).
std::shared_ptr<const PlanRecord> load_from_directory(const std::string &path, const CacheKeys &keys,
                                                      fe_graph &graph, fe_handle *handle, bool want_autotuned) {
    std::vector<unsigned char> bytes = read_cache_file(path);
    if (bytes.empty()) return nullptr;
    try {
        Blob blob = read_blob(bytes.data(), bytes.size());
        // Named by the key, it must hold what the key was taken from (a file of the same name
        // may hold anything): the graph, options and target, written by this cudnnfe and cuDNN.
        FE_CHECK(blob.graph_json == keys.graph_json && blob.build_options == keys.options &&
                     blob.fingerprint == keys.fingerprint,
                 FE_STATUS_INVALID_ARGUMENT, "it holds another graph or target");
        FE_CHECK(blob.library_version == FE_VERSION && blob.cudnn_version == cudnn().cudnnGetVersion(),
                 FE_STATUS_INVALID_ARGUMENT, "it was written by cudnnfe %u with cuDNN %llu",
                 blob.library_version, static_cast<unsigned long long>(blob.cudnn_version));
        if (want_autotuned && !blob.record.autotuned) return nullptr;  // rebuilt, autotuned, replaced
        bool deviceless = !graph.device_properties_json.empty();
        return checked_record(graph, blob.record, blob.plan_json, deviceless ? nullptr : handle,
                              graph.device_properties_json, described_gpu(keys.device_json));
    } catch (const Error &e) {
        FE_LOG_WARN("plan cache: rejected %s (%s); rebuilding", path.c_str(), e.what());
        count(CacheEvent::Rejected);
        remove_cache_file(path);
        return nullptr;
    }
}

// The options' deselections, in the order the step-by-step calls make them.
void apply_selection(fe_graph &graph, const fe_build_options &o) {
    if (o.max_workspace_bytes >= 0) deselect_workspace_greater_than(graph, o.max_workspace_bytes);
    int64_t deselect_numerical = deselected_numerical_notes(o);
    if (deselect_numerical || o.deselect_behavior_notes || o.require_numerical_notes || o.require_behavior_notes)
        select_by_notes(graph, static_cast<uint64_t>(deselect_numerical), static_cast<uint64_t>(o.deselect_behavior_notes),
                        static_cast<uint64_t>(o.require_numerical_notes), static_cast<uint64_t>(o.require_behavior_notes));
    if (o.deselect_engines && *o.deselect_engines) deselect_engines(graph, o.deselect_engines);
    if (o.max_shared_memory_bytes > 0) deselect_shared_memory_greater_than(graph, o.max_shared_memory_bytes);
}

// A dynamic-shape graph whose kernel cache holds engine configs builds from one of them without
// asking heuristics (most of what such a build costs): the configs the cache holds become the
// candidates, most recently built first. False, with the graph back at its operation graph, when
// none of them runs this graph: the build then searches as usual.
bool built_from_cached_configs(fe_graph &graph, const fe_build_options &o) {
    std::vector<std::string> tags;
    {
        std::lock_guard<std::mutex> lock(graph.kernel_cache->mutex);
        tags = graph.kernel_cache->compiled;
    }
    BuildState &state = *graph.build;
    for (const std::string &tag : tags) {
        int64_t engine = -1;
        std::vector<Knob> knobs;
        std::string why;
        if (!config_of_tag(tag, &engine, &knobs) || engine >= state.lowered.engine_count) continue;
        try {
            add_engine_candidate(graph, engine, knobs, &why);
        } catch (const Error &e) {
            // A cache shared by graphs of several structures holds configs of engines that do not
            // run this one.
            FE_LOG_DEBUG("graph '%s': the kernel cache's %s does not run it (%s)", graph.name.c_str(), tag.c_str(),
                         e.what());
        }
    }
    if (state.search.candidates.empty()) return false;
    graph.stage = fe_graph::Stage::Candidates;
    try {
        apply_selection(graph, o);
        check_support(graph);
        build_plans(graph, FE_BUILD_POLICY_HEURISTICS_CHOICE);
        FE_LOG_INFO("graph '%s': built from an engine config its kernel cache holds (%s)", graph.name.c_str(),
                    state.executable.chosen().tag.c_str());
        return true;
    } catch (const Error &e) {
        FE_LOG_INFO("graph '%s': no engine config its kernel cache holds built it (%s); asking heuristics",
                    graph.name.c_str(), e.what());
        state.search.candidates.clear();
        state.search.plan_failures.clear();
        state.executable.plans.clear();
        graph.stage = fe_graph::Stage::OperationGraph;
        return false;
    }
}

}  // namespace

std::string persistent_cache_directory(const fe_handle *handle) { return cache_directory(handle); }
int64_t persistent_cache_limit(const fe_handle *handle) { return cache_limit(handle); }

void note_target(fe_graph &graph, fe_handle *handle, const char *options) {
    BuildState &state = *graph.build;
    target_of(graph, handle, &state.device_json, &state.fingerprint);
    state.options_text = options;
    state.executable.device = handle && graph.device_properties_json.empty() ? handle->device : -1;
    if (graph.kernel_cache) {
        KernelCache &cache = *graph.kernel_cache;
        std::lock_guard<std::mutex> lock(cache.mutex);
        if (cache.fingerprint.empty()) cache.fingerprint = state.fingerprint;
        FE_CHECK(same_plan_target(cache.fingerprint, state.fingerprint), FE_STATUS_INVALID_ARGUMENT,
                 "graph '%s': its kernel cache holds kernels for another kind of GPU than this build's", graph.name.c_str());
        int32_t device = state.executable.device;
        if (cache.device < 0) cache.device = device;
        FE_CHECK(device < 0 || cache.device == device, FE_STATUS_INVALID_ARGUMENT,
                 "graph '%s': its kernel cache holds kernels loaded on CUDA device %d and this build is for device %d: "
                 "give each GPU a kernel cache of its own",
                 graph.name.c_str(), cache.device, device);
    }
}

namespace {

// The plan search: heuristics' candidates, the options' deselections, then the first plan that
// builds, all of them, or the autotuned fastest.
void build_searched(fe_graph &graph, fe_handle *handle, const fe_build_options &o) {
    graph.build->sm_count_target = o.sm_count_target;
    create_execution_plans(graph, modes_of(o));
    apply_selection(graph, o);
    check_support(graph);
    int32_t threads = o.build_threads > 1 ? o.build_threads : 1;
    if (o.autotune) {
        FE_CHECK(handle && graph.device_properties_json.empty(), FE_STATUS_BAD_STATE,
                 "graph '%s': autotuning times plans on a GPU: build with a handle and no device properties",
                 graph.name.c_str());
        keep_best_candidates(graph, o.autotune_candidates > 0 ? o.autotune_candidates : 8);
        build_plans(graph, FE_BUILD_POLICY_ALL, threads);
        KnobSearch search;
        search.rounds = o.autotune_knob_search;
        search.max_workspace = o.max_workspace_bytes;
        autotune(graph, *handle, -1, 0, search);
    } else {
        build_plans(graph, o.policy, threads);
    }
}

}  // namespace

namespace {

// The keys of a cached build, or false when the graph cannot be cached (an op with no JSON form:
// neither the key nor the reader would know it).
bool cache_keys(fe_graph &graph, fe_handle *handle, const fe_build_options &o, CacheKeys *keys) {
    graph.validate();
    cudnn();
    graph.assign_uids();
    std::string facts;
    try {
        facts = graph_facts(graph);
        if (o.cache_key) keys->graph_json = graph_to_json(graph);
    } catch (const Error &e) {
        FE_LOG_INFO("graph '%s': not cached (%s)", graph.name.c_str(), e.what());
        return false;
    }
    target_of(graph, handle, &keys->device_json, &keys->fingerprint);
    keys->key = cache_key(std::move(facts), keys->options, keys->fingerprint);
    keys->on_gpu = handle && graph.device_properties_json.empty();
    // The key holds binary records: appended to, never formatted as text.
    keys->device_key = keys->on_gpu ? keys->key + format("\nCUDA device %d", handle->device) : keys->key;
    return true;
}

// The in-process cache's record for the build (its plan finalized for the handle's device), or
// null; an autotuned build takes only an autotuned one.
std::shared_ptr<const PlanRecord> memory_record(const CacheKeys &keys, fe_handle *handle, const fe_build_options &o,
                                                const char **origin) {
    auto usable = [&](const std::shared_ptr<const PlanRecord> &r) { return r && !(o.autotune && !r->autotuned); };
    std::shared_ptr<const PlanRecord> record = memory_lookup(keys.device_key);
    if (usable(record)) {
        *origin = "in-process plan cache";
        return record;
    }
    if (!keys.on_gpu) return nullptr;
    // Built for another GPU of this kind: the same plan, finalized for this one.
    std::shared_ptr<const PlanRecord> shared = memory_lookup(keys.key);
    if (!usable(shared)) return nullptr;
    record = record_for_device(shared, *handle);
    memory_store(keys.device_key, record);
    *origin = "in-process plan cache (built for another GPU of this kind)";
    return record;
}

// The plan from the in-process cache or the cache directory, adopted by the graph; false when
// neither has it.
bool adopt_cached(fe_graph &graph, fe_handle *handle, const fe_build_options &o, CacheKeys &keys) {
    const char *origin = nullptr;
    std::shared_ptr<const PlanRecord> record;
    if (o.use_plan_cache) {
        record = memory_record(keys, handle, o, &origin);
        if (record) count(CacheEvent::MemoryHit);
    }
    if (!record && !keys.directory.empty()) {
        // An entry is checked against the text, and a miss stores it (the graph is not changed
        // before then).
        if (keys.graph_json.empty()) keys.graph_json = graph_to_json(graph);
        record = load_from_directory(cache_file(keys.directory, keys.key), keys, graph, handle, o.autotune != 0);
        if (record) {
            origin = "cache directory";
            count(CacheEvent::DiskHit);
            if (o.use_plan_cache) {
                memory_store(keys.key, record);
                if (keys.on_gpu) memory_store(keys.device_key, record);
            }
        }
    }
    if (!record) return false;
    adopt_record(graph, record, origin);
    BuildState &state = *graph.build;
    state.device_json = keys.device_json;
    state.fingerprint = keys.fingerprint;
    state.options_text = keys.options;
    if (o.cache_key)
        keyed_store(o.cache_key, {keys.graph_json, keys.device_json, !graph.device_properties_json.empty(), record});
    FE_LOG_INFO("graph '%s': plan %s from the %s", graph.name.c_str(), record->tag.c_str(), origin);
    return true;
}

// A built plan kept where the build asked: in process, under the caller's key, in the directory.
void store_built(const fe_graph &graph, fe_handle *handle, const fe_build_options &o, const CacheKeys &keys) {
    std::shared_ptr<const PlanRecord> record = record_of(graph);
    if (o.use_plan_cache) {
        memory_store(keys.key, record);
        if (keys.on_gpu) memory_store(keys.device_key, record);
    }
    if (o.cache_key)
        keyed_store(o.cache_key, {keys.graph_json, keys.device_json, !graph.device_properties_json.empty(), record});
    if (keys.directory.empty()) return;
    try {
        Blob blob;
        blob.library_version = FE_VERSION;
        blob.cudnn_version = cudnn().cudnnGetVersion();
        blob.fingerprint = keys.fingerprint;
        blob.device_json = keys.device_json;
        blob.graph_json = keys.graph_json;
        blob.build_options = keys.options;
        blob.plan_json = plan_to_json(*record->plan);
        blob.record = *record;
        write_cache_file(keys.directory, cache_file(keys.directory, keys.key), write_blob(blob), cache_limit(handle));
    } catch (const Error &e) {
        FE_LOG_WARN("graph '%s': plan not written to the cache directory (%s)", graph.name.c_str(), e.what());
    }
}

}  // namespace

void build_graph(fe_graph &graph, fe_handle *handle, const fe_build_options &o) {
    CacheKeys keys;
    keys.options = options_text(o, graph.kernel_cache != nullptr);
    keys.directory = cache_directory(handle);
    bool cached = (o.use_plan_cache || o.cache_key || !keys.directory.empty()) && cache_keys(graph, handle, o, &keys);
    if (cached && adopt_cached(graph, handle, o, keys)) return;

    // A full build.
    count(CacheEvent::Miss);
    build_operation_graph(graph, handle ? handle->cudnn : nullptr, target_gpu(graph, handle));
    note_target(graph, handle, keys.options.c_str());
    bool done = graph.kernel_cache && !o.autotune && o.policy == FE_BUILD_POLICY_HEURISTICS_CHOICE &&
                built_from_cached_configs(graph, o);
    if (!done) build_searched(graph, handle, o);
    if (cached) store_built(graph, handle, o, keys);
}

bool build_graph_from_cache(fe_graph &graph, fe_handle *handle, const fe_build_options &o) {
    CacheKeys keys;
    keys.options = options_text(o, graph.kernel_cache != nullptr);
    keys.directory = cache_directory(handle);
    if (!o.use_plan_cache && keys.directory.empty()) return false;
    return cache_keys(graph, handle, o, &keys) && adopt_cached(graph, handle, o, keys);
}

fe_graph *graph_from_user_key(fe_handle *handle, const char *key) {
    KeyedEntry entry;
    if (!keyed_lookup(key, &entry)) return nullptr;
    std::unique_ptr<fe_graph> graph = graph_from_json(entry.graph_json);
    if (entry.deviceless) graph->device_properties_json = entry.device_json;
    graph->validate();
    graph->assign_uids();
    bool on_gpu = handle && !entry.deviceless;
    adopt_record(*graph, on_gpu ? record_for_device(entry.record, *handle) : entry.record, "in-process plan cache");
    BuildState &state = *graph->build;
    state.device_json = entry.device_json;
    state.fingerprint = device_fingerprint(entry.device_json);
    count(CacheEvent::MemoryHit);
    return graph.release();
}

}  // namespace fe
