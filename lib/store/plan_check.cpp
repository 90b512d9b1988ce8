#include "store/plan_check.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "common/log.hpp"
#include "plan/build_state.hpp"
#include "store/plan_attributes.hpp"
#include "runtime/handle.hpp"
#include "plan/engine_knobs.hpp"
#include "store/plan_json.hpp"
#include "store/plan_ports.hpp"
#include "common/json.hpp"

namespace fe {

namespace {

// The operation's name as cuDNN writes it in a plan's JSON: the enumerator's own spelling.
const char *cudnn_operation_name(cudnnBackendDescriptorType_t type) {
#define FE_OPERATION_NAME(op) \
    case op: return #op;
    switch (type) {
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_BLOCK_SCALE_DEQUANTIZE_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_BLOCK_SCALE_QUANTIZE_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_CONTRACT_BAND_MATRIX_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_EXPAND_BAND_MATRIX_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_MOE_GROUPED_MATMUL_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR)
        FE_OPERATION_NAME(CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR)
        default: return "?";
    }
#undef FE_OPERATION_NAME
}

[[noreturn]] void mismatch(const std::string &what) {
    FE_FAIL(FE_STATUS_INVALID_ARGUMENT, "the plan does not match its graph: %s", what.c_str());
}

// Not the JSON cuDNN writes for a plan at all.
[[noreturn]] void corrupt(const std::string &what) {
    FE_FAIL(FE_STATUS_INVALID_ARGUMENT, "the serialized plan is corrupt: %s", what.c_str());
}

const json::Value &member(const json::Value &object, const char *key, json::Type type, const char *where) {
    const json::Value *v = object.type() == json::Type::Object ? object.find(key) : nullptr;
    if (!v || v->type() != type) corrupt(format("%s has no %s of the expected type", where, key));
    return *v;
}

std::vector<int64_t> integers(const json::Value &array, const char *what, const std::string &uid) {
    std::vector<int64_t> out;
    for (const json::Value &v : array.array()) {
        if (!v.is_integer()) corrupt(format("tensor %s's %s holds a non-integer", uid.c_str(), what));
        out.push_back(v.integer());
    }
    return out;
}

// Whether two tensors of the same dims address the same elements: their strides agree on every
// dim of more than one element (a unit dim's stride multiplies only index 0). Plans built before
// this library gave single-pixel convolution tensors channels-last strides on their unit dims
// (Lowering::lowered_shape) keep loading for the graphs they were built for.
bool same_addressing(const std::vector<int64_t> &dims, const std::vector<int64_t> &a, const std::vector<int64_t> &b) {
    if (a.size() != dims.size() || b.size() != dims.size()) return false;
    for (size_t d = 0; d < dims.size(); ++d)
        if (dims[d] != 1 && a[d] != b[d]) return false;
    return true;
}

// cuDNN reads a tensor reference with std::stoll: leading blanks, a sign, leading zeros and
// trailing text are all taken ("+1", "01", "1x" name tensor 1). A reference must be written as
// cuDNN itself writes it, so that what is checked is what cuDNN reads.
bool read_as_number_by_cudnn(const std::string &text) {
    size_t i = 0;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    return i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
}

// Decimal digits without a leading zero, within int64 (user uids reach 19 digits).
bool canonical_uid(const std::string &text, int64_t *uid) {
    if (text.empty() || (text.size() > 1 && text[0] == '0')) return false;
    int64_t value = 0;
    for (char c : text) {
        if (c < '0' || c > '9' || value > (INT64_MAX - (c - '0')) / 10) return false;
        value = value * 10 + (c - '0');
    }
    *uid = value;
    return true;
}

// The uid a tensor reference names, refusing any spelling but cuDNN's own.
int64_t reference_uid(const std::string &text, const char *where, const std::string &key) {
    int64_t uid = 0;
    if (!canonical_uid(text, &uid))
        mismatch(format("%s names tensor \"%s\" under %s, which is not how cuDNN writes a tensor's name", where,
                        text.c_str(), key.c_str()));
    return uid;
}

// The members cuDNN 9.19 writes for a tensor; a plan with another is not one cuDNN wrote.
const char *const kTensorMembers[] = {"name",    "dataType", "dim",          "stride",     "isVirtual", "isByValue",
                                      "vectCount", "vectDim", "ptrAlignment", "reordering", "isRagged"};

const json::Value &tensor_member(const json::Value &t, const char *key, json::Type type, const std::string &uid) {
    const json::Value *v = t.find(key);
    if (!v || v->type() != type) corrupt(format("tensor %s has no %s of the expected type", uid.c_str(), key));
    return *v;
}

int64_t tensor_integer(const json::Value &t, const char *key, const std::string &uid) {
    const json::Value &v = tensor_member(t, key, json::Type::Number, uid);
    if (!v.is_integer()) corrupt(format("tensor %s's %s is not an integer", uid.c_str(), key));
    return v.integer();
}

// What lowering set on a tensor's descriptor, or cuDNN's default.
int64_t set_or(const Descriptor *d, cudnnBackendAttributeName_t name, int64_t otherwise) {
    const Descriptor::Value *v = d ? d->value(name) : nullptr;
    return v && v->numbers.size() == 1 ? static_cast<int64_t>(v->numbers[0]) : otherwise;
}

const char *reordering_name(int64_t mode) {
    switch (mode) {
        case CUDNN_TENSOR_REORDERING_NONE: return "CUDNN_TENSOR_REORDERING_NONE";
        case CUDNN_TENSOR_REORDERING_INT8x32: return "CUDNN_TENSOR_REORDERING_INT8x32";
        case CUDNN_TENSOR_REORDERING_F16x16: return "CUDNN_TENSOR_REORDERING_F16x16";
        case CUDNN_TENSOR_REORDERING_F8_128x4: return "CUDNN_TENSOR_REORDERING_F8_128x4";
        default: return "?";
    }
}

// The lowering's tensors by uid, with their descriptors (for what lowering set beyond the
// table: vectorization, reordering, ragged offsets).
struct ExpectedTensors {
    std::unordered_map<int64_t, const LoweredTensor *> by_uid;
    std::unordered_map<cudnnBackendDescriptor_t, const Descriptor *> descriptor_of;
    std::unordered_map<cudnnBackendDescriptor_t, int64_t> uid_of_raw;
};

void check_tensor(const json::Value &t, const LoweredTensor &want, const std::string &uid, const ExpectedTensors &all);

void check_ragged_offset(const json::Value &t, const LoweredTensor &want, const std::string &uid,
                         const ExpectedTensors &all) {
    int64_t offset_uid = -1;
    auto d = all.descriptor_of.find(want.raw);
    if (d != all.descriptor_of.end())
        for (const Descriptor::Reference &r : d->second->references())
            if (r.name == CUDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC) {
                auto u = all.uid_of_raw.find(r.raw);
                offset_uid = u == all.uid_of_raw.end() ? -2 : u->second;
            }
    const json::Value *ragged = t.find("isRagged");
    if (!ragged) {
        if (offset_uid != -1) mismatch(format("tensor %s has no ragged offset in the plan; the graph gives it one", uid.c_str()));
        return;
    }
    if (ragged->type() != json::Type::Array || ragged->array().size() != 1 || ragged->array().begin().operator*().type() != json::Type::Object)
        corrupt(format("tensor %s's isRagged is not one tensor", uid.c_str()));
    const json::Value &offset = *ragged->array().begin();
    const std::string name(tensor_member(offset, "name", json::Type::String, uid + "'s ragged offset").string());
    int64_t named = reference_uid(name, "a ragged tensor", "isRagged");
    if (named != offset_uid)
        mismatch(format("tensor %s's ragged offset is tensor %s in the plan, %s in the graph", uid.c_str(), name.c_str(),
                        offset_uid < 0 ? "none" : std::to_string(offset_uid).c_str()));
    auto expected = all.by_uid.find(named);
    if (expected == all.by_uid.end()) mismatch(format("the graph has no tensor %s", name.c_str()));
    check_tensor(offset, *expected->second, name, all);
}

void check_tensor(const json::Value &t, const LoweredTensor &want, const std::string &uid, const ExpectedTensors &all) {
    for (const auto &m : t.object()) {
        bool known = false;
        for (const char *k : kTensorMembers) known = known || m.first == k;
        if (!known) mismatch(format("tensor %s has a member \"%s\" cuDNN does not write", uid.c_str(), std::string(m.first).c_str()));
    }
    const std::string type(tensor_member(t, "dataType", json::Type::String, uid).string());
    const std::string want_type = cudnn_data_type_name(want.type);
    if (type != want_type)
        mismatch(format("tensor %s is %s in the plan, %s in the graph", uid.c_str(), type.c_str(), want_type.c_str()));
    std::vector<int64_t> dims = integers(tensor_member(t, "dim", json::Type::Array, uid), "dims", uid);
    std::vector<int64_t> strides = integers(tensor_member(t, "stride", json::Type::Array, uid), "strides", uid);
    if (dims != want.dims || !same_addressing(dims, strides, want.strides))
        mismatch(format("tensor %s is %s strides %s in the plan, %s strides %s in the graph", uid.c_str(),
                        dims_string(dims).c_str(), dims_string(strides).c_str(), dims_string(want.dims).c_str(),
                        dims_string(want.strides).c_str()));
    bool is_virtual = tensor_member(t, "isVirtual", json::Type::Bool, uid).boolean();
    bool by_value = tensor_member(t, "isByValue", json::Type::Bool, uid).boolean();
    if (is_virtual != want.is_virtual || by_value != want.by_value)
        mismatch(format("tensor %s is %s in the plan, %s in the graph", uid.c_str(),
                        is_virtual ? "virtual" : by_value ? "by value" : "in memory",
                        want.is_virtual ? "virtual" : want.by_value ? "by value" : "in memory"));
    int64_t alignment = tensor_integer(t, "ptrAlignment", uid);
    if (alignment != want.alignment)
        mismatch(format("tensor %s is aligned to %lld bytes in the plan, %lld in the graph", uid.c_str(),
                        static_cast<long long>(alignment), static_cast<long long>(want.alignment)));
    auto d = all.descriptor_of.find(want.raw);
    const Descriptor *descriptor = d == all.descriptor_of.end() ? nullptr : d->second;
    int64_t vect_count = tensor_integer(t, "vectCount", uid), vect_dim = tensor_integer(t, "vectDim", uid);
    int64_t want_count = set_or(descriptor, CUDNN_ATTR_TENSOR_VECTOR_COUNT, 1);
    int64_t want_dim = set_or(descriptor, CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION, -1);
    if (vect_count != want_count || vect_dim != want_dim)
        mismatch(format("tensor %s is vectorized %lld along dim %lld in the plan, %lld along %lld in the graph", uid.c_str(),
                        static_cast<long long>(vect_count), static_cast<long long>(vect_dim),
                        static_cast<long long>(want_count), static_cast<long long>(want_dim)));
    const std::string reordering(tensor_member(t, "reordering", json::Type::String, uid).string());
    const char *want_reordering = reordering_name(set_or(descriptor, CUDNN_ATTR_TENSOR_REORDERING_MODE, CUDNN_TENSOR_REORDERING_NONE));
    if (reordering != want_reordering)
        mismatch(format("tensor %s is reordered %s in the plan, %s in the graph", uid.c_str(), reordering.c_str(),
                        want_reordering));
    check_ragged_offset(t, want, uid, all);
}

// A pointwise node's alpha and beta are its ELU, softplus and swish coefficients (checked with
// its attributes); elsewhere they scale the result, which lowering never does.
void check_unscaled(const std::string &operation, const std::string &key, const json::Value &value) {
    bool pointwise = operation == "CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR";
    bool scale = key == "alpha1" || key == "alpha2" || (!pointwise && key == "alpha");
    if ((scale || (!pointwise && key == "beta")) && (value.type() != json::Type::Number || value.number() != (scale ? 1.0 : 0.0)))
        mismatch(format("%s has %s %s; the graph's operations are unscaled", operation.c_str(), key.c_str(),
                        value.type() == json::Type::Number ? format("%g", value.number()).c_str() : "?"));
}

// A plan node: its cuDNN type and its tensor references, each under its key.
struct PlanNode {
    std::string operation;
    std::vector<std::pair<std::string, int64_t>> references;
    std::vector<int64_t> uids;  // sorted
    bool commutative = false;   // a pointwise mode whose X and B may trade places
};

// cuDNN puts the full-size operand of these modes on X when the graph has a broadcast one
// there (seen for add, mul, min and max on an H200): the same values either way. The mode
// itself is compared with the lowering's among the node's attributes.
bool commutative_pointwise_mode(std::string_view mode) {
    static const char *const modes[] = {"CUDNN_POINTWISE_ADD",     "CUDNN_POINTWISE_MUL",         "CUDNN_POINTWISE_MIN",
                                        "CUDNN_POINTWISE_MAX",     "CUDNN_POINTWISE_CMP_EQ",      "CUDNN_POINTWISE_CMP_NEQ",
                                        "CUDNN_POINTWISE_LOGICAL_AND", "CUDNN_POINTWISE_LOGICAL_OR"};
    for (const char *m : modes)
        if (mode == m) return true;
    return false;
}

PlanNode read_node(const json::Value &node, const std::unordered_set<int64_t> &plan_tensors) {
    PlanNode out;
    out.operation = member(node, "operation", json::Type::String, "a node").string();
    auto add = [&](std::string_view name, const json::Value &v) {
        if (v.type() != json::Type::String || !read_as_number_by_cudnn(std::string(v.string()))) return;
        const std::string key(name);
        int64_t uid = reference_uid(std::string(v.string()), out.operation.c_str(), key);
        if (!plan_tensors.count(uid))
            mismatch(format("%s names tensor %s under %s, which the plan does not list", out.operation.c_str(),
                            std::string(v.string()).c_str(), key.c_str()));
        out.references.emplace_back(key, uid);
        out.uids.push_back(uid);
    };
    for (const auto &m : node.object()) {
        if (m.first == "operation") continue;
        if (m.second.type() == json::Type::Array)
            for (const json::Value &v : m.second.array()) add(m.first, v);
        else
            add(m.first, m.second);
        check_unscaled(out.operation, std::string(m.first), m.second);
    }
    std::sort(out.uids.begin(), out.uids.end());
    const json::Value *mode = node.find("pointwiseMode");
    out.commutative = out.operation == "CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR" && mode &&
                      mode->type() == json::Type::String && commutative_pointwise_mode(mode->string());
    return out;
}

// A lowered operation: its cuDNN type and its tensors, each on its port.
struct LoweredNode {
    const Descriptor *op = nullptr;
    std::string operation;
    std::vector<std::pair<cudnnBackendAttributeName_t, int64_t>> ports;
    std::vector<int64_t> uids;  // sorted
};

// Empty when `node` binds each of `op`'s tensors to the same port; otherwise the first
// difference. Ports whose key the table does not confirm are compared as one set.
std::string port_difference(const PlanNode &node, const LoweredNode &op) {
    std::vector<bool> used(node.references.size(), false);
    std::vector<int64_t> unnamed_plan, unnamed_graph;
    for (const auto &port : op.ports) {
        const PortKey *key = port_by_attribute(op.operation, port.first);
        size_t at = node.references.size();
        for (size_t i = 0; key && i < node.references.size(); ++i)
            if (!used[i] && node.references[i].first == key->key) {
                at = i;
                break;
            }
        if (at == node.references.size()) {
            if (key && key->confirmed)
                return format("%s has no %s; the graph's lowering puts tensor %lld there", op.operation.c_str(), key->key,
                              static_cast<long long>(port.second));
            unnamed_graph.push_back(port.second);
            continue;
        }
        used[at] = true;
        if (node.references[at].second != port.second)
            return format("%s has tensor %lld as %s where the graph has tensor %lld", op.operation.c_str(),
                          static_cast<long long>(node.references[at].second), key->key,
                          static_cast<long long>(port.second));
    }
    for (size_t i = 0; i < node.references.size(); ++i) {
        if (used[i]) continue;
        const auto &reference = node.references[i];
        const PortKey *key = port_by_key(op.operation, reference.first);
        if (key && key->confirmed)
            return format("%s has tensor %lld as %s, a port the graph's lowering leaves unset", op.operation.c_str(),
                          static_cast<long long>(reference.second), reference.first.c_str());
        unnamed_plan.push_back(reference.second);
    }
    std::sort(unnamed_plan.begin(), unnamed_plan.end());
    std::sort(unnamed_graph.begin(), unnamed_graph.end());
    if (unnamed_plan != unnamed_graph)
        return format("%s has tensors %s on its other ports where the graph has %s", op.operation.c_str(),
                      dims_string(unnamed_plan).c_str(), dims_string(unnamed_graph).c_str());
    return "";
}

// The node with its X and B references exchanged.
PlanNode operands_swapped(const PlanNode &node) {
    PlanNode out = node;
    for (auto &reference : out.references)
        if (reference.first == "X")
            reference.first = "B";
        else if (reference.first == "B")
            reference.first = "X";
    return out;
}

}  // namespace

void check_plan_matches(const LoweredGraph &lowered, const std::string &plan_json) {
    json::Document document;
    try {
        document = json::parse(plan_json);
    } catch (const Error &e) {
        corrupt(std::string("its JSON does not read: ") + e.what());
    }
    const json::Value &plan = document.root();
    const json::Value &graph = member(plan, "operationGraph", json::Type::Object, "the plan");
    const json::Value &tensors = member(graph, "tensors", json::Type::Array, "the operation graph");
    const json::Value &nodes = member(graph, "nodes", json::Type::Array, "the operation graph");

    // The tensors the operations use: cuDNN's plan lists no other (lowering may have made
    // descriptors that no operation ended up using).
    std::unordered_set<cudnnBackendDescriptor_t> used;
    for (const Descriptor &op : lowered.operations)
        for (const Descriptor::Reference &r : op.references()) used.insert(r.raw);
    ExpectedTensors all;
    for (const Descriptor &d : lowered.tensor_descriptors) all.descriptor_of[d.get()] = &d;
    size_t expected_count = 0;
    for (const LoweredTensor &t : lowered.tensor_table) {
        all.by_uid[t.uid] = &t;
        all.uid_of_raw[t.raw] = t.uid;
        if (used.count(t.raw)) ++expected_count;
    }
    if (tensors.array().size() != expected_count)
        mismatch(format("the plan has %zu tensors, the graph's lowering %zu", tensors.array().size(), expected_count));
    std::unordered_set<int64_t> plan_tensors;
    for (const json::Value &t : tensors.array()) {
        const std::string name(member(t, "name", json::Type::String, "a tensor").string());
        int64_t uid = reference_uid(name, "the plan", "a tensor's name");
        auto it = all.by_uid.find(uid);
        if (it == all.by_uid.end() || !used.count(it->second->raw) || plan_tensors.count(uid))
            mismatch(format("the plan has a tensor '%s' the graph has not", name.c_str()));
        check_tensor(t, *it->second, name, all);
        plan_tensors.insert(uid);
    }

    // Operations pair up by type and tensors, then port by port; each pair's attributes are
    // then compared.
    std::vector<LoweredNode> want;
    for (const Descriptor &op : lowered.operations) {
        LoweredNode n;
        n.op = &op;
        n.operation = cudnn_operation_name(op.type());
        for (const Descriptor::Reference &r : op.references()) {
            auto it = all.uid_of_raw.find(r.raw);
            if (it == all.uid_of_raw.end()) continue;  // an attribute descriptor, not a tensor
            n.ports.emplace_back(r.name, it->second);
            n.uids.push_back(it->second);
        }
        std::sort(n.uids.begin(), n.uids.end());
        want.push_back(std::move(n));
    }
    if (nodes.array().size() != want.size())
        mismatch(format("the plan has %zu operations, the graph's lowering %zu", nodes.array().size(), want.size()));
    std::unordered_map<cudnnBackendDescriptor_t, const Descriptor *> attributes;
    for (const Descriptor &d : lowered.attribute_descriptors) attributes[d.get()] = &d;
    std::vector<bool> paired(want.size(), false);
    for (const json::Value &json_node : nodes.array()) {
        PlanNode node = read_node(json_node, plan_tensors);
        std::string first_difference;
        size_t match = want.size();
        for (size_t i = 0; i < want.size() && match == want.size(); ++i) {
            if (paired[i] || want[i].operation != node.operation || want[i].uids != node.uids) continue;
            std::string difference = port_difference(node, want[i]);
            if (!difference.empty() && node.commutative && port_difference(operands_swapped(node), want[i]).empty())
                difference.clear();
            if (difference.empty())
                match = i;
            else if (first_difference.empty())
                first_difference = difference;
        }
        if (match == want.size()) {
            if (!first_difference.empty()) mismatch(first_difference);
            mismatch(format("the plan has an operation %s over tensors %s that the graph's lowering has not",
                            node.operation.c_str(), dims_string(node.uids).c_str()));
        }
        paired[match] = true;
        check_node_attributes(json_node, *want[match].op, attributes);
    }
}

std::shared_ptr<const PlanRecord> checked_record(fe_graph &graph, const PlanRecord &stored, const std::string &plan_json,
                                                 fe_handle *handle, const std::string &device_json, const TargetGpu &target) {
    cudnnHandle_t cudnn_handle = handle ? handle->cudnn : nullptr;
    std::unique_ptr<BuildState> state = lower_as_built(graph, cudnn_handle, target, stored.attention);
    check_plan_matches(state->lowered, plan_json);
    state->executable.device = handle ? handle->device : -1;
    Plan plan;
    plan.plan = plan_from_json(plan_json, cudnn_handle, device_json);
    plan.workspace = loaded_plan_workspace(*plan.plan);
    if (plan.workspace != stored.workspace)
        FE_LOG_INFO("graph '%s': the plan records a workspace of %lld bytes and needs %lld here; %lld is used",
                    graph.name.c_str(), static_cast<long long>(stored.workspace),
                    static_cast<long long>(plan.workspace), static_cast<long long>(plan.workspace));
    // The engine and knobs are the plan's own, whatever the record claims.
    plan.tag = "unknown";
    plan.facts_known = read_plan_config_facts(*plan.plan, &plan);
    if (plan.facts_known && plan.tag != stored.tag)
        FE_LOG_INFO("graph '%s': the plan's record names engine config %s; the plan runs %s", graph.name.c_str(),
                    stored.tag.c_str(), plan.tag.c_str());
    state->executable.plans.push_back(std::move(plan));
    std::shared_ptr<PlanRecord> record = record_of(*state);
    record->candidates = stored.candidates;
    record->viable = stored.viable;
    record->autotuned = stored.autotuned;
    record->time_us = stored.time_us;
    return record;
}

}  // namespace fe
