#include "graph/graph.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <set>

#include "common/error.hpp"
#include "common/values.hpp"

using fe::Error;

// fe_graph() and ~fe_graph() are defined in lib/plan/build_state.cpp, where BuildState is complete.

void fe_graph::require_editable() {
    FE_CHECK(stage != Stage::Built && stage != Stage::Supported && stage != Stage::Candidates &&
                 stage != Stage::OperationGraph,
             FE_STATUS_BAD_STATE,
             "graph '%s' has already been lowered or built and can no longer change; create a new graph",
             name.c_str());
    stage = Stage::Editing;
}

void fe_graph::check_owns(const fe_tensor *tensor, const char *what) const {
    FE_CHECK(tensor->graph == this, FE_STATUS_INVALID_ARGUMENT,
             "%s '%s' belongs to another graph", what, tensor->name.c_str());
}

static void check_shape(const std::string &name, const std::vector<int64_t> &dims,
                        const std::vector<int64_t> &strides) {
    FE_CHECK(!dims.empty() && dims.size() <= FE_MAX_DIMS, FE_STATUS_INVALID_ARGUMENT,
             "tensor '%s' has rank %zu; cuDNN takes 1 to %d dims", name.c_str(), dims.size(),
             FE_MAX_DIMS);
    for (size_t i = 0; i < dims.size(); ++i)
        FE_CHECK(dims[i] > 0, FE_STATUS_INVALID_ARGUMENT, "tensor '%s' has dim %zu = %lld; dims must be positive",
                 name.c_str(), i, static_cast<long long>(dims[i]));
    FE_CHECK(strides.size() == dims.size(), FE_STATUS_INVALID_ARGUMENT,
             "tensor '%s' has %zu strides for %zu dims", name.c_str(), strides.size(), dims.size());
    for (size_t i = 0; i < strides.size(); ++i)
        FE_CHECK(strides[i] > 0, FE_STATUS_INVALID_ARGUMENT,
                 "tensor '%s' has stride %zu = %lld; strides must be positive", name.c_str(), i,
                 static_cast<long long>(strides[i]));
    fe::span_bytes(dims, strides, FE_DATA_DOUBLE);  // throws when the tensor cannot be addressed
}

// Names end up in the graph JSON (cache keys and serialized blobs), which must read them back.
static void check_tensor_name(const std::string &name) {
    FE_CHECK(!name.empty(), FE_STATUS_INVALID_ARGUMENT, "a tensor name must not be empty");
    fe::require_utf8(name, "tensor name");
}

// The largest finite magnitude a floating type holds; 0 for the integer types.
static double largest_finite(fe_data_type type) {
    switch (type) {
        case FE_DATA_DOUBLE: return DBL_MAX;
        case FE_DATA_FLOAT: return FLT_MAX;
        case FE_DATA_BFLOAT16: return 3.38953138925153547590470800371487866880e+38;
        case FE_DATA_HALF: return 65504.0;
        default: return 0.0;
    }
}

// Whether `value` converts to `type` without leaving its range: integers must be whole numbers
// within the type (converting anything else is undefined), floating types take any value up to
// their largest finite one, infinities and NaN included.
static bool scalar_fits(double value, fe_data_type type) {
    if (type == FE_DATA_INT32) return value == std::trunc(value) && value >= -2147483648.0 && value <= 2147483647.0;
    if (type == FE_DATA_INT64)
        return value == std::trunc(value) && value >= -9223372036854775808.0 && value < 9223372036854775808.0;
    return !std::isfinite(value) || std::fabs(value) <= largest_finite(type);
}

fe_tensor *fe_graph::add_input(const std::string &tensor_name, const std::vector<int64_t> &dims,
                               const std::vector<int64_t> &strides, fe_data_type type) {
    require_editable();
    check_tensor_name(tensor_name);
    FE_CHECK(!by_name.count(tensor_name), FE_STATUS_DUPLICATE, "the graph already has a tensor named '%s'",
             tensor_name.c_str());
    FE_CHECK(type == FE_DATA_NOT_SET || fe::data_type_valid(type), FE_STATUS_INVALID_ARGUMENT,
             "tensor '%s' has unknown data type %d", tensor_name.c_str(), static_cast<int>(type));
    std::vector<int64_t> s = strides.empty() ? fe::packed_strides(dims) : strides;
    check_shape(tensor_name, dims, s);
    auto t = std::make_unique<fe_tensor>();
    t->graph = this;
    t->name = tensor_name;
    t->dims = dims;
    t->strides = s;
    t->user_dims = t->user_strides = true;
    t->data_type = type;
    t->user_data_type = type != FE_DATA_NOT_SET;
    fe_tensor *raw = t.get();
    tensors.push_back(std::move(t));
    inputs.push_back(raw);
    by_name[tensor_name] = raw;
    return raw;
}

fe_tensor *fe_graph::add_scalar(const std::string &tensor_name, double value, fe_data_type type, bool compile_time) {
    require_editable();
    FE_CHECK(type == FE_DATA_FLOAT || type == FE_DATA_HALF || type == FE_DATA_BFLOAT16 ||
                 type == FE_DATA_DOUBLE || type == FE_DATA_INT32 || type == FE_DATA_INT64,
             FE_STATUS_INVALID_ARGUMENT, "scalar '%s' must be float, double, half, bfloat16, int32 or int64, not %s",
             tensor_name.c_str(), fe::data_type_name(type));
    check_tensor_name(tensor_name);
    FE_CHECK(!by_name.count(tensor_name), FE_STATUS_DUPLICATE, "the graph already has a tensor named '%s'",
             tensor_name.c_str());
    FE_CHECK(scalar_fits(value, type), FE_STATUS_INVALID_ARGUMENT, "scalar '%s' is %g, which %s cannot hold",
             tensor_name.c_str(), value, fe::data_type_name(type));
    auto t = std::make_unique<fe_tensor>();
    t->graph = this;
    t->name = tensor_name;
    t->dims = {1};
    t->strides = {1};
    t->user_dims = t->user_strides = true;
    t->data_type = type;
    t->user_data_type = true;
    t->by_value = true;
    t->compile_time_constant = compile_time;
    t->scalar_value = value;
    fe_tensor *raw = t.get();
    tensors.push_back(std::move(t));
    by_name[tensor_name] = raw;
    return raw;
}

std::string fe_graph::unique_node_name(const char *given, const char *kind) {
    if (given && *given) {
        fe::require_utf8(given, "operation name");
        FE_CHECK(!node_names.count(given), FE_STATUS_DUPLICATE, "the graph already has an operation named '%s'", given);
        return given;
    }
    for (;;) {
        std::string candidate = std::string(kind) + "_" + std::to_string(kind_counters[kind]++);
        if (!node_names.count(candidate)) return candidate;
    }
}

const std::vector<fe_tensor *> &fe_graph::add_op(std::unique_ptr<fe::Node> node, const char *given_name,
                                                 const char *kind, const std::vector<const char *> &output_ports) {
    // Only this kind's counter can move; saving the whole map would copy it for every op.
    auto counter = kind_counters.find(kind);
    bool had_counter = counter != kind_counters.end();
    int saved = had_counter ? counter->second : 0;
    try {
        node->name = unique_node_name(given_name, kind);
        add_node(std::move(node), output_ports);
    } catch (...) {
        if (had_counter)
            kind_counters[kind] = saved;
        else
            kind_counters.erase(kind);
        throw;
    }
    return nodes.back()->outputs;
}

void fe_graph::set_ragged_offset(fe_tensor *tensor, fe_tensor *offsets) {
    if (offsets) {
        check_owns(offsets, "offsets");
        FE_CHECK(offsets->is_input() && !offsets->by_value, FE_STATUS_INVALID_ARGUMENT,
                 "offsets '%s' must be a graph input tensor", offsets->name.c_str());
        FE_CHECK(offsets->data_type == FE_DATA_INT32 || offsets->data_type == FE_DATA_INT64, FE_STATUS_INVALID_ARGUMENT,
                 "offsets '%s' is %s; ragged offsets are int32 or int64", offsets->name.c_str(),
                 fe::data_type_name(offsets->data_type));
        FE_CHECK(offsets->dims.size() == 4 && !tensor->dims.empty() && offsets->dims[0] == tensor->dims[0] + 1 &&
                     offsets->dims[1] == 1 && offsets->dims[2] == 1 && offsets->dims[3] == 1,
                 FE_STATUS_INVALID_ARGUMENT, "offsets '%s' is %s; for '%s' it must be [%lld, 1, 1, 1]",
                 offsets->name.c_str(), fe::dims_string(offsets->dims).c_str(), tensor->name.c_str(),
                 static_cast<long long>(tensor->dims.empty() ? 0 : tensor->dims[0] + 1));
    }
    require_editable();
    tensor->ragged_offset = offsets;
}

void fe_graph::set_alignment(fe_tensor *tensor, int64_t bytes) {
    FE_CHECK(bytes >= 16 && bytes <= 4096 && (bytes & (bytes - 1)) == 0, FE_STATUS_INVALID_ARGUMENT,
             "an alignment of %lld bytes for '%s': give a power of two from 16 (what every pointer has) to 4096",
             static_cast<long long>(bytes), tensor->name.c_str());
    FE_CHECK(!tensor->by_value, FE_STATUS_INVALID_ARGUMENT, "'%s' is a scalar passed by value: it has no memory to align",
             tensor->name.c_str());
    require_editable();
    tensor->alignment = bytes;
}

void fe_graph::set_vectorization(fe_tensor *tensor, int32_t count, int32_t dim) {
    FE_CHECK(count == 1 || count == 4 || count == 32, FE_STATUS_INVALID_ARGUMENT,
             "vectors of %d values for '%s': cuDNN's vectorized int8 layouts hold 4 (INT8x4) or 32 (INT8x32); 1 "
             "removes the vectorization",
             count, tensor->name.c_str());
    FE_CHECK(tensor->is_input() && !tensor->by_value, FE_STATUS_INVALID_ARGUMENT,
             "'%s' is %s: only a graph input is vectorized (a convolution's result follows its image)",
             tensor->name.c_str(), tensor->by_value ? "a scalar passed by value" : "an operation's result");
    const size_t rank = tensor->dims.size();
    FE_CHECK(count == 1 || (dim == 1 && (rank == 4 || rank == 5)), FE_STATUS_INVALID_ARGUMENT,
             "'%s' (rank %zu) vectorized along dim %d: cuDNN vectorizes the channels (dim 1) of a rank-4 or rank-5 "
             "tensor",
             tensor->name.c_str(), rank, dim);
    require_editable();
    tensor->vector_count = count;
    tensor->vector_dim = count == 1 ? -1 : dim;
    if (count != 32) tensor->reordering = FE_TENSOR_REORDERING_NONE;  // the INT8x32 order needs 32
}

void fe_graph::set_reordering(fe_tensor *tensor, fe_tensor_reordering reordering) {
    FE_CHECK(reordering == FE_TENSOR_REORDERING_NONE || reordering == FE_TENSOR_REORDERING_INT8X32,
             FE_STATUS_INVALID_ARGUMENT, "reordering %d for '%s': give FE_TENSOR_REORDERING_NONE or _INT8X32",
             static_cast<int>(reordering), tensor->name.c_str());
    FE_CHECK(reordering == FE_TENSOR_REORDERING_NONE || tensor->vector_count == 32, FE_STATUS_INVALID_ARGUMENT,
             "'%s' is in vectors of %d values: the INT8x32 order is that of a filter vectorized in 32 "
             "(fe_tensor_set_vectorization first)",
             tensor->name.c_str(), tensor->vector_count);
    require_editable();
    tensor->reordering = reordering;
}

void fe_graph::add_node(std::unique_ptr<fe::Node> node, const std::vector<const char *> &ports) {
    require_editable();
    for (size_t i = 0; i < node->inputs.size(); ++i)
        if (node->inputs[i]) check_owns(node->inputs[i], node->input_port(i));
    std::vector<std::unique_ptr<fe_tensor>> made;
    for (const char *port : ports) {
        auto t = std::make_unique<fe_tensor>();
        t->graph = this;
        t->name = node->name + "::" + port;
        FE_CHECK(!by_name.count(t->name), FE_STATUS_DUPLICATE, "the graph already has a tensor named '%s'",
                 t->name.c_str());
        t->producer = node.get();
        node->outputs.push_back(t.get());
        node->output_ports.emplace_back(port);
        made.push_back(std::move(t));
    }
    node->infer();  // throws before anything is added
    for (auto &t : made) {
        by_name[t->name] = t.get();
        tensors.push_back(std::move(t));
    }
    node_names.insert(node->name);
    nodes.push_back(std::move(node));
}

void fe_graph::rename(fe_tensor *tensor, const std::string &new_name) {
    require_editable();
    check_tensor_name(new_name);
    if (new_name == tensor->name) return;
    FE_CHECK(!by_name.count(new_name), FE_STATUS_DUPLICATE, "the graph already has a tensor named '%s'",
             new_name.c_str());
    by_name.erase(tensor->name);
    tensor->name = new_name;
    by_name[new_name] = tensor;
}

void fe_graph::set_output(fe_tensor *tensor, bool is_output) {
    require_editable();
    FE_CHECK(tensor->producer != nullptr, FE_STATUS_INVALID_ARGUMENT,
             "'%s' is a graph input; only operation results can be outputs", tensor->name.c_str());
    if (tensor->is_output == is_output) return;
    tensor->is_output = is_output;
    if (is_output)
        outputs.push_back(tensor);
    else
        outputs.erase(std::remove(outputs.begin(), outputs.end(), tensor), outputs.end());
}

void fe_graph::set_uid(fe_tensor *tensor, int64_t uid) {
    require_editable();
    FE_CHECK(!tensor->by_value, FE_STATUS_INVALID_ARGUMENT,
             "'%s' is a scalar passed by value and is never bound, so it takes no uid", tensor->name.c_str());
    set_scalar_uid(tensor, uid);
}

void fe_graph::set_scalar_uid(fe_tensor *tensor, int64_t uid) {
    // The build numbers the tensors it adds from above the largest uid set: a ceiling well below
    // INT64_MAX keeps those numbers from wrapping into the caller's.
    FE_CHECK(uid >= 0 && uid <= FE_MAX_USER_UID, FE_STATUS_INVALID_ARGUMENT,
             "uid %lld of '%s' is outside 0 to FE_MAX_USER_UID (%lld)", static_cast<long long>(uid),
             tensor->name.c_str(), static_cast<long long>(FE_MAX_USER_UID));
    auto taken = by_user_uid.find(uid);
    FE_CHECK(taken == by_user_uid.end() || taken->second == tensor, FE_STATUS_DUPLICATE,
             "uid %lld is already used by '%s'", static_cast<long long>(uid), taken->second->name.c_str());
    if (tensor->user_uid) by_user_uid.erase(tensor->uid);
    tensor->uid = uid;
    tensor->has_uid = tensor->user_uid = true;
    by_user_uid[uid] = tensor;
}

fe_data_type fe_graph::resolved_compute(const fe::Node &node) const {
    if (node.compute_data_type != FE_DATA_NOT_SET) return node.compute_data_type;
    if (compute_data_type != FE_DATA_NOT_SET) return compute_data_type;
    return FE_DATA_FLOAT;
}

void fe_graph::validate() {
    if (stage != Stage::Editing) return;  // already validated, or further along
    FE_CHECK(!nodes.empty(), FE_STATUS_VALIDATION, "graph '%s' has no operations", name.c_str());
    FE_CHECK(!outputs.empty(), FE_STATUS_VALIDATION,
             "graph '%s' has no outputs: mark a result with fe_tensor_set_output", name.c_str());
    // A tensor whose dims were given a new rank keeps the strides it was given: both must be set.
    for (const auto &t : tensors)
        FE_CHECK(t->strides.size() == t->dims.size(), FE_STATUS_VALIDATION,
                 "'%s' has %zu dims but %zu strides: give it strides of its new rank (fe_tensor_set_strides)",
                 t->name.c_str(), t->dims.size(), t->strides.size());
    for (fe_tensor *t : inputs) {
        if (t->data_type == FE_DATA_NOT_SET) {
            FE_CHECK(io_data_type != FE_DATA_NOT_SET, FE_STATUS_VALIDATION,
                     "input '%s' has no data type and the graph has no io_data_type", t->name.c_str());
            t->data_type = io_data_type;
        }
    }
    std::set<const fe_tensor *> consumed;
    for (const auto &t : tensors)
        if (t->ragged_offset) consumed.insert(t->ragged_offset);  // read by cuDNN through the tensor
    for (const auto &t : tensors)
        FE_CHECK(t->alignment == 16 || !t->is_virtual(), FE_STATUS_VALIDATION,
                 "'%s' promises %lld-byte alignment but is virtual (it has no memory): mark it as an output or drop "
                 "the promise",
                 t->name.c_str(), static_cast<long long>(t->alignment));
    for (auto &node : nodes) {
        for (fe_tensor *in : node->inputs)
            if (in) consumed.insert(in);
        try {
            node->infer();
        } catch (const Error &e) {
            throw Error(e.status(), std::string(node->kind()) + " '" + node->name + "': " + e.what());
        }
        for (fe_tensor *out : node->outputs) {
            if (out->user_data_type) continue;
            if (node->inputs[0] && node->inputs[0]->data_type == FE_DATA_COMPLEX_FP32)
                out->data_type = FE_DATA_COMPLEX_FP32;  // what complex operands give is complex
            else if (out->is_output && io_data_type != FE_DATA_NOT_SET)
                out->data_type = io_data_type;
            else if (out->is_output)
                out->data_type = node->inputs[0]->data_type;  // no io default: follow the operand
            else
                out->data_type = intermediate_data_type != FE_DATA_NOT_SET ? intermediate_data_type
                                                                           : FE_DATA_FLOAT;
        }
    }
    for (fe_tensor *t : inputs)
        FE_CHECK(consumed.count(t), FE_STATUS_VALIDATION, "input '%s' is not used by any operation",
                 t->name.c_str());
    check_score_modifiers();
    // cuDNN refuses such outputs too, but only at finalize and in its own words.
    for (fe_tensor *t : outputs) fe::require_distinct_elements(t->name, t->dims, t->strides);
    for (auto &node : nodes)
        for (fe_tensor *out : node->outputs)
            FE_CHECK(out->is_output || consumed.count(out), FE_STATUS_VALIDATION,
                     "result '%s' is neither used nor marked as an output", out->name.c_str());
    stage = Stage::Validated;
}

// A score modifier runs inside its attention op's fused kernel: its results and the tensor that
// stands for the scores exist only there.
void fe_graph::check_score_modifiers() const {
    for (const auto &node : nodes) {
        for (const fe_tensor *in : node->inputs) {
            if (!in) continue;
            const fe::Node *owner = in->stands_in_for ? in->stands_in_for
                                                      : (in->producer ? in->producer->absorbed_by : nullptr);
            FE_CHECK(!owner || node.get() == owner || node->absorbed_by == owner, FE_STATUS_VALIDATION,
                     "%s '%s' reads '%s', which exists only inside %s '%s' (its score modifier); read the "
                     "attention's results instead",
                     node->kind(), node->name.c_str(), in->name.c_str(), owner->kind(), owner->name.c_str());
        }
        if (!node->absorbed_by) continue;
        for (const fe_tensor *out : node->outputs)
            FE_CHECK(!out->is_output, FE_STATUS_VALIDATION,
                     "'%s' is an output, but %s '%s' computes it inside %s '%s' (its score modifier), where "
                     "it is never written to memory",
                     out->name.c_str(), node->kind(), node->name.c_str(), node->absorbed_by->kind(),
                     node->absorbed_by->name.c_str());
    }
}

bool fe_graph::has_op(const char *kind) const {
    for (const auto &node : nodes)
        if (std::strcmp(node->kind(), kind) == 0) return true;
    return false;
}

void fe_graph::assign_uids() {
    std::set<int64_t> used;
    for (const auto &t : tensors)
        if (t->user_uid) used.insert(t->uid);
    int64_t next = 1;
    for (const auto &t : tensors) {
        if (t->user_uid) continue;
        while (used.count(next)) ++next;
        t->uid = next;
        t->has_uid = true;
        used.insert(next);
    }
}
