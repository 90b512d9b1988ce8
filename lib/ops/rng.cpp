// Random numbers drawn by cuDNN (Philox, seeded per call by seed and offset tensors): the
// graph-level draw (Bernoulli, uniform, normal), and the Bernoulli draw attention's dropout uses.

// include/cudnnfe.h, section "Random numbers and block scaling" (copied there by scripts/schema/generate_header.py):
// /* Random numbers drawn by cuDNN (Philox), one value per element of the result. */
// typedef enum fe_rng_distribution FE_ENUM_BASE {
//     FE_RNG_BERNOULLI = 0, /* 1 with probability `probability`, else 0 */
//     FE_RNG_UNIFORM = 1,   /* uniform in [min, max) */
//     FE_RNG_NORMAL = 2     /* normal with mean `mean` and standard deviation `std` */
// } fe_rng_distribution;
//
// typedef struct fe_rng_options {
//     uint32_t struct_size;
//     const char *name;
//     fe_rng_distribution distribution; /* default FE_RNG_BERNOULLI */
//     double probability;               /* BERNOULLI: probability of a 1, in [0, 1]; default 0.5 */
//     double min, max;                  /* UNIFORM: min < max, both finite; default [0, 1) */
//     double mean, std;                 /* NORMAL: std > 0; default 0 and 1 */
//     size_t ndims;                     /* the result's rank, 1 to FE_MAX_DIMS */
//     int64_t dims[FE_MAX_DIMS];        /* the result's dims (positive); packed row-major */
//     fe_data_type data_type;           /* the result's type; NOT_SET: the graph's intermediate type */
// } fe_rng_options;
// #define FE_RNG_OPTIONS_INIT
//     { (uint32_t)sizeof(fe_rng_options), NULL, FE_RNG_BERNOULLI, 0.5, 0.0, 1.0, 0.0, 1.0, 0,
//       { 0, 0, 0, 0, 0, 0, 0, 0 }, FE_DATA_NOT_SET }
//
// /** Draw random numbers. seed and offset are required int64 tensors of one element (device
//  *  tensors of any rank, or fe_graph_scalar values with FE_DATA_INT64); the same seed and offset
//  *  draw the same values (attention's dropout draws the same way). options is required (dims
//  *  and distribution). out_y receives the result "<node>::Y", owned by the graph: options->dims,
//  *  packed, of options->data_type. The operation is lowered for cuDNN versions whose engines
//  *  take it; cuDNN 9.19 had none for a draw outside fused attention (checked for H100: a draw
//  *  alone, x * draw and a matmul times a draw: docs/capabilities.md), so such graphs fail the
//  *  support check with FE_STATUS_NOT_SUPPORTED and a message saying so; attention's dropout
//  *  (fe_sdpa_options.dropout_probability) draws the same way and runs. */
// FE_API fe_status fe_graph_rng(fe_graph *graph, fe_tensor *seed, fe_tensor *offset,
//                               const fe_rng_options *options, fe_tensor **out_y);

#include <cudnn_graph.h>

#include "backend/capabilities.hpp"
#include "backend/loader.hpp"
#include "common/error.hpp"
#include "common/values.hpp"
#include "graph/attribute_writer.hpp"
#include "ops/graph_ops.hpp"
#include "ops/ops.hpp"
#include "plan/lowering.hpp"
#include "schema/schema.hpp"
#include "schema/option_fields.hpp"

namespace fe {

namespace {

const char *distribution_name(fe_rng_distribution d) { return schema::enum_name("fe_rng_distribution", d); }

void emit_rng(Lowering &lowering, const fe_rng_options &o, const Descriptor &seed, const Descriptor &offset,
              const Descriptor &y, const std::string &label) {
    Descriptor rng(CUDNN_BACKEND_RNG_DESCRIPTOR);
    cudnnRngDistribution_t distribution = static_cast<cudnnRngDistribution_t>(o.distribution);
    rng.set(CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, 1, &distribution, "CUDNN_ATTR_RNG_DISTRIBUTION");
    switch (o.distribution) {
        case FE_RNG_BERNOULLI:
            rng.set(CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 1, &o.probability,
                    "CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY");
            break;
        case FE_RNG_UNIFORM:
            rng.set(CUDNN_ATTR_RNG_UNIFORM_DIST_MINIMUM, CUDNN_TYPE_DOUBLE, 1, &o.min, "CUDNN_ATTR_RNG_UNIFORM_DIST_MINIMUM");
            rng.set(CUDNN_ATTR_RNG_UNIFORM_DIST_MAXIMUM, CUDNN_TYPE_DOUBLE, 1, &o.max, "CUDNN_ATTR_RNG_UNIFORM_DIST_MAXIMUM");
            break;
        case FE_RNG_NORMAL:
            rng.set(CUDNN_ATTR_RNG_NORMAL_DIST_MEAN, CUDNN_TYPE_DOUBLE, 1, &o.mean, "CUDNN_ATTR_RNG_NORMAL_DIST_MEAN");
            rng.set(CUDNN_ATTR_RNG_NORMAL_DIST_STANDARD_DEVIATION, CUDNN_TYPE_DOUBLE, 1, &o.std,
                    "CUDNN_ATTR_RNG_NORMAL_DIST_STANDARD_DEVIATION");
            break;
    }
    const Descriptor &kept = lowering.finalize_and_keep(std::move(rng), "finalizing the RNG descriptor");
    lowering.add_operation(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR,
                           {{CUDNN_ATTR_OPERATION_RNG_YDESC, y, "RNG Y"},
                            {CUDNN_ATTR_OPERATION_RNG_DESC, kept, "RNG descriptor"},
                            {CUDNN_ATTR_OPERATION_RNG_SEED, seed, "RNG seed"},
                            {CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, offset, "RNG offset"}},
                           "finalizing " + label);
}

class Rng : public Node {
  public:
    Rng(fe_tensor *seed, fe_tensor *offset, const fe_rng_options &o) : options_(o) {
        inputs = {seed, offset};
        options_.name = nullptr;
    }
    const char *kind() const override { return "rng"; }

    // The distribution's parameters, finite (a NaN or an infinity reaches no kernel).
    void require_finite_parameters() const {
        const fe_rng_options &o = options_;
        require_finite(o.probability, "options.probability");
        require_finite(o.min, "options.min");
        require_finite(o.max, "options.max");
        require_finite(o.mean, "options.mean");
        require_finite(o.std, "options.std");
    }
    const char *input_port(size_t i) const override { return i == 0 ? "Seed" : "Offset"; }

    void infer() override {
        const fe_rng_options &o = options_;
        require_finite_parameters();
        switch (o.distribution) {
            case FE_RNG_BERNOULLI:
                FE_CHECK(o.probability >= 0.0 && o.probability <= 1.0, FE_STATUS_INVALID_ARGUMENT,
                         "bernoulli probability is %g; it must be in [0, 1]", o.probability);
                break;
            case FE_RNG_UNIFORM:
                FE_CHECK(o.min < o.max, FE_STATUS_INVALID_ARGUMENT, "uniform min %g is not below max %g", o.min, o.max);
                break;
            case FE_RNG_NORMAL:
                FE_CHECK(o.std > 0.0, FE_STATUS_INVALID_ARGUMENT,
                         "normal std is %g; the standard deviation must be positive", o.std);
                break;
            default:
                FE_CHECK(false, FE_STATUS_INVALID_ARGUMENT, "distribution %d is not bernoulli (0), uniform (1) or normal (2)",
                         static_cast<int>(o.distribution));
        }
        FE_CHECK(o.ndims >= 1 && o.ndims <= 8, FE_STATUS_INVALID_ARGUMENT, "ndims is %zu; the result has 1 to 8 dims",
                 o.ndims);
        std::vector<int64_t> dims(o.dims, o.dims + o.ndims);
        for (size_t i = 0; i < dims.size(); ++i)
            FE_CHECK(dims[i] > 0, FE_STATUS_INVALID_ARGUMENT, "dims[%zu] is %lld; dims must be positive", i,
                     static_cast<long long>(dims[i]));
        const char *ports[] = {"seed", "offset"};
        for (size_t i = 0; i < 2; ++i) {
            fe_tensor *t = inputs[i];
            int64_t n = element_count(t->dims);
            FE_CHECK(n == 1 && (t->data_type == FE_DATA_INT64 || t->data_type == FE_DATA_NOT_SET),
                     FE_STATUS_INVALID_ARGUMENT, "%s '%s' must be one int64 element (it is %s %s)", ports[i],
                     t->name.c_str(), data_type_name(t->data_type), dims_string(t->dims).c_str());
            if (t->dims.size() != dims.size()) {  // cuDNN wants the result's rank
                t->dims.assign(dims.size(), 1);
                t->strides.assign(dims.size(), 1);
            }
        }
        assign_inferred_shape(outputs[0], dims, packed_strides(dims));
    }

    void write_attributes(AttributeWriter &out) const override {
        write_option_attributes(out, op_schema(kind()), &options_, 0);
    }

    std::string attributes() const override {
        const fe_rng_options &o = options_;
        require_finite_parameters();
        switch (o.distribution) {
            case FE_RNG_BERNOULLI: return format("bernoulli(p=%g)", o.probability);
            case FE_RNG_UNIFORM: return format("uniform(min=%g max=%g)", o.min, o.max);
            case FE_RNG_NORMAL: return format("normal(mean=%g std=%g)", o.mean, o.std);
        }
        return distribution_name(o.distribution);
    }

    std::string unsupported_hint() const override {
        return explanation(Feature::graph_level_rng, cudnn().cudnnGetVersion()) +
               ": use fe_sdpa_options.dropout_probability";
    }

    void lower(Lowering &lowering) const override {
        emit_rng(lowering, options_, lowering.tensor(inputs[0]), lowering.tensor(inputs[1]),
                 lowering.tensor(outputs[0]), "rng '" + name + "' (" + distribution_name(options_.distribution) + ")");
    }

  private:
    fe_rng_options options_;
};

const schema::Enum kDistribution{"fe_rng_distribution",
                         {{"FE_RNG_BERNOULLI", "bernoulli", FE_RNG_BERNOULLI,
                           "1 with probability `probability`, else 0."},
                          {"FE_RNG_UNIFORM", "uniform", FE_RNG_UNIFORM, "Uniform in [min, max)."},
                          {"FE_RNG_NORMAL", "normal", FE_RNG_NORMAL,
                           "Normal with mean `mean` and standard deviation `std`."}},
                         "The distribution of a random draw."};

const schema::Struct kRngOptions = FE_SCHEMA_OPTIONS(fe_rng_options, FE_RNG_OPTIONS_INIT,
    "A random draw's distribution and result.",
    FE_SCHEMA_NAME_FIELD(fe_rng_options),
    FE_SCHEMA_ENUM(fe_rng_options, distribution, kDistribution, "The distribution."),
    FE_SCHEMA_RANGE(fe_rng_options, probability, number, 0, 1, "bernoulli: the probability of a 1."),
    FE_SCHEMA_FIELD(fe_rng_options, min, number, "uniform: the lower bound (included)."),
    FE_SCHEMA_FIELD(fe_rng_options, max, number, "uniform: the upper bound (excluded)."),
    FE_SCHEMA_FIELD(fe_rng_options, mean, number, "normal: the mean."),
    FE_SCHEMA_FIELD(fe_rng_options, std, number, "normal: the standard deviation (> 0)."),
    FE_SCHEMA_RANGE(fe_rng_options, ndims, dims_count, 1, FE_MAX_DIMS, "The result's rank."),
    FE_SCHEMA_RANGE(fe_rng_options, dims, dims_array, 1, ::fe::schema::kNoMaximum, "The result's dims (packed row-major)."),
    FE_SCHEMA_FIELD(fe_rng_options, data_type, data_type, "The result's type; not_set: the graph's intermediate type."));

const schema::Op kRng{"rng",
              "fe_graph_rng",
              "Random numbers and block scaling",
              {{"Seed", nullptr, "int64, one element"}, {"Offset", nullptr, "int64, one element"}},
              {{"Y", nullptr, "options.dims, packed"}},
              {},
              &kRngOptions,
              {},
              false,
              "Random numbers drawn by cuDNN (Philox).",
              nullptr,
              nullptr,
              {},
              {},
              nullptr,
              "a draw needs its distribution and dims (FE_RNG_OPTIONS_INIT)"};

const std::vector<fe_tensor *> &add_rng_call(fe_graph &g, const schema::Call &c) {
    return add_rng(g, c.inputs[0], c.inputs[1], c.options_as<fe_rng_options>());
}

const schema::Registration kRegistered(kRng, add_rng_call);

}  // namespace

Results add_rng(fe_graph &g, fe_tensor *seed, fe_tensor *offset, const fe_rng_options &o) {
    Results outputs = g.add_op(std::make_unique<Rng>(seed, offset, o), o.name, "rng", {"Y"});
    if (o.data_type != FE_DATA_NOT_SET) {
        outputs[0]->data_type = o.data_type;
        outputs[0]->user_data_type = true;
    }
    return outputs;
}

void emit_rng_bernoulli(Lowering &lowering, double keep_probability, const Descriptor &seed, const Descriptor &offset,
                        const Descriptor &y, const std::string &label) {
    fe_rng_options o = FE_RNG_OPTIONS_INIT;
    o.distribution = FE_RNG_BERNOULLI;
    o.probability = keep_probability;
    emit_rng(lowering, o, seed, offset, y, label);
}

}  // namespace fe
