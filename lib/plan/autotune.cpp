#include "plan/autotune.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <vector>

#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "plan/build_state.hpp"
#include "plan/engine_knobs.hpp"
#include "plan/plan_timer.hpp"
#include "plan/timing_inputs.hpp"
#include "runtime/handle.hpp"

namespace fe {

void keep_best_candidates(fe_graph &graph, int64_t max_candidates) {
    int64_t kept = 0;
    for (Candidate &c : graph.build->search.candidates) {
        if (!c.viable) continue;
        if (++kept > max_candidates) {
            c.viable = false;
            c.reason = "beyond the autotuning limit";
        }
    }
}

namespace {

// A round tries the neighbours of the fastest plan of each of this many engines: the fastest
// engine's knobs may all be offered by heuristics already (one with a single workspace knob),
// while the runner-up engine's best tile shape is missing.
constexpr size_t kBasesPerRound = 3;

// The plan of the newest candidate, or false (the candidate marked not viable) when it does not
// build or needs more workspace than allowed.
bool plan_of_last_candidate(fe_graph &graph, int64_t max_workspace, Plan *out) {
    Candidate &c = graph.build->search.candidates.back();
    if (!plan_of(c, graph.kernel_cache, out)) {
        c.viable = false;
        return false;
    }
    if (max_workspace >= 0 && out->workspace > max_workspace) {
        c.viable = false;
        c.reason = "its plan needs more workspace than allowed";
        return false;
    }
    return true;
}

// Plan indices, fastest first (stable: ties keep the earlier plan first).
std::vector<size_t> fastest_first(const std::vector<double> &medians) {
    std::vector<size_t> order(medians.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return medians[a] < medians[b]; });
    return order;
}

// Local search in knob space: the configs one knob away from the fastest plans, timed; then
// around the fastest ones not yet expanded, while a round finds something faster. Heuristics
// offer a handful of tile and cluster shapes per engine; the best one for a shape is often a
// neighbour of theirs.
void search_knobs(fe_graph &graph, PlanTimer &timer, std::vector<double> &medians, const KnobSearch &search) {
    BuildState &state = *graph.build;
    std::vector<bool> expanded(state.executable.plans.size(), false);
    std::map<int64_t, std::vector<KnobRange>> ranges_of;
    size_t before = state.executable.plans.size();
    for (int32_t round = 0; round < search.rounds; ++round) {
        double best = *std::min_element(medians.begin(), medians.end());
        std::vector<size_t> bases;
        std::set<int64_t> engines;
        for (size_t i : fastest_first(medians)) {
            if (bases.size() == kBasesPerRound) break;
            if (!engines.insert(state.executable.plans[i].engine_index).second) continue;  // one base per engine
            if (!expanded[i] && !state.executable.plans[i].knobs.empty()) bases.push_back(i);
        }
        if (bases.empty()) break;
        size_t tried = 0;
        for (size_t b : bases) {
            expanded[b] = true;
            int64_t engine = state.executable.plans[b].engine_index;
            std::vector<Knob> base_knobs = state.executable.plans[b].knobs;
            if (!ranges_of.count(engine)) ranges_of[engine] = engine_knobs(graph, engine);
            for (const std::vector<Knob> &knobs : one_knob_neighbours(ranges_of[engine], base_knobs)) {
                std::string why;
                if (add_engine_candidate(graph, engine, knobs, &why) != CandidateResult::Added) continue;
                Plan p;
                if (!plan_of_last_candidate(graph, search.max_workspace, &p)) continue;
                if (!timer.runs(p)) {
                    state.search.candidates.back().viable = false;
                    state.search.candidates.back().reason = "cuDNN refused to run its plan";
                    continue;
                }
                double us = timer.time_cold(p);
                ++tried;
                medians.push_back(us);
                state.executable.plans.push_back(std::move(p));
                expanded.push_back(false);
            }
        }
        double now = *std::min_element(medians.begin(), medians.end());
        FE_LOG_INFO("graph '%s': knob search round %d: %zu new plans timed, best %.2f us (was %.2f)",
                    graph.name.c_str(), round + 1, tried, now, best);
        if (now >= best) break;
    }
    FE_LOG_INFO("graph '%s': knob search timed %zu plans beyond the heuristics' %zu", graph.name.c_str(),
                state.executable.plans.size() - before, before);
}

// The cold first pass ranks dozens of plans cheaply, but the plans within a few percent of the
// fastest are often the same engine with another workspace or cluster knob, and which of them
// wins depends on L2 state: a cold L2 overrates some, and their order flips between builds. The
// contenders are timed again back to back (as a layer runs in a training loop), in interleaved
// rounds (so clock and thermal drift fall on all of them alike), and ranked by the median of
// their rounds. Returns the plans' order: the contenders, then the rest by their cold times;
// `medians` then holds each contender's back-to-back time.
std::vector<size_t> rank(fe_graph &graph, PlanTimer &timer, std::vector<double> &medians) {
    constexpr double kMargin = 1.05;  // contenders: within 5% of the fastest, cold
    constexpr size_t kMaxContenders = 8;
    constexpr int kRounds = 3;
    const std::vector<Plan> &plans = graph.build->executable.plans;
    std::vector<size_t> order = fastest_first(medians);
    double best = medians[order.front()];
    std::vector<size_t> contenders;
    for (size_t i : order)
        if (medians[i] <= best * kMargin && contenders.size() < kMaxContenders) contenders.push_back(i);
    std::vector<double> cold;
    for (size_t i : contenders) cold.push_back(medians[i]);
    std::vector<std::vector<double>> times(contenders.size());
    for (int r = 0; r < kRounds; ++r)
        for (size_t k = 0; k < contenders.size(); ++k) {
            size_t c = r % 2 == 0 ? k : contenders.size() - 1 - k;  // alternate directions: drift cancels
            times[c].push_back(timer.time_back_to_back(plans[contenders[c]], cold[c]));
        }
    std::vector<double> contender_times;
    for (size_t c = 0; c < contenders.size(); ++c) contender_times.push_back(medians[contenders[c]] = median_of(times[c]));
    FE_LOG_INFO("graph '%s': %zu contenders within %.0f%% of the fastest timed again back to back, %d rounds",
                graph.name.c_str(), contenders.size(), (kMargin - 1) * 100, kRounds);
    std::vector<size_t> ranked;
    for (size_t c : fastest_first(contender_times)) ranked.push_back(contenders[c]);
    for (size_t i : order)
        if (std::find(contenders.begin(), contenders.end(), i) == contenders.end()) ranked.push_back(i);
    return ranked;
}

}  // namespace

double autotune(fe_graph &graph, fe_handle &handle, int32_t warmup, int32_t iterations, const KnobSearch &search) {
    FE_CHECK(graph.stage == fe_graph::Stage::Built && graph.build, FE_STATUS_BAD_STATE,
             "graph '%s' is not built: call fe_graph_build (or the build steps) first", graph.name.c_str());
    BuildState &state = *graph.build;
    FE_CHECK(state.executable.plans.front().plan, FE_STATUS_BAD_STATE, "graph '%s' has no plan to time", graph.name.c_str());
    FE_CHECK(!state.lowered.device_properties, FE_STATUS_BAD_STATE,
             "graph '%s' was built for a described GPU, not this one: autotuning runs its plans", graph.name.c_str());
    if (warmup < 0) warmup = 3;
    if (iterations <= 0) iterations = 10;
    handle.make_current();

    PlanTimer timer(graph, handle, warmup, iterations);
    std::vector<double> medians;
    for (const Plan &plan : state.executable.plans) medians.push_back(timer.time_cold(plan));
    double heuristics_first = medians.front();
    if (search.rounds > 0) search_knobs(graph, timer, medians, search);

    std::vector<Plan> plans;
    std::vector<double> times;
    for (size_t i : rank(graph, timer, medians)) {
        plans.push_back(std::move(state.executable.plans[i]));
        times.push_back(medians[i]);
    }
    state.executable.plans = std::move(plans);
    state.executable.chosen_index = 0;
    state.search.plan_times_us = std::move(times);
    state.executable.build_id = next_build_id();  // the chosen plan changed: no cached variant pack applies
    FE_LOG_INFO("graph '%s': autotuned: %s at %.2f us (heuristics' first choice: %.2f us)", graph.name.c_str(),
                state.executable.chosen().tag.c_str(), state.search.plan_times_us.front(), heuristics_first);
    return state.search.plan_times_us.front();
}

}  // namespace fe
