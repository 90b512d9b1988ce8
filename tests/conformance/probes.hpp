// Probes of the capability table: each runs the configuration an entry refuses ("known bad") or
// reports no engine for ("observed"), with the table's check lifted for that entry
// (CUDNNFE_PROBE_BYPASS), and records what the loaded cuDNN does with it now: no engine, a fault,
// wrong values (with the error) or right. Each probe runs in a process of its own, so that a fault
// or a hang cannot spoil the others.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness.hpp"

namespace conformance {

struct Probe {
    const char *feature;  // the capability table entry (lib/backend/capabilities.cpp)
    std::string runs;     // the configuration it runs, in words
    std::function<void(Case &)> run;
    // A replay: the case of a conformance run that found the entry (its family, seed and index
    // draw the same configuration and inputs), which `run` then runs as its family does, or
    // changes first. Null family: a pinned configuration of the probe's own.
    const char *family = nullptr;
    uint64_t seed = 0;
    int64_t index = 0;
    // Another entry whose refusal the configuration meets as well (a broader one), lifted with it.
    const char *also_bypass = nullptr;
};

// The probe that reruns case `index` of `family` at `seed`, as the conformance run that found the
// entry (or a refusal for its reason) ran it; the results table shows the case's configuration.
Probe replay(const char *feature, const char *family, uint64_t seed, int64_t index);

const std::vector<Probe> &probes();

// The probe protocol of cudnnfe_conformance: --probe NAMES|all runs each named probe in a child
// (--probe-one NAME), given `timeout_seconds` before it counts as a hang, and writes the results
// table; returns the exit status.
int run_probes(const std::string &names, uint64_t seed, const std::string &summary, int64_t timeout_seconds);
int run_one_probe(const std::string &name, uint64_t seed);

// The probes, by the files that hold them.
void register_attention_probes(std::vector<Probe> &out);  // attention_probes.cpp
void register_conv_probes(std::vector<Probe> &out);       // conv_probes.cpp
void register_matmul_probes(std::vector<Probe> &out);     // matmul_probes.cpp
void register_norm_probes(std::vector<Probe> &out);       // norm_probes.cpp
void register_pointwise_probes(std::vector<Probe> &out);  // pointwise_probes.cpp
void register_replay_probes(std::vector<Probe> &out);     // replay_probes.cpp

}  // namespace conformance
