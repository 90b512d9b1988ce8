// FP8 matmul: A and B stored in FP8 with their descales, the product accumulated in float,
// descaled, its largest magnitude (amax) recorded, then quantized into C with scale_c.

// include/cudnnfe.h, section "Matmuls" (copied there by scripts/schema/generate_header.py):
// /* FP8 matmul's scaling factors: float tensors of one element (device tensors of any rank, or
//  * fe_graph_scalar values), with fe_sdpa_fp8_scales' conventions: real = stored * descale,
//  * stored = real * scale. All three are required. */
// typedef struct fe_matmul_fp8_scales {
//     uint32_t struct_size;
//     fe_tensor *descale_a; /* turns A's stored FP8 values into real ones */
//     fe_tensor *descale_b; /* turns B's stored FP8 values into real ones */
//     fe_tensor *scale_c;   /* quantizes the real product into C */
// } fe_matmul_fp8_scales;
// #define FE_MATMUL_FP8_SCALES_INIT { (uint32_t)sizeof(fe_matmul_fp8_scales), NULL, NULL, NULL }
//
// /** FP8 matmul (Hopper and later): C = (A x B, accumulated in float) * descale_a * descale_b *
//  *  scale_c. A: [..., M, K], B: [..., K, N], fp8_e4m3 or fp8_e5m2 (checked when the graph is
//  *  lowered); batch dims broadcast as in fe_graph_matmul. scales is required (see
//  *  fe_matmul_fp8_scales); options nullable (fe_matmul_options: name, compute type, default
//  *  float). out_c receives "<node>::C", [..., M, N], in A's FP8 type unless its type is set
//  *  (fe_tensor_set_data_type: fp8, half, bfloat16 or float). out_amax receives "<node>::Amax",
//  *  float, C's rank with all dims 1: the largest absolute value of the real product before
//  *  scale_c (for the next step's scale); mark it as an output. Both are owned by the graph. */
// FE_API fe_status fe_graph_matmul_fp8(fe_graph *graph, fe_tensor *a, fe_tensor *b,
//                                      const fe_matmul_fp8_scales *scales,
//                                      const fe_matmul_options *options, fe_tensor **out_c,
//                                      fe_tensor **out_amax);

#include <cudnn_graph.h>

#include <string>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "ops/graph_ops.hpp"
#include "ops/matmul_shape.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"
#include "schema/schema.hpp"

namespace fe {
namespace {

enum Port { kA = 0, kB, kDescaleA, kDescaleB, kScaleC, kPorts };
const char *const kPortNames[] = {"A", "B", "descale_a", "descale_b", "scale_c"};

bool is_fp8(fe_data_type t) { return t == FE_DATA_FP8_E4M3 || t == FE_DATA_FP8_E5M2; }

class MatmulFp8 : public Node {
  public:
    MatmulFp8(fe_tensor *a, fe_tensor *b, const fe_matmul_fp8_scales &s, const fe_matmul_options &o) {
        inputs = {a, b, s.descale_a, s.descale_b, s.scale_c};
        compute_data_type = o.compute_data_type;
        fast_accumulate_ = o.fast_accumulate != 0;
    }
    const char *kind() const override { return "matmul_fp8"; }
    // Written only when set: graphs without it keep the form (and plan-cache keys) they had.
    void write_attributes(AttributeWriter &out) const override {
        if (fast_accumulate_) out.field("fast_accumulate", true);
    }
    std::string attributes() const override { return fast_accumulate_ ? " fast_accumulate" : ""; }
    const char *input_port(size_t i) const override { return i < kPorts ? kPortNames[i] : "?"; }

    void infer() override {
        for (int i = kDescaleA; i < kPorts; ++i)
            FE_CHECK(inputs[static_cast<size_t>(i)] != nullptr, FE_STATUS_NULL_POINTER, "scales->%s is NULL",
                     kPortNames[i]);
        const std::vector<int64_t> out = matmul_result_dims(inputs[kA], inputs[kB]);
        const size_t rank = out.size();
        // Two-dimensional operands get a batch of one (cuDNN's matmul wants rank 3 or more);
        // the scales and amax take the result's rank.
        for (int i = kDescaleA; i < kPorts; ++i) {
            fe_tensor *t = inputs[static_cast<size_t>(i)];
            FE_CHECK(t->data_type == FE_DATA_FLOAT || t->data_type == FE_DATA_NOT_SET, FE_STATUS_INVALID_ARGUMENT,
                     "%s '%s' must be one float element (it is %s %s)", kPortNames[i], t->name.c_str(),
                     data_type_name(t->data_type), dims_string(t->dims).c_str());
            shape_single_element(t, kPortNames[i], rank);
        }
        assign_inferred_shape(outputs[0], out, packed_strides(out));
        std::vector<int64_t> ones(rank, 1);
        assign_inferred_shape(outputs[1], ones, ones);
    }

    std::string combination() const override {
        return format("matmul_fp8 A %s, B %s, C %s", data_type_name(inputs[kA]->data_type),
                      data_type_name(inputs[kB]->data_type), data_type_name(outputs[0]->data_type));
    }

    std::string unsupported_hint() const override {
        return explanation(Feature::fp8_matmul, cudnn().cudnnGetVersion());
    }

    void lower(Lowering &lowering) const override {
        lowering.require(Feature::fp8_matmul);
        for (int i : {kA, kB}) {
            const fe_tensor *t = inputs[static_cast<size_t>(i)];
            FE_CHECK(is_fp8(t->data_type), FE_STATUS_NOT_SUPPORTED,
                     "an FP8 matmul takes fp8_e4m3 or fp8_e5m2 A and B; %s '%s' is %s", kPortNames[i], t->name.c_str(),
                     data_type_name(t->data_type));
        }
        for (int i = kDescaleA; i < kPorts; ++i) {
            const fe_tensor *t = inputs[static_cast<size_t>(i)];
            FE_CHECK(t->data_type == FE_DATA_FLOAT, FE_STATUS_NOT_SUPPORTED, "%s '%s' is %s; scales are float",
                     kPortNames[i], t->name.c_str(), data_type_name(t->data_type));
        }
        fe_data_type c_type = outputs[0]->data_type;
        FE_CHECK(is_fp8(c_type) || c_type == FE_DATA_HALF || c_type == FE_DATA_BFLOAT16 || c_type == FE_DATA_FLOAT,
                 FE_STATUS_NOT_SUPPORTED, "C '%s' is %s; an FP8 matmul writes fp8_e4m3, fp8_e5m2, half, bfloat16 or float",
                 outputs[0]->name.c_str(), data_type_name(c_type));
        FE_CHECK(outputs[1]->data_type == FE_DATA_FLOAT, FE_STATUS_NOT_SUPPORTED, "amax '%s' is %s; it must be float",
                 outputs[1]->name.c_str(), data_type_name(outputs[1]->data_type));
        fe_data_type compute = lowering.compute_type(*this);
        // cuDNN's cuBLASLt-backed engines build plans for some FP8 matmuls that fail at every
        // execute; its own engines run them (capability fp8_matmul_cublaslt_engines).
        lowering.avoid_engines(CUDNN_BEHAVIOR_NOTE_CUBLASLT_DEPENDENCY, Feature::fp8_matmul_cublaslt_engines);
        // The intermediates take C's shape as cuDNN sees it: a 2-D matmul is lowered with a batch
        // of one, and cuDNN's matmul refuses a product of another rank than its operands.
        std::vector<int64_t> dims, lowered_strides;
        lowering.lowered_shape(outputs[0], &dims, &lowered_strides);
        const std::string what = "FP8 matmul '" + name + "'";
        auto label = [&what](const char *step) { return what + " " + step; };
        auto scale = [&](int port) -> const Descriptor & { return lowering.tensor(inputs[static_cast<size_t>(port)]); };
        const fe_pointwise_options pw = FE_POINTWISE_OPTIONS_INIT;

        // Fast accumulation is the product's math type alone; the descales and amax stay in it.
        const fe_data_type product_math =
            fast_accumulate_ ? static_cast<fe_data_type>(CUDNN_DATA_FAST_FLOAT_FOR_FP8) : compute;
        const Descriptor &product = lowering.internal_tensor(dims, packed_strides(dims), FE_DATA_FLOAT);
        emit_matmul(lowering, lowering.tensor(inputs[kA]), lowering.tensor(inputs[kB]), product, product_math,
                    label("A.B"));
        const Descriptor &by_a = lowering.internal_tensor(dims, packed_strides(dims), FE_DATA_FLOAT);
        emit_pointwise(lowering, FE_POINTWISE_MUL, product, &scale(kDescaleA), nullptr, by_a, compute, pw, 0,
                       label("descale A"));
        const Descriptor &real = lowering.internal_tensor(dims, packed_strides(dims), FE_DATA_FLOAT);
        emit_pointwise(lowering, FE_POINTWISE_MUL, by_a, &scale(kDescaleB), nullptr, real, compute, pw, 0,
                       label("descale B"));
        emit_reduction(lowering, FE_REDUCTION_AMAX, real, lowering.tensor(outputs[1]), compute, label("amax C"));
        emit_pointwise(lowering, FE_POINTWISE_MUL, real, &scale(kScaleC), nullptr, lowering.tensor(outputs[0]), compute,
                       pw, 0, label("scale C"));
    }

  private:
    bool fast_accumulate_ = false;
};

const schema::Struct kFp8Scales = FE_SCHEMA_OPTIONS(fe_matmul_fp8_scales, FE_MATMUL_FP8_SCALES_INIT,
    "FP8 matmul's scaling factors: one-element float tensors, all required.",
    FE_SCHEMA_TENSOR(fe_matmul_fp8_scales, descale_a, nullptr, "Turns A's FP8 values into real ones."),
    FE_SCHEMA_TENSOR(fe_matmul_fp8_scales, descale_b, nullptr, "Turns B's FP8 values into real ones."),
    FE_SCHEMA_TENSOR(fe_matmul_fp8_scales, scale_c, nullptr, "Quantizes the product into C."));

const schema::Op kMatmulFp8{"matmul_fp8",
                    "fe_graph_matmul_fp8",
                    "Matmuls",
                    {{"A", nullptr, "[..., M, K], fp8"},
                     {"B", nullptr, "[..., K, N], fp8"}},
                    {{"C", nullptr, "[..., M, N], A's FP8 type unless set"},
                     {"Amax", nullptr, "the largest absolute value of the product before scale_c"}},
                    {},
                    &matmul_options_description(),
                    {"name", "compute_data_type", "fast_accumulate"},
                    true,
                    "FP8 matmul with descales, a scaled result and its amax (Hopper and later).",
                    nullptr,
                    &kFp8Scales};

// The amax is float; C takes A's FP8 type unless the caller sets another.
const std::vector<fe_tensor *> &add_matmul_fp8(fe_graph &g, const schema::Call &c) {
    const auto &o = c.options_as<fe_matmul_options>();
    fe_tensor *a = c.inputs[0];
    Results outputs = g.add_op(std::make_unique<MatmulFp8>(a, c.inputs[1], c.scales_as<fe_matmul_fp8_scales>(), o),
                               o.name, "matmul_fp8", {"C", "Amax"});
    keep_float(outputs[1]);
    bool fp8_a = a->data_type == FE_DATA_FP8_E4M3 || a->data_type == FE_DATA_FP8_E5M2;
    if (outputs[0]->data_type == FE_DATA_NOT_SET && fp8_a) outputs[0]->data_type = a->data_type;
    return outputs;
}

const schema::Registration kRegistered(kMatmulFp8, add_matmul_fp8);

}  // namespace

}  // namespace fe
