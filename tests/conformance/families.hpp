// The op families of the conformance tier; each file registers its generators.
#pragma once

#include <vector>

#include "harness.hpp"

namespace conformance {

void register_attention(std::vector<Family> &out);      // attention_family.cpp
void register_attention_fp8(std::vector<Family> &out);  // attention_fp8_family.cpp
void register_convolution(std::vector<Family> &out);  // conv_family.cpp
void register_matmul(std::vector<Family> &out);       // matmul_family.cpp: matmuls, SwiGLU pairs
void register_block_scale(std::vector<Family> &out);  // block_scale_family.cpp
void register_elementwise(std::vector<Family> &out);  // elementwise_family.cpp: pointwise chains, reductions
void register_norm(std::vector<Family> &out);         // norm_family.cpp
void register_resample(std::vector<Family> &out);     // resample_family.cpp
void register_moe(std::vector<Family> &out);          // moe_family.cpp
void register_layout(std::vector<Family> &out);       // layout_family.cpp
void register_softmax(std::vector<Family> &out);      // softmax_family.cpp
void register_bn_finalize(std::vector<Family> &out);  // bn_finalize_family.cpp
void register_complex_matmul(std::vector<Family> &out);  // complex_matmul_family.cpp
void register_conv_vectorized(std::vector<Family> &out);  // conv_vectorized_family.cpp

}  // namespace conformance
