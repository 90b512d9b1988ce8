// INT8 convolution on the GPU: int8 image and weight (channels-last), int32 accumulation, a float
// or int8 result (saturated). Small integers make every product and sum exact, so the result must
// equal the CPU reference exactly. Inputs are uploaded as raw int8 bytes; outputs poisoned.
#include <algorithm>
#include <cstring>

#include "reference.hpp"

using namespace cudnnfe_test;

namespace {

class ConvInt8 : public Gpu, public ::testing::WithParamInterface<fe_data_type> {
  protected:
    Bound &poisoned_output(fe_tensor *t) {
        Bound &b = allocate(t);
        EXPECT_FE_OK(fe_buffer_fill_bytes(b.buffer, 0x7F));
        return b;
    }
    // Float or int8 results into b.host as floats.
    void download_result(Bound &b) {
        if (b.type == FE_DATA_FLOAT) {
            ASSERT_FE_OK(fe_buffer_download(b.buffer, b.host.data(), static_cast<int64_t>(b.host.size() * 4)));
            return;
        }
        std::vector<int8_t> raw(b.host.size());
        ASSERT_FE_OK(fe_buffer_download(b.buffer, raw.data(), static_cast<int64_t>(raw.size())));
        for (size_t i = 0; i < raw.size(); ++i) b.host[i] = raw[i];
    }
};

TEST_P(ConvInt8, IsExact) {
    fe_data_type out_type = GetParam();
    fe_graph *g = graph("conv_int8", FE_DATA_INT8, FE_DATA_INT32, FE_DATA_INT32);
    fe_tensor *x = tensor(g, "x", {4, 32, 12, 12}, true, FE_DATA_INT8);
    fe_tensor *w = tensor(g, "w", {64, 32, 3, 3}, true, FE_DATA_INT8);
    fe_conv_options o = FE_CONV_OPTIONS_INIT;
    for (int i = 0; i < 2; ++i) o.pre_padding[i] = o.post_padding[i] = 1;
    o.compute_data_type = FE_DATA_INT32;
    fe_tensor *y = nullptr;
    ASSERT_FE_OK(fe_graph_conv_fprop(g, x, w, &o, &y));
    ASSERT_FE_OK(fe_tensor_set_data_type(y, out_type));
    ASSERT_FE_OK(fe_tensor_set_output(y, 1));
    build(g);
    std::printf("    int8 -> %s plan %s\n", fe_data_type_string(out_type), engine_tag_of(g));
    // An int8 result saturates: small operands keep most sums inside [-128, 127].
    int range = out_type == FE_DATA_INT8 ? 1 : 8;
    Bound &bx = int8_input(x, range), &bw = int8_input(w, range), &by = poisoned_output(y);
    execute(g, {&bx, &bw, &by});
    download_result(by);
    std::vector<double> ref = conv_reference(bx, bw, by.dims, ConvParams{{1, 1}, {1, 1}, {1, 1}});
    if (out_type == FE_DATA_INT8)
        for (double &v : ref) v = std::min(127.0, std::max(-128.0, v));
    expect_close(by, ref, 0.0, 0.0, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Gpu, ConvInt8, ::testing::Values(FE_DATA_FLOAT, FE_DATA_INT8),
                         [](const ::testing::TestParamInfo<fe_data_type> &info) {
                             return std::string(info.param == FE_DATA_INT8 ? "int8_result" : "float_result");
                         });

}  // namespace
