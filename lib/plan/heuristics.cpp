// Heuristic queries: candidates (engine configs) per mode, their engines, knobs and workspace.
#include <set>

#include "backend/capabilities.hpp"
#include "backend/driver.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "plan/build_state.hpp"
#include "plan/engine_knobs.hpp"

namespace fe {

namespace {

// One heuristic query; appends new candidates, returns cuDNN's complaint if it had one.
std::string query_mode(BuildState &state, fe_heur_mode mode, std::set<std::string> *seen) {
    const Cudnn &api = cudnn();
    Descriptor heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    heur.set_desc(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, state.lowered.operation_graph, "CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH");
    cudnnBackendHeurMode_t m = static_cast<cudnnBackendHeurMode_t>(mode);
    heur.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &m, "CUDNN_ATTR_ENGINEHEUR_MODE");
    if (state.lowered.device_properties)
        heur.set_desc(CUDNN_ATTR_ENGINEHEUR_DEVICEPROP, state.lowered.device_properties, "CUDNN_ATTR_ENGINEHEUR_DEVICEPROP");
    if (state.sm_count_target > 0)
        heur.set(CUDNN_ATTR_ENGINEHEUR_SM_COUNT_TARGET, CUDNN_TYPE_INT32, 1, &state.sm_count_target,
                 "CUDNN_ATTR_ENGINEHEUR_SM_COUNT_TARGET");
    cudnnStatus_t st = heur.try_finalize();
    if (st != CUDNN_STATUS_SUCCESS) {
        std::string reason = cudnn_last_error_text();
        return std::string(api.cudnnGetErrorString(st)) + (reason.empty() ? "" : " (" + reason + ")");
    }
    int64_t count = 0;
    st = api.cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                      &count, nullptr);
    if (st != CUDNN_STATUS_SUCCESS) return std::string(api.cudnnGetErrorString(st)) + " reading the results";
    if (count == 0) {
        std::string reason = cudnn_last_error_text();
        return "no engine config" + (reason.empty() ? std::string() : " (" + reason + ")");
    }
    std::vector<Descriptor> configs;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (int64_t i = 0; i < count; ++i) {
        configs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
        raw.push_back(configs.back().get());
    }
    int64_t returned = 0;
    check_cudnn(api.cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                             count, &returned, raw.data()),
                "reading CUDNN_ATTR_ENGINEHEUR_RESULTS");
    for (int64_t i = 0; i < returned && i < count; ++i) {
        Candidate c;
        try {
            c.tag = describe_config(configs[static_cast<size_t>(i)], &c.engine_index, &c.knobs);
            c.workspace = configs[static_cast<size_t>(i)].get_int64(CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE,
                                                                   "CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE");
            read_notes(configs[static_cast<size_t>(i)], &c.numerical_notes, &c.behavior_notes);
            c.shared_memory = read_shared_memory(configs[static_cast<size_t>(i)]);
        } catch (const Error &e) {
            // A config whose properties cannot be read cannot be trusted to build either.
            FE_LOG_DEBUG("skipping a config of mode %s: %s", heur_mode_name(mode), e.what());
            continue;
        }
        if (!seen->insert(c.tag).second) continue;  // the same config from an earlier mode
        if (c.behavior_notes & state.lowered.avoided_behavior_notes) {
            c.viable = false;
            c.reason = state.lowered.avoided_because;
        }
        c.config = std::move(configs[static_cast<size_t>(i)]);
        state.search.candidates.push_back(std::move(c));
    }
    return "";
}

}  // namespace

void create_execution_plans(fe_graph &graph, const std::vector<fe_heur_mode> &modes) {
    FE_CHECK(graph.stage == fe_graph::Stage::OperationGraph && graph.build, FE_STATUS_BAD_STATE,
             "graph '%s' has no operation graph yet: call fe_graph_build_operation_graph first", graph.name.c_str());
    BuildState &state = *graph.build;
    std::set<std::string> seen;
    for (fe_heur_mode mode : modes) {
        FE_CHECK(mode == FE_HEUR_MODE_INSTANT || mode == FE_HEUR_MODE_A || mode == FE_HEUR_MODE_B ||
                     mode == FE_HEUR_MODE_FALLBACK,
                 FE_STATUS_INVALID_ARGUMENT, "unknown heuristic mode %d", static_cast<int>(mode));
        state.search.modes_tried.push_back(mode);
        std::string complaint = query_mode(state, mode, &seen);
        if (!complaint.empty()) {
            if (!state.search.heuristics_failures.empty()) state.search.heuristics_failures += "; ";
            state.search.heuristics_failures += std::string("mode ") + heur_mode_name(mode) + ": " + complaint;
        }
    }
    FE_LOG_INFO("graph '%s': %zu candidate engine configs", graph.name.c_str(), state.search.candidates.size());
    for (const Candidate &c : state.search.candidates)
        FE_LOG_DEBUG("  candidate %s workspace %lld", c.tag.c_str(), static_cast<long long>(c.workspace));
    graph.stage = fe_graph::Stage::Candidates;
}

bool has_engine_config(BuildState &state) {
    std::set<std::string> seen;
    std::string complaint = query_mode(state, FE_HEUR_MODE_A, &seen);
    bool any = false;
    for (const Candidate &c : state.search.candidates) any = any || c.viable;
    state.search.candidates.clear();
    return any && complaint.empty();
}

void deselect_workspace_greater_than(fe_graph &graph, int64_t max_bytes) {
    FE_CHECK(graph.stage == fe_graph::Stage::Candidates && graph.build, FE_STATUS_BAD_STATE,
             "graph '%s' has no candidates yet: call fe_graph_create_execution_plans first", graph.name.c_str());
    for (Candidate &c : graph.build->search.candidates)
        if (c.viable && c.workspace > max_bytes) {
            c.viable = false;
            c.reason = format("needs %lld bytes of workspace, over the limit of %lld",
                              static_cast<long long>(c.workspace), static_cast<long long>(max_bytes));
        }
}

void select_by_notes(fe_graph &graph, uint64_t numerical_deselect, uint64_t behavior_deselect,
                     uint64_t numerical_require, uint64_t behavior_require) {
    FE_CHECK(graph.stage == fe_graph::Stage::Candidates && graph.build, FE_STATUS_BAD_STATE,
             "graph '%s' has no candidates yet: call fe_graph_create_execution_plans first", graph.name.c_str());
    for (Candidate &c : graph.build->search.candidates) {
        if (!c.viable) continue;
        uint64_t numerical_bad = c.numerical_notes & numerical_deselect, behavior_bad = c.behavior_notes & behavior_deselect;
        uint64_t numerical_missing = numerical_require & ~c.numerical_notes;
        uint64_t behavior_missing = behavior_require & ~c.behavior_notes;
        if (!(numerical_bad | behavior_bad | numerical_missing | behavior_missing)) continue;
        c.viable = false;
        c.reason = format("its engine's notes (numerical %#llx, behaviour %#llx) %s",
                          static_cast<unsigned long long>(c.numerical_notes),
                          static_cast<unsigned long long>(c.behavior_notes),
                          (numerical_bad | behavior_bad) ? "include a deselected note" : "lack a required note");
    }
}

namespace {

bool all_digits(const std::string &text, size_t from, size_t to) {
    if (from >= to) return false;
    for (size_t i = from; i < to; ++i)
        if (text[i] < '0' || text[i] > '9') return false;
    return true;
}

// "eng<N>" or a tag "eng<N>_k<type>=<value>..." (values may be negative).
bool is_engine_name(const std::string &name) {
    if (name.compare(0, 3, "eng") != 0) return false;
    size_t at = name.find('_');
    if (!all_digits(name, 3, at == std::string::npos ? name.size() : at)) return false;
    while (at != std::string::npos) {
        size_t next = name.find('_', at + 1), end = next == std::string::npos ? name.size() : next;
        size_t eq = name.find('=', at + 1);
        if (name.compare(at + 1, 1, "k") != 0 || eq == std::string::npos || eq > end || !all_digits(name, at + 2, eq))
            return false;
        size_t value = eq + 1 < end && name[eq + 1] == '-' ? eq + 2 : eq + 1;
        if (!all_digits(name, value, end)) return false;
        at = next;
    }
    return true;
}

bool names_candidate(const std::string &name, const Candidate &c) {
    if (name.find('_') != std::string::npos) return name == c.tag;
    return name == format("eng%lld", static_cast<long long>(c.engine_index));
}

}  // namespace

void deselect_engines(fe_graph &graph, const std::string &names) {
    std::vector<std::string> list;
    size_t from = 0;
    while (from <= names.size()) {
        size_t comma = names.find(',', from);
        if (comma == std::string::npos) comma = names.size();
        std::string name = names.substr(from, comma - from);
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        FE_CHECK(is_engine_name(name), FE_STATUS_INVALID_ARGUMENT,
                 "'%s' is not an engine name: give eng<N> (every setting of engine N) or a tag such as eng6_k24=26",
                 name.c_str());
        list.push_back(name);
        from = comma + 1;
    }
    FE_CHECK(graph.stage == fe_graph::Stage::Candidates && graph.build, FE_STATUS_BAD_STATE,
             "graph '%s' has no candidates yet: call fe_graph_create_execution_plans first", graph.name.c_str());
    for (Candidate &c : graph.build->search.candidates) {
        if (!c.viable) continue;
        for (const std::string &name : list)
            if (names_candidate(name, c)) {
                c.viable = false;
                c.reason = "its engine is deselected by name (" + name + ")";
                break;
            }
    }
}

void deselect_shared_memory_greater_than(fe_graph &graph, int64_t max_bytes) {
    FE_CHECK(max_bytes >= 0, FE_STATUS_INVALID_ARGUMENT, "max_bytes is %lld: a shared-memory limit is 0 or more",
             static_cast<long long>(max_bytes));
    FE_CHECK(graph.stage == fe_graph::Stage::Candidates && graph.build, FE_STATUS_BAD_STATE,
             "graph '%s' has no candidates yet: call fe_graph_create_execution_plans first", graph.name.c_str());
    require(Feature::engine_shared_memory, static_cast<int64_t>(cudnn().cudnnGetVersion()));
    for (Candidate &c : graph.build->search.candidates) {
        if (!c.viable) continue;
        // cuDNN 9.19 reports the shared memory of runtime-compiled engines only; the others are
        // kept, as the reference frontend keeps them (the header says so).
        if (c.shared_memory > max_bytes) {
            c.viable = false;
            c.reason = format("uses %lld bytes of shared memory, over the limit of %lld",
                              static_cast<long long>(c.shared_memory), static_cast<long long>(max_bytes));
        }
    }
}

void check_support(fe_graph &graph) {
    FE_CHECK(graph.stage == fe_graph::Stage::Candidates && graph.build, FE_STATUS_BAD_STATE,
             "graph '%s' has no candidates yet: call fe_graph_create_execution_plans first", graph.name.c_str());
    const BuildState &state = *graph.build;
    size_t viable = 0;
    std::string deselected;
    for (const Candidate &c : state.search.candidates) {
        if (c.viable)
            ++viable;
        else if (deselected.empty())
            deselected = c.tag + " " + c.reason;
    }
    if (viable == 0) {
        std::string modes;
        for (fe_heur_mode m : state.search.modes_tried) modes += std::string(modes.empty() ? "" : ", ") + heur_mode_name(m);
        std::string why = state.search.candidates.empty()
                              ? (state.search.heuristics_failures.empty() ? std::string("cuDNN returned no engine config")
                                                                   : state.search.heuristics_failures)
                              : format("all %zu candidates were deselected (e.g. %s)", state.search.candidates.size(),
                                       deselected.c_str());
        // Name what cuDNN was asked for (e.g. attention's type, head dims and masks), so the
        // caller sees which combination has no engine with this cuDNN on this GPU, and what an
        // operation needs (e.g. one that no engine runs on its own).
        std::string combination;
        for (const auto &node : graph.nodes) {
            std::string c = node->combination();
            if (!c.empty()) combination += (combination.empty() ? "; for " : "; ") + c;
        }
        why += unsupported_hints(graph);
        // Without a driver library cuDNN lists no runtime-compiled engine: the answer is this
        // machine's, not the graph's.
        FE_CHECK(!(state.search.candidates.empty() && driver_state() == DriverState::Missing), FE_STATUS_CANNOT_TELL,
                 "graph '%s': whether it is supported cannot be told here: heuristics %s gave no engine config "
                 "(%s%s) (cuDNN %zu); %s",
                 graph.name.c_str(), modes.c_str(), why.c_str(), combination.c_str(), cudnn().cudnnGetVersion(),
                 driver_remedy().c_str());
        FE_FAIL(FE_STATUS_NOT_SUPPORTED, "graph '%s' is not supported: heuristics %s gave no viable engine config: %s%s (cuDNN %zu)",
                graph.name.c_str(), modes.c_str(), why.c_str(), combination.c_str(), cudnn().cudnnGetVersion());
    }
    FE_LOG_INFO("graph '%s': supported, %zu viable engine configs", graph.name.c_str(), viable);
    graph.stage = fe_graph::Stage::Supported;
}

std::string unsupported_hints(const fe_graph &graph) {
    std::string hints;
    for (const auto &node : graph.nodes) {
        std::string hint = node->unsupported_hint();
        if (!hint.empty()) hints += format("; %s '%s': %s", node->kind(), node->name.c_str(), hint.c_str());
    }
    return hints;
}

}  // namespace fe
