#include "store/plan_attributes.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "schema/schema.hpp"

namespace fe {

namespace {

[[noreturn]] void mismatch(const std::string &what) {
    FE_FAIL(FE_STATUS_INVALID_ARGUMENT, "the plan does not match its graph: %s", what.c_str());
}

// An enum's names as cuDNN writes them, by value (aliases share a value).
struct EnumName {
    int value;
    const char *name;
};
using Names = std::vector<EnumName>;

const Names kConvolutionModes = {{CUDNN_CONVOLUTION, "CUDNN_CONVOLUTION"},
                                 {CUDNN_CROSS_CORRELATION, "CUDNN_CROSS_CORRELATION"}};
const Names kNormModes = {{CUDNN_LAYER_NORM, "CUDNN_LAYER_NORM"},       {CUDNN_INSTANCE_NORM, "CUDNN_INSTANCE_NORM"},
                          {CUDNN_BATCH_NORM, "CUDNN_BATCH_NORM"},       {CUDNN_GROUP_NORM, "CUDNN_GROUP_NORM"},
                          {CUDNN_RMS_NORM, "CUDNN_RMS_NORM"},           {CUDNN_ADA_LAYER_NORM, "CUDNN_ADA_LAYER_NORM"}};
const Names kNormPhases = {{CUDNN_NORM_FWD_INFERENCE, "CUDNN_NORM_FWD_INFERENCE"},
                           {CUDNN_NORM_FWD_TRAINING, "CUDNN_NORM_FWD_TRAINING"}};
const Names kReductions = {{CUDNN_REDUCE_TENSOR_ADD, "CUDNN_REDUCE_TENSOR_ADD"},
                           {CUDNN_REDUCE_TENSOR_MUL, "CUDNN_REDUCE_TENSOR_MUL"},
                           {CUDNN_REDUCE_TENSOR_MIN, "CUDNN_REDUCE_TENSOR_MIN"},
                           {CUDNN_REDUCE_TENSOR_MAX, "CUDNN_REDUCE_TENSOR_MAX"},
                           {CUDNN_REDUCE_TENSOR_AMAX, "CUDNN_REDUCE_TENSOR_AMAX"},
                           {CUDNN_REDUCE_TENSOR_AVG, "CUDNN_REDUCE_TENSOR_AVG"},
                           {CUDNN_REDUCE_TENSOR_NORM1, "CUDNN_REDUCE_TENSOR_NORM1"},
                           {CUDNN_REDUCE_TENSOR_NORM2, "CUDNN_REDUCE_TENSOR_NORM2"},
                           {CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS, "CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS"}};
const Names kResampleModes = {{CUDNN_RESAMPLE_NEAREST, "CUDNN_RESAMPLE_NEAREST"},
                              {CUDNN_RESAMPLE_BILINEAR, "CUDNN_RESAMPLE_BILINEAR"},
                              {CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING, "CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING"},
                              {CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING, "CUDNN_RESAMPLE_AVGPOOL"},
                              {CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING, "CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING"},
                              {CUDNN_RESAMPLE_MAXPOOL, "CUDNN_RESAMPLE_MAXPOOL"}};
const Names kPaddingModes = {{CUDNN_ZERO_PAD, "CUDNN_ZERO_PAD"},
                             {CUDNN_NEG_INF_PAD, "CUDNN_NEG_INF_PAD"},
                             {CUDNN_EDGE_VAL_PAD, "CUDNN_EDGE_VAL_PAD"}};
const Names kNanPropagation = {{0, "CUDNN_NOT_PROPAGATE_NAN"}, {1, "CUDNN_PROPAGATE_NAN"}};
const Names kRngDistributions = {{CUDNN_RNG_DISTRIBUTION_BERNOULLI, "CUDNN_RNG_DISTRIBUTION_BERNOULLI"},
                                 {CUDNN_RNG_DISTRIBUTION_UNIFORM, "CUDNN_RNG_DISTRIBUTION_UNIFORM"},
                                 {CUDNN_RNG_DISTRIBUTION_NORMAL, "CUDNN_RNG_DISTRIBUTION_NORMAL"}};
const Names kBnFinalizeModes = {{CUDNN_BN_FINALIZE_STATISTICS_TRAINING, "CUDNN_BN_FINALIZE_STATISTICS_TRAINING"},
                                {CUDNN_BN_FINALIZE_STATISTICS_INFERENCE, "CUDNN_BN_FINALIZE_STATISTICS_INFERENCE"}};

// How a value is written: numbers (nested arrays flattened; a fraction as numerator, denominator),
// or a name: a data type, a pointwise mode, or one of the tables above.
enum class Written { Numbers, DataType, PointwiseMode, Name };

struct NodeAttribute {
    const char *operation;  // cuDNN's operation name, without CUDNN_BACKEND_OPERATION_ and _DESCRIPTOR
    const char *key;
    Written written;
    cudnnBackendAttributeName_t name;
    int alternative = kNone;        // an attribute that may be written under the same key instead
    const Names *names = nullptr;   // Written::Name
    bool unset_is_zero = false;     // cuDNN writes 0 for it when lowering left it unset
    static constexpr int kNone = -1;
};

NodeAttribute numbers(const char *op, const char *key, cudnnBackendAttributeName_t name,
                      int alternative = NodeAttribute::kNone) {
    return {op, key, Written::Numbers, name, alternative};
}
NodeAttribute data_type(const char *op, const char *key, cudnnBackendAttributeName_t name) {
    return {op, key, Written::DataType, name};
}
NodeAttribute named(const char *op, const char *key, cudnnBackendAttributeName_t name, const Names &names) {
    NodeAttribute a{op, key, Written::Name, name};
    a.names = &names;
    return a;
}

std::vector<NodeAttribute> convolution_attributes(const char *op) {
    return {named(op, "mode", CUDNN_ATTR_CONVOLUTION_CONV_MODE, kConvolutionModes),
            data_type(op, "mathPrec", CUDNN_ATTR_CONVOLUTION_COMP_TYPE),
            numbers(op, "pad", CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS),
            numbers(op, "prePad", CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS),
            numbers(op, "postPad", CUDNN_ATTR_CONVOLUTION_POST_PADDINGS),
            numbers(op, "stride", CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES),
            numbers(op, "dilation", CUDNN_ATTR_CONVOLUTION_DILATIONS)};
}

std::vector<NodeAttribute> resample_attributes(const char *op) {
    return {named(op, "mode", CUDNN_ATTR_RESAMPLE_MODE, kResampleModes),
            data_type(op, "compType", CUDNN_ATTR_RESAMPLE_COMP_TYPE),
            named(op, "nanOpt", CUDNN_ATTR_RESAMPLE_NAN_PROPAGATION, kNanPropagation),
            named(op, "paddingMode", CUDNN_ATTR_RESAMPLE_PADDING_MODE, kPaddingModes),
            numbers(op, "nbSpatialDims", CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS),
            numbers(op, "windowDim", CUDNN_ATTR_RESAMPLE_WINDOW_DIMS),
            numbers(op, "prePad", CUDNN_ATTR_RESAMPLE_PRE_PADDINGS),
            numbers(op, "postPad", CUDNN_ATTR_RESAMPLE_POST_PADDINGS),
            numbers(op, "stride", CUDNN_ATTR_RESAMPLE_STRIDES)};
}

// The table: every key a plan on the H100 (cuDNN 9.19) was seen to carry, but the ones that
// restate the tensors (groupCount) or what is compared elsewhere (alpha and beta scaling).
const std::vector<NodeAttribute> &node_attributes() {
    static const std::vector<NodeAttribute> table = [] {
        std::vector<NodeAttribute> t;
        for (const char *op : {"CONVOLUTION_FORWARD", "CONVOLUTION_BACKWARD_DATA", "CONVOLUTION_BACKWARD_FILTER"})
            for (NodeAttribute &a : convolution_attributes(op)) t.push_back(a);
        for (const char *op : {"RESAMPLE_FWD", "RESAMPLE_BWD"})
            for (NodeAttribute &a : resample_attributes(op)) t.push_back(a);
        NodeAttribute pointwise_mode{"POINTWISE", "pointwiseMode", Written::PointwiseMode, CUDNN_ATTR_POINTWISE_MODE};
        t.push_back(pointwise_mode);
        t.push_back(data_type("POINTWISE", "mathPrec", CUDNN_ATTR_POINTWISE_MATH_PREC));
        t.push_back(numbers("POINTWISE", "upperClip", CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP));
        t.push_back(numbers("POINTWISE", "lowerClip", CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP));
        t.push_back(numbers("POINTWISE", "lowerClipSlope", CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE));
        // A pointwise node's alpha is ELU's; its beta softplus's or swish's.
        t.push_back(numbers("POINTWISE", "alpha", CUDNN_ATTR_POINTWISE_ELU_ALPHA));
        t.push_back(numbers("POINTWISE", "beta", CUDNN_ATTR_POINTWISE_SWISH_BETA, CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA));
        t.push_back(numbers("POINTWISE", "axis", CUDNN_ATTR_POINTWISE_AXIS));
        t.push_back(data_type("MATMUL", "mathPrec", CUDNN_ATTR_MATMUL_COMP_TYPE));
        NodeAttribute padding = numbers("MATMUL", "paddingValue", CUDNN_ATTR_MATMUL_PADDING_VALUE);
        padding.unset_is_zero = true;
        t.push_back(padding);
        t.push_back(named("NORM_FORWARD", "mode", CUDNN_ATTR_OPERATION_NORM_FWD_MODE, kNormModes));
        t.push_back(named("NORM_FORWARD", "fmode", CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, kNormPhases));
        t.push_back(named("NORM_BACKWARD", "mode", CUDNN_ATTR_OPERATION_NORM_BWD_MODE, kNormModes));
        t.push_back(named("REDUCTION", "reductionOp", CUDNN_ATTR_REDUCTION_OPERATOR, kReductions));
        t.push_back(data_type("REDUCTION", "mathPrec", CUDNN_ATTR_REDUCTION_COMP_TYPE));
        t.push_back(data_type("GEN_STATS", "mathPrec", CUDNN_ATTR_OPERATION_GENSTATS_MATH_PREC));
        t.push_back(named("BN_FINALIZE_STATISTICS", "mode", CUDNN_ATTR_OPERATION_BN_FINALIZE_STATS_MODE,
                          kBnFinalizeModes));
        t.push_back(data_type("BN_FINALIZE_STATISTICS", "mathPrec", CUDNN_ATTR_OPERATION_BN_FINALIZE_MATH_PREC));
        t.push_back(named("RNG", "distribution", CUDNN_ATTR_RNG_DISTRIBUTION, kRngDistributions));
        t.push_back(numbers("RNG", "bernoulli_dist_probability", CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY));
        return t;
    }();
    return table;
}

const NodeAttribute *node_attribute(const std::string &operation, const std::string &key) {
    const char *prefix = "CUDNN_BACKEND_OPERATION_";
    if (operation.rfind(prefix, 0) != 0) return nullptr;
    std::string short_name = operation.substr(std::strlen(prefix));
    const std::string suffix = "_DESCRIPTOR";
    if (short_name.size() > suffix.size()) short_name.resize(short_name.size() - suffix.size());
    for (const NodeAttribute &a : node_attributes())
        if (short_name == a.operation && key == a.key) return &a;
    return nullptr;
}

bool same_number(double a, double b) {
    return a == b || std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b));
}

}  // namespace

std::string cudnn_data_type_name(int64_t value) {
    // FP8 fast accumulation's compute type is cuDNN's alone (fe_matmul_options.fast_accumulate).
    if (value == CUDNN_DATA_FAST_FLOAT_FOR_FP8) return "CUDNN_DATA_FAST_FLOAT_FOR_FP8";
    // fe_data_type's values are cuDNN's, and so are its names after the prefix.
    for (const schema::EnumValue &v : schema::data_types().values)
        if (v.value == value && v.value >= 0) return std::string("CUDNN_") + (v.c_name + std::strlen("FE_"));
    return "?";
}

namespace {

// Whether cuDNN's `written` name is one of the names of the recorded `value`.
bool name_matches(const NodeAttribute &a, const std::string &written, double value) {
    switch (a.written) {
        case Written::DataType: return written == cudnn_data_type_name(static_cast<int64_t>(value));
        case Written::PointwiseMode: {
            static const schema::Enum *modes = schema::find_enum("fe_pointwise_mode");
            for (const schema::EnumValue &v : modes ? modes->values : std::vector<schema::EnumValue>{})
                if (v.value == value) return written == std::string("CUDNN_") + (v.c_name + std::strlen("FE_"));
            return false;
        }
        case Written::Name:
            for (const EnumName &n : *a.names)
                if (n.value == value && written == n.name) return true;
            return false;
        case Written::Numbers: return false;
    }
    return false;
}

void flatten(const json::Value &v, std::vector<double> *out, bool *numeric) {
    if (v.type() == json::Type::Number) {
        out->push_back(v.number());
    } else if (v.type() == json::Type::Array) {
        for (const json::Value &e : v.array()) flatten(e, out, numeric);
    } else {
        *numeric = false;
    }
}

bool value_matches(const NodeAttribute &a, const json::Value &written, const std::vector<double> &set) {
    if (a.written != Written::Numbers)
        return written.type() == json::Type::String && set.size() == 1 && name_matches(a, std::string(written.string()), set[0]);
    std::vector<double> numbers;
    bool numeric = true;
    flatten(written, &numbers, &numeric);
    if (!numeric || numbers.size() != set.size()) return false;
    for (size_t i = 0; i < set.size(); ++i)
        if (!same_number(numbers[i], set[i])) return false;
    return true;
}

}  // namespace

void check_node_attributes(const json::Value &node, const Descriptor &op,
                           const std::unordered_map<cudnnBackendDescriptor_t, const Descriptor *> &attributes) {
    const json::Value *operation_value = node.find("operation");
    if (!operation_value || operation_value->type() != json::Type::String) return;  // checked by the caller
    const std::string operation(operation_value->string());
    auto set_value = [&](int attribute) -> const Descriptor::Value * {
        if (attribute == NodeAttribute::kNone) return nullptr;
        auto name = static_cast<cudnnBackendAttributeName_t>(attribute);
        if (const Descriptor::Value *v = op.value(name)) return v;
        for (const Descriptor::Reference &reference : op.references()) {
            auto it = attributes.find(reference.raw);
            if (it == attributes.end()) continue;
            if (const Descriptor::Value *v = it->second->value(name)) return v;
        }
        return nullptr;
    };
    for (const auto &m : node.object()) {
        const NodeAttribute *a = node_attribute(operation, std::string(m.first));
        if (!a) continue;
        const Descriptor::Value *first = set_value(a->name), *second = set_value(a->alternative);
        if (!first && !second) {
            if (a->unset_is_zero && value_matches(*a, m.second, {0.0})) continue;
            mismatch(format("%s sets %s, which the graph's lowering leaves unset", operation.c_str(), std::string(m.first).c_str()));
        }
        if ((first && value_matches(*a, m.second, first->numbers)) ||
            (second && value_matches(*a, m.second, second->numbers)))
            continue;
        std::string written = m.second.type() == json::Type::String ? std::string(m.second.string())
                              : m.second.type() == json::Type::Number ? format("%g", m.second.number())
                                                                     : std::string("another value");
        mismatch(format("%s has %s %s where the graph's lowering has another", operation.c_str(), std::string(m.first).c_str(),
                        written.c_str()));
    }
}

}  // namespace fe
