// fe_graph_* construction entry points and fe_tensor_* accessors.
#include <algorithm>

#include "api/guard.hpp"
#include "common/values.hpp"
#include "graph/graph.hpp"

using namespace fe;

namespace {

std::vector<int64_t> copy_dims(size_t ndims, const int64_t *values, const char *what) {
    FE_CHECK(ndims >= 1 && ndims <= FE_MAX_DIMS, FE_STATUS_INVALID_ARGUMENT, "%s has %zu entries; 1 to %d are allowed",
             what, ndims, FE_MAX_DIMS);
    return std::vector<int64_t>(values, values + ndims);
}

// A tensor's new dims or strides (`what`: "dim" or "stride"), each positive.
std::vector<int64_t> positive_per_dim(const fe_tensor *tensor, size_t ndims, const int64_t *values,
                                      const std::string &what) {
    std::vector<int64_t> v = copy_dims(ndims, values, (what + "s").c_str());
    for (size_t i = 0; i < ndims; ++i)
        FE_CHECK(v[i] > 0, FE_STATUS_INVALID_ARGUMENT, "%s %zu of '%s' is %lld; %ss must be positive", what.c_str(), i,
                 tensor->name.c_str(), static_cast<long long>(v[i]), what.c_str());
    return v;
}

void check_data_type(fe_data_type type, bool allow_not_set) {
    FE_CHECK((allow_not_set && type == FE_DATA_NOT_SET) || data_type_valid(type), FE_STATUS_INVALID_ARGUMENT,
             "data type %d is not one cudnnfe knows", static_cast<int>(type));
}

void copy_values(const std::vector<int64_t> &from, int64_t *out, size_t capacity, const fe_tensor *t,
                 const char *what) {
    FE_CHECK(capacity >= from.size(), FE_STATUS_BUFFER_TOO_SMALL, "'%s' has %zu %s; the output holds %zu",
             t->name.c_str(), from.size(), what, capacity);
    std::copy(from.begin(), from.end(), out);
}

}  // namespace

FE_EXPORT fe_status fe_graph_create(const fe_graph_options *options, fe_graph **out_graph) {
    return guard("fe_graph_create", [&] {
        FE_REQUIRE(out_graph);
        const fe_graph_options defaults = FE_GRAPH_OPTIONS_INIT;
        fe_graph_options o = read_options(options, defaults);
        check_data_type(o.io_data_type, true);
        check_data_type(o.intermediate_data_type, true);
        check_data_type(o.compute_data_type, true);
        auto graph = std::make_unique<fe_graph>();
        if (o.name && *o.name) {
            require_utf8(o.name, "options.name");
            graph->name = o.name;
        }
        graph->io_data_type = o.io_data_type;
        graph->intermediate_data_type = o.intermediate_data_type;
        graph->compute_data_type = o.compute_data_type;
        *out_graph = graph.release();
    });
}

FE_EXPORT void fe_graph_destroy(fe_graph *graph) { delete graph; }

FE_PROPERTY(fe_graph_get_name, fe_graph, graph, const char *, out_name, graph->name.c_str())

FE_EXPORT fe_status fe_graph_tensor(fe_graph *graph, const char *name, size_t ndims, const int64_t *dims,
                                    const int64_t *strides, fe_data_type data_type, fe_tensor **out_tensor) {
    return guard("fe_graph_tensor", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(name);
        FE_REQUIRE(dims);
        FE_REQUIRE(out_tensor);
        std::vector<int64_t> d = copy_dims(ndims, dims, "dims");
        std::vector<int64_t> s = strides ? copy_dims(ndims, strides, "strides") : std::vector<int64_t>();
        *out_tensor = graph->add_input(name, d, s, data_type);
    });
}

FE_EXPORT fe_status fe_graph_tensor_like(fe_graph *graph, const fe_tensor *like, const char *name,
                                         fe_tensor **out_tensor) {
    return guard("fe_graph_tensor_like", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(like);
        FE_REQUIRE(name);
        FE_REQUIRE(out_tensor);
        FE_CHECK(!like->by_value, FE_STATUS_INVALID_ARGUMENT,
                 "'%s' is a scalar passed by value: make another with fe_graph_scalar", like->name.c_str());
        *out_tensor = graph->add_input(name, like->dims, like->strides, like->data_type);
    });
}

namespace {

// fe_graph_scalar and fe_graph_constant: a value passed by value, or a constant compiled into the plan.
fe_status add_scalar(const char *function, fe_graph *graph, const char *name, double value, fe_data_type data_type,
                     bool constant, fe_tensor **out_tensor) {
    return guard(function, [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(name);
        FE_REQUIRE(out_tensor);
        *out_tensor = graph->add_scalar(name, value, data_type, constant);
    });
}

}  // namespace

FE_EXPORT fe_status fe_graph_scalar(fe_graph *graph, const char *name, double value, fe_data_type data_type,
                                    fe_tensor **out_tensor) {
    return add_scalar("fe_graph_scalar", graph, name, value, data_type, false, out_tensor);
}

FE_EXPORT fe_status fe_graph_constant(fe_graph *graph, const char *name, double value, fe_data_type data_type,
                                      fe_tensor **out_tensor) {
    return add_scalar("fe_graph_constant", graph, name, value, data_type, true, out_tensor);
}

FE_EXPORT fe_status fe_graph_tensor_by_name(const fe_graph *graph, const char *name, fe_tensor **out_tensor) {
    return guard("fe_graph_tensor_by_name", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(name);
        FE_REQUIRE(out_tensor);
        auto it = graph->by_name.find(name);
        FE_CHECK(it != graph->by_name.end(), FE_STATUS_NOT_FOUND, "graph '%s' has no tensor named '%s'",
                 graph->name.c_str(), name);
        *out_tensor = it->second;
    });
}

FE_EXPORT fe_status fe_graph_tensor_by_uid(const fe_graph *graph, int64_t uid, fe_tensor **out_tensor) {
    return guard("fe_graph_tensor_by_uid", [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(out_tensor);
        auto set = graph->by_user_uid.find(uid);
        if (set != graph->by_user_uid.end()) {
            *out_tensor = set->second;
            return;
        }
        // The uids the build assigned are not indexed: a query, not a path of execution.
        for (const auto &t : graph->tensors) {
            if (t->has_uid && t->uid == uid) {
                *out_tensor = t.get();
                return;
            }
        }
        FE_FAIL(FE_STATUS_NOT_FOUND, "graph '%s' has no tensor with uid %lld%s", graph->name.c_str(),
                static_cast<long long>(uid), graph->stage == fe_graph::Stage::Editing ? " (uids are assigned by the build)" : "");
    });
}

FE_PROPERTY(fe_graph_input_count, fe_graph, graph, size_t, out_count, graph->inputs.size())

namespace {

// The index-th of a graph's inputs or outputs.
fe_status tensor_at(const char *call, const fe_graph *graph, bool outputs, size_t index, fe_tensor **out_tensor) {
    return guard(call, [&] {
        FE_REQUIRE(graph);
        FE_REQUIRE(out_tensor);
        const std::vector<fe_tensor *> &list = outputs ? graph->outputs : graph->inputs;
        FE_CHECK(index < list.size(), FE_STATUS_INVALID_ARGUMENT, "index %zu is past the %zu %s", index, list.size(),
                 outputs ? "outputs" : "inputs");
        *out_tensor = list[index];
    });
}

}  // namespace

FE_EXPORT fe_status fe_graph_input(const fe_graph *graph, size_t index, fe_tensor **out_tensor) {
    return tensor_at("fe_graph_input", graph, false, index, out_tensor);
}

FE_PROPERTY(fe_graph_output_count, fe_graph, graph, size_t, out_count, graph->outputs.size())

FE_EXPORT fe_status fe_graph_output(const fe_graph *graph, size_t index, fe_tensor **out_tensor) {
    return tensor_at("fe_graph_output", graph, true, index, out_tensor);
}

FE_EXPORT fe_status fe_strides_packed(size_t ndims, const int64_t *dims, int64_t *out_strides) {
    return guard("fe_strides_packed", [&] {
        FE_REQUIRE(dims);
        FE_REQUIRE(out_strides);
        std::vector<int64_t> d = copy_dims(ndims, dims, "dims");
        require_positive_dims(d);
        std::vector<int64_t> s = packed_strides(d);
        std::copy(s.begin(), s.end(), out_strides);
    });
}

FE_EXPORT fe_status fe_strides_channels_last(size_t ndims, const int64_t *dims, int64_t *out_strides) {
    return guard("fe_strides_channels_last", [&] {
        FE_REQUIRE(dims);
        FE_REQUIRE(out_strides);
        std::vector<int64_t> d = copy_dims(ndims, dims, "dims");
        FE_CHECK(ndims >= 3, FE_STATUS_INVALID_ARGUMENT, "channels-last needs [N, C, spatial...]; rank %zu given", ndims);
        require_positive_dims(d);
        std::vector<int64_t> s = channels_last_strides(d);
        std::copy(s.begin(), s.end(), out_strides);
    });
}

FE_EXPORT fe_status fe_tensor_set_name(fe_tensor *tensor, const char *name) {
    return guard("fe_tensor_set_name", [&] {
        FE_REQUIRE(tensor);
        FE_REQUIRE(name);
        tensor->graph->rename(tensor, name);
    });
}

FE_EXPORT fe_status fe_tensor_set_dims(fe_tensor *tensor, size_t ndims, const int64_t *dims) {
    return guard("fe_tensor_set_dims", [&] {
        FE_REQUIRE(tensor);
        FE_REQUIRE(dims);
        std::vector<int64_t> d = positive_per_dim(tensor, ndims, dims, "dim");
        // One value: its shape is not the caller's to choose (nor written in the graph JSON).
        FE_CHECK(!tensor->by_value || d == tensor->dims, FE_STATUS_INVALID_ARGUMENT,
                 "'%s' is a scalar passed by value: its dims stay %s", tensor->name.c_str(),
                 dims_string(tensor->dims).c_str());
        tensor->graph->require_editable();
        std::vector<int64_t> strides =
            d.size() != tensor->dims.size() && !tensor->user_strides ? packed_strides(d) : tensor->strides;
        // As fe_graph_tensor does: the tensor must stay addressable with the strides it keeps.
        if (strides.size() == d.size()) span_bytes(d, strides, FE_DATA_DOUBLE);
        tensor->strides = strides;
        tensor->dims = d;
        tensor->user_dims = true;
    });
}

FE_EXPORT fe_status fe_tensor_set_strides(fe_tensor *tensor, size_t ndims, const int64_t *strides) {
    return guard("fe_tensor_set_strides", [&] {
        FE_REQUIRE(tensor);
        FE_REQUIRE(strides);
        std::vector<int64_t> s = positive_per_dim(tensor, ndims, strides, "stride");
        FE_CHECK(ndims == tensor->dims.size(), FE_STATUS_INVALID_ARGUMENT, "'%s' has %zu dims; %zu strides given",
                 tensor->name.c_str(), tensor->dims.size(), ndims);
        FE_CHECK(!tensor->by_value || s == tensor->strides, FE_STATUS_INVALID_ARGUMENT,
                 "'%s' is a scalar passed by value: its strides stay %s", tensor->name.c_str(),
                 dims_string(tensor->strides).c_str());
        tensor->graph->require_editable();
        tensor->strides = s;
        tensor->user_strides = true;
    });
}

FE_EXPORT fe_status fe_tensor_set_data_type(fe_tensor *tensor, fe_data_type data_type) {
    return guard("fe_tensor_set_data_type", [&] {
        FE_REQUIRE(tensor);
        check_data_type(data_type, true);
        FE_CHECK(!tensor->by_value, FE_STATUS_INVALID_ARGUMENT, "'%s' is a scalar; its type is fixed at creation",
                 tensor->name.c_str());
        tensor->graph->require_editable();
        tensor->data_type = data_type;
        tensor->user_data_type = data_type != FE_DATA_NOT_SET;
    });
}

FE_SETTER(fe_tensor_set_uid, fe_tensor, tensor, int64_t, uid, tensor->graph->set_uid(tensor, uid))

FE_SETTER(fe_tensor_set_alignment, fe_tensor, tensor, int64_t, bytes, tensor->graph->set_alignment(tensor, bytes))

FE_EXPORT fe_status fe_tensor_set_vectorization(fe_tensor *tensor, int32_t count, int32_t dim) {
    return guard("fe_tensor_set_vectorization", [&] {
        FE_REQUIRE(tensor);
        tensor->graph->set_vectorization(tensor, count, dim);
    });
}

FE_SETTER(fe_tensor_set_ragged_offset, fe_tensor, tensor, fe_tensor *, offsets,
          tensor->graph->set_ragged_offset(tensor, offsets))

FE_SETTER(fe_tensor_set_output, fe_tensor, tensor, int32_t, is_output,
          tensor->graph->set_output(tensor, is_output != 0))

FE_PROPERTY(fe_tensor_get_name, fe_tensor, tensor, const char *, out_name, tensor->name.c_str())

FE_PROPERTY(fe_tensor_get_ndims, fe_tensor, tensor, size_t, out_ndims, tensor->dims.size())

FE_EXPORT fe_status fe_tensor_get_dims(const fe_tensor *tensor, int64_t *out_dims, size_t capacity) {
    return guard("fe_tensor_get_dims", [&] {
        FE_REQUIRE(tensor);
        FE_REQUIRE(out_dims);
        copy_values(tensor->dims, out_dims, capacity, tensor, "dims");
    });
}

FE_EXPORT fe_status fe_tensor_get_strides(const fe_tensor *tensor, int64_t *out_strides, size_t capacity) {
    return guard("fe_tensor_get_strides", [&] {
        FE_REQUIRE(tensor);
        FE_REQUIRE(out_strides);
        copy_values(tensor->strides, out_strides, capacity, tensor, "strides");
    });
}

FE_PROPERTY(fe_tensor_get_data_type, fe_tensor, tensor, fe_data_type, out_type, tensor->data_type)

FE_EXPORT fe_status fe_tensor_get_uid(const fe_tensor *tensor, int64_t *out_uid) {
    return guard("fe_tensor_get_uid", [&] {
        FE_REQUIRE(tensor);
        FE_REQUIRE(out_uid);
        FE_CHECK(tensor->has_uid, FE_STATUS_BAD_STATE,
                 "'%s' has no uid yet: set one with fe_tensor_set_uid or build the graph", tensor->name.c_str());
        *out_uid = tensor->uid;
    });
}

FE_PROPERTY(fe_tensor_is_output, fe_tensor, tensor, int32_t, out_flag, tensor->is_output ? 1 : 0)

FE_PROPERTY(fe_tensor_is_virtual, fe_tensor, tensor, int32_t, out_flag, tensor->is_virtual() ? 1 : 0)

FE_EXPORT fe_status fe_tensor_set_reordering(fe_tensor *tensor, fe_tensor_reordering reordering) {
    return guard("fe_tensor_set_reordering", [&] {
        FE_REQUIRE(tensor);
        tensor->graph->set_reordering(tensor, reordering);
    });
}

FE_PROPERTY(fe_tensor_get_reordering, fe_tensor, tensor, fe_tensor_reordering, out_reordering, tensor->reordering)

FE_PROPERTY(fe_tensor_get_vector_count, fe_tensor, tensor, int32_t, out_count, tensor->vector_count)

FE_PROPERTY(fe_tensor_get_vector_dim, fe_tensor, tensor, int32_t, out_dim, tensor->vector_dim)

FE_EXPORT fe_status fe_tensor_size_bytes(const fe_tensor *tensor, int64_t *out_bytes) {
    return guard("fe_tensor_size_bytes", [&] {
        FE_REQUIRE(tensor);
        FE_REQUIRE(out_bytes);
        FE_CHECK(tensor->data_type != FE_DATA_NOT_SET, FE_STATUS_BAD_STATE,
                 "'%s' has no data type yet (set one, or validate the graph first)", tensor->name.c_str());
        *out_bytes = tensor_bytes(*tensor);
    });
}
