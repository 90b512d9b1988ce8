// What cuDNN does with vectorized INT8 convolutions (NCHW_VECT_C: INT8x4 and INT8x32, the filter
// as given or reordered for INT8x32), which cudnnfe's API does not express: a convolution forward
// built straight on cuDNN's backend API, every engine config its heuristics (modes A and FALLBACK)
// list finalized, executed on random int8 data (the output poisoned first) and compared with an
// integer convolution on the CPU. One line per config:
//
//   probe vectorized_int8 x32 reorder=int8x32 engine=eng.. notes=... plan=ok execute=ok wrong=0/4096
//
// and a last line with the verdict for the capability table. cudnnfe provides the device memory
// (fe_buffer); cuDNN is opened as cudnnfe opens it (dlopen of libcudnn.so.9, or CUDNNFE_CUDNN_LIBRARY).
//
//   cudnnfe_vectorized_int8_probe [seed]
#include <cudnn_cnn.h>
#include <cudnn_graph.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <cudnnfe.h>

namespace {

// The cuDNN functions the probe calls, from the library cudnnfe loads.
struct Cudnn {
    decltype(&cudnnCreate) create;
    decltype(&cudnnGetErrorString) error_string;
    decltype(&cudnnBackendCreateDescriptor) create_descriptor;
    decltype(&cudnnBackendDestroyDescriptor) destroy_descriptor;
    decltype(&cudnnBackendSetAttribute) set;
    decltype(&cudnnBackendGetAttribute) get;
    decltype(&cudnnBackendFinalize) finalize;
    decltype(&cudnnBackendExecute) execute;
    decltype(&cudnnCreateFilterDescriptor) create_filter;
    decltype(&cudnnSetFilter4dDescriptor) set_filter;
    decltype(&cudnnReorderFilterAndBias) reorder;
};

bool load(Cudnn &c) {
    const char *path = std::getenv("CUDNNFE_CUDNN_LIBRARY");
    void *lib = dlopen(path && *path ? path : "libcudnn.so.9", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) return false;
    bool ok = true;
    auto bind = [&](auto &fn, const char *name) {
        *reinterpret_cast<void **>(&fn) = dlsym(lib, name);
        ok = ok && fn;
    };
    bind(c.create, "cudnnCreate");
    bind(c.error_string, "cudnnGetErrorString");
    bind(c.create_descriptor, "cudnnBackendCreateDescriptor");
    bind(c.destroy_descriptor, "cudnnBackendDestroyDescriptor");
    bind(c.set, "cudnnBackendSetAttribute");
    bind(c.get, "cudnnBackendGetAttribute");
    bind(c.finalize, "cudnnBackendFinalize");
    bind(c.execute, "cudnnBackendExecute");
    bind(c.create_filter, "cudnnCreateFilterDescriptor");
    bind(c.set_filter, "cudnnSetFilter4dDescriptor");
    bind(c.reorder, "cudnnReorderFilterAndBias");
    return ok;
}

Cudnn cudnn;

// A backend descriptor, destroyed with its scope.
struct Desc {
    cudnnBackendDescriptor_t d = nullptr;
    explicit Desc(cudnnBackendDescriptorType_t type) { cudnn.create_descriptor(type, &d); }
    ~Desc() {
        if (d) cudnn.destroy_descriptor(d);
    }
    Desc(const Desc &) = delete;
    Desc &operator=(const Desc &) = delete;
    template <typename T>
    void set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, const T *values, int64_t count = 1) {
        cudnn.set(d, name, type, count, values);
    }
};

// The shape: x [N, C, H, W] * w [K, C, R, S], padding 1, into y [N, K, H, W], vectors of V channels.
constexpr int64_t N = 2, C = 64, H = 8, W = 8, K = 32, R = 3, S = 3;

// Offset of element (n, c, h, w) of a [n, c, h, w] tensor stored NCHW_VECT_C with vectors of v.
int64_t vect_c(int64_t n, int64_t c, int64_t h, int64_t w, int64_t channels, int64_t height, int64_t width,
               int64_t v) {
    return (((n * (channels / v) + c / v) * height + h) * width + w) * v + c % v;
}

// A tensor of dims [n, c / v, h, w] (in vectors), packed, vectors of v along dim 1.
void make_tensor(Desc &t, int64_t uid, int64_t n, int64_t c, int64_t h, int64_t w, int64_t v,
                 cudnnBackendTensorReordering_t reordering) {
    const cudnnDataType_t type = CUDNN_DATA_INT8;
    const int64_t dims[] = {n, c / v, h, w}, strides[] = {c / v * h * w, h * w, w, 1}, alignment = 16;
    const int64_t count = v, dimension = 1;
    t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &type);
    t.set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims, 4);
    t.set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides, 4);
    t.set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid);
    t.set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment);
    t.set(CUDNN_ATTR_TENSOR_VECTOR_COUNT, CUDNN_TYPE_INT64, &count);
    t.set(CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION, CUDNN_TYPE_INT64, &dimension);
    if (reordering != CUDNN_TENSOR_REORDERING_NONE)
        t.set(CUDNN_ATTR_TENSOR_REORDERING_MODE, CUDNN_TYPE_TENSOR_REORDERING_MODE, &reordering);
}

fe_buffer *device_bytes(const std::vector<int8_t> &host) {
    fe_buffer *b = nullptr;
    if (fe_buffer_create(0, static_cast<int64_t>(host.size()), &b) != FE_OK ||
        fe_buffer_upload(b, host.data(), static_cast<int64_t>(host.size())) != FE_OK) {
        std::printf("probe vectorized_int8 error: %s\n", fe_last_error_message());
        std::exit(1);
    }
    return b;
}

void *pointer_of(fe_buffer *b) {
    void *p = nullptr;
    fe_buffer_device_pointer(b, &p);
    return p;
}

struct Tally {
    int configs = 0, plans = 0, right = 0, wrong = 0, failed = 0;
};

// Every engine config of one form: v channels a vector, the filter reordered for INT8x32 or not.
void probe(cudnnHandle_t handle, int64_t v, bool reordered, std::mt19937 &rng, Tally &tally) {
    const char *form = v == 32 ? "x32" : "x4";
    const char *reorder_name = reordered ? "int8x32" : "none";
    Desc x(CUDNN_BACKEND_TENSOR_DESCRIPTOR), w(CUDNN_BACKEND_TENSOR_DESCRIPTOR), y(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    make_tensor(x, 1, N, C, H, W, v, CUDNN_TENSOR_REORDERING_NONE);
    make_tensor(w, 2, K, C, R, S, v, reordered ? CUDNN_TENSOR_REORDERING_INT8x32 : CUDNN_TENSOR_REORDERING_NONE);
    make_tensor(y, 3, N, K, H, W, v, CUDNN_TENSOR_REORDERING_NONE);
    for (Desc *t : {&x, &w, &y}) cudnn.finalize(t->d);

    Desc conv(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    const cudnnDataType_t math = CUDNN_DATA_INT32;
    const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    const int64_t spatial = 2, ones[] = {1, 1}, pads[] = {1, 1};
    conv.set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &math);
    conv.set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, &mode);
    conv.set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, &spatial);
    conv.set(CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, ones, 2);
    conv.set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, ones, 2);
    conv.set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, pads, 2);
    conv.set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, pads, 2);
    cudnnStatus_t st = cudnn.finalize(conv.d);

    Desc op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    const float alpha = 1.f, beta = 0.f;
    op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, &x.d);
    op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, &w.d);
    op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, &y.d);
    op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &conv.d);
    op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, &alpha);
    op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, &beta);
    if (st == CUDNN_STATUS_SUCCESS) st = cudnn.finalize(op.d);

    Desc graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, &op.d);
    graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &handle);
    if (st == CUDNN_STATUS_SUCCESS) st = cudnn.finalize(graph.d);
    if (st != CUDNN_STATUS_SUCCESS) {
        std::printf("probe vectorized_int8 %s reorder=%s graph=%s\n", form, reorder_name, cudnn.error_string(st));
        return;
    }

    // Random int8 data, sparse enough that no sum leaves int8's range.
    std::uniform_int_distribution<int> value(-1, 1), keep(0, 4);
    std::vector<int8_t> hx(static_cast<size_t>(N * C * H * W)), hw(static_cast<size_t>(K * C * R * S));
    for (int8_t &e : hx) e = static_cast<int8_t>(keep(rng) == 0 ? value(rng) : 0);
    for (int8_t &e : hw) e = static_cast<int8_t>(keep(rng) == 0 ? value(rng) : 0);
    std::vector<int> want(static_cast<size_t>(N * K * H * W), 0);
    for (int64_t n = 0; n < N; ++n)
        for (int64_t k = 0; k < K; ++k)
            for (int64_t i = 0; i < H; ++i)
                for (int64_t j = 0; j < W; ++j) {
                    int sum = 0;
                    for (int64_t c = 0; c < C; ++c)
                        for (int64_t r = 0; r < R; ++r)
                            for (int64_t s = 0; s < S; ++s) {
                                const int64_t hi = i + r - 1, wj = j + s - 1;
                                if (hi < 0 || hi >= H || wj < 0 || wj >= W) continue;
                                sum += hx[static_cast<size_t>(vect_c(n, c, hi, wj, C, H, W, v))] *
                                       hw[static_cast<size_t>(vect_c(k, c, r, s, C, R, S, v))];
                            }
                    want[static_cast<size_t>(vect_c(n, k, i, j, K, H, W, v))] = sum;
                }
    fe_buffer *bx = device_bytes(hx), *bw = device_bytes(hw);
    fe_buffer *by = device_bytes(std::vector<int8_t>(want.size(), 0));
    fe_buffer *reordered_w = device_bytes(hw);
    if (reordered) {
        // The filter rearranged as the INT8x32 engines read it, by cuDNN's own function.
        cudnnFilterDescriptor_t filter = nullptr;
        cudnn.create_filter(&filter);
        cudnn.set_filter(filter, CUDNN_DATA_INT8x32, CUDNN_TENSOR_NCHW_VECT_C, static_cast<int>(K),
                         static_cast<int>(C), static_cast<int>(R), static_cast<int>(S));
        cudnnStatus_t rs = cudnn.reorder(handle, filter, CUDNN_DEFAULT_REORDER, pointer_of(bw), pointer_of(reordered_w),
                                         0, nullptr, nullptr);
        if (rs != CUDNN_STATUS_SUCCESS)
            std::printf("probe vectorized_int8 %s reorder=%s cudnnReorderFilterAndBias=%s\n", form, reorder_name,
                        cudnn.error_string(rs));
    }

    for (cudnnBackendHeurMode_t heur : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
        Desc heuristics(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
        heuristics.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, &graph.d);
        heuristics.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &heur);
        if (cudnn.finalize(heuristics.d) != CUDNN_STATUS_SUCCESS) continue;
        int64_t count = 0;
        cudnn.get(heuristics.d, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr);
        std::vector<cudnnBackendDescriptor_t> configs(static_cast<size_t>(count));
        for (auto &c : configs) cudnn.create_descriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &c);
        cudnn.get(heuristics.d, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &count,
                  configs.data());
        std::printf("probe vectorized_int8 %s reorder=%s heuristics=%s configs=%lld\n", form, reorder_name,
                    heur == CUDNN_HEUR_MODE_A ? "A" : "FALLBACK", static_cast<long long>(count));
        for (int64_t i = 0; i < count; ++i) {
            ++tally.configs;
            Desc engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
            int64_t got = 0, index = -1;
            cudnn.get(configs[static_cast<size_t>(i)], CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                      &got, &engine.d);
            cudnn.get(engine.d, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &got, &index);
            cudnnBackendBehaviorNote_t notes[8];
            int64_t note_count = 0;
            cudnn.get(engine.d, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE, 8, &note_count, notes);
            std::string note_text;
            for (int64_t n = 0; n < note_count; ++n) {
                const char *name = notes[n] == CUDNN_BEHAVIOR_NOTE_REQUIRES_FILTER_INT8x32_REORDER ? "filter_int8x32_reorder"
                                   : notes[n] == CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION        ? "runtime_compilation"
                                                                                                : nullptr;
                note_text += (note_text.empty() ? "" : ",") + (name ? std::string(name) : std::to_string(notes[n]));
            }
            Desc plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
            plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, &handle);
            plan.set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                     &configs[static_cast<size_t>(i)]);
            cudnnStatus_t ps = cudnn.finalize(plan.d);
            std::printf("probe vectorized_int8 %s reorder=%s engine=eng%lld notes=%s plan=%s", form, reorder_name,
                        static_cast<long long>(index), note_text.empty() ? "none" : note_text.c_str(),
                        ps == CUDNN_STATUS_SUCCESS ? "ok" : cudnn.error_string(ps));
            if (ps != CUDNN_STATUS_SUCCESS) {
                std::printf("\n");
                continue;
            }
            ++tally.plans;
            int64_t workspace_bytes = 0;
            cudnn.get(plan.d, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got, &workspace_bytes);
            fe_buffer *workspace = nullptr;
            if (workspace_bytes > 0) fe_buffer_create(0, workspace_bytes, &workspace);
            fe_buffer_fill_bytes(by, 0x7F);  // poisoned: 127 is no sum of these inputs
            void *pointers[] = {pointer_of(bx), pointer_of(reordered ? reordered_w : bw), pointer_of(by)};
            void *workspace_pointer = workspace ? pointer_of(workspace) : nullptr;
            const int64_t uids[] = {1, 2, 3};
            Desc pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
            pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids, 3);
            pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, pointers, 3);
            pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &workspace_pointer);
            cudnn.finalize(pack.d);
            cudnnStatus_t es = cudnn.execute(handle, plan.d, pack.d);
            std::vector<int8_t> got_y(want.size());
            fe_status ds = fe_buffer_download(by, got_y.data(), static_cast<int64_t>(got_y.size()));
            fe_buffer_destroy(workspace);
            if (es != CUDNN_STATUS_SUCCESS || ds != FE_OK) {
                ++tally.failed;
                std::printf(" execute=%s%s\n", cudnn.error_string(es), ds != FE_OK ? " (the CUDA context is lost)" : "");
                if (ds != FE_OK) std::exit(2);
                continue;
            }
            int64_t wrong = 0;
            for (size_t e = 0; e < want.size(); ++e) wrong += got_y[e] != want[e];
            ++(wrong ? tally.wrong : tally.right);
            std::printf(" execute=ok wrong=%lld/%zu\n", static_cast<long long>(wrong), want.size());
        }
        for (auto &c : configs) cudnn.destroy_descriptor(c);
    }
    for (fe_buffer *b : {bx, bw, by, reordered_w}) fe_buffer_destroy(b);
}

}  // namespace

int main(int argc, char **argv) {
    std::mt19937 rng(argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 1u);
    fe_handle *fe = nullptr;
    if (fe_handle_create(0, &fe) != FE_OK) {
        std::printf("probe vectorized_int8 skipped: %s\n", fe_last_error_message());
        return 77;
    }
    if (!load(cudnn)) {
        std::printf("probe vectorized_int8 error: cuDNN lacks a function the probe calls: %s\n", dlerror());
        return 1;
    }
    cudnnHandle_t handle = nullptr;
    cudnn.create(&handle);
    Tally tally;
    for (int64_t v : {int64_t{4}, int64_t{32}})
        for (bool reordered : {false, true})
            if (v == 32 || !reordered) probe(handle, v, reordered, rng, tally);
    std::printf("probe vectorized_int8 verdict: %d configs, %d plans, %d right, %d wrong, %d failed\n", tally.configs,
                tally.plans, tally.right, tally.wrong, tally.failed);
    fe_handle_destroy(fe);
    return 0;
}
