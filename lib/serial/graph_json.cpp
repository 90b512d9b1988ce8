// The graph format of docs/graph-json.md: the canonical writer, and the reader that rebuilds a
// graph through the C API's own calls (tensors, then each op's entry point, then the tensor
// attributes and outputs), in the order the graph made them.
#include "serial/graph_json.hpp"

#include <unordered_map>
#include <unordered_set>

#include "common/error.hpp"
#include "graph/attribute_writer.hpp"
#include "serial/fields.hpp"
#include "common/json.hpp"
#include "serial/readers/reader.hpp"
#include "schema/schema.hpp"

namespace fe {

namespace {

const char kFormat[] = "cudnnfe.graph";
const int64_t kVersion = 1;


// ---- writing -------------------------------------------------------------------------------

void write_tensor(json::Writer &w, const fe_tensor &t) {
    w.begin_object().field("name", t.name);
    if (t.has_uid) w.field("uid", t.uid);
    if (t.by_value) {
        w.field("by_value", true).key("value").number(t.scalar_value);
        if (t.compile_time_constant) w.field("constant", true);
        w.field("data_type", data_type_name(t.data_type));
    } else {
        w.field("dims", t.dims).field("strides", t.strides).field("data_type", data_type_name(t.data_type));
        w.field("virtual", t.is_virtual()).field("output", t.is_output);
        if (t.ragged_offset) w.field("ragged_offset", t.ragged_offset->name);
        if (t.alignment != 16) w.field("alignment", t.alignment);
        // A result's vectorization follows its operation's inputs; an input's is the caller's.
        if (t.vector_count > 1 && t.is_input())
            w.field("vector_count", static_cast<int64_t>(t.vector_count))
                .field("vector_dim", static_cast<int64_t>(t.vector_dim));
        if (t.reordering == FE_TENSOR_REORDERING_INT8X32 && t.is_input()) w.field("reordering", "int8x32");
    }
    w.end_object();
}

// An op's attributes as members of the "attributes" object.
class JsonAttributes final : public AttributeWriter {
  public:
    explicit JsonAttributes(json::Writer &w) : w_(w) {}
    void integer(std::string_view name, int64_t value) override { w_.key(name).integer(value); }
    void number(std::string_view name, double value) override { w_.key(name).number(value); }
    void boolean(std::string_view name, bool value) override { w_.key(name).boolean(value); }
    void text(std::string_view name, std::string_view value) override { w_.key(name).string(value); }
    void integers(std::string_view name, const int64_t *values, size_t count) override {
        w_.key(name).integers(values, count);
    }

  private:
    json::Writer &w_;
};

void write_op(json::Writer &w, const Node &node) {
    w.begin_object().field("op", node.kind()).field("name", node.name);
    w.field("compute_data_type", data_type_name(node.compute_data_type));
    w.key("inputs").begin_object();
    for (size_t i = 0; i < node.inputs.size(); ++i)
        if (node.inputs[i]) w.field(node.json_input(i), node.inputs[i]->name);
    w.end_object();
    w.key("outputs").begin_object();
    for (size_t i = 0; i < node.outputs.size(); ++i)
        w.field(i < node.output_ports.size() ? node.output_ports[i] : std::string("OUT"), node.outputs[i]->name);
    w.end_object();
    w.key("attributes").begin_object();
    JsonAttributes attributes(w);
    node.write_attributes(attributes);
    w.end_object();
    w.end_object();
}

}  // namespace

bool data_type_from_name(std::string_view name, fe_data_type *out) {
    for (const schema::EnumValue &v : schema::data_types().values) {
        if (name == v.json_name) {
            *out = static_cast<fe_data_type>(v.value);
            return true;
        }
    }
    return false;
}

void write_graph_json(const fe_graph &graph, std::string &out, const std::function<void(std::string &)> &drain,
                      bool with_target) {
    json::Writer w(out);
    w.begin_object().field("format", kFormat).field("version", kVersion).field("name", graph.name);
    w.field("io_data_type", data_type_name(graph.io_data_type));
    w.field("intermediate_data_type", data_type_name(graph.intermediate_data_type));
    w.field("compute_data_type", data_type_name(graph.compute_data_type));
    if (with_target && !graph.device_properties_json.empty())
        w.newline(0).field("device_properties", graph.device_properties_json);
    // The tensors and the ops, one a line, the text handed to `drain` after each.
    auto list = [&](const char *key, const auto &items, auto write_item) {
        w.newline(0).key(key).begin_array();
        for (const auto &item : items) {
            w.newline(1);
            write_item(w, *item);
            if (drain) drain(out);
        }
        w.end_array();
    };
    list("tensors", graph.tensors, write_tensor);
    list("ops", graph.nodes, write_op);
    w.newline(0).key("outputs").begin_array();
    for (const fe_tensor *t : graph.outputs) w.string(t->name);
    w.end_array();
    w.end_object();
    out += '\n';
}

Sha256 graph_json_digest(const fe_graph &graph) {
    Sha256 digest;
    std::string piece;
    write_graph_json(
        graph, piece,
        [&](std::string &text) {
            digest.update(text.data(), text.size());
            text.clear();
        },
        false);
    digest.update(piece.data(), piece.size());
    return digest;
}

std::string graph_to_json(const fe_graph &graph) {
    std::string out;
    out.reserve(1024 + 256 * (graph.tensors.size() + graph.nodes.size()) + graph.device_properties_json.size());
    write_graph_json(graph, out);
    return out;
}

// ---- reading -------------------------------------------------------------------------------

namespace {

std::string indexed(const char *array, size_t i) { return format("%s[%zu]", array, i); }

// One entry of "tensors", kept until its tensor exists.
struct TensorEntry {
    const json::Value *value;
    std::string path;
    std::string name;
    int producer = -1;  // index in "ops" of the op whose "outputs" name it
};

class GraphReader {
  public:
    explicit GraphReader(const json::Value &root) : root_(root), top_(root, "", "a graph object") {}

    std::unique_ptr<fe_graph> read() {
        graph_ = std::make_unique<fe_graph>();
        read_header();
        const json::Value *tensors = top_.get("tensors");
        const json::Value *ops = top_.get("ops");
        const json::Value *outputs = top_.get("outputs");
        top_.refuse_unread(
            "format, version, name, io_data_type, intermediate_data_type, compute_data_type, device_properties, "
            "tensors, ops, outputs");
        collect_ops(ops);
        collect_tensors(tensors);
        // Creation order: each input where the graph declared it, each op when its first result
        // comes up (or at the end), so the graph's tensor order (and its automatic uids) match.
        for (size_t i = 0; i < entries_.size(); ++i) {
            TensorEntry &e = entries_[i];
            if (e.producer >= 0) {
                while (next_op_ <= static_cast<size_t>(e.producer)) make_op_and_shape_results(next_op_++);
            } else {
                make_input(e);
            }
        }
        while (next_op_ < ops_.size()) make_op_and_shape_results(next_op_++);
        for (TensorEntry &e : entries_)
            if (e.producer >= 0) apply_result_attributes(e);
        for (TensorEntry &e : entries_) apply_ragged_offset(e);
        mark_outputs(outputs);
        // Every graph lists its tensors (an empty graph as "tensors": []): an object without them is
        // not a graph, even with the right "format".
        if (!tensors) top_.fail("tensors", "missing (required): a graph lists its tensors, [] for none");
        return std::move(graph_);
    }

  private:
    void read_header() {
        const json::Value *format_value = top_.get("format");
        if (format_value && (format_value->type() != json::Type::String || format_value->string() != kFormat))
            top_.fail_at(*format_value, "format", format("expected \"%s\"", kFormat));
        int64_t version = top_.integer("version", kVersion);
        if (version != kVersion)
            json_fail(top_.value().find("version")->line(), "version",
                      format("format version %lld is not one this cudnnfe reads (it reads %lld)",
                             static_cast<long long>(version), static_cast<long long>(kVersion)),
                      version > kVersion ? FE_STATUS_NOT_SUPPORTED : FE_STATUS_INVALID_ARGUMENT);
        std::string name = top_.string("name", "graph");
        if (!name.empty()) graph_->name = name;
        graph_->io_data_type = top_.data_type("io_data_type", FE_DATA_NOT_SET);
        graph_->intermediate_data_type = top_.data_type("intermediate_data_type", FE_DATA_FLOAT);
        graph_->compute_data_type = top_.data_type("compute_data_type", FE_DATA_FLOAT);
        std::string device = top_.string("device_properties", "");
        if (!device.empty() && device[0] != '{')
            top_.fail("device_properties", "expected cuDNN's device JSON (an object, as text)");
        graph_->device_properties_json = device;
    }

    static void expect_array(const json::Value *v, const char *key) {
        if (v && v->type() != json::Type::Array)
            json_fail(v->line(), key, format("expected an array, found %s", json::type_name(v->type())));
    }

    void collect_ops(const json::Value *ops) {
        expect_array(ops, "ops");
        if (!ops) return;
        size_t next = 0;
        for (const json::Value &op : ops->array()) {
            const size_t i = next++;
            std::string path = indexed("ops", i);
            if (op.type() != json::Type::Object)
                json_fail(op.line(), path, format("expected an op object, found %s", json::type_name(op.type())));
            ops_.push_back(&op);
            const json::Value *outs = op.find("outputs");
            if (!outs || outs->type() != json::Type::Object) continue;  // checked when the op is made
            for (const auto &member : outs->object()) {
                if (member.second.type() != json::Type::String) continue;
                auto inserted = produced_by_.emplace(std::string(member.second.string()), static_cast<int>(i));
                if (!inserted.second)
                    json_fail(member.second.line(), path + ".outputs." + std::string(member.first),
                              format("'%s' is already a result of ops[%d]", std::string(member.second.string()).c_str(),
                                     inserted.first->second));
            }
        }
    }

    void collect_tensors(const json::Value *tensors) {
        expect_array(tensors, "tensors");
        if (!tensors) return;
        std::unordered_map<std::string, size_t> seen;
        size_t next = 0;
        for (const json::Value &t : tensors->array()) {
            const size_t i = next++;
            TensorEntry e;
            e.value = &t;
            e.path = indexed("tensors", i);
            Fields f(t, e.path, "a tensor object");
            e.name = f.required_string("name");
            if (e.name.empty()) f.fail("name", "a tensor name must not be empty");
            if (!seen.emplace(e.name, i).second)
                f.fail("name", format("tensors[%zu] already has the name '%s'", seen[e.name], e.name.c_str()));
            auto producer = produced_by_.find(e.name);
            e.producer = producer == produced_by_.end() ? -1 : producer->second;
            entry_of_.emplace(e.name, entries_.size());
            entries_.push_back(std::move(e));
        }
    }

    void make_input(TensorEntry &e) {
        Fields f(*e.value, e.path, "a tensor object");
        f.get("name");
        bool by_value = f.boolean("by_value", false);
        fe_tensor *t = nullptr;
        if (by_value) {
            const json::Value &value = f.require("value");
            double number = 0;
            if (!number_of(value, &number)) f.fail_at(value, "value", "expected a number (or \"inf\", \"-inf\", \"nan\")");
            if (!f.has("data_type")) f.fail("data_type", "missing (a scalar passed by value needs its type)");
            fe_data_type type = f.data_type("data_type", FE_DATA_NOT_SET);
            bool constant = f.boolean("constant", false);
            t = call_tensor(f, "value", [&] { return graph_->add_scalar(e.name, number, type, constant); });
            if (const json::Value *uid = f.get("uid")) set_uid(f, t, *uid, true);
            f.refuse_unread("name, uid, by_value, value, data_type, constant");
            return;
        }
        std::vector<int64_t> dims, strides;
        if (!f.integers("dims", &dims, FE_MAX_DIMS)) f.fail("dims", "missing (a graph input needs its dims)");
        bool has_strides = f.integers("strides", &strides, FE_MAX_DIMS);
        if (has_strides && strides.size() != dims.size())
            f.fail("strides", format("%zu strides for %zu dims", strides.size(), dims.size()));
        fe_data_type type = f.data_type("data_type", FE_DATA_NOT_SET);
        t = call_tensor(f, "dims", [&] { return graph_->add_input(e.name, dims, strides, type); });
        if (f.boolean("virtual", false)) f.fail("virtual", "a graph input is never virtual");
        if (f.boolean("output", false)) f.fail("output", "a graph input cannot be an output (only op results)");
        if (const json::Value *uid = f.get("uid")) set_uid(f, t, *uid);
        f.get("ragged_offset");  // applied once every tensor exists
        read_alignment(f, t);
        read_vectorization(f, t);
        f.refuse_unread(
            "name, uid, dims, strides, data_type, virtual, output, ragged_offset, alignment, vector_count, vector_dim, "
            "reordering, by_value");
    }

    void read_vectorization(Fields &f, fe_tensor *t) {
        const json::Value *count = f.get("vector_count"), *dim = f.get("vector_dim");
        if (!count && !dim) return;
        if (!count || !count->is_integer()) f.fail("vector_count", "expected an integer (values a vector holds)");
        if (!dim || !dim->is_integer()) f.fail("vector_dim", "expected an integer (the dim vectorized)");
        const int64_t c = count->integer(), d = dim->integer();
        if (c < 1 || c > 32 || d < 0 || d > FE_MAX_DIMS) f.fail_at(*count, "vector_count", "outside what cuDNN takes");
        call_tensor(f, "vector_count", [&] {
            graph_->set_vectorization(t, static_cast<int32_t>(c), static_cast<int32_t>(d));
            return t;
        });
        const json::Value *order = f.get("reordering");
        if (!order) return;
        if (order->type() != json::Type::String || order->string() != "int8x32")
            f.fail_at(*order, "reordering", "expected \"int8x32\" (absent: none)");
        call_tensor(f, "reordering", [&] {
            graph_->set_reordering(t, FE_TENSOR_REORDERING_INT8X32);
            return t;
        });
    }

    void read_alignment(Fields &f, fe_tensor *t) {
        const json::Value *v = f.get("alignment");
        if (!v) return;
        if (!v->is_integer()) f.fail_at(*v, "alignment", "expected an integer (bytes)");
        call_tensor(f, "alignment", [&] {
            graph_->set_alignment(t, v->integer());
            return t;
        });
    }

    template <typename Make>
    fe_tensor *call_tensor(Fields &f, const char *key, Make make) {
        try {
            return make();
        } catch (const Error &error) {
            json_fail(f.value().find(key) ? f.value().find(key)->line() : f.value().line(), f.path(), error.what(),
                      error.status());
        }
    }

    int64_t uid_of(Fields &f, const json::Value &uid) {
        if (uid.type() != json::Type::Number || !uid.is_integer()) f.fail_at(uid, "uid", "expected an integer");
        return uid.integer();
    }

    // Scalars are never bound, so the API gives them no uid; a built graph numbered them all,
    // and the record of its plan names them by that number.
    void set_uid(Fields &f, fe_tensor *t, const json::Value &uid, bool scalar = false) {
        int64_t value = uid_of(f, uid);
        try {
            if (scalar)
                graph_->set_scalar_uid(t, value);
            else
                graph_->set_uid(t, value);
        } catch (const Error &error) {
            f.fail_at(uid, "uid", error.what());
        }
    }

    void make_op(size_t index) {
        const json::Value &op = *ops_[index];
        std::string path = indexed("ops", index);
        Fields f(op, path, "an op object");
        std::string kind = f.required_string("op");
        OpReadFunction read = find_op_reader(kind);
        if (!read) f.fail("op", format("unknown operation '%s'", kind.c_str()));
        std::string name = f.string("name", "");
        if (f.has("name") && name.empty()) f.fail("name", "an op name must not be empty (leave it out for an automatic one)");
        fe_data_type compute = f.data_type("compute_data_type", FE_DATA_NOT_SET);
        f.get("inputs");
        f.get("attributes");
        const json::Value *outputs = f.get("outputs");
        f.refuse_unread("op, name, compute_data_type, inputs, outputs, attributes");

        OpReader reader(graph_.get(), op, path, kind, name, compute);
        reader.explain_missing = [this, index](const std::string &missing) -> std::string {
            auto produced = produced_by_.find(missing);
            if (produced != produced_by_.end())
                return format("'%s' is named as a result of ops[%d], which cannot feed ops[%zu]", missing.c_str(),
                              produced->second, index);
            auto entry = entry_of_.find(missing);
            if (entry != entry_of_.end())
                return format("'%s' is declared in tensors[%zu], after a result of this op; list tensors in the order "
                              "they were made",
                              missing.c_str(), entry->second);
            return "";
        };
        size_t before = graph_->nodes.size();
        read(reader);
        if (graph_->nodes.size() != before + 1)
            json_fail(op.line(), path, "the reader did not add exactly one operation", FE_STATUS_INTERNAL);
        reader.refuse_unread();
        rename_outputs(*graph_->nodes.back(), outputs, path);
    }

    void rename_outputs(fe::Node &node, const json::Value *outputs, const std::string &path) {
        if (!outputs) return;
        Fields f(*outputs, path + ".outputs");
        std::string ports;
        for (const std::string &p : node.output_ports) ports += (ports.empty() ? "" : ", ") + p;
        for (size_t i = 0; i < node.outputs.size(); ++i) {
            const char *port = node.output_ports[i].c_str();
            const json::Value *v = f.get(port);
            if (!v) continue;
            if (v->type() != json::Type::String)
                f.fail_at(*v, port, format("expected a tensor name, found %s", json::type_name(v->type())));
            f.require_text(*v, port);
            try {
                graph_->rename(node.outputs[i], std::string(v->string()));
            } catch (const Error &error) {
                json_fail(v->line(), f.path_of(port), error.what(), error.status());
            }
        }
        f.refuse_unread(format("%s '%s' has %s", node.kind(), node.name.c_str(), ports.c_str()).c_str());
    }

    // An op, then its results' dims, strides and types from their entries, before a later op
    // reads them (an op checks its inputs' types and infers from their layouts as it is made).
    void make_op_and_shape_results(size_t index) {
        if (results_of_op_.empty()) {
            results_of_op_.resize(ops_.size());
            for (size_t i = 0; i < entries_.size(); ++i)
                if (entries_[i].producer >= 0) results_of_op_[static_cast<size_t>(entries_[i].producer)].push_back(i);
        }
        make_op(index);
        for (size_t i : results_of_op_[index]) apply_result_shape(entries_[i]);
    }

    // An op result's dims, strides and type: what the op inferred stays unless the entry says
    // otherwise.
    void apply_result_shape(TensorEntry &e) {
        fe_tensor *t = graph_->by_name.at(e.name);
        Fields f(*e.value, e.path, "a tensor object");
        std::vector<int64_t> dims, strides;
        bool reinfer = false;
        if (f.integers("dims", &dims, FE_MAX_DIMS) && dims != t->dims) {
            for (size_t i = 0; i < dims.size(); ++i)
                if (dims[i] <= 0) f.fail("dims", format("dim %zu is %lld; dims must be positive", i, static_cast<long long>(dims[i])));
            if (dims.size() != t->dims.size() && !t->user_strides) t->strides = packed_strides(dims);
            t->dims = dims;
            t->user_dims = true;
            reinfer = true;
        }
        if (f.integers("strides", &strides, FE_MAX_DIMS) && strides != t->strides) {
            if (strides.size() != t->dims.size())
                f.fail("strides", format("%zu strides for %zu dims", strides.size(), t->dims.size()));
            for (size_t i = 0; i < strides.size(); ++i)
                if (strides[i] <= 0)
                    f.fail("strides", format("stride %zu is %lld; strides must be positive", i, static_cast<long long>(strides[i])));
            t->strides = strides;
            t->user_strides = true;
            reinfer = true;
        }
        if (f.has("data_type")) {
            fe_data_type type = f.data_type("data_type", FE_DATA_NOT_SET);
            if (type != t->data_type) {
                t->data_type = type;
                t->user_data_type = type != FE_DATA_NOT_SET;
            }
        }
        if (reinfer) {
            try {
                t->producer->infer();
            } catch (const Error &error) {
                json_fail(f.value().find("dims") ? f.value().find("dims")->line() : f.value().line(), e.path,
                          format("%s '%s': %s", t->producer->kind(), t->producer->name.c_str(), error.what()),
                          error.status());
            }
        }
    }

    // The rest of an op result's entry, once every op is made.
    void apply_result_attributes(TensorEntry &e) {
        fe_tensor *t = graph_->by_name.at(e.name);
        Fields f(*e.value, e.path, "a tensor object");
        f.get("name");
        f.get("dims");
        f.get("strides");
        f.get("data_type");
        if (f.boolean("by_value", false)) f.fail("by_value", "an op result is not a scalar passed by value");
        if (const json::Value *uid = f.get("uid")) set_uid(f, t, *uid);
        bool listed = is_listed_output(e.name);
        if (const json::Value *flag = f.get("output")) {
            if (flag->type() != json::Type::Bool) f.fail_at(*flag, "output", "expected true or false");
            if (flag->boolean() != listed)
                f.fail_at(*flag, "output",
                          listed ? "false, but \"outputs\" lists the tensor" : "true, but \"outputs\" does not list the tensor");
        }
        if (const json::Value *flag = f.get("virtual")) {
            if (flag->type() != json::Type::Bool) f.fail_at(*flag, "virtual", "expected true or false");
            if (flag->boolean() == listed)
                f.fail_at(*flag, "virtual",
                          listed ? "true, but \"outputs\" lists the tensor" : "false, but the tensor is neither an input nor listed in \"outputs\"");
        }
        f.get("ragged_offset");
        read_alignment(f, t);
        f.refuse_unread("name, uid, dims, strides, data_type, virtual, output, ragged_offset, alignment");
    }

    void apply_ragged_offset(TensorEntry &e) {
        const json::Value *v = e.value->find("ragged_offset");
        if (!v) return;
        Fields f(*e.value, e.path, "a tensor object");
        if (v->type() != json::Type::String) f.fail_at(*v, "ragged_offset", "expected a tensor name");
        auto it = graph_->by_name.find(std::string(v->string()));
        if (it == graph_->by_name.end())
            f.fail_at(*v, "ragged_offset", format("no tensor named '%s'", std::string(v->string()).c_str()));
        try {
            graph_->set_ragged_offset(graph_->by_name.at(e.name), it->second);
        } catch (const Error &error) {
            json_fail(v->line(), f.path_of("ragged_offset"), error.what(), error.status());
        }
    }

    bool is_listed_output(const std::string &name) {
        if (!listed_outputs_read_) {
            const json::Value *outputs = root_.find("outputs");
            if (outputs && outputs->type() == json::Type::Array)
                for (const json::Value &o : outputs->array())
                    if (o.type() == json::Type::String) listed_outputs_.insert(std::string(o.string()));
            listed_outputs_read_ = true;
        }
        return listed_outputs_.count(name) != 0;
    }

    void mark_outputs(const json::Value *outputs) {
        expect_array(outputs, "outputs");
        if (!outputs) return;
        size_t next = 0;
        for (const json::Value &o : outputs->array()) {
            std::string path = indexed("outputs", next++);
            if (o.type() != json::Type::String)
                json_fail(o.line(), path, format("expected a tensor name, found %s", json::type_name(o.type())));
            auto it = graph_->by_name.find(std::string(o.string()));
            if (it == graph_->by_name.end()) json_fail(o.line(), path, format("no tensor named '%s'", std::string(o.string()).c_str()));
            if (it->second->is_output) json_fail(o.line(), path, format("'%s' is listed twice", std::string(o.string()).c_str()));
            try {
                graph_->set_output(it->second, true);
            } catch (const Error &error) {
                json_fail(o.line(), path, error.what(), error.status());
            }
        }
    }

    const json::Value &root_;
    Fields top_;
    std::unique_ptr<fe_graph> graph_;
    std::vector<const json::Value *> ops_;
    std::unordered_map<std::string, int> produced_by_;
    std::vector<TensorEntry> entries_;
    std::unordered_map<std::string, size_t> entry_of_;
    // "outputs" as a set: looked up once per op result.
    std::unordered_set<std::string> listed_outputs_;
    bool listed_outputs_read_ = false;
    size_t next_op_ = 0;
    std::vector<std::vector<size_t>> results_of_op_;  // indices in entries_, per op
};

}  // namespace

void check_graph_json_size(size_t bytes) {
    FE_CHECK(bytes <= FE_GRAPH_JSON_MAX_BYTES, FE_STATUS_INVALID_ARGUMENT,
             "the graph JSON is %zu bytes; a graph may take at most %zu bytes (%zu MiB)", bytes,
             static_cast<size_t>(FE_GRAPH_JSON_MAX_BYTES), static_cast<size_t>(FE_GRAPH_JSON_MAX_BYTES) >> 20);
}

std::unique_ptr<fe_graph> graph_from_json(std::string_view text) {
    // Refused before parsing: the parsed values take up to 8 times the text's size.
    check_graph_json_size(text.size());
    json::Document document = json::parse(text);
    return GraphReader(document.root()).read();
}

}  // namespace fe
