// The entry point of concatenate, whose inputs are an array, which its description does not say.
// The other layout operations' come from their descriptions (lib/api/generate_entry_points.py).
#include <vector>

#include "api/guard.hpp"
#include "graph/graph.hpp"
#include "ops/ops.hpp"
#include "ops/graph_ops.hpp"

using namespace fe;

FE_EXPORT fe_status fe_graph_concatenate(fe_graph *graph, size_t count, fe_tensor *const *inputs, int64_t axis,
                                         const fe_concatenate_options *options, fe_tensor **out_y) {
    return guard("fe_graph_concatenate", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(inputs);
        FE_REQUIRE(out_y);
        FE_CHECK(count >= 2, FE_STATUS_INVALID_ARGUMENT, "count is %zu; a concatenation takes at least 2 tensors", count);
        for (size_t i = 0; i < count; ++i)
            FE_CHECK(inputs[i] != nullptr, FE_STATUS_NULL_POINTER, "inputs[%zu] is NULL", i);
        const fe_concatenate_options defaults = FE_CONCATENATE_OPTIONS_INIT;
        fe_concatenate_options o = read_options(options, defaults);
        *out_y = add_concatenate(*graph, std::vector<fe_tensor *>(inputs, inputs + count), axis, o)[0];
    });
}
