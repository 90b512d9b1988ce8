// Each operation added to a graph the one way: its node made and named, the result ports its
// options ask for, and the types its results take. The C entry points (lib/api, after checking
// their pointers and reading the caller's option structs) and the graph JSON reader (lib/serial)
// both add operations through these, so a graph read back is built as the caller's was.
#pragma once

#include <memory>
#include <vector>

#include "cudnnfe.h"
#include "graph/graph.hpp"
#include "schema/schema.hpp"

namespace fe {

using Results = const std::vector<fe_tensor *> &;

// Adds `node` for `call` under `name` (the options' name; automatic when empty): of the kind its
// description names, with the output ports it lists (every one of which is always there), each
// of the type its port gives, if it gives one.
Results add_call(fe_graph &g, std::unique_ptr<Node> node, const schema::Call &call, const char *name);

// Statistics, amax values and drawn masks are float whatever the io type (the user may still
// override).
void keep_float(fe_tensor *t);
// Gradients of scale and bias take scale's type when it has one (else the graph's defaults).
void like_scale(fe_tensor *t, const fe_tensor *scale);


// naming_kind: the prefix of automatic names when it is not the mode's ("bias", "silu").
Results add_pointwise(fe_graph &g, fe_pointwise_mode mode, fe_tensor *in0, fe_tensor *in1, fe_tensor *in2,
                      const fe_pointwise_options &o, const char *naming_kind = nullptr);
Results add_reduction(fe_graph &g, fe_tensor *x, fe_reduction_mode mode, const fe_reduction_options &o);

Results add_rng(fe_graph &g, fe_tensor *seed, fe_tensor *offset, const fe_rng_options &o);

Results add_sdpa(fe_graph &g, fe_tensor *q, fe_tensor *k, fe_tensor *v, const fe_sdpa_options &o);
Results add_sdpa_fp8(fe_graph &g, fe_tensor *q, fe_tensor *k, fe_tensor *v, const fe_sdpa_fp8_scales &s,
                     const fe_sdpa_options &o);
Results add_sdpa_backward(fe_graph &g, fe_tensor *q, fe_tensor *k, fe_tensor *v, fe_tensor *o, fe_tensor *d_o,
                          fe_tensor *stats, const fe_sdpa_backward_options &options);
Results add_sdpa_fp8_backward(fe_graph &g, fe_tensor *q, fe_tensor *k, fe_tensor *v, fe_tensor *o, fe_tensor *d_o,
                              fe_tensor *stats, const fe_sdpa_fp8_backward_scales &s,
                              const fe_sdpa_backward_options &options);

Results add_batchnorm(fe_graph &g, fe_tensor *x, fe_tensor *scale, fe_tensor *bias, const fe_batchnorm_options &o);
Results add_batchnorm_inference(fe_graph &g, fe_tensor *x, fe_tensor *mean, fe_tensor *inv_variance,
                                fe_tensor *scale, fe_tensor *bias, const fe_batchnorm_inference_options &o);

Results add_resample(fe_graph &g, fe_tensor *x, const fe_resample_options &o);
// dx_dims: empty when x gives them.
Results add_resample_backward(fe_graph &g, fe_tensor *dy, fe_tensor *x, fe_tensor *y, fe_tensor *index,
                              const std::vector<int64_t> &dx_dims, const fe_resample_options &o);
Results add_concatenate(fe_graph &g, const std::vector<fe_tensor *> &xs, int64_t axis,
                        const fe_concatenate_options &o);

}  // namespace fe
