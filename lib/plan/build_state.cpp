#include "plan/build_state.hpp"

// Defined here, where BuildState is a complete type, so the graph layer need not know it.
fe_graph::fe_graph() = default;
fe_graph::~fe_graph() = default;
const fe::ExecutablePlan *fe_graph::executable() const { return build ? &build->executable : nullptr; }

namespace fe {

const char *heur_mode_name(fe_heur_mode mode) {
    switch (mode) {
        case FE_HEUR_MODE_INSTANT: return "INSTANT";
        case FE_HEUR_MODE_B: return "B";
        case FE_HEUR_MODE_FALLBACK: return "FALLBACK";
        case FE_HEUR_MODE_A: return "A";
    }
    return "invalid";
}

}  // namespace fe
