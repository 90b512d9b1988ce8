// cuDNN's engines and their knobs: the search space beyond the configs heuristics offer.
// Heuristics rank a few knob settings per engine; autotuning's knob search and callers who
// tune by hand make other settings of the same engines into candidates.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plan/build_state.hpp"

namespace fe {

struct KnobRange {
    int32_t type = 0;
    int64_t min_value = 0, max_value = 0, stride = 1;
};

// The tag of a finalized engine config ("eng<index>_k<type>=<value>..."), its engine's global
// index and its knob settings (sorted by type).
std::string describe_config(const Descriptor &config, int64_t *engine_index, std::vector<Knob> *knobs);
// The engine index and knob settings a tag names ("eng6_k24=26"); false for another form.
bool config_of_tag(const std::string &tag, int64_t *engine_index, std::vector<Knob> *knobs);
// The numerical and behaviour notes of a config's engine, as masks of bit (1 << note).
void read_notes(const Descriptor &config, uint64_t *numerical, uint64_t *behavior);
// The shared memory per block a config uses, as cuDNN reports it (cuDNN 9.2); -1 where it does not.
int64_t read_shared_memory(const Descriptor &config);
// The engine, knobs, tag, notes and shared memory of a finalized plan's config, as cuDNN gives
// them for the plan itself (a plan reused from a cache or a blob); false where cuDNN does not
// give the config back.
bool read_plan_config_facts(const Descriptor &plan, Plan *out);

// The knobs engine `engine_index` has for the graph's operation graph. Raises
// FE_STATUS_NOT_SUPPORTED (with cuDNN's reason) when the engine does not run the graph.
std::vector<KnobRange> engine_knobs(const fe_graph &graph, int64_t engine_index);

enum class CandidateResult { Added, Duplicate, Refused };

// Make engine `engine_index` with these knob settings (unnamed knobs keep the engine's
// defaults) a candidate of the graph. Otherwise *why names the config and says why: an
// identical candidate exists, or cuDNN refuses the config (its reason).
CandidateResult add_engine_candidate(fe_graph &graph, int64_t engine_index, std::vector<Knob> knobs,
                                     std::string *why);

// The settings one knob away from `base`: each knob of `ranges` set in turn to each of its
// other values (all of them for small ranges; powers of two for wide ones).
std::vector<std::vector<Knob>> one_knob_neighbours(const std::vector<KnobRange> &ranges, const std::vector<Knob> &base);

}  // namespace fe
