// bn_finalize: batch normalization's statistics finalized from genstats' per-channel sums (mean,
// inverse standard deviation, running statistics) and folded into the scale and bias that the
// next convolution applies (y = x * eq_scale + eq_bias). The whole op in one file: its node, its
// description and its entry point; the graph JSON reader, the docs and the bindings' layers
// come from the description.

// include/cudnnfe.h, section "Normalizations" (copied there by scripts/schema/generate_header.py):
// typedef struct fe_bn_finalize_options {
//     uint32_t struct_size;
//     const char *name;            /* nullable: "bn_finalize_<n>" */
//     int64_t accum_count;         /* required: how many values each sum adds up (N x spatial) */
//     double epsilon;              /* added to the variance; default 1e-5 */
//     fe_tensor *epsilon_tensor;   /* nullable: epsilon as a float scalar (fe_graph_scalar) */
//     double momentum;             /* of the running statistics, in [0, 1]; default 0.1 */
//     fe_tensor *momentum_tensor;  /* nullable: momentum as a float scalar (fe_graph_scalar) */
// } fe_bn_finalize_options;
// #define FE_BN_FINALIZE_OPTIONS_INIT
//     { (uint32_t)sizeof(fe_bn_finalize_options), NULL, 0, 1e-5, NULL, 0.1, NULL }
//
// /** Batch normalization's statistics finalized from genstats' sums, for the convolution that
//  *  applies them next: from sum and sq_sum (float [1, C, 1, ...], fe_graph_genstats) over
//  *  options->accum_count values per channel, with mean = sum / count and
//  *  var = sq_sum / count - mean^2 (biased):
//  *    out_eq_scale = scale / sqrt(var + epsilon), out_eq_bias = bias - mean * out_eq_scale
//  *  (y = x * eq_scale + eq_bias is the batch normalization of x), out_mean, out_inv_variance =
//  *  1 / sqrt(var + epsilon), and the running statistics updated as fe_graph_batchnorm does
//  *  (next = (1 - momentum) * running + momentum * statistic, the variance unbiased). scale, bias,
//  *  running_mean and running_var are [1, C, 1, ...] like sum; every output is float
//  *  [1, C, 1, ...] and required. options->accum_count must be given (NULL options are refused
//  *  for want of it). As with fe_graph_batchnorm, bind the same memory to a running input and its
//  *  next output to update it in place. */
// FE_API fe_status fe_graph_bn_finalize(fe_graph *graph, fe_tensor *sum, fe_tensor *sq_sum, fe_tensor *scale,
//                                       fe_tensor *bias, fe_tensor *running_mean, fe_tensor *running_var,
//                                       const fe_bn_finalize_options *options, fe_tensor **out_eq_scale,
//                                       fe_tensor **out_eq_bias, fe_tensor **out_mean,
//                                       fe_tensor **out_inv_variance, fe_tensor **out_next_running_mean,
//                                       fe_tensor **out_next_running_var);

#include <cudnn_graph.h>

#include <cmath>

#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "ops/graph_ops.hpp"
#include "ops/norm.hpp"
#include "schema/schema.hpp"
#include "schema/option_fields.hpp"

namespace fe {

namespace {

std::vector<int64_t> no_stats_dims(const fe_tensor *, const fe_tensor *) { return {}; }

const NormFamily kFinalize = {"bn_finalize", CUDNN_BATCH_NORM, true, false, false, Feature::cudnn_9, no_stats_dims};

class BnFinalize : public NormNode {
  public:
    BnFinalize(const std::vector<fe_tensor *> &tensors, const fe_bn_finalize_options &o)
        : NormNode(kFinalize), options_(o) {
        static const char *const ports[] = {"SUM", "SQ_SUM", "scale", "bias", "running_mean", "running_var"};
        for (size_t i = 0; i < 6; ++i) add_input(tensors[i], ports[i]);
        epsilon_ = add_input(o.epsilon_tensor, "epsilon");
        momentum_ = add_input(o.momentum_tensor, "momentum");
    }
    const char *kind() const override { return "bn_finalize"; }

    // As batchnorm's: a running statistic and its next value may share memory.
    std::vector<std::pair<size_t, size_t>> in_place_ports() const override { return {{4, 4}, {5, 5}}; }

    void infer() override {
        const fe_tensor *sum = inputs[0];
        const std::vector<int64_t> &dims = sum->dims;
        bool per_channel = dims.size() >= 3 && dims.size() <= 5 && dims[0] == 1;
        for (size_t i = 2; i < dims.size(); ++i) per_channel = per_channel && dims[i] == 1;
        FE_CHECK(per_channel, FE_STATUS_INVALID_ARGUMENT,
                 "sum '%s' is %s; the statistics are per channel, [1, C, 1, ...] (rank 3 to 5)", sum->name.c_str(),
                 dims_string(dims).c_str());
        for (size_t i = 1; i < 6; ++i) check_same_dims(inputs[i], dims, ports_[i]);
        for (size_t i : {0, 1, 4, 5}) check_data_type(inputs[i], ports_[i], true);
        for (size_t i : {2, 3}) check_data_type(inputs[i], ports_[i], false);
        // accum_count (at least 2: the running variance is unbiased, count / (count - 1)), epsilon
        // and momentum are in the schema's ranges (schema::check_ranges); their tensors are checked here.
        if (epsilon_ >= 0) check_scalar_tensor(input(epsilon_), "epsilon_tensor", dims.size());
        if (momentum_ >= 0) check_scalar_tensor(input(momentum_), "momentum_tensor", dims.size());
        for (fe_tensor *out : outputs) assign_inferred_shape(out, dims, sum->strides);
    }

    void write_attributes(AttributeWriter &out) const override {
        write_option_attributes(out, op_schema(kind()), &options_, 0);
    }

    std::string attributes() const override {
        std::string a = format("accum_count=%lld", static_cast<long long>(options_.accum_count));
        a += epsilon_ >= 0 ? " epsilon=<tensor>" : format(" epsilon=%g", options_.epsilon);
        a += momentum_ >= 0 ? " momentum=<tensor>" : format(" momentum=%g", options_.momentum);
        return a;
    }

    void lower(Lowering &lowering) const override {
        const fe_tensor *sum = inputs[0];
        Descriptor op(CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR);
        cudnnBnFinalizeStatsMode_t mode = CUDNN_BN_FINALIZE_STATISTICS_TRAINING;
        op.set(CUDNN_ATTR_OPERATION_BN_FINALIZE_STATS_MODE, CUDNN_TYPE_BN_FINALIZE_STATS_MODE, 1, &mode,
               "CUDNN_ATTR_OPERATION_BN_FINALIZE_STATS_MODE");
        op.set_data_type(CUDNN_ATTR_OPERATION_BN_FINALIZE_MATH_PREC, lowering.compute_type(*this),
                         "CUDNN_ATTR_OPERATION_BN_FINALIZE_MATH_PREC");
        static const cudnnBackendAttributeName_t kInputs[] = {
            CUDNN_ATTR_OPERATION_BN_FINALIZE_Y_SUM_DESC,           CUDNN_ATTR_OPERATION_BN_FINALIZE_Y_SQ_SUM_DESC,
            CUDNN_ATTR_OPERATION_BN_FINALIZE_SCALE_DESC,           CUDNN_ATTR_OPERATION_BN_FINALIZE_BIAS_DESC,
            CUDNN_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_MEAN_DESC, CUDNN_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_VAR_DESC};
        for (size_t i = 0; i < 6; ++i) op.set_desc(kInputs[i], lowering.tensor(inputs[i]), ports_[i]);
        static const cudnnBackendAttributeName_t kOutputs[] = {
            CUDNN_ATTR_OPERATION_BN_FINALIZE_EQ_SCALE_DESC,        CUDNN_ATTR_OPERATION_BN_FINALIZE_EQ_BIAS_DESC,
            CUDNN_ATTR_OPERATION_BN_FINALIZE_SAVED_MEAN_DESC,      CUDNN_ATTR_OPERATION_BN_FINALIZE_SAVED_INV_STD_DESC,
            CUDNN_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_MEAN_DESC,
            CUDNN_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_VAR_DESC};
        for (size_t i = 0; i < 6; ++i) op.set_desc(kOutputs[i], lowering.tensor(outputs[i]), "bn_finalize output");
        op.set_desc(CUDNN_ATTR_OPERATION_BN_FINALIZE_EPSILON_DESC, scalar(lowering, epsilon_, options_.epsilon, sum),
                    "bn_finalize epsilon");
        op.set_desc(CUDNN_ATTR_OPERATION_BN_FINALIZE_EXP_AVERATE_FACTOR_DESC,
                    scalar(lowering, momentum_, options_.momentum, sum), "bn_finalize momentum");
        std::vector<int64_t> dims, strides;
        lowering.lowered_shape(sum, &dims, &strides);
        op.set_desc(CUDNN_ATTR_OPERATION_BN_FINALIZE_ACCUM_COUNT_DESC,
                    lowering.internal_scalar(static_cast<double>(options_.accum_count), FE_DATA_INT64, dims.size()),
                    "bn_finalize accum_count");
        lowering.finalize_and_add(std::move(op), "finalizing bn_finalize '" + name + "'");
    }

  private:
    fe_bn_finalize_options options_;
    int epsilon_ = -1, momentum_ = -1;
};

const schema::Struct kOptions = FE_SCHEMA_OPTIONS(fe_bn_finalize_options, FE_BN_FINALIZE_OPTIONS_INIT,
    "bn_finalize's count of summed values, epsilon and momentum.",
    FE_SCHEMA_NAME_FIELD(fe_bn_finalize_options),
    FE_SCHEMA_RANGE(fe_bn_finalize_options, accum_count, integer, 2, ::fe::schema::kNoMaximum,
        "How many values each sum adds up (N x spatial); required."),
    FE_SCHEMA_RANGE(fe_bn_finalize_options, epsilon, number, 0, 1e308, "Added to the variance."),
    FE_SCHEMA_TENSOR(fe_bn_finalize_options, epsilon_tensor, "epsilon",
        "Epsilon as a float scalar passed by value; it replaces epsilon."),
    FE_SCHEMA_RANGE(fe_bn_finalize_options, momentum, number, 0, 1, "Weight of the batch statistic in the update."),
    FE_SCHEMA_TENSOR(fe_bn_finalize_options, momentum_tensor, "momentum",
        "Momentum as a float scalar passed by value; it replaces momentum."));

// A per-channel statistic of 8 channels.
const std::vector<int64_t> kStats = {1, 8, 1, 1};

const schema::Op kBnFinalize{
    "bn_finalize",
    "fe_graph_bn_finalize",
    "Normalizations",
    {{"SUM", nullptr, "float [1, C, 1, ...]: genstats' sum", kStats},
     {"SQ_SUM", nullptr, "float [1, C, 1, ...]: genstats' sum of squares", kStats},
     {"scale", nullptr, "like sum", kStats},
     {"bias", nullptr, "like sum", kStats},
     {"running_mean", nullptr, "float, like sum", kStats},
     {"running_var", nullptr, "float, like sum", kStats}},
    {{"EQ_SCALE", nullptr, "scale / sqrt(var + epsilon)", {}, FE_DATA_FLOAT},
     {"EQ_BIAS", nullptr, "bias - mean * eq_scale", {}, FE_DATA_FLOAT},
     {"MEAN", nullptr, "sum / accum_count", {}, FE_DATA_FLOAT},
     {"INV_VARIANCE", nullptr, "1 / sqrt(var + epsilon)", {}, FE_DATA_FLOAT},
     {"NEXT_RUNNING_MEAN", nullptr, "the updated running mean", {}, FE_DATA_FLOAT},
     {"NEXT_RUNNING_VAR", nullptr, "the updated running variance (unbiased)", {}, FE_DATA_FLOAT}},
    {},
    &kOptions,
    {},
    false,
    "Batch normalization's statistics from genstats' sums, folded into an equivalent scale and bias."};

const fe_bn_finalize_options kExample = {sizeof(fe_bn_finalize_options), nullptr, 64, 1e-5, nullptr, 0.1, nullptr};

const std::vector<fe_tensor *> &add_bn_finalize(fe_graph &g, const schema::Call &call) {
    const auto &o = call.options_as<fe_bn_finalize_options>();
    return add_call(g, std::make_unique<BnFinalize>(call.inputs, o), call, o.name);
}

const schema::Registration kRegistered(kBnFinalize, add_bn_finalize, &kExample);

}  // namespace

}  // namespace fe
