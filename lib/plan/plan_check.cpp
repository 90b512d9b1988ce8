#include "plan/plan_check.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "common/log.hpp"
#include "plan/build_state.hpp"
#include "plan/plan_attributes.hpp"
#include "runtime/handle.hpp"
#include "plan/engine_knobs.hpp"
#include "plan/plan_json.hpp"
#include "serial/json.hpp"

namespace fe {

namespace {

// cuDNN's names in its plan JSON, by enum value.
const char *cudnn_data_type_name(fe_data_type type) {
    switch (type) {
        case FE_DATA_FLOAT: return "CUDNN_DATA_FLOAT";
        case FE_DATA_DOUBLE: return "CUDNN_DATA_DOUBLE";
        case FE_DATA_HALF: return "CUDNN_DATA_HALF";
        case FE_DATA_INT8: return "CUDNN_DATA_INT8";
        case FE_DATA_INT32: return "CUDNN_DATA_INT32";
        case FE_DATA_UINT8: return "CUDNN_DATA_UINT8";
        case FE_DATA_BFLOAT16: return "CUDNN_DATA_BFLOAT16";
        case FE_DATA_INT64: return "CUDNN_DATA_INT64";
        case FE_DATA_BOOLEAN: return "CUDNN_DATA_BOOLEAN";
        case FE_DATA_FP8_E4M3: return "CUDNN_DATA_FP8_E4M3";
        case FE_DATA_FP8_E5M2: return "CUDNN_DATA_FP8_E5M2";
        case FE_DATA_FP8_E8M0: return "CUDNN_DATA_FP8_E8M0";
        case FE_DATA_INT4: return "CUDNN_DATA_INT4";
        case FE_DATA_UINT4: return "CUDNN_DATA_UINT4";
        default: return "?";
    }
}

const char *cudnn_operation_name(cudnnBackendDescriptorType_t type) {
    switch (type) {
        case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
            return "CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
            return "CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
            return "CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: return "CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR: return "CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR: return "CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR:
            return "CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR: return "CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR: return "CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR: return "CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR: return "CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR: return "CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR: return "CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR: return "CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR: return "CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR: return "CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR:
            return "CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_BLOCK_SCALE_QUANTIZE_DESCRIPTOR:
            return "CUDNN_BACKEND_OPERATION_BLOCK_SCALE_QUANTIZE_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_BLOCK_SCALE_DEQUANTIZE_DESCRIPTOR:
            return "CUDNN_BACKEND_OPERATION_BLOCK_SCALE_DEQUANTIZE_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR: return "CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR";
        case CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR: return "CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR";
        default: return "?";
    }
}

[[noreturn]] void mismatch(const std::string &what) {
    FE_FAIL(FE_STATUS_INVALID_ARGUMENT, "the plan does not match its graph: %s", what.c_str());
}

// Not the JSON cuDNN writes for a plan at all.
[[noreturn]] void corrupt(const std::string &what) {
    FE_FAIL(FE_STATUS_INVALID_ARGUMENT, "the serialized plan is corrupt: %s", what.c_str());
}

const json::Value &member(const json::Value &object, const char *key, json::Type type, const char *where) {
    const json::Value *v = object.type == json::Type::Object ? object.find(key) : nullptr;
    if (!v || v->type != type) corrupt(format("%s has no %s of the expected type", where, key));
    return *v;
}

std::vector<int64_t> integers(const json::Value &array, const char *what, const std::string &uid) {
    std::vector<int64_t> out;
    for (const json::Value &v : array.array) {
        if (!v.is_integer) corrupt(format("tensor %s's %s holds a non-integer", uid.c_str(), what));
        out.push_back(v.integer);
    }
    return out;
}

bool flag(const json::Value &tensor, const char *key) {
    const json::Value *v = tensor.find(key);
    return v && v->type == json::Type::Bool && v->boolean;
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

void check_tensor(const json::Value &t, const LoweredTensor &want, const std::string &uid) {
    const std::string &type = member(t, "dataType", json::Type::String, "a tensor").string;
    if (type != cudnn_data_type_name(want.type))
        mismatch(format("tensor %s is %s in the plan, %s in the graph", uid.c_str(), type.c_str(),
                        cudnn_data_type_name(want.type)));
    std::vector<int64_t> dims = integers(member(t, "dim", json::Type::Array, "a tensor"), "dims", uid);
    std::vector<int64_t> strides = integers(member(t, "stride", json::Type::Array, "a tensor"), "strides", uid);
    if (dims != want.dims || !same_addressing(dims, strides, want.strides))
        mismatch(format("tensor %s is %s strides %s in the plan, %s strides %s in the graph", uid.c_str(),
                        dims_string(dims).c_str(), dims_string(strides).c_str(), dims_string(want.dims).c_str(),
                        dims_string(want.strides).c_str()));
    if (flag(t, "isVirtual") != want.is_virtual || flag(t, "isByValue") != want.by_value)
        mismatch(format("tensor %s is %s in the plan, %s in the graph", uid.c_str(),
                        flag(t, "isVirtual") ? "virtual" : flag(t, "isByValue") ? "by value" : "in memory",
                        want.is_virtual ? "virtual" : want.by_value ? "by value" : "in memory"));
    const json::Value *alignment = t.find("ptrAlignment");
    if (alignment && (!alignment->is_integer || alignment->integer != want.alignment))
        mismatch(format("tensor %s is aligned to %lld bytes in the plan, %lld in the graph", uid.c_str(),
                        static_cast<long long>(alignment->is_integer ? alignment->integer : -1),
                        static_cast<long long>(want.alignment)));
}

// An operation by its cuDNN type and the uids of the tensors it reads and writes.
using OperationKey = std::pair<std::string, std::vector<int64_t>>;

// The tensors a plan node names: its string members (and arrays of strings) that are tensor
// names. Scaling factors must leave results unscaled: lowering never sets others.
OperationKey node_key(const json::Value &node, const std::unordered_map<std::string, int64_t> &uid_of_name) {
    OperationKey key{member(node, "operation", json::Type::String, "a node").string, {}};
    auto add = [&](const json::Value &v) {
        if (v.type != json::Type::String) return;
        auto it = uid_of_name.find(v.string);
        if (it != uid_of_name.end()) key.second.push_back(it->second);
    };
    for (const auto &m : node.object) {
        if (m.second.type == json::Type::Array)
            for (const json::Value &v : m.second.array) add(v);
        else
            add(m.second);
        // A pointwise node's alpha and beta are its ELU, softplus and swish coefficients (checked
        // with its attributes); elsewhere they scale the result.
        bool pointwise = key.first == "CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR";
        bool scale = m.first == "alpha1" || m.first == "alpha2" || (!pointwise && m.first == "alpha");
        if ((scale || (!pointwise && m.first == "beta")) &&
            (m.second.type != json::Type::Number || m.second.number != (scale ? 1.0 : 0.0)))
            mismatch(format("%s has %s %s; the graph's operations are unscaled", key.first.c_str(), m.first.c_str(),
                            m.second.type == json::Type::Number ? format("%g", m.second.number).c_str() : "?"));
    }
    std::sort(key.second.begin(), key.second.end());
    return key;
}

}  // namespace

void check_plan_matches(const LoweredGraph &lowered, const std::string &plan_json) {
    json::Value plan;
    try {
        plan = json::parse(plan_json);
    } catch (const Error &e) {
        corrupt(std::string("its JSON does not read: ") + e.what());
    }
    const json::Value &graph = member(plan, "operationGraph", json::Type::Object, "the plan");
    const json::Value &tensors = member(graph, "tensors", json::Type::Array, "the operation graph");
    const json::Value &nodes = member(graph, "nodes", json::Type::Array, "the operation graph");

    // The tensors the operations use: cuDNN's plan lists no other (lowering may have made
    // descriptors that no operation ended up using).
    std::unordered_set<cudnnBackendDescriptor_t> used;
    for (const Descriptor &op : lowered.operations) used.insert(op.references().begin(), op.references().end());
    std::unordered_map<std::string, const LoweredTensor *> expected;
    std::unordered_map<cudnnBackendDescriptor_t, int64_t> uid_of_raw;
    for (const LoweredTensor &t : lowered.tensor_table) {
        if (!used.count(t.raw)) continue;
        expected[std::to_string(t.uid)] = &t;
        uid_of_raw[t.raw] = t.uid;
    }
    if (tensors.array.size() != expected.size())
        mismatch(format("the plan has %zu tensors, the graph's lowering %zu", tensors.array.size(), expected.size()));
    std::unordered_map<std::string, int64_t> uid_of_name;
    for (const json::Value &t : tensors.array) {
        const std::string &name = member(t, "name", json::Type::String, "a tensor").string;
        auto it = expected.find(name);
        if (it == expected.end() || uid_of_name.count(name)) mismatch(format("the plan has a tensor '%s' the graph has not", name.c_str()));
        check_tensor(t, *it->second, name);
        uid_of_name[name] = it->second->uid;
    }

    // Operations pair up by type and tensors; each pair's attributes are then compared.
    std::vector<std::pair<OperationKey, const Descriptor *>> want;
    std::vector<std::pair<OperationKey, const json::Value *>> have;
    for (const Descriptor &op : lowered.operations) {
        OperationKey key{cudnn_operation_name(op.type()), {}};
        for (cudnnBackendDescriptor_t raw : op.references()) {
            auto it = uid_of_raw.find(raw);
            if (it != uid_of_raw.end()) key.second.push_back(it->second);
        }
        std::sort(key.second.begin(), key.second.end());
        want.emplace_back(std::move(key), &op);
    }
    for (const json::Value &node : nodes.array) have.emplace_back(node_key(node, uid_of_name), &node);
    auto by_key = [](const auto &a, const auto &b) { return a.first < b.first; };
    std::stable_sort(want.begin(), want.end(), by_key);
    std::stable_sort(have.begin(), have.end(), by_key);
    if (want.size() != have.size())
        mismatch(format("the plan has %zu operations, the graph's lowering %zu", have.size(), want.size()));
    for (size_t i = 0; i < want.size(); ++i)
        if (want[i].first != have[i].first)
            mismatch(format("the plan has an operation %s over tensors %s where the graph has %s over %s",
                            have[i].first.first.c_str(), dims_string(have[i].first.second).c_str(),
                            want[i].first.first.c_str(), dims_string(want[i].first.second).c_str()));
    std::unordered_map<cudnnBackendDescriptor_t, const Descriptor *> attributes;
    for (const Descriptor &d : lowered.attribute_descriptors) attributes[d.get()] = &d;
    for (size_t i = 0; i < want.size(); ++i) check_node_attributes(*have[i].second, *want[i].second, attributes);
}

std::shared_ptr<const PlanRecord> checked_record(fe_graph &graph, const PlanRecord &stored, const std::string &plan_json,
                                                 fe_handle *handle, const std::string &device_json, int target_sm) {
    cudnnHandle_t cudnn_handle = handle ? handle->cudnn : nullptr;
    std::unique_ptr<BuildState> state = lower_as_built(graph, cudnn_handle, target_sm, stored.attention);
    check_plan_matches(state->lowered, plan_json);
    state->executable.device = handle ? handle->device : -1;
    Plan plan;
    plan.plan = plan_from_json(plan_json, cudnn_handle, device_json);
    plan.workspace = loaded_plan_workspace(*plan.plan);
    if (plan.workspace != stored.workspace)
        FE_LOG_INFO("graph '%s': the plan records a workspace of %lld bytes and needs %lld here; %lld is used",
                    graph.name.c_str(), static_cast<long long>(stored.workspace),
                    static_cast<long long>(plan.workspace), static_cast<long long>(plan.workspace));
    plan.engine_index = stored.engine_index;
    plan.tag = stored.tag;
    plan.facts_known = read_plan_config_facts(*plan.plan, &plan);
    state->executable.plans.push_back(std::move(plan));
    std::shared_ptr<PlanRecord> record = record_of(*state);
    record->candidates = stored.candidates;
    record->viable = stored.viable;
    record->autotuned = stored.autotuned;
    record->time_us = stored.time_us;
    return record;
}

}  // namespace fe
