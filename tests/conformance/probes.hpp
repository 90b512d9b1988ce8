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
    const char *runs;     // the configuration it runs, in words
    std::function<void(Case &)> run;
};

const std::vector<Probe> &probes();

// The probe protocol of cudnnfe_conformance: --probe NAMES|all runs each named probe in a child
// (--probe-one NAME) and writes the results table; returns the exit status.
int run_probes(const std::string &names, uint64_t seed, const std::string &summary);
int run_one_probe(const std::string &name, uint64_t seed);

// The probes, by the files that hold them.
void register_attention_probes(std::vector<Probe> &out);  // attention_probes.cpp
void register_conv_probes(std::vector<Probe> &out);       // conv_probes.cpp
void register_matmul_probes(std::vector<Probe> &out);     // matmul_probes.cpp
void register_norm_probes(std::vector<Probe> &out);       // norm_probes.cpp

}  // namespace conformance
