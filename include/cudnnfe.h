/*
 * cudnnfe — the cuDNN graph API as a stable C ABI.
 *
 * Conventions (they hold for every function below unless its comment says otherwise):
 *
 *  - Every fallible call returns fe_status; FE_OK is 0. Output parameters are written only
 *    when the call returns FE_OK. On failure, fe_last_error_message() returns a one-line,
 *    thread-local message that names the function and the cause.
 *  - Pointer arguments are checked for NULL; a NULL where one is not allowed returns
 *    FE_STATUS_NULL_POINTER. Arguments documented as "nullable" accept NULL.
 *  - Objects are opaque. fe_x_create(..., fe_x **out) makes one, fe_x_destroy(fe_x *) frees it,
 *    and fe_x_destroy(NULL) does nothing. Tensors belong to their graph and are freed with it.
 *  - Every function that takes an object (fe_x_destroy aside) returns fe_status, queries and
 *    getters included: the answer goes to the last parameters (out_*), so a NULL object or a
 *    query made too early (the engine of a graph not built yet) fails with its status instead
 *    of answering a placeholder. A property that has a setter fe_x_set_<property> is read with
 *    fe_x_get_<property> (fe_tensor_get_name, fe_tensor_get_dims, fe_handle_get_stream; a flag
 *    with fe_x_is_<flag>); other queries are named for what they answer (fe_graph_get_name,
 *    fe_graph_plan_count, fe_buffer_size). Only the calls that need no object (fe_version,
 *    fe_version_string, fe_status_string, fe_last_error_message, fe_data_type_string,
 *    fe_data_type_size, fe_data_type_bits) return their answer directly; they never fail.
 *  - Strings returned as `const char *` (directly or through a `const char **` output) are owned
 *    by the library and stay valid as long as the object they came from (and are not changed by
 *    a later setter on that object).
 *  - Counts and indexes of things the library holds in memory (dims, tensors, heuristic modes,
 *    candidates, plans, engines, knobs, buffer bytes) are size_t. int64_t is for tensor values
 *    (dims, strides, uids), device memory sizes and cuDNN's own numbers: an engine index is
 *    cuDNN's global engine id, 0 to fe_graph_engine_count - 1.
 *  - Dimensions and strides are `const int64_t *` with an element count (at most FE_MAX_DIMS);
 *    device pointers and CUDA streams are `void *`. Dims and strides are positive, and a
 *    tensor's elements must be addressable: dims and strides whose span passes 2^63 elements
 *    are refused (FE_STATUS_INVALID_ARGUMENT).
 *  - Every value is checked at the call that takes it: numbers in options must be finite unless
 *    their comment says otherwise (NaN and infinities are refused with
 *    FE_STATUS_INVALID_ARGUMENT), enum values must be the enum's, and names (of graphs, tensors
 *    and operations) must be UTF-8 text, as the graph JSON, the plan cache and serialized
 *    blobs store them.
 *  - Destroying an object twice, or using one after it was destroyed (a tensor after its graph
 *    was destroyed, a graph after fe_graph_destroy), is undefined behaviour in C, as with
 *    free(): the library cannot tell a freed pointer from a live one. The Java, C# and Go
 *    bindings make both safe (a second close does nothing; use after close throws).
 *  - Option structs begin with `struct_size`; initialize them with their FE_X_INIT macro
 *    (FE_CONV_OPTIONS_INIT, ...), so that code compiled against an older header keeps working
 *    when fields are appended. A struct_size larger than the library's struct (a caller built
 *    against a newer header) is accepted while the fields this library does not know are all
 *    zero, and refused with FE_STATUS_INVALID_ARGUMENT otherwise.
 *  - Threads: building a graph (adding tensors and operations, the build steps) is
 *    single-threaded per graph. A built graph may be executed concurrently from several
 *    threads, each with its own fe_handle. An fe_handle is used by one thread at a time.
 *  - cuDNN and the CUDA runtime are loaded at first need with dlopen. Graph construction,
 *    validation and description work without them; calls that need them return
 *    FE_STATUS_LIBRARY_UNAVAILABLE with a message listing what was tried.
 */
#ifndef CUDNNFE_H
#define CUDNNFE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define FE_API
#elif defined(CUDNNFE_BUILDING)
#define FE_API __attribute__((visibility("default")))
#else
#define FE_API
#endif

/* In C++ the enumerations get a fixed 32-bit underlying type, so that any value a C caller or a
 * binding passes is a valid value to check (C enums are int-sized already). */
#ifdef __cplusplus
#define FE_ENUM_BASE : int32_t
#else
#define FE_ENUM_BASE
#endif

#define FE_VERSION_MAJOR 1
#define FE_VERSION_MINOR 4
#define FE_VERSION_PATCH 0
/** FE_VERSION_MAJOR * 10000 + FE_VERSION_MINOR * 100 + FE_VERSION_PATCH */
#define FE_VERSION (FE_VERSION_MAJOR * 10000 + FE_VERSION_MINOR * 100 + FE_VERSION_PATCH)

/** Maximum tensor rank cuDNN accepts. */
#define FE_MAX_DIMS 8
/** Maximum number of spatial dimensions of a convolution (1-D, 2-D or 3-D). */
#define FE_MAX_SPATIAL_DIMS 3

/* ------------------------------------------------------------------------------------------ */
/* Status codes. Values are never renumbered; new ones are appended.                           */
/* ------------------------------------------------------------------------------------------ */
typedef enum fe_status FE_ENUM_BASE {
    FE_OK = 0,
    FE_STATUS_INVALID_ARGUMENT = 1,    /* a value is out of range or inconsistent */
    FE_STATUS_NULL_POINTER = 2,        /* a required pointer argument is NULL */
    FE_STATUS_BAD_STATE = 3,           /* the call is out of order (e.g. execute before build) */
    FE_STATUS_NOT_FOUND = 4,           /* a name or uid that the graph does not have */
    FE_STATUS_DUPLICATE = 5,           /* a uid or binding given twice */
    FE_STATUS_VALIDATION = 6,          /* the graph is inconsistent (shapes, dtypes, wiring) */
    FE_STATUS_BUFFER_TOO_SMALL = 7,    /* a buffer is smaller than the data it must hold */
    FE_STATUS_MISALIGNED = 8,          /* a device pointer is not 16-byte aligned */
    FE_STATUS_NOT_SUPPORTED = 9,       /* cuDNN has no engine or plan for this graph */
    FE_STATUS_LIBRARY_UNAVAILABLE = 10,/* cuDNN or the CUDA runtime could not be loaded */
    FE_STATUS_CUDNN_ERROR = 11,        /* a cuDNN call failed; the message has its text */
    FE_STATUS_CUDA_ERROR = 12,         /* a CUDA runtime call failed; the message has its text */
    FE_STATUS_OUT_OF_MEMORY = 13,      /* host or device allocation failed */
    FE_STATUS_NO_DEVICE = 14,          /* the CUDA runtime loaded but reports no usable GPU */
    FE_STATUS_INTERNAL = 15,           /* a bug in cudnnfe; the message says where */
    FE_STATUS_CANNOT_TELL = 16         /* whether the graph is supported, or its plan builds, cannot be
                                        * told on this machine: no CUDA driver, only the CUDA
                                        * toolkit's stub, or a driver that sees no GPU (deviceless
                                        * builds); judge or build it where a GPU and its driver are */
} fe_status;

/* ------------------------------------------------------------------------------------------ */
/* Enumerations. Numeric values match cuDNN's where cuDNN has the same concept.               */
/* ------------------------------------------------------------------------------------------ */
typedef enum fe_data_type FE_ENUM_BASE {
    FE_DATA_NOT_SET = -1, /* take the graph's default (io for inputs/outputs, intermediate otherwise) */
    FE_DATA_FLOAT = 0,
    FE_DATA_DOUBLE = 1,
    FE_DATA_HALF = 2,
    FE_DATA_INT8 = 3,
    FE_DATA_INT32 = 4,
    FE_DATA_UINT8 = 6,
    FE_DATA_BFLOAT16 = 9,
    FE_DATA_INT64 = 10,
    /* A bound boolean tensor is a bitmask: the element at offset e (in elements) is bit e % 8 of
     * byte e / 8, the least significant first (the ReLU masks of the norm fusions; verified on an
     * H200). fe_tensor_size_bytes counts a byte an element, more than the mask needs. */
    FE_DATA_BOOLEAN = 11,
    FE_DATA_FP8_E4M3 = 12,
    FE_DATA_FP8_E5M2 = 13,
    FE_DATA_FP8_E8M0 = 15, /* power-of-two scale factors of block scaling (MXFP8); no host conversion */
    /* 4-bit integers (signed -8..7, unsigned 0..15), two to a byte: the element at the even
     * offset (in elements, from the buffer's start) in the low four bits. Weights of weight-only
     * quantized matmuls, converted or dequantized to half inside the graph; no host conversion
     * (upload packed bytes). cuDNN 9.19 runs int4 only: a graph with a uint4 tensor is refused
     * at build (docs/capabilities.md). */
    FE_DATA_INT4 = 17,
    FE_DATA_UINT4 = 18,
    /* Complex numbers of two floats (real, then imaginary: 8 bytes an element), the operands and
     * result of a matmul alone (cuDNN >= 9.14, math in float); no host conversion. */
    FE_DATA_COMPLEX_FP32 = 20
} fe_data_type;

typedef enum fe_heur_mode FE_ENUM_BASE {
    FE_HEUR_MODE_INSTANT = 0,
    FE_HEUR_MODE_B = 1,
    FE_HEUR_MODE_FALLBACK = 2,
    FE_HEUR_MODE_A = 3
} fe_heur_mode;

typedef enum fe_build_policy FE_ENUM_BASE {
    FE_BUILD_POLICY_HEURISTICS_CHOICE = 0, /* build candidates in order; keep the first that builds */
    FE_BUILD_POLICY_ALL = 1                /* build every supported candidate; use the first */
} fe_build_policy;

typedef enum fe_conv_mode FE_ENUM_BASE {
    FE_CONV_MODE_CONVOLUTION = 0,
    FE_CONV_MODE_CROSS_CORRELATION = 1 /* the default, as in deep-learning frameworks */
} fe_conv_mode;

typedef enum fe_pointwise_mode FE_ENUM_BASE {
    FE_POINTWISE_ADD = 0,
    FE_POINTWISE_MUL = 1,
    FE_POINTWISE_MIN = 2,
    FE_POINTWISE_MAX = 3,
    FE_POINTWISE_SQRT = 4,
    FE_POINTWISE_ADD_SQUARE = 5,
    FE_POINTWISE_DIV = 6,
    FE_POINTWISE_MOD = 7,
    FE_POINTWISE_POW = 8,
    FE_POINTWISE_SUB = 9,
    FE_POINTWISE_ABS = 10,
    FE_POINTWISE_CEIL = 11,
    FE_POINTWISE_COS = 12,
    FE_POINTWISE_EXP = 13,
    FE_POINTWISE_FLOOR = 14,
    FE_POINTWISE_LOG = 15,
    FE_POINTWISE_NEG = 16,
    FE_POINTWISE_RSQRT = 17,
    FE_POINTWISE_SIN = 18,
    FE_POINTWISE_TAN = 19,
    FE_POINTWISE_ERF = 20,
    FE_POINTWISE_IDENTITY = 21,
    FE_POINTWISE_RECIPROCAL = 22,
    FE_POINTWISE_ATAN2 = 23,
    FE_POINTWISE_RELU_FWD = 100,
    FE_POINTWISE_TANH_FWD = 101,
    FE_POINTWISE_SIGMOID_FWD = 102,
    FE_POINTWISE_ELU_FWD = 103,
    FE_POINTWISE_GELU_FWD = 104,
    FE_POINTWISE_SOFTPLUS_FWD = 105,
    FE_POINTWISE_SWISH_FWD = 106, /* silu when swish_beta is 1 */
    FE_POINTWISE_GELU_APPROX_TANH_FWD = 107,
    FE_POINTWISE_RELU_BWD = 200,
    FE_POINTWISE_TANH_BWD = 201,
    FE_POINTWISE_SIGMOID_BWD = 202,
    FE_POINTWISE_ELU_BWD = 203,
    FE_POINTWISE_GELU_BWD = 204,
    FE_POINTWISE_SOFTPLUS_BWD = 205,
    FE_POINTWISE_SWISH_BWD = 206,
    FE_POINTWISE_GELU_APPROX_TANH_BWD = 207,
    FE_POINTWISE_CMP_EQ = 300,
    FE_POINTWISE_CMP_NEQ = 301,
    FE_POINTWISE_CMP_GT = 302,
    FE_POINTWISE_CMP_GE = 303,
    FE_POINTWISE_CMP_LT = 304,
    FE_POINTWISE_CMP_LE = 305,
    FE_POINTWISE_LOGICAL_AND = 400,
    FE_POINTWISE_LOGICAL_OR = 401,
    FE_POINTWISE_LOGICAL_NOT = 402,
    FE_POINTWISE_GEN_INDEX = 501,
    FE_POINTWISE_BINARY_SELECT = 601
} fe_pointwise_mode;

typedef enum fe_reduction_mode FE_ENUM_BASE {
    FE_REDUCTION_ADD = 0,
    FE_REDUCTION_MUL = 1,
    FE_REDUCTION_MIN = 2,
    FE_REDUCTION_MAX = 3,
    FE_REDUCTION_AMAX = 4,
    FE_REDUCTION_AVG = 5,   /* the mean; AVG, NORM1 (sum of |x|) and NORM2 (root of the sum of */
    FE_REDUCTION_NORM1 = 6, /* squares): cuDNN 9.19 refuses them, FE_STATUS_NOT_SUPPORTED at */
    FE_REDUCTION_NORM2 = 7, /* build (docs/capabilities.md, reduction_mean_and_norms) */
    FE_REDUCTION_MUL_NO_ZEROS = 8 /* the product of the non-zero elements (cuDNN 9.19 refuses it:
                                     FE_STATUS_NOT_SUPPORTED at build, docs/capabilities.md) */
} fe_reduction_mode;

typedef enum fe_log_level FE_ENUM_BASE {
    FE_LOG_OFF = 0,
    FE_LOG_ERROR = 1,
    FE_LOG_WARN = 2,
    FE_LOG_INFO = 3,
    FE_LOG_DEBUG = 4
} fe_log_level;

/* ------------------------------------------------------------------------------------------ */
/* Opaque objects.                                                                             */
/* ------------------------------------------------------------------------------------------ */
typedef struct fe_handle fe_handle; /* a GPU, a stream, a cuDNN handle and a managed workspace */
typedef struct fe_graph fe_graph;   /* tensors and operations; after build, a runnable plan */
typedef struct fe_tensor fe_tensor; /* a tensor of a graph; owned by the graph */
typedef struct fe_buffer fe_buffer; /* device memory allocated by cudnnfe */
typedef struct fe_kernel_cache fe_kernel_cache; /* compiled kernels that dynamic-shape builds share */

/* ------------------------------------------------------------------------------------------ */
/* Library information and errors. These never fail and need no cuDNN.                        */
/* ------------------------------------------------------------------------------------------ */

/** The library's version as FE_VERSION encodes it (of the loaded library, not the header). */
FE_API uint32_t fe_version(void);
/** The library's version as "major.minor.patch". */
FE_API const char *fe_version_string(void);
/** A static, human-readable name for a status code ("FE_STATUS_NOT_SUPPORTED", ...). */
FE_API const char *fe_status_string(fe_status status);
/** The message of the last failed call on this thread ("" if none). Valid until the next
 *  failing call on this thread. */
FE_API const char *fe_last_error_message(void);
/** The name of a data type ("half", "bfloat16", ...), or "invalid". */
FE_API const char *fe_data_type_string(fe_data_type type);
/** Size in bytes of one element of the type; 0 for FE_DATA_NOT_SET, an unknown value and the
 *  4-bit types (fe_data_type_bits sizes those). */
FE_API size_t fe_data_type_size(fe_data_type type);
/** Bits of one element of the type: 4 for FE_DATA_INT4 and FE_DATA_UINT4, 8 * its size for the
 *  others; 0 for FE_DATA_NOT_SET or an unknown value. */
FE_API size_t fe_data_type_bits(fe_data_type type);

/** Every operation's description as JSON (the op schema): for each op its kind, C entry point,
 *  input and output ports (and the option that makes a conditional one exist), parameters, and
 *  option struct; for each option struct its fields with type, offset, size, default (its _INIT
 *  macro's), range and documentation; for each enum its values and JSON names. Binding
 *  generators and tools read it; `cudnnfe schema` prints it. Same buffer protocol as
 *  fe_device_properties_capture. Needs no cuDNN. */
FE_API fe_status fe_op_schema_json(char *buf, size_t buf_size, size_t *out_length);

/** Logging. Off by default. The environment sets it at load: CUDNNFE_LOG_LEVEL
 *  (off|error|warn|info|debug or 0..4) and CUDNNFE_LOG_DEST (stderr, stdout or a file path).
 *  The file is appended to and opened by the first line written (never with logging off),
 *  without following a link or waiting on a FIFO; a path that is not a regular file is not used
 *  and lines go to stderr, which says why. Control characters in lines (and in error messages)
 *  are written \xNN. In a setuid or setgid program every CUDNNFE_* variable is ignored.
 *  fe_log_set_level changes the level at run time; thread-safe. */
FE_API fe_status fe_log_set_level(fe_log_level level);

/** A destination for log lines: level is the line's level, message the line without the
 *  "[cudnnfe level] " prefix or newline (valid only during the call), user_data as given to
 *  fe_log_set_callback. */
typedef void (*fe_log_callback)(fe_log_level level, const char *message, void *user_data);

/** Sends every log line that passes the level (fe_log_set_level) to callback instead of
 *  CUDNNFE_LOG_DEST; NULL restores that default destination. Thread-safe. The callback may be
 *  called from any thread that calls into the library, one line at a time (calls are serialized);
 *  it must not call back into cudnnfe. After this function returns, the previous callback is no
 *  longer called, so its user_data may be freed. */
FE_API fe_status fe_log_set_callback(fe_log_callback callback, void *user_data);

/** The cuDNN version, e.g. 91900 for 9.19.0. Loads cuDNN. */
FE_API fe_status fe_cudnn_version(int64_t *out_version);
/** The CUDA runtime version, e.g. 13000 for 13.0. Loads the CUDA runtime. */
FE_API fe_status fe_cuda_runtime_version(int32_t *out_version);
/** The number of CUDA devices (0 is a valid answer on a machine with the runtime and no GPU). */
FE_API fe_status fe_device_count(int32_t *out_count);

/** Write cuDNN's JSON description of a live GPU (for deviceless builds elsewhere) into buf.
 *  out_length receives the length without the terminating NUL; if buf is NULL or
 *  buf_size is too small, nothing is written to buf, *out_length is set and
 *  FE_STATUS_BUFFER_TOO_SMALL is returned (so call once with NULL to size the buffer). */
FE_API fe_status fe_device_properties_capture(int32_t device, char *buf, size_t buf_size,
                                              size_t *out_length);
/** A GPU description for deviceless builds where none was captured: that of the usual GPU of the
 *  compute capability sm_version (e.g. 90), as the library carries it. 90: an NVIDIA H100 80GB
 *  HBM3 (SXM, 132 SMs), captured with fe_device_properties_capture (cuDNN 9.19, driver 580); its
 *  plans run on GPUs with the same SM count and shared memory (an H100 SXM, an H200). Another
 *  version is FE_STATUS_NOT_SUPPORTED naming the ones carried: capture the target with
 *  fe_device_properties_capture instead. Same buffer protocol as fe_device_properties_capture;
 *  needs no cuDNN or GPU. */
FE_API fe_status fe_device_properties_for_sm(int32_t sm_version, char *buf, size_t buf_size,
                                             size_t *out_length);

/* ------------------------------------------------------------------------------------------ */
/* Handles.                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/** Let kernels on `device` read and write memory allocated on `peer` (cudaDeviceEnablePeerAccess;
 *  synchronized batchnorm's buffers need it between every pair of its GPUs). Enabling it again
 *  is FE_OK. FE_STATUS_NOT_SUPPORTED when the GPUs cannot reach each other (no NVLink or PCIe
 *  peer path); FE_STATUS_INVALID_ARGUMENT for a device that does not exist or device == peer. */
FE_API fe_status fe_device_enable_peer_access(int32_t device, int32_t peer);

/** Create a handle on a CUDA device (stream: the legacy default stream). Loads cuDNN and the
 *  CUDA runtime. The handle owns a workspace that grows on demand for executions that are
 *  given no workspace. One thread at a time may use a handle. */
FE_API fe_status fe_handle_create(int32_t device, fe_handle **out_handle);
FE_API void fe_handle_destroy(fe_handle *handle);
/** Set the CUDA stream (a cudaStream_t) on which executions are enqueued. nullable stream. */
FE_API fe_status fe_handle_set_stream(fe_handle *handle, void *stream);
FE_API fe_status fe_handle_get_stream(const fe_handle *handle, void **out_stream);
FE_API fe_status fe_handle_get_device(const fe_handle *handle, int32_t *out_device);
/** Wait until all work enqueued on the handle's stream has finished. */
FE_API fe_status fe_handle_synchronize(fe_handle *handle);
/** Write the values of `filter`, an int8 convolution filter vectorized in 32 values along dim 1
 *  and packed (rank 4 or 5), from device memory at `values` to device memory at `reordered` (both
 *  fe_tensor_size_bytes bytes, not overlapping) in the order cuDNN's INT8x32 kernels read
 *  (fe_tensor_set_reordering), on the handle's stream. FE_STATUS_NOT_SUPPORTED when the loaded
 *  cuDNN lacks its legacy cudnnReorderFilterAndBias. */
FE_API fe_status fe_handle_reorder_filter_int8x32(fe_handle *handle, const fe_tensor *filter, const void *values,
                                                  void *reordered);
/** Bytes of workspace the handle currently holds. */
FE_API fe_status fe_handle_workspace_size(const fe_handle *handle, int64_t *out_bytes);

/* ------------------------------------------------------------------------------------------ */
/* Device buffers: memory for users with no other CUDA binding (Java, C#, Go).                 */
/* Transfers are synchronous with respect to the host and ordered with the legacy default      */
/* stream; with a non-blocking stream on a handle, call fe_handle_synchronize before reading.  */
/* ------------------------------------------------------------------------------------------ */

FE_API fe_status fe_buffer_create(int32_t device, int64_t size_bytes, fe_buffer **out_buffer);
/** A buffer large enough for the tensor's elements at its strides. */
FE_API fe_status fe_buffer_create_for_tensor(int32_t device, const fe_tensor *tensor,
                                             fe_buffer **out_buffer);
FE_API void fe_buffer_destroy(fe_buffer *buffer);
FE_API fe_status fe_buffer_device_pointer(const fe_buffer *buffer, void **out_pointer);
FE_API fe_status fe_buffer_size(const fe_buffer *buffer, int64_t *out_bytes);
/** Copy size_bytes bytes from host memory to the buffer at byte offset 0. */
FE_API fe_status fe_buffer_upload(fe_buffer *buffer, const void *host, int64_t size_bytes);
FE_API fe_status fe_buffer_download(const fe_buffer *buffer, void *host, int64_t size_bytes);
/** Upload `count` host floats, converted to device_type (float, double, half, bfloat16,
 *  fp8_e4m3, fp8_e5m2: nearest even; past the 8-bit formats' range, finite values saturate). */
FE_API fe_status fe_buffer_upload_float(fe_buffer *buffer, const float *host, int64_t count,
                                        fe_data_type device_type);
/** Download `count` elements of device_type, converted to host floats. */
FE_API fe_status fe_buffer_download_float(const fe_buffer *buffer, float *host, int64_t count,
                                          fe_data_type device_type);
/** Set every byte of the buffer to `value` (e.g. to poison outputs before a test). */
FE_API fe_status fe_buffer_fill_bytes(fe_buffer *buffer, uint8_t value);

/* ------------------------------------------------------------------------------------------ */
/* Graphs and tensors.                                                                          */
/* ------------------------------------------------------------------------------------------ */

typedef struct fe_graph_options {
    uint32_t struct_size;
    const char *name;                    /* nullable: "graph" */
    fe_data_type io_data_type;           /* default of inputs and outputs */
    fe_data_type intermediate_data_type; /* default of virtual (intermediate) tensors */
    fe_data_type compute_data_type;      /* default math precision of operations */
} fe_graph_options;
#define FE_GRAPH_OPTIONS_INIT \
    { (uint32_t)sizeof(fe_graph_options), NULL, FE_DATA_NOT_SET, FE_DATA_FLOAT, FE_DATA_FLOAT }

/** Create an empty graph. options is nullable (defaults: FE_GRAPH_OPTIONS_INIT). A graph with
 *  io_data_type FE_DATA_NOT_SET needs every input and output to carry its own type. */
FE_API fe_status fe_graph_create(const fe_graph_options *options, fe_graph **out_graph);
/** Free the graph, its tensors and its plans. Must not run concurrently with its execution. */
FE_API void fe_graph_destroy(fe_graph *graph);
/** The graph's name (options->name, or "graph"). */
FE_API fe_status fe_graph_get_name(const fe_graph *graph, const char **out_name);

/** Add an input tensor. strides is nullable: packed (row-major in the order of dims).
 *  data_type may be FE_DATA_NOT_SET to take the graph's io type. Names must be unique. */
FE_API fe_status fe_graph_tensor(fe_graph *graph, const char *name, size_t ndims,
                                 const int64_t *dims, const int64_t *strides,
                                 fe_data_type data_type, fe_tensor **out_tensor);
/** Add an input tensor named `name` with the dims, strides and data type of `like` (a tensor of
 *  this graph or of another one, with the data type it has so far: FE_DATA_NOT_SET takes this
 *  graph's io type). Nothing else is copied: not the name, the uid, whether it is an output or
 *  its ragged offsets. E.g. a second graph's input shaped like the first graph's output. */
FE_API fe_status fe_graph_tensor_like(fe_graph *graph, const fe_tensor *like, const char *name,
                                      fe_tensor **out_tensor);
/** Add a scalar passed by value: the plan keeps the host value and hands it to cuDNN at every
 *  execution, and the kernels read it at run time. It takes the rank of the pointwise operation
 *  that uses it (all dims 1) and broadcasts; give operations of different ranks their own
 *  scalars. value must fit data_type: a whole number within the range of int32 and int64, at
 *  most the largest finite value of half, bfloat16 and float (their infinities and NaN are
 *  accepted); FE_STATUS_INVALID_ARGUMENT otherwise. */
FE_API fe_status fe_graph_scalar(fe_graph *graph, const char *name, double value,
                                 fe_data_type data_type, fe_tensor **out_tensor);
/** Add a compile-time constant: a scalar like fe_graph_scalar's whose value cuDNN compiles into
 *  the plan's kernels, which may specialize on it (another value needs another build; the value
 *  is part of the graph JSON and so of the plan key). Same values and types as fe_graph_scalar.
 *  Needs cuDNN 9.22 (CUDNN_ATTR_TENSOR_CONSTANT_VALUE): earlier versions refuse the build with
 *  FE_STATUS_NOT_SUPPORTED naming the version (docs/capabilities.md). */
FE_API fe_status fe_graph_constant(fe_graph *graph, const char *name, double value,
                                   fe_data_type data_type, fe_tensor **out_tensor);
FE_API fe_status fe_graph_tensor_by_name(const fe_graph *graph, const char *name,
                                         fe_tensor **out_tensor);
/** The graph's tensor with that uid: one set with fe_tensor_set_uid, or, once built, one the
 *  build assigned (FE_STATUS_NOT_FOUND when no tensor has it). For a framework that binds by uid
 *  (fe_graph_execute_by_uid, a plan's uid map) and wants the tensor back. */
FE_API fe_status fe_graph_tensor_by_uid(const fe_graph *graph, int64_t uid, fe_tensor **out_tensor);
/** The graph's non-virtual tensors in execution order for fe_graph_execute_positional:
 *  inputs in creation order, then outputs in the order set_output(true) was called. */
FE_API fe_status fe_graph_input_count(const fe_graph *graph, size_t *out_count);
FE_API fe_status fe_graph_input(const fe_graph *graph, size_t index, fe_tensor **out_tensor);
FE_API fe_status fe_graph_output_count(const fe_graph *graph, size_t *out_count);
FE_API fe_status fe_graph_output(const fe_graph *graph, size_t index, fe_tensor **out_tensor);

/** Packed (row-major) strides for dims (positive; FE_STATUS_INVALID_ARGUMENT for a dim that is
 *  not, or when the tensor would hold more than 2^63 elements). */
FE_API fe_status fe_strides_packed(size_t ndims, const int64_t *dims, int64_t *out_strides);
/** Channels-last strides (NHWC, NDHWC, NWC) for dims given as N, C, spatial..., with the same
 *  rules as fe_strides_packed. */
FE_API fe_status fe_strides_channels_last(size_t ndims, const int64_t *dims,
                                          int64_t *out_strides);

/* Tensor setters: allowed until the graph is built. Op outputs get their dims, strides and
 * type by inference unless set here. Names are UTF-8 and unique in the graph; fe_tensor_set_dims
 * checks, as fe_graph_tensor does, that the tensor stays addressable with the strides it keeps.
 * The strides of a graph output must give each element its own address (sorted by stride, each
 * dim's stride at least the extent of the dims inside it): fe_graph_validate refuses an output
 * whose elements would overlap (inputs may overlap, e.g. to broadcast). A scalar passed by value
 * (fe_graph_scalar) keeps its dims and strides. */
FE_API fe_status fe_tensor_set_name(fe_tensor *tensor, const char *name);
FE_API fe_status fe_tensor_set_dims(fe_tensor *tensor, size_t ndims, const int64_t *dims);
FE_API fe_status fe_tensor_set_strides(fe_tensor *tensor, size_t ndims, const int64_t *strides);
FE_API fe_status fe_tensor_set_data_type(fe_tensor *tensor, fe_data_type data_type);
/** The largest uid a caller may set (2^62 - 1). The build numbers the tensors it adds itself
 *  (constants, workspace tensors) from above the largest uid set, so they can never collide with
 *  or wrap into the caller's. */
#define FE_MAX_USER_UID ((int64_t)0x3FFFFFFFFFFFFFFF)
/** Set a uid, 0 to FE_MAX_USER_UID (FE_STATUS_INVALID_ARGUMENT outside it), unique in the graph
 *  (FE_STATUS_DUPLICATE otherwise). Without one, the build assigns uids that do not collide with
 *  the ones set. */
FE_API fe_status fe_tensor_set_uid(fe_tensor *tensor, int64_t uid);
/** Promise that every pointer bound to this tensor is aligned to `bytes` (a power of two from 16,
 *  which every pointer must have, to 4096): cuDNN may choose kernels that rely on it (wider
 *  loads, fewer bounds checks). fe_buffer and cudaMalloc memory is 256-byte aligned. Execution
 *  refuses a pointer that breaks the promise (FE_STATUS_MISALIGNED); a virtual tensor cannot
 *  promise (validation fails). Part of the graph JSON ("alignment") and so of the plan cache key. */
FE_API fe_status fe_tensor_set_alignment(fe_tensor *tensor, int64_t bytes);
/** Store an int8 graph input in vectors of `count` consecutive values of dim `dim`: cuDNN's
 *  NCHW_VECT_C layouts of int8 convolutions, INT8x4 (count 4) and INT8x32 (count 32), with dim 1
 *  (the channels). The tensor's dims and strides then count vectors along that dim: an image of
 *  C channels is [N, C / count, H, W] with strides in vectors ({C / count * H * W, H * W, W, 1}
 *  packed), an element (n, c, h, w) lying at vector offset + c % count bytes, and
 *  fe_tensor_size_bytes counts every value. A forward convolution (fe_graph_conv_fprop) of a
 *  vectorized image and filter (both with the same count) gives a vectorized result along dim 1
 *  ([N, K / count, ...], K a multiple of count); vectorized tensors belong to such a convolution
 *  alone, in int8 with an int8 result (the build refuses anything else, saying why). count 1
 *  removes it. Refused: another count, a dim other than 1 of a rank-4 or rank-5 tensor, an
 *  operation's result (its vectorization follows its image). Part of the graph JSON. */
FE_API fe_status fe_tensor_set_vectorization(fe_tensor *tensor, int32_t count, int32_t dim);
/** The order a tensor's values are stored in. */
typedef enum fe_tensor_reordering FE_ENUM_BASE {
    FE_TENSOR_REORDERING_NONE = 0,   /* as its dims and strides say */
    FE_TENSOR_REORDERING_INT8X32 = 1 /* rearranged for cuDNN's INT8x32 kernels (fe_handle_reorder_filter_int8x32) */
} fe_tensor_reordering;
/** Declare that an INT8x32 convolution filter (an int8 graph input vectorized in 32 values along
 *  dim 1) holds its values reordered for cuDNN's INT8x32 kernels, as
 *  fe_handle_reorder_filter_int8x32 writes them; FE_TENSOR_REORDERING_NONE undoes it. Refused on a
 *  tensor not so vectorized; the build refuses it on anything but a forward convolution's filter.
 *  Part of the graph JSON. */
FE_API fe_status fe_tensor_set_reordering(fe_tensor *tensor, fe_tensor_reordering reordering);
FE_API fe_status fe_tensor_get_reordering(const fe_tensor *tensor, fe_tensor_reordering *out_reordering);
/** Values a vector of the tensor holds: 1, 4 or 32 (fe_tensor_set_vectorization; a convolution's
 *  result once the graph is validated). */
FE_API fe_status fe_tensor_get_vector_count(const fe_tensor *tensor, int32_t *out_count);
/** The dim the tensor is vectorized along, or -1 when it is not. */
FE_API fe_status fe_tensor_get_vector_dim(const fe_tensor *tensor, int32_t *out_dim);
/** Packed variable-length ("ragged") layout: batch i of `tensor` starts at element offsets[i] of
 *  its buffer instead of i * stride[0]. offsets is an int32/int64 graph input of dims
 *  [b + 1, 1, 1, 1] (exclusive prefix sums of the per-batch sizes); attention uses it with a
 *  padding mask. NULL removes it. */
FE_API fe_status fe_tensor_set_ragged_offset(fe_tensor *tensor, fe_tensor *offsets);
/** Mark an operation's result as a graph output (non-virtual), or undo it. */
FE_API fe_status fe_tensor_set_output(fe_tensor *tensor, int32_t is_output);

/** The tensor's name ("<op name>::<port>" for the results of operations). */
FE_API fe_status fe_tensor_get_name(const fe_tensor *tensor, const char **out_name);
FE_API fe_status fe_tensor_get_ndims(const fe_tensor *tensor, size_t *out_ndims);
/** Copy the dims into out (capacity `capacity`, at least the rank). Op outputs have their
 *  inferred dims once the graph is validated (the op call itself infers them already). */
FE_API fe_status fe_tensor_get_dims(const fe_tensor *tensor, int64_t *out_dims, size_t capacity);
FE_API fe_status fe_tensor_get_strides(const fe_tensor *tensor, int64_t *out_strides,
                                       size_t capacity);
FE_API fe_status fe_tensor_get_data_type(const fe_tensor *tensor, fe_data_type *out_type);
/** The uid: the one set, or after build the one assigned. FE_STATUS_BAD_STATE before that. */
FE_API fe_status fe_tensor_get_uid(const fe_tensor *tensor, int64_t *out_uid);
FE_API fe_status fe_tensor_is_output(const fe_tensor *tensor, int32_t *out_flag);
FE_API fe_status fe_tensor_is_virtual(const fe_tensor *tensor, int32_t *out_flag);
/** Bytes a buffer for this tensor needs (largest reachable element + 1, times its size). */
FE_API fe_status fe_tensor_size_bytes(const fe_tensor *tensor, int64_t *out_bytes);

/* ------------------------------------------------------------------------------------------ */
/* Operations. Each fe_graph_<op> takes its inputs, then an options struct (struct_size,      */
/* then the op's name, then its own fields; nullable unless its comment says otherwise), then */
/* the outputs. Each returns its result tensors (virtual until fe_tensor_set_output), named   */
/* "<op name>::<port>". Names are optional: a NULL name gives "<kind>_<n>".                   */
/* Each op declares these in its own file under lib/ops/, beside its description, and        */
/* scripts/schema/generate_header.py copies them here, family by family: edit them there.    */
/* ------------------------------------------------------------------------------------------ */

/* ------------------------------------------------------------------------------------------ */
/* Convolutions.                                                                              */
/* ------------------------------------------------------------------------------------------ */

/* >>> "Convolutions": declared in the files of lib/ops, copied by scripts/schema/generate_header.py */
typedef struct fe_conv_options {
    uint32_t struct_size;
    const char *name;                        /* nullable */
    size_t spatial_dims;                     /* 0: taken from the image's rank */
    int64_t pre_padding[FE_MAX_SPATIAL_DIMS];  /* per spatial dim, default 0 */
    int64_t post_padding[FE_MAX_SPATIAL_DIMS]; /* default 0 */
    int64_t stride[FE_MAX_SPATIAL_DIMS];       /* default 1 */
    int64_t dilation[FE_MAX_SPATIAL_DIMS];     /* default 1 */
    fe_conv_mode mode;                         /* default cross-correlation */
    fe_data_type compute_data_type;            /* default: the graph's */
    /* Grouped convolution: the channels split into `groups` groups that are convolved
     * separately; the weight is [K, C / groups, filter...] and groups divide both C and K.
     * Depthwise: groups = C. Default 1. */
    int64_t groups;
    /* fe_graph_conv_transpose only: extra result size on the far side of each spatial dim,
     * below the stride (picks one of the sizes a strided convolution maps to the same input).
     * Default 0. */
    int64_t output_padding[FE_MAX_SPATIAL_DIMS];
} fe_conv_options;
#define FE_CONV_OPTIONS_INIT                                                                  \
    { (uint32_t)sizeof(fe_conv_options), NULL, 0, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, \
      FE_CONV_MODE_CROSS_CORRELATION, FE_DATA_NOT_SET, 1, {0, 0, 0} }
/* The setters take either one value, which applies to every spatial dim whatever the image's
 * rank (as PyTorch reads `padding=1`), or one value per spatial dim (n = 2 or 3), which also fixes
 * options->spatial_dims to n: a setter given another count of 2 or more, or an image of another
 * rank, is refused rather than leaving the other dims at their defaults. Any other n is refused.
 * The Java, C# and Go bindings go through these setters, so the rule is the same everywhere. */
/** Pre and post padding alike. */
FE_API fe_status fe_conv_options_set_padding(fe_conv_options *options, size_t n,
                                             const int64_t *padding);
/** Padding before each spatial dim only. */
FE_API fe_status fe_conv_options_set_pre_padding(fe_conv_options *options, size_t n,
                                                 const int64_t *padding);
/** Padding after each spatial dim only. */
FE_API fe_status fe_conv_options_set_post_padding(fe_conv_options *options, size_t n,
                                                  const int64_t *padding);
FE_API fe_status fe_conv_options_set_stride(fe_conv_options *options, size_t n,
                                            const int64_t *stride);
FE_API fe_status fe_conv_options_set_dilation(fe_conv_options *options, size_t n,
                                              const int64_t *dilation);
/** fe_graph_conv_transpose's output_padding. */
FE_API fe_status fe_conv_options_set_output_padding(fe_conv_options *options, size_t n,
                                                    const int64_t *padding);

/** Data gradient of fe_graph_conv_fprop (backward data): dx from the loss gradient dy
 *  [N, K, out...] and the weight [K, C / groups, filter...], with the forward pass's options.
 *  dx_dims (dx_ndims of them) are the image's dims [N, C, in...] and are required: with a
 *  stride above 1 several image sizes give the same dy, so dx's size cannot be inferred (the
 *  call checks that these dims give dy). dx ("<name>::DX") is laid out like dy. */
FE_API fe_status fe_graph_conv_dgrad(fe_graph *graph, fe_tensor *loss, fe_tensor *weight,
                                     size_t dx_ndims, const int64_t *dx_dims,
                                     const fe_conv_options *options, fe_tensor **out_dx);

/** Forward convolution. image: [N, C, spatial...], weight: [K, C / groups, filter...], result
 *  [N, K, out...] with out = (in + pre + post - dilation*(filter-1) - 1) / stride + 1, laid out
 *  like the image (channels-last stays channels-last). options nullable. */
FE_API fe_status fe_graph_conv_fprop(fe_graph *graph, fe_tensor *image, fe_tensor *weight,
                                     const fe_conv_options *options, fe_tensor **out_y);

/** Transposed convolution (upsampling): the data gradient of a convolution with these options,
 *  applied to `image`, and lowered as one. image [N, C_in, in...], weight
 *  [C_in, C_out / groups, filter...] (the layout of PyTorch's ConvTranspose), result
 *  [N, C_out, out...] with out = (in - 1) * stride - pre - post + dilation * (filter - 1) + 1
 *  + output_padding, laid out like the image. */
FE_API fe_status fe_graph_conv_transpose(fe_graph *graph, fe_tensor *image, fe_tensor *weight,
                                         const fe_conv_options *options, fe_tensor **out_y);

/** Weight gradient of fe_graph_conv_fprop (backward filter): dw [K, C / groups, filter...] from
 *  the image [N, C, in...] and dy [N, K, out...], with the forward pass's options. dw_dims is
 *  nullable (then dw_ndims is ignored): the filter size is inferred when exactly one size gives
 *  dy, which always holds with stride 1; with a larger stride two sizes can (3 and 4 for a 3x3
 *  stride-2 layer on an even image), and the call then fails asking for dw_dims. dw
 *  ("<name>::DW") is laid out like the image. */
FE_API fe_status fe_graph_conv_wgrad(fe_graph *graph, fe_tensor *image, fe_tensor *loss,
                                     size_t dw_ndims, const int64_t *dw_dims,
                                     const fe_conv_options *options, fe_tensor **out_dw);
/* <<< "Convolutions" */

/* ------------------------------------------------------------------------------------------ */
/* Matmuls.                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* >>> "Matmuls": declared in the files of lib/ops, copied by scripts/schema/generate_header.py */
typedef struct fe_matmul_options {
    uint32_t struct_size;
    const char *name;
    fe_data_type compute_data_type;
    /* Variable-length batches (fe_graph_matmul only): each batch's actual sizes, int32 tensors of
     * C's batch dims followed by [1, 1] (nullable each). Only rows below m_override[b] and
     * columns below n_override[b] are computed, and the sum stops at k_override[b]; with an M or
     * N override, C's other rows and columns receive padding_value. cuDNN 9.19 computes them
     * wrongly on a matmul of its own: the build refuses them there (docs/capabilities.md). */
    fe_tensor *m_override;
    fe_tensor *n_override;
    fe_tensor *k_override;
    double padding_value; /* with m_override or n_override; default 0 */
    /* fe_graph_matmul_fp8 only: FP8 math with fast accumulation (cuDNN's FAST_FLOAT_FOR_FP8 compute
     * type for the product; the descales and amax stay float): faster on Hopper, with fewer bits
     * kept while the products are summed. Default 0. */
    int32_t fast_accumulate;
} fe_matmul_options;
#define FE_MATMUL_OPTIONS_INIT { (uint32_t)sizeof(fe_matmul_options), NULL, FE_DATA_NOT_SET, NULL, NULL, NULL, 0.0, 0 }

/** C = A x B. A: [..., M, K], B: [..., K, N], C: [..., M, N]; batch dims broadcast (equal, or
 *  1 on one side). 2-D operands are allowed. options nullable; its M, N and K overrides make a
 *  padded batch of variable-length matrices one matmul. */
FE_API fe_status fe_graph_matmul(fe_graph *graph, fe_tensor *a, fe_tensor *b,
                                 const fe_matmul_options *options, fe_tensor **out_c);

/* FP8 matmul's scaling factors: float tensors of one element (device tensors of any rank, or
 * fe_graph_scalar values), with fe_sdpa_fp8_scales' conventions: real = stored * descale,
 * stored = real * scale. All three are required. */
typedef struct fe_matmul_fp8_scales {
    uint32_t struct_size;
    fe_tensor *descale_a; /* turns A's stored FP8 values into real ones */
    fe_tensor *descale_b; /* turns B's stored FP8 values into real ones */
    fe_tensor *scale_c;   /* quantizes the real product into C */
} fe_matmul_fp8_scales;
#define FE_MATMUL_FP8_SCALES_INIT { (uint32_t)sizeof(fe_matmul_fp8_scales), NULL, NULL, NULL }

/** FP8 matmul (Hopper and later): C = (A x B, accumulated in float) * descale_a * descale_b *
 *  scale_c. A: [..., M, K], B: [..., K, N], fp8_e4m3 or fp8_e5m2 (checked when the graph is
 *  lowered); batch dims broadcast as in fe_graph_matmul. scales is required (see
 *  fe_matmul_fp8_scales); options nullable (fe_matmul_options: name, compute type, default
 *  float). out_c receives "<node>::C", [..., M, N], in A's FP8 type unless its type is set
 *  (fe_tensor_set_data_type: fp8, half, bfloat16 or float). out_amax receives "<node>::Amax",
 *  float, C's rank with all dims 1: the largest absolute value of the real product before
 *  scale_c (for the next step's scale); mark it as an output. Both are owned by the graph. */
FE_API fe_status fe_graph_matmul_fp8(fe_graph *graph, fe_tensor *a, fe_tensor *b,
                                     const fe_matmul_fp8_scales *scales,
                                     const fe_matmul_options *options, fe_tensor **out_c,
                                     fe_tensor **out_amax);

/* Which rows a mixture-of-experts grouped matmul reads and where it writes them. */
typedef enum fe_moe_mode FE_ENUM_BASE {
    FE_MOE_MODE_NONE = 0,   /* rows already grouped by expert: row r of token gives row r */
    FE_MOE_MODE_GATHER = 1, /* row r reads token row token_index[r] (dispatch: tokens to experts) */
    FE_MOE_MODE_SCATTER = 2 /* row r lands at token_index[r] * top_k + token_ks[r] (return trip) */
} fe_moe_mode;

typedef struct fe_moe_grouped_matmul_options {
    uint32_t struct_size;
    const char *name;
    fe_data_type compute_data_type; /* default: the graph's (float) */
    fe_moe_mode mode;               /* default NONE */
    /* GATHER and SCATTER: int32 [1, R, 1], per routed row the token it belongs to. */
    fe_tensor *token_index;
    /* SCATTER: int32 [1, R, 1], per routed row its slot in its token's top-k list (0..top_k-1). */
    fe_tensor *token_ks;
    int32_t top_k; /* SCATTER: experts per token (>= 1); 0 otherwise */
} fe_moe_grouped_matmul_options;
#define FE_MOE_GROUPED_MATMUL_OPTIONS_INIT                                                                      \
    { (uint32_t)sizeof(fe_moe_grouped_matmul_options), NULL, FE_DATA_NOT_SET, FE_MOE_MODE_NONE, NULL, NULL, 0 }

/** Mixture-of-experts grouped matmul (cuDNN >= 9.18): each expert's rows times that expert's
 *  weight, in one operation. token: [1, M, K]; weight: [E, K, N] (any layout cuDNN takes; the
 *  reference frontend's is K-contiguous, strides [K * N, 1, K]); first_token_offset: int32
 *  [G, 1, 1], G a multiple of E: the first routed row of each group, groups in order, group g
 *  using expert g % E and ending where the next starts (the last at the routed row count).
 *  Routed row r of group g computes (its token row) x weight[g % E]: token row r with NONE and
 *  SCATTER, token row token_index[r] with GATHER. out_y: [1, R, N] with R = token_index's rows
 *  for GATHER, else M; row r, or with SCATTER row token_index[r] * top_k + token_ks[r], receives
 *  the product (no routing weight is applied; rows no group covers are left as they were).
 *  In the graph's io type unless set. options nullable (mode NONE). */
FE_API fe_status fe_graph_moe_grouped_matmul(fe_graph *graph, fe_tensor *token, fe_tensor *weight,
                                             fe_tensor *first_token_offset,
                                             const fe_moe_grouped_matmul_options *options,
                                             fe_tensor **out_y);
/* <<< "Matmuls" */

/* ------------------------------------------------------------------------------------------ */
/* Pointwise.                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/* >>> "Pointwise": declared in the files of lib/ops, copied by scripts/schema/generate_header.py */
typedef struct fe_pointwise_options {
    uint32_t struct_size;
    const char *name;
    fe_data_type compute_data_type;
    double relu_lower_clip;       /* RELU: default 0; finite or -inf (no clip) */
    double relu_upper_clip;       /* RELU: default +inf (no clip); finite or +inf */
    double relu_lower_clip_slope; /* RELU: leaky slope below the lower clip, default 0 */
    double elu_alpha;             /* default 1 */
    double softplus_beta;         /* default 1 */
    double swish_beta;            /* default 1 (silu) */
    int64_t axis;                 /* GEN_INDEX: the dimension whose index is generated */
} fe_pointwise_options;
#define FE_POINTWISE_OPTIONS_INIT                                                          \
    { (uint32_t)sizeof(fe_pointwise_options), NULL, FE_DATA_NOT_SET, 0.0, 1e300, 0.0, 1.0, \
      1.0, 1.0, 0 }

/** A pointwise operation. Unary modes use in_0; binary modes in_0 and in_1 (broadcast to a common
 *  shape; same rank required); BINARY_SELECT uses in_0, in_1 and the boolean mask in_2. Unused
 *  inputs must be NULL. options nullable. */
FE_API fe_status fe_graph_pointwise(fe_graph *graph, fe_pointwise_mode mode, fe_tensor *in_0,
                                    fe_tensor *in_1, fe_tensor *in_2,
                                    const fe_pointwise_options *options, fe_tensor **out_y);
/* Conveniences of the seeds, each one pointwise node: bias and add are FE_POINTWISE_ADD, scale
 * and mul FE_POINTWISE_MUL, relu RELU_FWD, gelu GELU_FWD, silu SWISH_FWD (silu with the default
 * swish_beta of 1). options nullable: as for fe_graph_pointwise (name, compute type and the
 * mode's parameters); automatic names are "bias_<n>", "scale_<n>", "silu_<n>" and the mode's
 * name ("add_<n>", "relu_<n>", ...). */
FE_API fe_status fe_graph_bias(fe_graph *graph, fe_tensor *input, fe_tensor *bias,
                               const fe_pointwise_options *options, fe_tensor **out_y);
FE_API fe_status fe_graph_scale(fe_graph *graph, fe_tensor *input, fe_tensor *scale,
                                const fe_pointwise_options *options, fe_tensor **out_y);
FE_API fe_status fe_graph_add(fe_graph *graph, fe_tensor *a, fe_tensor *b,
                              const fe_pointwise_options *options, fe_tensor **out_y);
FE_API fe_status fe_graph_mul(fe_graph *graph, fe_tensor *a, fe_tensor *b,
                              const fe_pointwise_options *options, fe_tensor **out_y);
FE_API fe_status fe_graph_relu(fe_graph *graph, fe_tensor *input,
                               const fe_pointwise_options *options, fe_tensor **out_y);
FE_API fe_status fe_graph_gelu(fe_graph *graph, fe_tensor *input,
                               const fe_pointwise_options *options, fe_tensor **out_y);
FE_API fe_status fe_graph_silu(fe_graph *graph, fe_tensor *input,
                               const fe_pointwise_options *options, fe_tensor **out_y);
/* <<< "Pointwise" */

/* ------------------------------------------------------------------------------------------ */
/* Reduction and softmax.                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* >>> "Reduction and softmax": declared in the files of lib/ops, copied by scripts/schema/generate_header.py */
typedef struct fe_reduction_options {
    uint32_t struct_size;
    const char *name;
    fe_data_type compute_data_type;
    uint32_t reduce_axes; /* bit i set: dimension i is reduced to 1 */
    /* 1: bitwise-repeatable results (cuDNN adds the partial results in a fixed order; cuDNN
     * 9.11). cuDNN 9.19 fails to compile such a reduction's kernels: refused at build with
     * FE_STATUS_NOT_SUPPORTED, saying so (docs/capabilities.md). */
    int32_t deterministic;
} fe_reduction_options;
#define FE_REDUCTION_OPTIONS_INIT                                            \
    { (uint32_t)sizeof(fe_reduction_options), NULL, FE_DATA_NOT_SET, 0u, 0 }

/** Reduce `x` over the axes in options->reduce_axes (required: options is not nullable
 *  here, and at least one axis must be named). The result keeps the rank, with 1 in the
 *  reduced dimensions. */
FE_API fe_status fe_graph_reduction(fe_graph *graph, fe_tensor *x, fe_reduction_mode mode,
                                    const fe_reduction_options *options, fe_tensor **out_y);

typedef struct fe_softmax_options {
    uint32_t struct_size;
    const char *name;
    fe_data_type compute_data_type; /* default: the graph's */
    /* Also return the float log-sum-exp statistics, max + log(sum(exp(x - max))), per row. */
    int32_t generate_stats;
} fe_softmax_options;
#define FE_SOFTMAX_OPTIONS_INIT { (uint32_t)sizeof(fe_softmax_options), NULL, FE_DATA_NOT_SET, 0 }

/** Softmax over the last dim: y = exp(x - max) / sum(exp(x - max)); x [rows..., n] (rank >= 2),
 *  y like x. With options->generate_stats, out_stats receives the float statistics
 *  [rows..., 1]; otherwise it is nullable and set to NULL. options nullable.
 *  cuDNN has no native softmax: this lowers to reductions and pointwise operations, which
 *  cuDNN 9.19's engines run only fused between two matmuls (S = A.B, P = softmax(S), O = P.C: the
 *  attention pattern). A graph with a softmax on its own fails the support check with
 *  FE_STATUS_NOT_SUPPORTED and a message saying so; for attention prefer fe_graph_sdpa. */
FE_API fe_status fe_graph_softmax(fe_graph *graph, fe_tensor *x, const fe_softmax_options *options,
                                  fe_tensor **out_y, fe_tensor **out_stats);
/* <<< "Reduction and softmax" */

/* ------------------------------------------------------------------------------------------ */
/* Normalizations. Each norm is one native cuDNN operation (NORM_FORWARD or                    */
/* NORM_BACKWARD; batchnorm inference excepted, see there) run by cuDNN's normalization engines */
/* (their kernels are compiled when the graph is built on a GPU).                               */
/*                                                                                              */
/* Shapes. x has rank 2 to FE_MAX_DIMS and dim 0 is its batch (tokens, or images). scale and    */
/* bias have x's rank; a dim of scale either equals x's (the statistics are taken over it) or   */
/* is 1 (the statistics are per index of it). Each family says which dims it normalizes:        */
/*   layernorm, rmsnorm   scale [1, d1, ..., dk]: x [tokens, hidden] takes scale [1, hidden];     */
/*                        x [b, s, hidden] takes scale [1, 1, hidden] (or [1, s, hidden] to      */
/*                        normalize over s and hidden; images [N, C, H, W] take [1, C, H, W]).   */
/*   adalayernorm         as layernorm, but scale and bias may vary per sample: dim 0 is 1 or    */
/*                        x's, e.g. x [b, s, d] with scale and bias [b, 1, d].                   */
/*   batchnorm            x [N, C, spatial...], scale [1, C, 1, ...]: per channel, over batch    */
/*                        and space.                                                             */
/*   instancenorm         x [N, C, spatial...], scale [1, C, 1, ...]: per image and channel,     */
/*                        over space.                                                            */
/* The statistics have x's dims with the normalized dims set to 1 (batchnorm: scale's dims), are */
/* float, and are laid out in x's dim order. mean is the mean of x over the normalized dims,     */
/* inv_variance = 1 / sqrt(var + epsilon) with the population (biased) variance, and rmsnorm's    */
/* inv_rms = 1 / sqrt(mean(x^2) + epsilon).                                                      */
/*                                                                                              */
/* Types: x, dy, y and dx half, bfloat16 or float; scale and bias any of those (float is the     */
/* usual choice with half/bfloat16 x); statistics, epsilon and momentum float. The gradients of */
/* scale and bias take scale's data type when it has one (else the graph's defaults);           */
/* fe_tensor_set_data_type changes any of them.                                                 */
/* A rank-2 x [rows, d] is given to cuDNN as [rows, d, 1] (dim 0 stays the batch).               */
/* ------------------------------------------------------------------------------------------ */

/* >>> "Normalizations": declared in the files of lib/ops, copied by scripts/schema/generate_header.py */
/* Values match cuDNN's cudnnBackendNormFwdPhase_t. */
typedef enum fe_norm_phase FE_ENUM_BASE {
    FE_NORM_PHASE_INFERENCE = 0, /* y only */
    FE_NORM_PHASE_TRAINING = 1   /* y and the statistics the backward pass reads */
} fe_norm_phase;

typedef struct fe_norm_options {
    uint32_t struct_size;
    const char *name;             /* nullable: "<kind>_<n>" */
    fe_norm_phase phase;          /* default inference */
    double epsilon;               /* added to the variance; finite and >= 0; default 1e-5 */
    /* nullable: epsilon as a one-element float scalar made with fe_graph_scalar (cuDNN reads
     * epsilon only by value, never from device memory); it then replaces `epsilon`. */
    fe_tensor *epsilon_tensor;
    /* Zero-centred gamma: the norm multiplies by (1 + scale) instead of scale, so that a scale
     * initialised to 0 is the identity (layernorm and rmsnorm; cuDNN >= 9.7). cuDNN fuses the
     * (1 + scale) only when every dim after the first is normalized: view x [b, s, d] as
     * [b * s, d]. The gradient of scale is the same either way. */
    int32_t zero_centered_gamma;
} fe_norm_options;
#define FE_NORM_OPTIONS_INIT                                                            \
    { (uint32_t)sizeof(fe_norm_options), NULL, FE_NORM_PHASE_INFERENCE, 1e-5, NULL, 0 }

/* Synchronized batchnorm: GPUs that each hold part of a batch exchange per-channel partial
 * statistics through buffers that every GPU of the group can read and write
 * (fe_device_enable_peer_access between each pair). One buffer per GPU of the group, allocated
 * on that GPU: a float tensor [2, 4 * C, 1, 1] (strides [4 * C, 1, 4 * C, 4 * C]), listed in
 * the same order (the GPUs') in every GPU's graph. Each buffer is zero when the group starts an
 * execution: zero them all once the group's previous execution has finished on every GPU
 * (cuDNN's kernels mark what they wrote as ready and leave it so). cuDNN's kernels wait for the
 * peers' contributions, so every GPU of the group executes its graph at about the same time.
 * The forward's Mean and InvVariance (and the running statistics) are the whole batch's; the
 * backward's DX uses the whole batch's sums, and its DScale and DBias are those sums divided by
 * the number of GPUs, the same on every GPU (adding them across the group, as data-parallel
 * training adds weight gradients, gives the whole batch's). At most FE_MAX_PEER_STATS GPUs. */
#define FE_MAX_PEER_STATS 8

typedef struct fe_norm_backward_options {
    uint32_t struct_size;
    const char *name;
    /* The forward pass used (1 + scale): pass the same scale and set this too. */
    int32_t zero_centered_gamma;
    /* Batchnorm only: the peer statistics buffers of a synchronized batchnorm, as the
     * forward's (fe_batchnorm_options), set with fe_norm_backward_options_set_peer_stats. */
    size_t peer_stats_count;
    fe_tensor *peer_stats[FE_MAX_PEER_STATS];
} fe_norm_backward_options;
#define FE_NORM_BACKWARD_OPTIONS_INIT { (uint32_t)sizeof(fe_norm_backward_options), NULL, 0, 0, { NULL } }

/** Set the peer statistics buffers of a synchronized batchnorm's backward (count 0 clears them). */
FE_API fe_status fe_norm_backward_options_set_peer_stats(fe_norm_backward_options *options, size_t count,
                                                         fe_tensor *const *peer_stats);

/* The norms' backward passes (fe_graph_<norm>_backward). dy is the gradient of y (x's dims); x,
 * scale and the forward's statistics are what the forward pass read and returned in training.
 * out_dx receives the gradient of x (x's dims and layout), out_dscale and out_dbias those of scale
 * and bias (scale's dims), summed over the batch. All outputs are required except where a comment
 * says otherwise. options nullable (defaults: FE_NORM_BACKWARD_OPTIONS_INIT). */

/** Adaptive layer normalization (AdaLN, as in diffusion transformers): layer normalization
 *  whose scale and (nullable) bias may differ per sample, e.g. x [b, s, d], scale [b, 1, d].
 *  Outputs as fe_graph_layernorm; zero_centered_gamma is refused. Needs cuDNN >= 9.9
 *  (docs/capabilities.md): with an older cuDNN the build fails with FE_STATUS_NOT_SUPPORTED
 *  saying so. */
FE_API fe_status fe_graph_adalayernorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale,
                                       fe_tensor *bias, const fe_norm_options *options,
                                       fe_tensor **out_y, fe_tensor **out_mean,
                                       fe_tensor **out_inv_variance);
/** AdaLN backward (cuDNN >= 9.9); dscale and dbias are per sample like scale. out_dbias is
 *  nullable: NULL when the forward had no bias. */
FE_API fe_status fe_graph_adalayernorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x,
                                                fe_tensor *scale, fe_tensor *mean,
                                                fe_tensor *inv_variance,
                                                const fe_norm_backward_options *options,
                                                fe_tensor **out_dx, fe_tensor **out_dscale,
                                                fe_tensor **out_dbias);

typedef struct fe_batchnorm_options {
    uint32_t struct_size;
    const char *name;
    double epsilon;            /* as in fe_norm_options */
    fe_tensor *epsilon_tensor; /* nullable; a scalar, as in fe_norm_options */
    /* Running statistics (nullable, both or neither): float [1, C, 1, ...] inputs. With them,
     * the call also returns the updated running statistics:
     *   next = (1 - momentum) * running + momentum * batch statistic,
     * the batch variance taken unbiased (divided by count - 1), as PyTorch does. Bind the same
     * memory to a running input and its next output to update it in place. */
    fe_tensor *running_mean;
    fe_tensor *running_var;
    double momentum;           /* in [0, 1]; default 0.1 */
    /* nullable: momentum as a float scalar made with fe_graph_scalar (cuDNN reads it only by
     * value); it then replaces `momentum`. */
    fe_tensor *momentum_tensor;
    /* Synchronized batchnorm: the statistics exchange buffers of the GPUs that share one
     * batch, set with fe_batchnorm_options_set_peer_stats. See FE_MAX_PEER_STATS. */
    size_t peer_stats_count;
    fe_tensor *peer_stats[FE_MAX_PEER_STATS];
} fe_batchnorm_options;
#define FE_BATCHNORM_OPTIONS_INIT                                                                    \
    { (uint32_t)sizeof(fe_batchnorm_options), NULL, 1e-5, NULL, NULL, NULL, 0.1, NULL, 0, { NULL } }

/** Set the peer statistics buffers of a synchronized batchnorm (count 0 clears them). */
FE_API fe_status fe_batchnorm_options_set_peer_stats(fe_batchnorm_options *options, size_t count,
                                                     fe_tensor *const *peer_stats);

/** Batch normalization, training: per-channel statistics over the batch and spatial dims.
 *  x [N, C, spatial...] (rank 3 to 5; channels-last is usual), scale and bias [1, C, 1, ...].
 *  out_y, out_mean and out_inv_variance (float [1, C, 1, ...]) are required. With running
 *  statistics in the options, out_next_running_mean and out_next_running_var receive the
 *  updated ones (both required); without, they are nullable and set to NULL. options nullable. */
FE_API fe_status fe_graph_batchnorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale,
                                    fe_tensor *bias, const fe_batchnorm_options *options,
                                    fe_tensor **out_y, fe_tensor **out_mean,
                                    fe_tensor **out_inv_variance,
                                    fe_tensor **out_next_running_mean,
                                    fe_tensor **out_next_running_var);

typedef struct fe_batchnorm_inference_options {
    uint32_t struct_size;
    const char *name;
} fe_batchnorm_inference_options;
#define FE_BATCHNORM_INFERENCE_OPTIONS_INIT { (uint32_t)sizeof(fe_batchnorm_inference_options), NULL }

/** Batch normalization, inference: y = (x - mean) * inv_variance * scale + bias, with the
 *  statistics given (float [1, C, 1, ...]; inv_variance = 1 / sqrt(running_var + epsilon),
 *  computed once by the caller). Shapes as fe_graph_batchnorm. cuDNN 9.19 runs its native
 *  inference batchnorm only inside a backward fusion, so this lowers to four broadcast pointwise
 *  operations, which cuDNN's fusion engines take for a channels-last x (NHWC, NDHWC) and fuse
 *  with a convolution before them; a packed NCHW x of rank 4 or 5 finds no engine.
 *  options nullable. */
FE_API fe_status fe_graph_batchnorm_inference(fe_graph *graph, fe_tensor *x, fe_tensor *mean,
                                              fe_tensor *inv_variance, fe_tensor *scale,
                                              fe_tensor *bias,
                                              const fe_batchnorm_inference_options *options,
                                              fe_tensor **out_y);
/** Batch normalization backward, from the forward's batch statistics (not the running ones). */
FE_API fe_status fe_graph_batchnorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x,
                                             fe_tensor *scale, fe_tensor *mean,
                                             fe_tensor *inv_variance,
                                             const fe_norm_backward_options *options,
                                             fe_tensor **out_dx, fe_tensor **out_dscale,
                                             fe_tensor **out_dbias);

typedef struct fe_bn_finalize_options {
    uint32_t struct_size;
    const char *name;            /* nullable: "bn_finalize_<n>" */
    int64_t accum_count;         /* required: how many values each sum adds up (N x spatial) */
    double epsilon;              /* added to the variance; default 1e-5 */
    fe_tensor *epsilon_tensor;   /* nullable: epsilon as a float scalar (fe_graph_scalar) */
    double momentum;             /* of the running statistics, in [0, 1]; default 0.1 */
    fe_tensor *momentum_tensor;  /* nullable: momentum as a float scalar (fe_graph_scalar) */
} fe_bn_finalize_options;
#define FE_BN_FINALIZE_OPTIONS_INIT                                              \
    { (uint32_t)sizeof(fe_bn_finalize_options), NULL, 0, 1e-5, NULL, 0.1, NULL }

/** Batch normalization's statistics finalized from genstats' sums, for the convolution that
 *  applies them next: from sum and sq_sum (float [1, C, 1, ...], fe_graph_genstats) over
 *  options->accum_count values per channel, with mean = sum / count and
 *  var = sq_sum / count - mean^2 (biased):
 *    out_eq_scale = scale / sqrt(var + epsilon), out_eq_bias = bias - mean * out_eq_scale
 *  (y = x * eq_scale + eq_bias is the batch normalization of x), out_mean, out_inv_variance =
 *  1 / sqrt(var + epsilon), and the running statistics updated as fe_graph_batchnorm does
 *  (next = (1 - momentum) * running + momentum * statistic, the variance unbiased). scale, bias,
 *  running_mean and running_var are [1, C, 1, ...] like sum; every output is float
 *  [1, C, 1, ...] and required. options->accum_count must be given (NULL options are refused
 *  for want of it). As with fe_graph_batchnorm, bind the same memory to a running input and its
 *  next output to update it in place. */
FE_API fe_status fe_graph_bn_finalize(fe_graph *graph, fe_tensor *sum, fe_tensor *sq_sum, fe_tensor *scale,
                                      fe_tensor *bias, fe_tensor *running_mean, fe_tensor *running_var,
                                      const fe_bn_finalize_options *options, fe_tensor **out_eq_scale,
                                      fe_tensor **out_eq_bias, fe_tensor **out_mean,
                                      fe_tensor **out_inv_variance, fe_tensor **out_next_running_mean,
                                      fe_tensor **out_next_running_var);

typedef struct fe_dbn_weight_options {
    uint32_t struct_size;
    const char *name;               /* nullable: "dbn_weight_<n>" */
    fe_data_type compute_data_type; /* float; default: the graph's (float) */
} fe_dbn_weight_options;
#define FE_DBN_WEIGHT_OPTIONS_INIT { (uint32_t)sizeof(fe_dbn_weight_options), NULL, FE_DATA_NOT_SET }

/** Batch normalization's backward weight gradients, with dx left as per-channel factors: from
 *  dy and x [N, C, spatial...] (half, bfloat16 or float, usually channels-last) and the forward's
 *  float mean, inv_variance and scale [1, C, 1, ...], over M = N x spatial values per channel,
 *    out_dscale = sum(dy * (x - mean) * inv_variance), out_dbias = sum(dy),
 *  and the factors of dx = out_eq_scale_dy * dy + out_eq_scale_x * x + out_eq_bias:
 *    out_eq_scale_dy = scale * inv_variance,
 *    out_eq_scale_x = -scale * inv_variance^2 * dscale / M,
 *    out_eq_bias = scale * inv_variance * (inv_variance * dscale * mean - dbias) / M.
 *  Every output is float [1, C, 1, ...] and required. cuDNN runs it fused after a convolution's
 *  dgrad and a ReLU backward against the recomputed batchnorm output (the ResNet backward block,
 *  cuDNN 9.8 on Ampere and Hopper); whether it has an engine for a graph is said by the support
 *  check. options nullable. */
FE_API fe_status fe_graph_dbn_weight(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *mean,
                                     fe_tensor *inv_variance, fe_tensor *scale,
                                     const fe_dbn_weight_options *options, fe_tensor **out_dscale,
                                     fe_tensor **out_dbias, fe_tensor **out_eq_scale_dy,
                                     fe_tensor **out_eq_scale_x, fe_tensor **out_eq_bias);

typedef struct fe_genstats_options {
    uint32_t struct_size;
    const char *name;               /* nullable: "genstats_<n>" */
    fe_data_type compute_data_type; /* default: the graph's (float) */
} fe_genstats_options;
#define FE_GENSTATS_OPTIONS_INIT { (uint32_t)sizeof(fe_genstats_options), NULL, FE_DATA_NOT_SET }

/** Per-channel statistics for batch normalization: out_sum and out_sq_sum receive the sum and the
 *  sum of squares of x [N, C, spatial...] over the batch and the spatial dims, float
 *  [1, C, 1, ...] ("<name>::SUM", "<name>::SQ_SUM"; both required). cuDNN fuses it after a
 *  convolution whose result it reads (the statistics of a convolution's output for the
 *  batchnorm that follows); whether cuDNN has an engine for a graph is said by the support
 *  check. options nullable. */
FE_API fe_status fe_graph_genstats(fe_graph *graph, fe_tensor *x, const fe_genstats_options *options,
                                   fe_tensor **out_sum, fe_tensor **out_sq_sum);

/** Instance normalization: layer normalization per image and channel over the spatial dims.
 *  x [N, C, spatial...] (rank 3 to 5; channels-last is usual), scale and bias [1, C, 1, ...],
 *  statistics [N, C, 1, ...]. Outputs as fe_graph_layernorm. zero_centered_gamma is refused. */
FE_API fe_status fe_graph_instancenorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale,
                                       fe_tensor *bias, const fe_norm_options *options,
                                       fe_tensor **out_y, fe_tensor **out_mean,
                                       fe_tensor **out_inv_variance);
FE_API fe_status fe_graph_instancenorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x,
                                                fe_tensor *scale, fe_tensor *mean,
                                                fe_tensor *inv_variance,
                                                const fe_norm_backward_options *options,
                                                fe_tensor **out_dx, fe_tensor **out_dscale,
                                                fe_tensor **out_dbias);

/** Layer normalization: y = (x - mean) / sqrt(var + epsilon) * scale + bias, mean and var over
 *  the normalized dims. scale and bias (same dims) are required. With phase TRAINING,
 *  out_mean and out_inv_variance receive the float statistics (both required); with INFERENCE
 *  they are nullable and set to NULL. options nullable (defaults: FE_NORM_OPTIONS_INIT). */
FE_API fe_status fe_graph_layernorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                    const fe_norm_options *options, fe_tensor **out_y,
                                    fe_tensor **out_mean, fe_tensor **out_inv_variance);

/** Layer normalization backward, from the forward's mean and inverse variance. */
FE_API fe_status fe_graph_layernorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x,
                                             fe_tensor *scale, fe_tensor *mean,
                                             fe_tensor *inv_variance,
                                             const fe_norm_backward_options *options,
                                             fe_tensor **out_dx, fe_tensor **out_dscale,
                                             fe_tensor **out_dbias);

/** RMS normalization: y = x / sqrt(mean(x^2) + epsilon) * scale (+ bias). bias is nullable.
 *  With phase TRAINING out_inv_rms receives 1 / sqrt(mean(x^2) + epsilon) (float; required);
 *  with INFERENCE it is nullable and set to NULL. options nullable. */
FE_API fe_status fe_graph_rmsnorm(fe_graph *graph, fe_tensor *x, fe_tensor *scale, fe_tensor *bias,
                                  const fe_norm_options *options, fe_tensor **out_y,
                                  fe_tensor **out_inv_rms);
/** RMS normalization backward, from the forward's inverse RMS. out_dbias is nullable: NULL
 *  when the forward had no bias (no bias gradient is computed). */
FE_API fe_status fe_graph_rmsnorm_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x,
                                           fe_tensor *scale, fe_tensor *inv_rms,
                                           const fe_norm_backward_options *options,
                                           fe_tensor **out_dx, fe_tensor **out_dscale,
                                           fe_tensor **out_dbias);
/* <<< "Normalizations" */

/* ------------------------------------------------------------------------------------------ */
/* Random numbers and block scaling.                                                          */
/* ------------------------------------------------------------------------------------------ */

/* >>> "Random numbers and block scaling": declared in the files of lib/ops, copied by scripts/schema/generate_header.py */
/* Block scaling: values stored in blocks, each block with its own scale. MXFP8: blocks of
 * `block_size` consecutive elements of the last dim with power-of-two (fp8_e8m0) scales. General
 * block scaling (dequantize only): blocks of `block_rows` x `block_size` elements of the last
 * two dims with float, half or bfloat16 scales, e.g. DeepSeek-style FP8 GEMM operands: A with
 * 1 x 128 blocks, B with 128 x 128 blocks. */
typedef struct fe_block_scale_options {
    uint32_t struct_size;
    const char *name;
    fe_data_type compute_data_type;
    int32_t block_size; /* elements per scale along the last dim; default 32 (MXFP8) */
    /* Dequantize: elements per scale along the second-to-last dim; default 1 (blocks within a
     * row). Above 1 the scales must be float, half or bfloat16 (general block scaling). */
    int32_t block_rows;
} fe_block_scale_options;
#define FE_BLOCK_SCALE_OPTIONS_INIT { (uint32_t)sizeof(fe_block_scale_options), NULL, FE_DATA_NOT_SET, 32, 1 }

/** Block-scale quantize: x [..., n] (float, half or bfloat16) into out_y [..., n] (fp8_e4m3
 *  unless its type is set: fp8_e4m3 or fp8_e5m2) and out_scale [..., n / block_size]
 *  (fp8_e8m0), both packed and owned by the graph ("<node>::Y", "<node>::Scale"). n must be a
 *  multiple of block_size. x must have rank 4 or more as cuDNN sees it: a rank-3 (or lower)
 *  quantize needs cuDNN's reordered F8_128x4 scale layout, which is not produced, and its build
 *  fails with FE_STATUS_NOT_SUPPORTED saying so. options nullable. Needs the cuDNN version and
 *  GPU generation docs/capabilities.md lists (block_scaling: cuDNN >= 9.7.0, Blackwell and
 *  later): an older cuDNN fails the build with FE_STATUS_NOT_SUPPORTED naming the loaded
 *  version; on Hopper (sm90) cuDNN has no MXFP8 engine and the support check says so. */
FE_API fe_status fe_graph_block_scale_quantize(fe_graph *graph, fe_tensor *x,
                                               const fe_block_scale_options *options,
                                               fe_tensor **out_y, fe_tensor **out_scale);
/** Block-scale dequantize: x times its block's scale into out_y ("<node>::Y", x's dims and
 *  strides, owned by the graph, the graph's intermediate type unless set: set it to half or
 *  bfloat16 before a matmul, which otherwise runs in float).
 *  - MXFP8: x [..., n] (fp8_e4m3 or fp8_e5m2), scale [..., n / block_size] (fp8_e8m0); same cuDNN
 *    and GPU requirements as fe_graph_block_scale_quantize.
 *  - General (scale float, half or bfloat16): x [..., m, n] (fp8_e4m3, fp8_e5m2, half,
 *    bfloat16, or int4/uint4 weights stored with m contiguous), scale [..., ceil(m / block_rows),
 *    ceil(n / block_size)]; feeds a matmul in the same graph (block-scaled GEMM, weight-only
 *    quantization with one scale per group of rows). cuDNN >= 9.11 (capability
 *    general_block_scaling).
 *  options nullable. */
FE_API fe_status fe_graph_block_scale_dequantize(fe_graph *graph, fe_tensor *x, fe_tensor *scale,
                                                 const fe_block_scale_options *options,
                                                 fe_tensor **out_y);

/* Random numbers drawn by cuDNN (Philox), one value per element of the result. */
typedef enum fe_rng_distribution FE_ENUM_BASE {
    FE_RNG_BERNOULLI = 0, /* 1 with probability `probability`, else 0 */
    FE_RNG_UNIFORM = 1,   /* uniform in [min, max) */
    FE_RNG_NORMAL = 2     /* normal with mean `mean` and standard deviation `std` */
} fe_rng_distribution;

typedef struct fe_rng_options {
    uint32_t struct_size;
    const char *name;
    fe_rng_distribution distribution; /* default FE_RNG_BERNOULLI */
    double probability;               /* BERNOULLI: probability of a 1, in [0, 1]; default 0.5 */
    double min, max;                  /* UNIFORM: min < max, both finite; default [0, 1) */
    double mean, std;                 /* NORMAL: std > 0; default 0 and 1 */
    size_t ndims;                     /* the result's rank, 1 to FE_MAX_DIMS */
    int64_t dims[FE_MAX_DIMS];        /* the result's dims (positive); packed row-major */
    fe_data_type data_type;           /* the result's type; NOT_SET: the graph's intermediate type */
} fe_rng_options;
#define FE_RNG_OPTIONS_INIT                                                                 \
    { (uint32_t)sizeof(fe_rng_options), NULL, FE_RNG_BERNOULLI, 0.5, 0.0, 1.0, 0.0, 1.0, 0, \
      { 0, 0, 0, 0, 0, 0, 0, 0 }, FE_DATA_NOT_SET }

/** Draw random numbers. seed and offset are required int64 tensors of one element (device
 *  tensors of any rank, or fe_graph_scalar values with FE_DATA_INT64); the same seed and offset
 *  draw the same values (attention's dropout draws the same way). options is required (dims
 *  and distribution). out_y receives the result "<node>::Y", owned by the graph: options->dims,
 *  packed, of options->data_type. The operation is lowered for cuDNN versions whose engines
 *  take it; cuDNN 9.19 had none for a draw outside fused attention (checked for H100: a draw
 *  alone, x * draw and a matmul times a draw: docs/capabilities.md), so such graphs fail the
 *  support check with FE_STATUS_NOT_SUPPORTED and a message saying so; attention's dropout
 *  (fe_sdpa_options.dropout_probability) draws the same way and runs. */
FE_API fe_status fe_graph_rng(fe_graph *graph, fe_tensor *seed, fe_tensor *offset,
                              const fe_rng_options *options, fe_tensor **out_y);
/* <<< "Random numbers and block scaling" */

/* ------------------------------------------------------------------------------------------ */
/* Resampling and layout operations.                                                          */
/* ------------------------------------------------------------------------------------------ */

/* >>> "Resampling and layout operations": declared in the files of lib/ops, copied by scripts/schema/generate_header.py */
typedef struct fe_concatenate_options {
    uint32_t struct_size;
    const char *name; /* nullable: "concatenate_<n>" */
    /* The input that already lies inside y's buffer (e.g. a KV cache being appended to), so
     * cuDNN does not copy it; -1 (the default) for none. */
    int64_t in_place_index;
} fe_concatenate_options;
#define FE_CONCATENATE_OPTIONS_INIT { (uint32_t)sizeof(fe_concatenate_options), NULL, -1 }

/** Concatenate count tensors (count >= 2, same rank, data type and dims except along axis) along
 *  axis (0 <= axis < rank). y ("<name>::Y") is packed row-major unless its strides are set.
 *  options->in_place_index >= 0 names the input that already lies inside y's buffer (e.g. a KV
 *  cache being appended to), so cuDNN does not copy it; -1 for none. cuDNN 9.19 had no engine for
 *  a concatenation on its own: such a graph fails at build with FE_STATUS_NOT_SUPPORTED saying so.
 *  options nullable. */
FE_API fe_status fe_graph_concatenate(fe_graph *graph, size_t count, fe_tensor *const *inputs, int64_t axis,
                                      const fe_concatenate_options *options, fe_tensor **out_y);

typedef enum fe_resample_mode FE_ENUM_BASE {
    FE_RESAMPLE_MAXPOOL = 0,
    FE_RESAMPLE_AVGPOOL_INCLUDE_PADDING = 1, /* padded positions count in the divisor */
    FE_RESAMPLE_AVGPOOL_EXCLUDE_PADDING = 2, /* only positions inside the image count */
    FE_RESAMPLE_NEAREST = 3,                 /* upsampling (stride below 1 in cuDNN's terms) */
    FE_RESAMPLE_BILINEAR = 4
} fe_resample_mode;

typedef enum fe_resample_padding FE_ENUM_BASE {
    FE_RESAMPLE_PADDING_AUTO = 0,    /* -infinity for max pooling, zero otherwise */
    FE_RESAMPLE_PADDING_ZERO = 1,
    FE_RESAMPLE_PADDING_NEG_INF = 2,
    FE_RESAMPLE_PADDING_EDGE = 3     /* repeat the edge value */
} fe_resample_padding;

typedef struct fe_resample_options {
    uint32_t struct_size;
    const char *name;
    fe_resample_mode mode;                      /* default FE_RESAMPLE_MAXPOOL */
    fe_resample_padding padding_mode;           /* default FE_RESAMPLE_PADDING_AUTO */
    size_t spatial_dims;                        /* 0: x's rank - 2 (2 or 3 spatial dims) */
    int64_t window[FE_MAX_SPATIAL_DIMS];        /* required (each >= 1) */
    int64_t stride[FE_MAX_SPATIAL_DIMS];        /* default 1 */
    int64_t pre_padding[FE_MAX_SPATIAL_DIMS];   /* default 0; below the window */
    int64_t post_padding[FE_MAX_SPATIAL_DIMS];  /* default 0; below the window */
    fe_data_type compute_data_type;             /* default: the graph's */
    /* Max pooling, training: also return where each maximum came from (its position inside the
     * window, index_data_type), for fe_graph_resample_backward. */
    int32_t generate_index;
    fe_data_type index_data_type;               /* default FE_DATA_INT8 */
} fe_resample_options;
#define FE_RESAMPLE_OPTIONS_INIT                                                                     \
    { (uint32_t)sizeof(fe_resample_options), NULL, FE_RESAMPLE_MAXPOOL, FE_RESAMPLE_PADDING_AUTO, 0, \
      {0, 0, 0}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, FE_DATA_NOT_SET, 0, FE_DATA_INT8 }

/* Setters of the window, stride and padding, with fe_conv_options' rule: one value for every
 * spatial dim, or one per spatial dim (2 or 3), which fixes options->spatial_dims. */
FE_API fe_status fe_resample_options_set_window(fe_resample_options *options, size_t n,
                                                const int64_t *window);
FE_API fe_status fe_resample_options_set_stride(fe_resample_options *options, size_t n,
                                                const int64_t *stride);
/** Pre and post padding alike. */
FE_API fe_status fe_resample_options_set_padding(fe_resample_options *options, size_t n,
                                                 const int64_t *padding);
FE_API fe_status fe_resample_options_set_pre_padding(fe_resample_options *options, size_t n,
                                                     const int64_t *padding);
FE_API fe_status fe_resample_options_set_post_padding(fe_resample_options *options, size_t n,
                                                      const int64_t *padding);

/** Resampling of the spatial dims (cuDNN's resample operation): max or average pooling.
 *  x [N, C, spatial...] (2 or 3 spatial dims), y [N, C, out...] with
 *  out = (in + pre + post - window) / stride + 1, laid out like x. With options->generate_index
 *  (max pooling only) out_index receives the index tensor (y's dims); otherwise out_index is
 *  nullable and set to NULL. options is required (the window has no default).
 *  Nearest and bilinear upsampling are refused at build with FE_STATUS_NOT_SUPPORTED on the
 *  cuDNN versions that have no engine for them (through 9.19: docs/capabilities.md);
 *  fe_graph_conv_transpose upsamples. */
FE_API fe_status fe_graph_resample(fe_graph *graph, fe_tensor *x, const fe_resample_options *options,
                                   fe_tensor **out_y, fe_tensor **out_index);
/** Backward of fe_graph_resample: dx from dy with the forward's options. Average pooling needs
 *  dy alone. Max pooling needs the forward's index (index, from generate_index); x and y are
 *  nullable and only give dx's dims and layout. dx_dims (dx_ndims of them) are nullable when x is
 *  given (dx takes x's dims); otherwise they are required, since with a stride above 1 several
 *  image sizes give the same dy. dx ("<name>::DX") is laid out like dy. cuDNN 9.19 runs max
 *  pooling backward channels-last only (the build fails saying so otherwise); max pooling
 *  backward from x and y without the index, channels-last, is refused at build with
 *  FE_STATUS_NOT_SUPPORTED on the cuDNN versions that crash on it (docs/capabilities.md). */
FE_API fe_status fe_graph_resample_backward(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *y,
                                            fe_tensor *index, size_t dx_ndims, const int64_t *dx_dims,
                                            const fe_resample_options *options, fe_tensor **out_dx);

typedef struct fe_reshape_options {
    uint32_t struct_size;
    const char *name; /* nullable: "reshape_<n>" */
} fe_reshape_options;
#define FE_RESHAPE_OPTIONS_INIT { (uint32_t)sizeof(fe_reshape_options), NULL }

/** Reshape: the elements of x under other dims (ndims of them, the same element count), in
 *  row-major order; y ("<name>::Y") is packed row-major. Lowered to cuDNN's reshape operation,
 *  which engines take as a view inside a fused graph (e.g. feeding a matmul), not as a copy on
 *  its own: such a graph fails at build with FE_STATUS_NOT_SUPPORTED saying so. x must be packed
 *  row-major (FE_STATUS_INVALID_ARGUMENT otherwise). options nullable. */
FE_API fe_status fe_graph_reshape(fe_graph *graph, fe_tensor *x, size_t ndims, const int64_t *dims,
                                  const fe_reshape_options *options, fe_tensor **out_y);

typedef struct fe_slice_options {
    uint32_t struct_size;
    const char *name; /* nullable: "slice_<n>" */
} fe_slice_options;
#define FE_SLICE_OPTIONS_INIT { (uint32_t)sizeof(fe_slice_options), NULL }

/** Slice: y is x[start[0]:end[0], ..., start[r-1]:end[r-1]] (rank entries each, end exclusive,
 *  0 <= start < end <= dim), a view of x's memory with x's strides: nothing is copied. x must be
 *  a graph input (its buffer is bound at execution; y is read at x's address plus the slice's
 *  offset), and y feeds other operations: it cannot be a graph output. Typical use: Q, K and V
 *  sliced out of one packed QKV buffer. options nullable. */
FE_API fe_status fe_graph_slice(fe_graph *graph, fe_tensor *x, size_t rank, const int64_t *start,
                                const int64_t *end, const fe_slice_options *options, fe_tensor **out_y);

typedef struct fe_transpose_options {
    uint32_t struct_size;
    const char *name; /* nullable: "transpose_<n>" */
} fe_transpose_options;
#define FE_TRANSPOSE_OPTIONS_INIT { (uint32_t)sizeof(fe_transpose_options), NULL }

/** Transpose: y's dim k is x's dim perm[k] (rank entries, a permutation of 0..rank-1); y
 *  ("<name>::Y") is packed row-major. cuDNN has no transpose operation: this is an
 *  elementwise copy (a pointwise identity) reading x through the permuted view, so x must not
 *  also be read in its own layout by another operation of the same graph (the build fails saying
 *  so). cuDNN 9.19 had no engine for this copy on its own: such a graph fails at build with
 *  FE_STATUS_NOT_SUPPORTED saying so. options nullable. */
FE_API fe_status fe_graph_transpose(fe_graph *graph, fe_tensor *x, size_t rank, const int64_t *perm,
                                    const fe_transpose_options *options, fe_tensor **out_y);
/* <<< "Resampling and layout operations" */

/* ------------------------------------------------------------------------------------------ */
/* Attention.                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/* >>> "Attention": declared in the files of lib/ops, copied by scripts/schema/generate_header.py */
typedef enum fe_causal_mask FE_ENUM_BASE {
    FE_CAUSAL_MASK_NONE = 0,
    FE_CAUSAL_MASK_TOP_LEFT = 1,    /* query i sees keys 0..i */
    FE_CAUSAL_MASK_BOTTOM_RIGHT = 2 /* aligned to the last key: query i sees keys 0..diagonal(i),
                                       diagonal(i) as FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT says */
} fe_causal_mask;

/* Where the diagonal of a band (fe_sdpa_options.right_bound and sliding_window) sits when
 * there is no causal mask; a causal mask sets it itself.
 * With a padding mask (seq_len_q and seq_len_kv), a bottom-right diagonal is aligned to each
 * sequence's own last key: in sequence b, query i's diagonal is key
 * i + seq_len_kv[b] - seq_len_q[b] (the chunked-prefill and KV-cache case); without one it is
 * key i + s_kv - s_q, the tensors' dims (for paged K/V: max_seq_len_kv). A top-left diagonal is
 * key i either way. Rows that see no key (a diagonal left of key 0) have undefined output. */
typedef enum fe_diagonal_alignment FE_ENUM_BASE {
    FE_DIAGONAL_ALIGNMENT_TOP_LEFT = 0,    /* query i's diagonal is key i */
    FE_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT = 1 /* query i's diagonal is key i + s_kv - s_q, per sequence
                                              under a padding mask (see above) */
} fe_diagonal_alignment;

/* How attention is lowered. cuDNN recognises attention either as a pattern of matmul,
 * pointwise and reduction operations in one operation graph (composite) or as its single SDPA
 * operation (native, cuDNN >= 9.13.1, which takes fewer options: see fe_graph_sdpa). */
typedef enum fe_sdpa_implementation FE_ENUM_BASE {
    FE_SDPA_IMPLEMENTATION_AUTO = 0,      /* native where it takes every option given and has an
                                             engine for the target GPU, else composite */
    FE_SDPA_IMPLEMENTATION_COMPOSITE = 1,
    FE_SDPA_IMPLEMENTATION_NATIVE = 2     /* fails at build, naming the option or version, when
                                             the native operation cannot take the graph */
} fe_sdpa_implementation;

typedef struct fe_sdpa_options {
    uint32_t struct_size;
    const char *name;
    int32_t generate_stats;       /* training: also return the softmax stats (log-sum-exp) */
    double attn_scale;            /* scores are Q.K^T * attn_scale (finite); 0: no scaling */
    fe_tensor *attn_scale_tensor; /* nullable: the scale as a one-element float tensor instead */
    fe_causal_mask causal_mask;
    fe_data_type compute_data_type; /* default: the graph's (float) */
    /* Additive bias on the scores, [1 or b, 1 or h_q, s_q, s_kv] (nullable). */
    fe_tensor *bias;
    /* Sliding window, the band's left bound: > 0 keeps keys j with j > diagonal(i) - window
     * (i the query, the diagonal aligned like the causal mask, else by diagonal_alignment);
     * 0: no window. At most 2147483647 (INT32_MAX,
     * as cuDNN takes it). */
    int64_t sliding_window;
    /* Padding mask: per-batch actual lengths, int32 [b, 1, 1, 1] (both or neither). Scores of
     * keys at or past seq_len_kv[b] are masked; output rows at or past seq_len_q[b] are
     * undefined. */
    fe_tensor *seq_len_q;
    fe_tensor *seq_len_kv;
    /* ALiBi: float slopes [1, h_q, 1, 1] (nullable); adds slope[h] * (j - i) to score (i, j).
     * fe_alibi_slopes computes the usual slopes on the host for upload. */
    fe_tensor *alibi_slopes;
    /* Dropout with a caller's mask: the probabilities are multiplied by dropout_scale (usually
     * 1 / (1 - p); finite, and positive with a mask) and by the mask,
     * [b or 1, h_q or 1, s_q, s_kv] of 0/1 values (nullable). */
    fe_tensor *dropout_mask;
    double dropout_scale;
    /* Dropout drawn by cuDNN (Philox): probability p of dropping in (0, 1), with int64 seed and
     * offset tensors of one element (device tensors or fe_graph_scalar). The kept
     * probabilities are scaled by 1 / (1 - p). The backward pass given the same p, seed and
     * offset redraws the same mask. */
    double dropout_probability;
    fe_tensor *dropout_seed;
    fe_tensor *dropout_offset;
    /* With dropout_probability: also output the drawn mask as "<node>::DropoutMask"
     * ([b, h_q, s_q, s_kv] of 0/1, float; find it with fe_graph_tensor_by_name). Where the
     * causal, window or padding mask excludes the key its value is unspecified (cuDNN may leave
     * it unwritten). */
    int32_t output_dropout_mask;
    /* Paged K/V caches (decoding): k and v are page containers [pages, h_k, page_size, d(_v)],
     * the page tables int32 [b, 1, pages per sequence, 1] map each sequence's pages, and
     * max_seq_len_kv is the longest sequence; needs seq_len_q and seq_len_kv (padding mask). */
    fe_tensor *page_table_k;
    fe_tensor *page_table_v;
    int64_t max_seq_len_kv;
    fe_sdpa_implementation implementation; /* default AUTO */
    /* Attention sinks: float [1, h_q, 1, 1], one learned logit per head that joins every row's
     * softmax as a key with no value, so a row's weights sum to less than one (nullable). The
     * stats, Max and SumExp include it. */
    fe_tensor *sink_token;
    /* Also output each row's largest score "<node>::Max" and its sum of exponentials
     * "<node>::SumExp" (exp(score - Max) summed; float [b, h_q, s_q, 1]; find them with
     * fe_graph_tensor_by_name): the partial results a split-KV (flash-decoding) merge needs.
     * Not with generate_stats: cuDNN's engines give one or the other (stats = Max + log(SumExp)).
     * cuDNN 9.19 has no engine for them with sink_token (docs/capabilities.md). */
    int32_t output_max_sum_exp;
    /* A diagonal band's right bound: query i sees keys j <= diagonal(i) + right_bound
     * (look-ahead), -1: none (default). With sliding_window as the left bound this is a band
     * of both bounds (chunked or local attention); right_bound 0 alone is the causal mask,
     * which may be given either way but not both. At most 2147483647. */
    int64_t right_bound;
    /* The band's diagonal when causal_mask is NONE (with a causal mask, the mask's alignment
     * holds and this must be TOP_LEFT or the same). Default TOP_LEFT. */
    fe_diagonal_alignment diagonal_alignment;
    /* Soft-capping (Gemma 2): > 0 turns the scaled scores s into softcap * tanh(s / softcap),
     * before bias and masks; 0: none. Finite. */
    double softcap;
    /* A score modifier of the caller's own (the flexible graphs of cuDNN's frontend): pointwise
     * operations of this graph that cuDNN runs inside the fused attention kernel, on the scaled
     * scores, before soft-capping, bias and the masks above. score_mod_input is a float input
     * tensor [b, h_q, s_q, s_kv] declared with fe_graph_tensor that stands for the scores (it is
     * never bound: it stops being a graph input); score_mod_output is the result of the chain
     * of fe_graph_pointwise operations that reads it (both or neither). The chain's operations
     * may read the scores, fe_graph_scalar values, broadcast graph inputs (a per-head tensor
     * [1, h_q, 1, 1], say) and each other's results, which nothing outside the chain may read
     * or output. The composite implementation only; not for FP8 attention. */
    fe_tensor *score_mod_input;
    fe_tensor *score_mod_output;
} fe_sdpa_options;
#define FE_SDPA_OPTIONS_INIT                                                                       \
    { (uint32_t)sizeof(fe_sdpa_options), NULL, 0, 0.0, NULL, FE_CAUSAL_MASK_NONE, FE_DATA_NOT_SET, \
      NULL, 0, NULL, NULL, NULL, NULL, 1.0, 0.0, NULL, NULL, 0, NULL, NULL, 0,                     \
      FE_SDPA_IMPLEMENTATION_AUTO, NULL, 0, -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0.0, NULL, NULL }

/** The most heads fe_alibi_slopes computes slopes for. */
#define FE_MAX_ALIBI_HEADS 65536
/** The ALiBi paper's slopes for `heads` heads (geometric from 2^(-8/n); heads that are not a
 *  power of two take the interleaved extra slopes) into out[0..heads). heads is 1 to
 *  FE_MAX_ALIBI_HEADS; others return FE_STATUS_INVALID_ARGUMENT. */
FE_API fe_status fe_alibi_slopes(int64_t heads, float *out);

typedef struct fe_sdpa_backward_options {
    uint32_t struct_size;
    const char *name;
    /* The same score modifiers as the forward pass that produced O and the stats. */
    double attn_scale;
    fe_tensor *attn_scale_tensor;
    fe_causal_mask causal_mask;
    fe_data_type compute_data_type;
    fe_tensor *bias;
    int64_t sliding_window;
    fe_tensor *seq_len_q;
    fe_tensor *seq_len_kv;
    fe_tensor *alibi_slopes;
    /* The caller's dropout mask is refused at build on the cuDNN versions that compute its
     * gradients wrongly (docs/capabilities.md, attention_backward_dropout_mask); dropout drawn
     * by cuDNN (dropout_probability, seed and offset) is taken. */
    fe_tensor *dropout_mask;
    double dropout_scale;
    double dropout_probability;
    fe_tensor *dropout_seed;
    fe_tensor *dropout_offset;
    fe_sdpa_implementation implementation; /* default AUTO */
    /* With a bias: also output its gradient as "<node>::dBias" (float, the bias's dims; find it
     * with fe_graph_tensor_by_name). Needs a bias of [1, h_q, s_q, s_kv]. */
    int32_t output_dbias;
    /* Deterministic backward: dQ, dK and dV accumulate in a fixed order, so repeated runs give
     * identical bits (somewhat slower); 0 lets cuDNN accumulate with atomics. */
    int32_t deterministic;
    /* The forward's sinks, for their gradient: with output_dsink, "<node>::dSink" (float
     * [1, h_q, 1, 1], summed over the batch and the queries; find it with
     * fe_graph_tensor_by_name). dQ, dK and dV need only the stats, which include the sinks, so
     * a sink_token without output_dsink is refused. */
    fe_tensor *sink_token;
    int32_t output_dsink;
    /* The forward's band and soft-capping (fe_sdpa_options). */
    int64_t right_bound;
    fe_diagonal_alignment diagonal_alignment;
    double softcap;
    /* Packed (ragged) Q: at least the tokens of the batch (the sum of seq_len_q, which lives on
     * the GPU and is not checked). > 0 sizes the float row sums and dQ accumulator in the
     * workspace for these tokens, laid out like the stats and dQ (give both ragged offsets),
     * instead of for b * s_q rows. 0: sized for the padded batch. Needs cuDNN 9.6, ragged Q and
     * head dims that are multiples of 16. */
    int64_t max_total_seq_len_q;
    /* The forward's score modifier (fe_sdpa_options), rebuilt in this graph: the backward
     * recomputes the modified scores with it. */
    fe_tensor *score_mod_input;
    fe_tensor *score_mod_output;
    /* The score modifier's derivative, which the caller writes as cuDNN's frontend has it (the
     * library does not differentiate the chain): score_mod_grad_input, a float input tensor
     * [b, h_q, s_q, s_kv] declared like score_mod_input, stands for the gradient with respect
     * to the modified scores; score_mod_grad_output, the end of a chain of pointwise operations
     * that reads it, is the gradient with respect to the scores before the modifier. That chain
     * may also read the forward chain's results and its input (the scores). Required with
     * score_mod_input; applied after soft-capping's derivative, before the attention scale. */
    fe_tensor *score_mod_grad_input;
    fe_tensor *score_mod_grad_output;
    /* Packed (ragged) K and V with grouped query heads (h_q > h_k): at least the batch's key
     * tokens (the sum of seq_len_kv). > 0 sizes the per-query-head dK and dV, which are summed
     * over each group, for these tokens, laid out like dK and dV (packed, their ragged offsets)
     * instead of for b * s_kv rows. 0: sized for the padded batch. With h_q = h_k there are no
     * such buffers and it changes nothing. Needs cuDNN 9.6, ragged K and head dims that are
     * multiples of 16. */
    int64_t max_total_seq_len_kv;
} fe_sdpa_backward_options;
#define FE_SDPA_BACKWARD_OPTIONS_INIT                                                         \
    { (uint32_t)sizeof(fe_sdpa_backward_options), NULL, 0.0, NULL, FE_CAUSAL_MASK_NONE,       \
      FE_DATA_NOT_SET, NULL, 0, NULL, NULL, NULL, NULL, 1.0, 0.0, NULL, NULL,                 \
      FE_SDPA_IMPLEMENTATION_AUTO, 0, 0, NULL, 0, -1, FE_DIAGONAL_ALIGNMENT_TOP_LEFT, 0.0, 0, \
      NULL, NULL, NULL, NULL, 0 }

/** Scaled dot-product attention (flash attention), forward: O = softmax(Q.K^T * scale + masks) V.
 *  q: [b, h_q, s_q, d], k: [b, h_k, s_kv, d], v: [b, h_k, s_kv, d_v], in any layout with a unit
 *  last stride (BHSD, BSHD, interleaved QKV); h_q a multiple of h_k (GQA, MQA); half or
 *  bfloat16. out_o: [b, h_q, s_q, d_v], laid out like q. With options->generate_stats,
 *  out_stats receives the float stats [b, h_q, s_q, 1] (max + log of the sum of exponentials per
 *  row) that the backward pass reads; otherwise out_stats is nullable and set to NULL.
 *  Lowered as one cuDNN operation graph that cuDNN's fused attention engines recognise. */
FE_API fe_status fe_graph_sdpa(fe_graph *graph, fe_tensor *q, fe_tensor *k, fe_tensor *v,
                               const fe_sdpa_options *options, fe_tensor **out_o,
                               fe_tensor **out_stats);

/** Attention backward: dQ, dK, dV from Q, K, V, the forward's O and stats (float
 *  [b, h_q, s_q, 1]) and the gradient dO ([b, h_q, s_q, d_v]). The options repeat the forward's
 *  score modifiers. dQ, dK, dV take the dims and layouts of Q, K, V (with GQA, dK and dV sum
 *  over each group of query heads). The graph's workspace includes float row sums and a float
 *  dQ accumulator (b * h_q * s_q * (d + 1) * 4 bytes beyond cuDNN's own). */
FE_API fe_status fe_graph_sdpa_backward(fe_graph *graph, fe_tensor *q, fe_tensor *k, fe_tensor *v,
                                        fe_tensor *o, fe_tensor *d_o, fe_tensor *stats,
                                        const fe_sdpa_backward_options *options, fe_tensor **out_dq,
                                        fe_tensor **out_dk, fe_tensor **out_dv);

/* FP8 attention's scaling factors: float tensors of one element ([1, 1, 1, 1] device tensors,
 * or fe_graph_scalar values). A descale turns stored FP8 values back into real ones
 * (real = stored * descale); a scale turns real values into the FP8 values stored (stored =
 * real * scale). */
typedef struct fe_sdpa_fp8_scales {
    uint32_t struct_size;
    fe_tensor *descale_q;
    fe_tensor *descale_k;
    fe_tensor *descale_v;
    fe_tensor *descale_s; /* of the FP8 probabilities P fed to P.V */
    fe_tensor *scale_s;   /* quantizes P to FP8 before P.V */
    fe_tensor *scale_o;   /* quantizes O */
} fe_sdpa_fp8_scales;
#define FE_SDPA_FP8_SCALES_INIT { (uint32_t)sizeof(fe_sdpa_fp8_scales), NULL, NULL, NULL, NULL, NULL, NULL }

/** FP8 attention forward (Hopper and later): Q, K, V in fp8_e4m3 or fp8_e5m2, the matmuls in
 *  FP8 with float accumulation, softmax in float. O = quantize(softmax(Q.K^T * scale * descale_q
 *  * descale_k + masks) quantized by scale_s, times V, times descale_s * descale_v, by scale_o).
 *  Every scale in `scales` is required. out_o: like fe_graph_sdpa's (Q's FP8 type unless
 *  overridden). out_amax_s and out_amax_o receive float [1, 1, 1, 1] tensors: the largest
 *  absolute value of P and of O before their quantization (for the next step's scales); mark
 *  them as outputs. With a padding mask, cuDNN's amax_s also covers values past the sequence
 *  lengths: it may exceed the largest P of the defined rows, never fall below it. With a sliding
 *  window and no causal mask, amax_o likewise covers the query rows past s_q in the last block
 *  of 128 rows: never below the defined rows' largest |O|, never above V's largest magnitude
 *  (descaled). options as
 *  for fe_graph_sdpa (paged K/V caches included, the band's right bound and diagonal alignment
 *  among them), but the native implementation (the composite pattern is used). cuDNN 9.19
 *  computes FP8 attention with sinks, soft-capping, a score modifier or Max/SumExp outputs
 *  wrongly or not at all: refused at build. cuDNN 9.19 has no engine for one query row (s_q = 1) on Hopper, and its kernel for a
 *  sliding window never finishes over more blocks of 128 query rows (b * h_q * ceil(s_q / 128))
 *  than the GPU has SMs where a block sees no key or a padding mask is given: refused at build
 *  (docs/capabilities.md). */
FE_API fe_status fe_graph_sdpa_fp8(fe_graph *graph, fe_tensor *q, fe_tensor *k, fe_tensor *v,
                                   const fe_sdpa_fp8_scales *scales, const fe_sdpa_options *options,
                                   fe_tensor **out_o, fe_tensor **out_stats, fe_tensor **out_amax_s,
                                   fe_tensor **out_amax_o);

/* FP8 attention backward's scaling factors (one-element float tensors, as in fe_sdpa_fp8_scales):
 * descales of the FP8 inputs Q, K, V, O, dO, of the FP8 probabilities S and of the FP8 score
 * gradient dP; scales that quantize S, dP and the outputs dQ, dK, dV. All are required, and all
 * must be device tensors: the backward kernels read them from memory. */
typedef struct fe_sdpa_fp8_backward_scales {
    uint32_t struct_size;
    fe_tensor *descale_q;
    fe_tensor *descale_k;
    fe_tensor *descale_v;
    fe_tensor *descale_o;
    fe_tensor *descale_do;
    fe_tensor *descale_s;
    fe_tensor *descale_dp;
    fe_tensor *scale_s;
    fe_tensor *scale_dp;
    fe_tensor *scale_dq;
    fe_tensor *scale_dk;
    fe_tensor *scale_dv;
} fe_sdpa_fp8_backward_scales;
#define FE_SDPA_FP8_BACKWARD_SCALES_INIT                                                             \
    { (uint32_t)sizeof(fe_sdpa_fp8_backward_scales), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
      NULL, NULL, NULL, NULL }

/** FP8 attention backward (Hopper and later): dQ, dK, dV (FP8, quantized with scale_dq/dk/dv)
 *  from FP8 Q, K, V, O, dO and the float stats of the forward, the matmuls in FP8. The
 *  recomputed probabilities and the score gradient are quantized to FP8 with scale_s and
 *  scale_dp on the way. out_amax_dq/dk/dv/dp receive float [1, 1, 1, 1] tensors (largest
 *  magnitudes before quantization); mark them as outputs. options as for
 *  fe_graph_sdpa_backward (the band's right bound and diagonal alignment among them), except
 *  dropout, ALiBi, dBias, packed tensors and deterministic mode; sinks with dSink, soft-capping
 *  and score modifiers are taken and refused at build on cuDNN 9.19 (its kernels fault or
 *  compute them wrongly). cuDNN 9.19 has engines for it on Hopper at head dims of 128 only
 *  (docs/capabilities.md). */
FE_API fe_status fe_graph_sdpa_fp8_backward(fe_graph *graph, fe_tensor *q, fe_tensor *k, fe_tensor *v,
                                            fe_tensor *o, fe_tensor *d_o, fe_tensor *stats,
                                            const fe_sdpa_fp8_backward_scales *scales,
                                            const fe_sdpa_backward_options *options, fe_tensor **out_dq,
                                            fe_tensor **out_dk, fe_tensor **out_dv, fe_tensor **out_amax_dq,
                                            fe_tensor **out_amax_dk, fe_tensor **out_amax_dv,
                                            fe_tensor **out_amax_dp);
/* <<< "Attention" */

/* ------------------------------------------------------------------------------------------ */
/* Building.                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/** An engine's numerical notes (cuDNN's CUDNN_NUMERICAL_NOTE_*), one bit each in a mask. */
typedef enum fe_numerical_note FE_ENUM_BASE {
    FE_NUMERICAL_NOTE_TENSOR_CORE = 1,
    FE_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS = 2,
    FE_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION = 4,
    FE_NUMERICAL_NOTE_FFT = 8,
    FE_NUMERICAL_NOTE_NONDETERMINISTIC = 16, /* deselect it for bitwise-repeatable results */
    FE_NUMERICAL_NOTE_WINOGRAD = 32,
    FE_NUMERICAL_NOTE_WINOGRAD_TILE_4X4 = 64,
    FE_NUMERICAL_NOTE_WINOGRAD_TILE_6X6 = 128,
    FE_NUMERICAL_NOTE_WINOGRAD_TILE_13X13 = 256,
    FE_NUMERICAL_NOTE_STRICT_NAN_PROP = 512
} fe_numerical_note;
/** An engine's behaviour notes (cuDNN's CUDNN_BEHAVIOR_NOTE_*), one bit each in a mask. */
typedef enum fe_behavior_note FE_ENUM_BASE {
    FE_BEHAVIOR_NOTE_RUNTIME_COMPILATION = 1,
    FE_BEHAVIOR_NOTE_REQUIRES_FILTER_INT8X32_REORDER = 2,
    FE_BEHAVIOR_NOTE_REQUIRES_BIAS_INT8X32_REORDER = 4,
    /* fe_graph_populate_cuda_graph works with this engine's plans */
    FE_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API = 8
} fe_behavior_note;
typedef struct fe_build_options {
    uint32_t struct_size;
    const fe_heur_mode *heur_modes; /* nullable: {A, FALLBACK} */
    size_t num_heur_modes;
    fe_build_policy policy;
    int64_t max_workspace_bytes;    /* < 0: no limit */
    /* Deviceless: cuDNN's device-property JSON of the target GPU (nullable). With it, a NULL
     * handle is allowed and plans are built for that GPU without one. */
    const char *device_properties_json;
    /* Plan cache. A graph identical to one built before in this process (same operations,
     * attributes, dims, strides, types, target GPU, cuDNN version and build options) reuses
     * that plan instead of building again. 0 turns the lookup off for this build. GPUs of one
     * kind (same name, compute capability, SMs and shared memory) share entries: a graph built
     * for a second such GPU reuses the first one's engine and compiled kernels, finalized again
     * for its own device. */
    int32_t use_plan_cache;
    /* A key of the caller's choosing (nullable): the graph is also registered under it, and
     * fe_graph_from_cache(key) returns a graph ready to execute without constructing one
     * (the custom cache keys of a graph-cache decorator). */
    const char *cache_key;
    /* Autotuning (needs a GPU): build up to autotune_candidates plans (<= 0: 8), time each
     * (as fe_graph_autotune does) and keep the fastest. The choice is remembered by the plan
     * cache and by fe_graph_serialize. */
    int32_t autotune;
    int32_t autotune_candidates;
    /* Autotuning's knob search (0: off): after timing the heuristics' plans, also build and
     * time the configs one knob away from the fastest plan of each of the three fastest
     * engines (each knob set to its other values: tile and cluster shapes, workspace modes,
     * ...), then around the fastest not yet searched, for up to this many rounds while a
     * round finds a faster plan. Heuristics rank a few knob settings per engine; this finds
     * the ones they leave out, for a longer build (tens of plans more, each built and
     * timed). */
    int32_t autotune_knob_search;
    /* Engines by their notes (masks of fe_numerical_note / fe_behavior_note bits; 0: no
     * condition), as fe_graph_select_by_notes selects them: a candidate whose engine has a
     * deselected note, or lacks a required one, is not built. E.g. deselect
     * FE_NUMERICAL_NOTE_NONDETERMINISTIC for bitwise-repeatable results, require
     * FE_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API for fe_graph_populate_cuda_graph. */
    int64_t deselect_numerical_notes;
    int64_t deselect_behavior_notes;
    int64_t require_numerical_notes;
    int64_t require_behavior_notes;
    /* Engines not to build (nullable): a comma-separated list of engine names ("eng6": every
     * knob setting of engine 6) and engine-config tags ("eng6_k24=26": that setting only), as
     * fe_graph_deselect_engines takes them. */
    const char *deselect_engines;
    /* Engine configs that use more than this many bytes of shared memory per block are not
     * built (0: no limit), as fe_graph_deselect_shared_memory_greater_than does (configs cuDNN
     * reports no shared memory for are kept). */
    int64_t max_shared_memory_bytes;
    /* 1: only engines that give bitwise-repeatable results (the same as deselecting
     * FE_NUMERICAL_NOTE_NONDETERMINISTIC), stated once for every build with these options. */
    int32_t deterministic;
    /* Threads that finalize plans at the same time when several are built (FE_BUILD_POLICY_ALL,
     * autotuning): 0 or 1 one at a time, n > 1 up to n (at most 64), as
     * fe_graph_build_plans_on_threads. The plans and their order do not depend on it. */
    int32_t build_threads;
    /* Dynamic shapes (nullable): graphs built with the same kernel cache share compiled kernels,
     * so a graph of the same structure with other dims builds without compiling again (see
     * fe_kernel_cache_create). */
    fe_kernel_cache *kernel_cache;
    /* An SM carveout: > 0 asks heuristics for engine configs that run on this many SMs,
     * leaving the others to work running beside the graph (a batchnorm next to a
     * communication kernel, say). cuDNN 9.19 has such configs for batchnorm; for other graphs
     * (layernorm among them) heuristics then find no engine and the build says so. 0: every
     * SM. Not with kernel_cache (its configs were chosen for every SM). */
    int32_t sm_count_target;
    /* With kernel_cache: 1 also builds the graph's static-shape plan (the same options, no kernel
     * cache) on a background thread, and fe_graph_execute switches to it once it is ready (see
     * fe_graph_background_state): the fast kernels of a static build without waiting for one. A
     * static plan already in the plan cache (this process's, or the cache directory's, where the
     * background build stores it) is taken at once. Needs a handle (a GPU). Default 0. */
    int32_t background_static;
} fe_build_options;
#define FE_BUILD_OPTIONS_INIT                                                             \
    { (uint32_t)sizeof(fe_build_options), NULL, 0, FE_BUILD_POLICY_HEURISTICS_CHOICE, -1, \
      NULL, 1, NULL, 0, 0, 0, 0, 0, 0, 0, NULL, 0, 0, 0, NULL, 0, 0 }

/** Validate, lower, query heuristics, check support and build plans in one call.
 *  handle is nullable when the graph has device properties (options or
 *  fe_graph_set_device_properties). options nullable. On FE_STATUS_NOT_SUPPORTED the message
 *  names the graph, what was tried and cuDNN's own reason. A failed build leaves the graph as
 *  it was: a built graph keeps its plan and its device properties. */
FE_API fe_status fe_graph_build(fe_graph *graph, fe_handle *handle,
                                const fe_build_options *options);

/* The same steps, one at a time (in this order). */
/** Build for the GPU this JSON describes instead of the handle's (json copied). */
FE_API fe_status fe_graph_set_device_properties(fe_graph *graph, const char *json);
/** Infer every shape, stride and type; check them. Idempotent until the graph changes. */
FE_API fe_status fe_graph_validate(fe_graph *graph);
/** Lower to cuDNN backend descriptors and finalize the operation graph. handle nullable. */
FE_API fe_status fe_graph_build_operation_graph(fe_graph *graph, fe_handle *handle);
/** Query heuristics in each mode (nullable modes: {A, FALLBACK}); collects candidates. */
FE_API fe_status fe_graph_create_execution_plans(fe_graph *graph, const fe_heur_mode *modes,
                                                 size_t num_modes);
/** Drop candidates that need more than max_bytes of workspace. */
FE_API fe_status fe_graph_deselect_workspace_greater_than(fe_graph *graph, int64_t max_bytes);
/** Candidate `index`'s tag and its engine's notes (masks of fe_numerical_note and
 *  fe_behavior_note bits), in heuristics' rank order, before any plan is built (also without a
 *  GPU). Outputs nullable; the tag lives as long as the graph's candidates. */
FE_API fe_status fe_graph_candidate_notes(const fe_graph *graph, size_t index, const char **out_tag,
                                          int64_t *out_numerical_notes, int64_t *out_behavior_notes);
/** Drop the candidates whose engine has any note of deselect_numerical / deselect_behavior,
 *  or lacks any note of require_numerical / require_behavior (masks of the note bits; 0: no
 *  condition). E.g. deterministic results: deselect FE_NUMERICAL_NOTE_NONDETERMINISTIC; plans
 *  fe_graph_populate_cuda_graph takes: require FE_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API.
 *  A bit that is no note is refused (FE_STATUS_INVALID_ARGUMENT). */
FE_API fe_status fe_graph_select_by_notes(fe_graph *graph, int64_t deselect_numerical,
                                          int64_t deselect_behavior, int64_t require_numerical,
                                          int64_t require_behavior);
/** Drop the candidates of the engines named in `engines`, a comma-separated list of engine
 *  names ("eng6": every knob setting of engine 6) and engine-config tags ("eng6_k24=26": that
 *  setting only), e.g. to avoid an engine known to be slow or wrong for a shape. A name of
 *  another form is refused (FE_STATUS_INVALID_ARGUMENT); one no candidate has is not an error. */
FE_API fe_status fe_graph_deselect_engines(fe_graph *graph, const char *engines);
/** Drop the candidates whose engine config uses more than max_bytes of shared memory per block
 *  (max_bytes >= 0), as cuDNN reports it (cuDNN 9.2), e.g. to leave shared memory to kernels
 *  that run beside cuDNN's. cuDNN reports it for the engines it compiles at run time; a config
 *  it reports none for (fe_config_info.shared_memory_bytes -1: cuDNN 9.19's precompiled
 *  engines) is kept. */
FE_API fe_status fe_graph_deselect_shared_memory_greater_than(fe_graph *graph, int64_t max_bytes);

/** What an engine config is: a candidate of the plan search or a built plan. */
typedef struct fe_config_info {
    uint32_t struct_size;        /* set by the caller: sizeof(fe_config_info) */
    const char *tag;             /* "eng6_k24=26"; lives as long as the graph's candidates or plans */
    int64_t engine_index;        /* cuDNN's global engine index */
    int64_t workspace_bytes;     /* the workspace cuDNN asks for (without cudnnfe's own part) */
    int64_t shared_memory_bytes; /* per block, as cuDNN reports it; -1 where it does not (cuDNN
                                  * 9.19 reports it for runtime-compiled engines only) */
    int64_t numerical_notes;     /* mask of fe_numerical_note bits */
    int64_t behavior_notes;      /* mask of fe_behavior_note bits */
    int32_t viable;              /* 1 unless deselected or refused (plans: always 1) */
} fe_config_info;
#define FE_CONFIG_INFO_INIT { (uint32_t)sizeof(fe_config_info), NULL, -1, 0, -1, 0, 0, 0 }
/** Candidate `index` (in heuristics' rank order, before any plan is built, also without a GPU):
 *  its tag, engine, workspace, shared memory, notes and whether it is still viable. */
FE_API fe_status fe_graph_candidate_info(const fe_graph *graph, size_t index, fe_config_info *out_info);
/** Built plan `plan_index` (0 .. fe_graph_plan_count - 1; after autotuning, fastest first). */
FE_API fe_status fe_graph_plan_info(const fe_graph *graph, size_t plan_index, fe_config_info *out_info);

/** FE_OK if at least one candidate is viable; FE_STATUS_NOT_SUPPORTED (with the reason)
 *  otherwise. */
FE_API fe_status fe_graph_check_support(fe_graph *graph);
/** Finalize plans from the viable candidates, according to policy. */
FE_API fe_status fe_graph_build_plans(fe_graph *graph, fe_build_policy policy);
/** fe_graph_build_plans with up to `threads` plans finalized at the same time (threads >= 1,
 *  at most 64): for FE_BUILD_POLICY_ALL, where each plan's kernels may be compiled; the plans
 *  and their order are those of fe_graph_build_plans. */
FE_API fe_status fe_graph_build_plans_on_threads(fe_graph *graph, fe_build_policy policy, int32_t threads);
/** Build the plan of candidate `candidate_index` only (after the support check, or after other
 *  plans were built: it is added after them). FE_STATUS_NOT_SUPPORTED, with cuDNN's reason,
 *  when it does not build; FE_STATUS_INVALID_ARGUMENT for a deselected candidate or one built
 *  already. The first plan built executes until fe_graph_select_plan says otherwise. */
FE_API fe_status fe_graph_build_plan_at_index(fe_graph *graph, size_t candidate_index);
/** Make built plan `plan_index` the one fe_graph_execute (and populate, warmup, workspace size,
 *  serialization) uses: run any plan by its index. */
FE_API fe_status fe_graph_select_plan(fe_graph *graph, size_t plan_index);

/* Engines and knobs: cuDNN's search space beyond what heuristics offer. Heuristics rank a few
 * knob settings (tile and cluster shapes, workspace modes, ...) of a few engines; these calls
 * make any engine and setting a candidate, for tuning by hand (then fe_graph_build_plans with
 * FE_BUILD_POLICY_ALL and fe_graph_autotune). fe_build_options.autotune_knob_search does it
 * automatically. Knob types are cuDNN's cudnnBackendKnobType_t values. */
typedef struct fe_knob_range {
    int32_t type;
    int64_t min_value;
    int64_t max_value;
    int64_t stride;
} fe_knob_range;
typedef struct fe_knob_choice {
    int32_t type;
    int64_t value;
} fe_knob_choice;

/** Number of cuDNN engines for the graph's operation graph (global indices 0..count-1; not
 *  every one runs it). After fe_graph_build_operation_graph. */
FE_API fe_status fe_graph_engine_count(const fe_graph *graph, size_t *out_count);
/** The knobs engine engine_index has for this graph, sorted by type: out_count receives how
 *  many; ranges (nullable when capacity is 0) receives up to capacity of them
 *  (FE_STATUS_BUFFER_TOO_SMALL when capacity is less than the count, with out_count set).
 *  FE_STATUS_NOT_SUPPORTED, with cuDNN's reason, when the engine does not run the graph. */
FE_API fe_status fe_graph_engine_knobs(const fe_graph *graph, int64_t engine_index,
                                       fe_knob_range *ranges, size_t capacity, size_t *out_count);
/** Add a candidate: engine engine_index with these knob settings (knobs left out keep the
 *  engine's defaults). After fe_graph_build_operation_graph (the candidates are then only
 *  those added) or fe_graph_create_execution_plans (added after the heuristics' ones).
 *  FE_STATUS_NOT_SUPPORTED, with cuDNN's reason, when cuDNN refuses the setting;
 *  FE_STATUS_INVALID_ARGUMENT for a knob set twice, an unknown knob type or a duplicate of a
 *  candidate the graph has. */
FE_API fe_status fe_graph_add_candidate(fe_graph *graph, int64_t engine_index,
                                        const fe_knob_choice *knobs, size_t num_knobs);

/* Queries on a graph (after the step that produces what they report). */
/** Candidates from heuristics (after create_execution_plans). */
FE_API fe_status fe_graph_candidate_count(const fe_graph *graph, size_t *out_count);
/** Candidates left after the support check. */
FE_API fe_status fe_graph_viable_count(const fe_graph *graph, size_t *out_count);
/** Plans built (after build_plans). */
FE_API fe_status fe_graph_plan_count(const fe_graph *graph, size_t *out_count);
/** Workspace in bytes that the chosen plan needs. */
FE_API fe_status fe_graph_workspace_size(const fe_graph *graph, int64_t *out_bytes);
/** The chosen plan's engine: cuDNN's global engine index and a tag with its knobs
 *  ("eng12_k2=3_k3=0"; owned by the graph, valid until it is built again or destroyed). Both
 *  return FE_STATUS_BAD_STATE before the graph has a plan. */
FE_API fe_status fe_graph_engine_index(const fe_graph *graph, int64_t *out_index);
FE_API fe_status fe_graph_engine_tag(const fe_graph *graph, const char **out_tag);
/** How an attention operation of the graph was lowered, once its operation graph exists:
 *  FE_SDPA_IMPLEMENTATION_NATIVE or FE_SDPA_IMPLEMENTATION_COMPOSITE. node_name names the
 *  fe_graph_sdpa / fe_graph_sdpa_backward node (NULL: the first one); FE_STATUS_NOT_FOUND
 *  when there is no such attention operation. */
FE_API fe_status fe_graph_attention_implementation(const fe_graph *graph, const char *node_name,
                                                   fe_sdpa_implementation *out_implementation);
/** 1 if the graph has a plan that can execute. */
FE_API fe_status fe_graph_is_built(const fe_graph *graph, int32_t *out_flag);

/** A readable, multi-line description: tensors (dims, strides, types, uids), operations,
 *  and, once built, the chosen engine and workspace. Same buffer protocol as
 *  fe_device_properties_capture. */
FE_API fe_status fe_graph_describe(const fe_graph *graph, char *buf, size_t buf_size,
                                   size_t *out_length);

/* ------------------------------------------------------------------------------------------ */
/* Autotuning, plan cache and serialization.                                                   */
/* ------------------------------------------------------------------------------------------ */

/** Time every built plan of the graph on the handle's GPU (built with FE_BUILD_POLICY_ALL, or
 *  fe_graph_build with options->autotune) and make the fastest the one that executes:
 *  `warmup` untimed runs (< 0: 3), then `iterations` timed runs (<= 0: 10) of each plan, each
 *  after an L2 flush, the median ranking them; then the plans within 5% of the fastest (at most
 *  8) are timed again back to back (bursts of up to 20 runs over rotating copies of the
 *  inputs, captured in a CUDA graph; up to `iterations` bursts per round, fewer for a long
 *  kernel; 3 interleaved rounds) and the fastest of them by that measure executes. Inputs are bound to scratch memory the library
 *  allocates, fills with values in [-1, 1] (zeros for integer types) and frees; the timing runs
 *  on a private stream, and the handle's stream is set back before this returns.
 *  out_best_us (nullable) receives the chosen plan's back-to-back time in microseconds. */
FE_API fe_status fe_graph_autotune(fe_graph *graph, fe_handle *handle, int32_t warmup,
                                   int32_t iterations, double *out_best_us);
/** Time of each built plan from the last autotune, in the plans' current order (index 0
 *  executes): the back-to-back time for the plans timed again (the first ones), the cold time
 *  (after an L2 flush) for the rest. FE_STATUS_BAD_STATE before an autotune. */
FE_API fe_status fe_graph_plan_time_us(const fe_graph *graph, size_t plan_index,
                                       double *out_us);

/** A built graph ready to execute under the caller's key (see fe_build_options.cache_key),
 *  bound by uid exactly like the graph that was built under that key, or FE_STATUS_NOT_FOUND.
 *  handle nullable (deviceless graphs); the graph executes on the handle's device, whichever
 *  GPU of that kind it was built on. The result is the caller's to destroy. */
FE_API fe_status fe_graph_from_cache(fe_handle *handle, const char *cache_key,
                                     fe_graph **out_graph);
/** Persistent plan cache shared by processes: plans built with a handle that has a cache
 *  directory are stored there and loaded by later builds of identical graphs, in any process.
 *  NULL turns it off for this handle. Without this call, the environment variable
 *  CUDNNFE_CACHE_DIR (when set and not empty) gives the directory.
 *  The directory must be owned by the calling user (or root) and, if group or others can write
 *  to it, have the sticky bit: otherwise this call fails with FE_STATUS_INVALID_ARGUMENT, and a
 *  build (e.g. through CUDNNFE_CACHE_DIR) goes on without the directory and logs why at warn
 *  level. In a directory others can write to (such as /tmp), the user's entries live in its own
 *  subdirectory "cudnnfe-<uid>", created 0700; a link or another user's directory under that
 *  name leaves the cache unused (logged). Missing directories are created with mode 0700.
 *  Entries are opened without following links or waiting on special files; one that is not a
 *  regular file, is owned by another user (not root), or is over 256 MiB is a miss, never read
 *  (a file over 256 MiB is removed), and the rebuilt plan replaces it. Each plan is written to a
 *  temporary file with an unpredictable name, created in the directory, then renamed.
 *  Sharing one directory between users: CUDNNFE_CACHE_SECRET names a file holding a secret the
 *  users share (16 to 4096 bytes, owned by the user, mode 0600). Then every entry is written with
 *  an HMAC-SHA256 of its bytes under the secret, entries are read whoever owns them but only when
 *  their MAC verifies (one that does not is a miss, counted as rejected), and any directory is
 *  usable, entries going in the directory itself. A secret that is missing, a link, another
 *  user's, readable by others or of another size leaves the cache unused: this call fails with
 *  FE_STATUS_INVALID_ARGUMENT naming the cause, and builds log it. */
FE_API fe_status fe_handle_set_cache_directory(fe_handle *handle, const char *directory);
/** Bytes the directory may hold before the oldest entries are removed (default 1 GiB). Every
 *  regular entry and temporary file counts by the disk space it takes (its allocated blocks: a
 *  sparse file by what it holds; links are not followed); temporary
 *  files older than 10 minutes (left by killed writers) are removed at the next write. */
FE_API fe_status fe_handle_set_cache_limit(fe_handle *handle, int64_t max_bytes);

/* ------------------------------------------------------------------------------------------ */
/* Dynamic shapes: the kernel cache.                                                          */
/* ------------------------------------------------------------------------------------------ */
/* A graph built with a kernel cache (fe_build_options.kernel_cache or fe_graph_set_kernel_cache)
 * is built with dynamic shapes: cuDNN compiles kernels that take their dims at run time and
 * keeps them in the cache, so a later graph of the same structure (operations, data types,
 * layouts) with other dims builds from the cache in milliseconds instead of compiling again.
 * Each graph still has its own dims and is executed as usual. The plan search tries the engine
 * configs whose kernels the cache holds first (in heuristics' order), then the others, so a new
 * shape compiles only when none of the cached configs runs it; dynamic-shape kernels are not
 * specialized for the dims, and run slower than the static ones (bench/results). cuDNN 9.5 or later
 * (FE_STATUS_NOT_SUPPORTED otherwise, naming the version); the operation families cuDNN builds
 * with dynamic shapes are listed in docs/capabilities.md. A cache may be shared by graphs of
 * several structures and used by several threads; the graphs keep it alive. It serves one GPU:
 * its kernels are loaded on the device of its first build, and a build for another device with
 * it is refused (FE_STATUS_INVALID_ARGUMENT); give each GPU a cache. */

/* A static plan built in the background (fe_build_options.background_static). The switch
 * happens at the first fe_graph_execute after the plan is ready that is not part of a stream
 * capture (a capture records the plan it started with) and whose workspace holds the static
 * plan: the handle's managed workspace (grown as for any execute), or a caller's workspace when
 * the static plan needs no more than the dynamic one (which is what fe_graph_workspace_size
 * reports and the caller sized it for); otherwise that execute runs the dynamic plan. Populating
 * and updating CUDA graphs keep the dynamic plan. Destroying or building the graph again waits for
 * a background build that is still running. */
typedef enum fe_background_state FE_ENUM_BASE {
    FE_BACKGROUND_NONE = 0,     /* no background build (none asked for, or no kernel cache) */
    FE_BACKGROUND_BUILDING = 1, /* the static plan is being built */
    FE_BACKGROUND_READY = 2,    /* built; the next execute that can switches to it */
    FE_BACKGROUND_SWITCHED = 3, /* executes run the static plan */
    FE_BACKGROUND_FAILED = 4    /* the static build failed: executes keep the dynamic plan */
} fe_background_state;
/** Where the graph's background static build stands. */
FE_API fe_status fe_graph_background_state(const fe_graph *graph, fe_background_state *out_state);
/** Wait until the graph's background static build has ended (at once without one). FE_OK when it
 *  built the plan (or there is none); its build's status and message when it failed. */
FE_API fe_status fe_graph_wait_background(fe_graph *graph);

/** An empty kernel cache. */
FE_API fe_status fe_kernel_cache_create(fe_kernel_cache **out_cache);
/** Release the caller's reference (graphs built with the cache keep theirs). NULL is a no-op. */
FE_API fe_status fe_kernel_cache_destroy(fe_kernel_cache *cache);
/** cuDNN's JSON form of the cache (cuDNN 9.10), for another process on the same kind of GPU with
 *  the same cuDNN. Same buffer protocol as fe_graph_describe. FE_STATUS_BAD_STATE for a cache no
 *  graph has been built with yet. */
FE_API fe_status fe_kernel_cache_serialize(const fe_kernel_cache *cache, char *buf, size_t buf_size,
                                           size_t *out_length);
/** A kernel cache from fe_kernel_cache_serialize's text (untrusted: checked to be a JSON object
 *  of at most 256 MiB before cuDNN reads it; cuDNN's own refusal is FE_STATUS_INVALID_ARGUMENT). */
FE_API fe_status fe_kernel_cache_deserialize(const char *json, size_t length, fe_kernel_cache **out_cache);
/** Store the cache in the handle's persistent cache directory (fe_handle_set_cache_directory or
 *  CUDNNFE_CACHE_DIR) under `name` (letters, digits, '-', '_' and '.', at most 64), written as
 *  plan entries are: a temporary file renamed into place, counted against the directory's
 *  limit. Keyed by the GPU kind and the cuDNN version, so another GPU or cuDNN does not read it.
 *  FE_STATUS_BAD_STATE when there is no directory. handle nullable (CUDNNFE_CACHE_DIR only). */
FE_API fe_status fe_kernel_cache_store(const fe_kernel_cache *cache, fe_handle *handle, const char *name);
/** Load the cache stored under `name` for the handle's GPU and cuDNN, or FE_STATUS_NOT_FOUND
 *  (no entry, or one rejected as corrupt: it is removed and the log says why). */
FE_API fe_status fe_kernel_cache_load(fe_handle *handle, const char *name, fe_kernel_cache **out_cache);
/** Build the graph with dynamic shapes from this cache (nullable: without). Before
 *  fe_graph_build_operation_graph; fe_graph_build's options->kernel_cache does the same. */
FE_API fe_status fe_graph_set_kernel_cache(fe_graph *graph, fe_kernel_cache *cache);
/** Counters of the calling process (for tests and tools): in-process hits, persistent hits,
 *  misses (full builds), entries rejected as corrupt or stale. Each nullable.
 *  The in-process cache holds at most 1024 plans and 1024 graphs under cache keys
 *  (fe_build_options.cache_key), each about 32 KB; past that the least recently used entry is
 *  dropped (graphs already built keep their plans). The environment variable
 *  CUDNNFE_PLAN_CACHE_ENTRIES (a positive integer, read at each store) sets another bound. */
FE_API fe_status fe_plan_cache_stats(int64_t *out_memory_hits, int64_t *out_disk_hits,
                                     int64_t *out_misses, int64_t *out_rejected);
/** Drop every in-process cache entry (graphs already built keep their plans). */
FE_API fe_status fe_plan_cache_clear(void);
/** In-process cache entries (plans and keyed graphs) dropped so far to stay within the bound
 *  above, in the calling process. */
FE_API fe_status fe_plan_cache_evictions(int64_t *out_evictions);

/** Write a built graph as a self-contained, versioned blob: magic, format version, library
 *  and cuDNN versions, device fingerprint, the graph (as fe_graph_to_json), the chosen plan,
 *  the uid layout, a checksum. Same buffer protocol as fe_device_properties_capture (bytes,
 *  no terminating NUL). */
FE_API fe_status fe_graph_serialize(const fe_graph *graph, void *buf, size_t buf_size,
                                    size_t *out_size);

typedef enum fe_mismatch_policy FE_ENUM_BASE {
    FE_MISMATCH_REFUSE = 0, /* a blob from another cuDNN version or GPU fails with the reason */
    FE_MISMATCH_REBUILD = 1 /* ... is rebuilt from the graph it carries (heuristics, compile) */
} fe_mismatch_policy;

typedef struct fe_deserialize_options {
    uint32_t struct_size;
    fe_mismatch_policy on_mismatch;
    /* Deviceless: load the plan for the GPU this cuDNN device JSON describes (nullable; then
     * the handle's GPU). The graph can be inspected and serialized again, not executed. */
    const char *device_properties_json;
} fe_deserialize_options;
#define FE_DESERIALIZE_OPTIONS_INIT \
    { (uint32_t)sizeof(fe_deserialize_options), FE_MISMATCH_REFUSE, NULL }

/** A graph ready to execute (by uid, positionally, or with fe_graph_tensor_by_name handles)
 *  from fe_graph_serialize's bytes: no heuristics, no compilation. handle nullable when
 *  options has device properties. options nullable. Truncated or corrupted bytes return
 *  FE_STATUS_INVALID_ARGUMENT, as does a plan cuDNN cannot load, a recorded workspace that is
 *  negative or FE_SERIALIZED_MAX_WORKSPACE_BYTES or more, and an embedded graph over
 *  FE_GRAPH_JSON_MAX_BYTES; a version or GPU mismatch under FE_MISMATCH_REFUSE returns
 *  FE_STATUS_NOT_SUPPORTED naming the mismatch (a GPU of another name with the same compute
 *  capability, SM count and shared memory, as an H200 is to an H100 SXM, is not a mismatch). Blobs written by a cudnnfe of another major
 *  version are refused (FE_STATUS_NOT_SUPPORTED) under either policy. The bytes are untrusted
 *  input: the graph they carry is rebuilt through the API and lowered again, and the plan is
 *  accepted only when its operation graph has that lowering's tensors (uids, dims, strides,
 *  types, alignment, vectorization, reordering, ragged offsets) and operations, each tensor on
 *  the same port, every tensor named as cuDNN writes names, and no member cuDNN does not write;
 *  anything else is FE_STATUS_INVALID_ARGUMENT ("the plan does not match its graph: ...").
 *  Constants and binding layout come from the lowering, and the workspace, engine and knobs
 *  (fe_graph_workspace_size, fe_graph_engine_tag) from the loaded plan itself, never from the
 *  bytes' record. Cache directory entries are checked the same way (a mismatch is a miss). */
FE_API fe_status fe_graph_deserialize(fe_handle *handle, const void *data, size_t size,
                                      const fe_deserialize_options *options,
                                      fe_graph **out_graph);
/** A readable description of a serialized blob (header fields, graph, engine, workspace)
 *  without loading its plan; works without cuDNN. Same buffer protocol as
 *  fe_graph_describe. */
FE_API fe_status fe_serialized_describe(const void *data, size_t size, char *buf,
                                        size_t buf_size, size_t *out_length);

/** The graph as JSON text (the format of docs/graph-json.md): defaults, tensors with uids,
 *  operations with every attribute, outputs. Built or not. Same buffer protocol as
 *  fe_graph_describe. */
FE_API fe_status fe_graph_to_json(const fe_graph *graph, char *buf, size_t buf_size,
                                  size_t *out_length);
/** The graph's key: 64 lowercase hex digits, the SHA-256 of its JSON (fe_graph_to_json's text)
 *  less the described GPU. What the graph is decides it (names, dims, strides, types, the uids
 *  set, every operation and attribute, the outputs), not where or how it is built: the same graph
 *  has the same key in every process and on every machine, for a framework's own cache of graphs
 *  or plans (the plan cache keys on the same facts, taken from the graph without the text, with
 *  the build options, the target and the versions).
 *  Validation writes the types it resolves (a tensor's "not set" becomes the graph's default)
 *  into the graph and so into its key: compare keys taken at the same step, before validation
 *  or after it. Same buffer protocol as fe_graph_describe (65 bytes with the NUL). */
FE_API fe_status fe_graph_key(const fe_graph *graph, char *buf, size_t buf_size, size_t *out_length);
/** A new graph from JSON text (one graph object of docs/graph-json.md). Errors name the line
 *  and the field: "fe_graph_from_json: line 12, ops[1].attributes.stride: ...". Text longer
 *  than FE_GRAPH_JSON_MAX_BYTES is refused unread (FE_STATUS_INVALID_ARGUMENT): reading costs
 *  memory in proportion to the text. */
FE_API fe_status fe_graph_from_json(const char *json, size_t length, fe_graph **out_graph);
/** The longest graph JSON fe_graph_from_json reads, and a serialized graph may embed (64 MiB). */
#define FE_GRAPH_JSON_MAX_BYTES ((size_t)64 << 20)
/** A serialized graph's plan section holds at most this (8 MiB; plans are tens of kilobytes):
 *  a larger one, from a blob or a cache entry, is refused unread (FE_STATUS_INVALID_ARGUMENT).
 *  Its other sections are bounded too: the graph by FE_GRAPH_JSON_MAX_BYTES, the device
 *  description by 1 MiB. */
#define FE_SERIALIZED_MAX_PLAN_BYTES ((size_t)8 << 20)
/** A serialized graph's recorded workspace is below this (1 TiB, more than any GPU holds). */
#define FE_SERIALIZED_MAX_WORKSPACE_BYTES ((int64_t)1 << 40)

/* ------------------------------------------------------------------------------------------ */
/* Execution. Every non-virtual tensor must be bound exactly once to a 16-byte-aligned device  */
/* pointer (scalars made by fe_graph_scalar are bound by the library). An output's memory      */
/* (the bytes its tensor spans) must not overlap an input's or another output's: such a call   */
/* returns FE_STATUS_INVALID_ARGUMENT naming both. Inputs may share memory, and the pairs an   */
/* operation documents as updated in place may too (batchnorm's and bn_finalize's running      */
/* statistics and their next values, concatenate's in_place_index input inside y).            */
/* workspace is nullable:                                                                      */
/* the handle's managed workspace is used (grown if needed). A caller's workspace must hold at */
/* least fe_graph_workspace_size bytes. The work is enqueued on the handle's stream.           */
/* Executing allocates nothing except when the handle's workspace must grow.                   */
/*                                                                                             */
/* CUDA graphs. An execute may be captured (cudaStreamBeginCapture on the handle's stream):    */
/* it then neither allocates nor synchronizes. Growing the managed workspace would do both, so */
/* an execute that needs it to grow while the stream captures fails with FE_STATUS_BAD_STATE;  */
/* call fe_graph_warmup before capturing, or pass a workspace. A captured graph keeps the      */
/* addresses it was given, the managed workspace's too: do not let that workspace grow (warm   */
/* up with the largest graph first) while such a CUDA graph may still be launched. A graph     */
/* whose workspace accumulator is cleared by execute (see fe_graph_populate_cuda_graph) keeps  */
/* that clearing in the capture, as a memset node.                                             */
/* ------------------------------------------------------------------------------------------ */

/** Bind by tensor handles. */
FE_API fe_status fe_graph_execute(fe_graph *graph, fe_handle *handle, fe_tensor *const *tensors,
                                  void *const *device_pointers, size_t count, void *workspace);
/** Bind by tensor handles to fe_buffers (each checked to be large enough). */
FE_API fe_status fe_graph_execute_buffers(fe_graph *graph, fe_handle *handle,
                                          fe_tensor *const *tensors,
                                          fe_buffer *const *buffers, size_t count,
                                          void *workspace);
/** Bind by uid (e.g. for a graph whose tensor handles the caller does not keep). */
FE_API fe_status fe_graph_execute_by_uid(fe_graph *graph, fe_handle *handle,
                                         const int64_t *uids, void *const *device_pointers,
                                         size_t count, void *workspace);
/** Bind positionally: inputs in creation order, then outputs (see fe_graph_input). */
FE_API fe_status fe_graph_execute_positional(fe_graph *graph, fe_handle *handle,
                                             void *const *device_pointers, size_t count,
                                             void *workspace);

/** The first execute's one-time work done now, so that executes captured into a CUDA graph
 *  find it done: the handle's managed workspace grows to the graph's need and the handle's
 *  device is made current. No kernel runs; nothing is enqueued. */
FE_API fe_status fe_graph_warmup(fe_graph *graph, fe_handle *handle);

/** Add the built graph's work to `cuda_graph` (a cudaGraph_t that has no nodes yet), bound as
 *  fe_graph_execute binds, instead of running it: cuDNN adds its own kernel nodes (needs
 *  cuDNN 9.5 and an engine whose behaviour notes include native CUDA-graph support; otherwise
 *  FE_STATUS_NOT_SUPPORTED names the engine and the alternative, stream capture). Instantiate
 *  and launch the CUDA graph yourself, or add it to a larger one as a child graph node.
 *  `workspace` must be given when the graph needs one (fe_graph_workspace_size > 0) and outlive
 *  the CUDA graph: the handle's managed workspace may move. A graph whose execute clears a
 *  workspace accumulator first (attention backward before cuDNN 9.6) is refused: capture
 *  fe_graph_execute instead. Nothing runs and nothing is enqueued. */
FE_API fe_status fe_graph_populate_cuda_graph(fe_graph *graph, fe_handle *handle,
                                              fe_tensor *const *tensors,
                                              void *const *device_pointers, size_t count,
                                              void *workspace, void *cuda_graph);
/** Rebind a CUDA graph that fe_graph_populate_cuda_graph filled with this graph's work to new
 *  pointers (and workspace), in place; then apply it to an instantiated graph with
 *  cudaGraphExecUpdate. A CUDA graph this graph's plan did not populate is refused, with
 *  cuDNN's reason (FE_STATUS_INVALID_ARGUMENT when cuDNN reports the mismatch as such). */
FE_API fe_status fe_graph_update_cuda_graph(fe_graph *graph, fe_handle *handle,
                                            fe_tensor *const *tensors,
                                            void *const *device_pointers, size_t count,
                                            void *workspace, void *cuda_graph);

#ifdef __cplusplus
}
#endif

#endif /* CUDNNFE_H */
