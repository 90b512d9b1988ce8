// What lowering knows of the GPU a graph is built for: the capability table's GPU gates read the
// generation, and entries whose defect depends on how a kernel's blocks fill the GPU read the SM
// count.
#pragma once

namespace fe {

struct TargetGpu {
    int generation = 0;  // compute capability, major * 10 + minor (90 for an H100); 0: not known
    int sm_count = 0;    // streaming multiprocessors; 0: not known
};

}  // namespace fe
