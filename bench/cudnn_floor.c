/*
 * libcudnn_floor: cuDNN's own cost beside cudnnfe's, in the same process, on the same plan and
 * variant pack. cudnnfe loads cuDNN with dlopen, so naming this library in CUDNNFE_CUDNN_LIBRARY
 * puts it between the two: it forwards every function cudnnfe calls to the real cuDNN
 * (CUDNN_FLOOR_REAL, default libcudnn.so.9) and
 *
 *   - times each cudnnBackendExecute (the host time spent inside cuDNN's call), and apart from it
 *     the calls that make, set, finalize and destroy descriptors (a variant pack made for new
 *     bindings), and
 *   - keeps the last execute's handle, plan and variant pack, so that a benchmark can call
 *     cuDNN's execute alone on exactly what cudnnfe passed it (cudnn_floor_replay).
 *
 * The benchmark reaches the functions below by opening this library again (RTLD_NOLOAD).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cudnn_graph.h>

/* Read and reset: the nanoseconds spent inside cudnnBackendExecute and how many calls. */
void cudnn_floor_take(int64_t *ns, int64_t *calls);
/* Read and reset: the nanoseconds spent inside cuDNN's descriptor calls (create, set, finalize,
 * destroy). */
int64_t cudnn_floor_take_descriptors(void);
/* One cudnnBackendExecute on the last execute's handle, plan and variant pack; its status
 * (CUDNN_STATUS_NOT_INITIALIZED when no execute was seen). */
int cudnn_floor_replay(void);

static void *real_library(void) {
    static void *lib;
    if (!lib) {
        const char *path = getenv("CUDNN_FLOOR_REAL");
        lib = dlopen(path && *path ? path : "libcudnn.so.9", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            fprintf(stderr, "libcudnn_floor: cannot load the real cuDNN: %s\n", dlerror());
            abort();
        }
    }
    return lib;
}

static void *real(const char *name) {
    void *f = dlsym(real_library(), name);
    if (!f) {
        fprintf(stderr, "libcudnn_floor: the real cuDNN lacks %s\n", name);
        abort();
    }
    return f;
}

/* The real function `name`, looked up once, of the type of this library's function. */
#define REAL(name) static __typeof__(name) *real_##name; \
    if (!real_##name) *(void **)&real_##name = real(#name)

static int64_t inside_ns, inside_calls, descriptor_ns;
static cudnnHandle_t last_handle;
static cudnnBackendDescriptor_t last_plan, last_pack;

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

size_t cudnnGetVersion(void) {
    REAL(cudnnGetVersion);
    return real_cudnnGetVersion();
}

const char *cudnnGetErrorString(cudnnStatus_t status) {
    REAL(cudnnGetErrorString);
    return real_cudnnGetErrorString(status);
}

void cudnnGetLastErrorString(char *message, size_t max_size) {
    REAL(cudnnGetLastErrorString);
    real_cudnnGetLastErrorString(message, max_size);
}

cudnnStatus_t cudnnCreate(cudnnHandle_t *handle) {
    REAL(cudnnCreate);
    return real_cudnnCreate(handle);
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
    REAL(cudnnDestroy);
    if (handle == last_handle) last_handle = NULL;
    return real_cudnnDestroy(handle);
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t stream) {
    REAL(cudnnSetStream);
    return real_cudnnSetStream(handle, stream);
}

cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t *descriptor) {
    REAL(cudnnBackendCreateDescriptor);
    const int64_t start = now_ns();
    cudnnStatus_t status = real_cudnnBackendCreateDescriptor(type, descriptor);
    descriptor_ns += now_ns() - start;
    return status;
}

cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor) {
    REAL(cudnnBackendDestroyDescriptor);
    if (descriptor == last_plan || descriptor == last_pack) last_plan = last_pack = NULL;
    const int64_t start = now_ns();
    cudnnStatus_t status = real_cudnnBackendDestroyDescriptor(descriptor);
    descriptor_ns += now_ns() - start;
    return status;
}

cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor) {
    REAL(cudnnBackendFinalize);
    const int64_t start = now_ns();
    cudnnStatus_t status = real_cudnnBackendFinalize(descriptor);
    descriptor_ns += now_ns() - start;
    return status;
}

cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type, int64_t count, const void *elements) {
    REAL(cudnnBackendSetAttribute);
    const int64_t start = now_ns();
    cudnnStatus_t status = real_cudnnBackendSetAttribute(descriptor, name, type, count, elements);
    descriptor_ns += now_ns() - start;
    return status;
}

cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor, cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type, int64_t requested, int64_t *count,
                                       void *elements) {
    REAL(cudnnBackendGetAttribute);
    return real_cudnnBackendGetAttribute(descriptor, name, type, requested, count, elements);
}

cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                                  cudnnBackendDescriptor_t pack) {
    REAL(cudnnBackendExecute);
    last_handle = handle;
    last_plan = plan;
    last_pack = pack;
    const int64_t start = now_ns();
    cudnnStatus_t status = real_cudnnBackendExecute(handle, plan, pack);
    inside_ns += now_ns() - start;
    ++inside_calls;
    return status;
}

cudnnStatus_t cudnnBackendPopulateCudaGraph(cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                                            cudnnBackendDescriptor_t pack, cudaGraph_t graph) {
    REAL(cudnnBackendPopulateCudaGraph);
    return real_cudnnBackendPopulateCudaGraph(handle, plan, pack, graph);
}

cudnnStatus_t cudnnBackendUpdateCudaGraph(cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                                          cudnnBackendDescriptor_t pack, cudaGraph_t graph) {
    REAL(cudnnBackendUpdateCudaGraph);
    return real_cudnnBackendUpdateCudaGraph(handle, plan, pack, graph);
}

void cudnn_floor_take(int64_t *ns, int64_t *calls) {
    *ns = inside_ns;
    *calls = inside_calls;
    inside_ns = inside_calls = 0;
}

int64_t cudnn_floor_take_descriptors(void) {
    const int64_t ns = descriptor_ns;
    descriptor_ns = 0;
    return ns;
}

int cudnn_floor_replay(void) {
    REAL(cudnnBackendExecute);
    if (!last_handle || !last_plan || !last_pack) return CUDNN_STATUS_NOT_INITIALIZED;
    return real_cudnnBackendExecute(last_handle, last_plan, last_pack);
}
