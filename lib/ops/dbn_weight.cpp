// dbn_weight: batch normalization's backward weight gradients (dscale, dbias) and the per-channel
// factors that turn dy and x into dx (dx = eq_scale_dy * dy + eq_scale_x * x + eq_bias). cuDNN
// runs it fused at the end of a ResNet backward block (convolution dgrad, then ReLU backward
// against the recomputed batchnorm output, then this), so that dx is applied by the next
// convolution's prologue rather than in a pass of its own. The whole op in one file: its node,
// its description and its entry point; the graph JSON reader, the docs and the bindings' layers
// come from the description.

// include/cudnnfe.h, section "Normalizations" (copied there by scripts/schema/generate_header.py):
// typedef struct fe_dbn_weight_options {
//     uint32_t struct_size;
//     const char *name;               /* nullable: "dbn_weight_<n>" */
//     fe_data_type compute_data_type; /* float; default: the graph's (float) */
// } fe_dbn_weight_options;
// #define FE_DBN_WEIGHT_OPTIONS_INIT { (uint32_t)sizeof(fe_dbn_weight_options), NULL, FE_DATA_NOT_SET }
//
// /** Batch normalization's backward weight gradients, with dx left as per-channel factors: from
//  *  dy and x [N, C, spatial...] (half, bfloat16 or float, usually channels-last) and the forward's
//  *  float mean, inv_variance and scale [1, C, 1, ...], over M = N x spatial values per channel,
//  *    out_dscale = sum(dy * (x - mean) * inv_variance), out_dbias = sum(dy),
//  *  and the factors of dx = out_eq_scale_dy * dy + out_eq_scale_x * x + out_eq_bias:
//  *    out_eq_scale_dy = scale * inv_variance,
//  *    out_eq_scale_x = -scale * inv_variance^2 * dscale / M,
//  *    out_eq_bias = scale * inv_variance * (inv_variance * dscale * mean - dbias) / M.
//  *  Every output is float [1, C, 1, ...] and required. cuDNN runs it fused after a convolution's
//  *  dgrad and a ReLU backward against the recomputed batchnorm output (the ResNet backward block,
//  *  cuDNN 9.8 on Ampere and Hopper); whether it has an engine for a graph is said by the support
//  *  check. options nullable. */
// FE_API fe_status fe_graph_dbn_weight(fe_graph *graph, fe_tensor *dy, fe_tensor *x, fe_tensor *mean,
//                                      fe_tensor *inv_variance, fe_tensor *scale,
//                                      const fe_dbn_weight_options *options, fe_tensor **out_dscale,
//                                      fe_tensor **out_dbias, fe_tensor **out_eq_scale_dy,
//                                      fe_tensor **out_eq_scale_x, fe_tensor **out_eq_bias);

#include <cudnn_graph.h>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "ops/graph_ops.hpp"
#include "ops/norm.hpp"
#include "schema/schema.hpp"
#include "schema/option_fields.hpp"

namespace fe {

namespace {

std::vector<int64_t> no_stats_dims(const fe_tensor *, const fe_tensor *) { return {}; }

const NormFamily kDbnWeight = {"dbn_weight", CUDNN_BATCH_NORM, true, false, false, Feature::dbn_weight,
                               no_stats_dims};

class DbnWeight : public NormNode {
  public:
    DbnWeight(const std::vector<fe_tensor *> &tensors, const fe_dbn_weight_options &o) : NormNode(kDbnWeight) {
        static const char *const ports[] = {"DY", "X", "mean", "inv_variance", "scale"};
        for (size_t i = 0; i < 5; ++i) add_input(tensors[i], ports[i]);
        compute_data_type = o.compute_data_type;
    }
    const char *kind() const override { return "dbn_weight"; }

    void infer() override {
        const fe_tensor *dy = inputs[0], *x = inputs[1];
        check_same_dims(x, dy->dims, "x");
        // scale [1, C, 1, ...] for x [N, C, spatial...]: the statistics' and outputs' dims.
        std::vector<int64_t> channels = channel_stats_dims(x, inputs[4], false);
        for (size_t i : {2, 3}) check_same_dims(inputs[i], channels, ports_[i]);
        check_data_type(dy, "dy", false);
        check_data_type(x, "x", false);
        for (size_t i : {2, 3, 4}) check_data_type(inputs[i], ports_[i], true);
        FE_CHECK(compute_data_type == FE_DATA_NOT_SET || compute_data_type == FE_DATA_FLOAT,
                 FE_STATUS_INVALID_ARGUMENT, "compute_data_type is %s; dbn_weight computes in float",
                 data_type_name(compute_data_type));
        for (fe_tensor *out : outputs) assign_inferred_shape(out, channels, x->strides);
    }

    // cuDNN matches the operation only at the end of its fused backward pattern.
    std::string unsupported_hint() const override {
        if (inputs[0]->is_virtual()) return "";
        return explanation(Feature::standalone_dbn_weight, cudnn().cudnnGetVersion());
    }

    void write_attributes(AttributeWriter &out) const override {
        fe_dbn_weight_options o = FE_DBN_WEIGHT_OPTIONS_INIT;
        write_option_attributes(out, op_schema(kind()), &o, 0);
    }

    void lower(Lowering &lowering) const override {
        lowering.require(family_.needs);
        Descriptor op(CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR);
        op.set_data_type(CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_MATH_PREC, lowering.compute_type(*this),
                         "CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_MATH_PREC");
        static const cudnnBackendAttributeName_t kInputs[] = {
            CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DY_DESC, CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_X_DESC,
            CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_MEAN_DESC, CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_INVSTD_DESC,
            CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_BN_SCALE_DESC};
        for (size_t i = 0; i < 5; ++i) op.set_desc(kInputs[i], lowering.tensor(inputs[i]), ports_[i]);
        static const cudnnBackendAttributeName_t kOutputs[] = {
            CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DBN_SCALE_DESC, CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_DBN_BIAS_DESC,
            CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_DY_SCALE_DESC, CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_X_SCALE_DESC,
            CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_BIAS};
        for (size_t i = 0; i < 5; ++i) op.set_desc(kOutputs[i], lowering.tensor(outputs[i]), "dbn_weight output");
        lowering.finalize_and_add(std::move(op), "finalizing dbn_weight '" + name + "'");
    }
};

const schema::Struct kOptions = FE_SCHEMA_OPTIONS(fe_dbn_weight_options, FE_DBN_WEIGHT_OPTIONS_INIT,
    "dbn_weight's name and math type.",
    FE_SCHEMA_NAME_FIELD(fe_dbn_weight_options),
    FE_SCHEMA_FIELD(fe_dbn_weight_options, compute_data_type, data_type,
        "Math type: float (not_set: the graph's)."));

// 8 channels of a 2 x 4 x 4 batch.
const std::vector<int64_t> kImage = {2, 8, 4, 4}, kStats = {1, 8, 1, 1};

const schema::Op kDbnWeightOp{
    "dbn_weight",
    "fe_graph_dbn_weight",
    "Normalizations",
    {{"DY", nullptr, "[N, C, spatial...]: the gradient at the batchnorm's output", kImage},
     {"X", nullptr, "like dy: the batchnorm's input", kImage},
     {"mean", nullptr, "float [1, C, 1, ...]: the batch mean", kStats},
     {"inv_variance", nullptr, "float, like mean: 1 / sqrt(var + epsilon)", kStats},
     {"scale", nullptr, "float, like mean", kStats}},
    {{"DScale", nullptr, "sum(dy * (x - mean) * inv_variance)", {}, FE_DATA_FLOAT},
     {"DBias", nullptr, "sum(dy)", {}, FE_DATA_FLOAT},
     {"EqScaleDY", nullptr, "scale * inv_variance: dy's factor in dx", {}, FE_DATA_FLOAT},
     {"EqScaleX", nullptr, "-scale * inv_variance^2 * dscale / M: x's factor in dx", {}, FE_DATA_FLOAT},
     {"EqBias", nullptr, "the constant term of dx", {}, FE_DATA_FLOAT}},
    {},
    &kOptions,
    {},
    true,
    "Batch normalization's backward weight gradients and dx as per-channel factors of dy and x."};

const std::vector<fe_tensor *> &add_dbn_weight(fe_graph &g, const schema::Call &call) {
    const auto &o = call.options_as<fe_dbn_weight_options>();
    return add_call(g, std::make_unique<DbnWeight>(call.inputs, o), call, o.name);
}

const schema::Registration kRegistered(kDbnWeightOp, add_dbn_weight);

}  // namespace

}  // namespace fe
