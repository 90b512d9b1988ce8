#include "families.hpp"

namespace conformance {

const std::vector<Family> &families() {
    static const std::vector<Family> all = [] {
        std::vector<Family> f;
        register_attention(f);
        register_attention_fp8(f);
        register_convolution(f);
        register_matmul(f);
        register_block_scale(f);
        register_elementwise(f);
        register_norm(f);
        register_resample(f);
        register_moe(f);
        register_layout(f);
        register_softmax(f);
        register_bn_finalize(f);
        register_complex_matmul(f);
        register_conv_vectorized(f);
        return f;
    }();
    return all;
}

}  // namespace conformance
