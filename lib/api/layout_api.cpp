// Entry points of the layout operations that take more than their descriptions say: resampling
// (pooling, upsampling) forward and backward, whose options are required, and concatenate, whose
// inputs are an array. Transpose, reshape and slice come from their descriptions
// (lib/api/generate_entry_points.py).
#include <map>
#include <string>
#include <vector>

#include "api/guard.hpp"
#include "graph/graph.hpp"
#include "ops/ops.hpp"
#include "ops/graph_ops.hpp"

using namespace fe;

namespace {

fe_resample_options resample_options(const fe_resample_options *given) {
    const fe_resample_options defaults = FE_RESAMPLE_OPTIONS_INIT;
    return read_options(given, defaults);
}

}  // namespace

FE_EXPORT fe_status fe_graph_resample(fe_graph *graph, fe_tensor *x, const fe_resample_options *options,
                                      fe_tensor **out_y, fe_tensor **out_index) {
    return guard("fe_graph_resample", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(x);
        FE_CHECK(options != nullptr, FE_STATUS_NULL_POINTER,
                 "argument 'options' is NULL: resampling needs its mode and window (FE_RESAMPLE_OPTIONS_INIT)");
        FE_REQUIRE(out_y);
        fe_resample_options o = resample_options(options);
        FE_CHECK(!o.generate_index || out_index, FE_STATUS_NULL_POINTER,
                 "options.generate_index is set but out_index is NULL");
        Results outputs = add_resample(*graph, x, o);
        *out_y = outputs[0];
        if (out_index) *out_index = o.generate_index ? outputs[1] : nullptr;
    });
}

FE_EXPORT fe_status fe_graph_resample_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *y,
                                               fe_tensor *index, size_t dx_ndims, const int64_t *dx_dims,
                                               const fe_resample_options *options, fe_tensor **out_dx) {
    return guard("fe_graph_resample_backward", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(dy);
        FE_CHECK(options != nullptr, FE_STATUS_NULL_POINTER,
                 "argument 'options' is NULL: the backward needs the forward's options");
        FE_REQUIRE(out_dx);
        FE_CHECK(x || dx_dims, FE_STATUS_NULL_POINTER,
                 "x and dx_dims are both NULL: dx's dims come from one of them");
        std::vector<int64_t> dims;
        if (dx_dims) {
            FE_CHECK(dx_ndims >= 4 && dx_ndims <= 5, FE_STATUS_INVALID_ARGUMENT,
                     "dx_dims has %zu dims; resampling takes [N, C, spatial...] with 2 or 3 spatial dims", dx_ndims);
            dims.assign(dx_dims, dx_dims + dx_ndims);
        }
        fe_resample_options o = resample_options(options);
        *out_dx = add_resample_backward(*graph, dy, x, y, index, dims, o)[0];
    });
}

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
