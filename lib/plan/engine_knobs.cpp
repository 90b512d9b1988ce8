#include "plan/engine_knobs.hpp"

#include <algorithm>
#include <cstdlib>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/log.hpp"

namespace fe {

namespace {

// A range wider than this is sampled at powers of two (split factors, tile counts that run
// into the thousands), so one knob never floods the search with near-identical configs.
constexpr int64_t kMaxValuesPerKnob = 24;

// Descriptors to receive an array attribute of `count` descriptors of `type`.
struct DescriptorArray {
    std::vector<Descriptor> owned;
    std::vector<cudnnBackendDescriptor_t> raw;
    DescriptorArray(cudnnBackendDescriptorType_t type, int count) {
        for (int i = 0; i < count; ++i) {
            owned.emplace_back(type);
            raw.push_back(owned.back().get());
        }
    }
};

Descriptor finalized_engine(const fe_graph &graph, int64_t engine_index) {
    FE_CHECK(graph.build && graph.stage >= fe_graph::Stage::OperationGraph, FE_STATUS_BAD_STATE,
             "graph '%s' has no operation graph yet: call fe_graph_build_operation_graph first", graph.name.c_str());
    const BuildState &state = *graph.build;
    FE_CHECK(engine_index >= 0 && engine_index < state.lowered.engine_count, FE_STATUS_INVALID_ARGUMENT,
             "graph '%s': engine %lld is out of range (cuDNN has %lld engines)", graph.name.c_str(),
             static_cast<long long>(engine_index), static_cast<long long>(state.lowered.engine_count));
    Descriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    engine.set_desc(CUDNN_ATTR_ENGINE_OPERATION_GRAPH, state.lowered.operation_graph, "CUDNN_ATTR_ENGINE_OPERATION_GRAPH");
    engine.set_int64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, engine_index, "CUDNN_ATTR_ENGINE_GLOBAL_INDEX");
    if (state.lowered.device_properties)
        engine.set_desc(CUDNN_ATTR_ENGINE_DEVICEPROP, state.lowered.device_properties, "CUDNN_ATTR_ENGINE_DEVICEPROP");
    cudnnStatus_t st = engine.try_finalize();
    if (st != CUDNN_STATUS_SUCCESS) {
        std::string reason = cudnn_last_error_text();
        FE_FAIL(FE_STATUS_NOT_SUPPORTED, "graph '%s': engine %lld does not run it: %s%s", graph.name.c_str(),
                static_cast<long long>(engine_index), cudnn().cudnnGetErrorString(st),
                reason.empty() ? "" : (" (" + reason + ")").c_str());
    }
    return engine;
}

std::string tag_of(int64_t engine_index, const std::vector<Knob> &knobs) {
    std::string tag = "eng" + std::to_string(engine_index);
    for (const Knob &k : knobs) tag += "_k" + std::to_string(k.type) + "=" + std::to_string(k.value);
    return tag;
}

void sort_by_type(std::vector<Knob> *knobs) {
    std::stable_sort(knobs->begin(), knobs->end(), [](const Knob &a, const Knob &b) { return a.type < b.type; });
}

std::vector<int64_t> values_of(const KnobRange &r) {
    std::vector<int64_t> values;
    int64_t stride = std::max<int64_t>(r.stride, 1);
    if (r.max_value < r.min_value) return values;
    if ((r.max_value - r.min_value) / stride < kMaxValuesPerKnob) {
        for (int64_t v = r.min_value; v <= r.max_value; v += stride) values.push_back(v);
        return values;
    }
    values.push_back(r.min_value);
    for (int64_t v = 1; v <= r.max_value && static_cast<int64_t>(values.size()) < kMaxValuesPerKnob; v *= 2)
        if (v > r.min_value && (v - r.min_value) % stride == 0) values.push_back(v);
    return values;
}

// The engine a config runs.
Descriptor engine_of(const Descriptor &config) {
    Descriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    cudnnBackendDescriptor_t raw_engine = engine.get();
    int64_t count = 0;
    check_cudnn(cudnn().cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE,
                                                 CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &raw_engine),
                "reading CUDNN_ATTR_ENGINECFG_ENGINE");
    return engine;
}

}  // namespace

bool config_of_tag(const std::string &tag, int64_t *engine_index, std::vector<Knob> *knobs) {
    if (tag.compare(0, 3, "eng") != 0) return false;
    char *end = nullptr;
    long long engine = std::strtoll(tag.c_str() + 3, &end, 10);
    if (end == tag.c_str() + 3 || engine < 0) return false;
    knobs->clear();
    while (*end == '_') {
        if (end[1] != 'k') return false;
        char *type_end = nullptr;
        long type = std::strtol(end + 2, &type_end, 10);
        if (type_end == end + 2 || *type_end != '=' || type < 0 || type >= CUDNN_KNOB_TYPE_COUNTS) return false;
        char *value_end = nullptr;
        long long value = std::strtoll(type_end + 1, &value_end, 10);
        if (value_end == type_end + 1) return false;
        knobs->push_back({static_cast<int32_t>(type), value});
        end = value_end;
    }
    if (*end != '\0') return false;
    *engine_index = engine;
    return true;
}

std::string describe_config(const Descriptor &config, int64_t *engine_index, std::vector<Knob> *knobs) {
    const Cudnn &api = cudnn();
    Descriptor engine = engine_of(config);
    *engine_index = engine.get_int64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, "CUDNN_ATTR_ENGINE_GLOBAL_INDEX");

    DescriptorArray choices(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, CUDNN_KNOB_TYPE_COUNTS);
    int64_t n = 0;
    check_cudnn(api.cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                             CUDNN_TYPE_BACKEND_DESCRIPTOR, CUDNN_KNOB_TYPE_COUNTS, &n,
                                             choices.raw.data()),
                "reading CUDNN_ATTR_ENGINECFG_KNOB_CHOICES");
    knobs->clear();
    for (int64_t i = 0; i < n && i < CUDNN_KNOB_TYPE_COUNTS; ++i) {
        cudnnBackendKnobType_t type;
        int64_t value = 0, got = 0;
        check_cudnn(api.cudnnBackendGetAttribute(choices.raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE,
                                                 1, &got, &type),
                    "reading CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE");
        check_cudnn(api.cudnnBackendGetAttribute(choices.raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1,
                                                 &got, &value),
                    "reading CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE");
        // A plan cuDNN loads lists every knob of its engine, those its config left to the
        // engine as -1: the same config as one that never named them, and the same tag.
        if (value == -1) continue;
        knobs->push_back({static_cast<int32_t>(type), value});
    }
    sort_by_type(knobs);
    return tag_of(*engine_index, *knobs);
}

void read_notes(const Descriptor &config, uint64_t *numerical, uint64_t *behavior) {
    const Cudnn &api = cudnn();
    Descriptor engine = engine_of(config);
    int64_t count = 0;
    cudnnBackendNumericalNote_t numerical_notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
    check_cudnn(api.cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                             CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &count, numerical_notes),
                "reading CUDNN_ATTR_ENGINE_NUMERICAL_NOTE");
    *numerical = 0;
    for (int64_t i = 0; i < count && i < CUDNN_NUMERICAL_NOTE_TYPE_COUNT; ++i)
        if (numerical_notes[i] >= 0 && numerical_notes[i] < 64) *numerical |= uint64_t(1) << numerical_notes[i];
    cudnnBackendBehaviorNote_t behavior_notes[CUDNN_BEHAVIOR_NOTE_TYPE_COUNT];
    count = 0;
    check_cudnn(api.cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                                             CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, &count, behavior_notes),
                "reading CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE");
    *behavior = 0;
    for (int64_t i = 0; i < count && i < CUDNN_BEHAVIOR_NOTE_TYPE_COUNT; ++i)
        if (behavior_notes[i] >= 0 && behavior_notes[i] < 64) *behavior |= uint64_t(1) << behavior_notes[i];
}

int64_t read_shared_memory(const Descriptor &config) {
    if (!refusal(Feature::engine_shared_memory, static_cast<int64_t>(cudnn().cudnnGetVersion())).empty()) return -1;
    int32_t bytes = -1;
    int64_t count = 0;
    cudnnStatus_t st = cudnn().cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_SHARED_MEMORY_USED,
                                                        CUDNN_TYPE_INT32, 1, &count, &bytes);
    return st == CUDNN_STATUS_SUCCESS && count == 1 ? bytes : -1;
}

bool read_plan_config_facts(const Descriptor &plan, Plan *out) {
    Descriptor config(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    cudnnBackendDescriptor_t raw = config.get();
    int64_t count = 0;
    if (cudnn().cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                         CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &raw) != CUDNN_STATUS_SUCCESS ||
        count != 1)
        return false;
    try {
        read_notes(config, &out->numerical_notes, &out->behavior_notes);
        out->tag = describe_config(config, &out->engine_index, &out->knobs);
    } catch (const Error &) {
        return false;
    }
    out->shared_memory = read_shared_memory(config);
    return true;
}

std::vector<KnobRange> engine_knobs(const fe_graph &graph, int64_t engine_index) {
    Descriptor engine = finalized_engine(graph, engine_index);
    const Cudnn &api = cudnn();
    DescriptorArray infos(CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, CUDNN_KNOB_TYPE_COUNTS);
    int64_t n = 0;
    check_cudnn(api.cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_KNOB_INFO, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                             CUDNN_KNOB_TYPE_COUNTS, &n, infos.raw.data()),
                "reading CUDNN_ATTR_ENGINE_KNOB_INFO");
    std::vector<KnobRange> ranges;
    for (int64_t i = 0; i < n && i < CUDNN_KNOB_TYPE_COUNTS; ++i) {
        cudnnBackendKnobType_t type;
        int64_t got = 0;
        check_cudnn(api.cudnnBackendGetAttribute(infos.raw[i], CUDNN_ATTR_KNOB_INFO_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &got,
                                                 &type),
                    "reading CUDNN_ATTR_KNOB_INFO_TYPE");
        KnobRange r;
        r.type = static_cast<int32_t>(type);
        r.min_value = infos.owned[i].get_int64(CUDNN_ATTR_KNOB_INFO_MINIMUM_VALUE, "CUDNN_ATTR_KNOB_INFO_MINIMUM_VALUE");
        r.max_value = infos.owned[i].get_int64(CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE, "CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE");
        r.stride = infos.owned[i].get_int64(CUDNN_ATTR_KNOB_INFO_STRIDE, "CUDNN_ATTR_KNOB_INFO_STRIDE");
        ranges.push_back(r);
    }
    std::sort(ranges.begin(), ranges.end(), [](const KnobRange &a, const KnobRange &b) { return a.type < b.type; });
    return ranges;
}

CandidateResult add_engine_candidate(fe_graph &graph, int64_t engine_index, std::vector<Knob> knobs,
                                     std::string *why) {
    Descriptor engine = finalized_engine(graph, engine_index);
    BuildState &state = *graph.build;
    sort_by_type(&knobs);
    for (size_t i = 1; i < knobs.size(); ++i)
        FE_CHECK(knobs[i].type != knobs[i - 1].type, FE_STATUS_INVALID_ARGUMENT,
                 "graph '%s': knob %d is set twice for engine %lld", graph.name.c_str(), knobs[i].type,
                 static_cast<long long>(engine_index));
    for (const Knob &k : knobs)
        FE_CHECK(k.type >= 0 && k.type < CUDNN_KNOB_TYPE_COUNTS, FE_STATUS_INVALID_ARGUMENT,
                 "graph '%s': unknown knob type %d (cuDNN's knob types run from 0 to %d)", graph.name.c_str(), k.type,
                 CUDNN_KNOB_TYPE_COUNTS - 1);
    std::string tag = tag_of(engine_index, knobs);
    for (const Candidate &c : state.search.candidates)
        if (c.tag == tag) {
            *why = tag + ": a duplicate of an existing candidate";
            return CandidateResult::Duplicate;
        }

    std::vector<Descriptor> choices;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (const Knob &k : knobs) {
        Descriptor choice(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
        cudnnBackendKnobType_t type = static_cast<cudnnBackendKnobType_t>(k.type);
        choice.set(CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &type, "CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE");
        choice.set_int64(CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, k.value, "CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE");
        choice.finalize("finalizing a knob choice", FE_STATUS_INVALID_ARGUMENT);
        raw.push_back(choice.get());
        choices.push_back(std::move(choice));
    }
    Descriptor config(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    config.set_desc(CUDNN_ATTR_ENGINECFG_ENGINE, engine, "CUDNN_ATTR_ENGINECFG_ENGINE");
    if (!raw.empty())
        config.set(CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(raw.size()),
                   raw.data(), "CUDNN_ATTR_ENGINECFG_KNOB_CHOICES");
    cudnnStatus_t st = config.try_finalize();
    if (st != CUDNN_STATUS_SUCCESS) {
        std::string reason = cudnn_last_error_text();
        *why = tag + ": " + cudnn().cudnnGetErrorString(st) + (reason.empty() ? "" : " (" + reason + ")");
        return CandidateResult::Refused;
    }
    Candidate c;
    c.engine_index = engine_index;
    c.knobs = std::move(knobs);
    c.tag = std::move(tag);
    c.workspace = config.get_int64(CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, "CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE");
    read_notes(config, &c.numerical_notes, &c.behavior_notes);
    c.shared_memory = read_shared_memory(config);
    c.config = std::move(config);
    state.search.candidates.push_back(std::move(c));
    return CandidateResult::Added;
}

std::vector<std::vector<Knob>> one_knob_neighbours(const std::vector<KnobRange> &ranges, const std::vector<Knob> &base) {
    std::vector<std::vector<Knob>> out;
    for (const KnobRange &r : ranges) {
        auto at = std::find_if(base.begin(), base.end(), [&](const Knob &k) { return k.type == r.type; });
        for (int64_t v : values_of(r)) {
            if (at != base.end() && at->value == v) continue;
            std::vector<Knob> next = base;
            if (at != base.end())
                next[static_cast<size_t>(at - base.begin())].value = v;
            else
                next.push_back({r.type, v});
            sort_by_type(&next);
            out.push_back(std::move(next));
        }
    }
    return out;
}

}  // namespace fe
