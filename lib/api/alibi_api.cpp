// fe_alibi_slopes, the one function beside the ops that only computes. Every op's entry point, and
// every convenience's (fe_graph_bias, ...), is generated from its description
// (lib/api/generate_entry_points.py).
#include "api/guard.hpp"
#include "ops/ops.hpp"

using namespace fe;

FE_EXPORT fe_status fe_alibi_slopes(int64_t heads, float *out) {
    return guard("fe_alibi_slopes", [&] {
        FE_REQUIRE(out);
        alibi_slopes(heads, out);
    });
}
