// reference_frontend_bench: the host's cost of one execute of the same attention graph through
// cudnnfe and through NVIDIA's cudnn-frontend (the C++ library users compare cudnnfe with), in one
// process on one cuDNN, with the stream held back (host_timer_export.h) so that the calls only
// queue their work.
//
//   reference_frontend_bench [rounds] [calls]
//
// Graphs (as bench/host_time_bench's): attention, bf16 b 1, h 1, s 64/64, d 64; decode, bf16 b 8,
// 32 query heads over 8 key heads, 1 query, 2048 keys, d 128; no statistics. Each side builds its
// graph with heuristics' first choice on its own buffers (random inputs). Contenders per round:
// cudnnfe's fe_graph_execute (tensors and pointers), the frontend's execute with a map from its
// tensors to pointers (its samples' way) and with a map from uids; rounds interleaved, medians. One
// line per graph: cudnnfe_us, frontend_tensor_map_us, frontend_uid_map_us and the engines.
//
// Built when meson's `reference_frontend` option names cudnn-frontend's include directory; the
// frontend loads cuDNN, the CUDA driver and NVRTC itself (its dynamic loading), so nothing more is
// linked.
#include <cuda_runtime_api.h>
#include <cudnn_frontend.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "cudnnfe.h"
#include "host_timer_export.h"

namespace cfe = cudnn_frontend;

// The frontend's dynamic loading reads cuDNN's symbols from the library its user opened.
namespace cudnn_frontend {
void *cudnn_dlhandle = nullptr;
}

namespace {

void check(bool ok, const char *what) {
    if (ok) return;
    std::printf("error=%s message=\"%s\"\n", what, fe_last_error_message());
    std::exit(1);
}
#define FE_OK_OR_EXIT(call) check((call) == FE_OK, #call)
#define CUDA_OK_OR_EXIT(call) check((call) == cudaSuccess, #call)

struct Shape {
    const char *name;
    int64_t b, h_q, h_k, s_q, s_kv, d;
};

int64_t elements(const Shape &s, int64_t heads, int64_t seq) { return s.b * heads * seq * s.d; }

void *random_bf16(int64_t count, std::mt19937 &rng) {
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    std::vector<uint16_t> host(static_cast<size_t>(count));
    for (uint16_t &v : host) {
        float f = dist(rng);
        uint32_t u;
        std::memcpy(&u, &f, 4);
        v = static_cast<uint16_t>(u >> 16);
    }
    void *p = nullptr;
    CUDA_OK_OR_EXIT(cudaMalloc(&p, host.size() * 2));
    CUDA_OK_OR_EXIT(cudaMemcpy(p, host.data(), host.size() * 2, cudaMemcpyHostToDevice));
    return p;
}

// Q, K, V and O of one side, in that order.
struct Buffers {
    void *q, *k, *v, *o;
};

Buffers buffers_for(const Shape &s, std::mt19937 &rng) {
    Buffers b{};
    b.q = random_bf16(elements(s, s.h_q, s.s_q), rng);
    b.k = random_bf16(elements(s, s.h_k, s.s_kv), rng);
    b.v = random_bf16(elements(s, s.h_k, s.s_kv), rng);
    CUDA_OK_OR_EXIT(cudaMalloc(&b.o, static_cast<size_t>(elements(s, s.h_q, s.s_q)) * 2));
    return b;
}

// ---- cudnnfe ----

struct Cudnnfe {
    fe_handle *handle = nullptr;
    fe_graph *graph = nullptr;
    fe_tensor *tensors[4] = {};
    void *pointers[4] = {};
};

void cudnnfe_enqueue(void *context, int, cudaStream_t) {
    auto *c = static_cast<Cudnnfe *>(context);
    FE_OK_OR_EXIT(fe_graph_execute(c->graph, c->handle, c->tensors, c->pointers, 4, nullptr));
}

void build_cudnnfe(Cudnnfe &c, const Shape &s, const Buffers &b) {
    fe_graph_options go = FE_GRAPH_OPTIONS_INIT;
    go.name = s.name;
    go.io_data_type = FE_DATA_BFLOAT16;
    FE_OK_OR_EXIT(fe_graph_create(&go, &c.graph));
    const int64_t qd[4] = {s.b, s.h_q, s.s_q, s.d}, kd[4] = {s.b, s.h_k, s.s_kv, s.d};
    FE_OK_OR_EXIT(fe_graph_tensor(c.graph, "q", 4, qd, nullptr, FE_DATA_NOT_SET, &c.tensors[0]));
    FE_OK_OR_EXIT(fe_graph_tensor(c.graph, "k", 4, kd, nullptr, FE_DATA_NOT_SET, &c.tensors[1]));
    FE_OK_OR_EXIT(fe_graph_tensor(c.graph, "v", 4, kd, nullptr, FE_DATA_NOT_SET, &c.tensors[2]));
    fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
    o.attn_scale = 1.0 / std::sqrt(static_cast<double>(s.d));
    fe_tensor *stats = nullptr;
    FE_OK_OR_EXIT(fe_graph_sdpa(c.graph, c.tensors[0], c.tensors[1], c.tensors[2], &o, &c.tensors[3], &stats));
    FE_OK_OR_EXIT(fe_tensor_set_output(c.tensors[3], 1));
    FE_OK_OR_EXIT(fe_graph_build(c.graph, c.handle, nullptr));
    c.pointers[0] = b.q;
    c.pointers[1] = b.k;
    c.pointers[2] = b.v;
    c.pointers[3] = b.o;
}

// ---- cudnn-frontend ----

struct Frontend {
    cudnnHandle_t handle = nullptr;
    std::shared_ptr<cfe::graph::Graph> graph;
    std::shared_ptr<cfe::graph::Tensor_attributes> q, k, v, o;
    std::unordered_map<std::shared_ptr<cfe::graph::Tensor_attributes>, void *> by_tensor;
    std::unordered_map<int64_t, void *> by_uid;
    void *workspace = nullptr;
};

void frontend_check(cfe::error_t e, const char *what) {
    if (e.is_good()) return;
    std::printf("error=%s message=\"%s\"\n", what, e.get_message().c_str());
    std::exit(1);
}

void frontend_by_tensor(void *context, int, cudaStream_t) {
    auto *f = static_cast<Frontend *>(context);
    frontend_check(f->graph->execute(f->handle, f->by_tensor, f->workspace), "frontend execute");
}

void frontend_by_uid(void *context, int, cudaStream_t) {
    auto *f = static_cast<Frontend *>(context);
    frontend_check(f->graph->execute(f->handle, f->by_uid, f->workspace), "frontend execute");
}

std::shared_ptr<cfe::graph::Tensor_attributes> frontend_tensor(Frontend &f, const char *name, int64_t uid,
                                                               std::vector<int64_t> dims) {
    std::vector<int64_t> strides(dims.size(), 1);
    for (size_t i = dims.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * dims[i + 1];
    return f.graph->tensor(cfe::graph::Tensor_attributes().set_name(name).set_uid(uid).set_dim(dims).set_stride(strides));
}

void build_frontend(Frontend &f, const Shape &s, const Buffers &b) {
    f.graph = std::make_shared<cfe::graph::Graph>();
    f.graph->set_io_data_type(cfe::DataType_t::BFLOAT16)
        .set_intermediate_data_type(cfe::DataType_t::FLOAT)
        .set_compute_data_type(cfe::DataType_t::FLOAT);
    f.q = frontend_tensor(f, "q", 1, {s.b, s.h_q, s.s_q, s.d});
    f.k = frontend_tensor(f, "k", 2, {s.b, s.h_k, s.s_kv, s.d});
    f.v = frontend_tensor(f, "v", 3, {s.b, s.h_k, s.s_kv, s.d});
    auto options = cfe::graph::SDPA_attributes()
                       .set_name("sdpa")
                       .set_generate_stats(false)
                       .set_attn_scale(static_cast<float>(1.0 / std::sqrt(static_cast<double>(s.d))));
    auto [o, stats] = f.graph->sdpa(f.q, f.k, f.v, options);
    (void)stats;
    std::vector<int64_t> od = {s.b, s.h_q, s.s_q, s.d}, os(4, 1);
    for (size_t i = 3; i-- > 0;) os[i] = os[i + 1] * od[i + 1];
    o->set_output(true).set_dim(od).set_stride(os).set_uid(4);
    f.o = o;
    frontend_check(f.graph->validate(), "frontend validate");
    frontend_check(f.graph->build_operation_graph(f.handle), "frontend build_operation_graph");
    frontend_check(f.graph->create_execution_plans({cfe::HeurMode_t::A}), "frontend create_execution_plans");
    frontend_check(f.graph->check_support(f.handle), "frontend check_support");
    frontend_check(f.graph->build_plans(f.handle), "frontend build_plans");
    int64_t bytes = 0;
    frontend_check(f.graph->get_workspace_size(bytes), "frontend get_workspace_size");
    if (bytes > 0) CUDA_OK_OR_EXIT(cudaMalloc(&f.workspace, static_cast<size_t>(bytes)));
    f.by_tensor = {{f.q, b.q}, {f.k, b.k}, {f.v, b.v}, {f.o, b.o}};
    f.by_uid = {{1, b.q}, {2, b.k}, {3, b.v}, {4, b.o}};
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 15, calls = argc > 2 ? std::atoi(argv[2]) : 200;
    std::mt19937 rng(1234);
    cudaStream_t stream;
    CUDA_OK_OR_EXIT(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    Cudnnfe c;
    FE_OK_OR_EXIT(fe_handle_create(0, &c.handle));
    FE_OK_OR_EXIT(fe_handle_set_stream(c.handle, stream));
    // The cuDNN cudnnfe loaded (libcudnn.so.9 from the library path) for the frontend too.
    cfe::cudnn_dlhandle = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_GLOBAL);
    check(cfe::cudnn_dlhandle != nullptr, "dlopen libcudnn.so.9");
    Frontend f;
    check(cfe::detail::create_handle(&f.handle) == CUDNN_STATUS_SUCCESS, "cudnnCreate");
    check(cfe::detail::set_stream(f.handle, stream) == CUDNN_STATUS_SUCCESS, "cudnnSetStream");
    const Shape shapes[] = {{"attention", 1, 1, 1, 64, 64, 64}, {"decode", 8, 32, 8, 1, 2048, 128}};
    for (const Shape &s : shapes) {
        Buffers ours = buffers_for(s, rng), theirs = buffers_for(s, rng);
        build_cudnnfe(c, s, ours);
        build_frontend(f, s, theirs);
        std::vector<double> us[3];
        for (int r = 0; r < rounds; ++r) {
            us[0].push_back(bench_host_us_per_call(cudnnfe_enqueue, &c, 1, calls, 1, stream));
            us[1].push_back(bench_host_us_per_call(frontend_by_tensor, &f, 1, calls, 1, stream));
            us[2].push_back(bench_host_us_per_call(frontend_by_uid, &f, 1, calls, 1, stream));
        }
        const char *tag = nullptr;
        FE_OK_OR_EXIT(fe_graph_engine_tag(c.graph, &tag));
        std::printf("graph=%s cudnnfe_us=%.2f frontend_tensor_map_us=%.2f frontend_uid_map_us=%.2f cudnnfe_engine=%s "
                    "cudnn=%zu frontend=%d rounds=%d calls=%d\n",
                    s.name, median(us[0]), median(us[1]), median(us[2]), tag, cfe::detail::get_backend_version(),
                    CUDNN_FRONTEND_VERSION, rounds, calls);
        std::fflush(stdout);
        fe_graph_destroy(c.graph);
        c.graph = nullptr;
        for (void *p : {ours.q, ours.k, ours.v, ours.o, theirs.q, theirs.k, theirs.v, theirs.o}) cudaFree(p);
        if (f.workspace) cudaFree(f.workspace);
        cudnnHandle_t kept = f.handle;
        f = Frontend();
        f.handle = kept;
    }
    FE_OK_OR_EXIT(fe_handle_set_stream(c.handle, nullptr));
    fe_handle_destroy(c.handle);
    cfe::detail::destroy_handle(f.handle);
    cudaStreamDestroy(stream);
    return 0;
}
