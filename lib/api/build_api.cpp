// Build entry points: one-call build, the step-by-step form, queries and description.
#include <algorithm>
#include <cstring>

#include "api/guard.hpp"
#include "build/background_static.hpp"
#include "build/build_graph.hpp"
#include "plan/build_state.hpp"
#include "plan/device_properties.hpp"
#include "plan/engine_knobs.hpp"
#include "plan/kernel_cache.hpp"
#include "runtime/handle.hpp"

using namespace fe;

namespace {

std::vector<fe_heur_mode> modes_or_default(const fe_heur_mode *modes, size_t n) {
    if (!modes || n == 0) return {FE_HEUR_MODE_A, FE_HEUR_MODE_FALLBACK};
    return std::vector<fe_heur_mode>(modes, modes + n);
}

const BuildState &state_at_least(const fe_graph *graph, fe_graph::Stage stage, const char *what) {
    FE_CHECK(graph->build && graph->stage >= stage, FE_STATUS_BAD_STATE, "graph '%s' has no %s yet",
             graph->name.c_str(), what);
    return *graph->build;
}

// Candidate `index` of the graph's search (after heuristics were queried).
const Candidate &candidate_at(const fe_graph *graph, size_t index) {
    const std::vector<Candidate> &candidates =
        state_at_least(graph, fe_graph::Stage::Candidates, "candidates").search.candidates;
    FE_CHECK(index < candidates.size(), FE_STATUS_INVALID_ARGUMENT, "index %zu is past the %zu candidates of graph '%s'",
             index, candidates.size(), graph->name.c_str());
    return candidates[index];
}

// A failed build step leaves the graph editable again and drops the half-built state, so the
// caller can fix it and retry.
template <typename Step>
void step(fe_graph *graph, Step &&body) {
    try {
        // The later steps use the cuDNN handle of the first, which works on its own device.
        if (graph->build && graph->build->executable.device >= 0) make_device_current(graph->build->executable.device);
        body();
    } catch (...) {
        if (graph->stage != fe_graph::Stage::Built) {
            graph->build.reset();
            graph->stage = fe_graph::Stage::Editing;
        }
        throw;
    }
}

// What fe_graph_build replaces: a built graph's plan and the target's description. Taken
// before the build and put back when it fails, so that a failed rebuild leaves the graph built
// as it was (a graph not built yet drops its half-built state, as a failed step does).
class BuildRollback {
  public:
    explicit BuildRollback(fe_graph &graph)
        : graph_(graph), device_properties_json_(graph.device_properties_json),
          was_built_(graph.stage == fe_graph::Stage::Built) {
        if (!was_built_) return;
        built_ = std::move(graph.build);  // building again starts over
        graph.stage = fe_graph::Stage::Editing;
    }
    void restore() {
        graph_.device_properties_json = std::move(device_properties_json_);
        graph_.build = std::move(built_);
        graph_.stage = was_built_ ? fe_graph::Stage::Built : fe_graph::Stage::Editing;
    }

  private:
    fe_graph &graph_;
    std::string device_properties_json_;
    bool was_built_;
    std::unique_ptr<BuildState> built_;
};

}  // namespace

FE_EXPORT fe_status fe_graph_set_device_properties(fe_graph *graph, const char *json) {
    return guard("fe_graph_set_device_properties", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(json);
        check_device_description(json, "the device properties");
        graph->require_editable();
        graph->device_properties_json = json;
    });
}

FE_EXPORT fe_status fe_graph_validate(fe_graph *graph) {
    return guard("fe_graph_validate", [&] {
        FE_REQUIRE(graph);
        graph->validate();
    });
}

FE_EXPORT fe_status fe_graph_build_operation_graph(fe_graph *graph, fe_handle *handle) {
    return guard("fe_graph_build_operation_graph", [&] {
        FE_REQUIRE(graph);
        step(graph, [&] {
            if (handle) handle->make_current();
            build_operation_graph(*graph, handle ? handle->cudnn : nullptr, target_gpu(*graph, handle));
            note_target(*graph, handle, "step by step");
        });
    });
}

FE_EXPORT fe_status fe_graph_create_execution_plans(fe_graph *graph, const fe_heur_mode *modes, size_t num_modes) {
    return guard("fe_graph_create_execution_plans", [&] {
        FE_REQUIRE(graph);
        create_execution_plans(*graph, modes_or_default(modes, num_modes));
    });
}

FE_SETTER(fe_graph_deselect_workspace_greater_than, fe_graph, graph, int64_t, max_bytes,
          deselect_workspace_greater_than(*graph, max_bytes))

namespace {

constexpr int64_t kNumericalNotes = (int64_t(1) << 10) - 1;  // FE_NUMERICAL_NOTE_* bits
constexpr int64_t kBehaviorNotes = (int64_t(1) << 4) - 1;    // FE_BEHAVIOR_NOTE_* bits

void require_notes_mask(int64_t mask, int64_t known, const char *name, const char *type) {
    FE_CHECK((mask & ~known) == 0, FE_STATUS_INVALID_ARGUMENT, "%s is %#llx; its bits must be %s values (%#llx)", name,
             static_cast<unsigned long long>(mask), type, static_cast<unsigned long long>(known));
}

}  // namespace

FE_EXPORT fe_status fe_graph_select_by_notes(fe_graph *graph, int64_t deselect_numerical, int64_t deselect_behavior,
                                             int64_t require_numerical, int64_t require_behavior) {
    return guard("fe_graph_select_by_notes", [&] {
        FE_REQUIRE(graph);
        require_notes_mask(deselect_numerical, kNumericalNotes, "deselect_numerical", "fe_numerical_note");
        require_notes_mask(deselect_behavior, kBehaviorNotes, "deselect_behavior", "fe_behavior_note");
        require_notes_mask(require_numerical, kNumericalNotes, "require_numerical", "fe_numerical_note");
        require_notes_mask(require_behavior, kBehaviorNotes, "require_behavior", "fe_behavior_note");
        select_by_notes(*graph, static_cast<uint64_t>(deselect_numerical), static_cast<uint64_t>(deselect_behavior),
                        static_cast<uint64_t>(require_numerical), static_cast<uint64_t>(require_behavior));
    });
}

FE_EXPORT fe_status fe_graph_candidate_notes(const fe_graph *graph, size_t index, const char **out_tag,
                                             int64_t *out_numerical_notes, int64_t *out_behavior_notes) {
    return guard("fe_graph_candidate_notes", [&] {
        FE_REQUIRE(graph);
        const Candidate &c = candidate_at(graph, index);
        if (out_tag) *out_tag = c.tag.c_str();
        if (out_numerical_notes) *out_numerical_notes = static_cast<int64_t>(c.numerical_notes);
        if (out_behavior_notes) *out_behavior_notes = static_cast<int64_t>(c.behavior_notes);
    });
}

FE_EXPORT fe_status fe_graph_deselect_engines(fe_graph *graph, const char *engines) {
    return guard("fe_graph_deselect_engines", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(engines);
        deselect_engines(*graph, engines);
    });
}

FE_SETTER(fe_graph_deselect_shared_memory_greater_than, fe_graph, graph, int64_t, max_bytes,
          deselect_shared_memory_greater_than(*graph, max_bytes))

namespace {

// Fill the caller's fe_config_info, up to its struct_size (a caller built against an older header
// gets the fields it knows), with a candidate's or a plan's facts.
template <class Config>
void write_config_info(const Config &c, bool viable, fe_config_info *out) {
    fe_config_info info = FE_CONFIG_INFO_INIT;
    info.tag = c.tag.c_str();
    info.engine_index = c.engine_index;
    info.workspace_bytes = c.workspace;
    info.shared_memory_bytes = c.shared_memory;
    info.numerical_notes = static_cast<int64_t>(c.numerical_notes);
    info.behavior_notes = static_cast<int64_t>(c.behavior_notes);
    info.viable = viable ? 1 : 0;
    uint32_t size = out->struct_size;
    FE_CHECK(size >= sizeof(uint32_t), FE_STATUS_INVALID_ARGUMENT,
             "out_info->struct_size is %u: initialize it with FE_CONFIG_INFO_INIT", size);
    std::memcpy(reinterpret_cast<unsigned char *>(out) + sizeof(uint32_t),
                reinterpret_cast<const unsigned char *>(&info) + sizeof(uint32_t),
                std::min<size_t>(size, sizeof info) - sizeof(uint32_t));
}

}  // namespace

FE_EXPORT fe_status fe_graph_candidate_info(const fe_graph *graph, size_t index, fe_config_info *out_info) {
    return guard("fe_graph_candidate_info", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(out_info);
        const Candidate &c = candidate_at(graph, index);
        write_config_info(c, c.viable, out_info);
    });
}

FE_EXPORT fe_status fe_graph_plan_info(const fe_graph *graph, size_t plan_index, fe_config_info *out_info) {
    return guard("fe_graph_plan_info", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(out_info);
        const std::vector<Plan> &plans = state_at_least(graph, fe_graph::Stage::Built, "plans").executable.plans;
        FE_CHECK(plan_index < plans.size(), FE_STATUS_INVALID_ARGUMENT, "plan %zu is past the %zu plans of graph '%s'",
                 plan_index, plans.size(), graph->name.c_str());
        const Plan &p = plans[plan_index];
        FE_CHECK(p.facts_known, FE_STATUS_NOT_SUPPORTED,
                 "graph '%s': cuDNN does not give back the engine config of plan %zu (%s), read from a cache or a "
                 "serialized graph, so its notes are not known",
                 graph->name.c_str(), plan_index, p.tag.c_str());
        write_config_info(p, true, out_info);
    });
}

FE_EXPORT fe_status fe_graph_check_support(fe_graph *graph) {
    return guard("fe_graph_check_support", [&] {
        FE_REQUIRE(graph);
        check_support(*graph);
    });
}

FE_SETTER(fe_graph_build_plans, fe_graph, graph, fe_build_policy, policy, build_plans(*graph, policy))

FE_EXPORT fe_status fe_graph_build_plans_on_threads(fe_graph *graph, fe_build_policy policy, int32_t threads) {
    return guard("fe_graph_build_plans_on_threads", [&] {
        FE_REQUIRE(graph);
        build_plans(*graph, policy, threads);
    });
}

FE_SETTER(fe_graph_build_plan_at_index, fe_graph, graph, size_t, candidate_index,
          build_plan_at_index(*graph, candidate_index))

FE_SETTER(fe_graph_select_plan, fe_graph, graph, size_t, plan_index, select_plan(*graph, plan_index))

FE_EXPORT fe_status fe_graph_build(fe_graph *graph, fe_handle *handle, const fe_build_options *options) {
    return guard("fe_graph_build", [&] {
        FE_REQUIRE(graph);
        const fe_build_options defaults = FE_BUILD_OPTIONS_INIT;
        fe_build_options o = read_options(options, defaults);
        FE_CHECK(o.heur_modes || o.num_heur_modes == 0, FE_STATUS_NULL_POINTER,
                 "options.heur_modes is NULL but num_heur_modes is %zu", o.num_heur_modes);
        FE_CHECK(o.autotune_knob_search >= 0, FE_STATUS_INVALID_ARGUMENT,
                 "options.autotune_knob_search is %d: the number of search rounds is 0 (off) or more",
                 o.autotune_knob_search);
        require_notes_mask(o.deselect_numerical_notes, kNumericalNotes, "options.deselect_numerical_notes",
                           "fe_numerical_note");
        require_notes_mask(o.deselect_behavior_notes, kBehaviorNotes, "options.deselect_behavior_notes",
                           "fe_behavior_note");
        require_notes_mask(o.require_numerical_notes, kNumericalNotes, "options.require_numerical_notes",
                           "fe_numerical_note");
        require_notes_mask(o.require_behavior_notes, kBehaviorNotes, "options.require_behavior_notes",
                           "fe_behavior_note");
        if (o.device_properties_json) check_device_description(o.device_properties_json, "options.device_properties_json");
        FE_CHECK(o.max_shared_memory_bytes >= 0, FE_STATUS_INVALID_ARGUMENT,
                 "options.max_shared_memory_bytes is %lld: a limit in bytes, or 0 for none",
                 static_cast<long long>(o.max_shared_memory_bytes));
        FE_CHECK(o.deterministic == 0 || o.deterministic == 1, FE_STATUS_INVALID_ARGUMENT,
                 "options.deterministic is %d: 0 or 1", o.deterministic);
        FE_CHECK(o.build_threads >= 0 && o.build_threads <= 64, FE_STATUS_INVALID_ARGUMENT,
                 "options.build_threads is %d: 0 or 1 (one at a time) to 64", o.build_threads);
        FE_CHECK(o.sm_count_target >= 0 && o.sm_count_target <= 65536, FE_STATUS_INVALID_ARGUMENT,
                 "options.sm_count_target is %d: a number of SMs, or 0 for all", o.sm_count_target);
        FE_CHECK(o.sm_count_target == 0 || !o.kernel_cache, FE_STATUS_INVALID_ARGUMENT,
                 "options.sm_count_target with options.kernel_cache: the cache's engine configs were chosen for "
                 "every SM; build without one of them");
        FE_CHECK(o.background_static == 0 || o.background_static == 1, FE_STATUS_INVALID_ARGUMENT,
                 "options.background_static is %d: 0 or 1", o.background_static);
        FE_CHECK(!o.background_static || o.kernel_cache || graph->kernel_cache, FE_STATUS_INVALID_ARGUMENT,
                 "options.background_static builds the static plan of a graph built with dynamic shapes: give "
                 "options.kernel_cache (or fe_graph_set_kernel_cache)");
        FE_CHECK(!o.background_static || handle, FE_STATUS_INVALID_ARGUMENT,
                 "options.background_static needs a handle: the static plan is built on its GPU");
        if (graph->background) stop_background_static(*graph);  // building again starts over
        BuildRollback rollback(*graph);
        std::shared_ptr<KernelCache> kernel_cache_before = graph->kernel_cache;
        try {
            if (o.device_properties_json) {
                graph->require_editable();
                graph->device_properties_json = o.device_properties_json;
            }
            if (o.kernel_cache) graph->kernel_cache = o.kernel_cache->cache;
            if (handle) handle->make_current();
            build_graph(*graph, handle, o);
            if (o.background_static) start_background_static(*graph, *handle, o);
        } catch (...) {
            rollback.restore();
            graph->kernel_cache = std::move(kernel_cache_before);
            throw;
        }
    });
}

FE_PROPERTY(fe_graph_background_state, fe_graph, graph, fe_background_state, out_state, background_state(*graph))

FE_EXPORT fe_status fe_graph_wait_background(fe_graph *graph) {
    return guard("fe_graph_wait_background", [&] {
        FE_REQUIRE(graph);
        wait_background_static(*graph);
    });
}

FE_PROPERTY(fe_graph_candidate_count, fe_graph, graph, size_t, out_count,
            static_cast<size_t>(state_at_least(graph, fe_graph::Stage::Candidates, "candidates").search.candidate_count()))

FE_PROPERTY(fe_graph_viable_count, fe_graph, graph, size_t, out_count,
            static_cast<size_t>(state_at_least(graph, fe_graph::Stage::Candidates, "candidates").search.viable_count()))

FE_PROPERTY(fe_graph_plan_count, fe_graph, graph, size_t, out_count,
            state_at_least(graph, fe_graph::Stage::Built, "plans").executable.plans.size())

FE_PROPERTY(fe_graph_workspace_size, fe_graph, graph, int64_t, out_bytes,
            state_at_least(graph, fe_graph::Stage::Built, "plan").executable.total_workspace())

FE_PROPERTY(fe_graph_engine_index, fe_graph, graph, int64_t, out_index,
            state_at_least(graph, fe_graph::Stage::Built, "plan").executable.chosen().engine_index)

FE_PROPERTY(fe_graph_engine_tag, fe_graph, graph, const char *, out_tag,
            state_at_least(graph, fe_graph::Stage::Built, "plan").executable.chosen().tag.c_str())

FE_EXPORT fe_status fe_graph_attention_implementation(const fe_graph *graph, const char *node_name,
                                                      fe_sdpa_implementation *out_implementation) {
    return guard("fe_graph_attention_implementation", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(out_implementation);
        const BuildState &state = state_at_least(graph, fe_graph::Stage::OperationGraph, "operation graph");
        for (const AttentionLowering &a : state.lowered.attention) {
            if (node_name && a.node->name != node_name) continue;
            *out_implementation = a.native ? FE_SDPA_IMPLEMENTATION_NATIVE : FE_SDPA_IMPLEMENTATION_COMPOSITE;
            return;
        }
        FE_FAIL(FE_STATUS_NOT_FOUND, "graph '%s' has no attention operation%s%s", graph->name.c_str(),
                node_name ? " named " : "", node_name ? node_name : "");
    });
}

FE_PROPERTY(fe_graph_is_built, fe_graph, graph, int32_t, out_flag, graph->stage == fe_graph::Stage::Built ? 1 : 0)

FE_EXPORT fe_status fe_graph_describe(const fe_graph *graph, char *buf, size_t buf_size, size_t *out_length) {
    return guard("fe_graph_describe", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(out_length);
        copy_out(graph->describe(), buf, buf_size, out_length);
    });
}

FE_PROPERTY(fe_graph_engine_count, fe_graph, graph, size_t, out_count,
            static_cast<size_t>(state_at_least(graph, fe_graph::Stage::OperationGraph, "operation graph").lowered.engine_count))

FE_EXPORT fe_status fe_graph_engine_knobs(const fe_graph *graph, int64_t engine_index, fe_knob_range *ranges,
                                          size_t capacity, size_t *out_count) {
    return guard("fe_graph_engine_knobs", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(out_count);
        FE_CHECK(ranges || capacity == 0, FE_STATUS_NULL_POINTER, "ranges is NULL but capacity is %zu", capacity);
        state_at_least(graph, fe_graph::Stage::OperationGraph, "operation graph");
        std::vector<KnobRange> found = engine_knobs(*graph, engine_index);
        *out_count = found.size();
        FE_CHECK(capacity >= found.size(), FE_STATUS_BUFFER_TOO_SMALL,
                 "engine %lld has %zu knobs; the buffer has room for %zu", static_cast<long long>(engine_index),
                 found.size(), capacity);
        for (size_t i = 0; i < found.size(); ++i)
            ranges[i] = {found[i].type, found[i].min_value, found[i].max_value, found[i].stride};
    });
}

FE_EXPORT fe_status fe_graph_add_candidate(fe_graph *graph, int64_t engine_index, const fe_knob_choice *knobs,
                                           size_t num_knobs) {
    return guard("fe_graph_add_candidate", [&] {
        FE_REQUIRE(graph);
        FE_CHECK(knobs || num_knobs == 0, FE_STATUS_NULL_POINTER, "knobs is NULL but num_knobs is %zu", num_knobs);
        FE_CHECK(graph->build && (graph->stage == fe_graph::Stage::OperationGraph ||
                                  graph->stage == fe_graph::Stage::Candidates),
                 FE_STATUS_BAD_STATE,
                 "graph '%s': candidates are added after fe_graph_build_operation_graph or "
                 "fe_graph_create_execution_plans, before the support check",
                 graph->name.c_str());
        std::vector<Knob> settings;
        for (size_t i = 0; i < num_knobs; ++i) settings.push_back({knobs[i].type, knobs[i].value});
        std::string why;
        CandidateResult result = add_engine_candidate(*graph, engine_index, settings, &why);
        if (result != CandidateResult::Added)
            FE_FAIL(result == CandidateResult::Duplicate ? FE_STATUS_INVALID_ARGUMENT : FE_STATUS_NOT_SUPPORTED,
                    "graph '%s': engine config %s", graph->name.c_str(), why.c_str());
        graph->stage = fe_graph::Stage::Candidates;
    });
}
