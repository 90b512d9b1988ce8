#include "conv_check.h"

#include <math.h>

conv_host conv_host_of(const fe_tensor *tensor, const float *values) {
    conv_host t;
    size_t n = 0;
    CHECK(fe_tensor_get_ndims(tensor, &n));
    if (n != 4) {
        fprintf(stderr, "conv_host_of: '%s' has rank %zu; the examples' references are 2-D\n", example_tensor_name(tensor), n);
        exit(1);
    }
    CHECK(fe_tensor_get_dims(tensor, t.dims, 4));
    CHECK(fe_tensor_get_strides(tensor, t.strides, 4));
    t.values = values;
    return t;
}

double conv_host_at(const conv_host *t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return t->values[i0 * t->strides[0] + i1 * t->strides[1] + i2 * t->strides[2] + i3 * t->strides[3]];
}

conv_geometry conv_geometry_of(int64_t pad, int64_t stride, int64_t dilation, int64_t groups) {
    conv_geometry g;
    g.pad[0] = g.pad[1] = pad;
    g.stride[0] = g.stride[1] = stride;
    g.dilation[0] = g.dilation[1] = dilation;
    g.groups = groups;
    return g;
}

double conv_fprop_at(const conv_host *x, const conv_host *w, const conv_geometry *g, const int64_t *y) {
    const int64_t n = y[0], k = y[1], per_group = w->dims[1];
    const int64_t first_channel = k / (w->dims[0] / g->groups) * per_group;
    double acc = 0;
    for (int64_t c = 0; c < per_group; ++c)
        for (int64_t r = 0; r < w->dims[2]; ++r) {
            int64_t ih = y[2] * g->stride[0] - g->pad[0] + r * g->dilation[0];
            if (ih < 0 || ih >= x->dims[2]) continue;
            for (int64_t s = 0; s < w->dims[3]; ++s) {
                int64_t iw = y[3] * g->stride[1] - g->pad[1] + s * g->dilation[1];
                if (iw < 0 || iw >= x->dims[3]) continue;
                acc += conv_host_at(x, n, first_channel + c, ih, iw) * conv_host_at(w, k, c, r, s);
            }
        }
    return acc;
}

double conv_dgrad_at(const conv_host *dy, const conv_host *w, const conv_geometry *g, const int64_t *dx) {
    /* dx[n, c, h, v] gathers every dy[n, k, oh, ow] whose window put w[k, c', r, s] on (h, v):
     * h = oh * stride - pad + r * dilation, for the output channels k of c's group. */
    const int64_t n = dx[0], per_group = w->dims[1], outputs_per_group = w->dims[0] / g->groups;
    const int64_t group = dx[1] / per_group, c = dx[1] % per_group;
    double acc = 0;
    for (int64_t k = group * outputs_per_group; k < (group + 1) * outputs_per_group; ++k)
        for (int64_t r = 0; r < w->dims[2]; ++r) {
            int64_t th = dx[2] + g->pad[0] - r * g->dilation[0];
            if (th < 0 || th % g->stride[0] != 0 || th / g->stride[0] >= dy->dims[2]) continue;
            for (int64_t s = 0; s < w->dims[3]; ++s) {
                int64_t tw = dx[3] + g->pad[1] - s * g->dilation[1];
                if (tw < 0 || tw % g->stride[1] != 0 || tw / g->stride[1] >= dy->dims[3]) continue;
                acc += conv_host_at(dy, n, k, th / g->stride[0], tw / g->stride[1]) * conv_host_at(w, k, c, r, s);
            }
        }
    return acc;
}

double conv_wgrad_at(const conv_host *x, const conv_host *dy, const conv_geometry *g, const int64_t *dw) {
    /* dw[k, c, r, s] sums x under tap (r, s) times dy over every image and output position. */
    const int64_t k = dw[0], per_group = x->dims[1] / g->groups, outputs_per_group = dy->dims[1] / g->groups;
    const int64_t channel = k / outputs_per_group * per_group + dw[1];
    double acc = 0;
    for (int64_t n = 0; n < x->dims[0]; ++n)
        for (int64_t oh = 0; oh < dy->dims[2]; ++oh) {
            int64_t ih = oh * g->stride[0] - g->pad[0] + dw[2] * g->dilation[0];
            if (ih < 0 || ih >= x->dims[2]) continue;
            for (int64_t ow = 0; ow < dy->dims[3]; ++ow) {
                int64_t iw = ow * g->stride[1] - g->pad[1] + dw[3] * g->dilation[1];
                if (iw < 0 || iw >= x->dims[3]) continue;
                acc += conv_host_at(x, n, channel, ih, iw) * conv_host_at(dy, n, k, oh, ow);
            }
        }
    return acc;
}

/* Logical row-major index of element e. */
static void unflatten(int64_t e, size_t rank, const int64_t *dims, int64_t *index) {
    for (size_t d = rank; d-- > 0;) {
        index[d] = e % dims[d];
        e /= dims[d];
    }
}

int conv_check_sampled(const char *what, const fe_tensor *tensor, const float *got, int64_t samples,
                       conv_expected expected, const void *context, double atol, double rtol) {
    size_t rank = 0;
    int64_t dims[FE_MAX_DIMS], strides[FE_MAX_DIMS], index[FE_MAX_DIMS];
    CHECK(fe_tensor_get_ndims(tensor, &rank));
    CHECK(fe_tensor_get_dims(tensor, dims, FE_MAX_DIMS));
    CHECK(fe_tensor_get_strides(tensor, strides, FE_MAX_DIMS));
    int64_t count = example_count(tensor), non_finite = 0, bad = 0;
    for (int64_t e = 0; e < count; ++e) {
        int64_t offset = 0;
        unflatten(e, rank, dims, index);
        for (size_t d = 0; d < rank; ++d) offset += index[d] * strides[d];
        if (!isfinite(got[offset]) && non_finite++ == 0)
            fprintf(stderr, "%s: element %lld is %g (unwritten or overflow)\n", what, (long long)e, got[offset]);
    }
    if (samples > count) samples = count;
    int64_t step = count / samples;
    unsigned long long jitter = 0x2545F4914F6CDD1DULL;
    double max_abs = 0;
    for (int64_t i = 0; i < samples; ++i) {
        /* One element from each of `samples` equal stretches, at a pseudo-random place in it, so
         * that borders and every channel get visited. */
        jitter = jitter * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t e = i * step + (int64_t)((jitter >> 33) % (unsigned long long)step), offset = 0;
        unflatten(e, rank, dims, index);
        for (size_t d = 0; d < rank; ++d) offset += index[d] * strides[d];
        double want = expected(index, context), err = fabs(got[offset] - want);
        if (isfinite(got[offset]) && err > max_abs) max_abs = err;
        if (!(err <= atol + rtol * fabs(want)) && bad++ == 0)
            fprintf(stderr, "%s: element %lld is %g, expected %g\n", what, (long long)e, got[offset], want);
    }
    if (non_finite || bad) {
        fprintf(stderr, "%s: %lld elements not finite, %lld of %lld sampled outside tolerance\n", what,
                (long long)non_finite, (long long)bad, (long long)samples);
        return 1;
    }
    printf("verified on GPU: %s, %lld of %lld elements against the CPU, max abs err %.3g\n", what, (long long)samples,
           (long long)count, max_abs);
    return 0;
}

const char *conv_dims_text(const fe_tensor *tensor, char *buf, size_t size) {
    size_t rank = 0, used = 0;
    int64_t dims[FE_MAX_DIMS];
    CHECK(fe_tensor_get_ndims(tensor, &rank));
    CHECK(fe_tensor_get_dims(tensor, dims, FE_MAX_DIMS));
    buf[0] = '\0';
    for (size_t d = 0; d < rank && used < size; ++d)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", d ? ", " : "[", (long long)dims[d]);
    if (used < size) snprintf(buf + used, size - used, "]");
    return buf;
}
