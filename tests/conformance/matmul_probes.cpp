#include "probes.hpp"

namespace conformance {

void register_matmul_probes(std::vector<Probe> &) {}

}  // namespace conformance
