#include "serial/fields.hpp"

#include <cmath>
#include <limits>

#include "common/error.hpp"
#include "serial/graph_json.hpp"

namespace fe {

void json_fail(int line, const std::string &path, const std::string &cause, fe_status status) {
    throw Error(status, format("line %d, %s: %s", line, path.c_str(), cause.c_str()));
}

Fields::Fields(const json::Value &value, std::string path, const char *what)
    : value_(value), path_(std::move(path)) {
    if (value.type() != json::Type::Object)
        json_fail(value.line(), path_.empty() ? "the document" : path_,
                  format("expected %s, found %s", what, json::type_name(value.type())));
    read_.assign(value.object().size(), false);
}

const json::Value *Fields::get(const char *key) {
    size_t i = 0;
    for (const json::Member member : value_.object()) {
        if (member.first == key) {
            read_[i] = true;
            return &member.second;
        }
        ++i;
    }
    return nullptr;
}

const json::Value &Fields::require(const char *key) {
    const json::Value *v = get(key);
    if (!v) json_fail(value_.line(), path_of(key), "missing (required)");
    return *v;
}

void Fields::fail(const char *key, const std::string &cause) const {
    const json::Value *v = value_.find(key);
    json_fail(v ? v->line() : value_.line(), path_of(key), cause);
}

void Fields::fail_at(const json::Value &at, const char *key, const std::string &cause) const {
    json_fail(at.line(), path_of(key), cause);
}

void Fields::require_text(const json::Value &v, const char *key) const {
    // Through the C API a name ends at its first NUL: "x\u0000" would pass for "x".
    if (v.string().find('\0') != std::string::npos) fail_at(v, key, "a string must not hold a NUL character (\\u0000)");
}

std::string Fields::string(const char *key, const std::string &fallback) {
    const json::Value *v = get(key);
    if (!v) return fallback;
    if (v->type() != json::Type::String) fail_at(*v, key, format("expected a string, found %s", json::type_name(v->type())));
    require_text(*v, key);
    return std::string(v->string());
}

std::string Fields::required_string(const char *key) {
    const json::Value &v = require(key);
    if (v.type() != json::Type::String) fail_at(v, key, format("expected a string, found %s", json::type_name(v.type())));
    require_text(v, key);
    return std::string(v.string());
}

int64_t Fields::integer(const char *key, int64_t fallback) {
    const json::Value *v = get(key);
    if (!v) return fallback;
    if (v->type() != json::Type::Number || !v->is_integer())
        fail_at(*v, key, v->type() == json::Type::Number ? "expected an integer, found a fraction or an out-of-range number"
                                                       : format("expected an integer, found %s", json::type_name(v->type())));
    return v->integer();
}

bool number_of(const json::Value &v, double *out) {
    if (v.type() == json::Type::Number) {
        *out = v.number();
        return true;
    }
    if (v.type() != json::Type::String) return false;
    if (v.string() == "inf") *out = std::numeric_limits<double>::infinity();
    else if (v.string() == "-inf") *out = -std::numeric_limits<double>::infinity();
    else if (v.string() == "nan") *out = std::numeric_limits<double>::quiet_NaN();
    else return false;
    return true;
}

double Fields::number(const char *key, double fallback) {
    const json::Value *v = get(key);
    if (!v) return fallback;
    double out = 0;
    if (!number_of(*v, &out))
        fail_at(*v, key, format("expected a number (or \"inf\", \"-inf\", \"nan\"), found %s",
                                v->type() == json::Type::String ? ("\"" + std::string(v->string().substr(0, 20)) + "\"").c_str()
                                                              : json::type_name(v->type())));
    return out;
}

bool Fields::boolean(const char *key, bool fallback) {
    const json::Value *v = get(key);
    if (!v) return fallback;
    if (v->type() != json::Type::Bool) fail_at(*v, key, format("expected true or false, found %s", json::type_name(v->type())));
    return v->boolean();
}

fe_data_type Fields::data_type(const char *key, fe_data_type fallback) {
    const json::Value *v = get(key);
    if (!v) return fallback;
    fe_data_type t = FE_DATA_NOT_SET;
    if (v->type() != json::Type::String || !data_type_from_name(v->string(), &t))
        fail_at(*v, key,
                "expected a data type name (not_set, float, double, half, bfloat16, int8, uint8, int32, int64, boolean, "
                "fp8_e4m3, fp8_e5m2, fp8_e8m0)");
    return t;
}

bool Fields::integers(const char *key, std::vector<int64_t> *out, size_t max_count) {
    const json::Value *v = get(key);
    if (!v) return false;
    bool ok = v->type() == json::Type::Array;
    if (ok)
        for (const json::Value &e : v->array()) ok = ok && e.type() == json::Type::Number && e.is_integer();
    if (!ok) fail_at(*v, key, "expected an array of integers");
    if (v->array().empty() || v->array().size() > max_count)
        fail_at(*v, key, format("expected 1 to %zu integers, found %zu", max_count, v->array().size()));
    out->clear();
    for (const json::Value &e : v->array()) out->push_back(e.integer());
    return true;
}

void Fields::refuse_unread(const char *known) const {
    size_t i = 0;
    for (const json::Member member : value_.object()) {
        if (read_[i++]) continue;
        std::string key = member.first.size() > 40 ? std::string(member.first.substr(0, 40)) + "..." : std::string(member.first);
        for (char &c : key)
            if (static_cast<unsigned char>(c) < 0x20) c = '?';
        json_fail(member.second.line(), path_.empty() ? key : path_ + "." + key,
                  known && *known ? format("unknown field (known: %s)", known) : "unknown field");
    }
}

}  // namespace fe
