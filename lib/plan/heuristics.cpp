// Heuristic queries: candidates (engine configs) per mode, their engines, knobs and workspace.
#include <set>

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
        } catch (const Error &e) {
            // A config whose properties cannot be read cannot be trusted to build either.
            FE_LOG_DEBUG("skipping a config of mode %s: %s", heur_mode_name(mode), e.what());
            continue;
        }
        if (!seen->insert(c.tag).second) continue;  // the same config from an earlier mode
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
    bool any = !state.search.candidates.empty();
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
            std::string hint = node->unsupported_hint();
            if (!hint.empty()) why += format("; %s '%s': %s", node->kind(), node->name.c_str(), hint.c_str());
        }
        FE_FAIL(FE_STATUS_NOT_SUPPORTED, "graph '%s' is not supported: heuristics %s gave no viable engine config: %s%s (cuDNN %zu)",
                graph.name.c_str(), modes.c_str(), why.c_str(), combination.c_str(), cudnn().cudnnGetVersion());
    }
    FE_LOG_INFO("graph '%s': supported, %zu viable engine configs", graph.name.c_str(), viable);
    graph.stage = fe_graph::Stage::Supported;
}

}  // namespace fe
