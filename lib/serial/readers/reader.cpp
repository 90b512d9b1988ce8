#include "serial/readers/reader.hpp"

#include <climits>

#include "common/error.hpp"
#include "schema/schema.hpp"
#include "common/json.hpp"

namespace fe {

namespace {

const json::Value &member_or_empty(const json::Value &op, const char *key) {
    const json::Value *v = op.find(key);
    return v ? *v : json::empty_object();
}

std::string joined(const std::vector<std::string> &names) {
    std::string out;
    for (const std::string &n : names) out += (out.empty() ? "" : ", ") + n;
    return out.empty() ? "none" : out;
}

}  // namespace

OpReader::OpReader(fe_graph *graph, const json::Value &op, const std::string &path, std::string kind,
                   std::string name, fe_data_type compute)
    : graph_(graph),
      op_(op),
      path_(path),
      kind_(std::move(kind)),
      name_(std::move(name)),
      compute_(compute),
      inputs_(member_or_empty(op, "inputs"), path + ".inputs"),
      attributes_(member_or_empty(op, "attributes"), path + ".attributes") {}

void OpReader::no_compute_data_type() const {
    if (compute_ == FE_DATA_NOT_SET) return;
    const json::Value *v = op_.find("compute_data_type");
    json_fail(v ? v->line() : op_.line(), path_ + ".compute_data_type",
              format("%s takes no compute data type (only \"not_set\")", kind_.c_str()));
}

void OpReader::note(std::vector<std::string> &known, const char *key) {
    for (const std::string &k : known)
        if (k == key) return;
    known.emplace_back(key);
}

fe_tensor *OpReader::lookup(const char *port, bool required) {
    note(known_inputs_, port);
    const json::Value *v = inputs_.get(port);
    if (!v || v->type() == json::Type::Null) {
        if (required) json_fail(v ? v->line() : op_.line(), inputs_.path_of(port), format("missing (%s needs it)", kind_.c_str()));
        return nullptr;
    }
    if (v->type() != json::Type::String)
        inputs_.fail_at(*v, port, format("expected a tensor name, found %s", json::type_name(v->type())));
    auto it = graph_->by_name.find(std::string(v->string()));
    if (it == graph_->by_name.end()) {
        std::string why = explain_missing ? explain_missing(std::string(v->string())) : std::string();
        inputs_.fail_at(*v, port, why.empty() ? format("no tensor named '%s'", std::string(v->string()).c_str()) : why);
    }
    return it->second;
}

fe_tensor *OpReader::input(const char *port) { return lookup(port, true); }
fe_tensor *OpReader::optional_input(const char *port) { return lookup(port, false); }

int64_t OpReader::integer(const char *key, int64_t fallback) {
    note(known_attributes_, key);
    return attributes_.integer(key, fallback);
}

int32_t OpReader::int32(const char *key, int32_t fallback) {
    int64_t v = integer(key, fallback);
    if (v < INT32_MIN || v > INT32_MAX) attributes_.fail(key, "expected a 32-bit integer");
    return static_cast<int32_t>(v);
}

double OpReader::number(const char *key, double fallback) {
    note(known_attributes_, key);
    return attributes_.number(key, fallback);
}

bool OpReader::flag(const char *key, bool fallback) {
    note(known_attributes_, key);
    return attributes_.boolean(key, fallback);
}

bool OpReader::integers(const char *key, std::vector<int64_t> *out, size_t max_count) {
    note(known_attributes_, key);
    return attributes_.integers(key, out, max_count);
}

fe_data_type OpReader::data_type(const char *key, fe_data_type fallback) {
    note(known_attributes_, key);
    return attributes_.data_type(key, fallback);
}

int OpReader::choice(const char *key, const char *const *names, const int *values, size_t count, int fallback) {
    note(known_attributes_, key);
    const json::Value *v = attributes_.get(key);
    if (!v) return fallback;
    if (v->type() == json::Type::String)
        for (size_t i = 0; i < count; ++i)
            if (v->string() == names[i]) return values[i];
    std::string options;
    for (size_t i = 0; i < count; ++i) options += (i ? ", " : "") + std::string(names[i]);
    attributes_.fail_at(*v, key, format("expected one of %s", options.c_str()));
}

void OpReader::fail(const char *key, const std::string &cause) const { attributes_.fail(key, cause); }

void OpReader::rethrow(const Error &e) const {
    // The entry point's name first, as a caller of the C API would read it.
    const schema::Op *op = schema::find_op(kind_);
    throw Error(e.status(), format("line %d, %s: %s: %s", op_.line(), path_.c_str(), op ? op->entry_point : kind_.c_str(),
                                   e.what()));
}

void OpReader::refuse_unread() const {
    inputs_.refuse_unread(joined(known_inputs_).c_str());
    attributes_.refuse_unread(joined(known_attributes_).c_str());
}

}  // namespace fe
