// libFuzzer target: random sequences of C ABI calls on one graph, driven by the input bytes:
// tensors with random dims, strides, types and names (any bytes), operations of every family
// with random options (any numbers, NaN and infinities included), outputs marked, tensors
// renamed and reshaped, then validation, the JSON round trip and a description. Besides "no
// crash, no leak, no undefined behaviour", every call either succeeds or fails with a status
// and a message that names the call, and a graph that validates writes JSON that reads back
// to the same text. No cuDNN is needed: nothing here builds a plan.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cudnnfe.h"
#include "fuzz_support.hpp"

namespace {

// The input as a stream of small choices; past its end every read gives zeros.
class Bytes {
  public:
    Bytes(const uint8_t *data, size_t size) : data_(data), size_(size) {}
    bool done() const { return at_ >= size_; }
    uint8_t u8() { return at_ < size_ ? data_[at_++] : 0; }
    uint32_t below(uint32_t n) { return n ? u8() % n : 0; }
    int64_t dim() {
        static const int64_t kDims[] = {1, 2, 3, 4, 8, 16, 64, 0, -1, INT64_MAX, int64_t(1) << 31, 7};
        return kDims[below(sizeof kDims / sizeof kDims[0])];
    }
    double number() {
        static const double kNumbers[] = {0.0, 1.0, -1.0, 0.5, 1e-5, 1e30, -1e30,
                                          std::numeric_limits<double>::quiet_NaN(),
                                          std::numeric_limits<double>::infinity(),
                                          -std::numeric_limits<double>::infinity(), 0.125, 2.0};
        return kNumbers[below(sizeof kNumbers / sizeof kNumbers[0])];
    }
    std::string name() {
        std::string s;
        for (uint32_t n = below(6); n > 0; --n) s.push_back(static_cast<char>(u8()));
        return s;
    }

  private:
    const uint8_t *data_;
    size_t size_, at_ = 0;
};

[[noreturn]] void finding(const char *what) {
    std::fprintf(stderr, "API property broken: %s (%s)\n", what, fe_last_error_message());
    std::abort();
}

// A failing call must say which call failed.
void expect(fe_status status, const char *function) {
    if (status == FE_OK) return;
    if (std::strncmp(fe_last_error_message(), function, std::strlen(function)) != 0)
        finding("a failure's message does not name its call");
}

const fe_data_type kTypes[] = {FE_DATA_NOT_SET, FE_DATA_FLOAT, FE_DATA_HALF, FE_DATA_BFLOAT16,
                               FE_DATA_INT32,   FE_DATA_INT64, FE_DATA_INT8, FE_DATA_FP8_E4M3,
                               static_cast<fe_data_type>(99)};

struct Session {
    Bytes &in;
    fe_graph *g;
    std::vector<fe_tensor *> tensors;

    fe_tensor *pick() { return tensors.empty() ? nullptr : tensors[in.below(static_cast<uint32_t>(tensors.size()) + 1) % tensors.size()]; }
    void keep(fe_tensor *t) {
        if (t) tensors.push_back(t);
    }

    void tensor() {
        size_t rank = 1 + in.below(5);
        int64_t dims[8], strides[8];
        for (size_t i = 0; i < rank; ++i) dims[i] = in.dim();
        bool strided = in.below(2);
        for (size_t i = 0; i < rank; ++i) strides[i] = in.dim();
        std::string name = in.name();
        fe_tensor *t = nullptr;
        expect(fe_graph_tensor(g, name.c_str(), rank, dims, strided ? strides : nullptr, kTypes[in.below(9)], &t),
               "fe_graph_tensor");
        keep(t);
    }
    void scalar() {
        std::string name = in.name();
        fe_tensor *t = nullptr;
        expect(fe_graph_scalar(g, name.c_str(), in.number(), kTypes[in.below(9)], &t), "fe_graph_scalar");
        keep(t);
    }
    void conv() {
        fe_conv_options o = FE_CONV_OPTIONS_INIT;
        int64_t pad[3] = {in.dim(), in.dim(), in.dim()};
        expect(fe_conv_options_set_padding(&o, in.below(4), pad), "fe_conv_options_set_padding");
        int64_t stride[3] = {in.dim(), in.dim(), in.dim()};
        expect(fe_conv_options_set_stride(&o, in.below(4), stride), "fe_conv_options_set_stride");
        o.groups = in.dim();
        fe_tensor *y = nullptr;
        expect(fe_graph_conv_fprop(g, pick(), pick(), &o, &y), "fe_graph_conv_fprop");
        keep(y);
    }
    void matmul() {
        fe_tensor *c = nullptr;
        expect(fe_graph_matmul(g, pick(), pick(), nullptr, &c), "fe_graph_matmul");
        keep(c);
    }
    void pointwise() {
        static const fe_pointwise_mode kModes[] = {FE_POINTWISE_ADD, FE_POINTWISE_RELU_FWD, FE_POINTWISE_MUL,
                                                   FE_POINTWISE_BINARY_SELECT, FE_POINTWISE_GELU_BWD,
                                                   static_cast<fe_pointwise_mode>(12345)};
        fe_pointwise_options o = FE_POINTWISE_OPTIONS_INIT;
        o.relu_lower_clip = in.number();
        o.relu_upper_clip = in.number();
        o.axis = in.dim();
        fe_tensor *y = nullptr;
        expect(fe_graph_pointwise(g, kModes[in.below(6)], pick(), in.below(2) ? pick() : nullptr,
                                  in.below(3) ? nullptr : pick(), &o, &y),
               "fe_graph_pointwise");
        keep(y);
    }
    void reduction() {
        fe_reduction_options o = FE_REDUCTION_OPTIONS_INIT;
        o.reduce_axes = in.u8();
        fe_tensor *y = nullptr;
        expect(fe_graph_reduction(g, pick(), static_cast<fe_reduction_mode>(in.below(10)), &o, &y),
               "fe_graph_reduction");
        keep(y);
    }
    void norm() {
        fe_norm_options o = FE_NORM_OPTIONS_INIT;
        o.phase = static_cast<fe_norm_phase>(in.below(3));
        o.epsilon = in.number();
        fe_tensor *y = nullptr, *mean = nullptr, *inv = nullptr;
        expect(fe_graph_layernorm(g, pick(), pick(), pick(), &o, &y, &mean, &inv), "fe_graph_layernorm");
        keep(y);
        keep(mean);
        keep(inv);
    }
    void batchnorm() {
        fe_batchnorm_options o = FE_BATCHNORM_OPTIONS_INIT;
        o.momentum = in.number();
        if (in.below(2)) {
            o.running_mean = pick();
            o.running_var = pick();
        }
        fe_tensor *out[5] = {};
        expect(fe_graph_batchnorm(g, pick(), pick(), pick(), &o, &out[0], &out[1], &out[2], &out[3], &out[4]),
               "fe_graph_batchnorm");
        for (fe_tensor *t : out) keep(t);
    }
    void sdpa() {
        fe_sdpa_options o = FE_SDPA_OPTIONS_INIT;
        o.attn_scale = in.number();
        o.causal_mask = static_cast<fe_causal_mask>(in.below(4));
        o.sliding_window = in.dim();
        o.generate_stats = in.below(2);
        o.dropout_probability = in.number();
        o.implementation = static_cast<fe_sdpa_implementation>(in.below(4));
        fe_tensor *out = nullptr, *stats = nullptr;
        expect(fe_graph_sdpa(g, pick(), pick(), pick(), &o, &out, &stats), "fe_graph_sdpa");
        keep(out);
        keep(stats);
    }
    void resample() {
        fe_resample_options o = FE_RESAMPLE_OPTIONS_INIT;
        int64_t window[3] = {in.dim(), in.dim(), in.dim()};
        expect(fe_resample_options_set_window(&o, in.below(4), window), "fe_resample_options_set_window");
        o.mode = static_cast<fe_resample_mode>(in.below(6));
        o.generate_index = in.below(2);
        fe_tensor *y = nullptr, *index = nullptr;
        expect(fe_graph_resample(g, pick(), &o, &y, &index), "fe_graph_resample");
        keep(y);
        keep(index);
    }
    void layout() {
        int64_t dims[4] = {in.dim(), in.dim(), in.dim(), in.dim()};
        fe_tensor *y = nullptr;
        if (in.below(2))
            expect(fe_graph_reshape(g, pick(), 1 + in.below(4), dims, nullptr, &y), "fe_graph_reshape");
        else
            expect(fe_graph_transpose(g, pick(), 1 + in.below(4), dims, nullptr, &y), "fe_graph_transpose");
        keep(y);
    }
    void change_tensor() {
        fe_tensor *t = pick();
        switch (in.below(4)) {
            case 0: expect(fe_tensor_set_output(t, in.below(2)), "fe_tensor_set_output"); break;
            case 1: {
                std::string name = in.name();
                expect(fe_tensor_set_name(t, name.c_str()), "fe_tensor_set_name");
                break;
            }
            case 2: {
                int64_t dims[3] = {in.dim(), in.dim(), in.dim()};
                expect(fe_tensor_set_dims(t, 1 + in.below(3), dims), "fe_tensor_set_dims");
                break;
            }
            default: expect(fe_tensor_set_data_type(t, kTypes[in.below(9)]), "fe_tensor_set_data_type"); break;
        }
    }
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    fuzz::forbid_cuda_libraries();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Bytes in(data, size);
    fe_graph_options options = FE_GRAPH_OPTIONS_INIT;
    std::string graph_name = in.name();
    options.name = graph_name.c_str();
    options.io_data_type = kTypes[in.below(9)];
    fe_graph *g = nullptr;
    expect(fe_graph_create(&options, &g), "fe_graph_create");
    if (!g) return 0;
    Session s{in, g, {}};
    for (int call = 0; call < 64 && !in.done(); ++call) {
        switch (in.below(13)) {
            case 0: case 1: s.tensor(); break;
            case 2: s.scalar(); break;
            case 3: s.conv(); break;
            case 4: s.matmul(); break;
            case 5: s.pointwise(); break;
            case 6: s.reduction(); break;
            case 7: s.norm(); break;
            case 8: s.batchnorm(); break;
            case 9: s.sdpa(); break;
            case 10: s.resample(); break;
            case 11: s.layout(); break;
            default: s.change_tensor(); break;
        }
    }
    if (fe_graph_validate(g) == FE_OK) {
        std::string first, second;
        if (!fuzz::graph_json(g, &first)) finding("a validated graph does not write");
        fe_graph *back = nullptr;
        if (fe_graph_from_json(first.data(), first.size(), &back) != FE_OK) {
            std::fprintf(stderr, "the graph's JSON:\n%s\n", first.c_str());
            finding("its JSON does not read back");
        }
        if (fe_graph_validate(back) != FE_OK) finding("the graph read back does not validate");
        if (!fuzz::graph_json(back, &second) || first != second) finding("the round trip changed the text");
        fe_graph_destroy(back);
    }
    size_t n = 0;
    fe_graph_describe(g, nullptr, 0, &n);
    fe_graph_destroy(g);
    return 0;
}
