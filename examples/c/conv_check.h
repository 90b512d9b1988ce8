/* CPU references for the convolution examples, one element at a time, and a check of an output
 * at sampled elements: the tutorial's shapes are too large to recompute whole on the CPU in an
 * example, so each output is checked at a few thousand elements spread over it (and every
 * element for being finite, which catches unwritten ones: outputs are poisoned with NaN). */
#ifndef CUDNNFE_CONV_CHECK_H
#define CUDNNFE_CONV_CHECK_H

#include "example_util.h"

/* A 4-D tensor's host copy (as example_input / example_download return it, indexed by offset)
 * with its dims and strides, for fast element access. */
typedef struct conv_host {
    int64_t dims[4], strides[4];
    const float *values;
} conv_host;
conv_host conv_host_of(const fe_tensor *tensor, const float *values);
double conv_host_at(const conv_host *t, int64_t i0, int64_t i1, int64_t i2, int64_t i3);

/* y = conv(x, w) as cudnnfe computes it: 2-D cross-correlation with symmetric padding, stride,
 * dilation and groups (w is [K, C / groups, R, S]). */
typedef struct conv_geometry {
    int64_t pad[2], stride[2], dilation[2], groups;
} conv_geometry;
conv_geometry conv_geometry_of(int64_t pad, int64_t stride, int64_t dilation, int64_t groups);

/* y[n, k, h, v] of the forward convolution. */
double conv_fprop_at(const conv_host *x, const conv_host *w, const conv_geometry *g, const int64_t *y_index);
/* dx[n, c, h, v] of the data gradient, from dy and w. */
double conv_dgrad_at(const conv_host *dy, const conv_host *w, const conv_geometry *g, const int64_t *dx_index);
/* dw[k, c, r, s] of the weight gradient, from x and dy. */
double conv_wgrad_at(const conv_host *x, const conv_host *dy, const conv_geometry *g, const int64_t *dw_index);

/* The expected value of an output at a logical index. */
typedef double (*conv_expected)(const int64_t *index, const void *context);

/* Check that every element of `tensor` (its device values `got`, indexed by offset) is finite and
 * that `samples` of them, spread over it, are within atol + rtol * |expected|. Prints one line
 * and returns 0 if so, else 1. */
int conv_check_sampled(const char *what, const fe_tensor *tensor, const float *got, int64_t samples,
                       conv_expected expected, const void *context, double atol, double rtol);

/* The dims of a tensor as "[16, 128, 56, 56]" into buf. */
const char *conv_dims_text(const fe_tensor *tensor, char *buf, size_t size);

#endif
