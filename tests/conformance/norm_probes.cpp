#include "probes.hpp"

namespace conformance {

void register_norm_probes(std::vector<Probe> &) {}

}  // namespace conformance
