/* Helpers shared by the C examples: checked calls, random data, the GPU-or-deviceless choice,
 * strided indexing and result comparison. Each example stays about its graph. */
#ifndef CUDNNFE_EXAMPLE_UTIL_H
#define CUDNNFE_EXAMPLE_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cudnnfe.h"

/* Exit codes: 0 verified or built devicelessly, 1 failure, 77 skipped (no cuDNN). */
#define EXAMPLE_SKIP 77

/* Run a cudnnfe call; on failure print the call and the library's message and exit. */
#define CHECK(call) example_check((call), #call)
void example_check(fe_status status, const char *call);

/* For printing: the graph's name, the tensor's name and the built graph's engine tag (the
 * library's strings; a query that fails exits as CHECK does). */
const char *example_graph_name(const fe_graph *graph);
const char *example_tensor_name(const fe_tensor *tensor);
const char *example_engine_tag(const fe_graph *graph);

/* A new graph named `name` in the usual mixed precision: fp16 inputs and outputs, float
 * intermediates and math (the examples made of several graphs create each this way). */
fe_graph *example_fp16_graph(const char *name);

/* A GPU handle, or NULL (having said why) when this machine has no GPU. */
fe_handle *example_handle(void);

/* The GPU handle for an example with one graph. On a machine with no GPU it does the example's
 * deviceless part instead (example_build_deviceless), destroys the graph and exits with that
 * result, so that the example's main goes on only where there is a GPU to execute on. */
fe_handle *example_handle_or_build_deviceless(fe_graph *graph, int argc, char **argv);

/* No GPU: build the graph for the H100 description (argv[1], $CUDNNFE_DEVICE_JSON, or
 * ../shared/devices/h100-sxm-80gb.json), print the plan, and return the exit code. */
int example_build_deviceless(fe_graph *graph, int argc, char **argv);
/* The same up to cuDNN's support check, without the plan build (whose kernel compilation a
 * machine with no GPU cannot finish anyway): for examples with many graphs, to stay quick. */
int example_check_deviceless(fe_graph *graph, int argc, char **argv);

/* The whole file (NUL-terminated; size nullable), or NULL. The caller frees it. */
char *example_read_file(const char *path, size_t *size);
/* The GPU description deviceless builds use: argv[1], $CUDNNFE_DEVICE_JSON, or the H100's. */
const char *example_device_json_path(int argc, char **argv);

/* Fill a buffer for `tensor` with fresh uniform values in [-1, 1], rounded to its data type
 * on the device; `host` receives the rounded values (the tensor's span, indexed by offset). */
fe_buffer *example_input(fe_tensor *tensor, float **host);
/* A buffer for an output, poisoned (all bits set: NaN) so unwritten elements show. */
fe_buffer *example_output(fe_tensor *tensor);
/* Download an output as floats (span-sized, indexed by offset). */
float *example_download(fe_buffer *buffer, fe_tensor *tensor);

/* The end of an example, one line each: free its host arrays (example_input's copies, downloads,
 * references) and destroy its device buffers. The lists are long and the same in every example,
 * and not what an example is there to show. NULLs in either list are passed over. */
#define example_free_all(...)                                                                                          \
    example_free_array((void *[]){__VA_ARGS__}, sizeof((void *[]){__VA_ARGS__}) / sizeof(void *))
void example_free_array(void **arrays, size_t count);
#define example_destroy_buffers(...)                                                                                   \
    example_destroy_buffer_array((fe_buffer *[]){__VA_ARGS__}, sizeof((fe_buffer *[]){__VA_ARGS__}) / sizeof(fe_buffer *))
void example_destroy_buffer_array(fe_buffer **buffers, size_t count);

/* Element offset of a logical index under the tensor's strides. */
int64_t example_offset(const fe_tensor *tensor, const int64_t *index);

/* Compare `got` (device output, indexed by offset) with `want` (logical row-major order):
 * print the max errors and return 0 if every element is finite and within
 * atol + rtol * |want|, else 1. */
int example_compare(const char *what, const fe_tensor *tensor, const float *got, const double *want, double atol,
                    double rtol);

/* CPU references of the examples' graphs, in double, over the host copies example_input returned
 * (indexed by offset); the result is in logical row-major order, as example_compare wants it.
 * The caller frees it. */
/* C[b] = A[b] x B[b] + D for packed A [batch, m, k], B [batch, k, n] and D [1, m, n] (broadcast
 * over the batch): the matmul examples' graph. */
double *example_matmul_bias_reference(const float *a, const float *b, const float *d, int64_t batch, int64_t m,
                                      int64_t n, int64_t k);
/* y = conv(x, w) for 4-D x [N, C, H, W] and w [K, C, R, S] in any layout: 2-D cross-correlation
 * with stride 1, dilation 1 and `padding` zeros on every side, so y is
 * [N, K, H + 2 * padding - R + 1, W + 2 * padding - S + 1]. */
double *example_conv_reference(const fe_tensor *x, const float *xh, const fe_tensor *w, const float *wh,
                               int64_t padding);

/* Number of logical elements of a tensor. */
int64_t example_count(const fe_tensor *tensor);

#endif
