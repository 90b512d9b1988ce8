// Random numbers drawn by cuDNN (Philox, seeded per call by seed and offset tensors). Attention
// uses Bernoulli draws for its dropout; the graph-level operation comes with the other ops.
#include <cudnn_graph.h>

#include "common/error.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"

namespace fe {

void emit_rng_bernoulli(Lowering &lowering, double keep_probability, const Descriptor &seed, const Descriptor &offset,
                        const Descriptor &y, const std::string &label) {
    Descriptor rng(CUDNN_BACKEND_RNG_DESCRIPTOR);
    cudnnRngDistribution_t distribution = CUDNN_RNG_DISTRIBUTION_BERNOULLI;
    rng.set(CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, 1, &distribution, "CUDNN_ATTR_RNG_DISTRIBUTION");
    rng.set(CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 1, &keep_probability,
            "CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY");
    rng.finalize("finalizing the RNG descriptor", FE_STATUS_NOT_SUPPORTED);
    const Descriptor &kept = lowering.keep(std::move(rng));
    Descriptor op(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR);
    op.set_desc(CUDNN_ATTR_OPERATION_RNG_YDESC, y, "RNG Y");
    op.set_desc(CUDNN_ATTR_OPERATION_RNG_DESC, kept, "RNG descriptor");
    op.set_desc(CUDNN_ATTR_OPERATION_RNG_SEED, seed, "RNG seed");
    op.set_desc(CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, offset, "RNG offset");
    std::string what = "finalizing " + label;
    op.finalize(what.c_str(), FE_STATUS_NOT_SUPPORTED);
    lowering.add_operation(std::move(op));
}

}  // namespace fe
