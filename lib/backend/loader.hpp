// cuDNN and the CUDA runtime, loaded with dlopen at first need. Nothing here is linked at
// build time, so the library loads (and builds and validates graphs) on machines with neither.
#pragma once

#include <cudnn_graph.h>

#include <string>

namespace fe {

// The subset of the CUDA runtime we call. cudaError_t is an int-sized enum.
struct CudaRuntime {
    int (*cudaRuntimeGetVersion)(int *);
    int (*cudaDriverGetVersion)(int *);
    int (*cudaGetDeviceCount)(int *);
    int (*cudaGetDevice)(int *);
    int (*cudaSetDevice)(int);
    int (*cudaMalloc)(void **, size_t);
    int (*cudaFree)(void *);
    int (*cudaMemcpy)(void *, const void *, size_t, int);
    int (*cudaMemset)(void *, int, size_t);
    int (*cudaMemsetAsync)(void *, int, size_t, void *);
    int (*cudaStreamSynchronize)(void *);
    // Events time plans when autotuning.
    int (*cudaEventCreate)(void **);
    int (*cudaEventDestroy)(void *);
    int (*cudaEventRecord)(void *, void *);
    int (*cudaEventSynchronize)(void *);
    int (*cudaEventElapsedTime)(float *, void *, void *);
    // A private stream and CUDA graphs time plans back to back without launch gaps.
    int (*cudaStreamCreateWithFlags)(void **, unsigned int);
    int (*cudaStreamDestroy)(void *);
    int (*cudaStreamBeginCapture)(void *, int);
    int (*cudaStreamEndCapture)(void *, void **);
    int (*cudaGraphInstantiate)(void **, void *, unsigned long long);
    int (*cudaGraphLaunch)(void *, void *);
    int (*cudaGraphExecDestroy)(void *);
    int (*cudaGraphDestroy)(void *);
    int (*cudaStreamIsCapturing)(void *, int *);
    int (*cudaGraphGetNodes)(void *, void **, size_t *);
    // Peer access: synchronized batchnorm's GPUs read each other's statistics buffers.
    int (*cudaDeviceCanAccessPeer)(int *, int, int);
    int (*cudaDeviceEnablePeerAccess)(int, unsigned int);
    int (*cudaGetLastError)(void);
    const char *(*cudaGetErrorString)(int);
    const char *(*cudaGetErrorName)(int);
};
enum { kCudaMemcpyHostToDevice = 1, kCudaMemcpyDeviceToHost = 2, kCudaMemcpyDeviceToDevice = 3 };
enum { kCudaStreamNonBlocking = 1, kCudaStreamCaptureModeThreadLocal = 1, kCudaStreamCaptureStatusNone = 0 };
enum {
    kCudaErrorMemoryAllocation = 2,
    kCudaErrorStubLibrary = 34,
    kCudaErrorInsufficientDriver = 35,
    kCudaErrorNoDevice = 100,
    kCudaErrorPeerAccessAlreadyEnabled = 704,
};

struct Cudnn {
    size_t (*cudnnGetVersion)(void);
    const char *(*cudnnGetErrorString)(cudnnStatus_t);
    void (*cudnnGetLastErrorString)(char *, size_t);
    cudnnStatus_t (*cudnnCreate)(cudnnHandle_t *);
    cudnnStatus_t (*cudnnDestroy)(cudnnHandle_t);
    cudnnStatus_t (*cudnnSetStream)(cudnnHandle_t, cudaStream_t);
    cudnnStatus_t (*cudnnBackendCreateDescriptor)(cudnnBackendDescriptorType_t,
                                                  cudnnBackendDescriptor_t *);
    cudnnStatus_t (*cudnnBackendDestroyDescriptor)(cudnnBackendDescriptor_t);
    cudnnStatus_t (*cudnnBackendFinalize)(cudnnBackendDescriptor_t);
    cudnnStatus_t (*cudnnBackendSetAttribute)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
                                              cudnnBackendAttributeType_t, int64_t, const void *);
    cudnnStatus_t (*cudnnBackendGetAttribute)(cudnnBackendDescriptor_t,
                                              cudnnBackendAttributeName_t,
                                              cudnnBackendAttributeType_t, int64_t, int64_t *,
                                              void *);
    cudnnStatus_t (*cudnnBackendExecute)(cudnnHandle_t, cudnnBackendDescriptor_t,
                                         cudnnBackendDescriptor_t);
    // Native CUDA graphs (Feature::native_cuda_graph); null in a cuDNN without them.
    cudnnStatus_t (*cudnnBackendPopulateCudaGraph)(cudnnHandle_t, cudnnBackendDescriptor_t,
                                                   cudnnBackendDescriptor_t, cudaGraph_t);
    cudnnStatus_t (*cudnnBackendUpdateCudaGraph)(cudnnHandle_t, cudnnBackendDescriptor_t,
                                                 cudnnBackendDescriptor_t, cudaGraph_t);
    // The legacy filter descriptor and INT8x32 filter reordering (fe_handle_reorder_filter_int8x32);
    // null where the loaded cuDNN lacks them. The descriptor is opaque and the enums are ints here,
    // as in cudnn_cnn.h, so that the backend headers suffice.
    cudnnStatus_t (*cudnnCreateFilterDescriptor)(void **);
    cudnnStatus_t (*cudnnSetFilterNdDescriptor)(void *, int data_type, int format, int rank, const int *dims);
    cudnnStatus_t (*cudnnDestroyFilterDescriptor)(void *);
    cudnnStatus_t (*cudnnReorderFilterAndBias)(cudnnHandle_t, const void *filter, int reorder_type, const void *data,
                                               void *reordered, int reorder_bias, const void *bias,
                                               void *reordered_bias);
};

// Loaded tables; throw fe::Error(FE_STATUS_LIBRARY_UNAVAILABLE) naming what was tried.
// Loading happens once per process; both are thread-safe.
const Cudnn &cudnn();
const CudaRuntime &cuda();

// Raise a CUDA runtime error as fe::Error (NO_DEVICE / OUT_OF_MEMORY / CUDA_ERROR).
void check_cuda(int code, const char *what);
// Make `device` the calling thread's current device, after checking that it exists
// (NO_DEVICE when there is none at all, INVALID_ARGUMENT naming how many there are).
void use_device(int32_t device);
// cuDNN's last error text (one line), or "" when there is none.
std::string cudnn_last_error_text();

}  // namespace fe
