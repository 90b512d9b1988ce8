// The op schema's registry, field access and JSON dump (schema.hpp).
#include "schema/schema.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>

#include "common/error.hpp"
#include "common/json.hpp"

namespace fe::schema {

const char *type_name(Type type) {
    switch (type) {
        case Type::name: return "name";
        case Type::flag: return "flag";
        case Type::integer: return "integer";
        case Type::number: return "number";
        case Type::data_type: return "data_type";
        case Type::enumeration: return "enum";
        case Type::axes: return "axes";
        case Type::spatial_count: return "spatial_count";
        case Type::spatial_array: return "spatial_array";
        case Type::dims_count: return "dims_count";
        case Type::dims_array: return "dims_array";
        case Type::tensor: return "tensor";
        case Type::tensor_count: return "tensor_count";
        case Type::tensor_array: return "tensor_array";
        case Type::enum_list: return "enum_list";
        case Type::list_count: return "list_count";
        case Type::flags: return "flags";
        case Type::name_list: return "name_list";
        case Type::kernel_cache: return "kernel_cache";
    }
    return "invalid";
}

const char *Enum::json_name(int32_t value) const {
    for (const EnumValue &v : values)
        if (v.value == value) return v.json_name;
    return nullptr;
}

bool Enum::value_of(const std::string &name, int32_t *out) const {
    for (const EnumValue &v : values)
        if (name == v.json_name) {
            *out = v.value;
            return true;
        }
    return false;
}

namespace {

const unsigned char *at(const void *options, size_t offset) { return static_cast<const unsigned char *>(options) + offset; }
unsigned char *at(void *options, size_t offset) { return static_cast<unsigned char *>(options) + offset; }

}  // namespace

int64_t Field::integer_of(const void *options) const {
    switch (size) {
        case 4: {
            int32_t v;
            std::memcpy(&v, at(options, offset), 4);
            // uint32_t masks are never negative: read them unsigned.
            return type == Type::axes ? static_cast<int64_t>(static_cast<uint32_t>(v)) : v;
        }
        case 8: {
            int64_t v;
            std::memcpy(&v, at(options, offset), 8);
            return v;
        }
    }
    return 0;
}

void Field::set_integer(void *options, int64_t value) const {
    if (size == 4) {
        int32_t v = static_cast<int32_t>(value);
        std::memcpy(at(options, offset), &v, 4);
    } else if (size == 8) {
        std::memcpy(at(options, offset), &value, 8);
    }
}

double Field::number_of(const void *options) const {
    double v;
    std::memcpy(&v, at(options, offset), sizeof v);
    return v;
}

void Field::set_number(void *options, double value) const { std::memcpy(at(options, offset), &value, sizeof value); }

const int64_t *Field::array_of(const void *options) const {
    return reinterpret_cast<const int64_t *>(at(options, offset));
}

int64_t *Field::array_of(void *options) const { return reinterpret_cast<int64_t *>(at(options, offset)); }

namespace {

bool has_range(const Field &f) { return f.min > -1e308 || f.max < 1e308; }

// "2 to 7", "at least 1" (an integer range open above), "finite and at least 0" (a number's).
std::string range_text(const Field &f) {
    auto bound = [](double v) {
        return std::abs(v) < 9e15 && v == static_cast<double>(static_cast<int64_t>(v)) ? std::to_string(static_cast<int64_t>(v))
                                                                                       : format("%g", v);
    };
    const bool number = f.type == Type::number;
    if (f.max >= (number ? 1e307 : kNoMaximum)) return std::string(number ? "finite and at least " : "at least ") + bound(f.min);
    return bound(f.min) + " to " + bound(f.max);
}

// What the field is, from its doc, for the end of a message: " (the stride of each spatial dim)".
std::string what_it_is(const Field &f) {
    std::string doc = f.doc ? f.doc : "";
    while (!doc.empty() && (doc.back() == '.' || doc.back() == ' ')) doc.pop_back();
    if (doc.size() > 1 && std::isupper(static_cast<unsigned char>(doc[0])) && std::islower(static_cast<unsigned char>(doc[1])))
        doc[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(doc[0])));
    return doc.empty() ? "" : " (" + doc + ")";
}

void check_integer(const Field &f, int64_t value, const char *where) {
    // Compared in double: the ranges are doubles, and an int64 near its ends rounds outward.
    const double v = static_cast<double>(value);
    FE_CHECK(v >= f.min && v <= f.max, FE_STATUS_INVALID_ARGUMENT, "options.%s%s is %lld; it must be %s%s", f.name, where,
             static_cast<long long>(value), range_text(f).c_str(), what_it_is(f).c_str());
}

}  // namespace

void check_enum_value(const Enum &e, int64_t value, const std::string &what) {
    if (e.flags || (value >= INT32_MIN && value <= INT32_MAX && e.json_name(static_cast<int32_t>(value)))) return;
    std::string names;
    for (const EnumValue &v : e.values) names += (names.empty() ? "" : ", ") + std::string(v.json_name);
    FE_FAIL(FE_STATUS_INVALID_ARGUMENT, "%s is %lld, not an %s (%s)", what.c_str(), static_cast<long long>(value), e.c_type,
            names.c_str());
}

void check_ranges(const Op &op, const void *options, int32_t kind) {
    if (!op.options || !options) return;
    const Struct &s = *op.options;
    for (const Field &f : s.fields)
        if (f.type == Type::enumeration && f.enumeration && op.takes_field(f.name, kind))
            check_enum_value(*f.enumeration, f.integer_of(options), std::string("options.") + f.name);
    size_t spatial = 0, dims = 0;
    for (const Field &f : s.fields) {
        if (f.type == Type::spatial_count) spatial = static_cast<size_t>(f.integer_of(options));
        if (f.type == Type::dims_count) dims = static_cast<size_t>(f.integer_of(options));
    }
    for (const Field &f : s.fields) {
        if (!has_range(f) || !op.takes_field(f.name, kind)) continue;
        switch (f.type) {
            case Type::integer:
            case Type::spatial_count:
            case Type::dims_count:
            case Type::tensor_count: check_integer(f, f.integer_of(options), ""); break;
            case Type::number: {
                double v = f.number_of(options);
                FE_CHECK(v >= f.min && v <= f.max, FE_STATUS_INVALID_ARGUMENT, "options.%s is %g; it must be %s%s", f.name, v,
                         range_text(f).c_str(), what_it_is(f).c_str());
                break;
            }
            case Type::spatial_array:
            case Type::dims_array: {
                // Entries past the count are not read (a spatial count of 0: as many as the image has).
                size_t count = f.type == Type::dims_array ? dims : spatial ? spatial : FE_MAX_SPATIAL_DIMS;
                for (size_t i = 0; i < count && i < f.size / sizeof(int64_t); ++i)
                    check_integer(f, f.array_of(options)[i], format("[%zu]", i).c_str());
                break;
            }
            default: break;
        }
    }
}

fe_tensor *Field::tensor_of(const void *options) const {
    fe_tensor *t;
    std::memcpy(&t, at(options, offset), sizeof t);
    return t;
}

void Field::set_tensor(void *options, fe_tensor *tensor) const {
    std::memcpy(at(options, offset), &tensor, sizeof tensor);
}

fe_tensor *Field::tensor_at(const void *options, size_t i) const {
    fe_tensor *t;
    std::memcpy(&t, at(options, offset + i * sizeof t), sizeof t);
    return t;
}

void Field::set_tensor_at(void *options, size_t i, fe_tensor *tensor) const {
    std::memcpy(at(options, offset + i * sizeof tensor), &tensor, sizeof tensor);
}

const Field *Struct::field(const std::string &name) const {
    for (const Field &f : fields)
        if (name == f.name) return &f;
    return nullptr;
}

bool Op::takes_field(const char *field, int32_t kind) const {
    auto named = [field](const std::vector<const char *> &names) {
        return std::any_of(names.begin(), names.end(), [&](const char *t) { return std::strcmp(t, field) == 0; });
    };
    if (!takes.empty() && !named(takes)) return false;
    if (kind == kAnyKind) return true;
    bool listed = false;
    for (const KindFields &k : kind_fields) {
        if (!named(k.fields)) continue;
        listed = true;
        if (std::find(k.kinds.begin(), k.kinds.end(), kind) != k.kinds.end()) return true;
    }
    return !listed;
}

namespace {

std::vector<const Op *> &registry() {
    static std::vector<const Op *> ops;
    return ops;
}

// Families in the order of docs/graph-json.md.
const char *const kFamilies[] = {"Convolutions", "Matmuls", "Pointwise", "Reduction and softmax", "Normalizations",
                                 "Random numbers and block scaling", "Resampling and layout operations",
                                 "Attention"};

size_t family_rank(const char *family) {
    for (size_t i = 0; i < sizeof kFamilies / sizeof kFamilies[0]; ++i)
        if (std::strcmp(kFamilies[i], family) == 0) return i;
    return sizeof kFamilies / sizeof kFamilies[0];
}

}  // namespace

Registration::Registration(const Op &op, AddFunction add, const void *example_options,
                           const std::vector<Convenience> *conveniences) {
    op.add = add;
    op.example_options = example_options;
    op.conveniences = conveniences;
    registry().push_back(&op);
}

const std::vector<const Op *> &ops() {
    // Sorted once, after every static registration ran (first use is never during them).
    static const std::vector<const Op *> sorted = [] {
        std::vector<const Op *> all = registry();
        std::stable_sort(all.begin(), all.end(),
                         [](const Op *a, const Op *b) { return family_rank(a->family) < family_rank(b->family); });
        return all;
    }();
    return sorted;
}

const Op *find_op(const std::string &kind) {
    int32_t unused;
    for (const Op *op : ops())
        if (kind == op->kind || (op->kinds && op->kinds->value_of(kind, &unused))) return op;
    return nullptr;
}

const Op *find_entry_point(const std::string &entry_point, const Convenience **convenience) {
    *convenience = nullptr;
    for (const Op *op : ops()) {
        if (entry_point == op->entry_point) return op;
        if (!op->conveniences) continue;
        for (const Convenience &c : *op->conveniences) {
            if (entry_point != c.entry_point) continue;
            *convenience = &c;
            return op;
        }
    }
    return nullptr;
}

std::vector<const Struct *> structs() {
    std::vector<const Struct *> out;
    for (const Op *op : ops())
        for (const Struct *s : {op->options, op->scales})
            if (s && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    return out;
}

namespace {

// Data types by their JSON names (lib/graph/tensor.cpp spells them the same; the schema test
// compares the two).
const Enum kDataType{"fe_data_type",
                     {{"FE_DATA_NOT_SET", "not_set", FE_DATA_NOT_SET,
                       "Take the graph's default (io for inputs and outputs, intermediate otherwise)."},
                      {"FE_DATA_FLOAT", "float", FE_DATA_FLOAT},
                      {"FE_DATA_DOUBLE", "double", FE_DATA_DOUBLE},
                      {"FE_DATA_HALF", "half", FE_DATA_HALF},
                      {"FE_DATA_INT8", "int8", FE_DATA_INT8},
                      {"FE_DATA_INT32", "int32", FE_DATA_INT32},
                      {"FE_DATA_UINT8", "uint8", FE_DATA_UINT8},
                      {"FE_DATA_BFLOAT16", "bfloat16", FE_DATA_BFLOAT16},
                      {"FE_DATA_INT64", "int64", FE_DATA_INT64},
                      {"FE_DATA_BOOLEAN", "boolean", FE_DATA_BOOLEAN},
                      {"FE_DATA_FP8_E4M3", "fp8_e4m3", FE_DATA_FP8_E4M3},
                      {"FE_DATA_FP8_E5M2", "fp8_e5m2", FE_DATA_FP8_E5M2},
                      {"FE_DATA_FP8_E8M0", "fp8_e8m0", FE_DATA_FP8_E8M0,
                       "Power-of-two block scales of MXFP8 (block-scale quantize and dequantize)."},
                      {"FE_DATA_INT4", "int4", FE_DATA_INT4,
                       "4-bit signed integers, two to a byte (the even element in the low bits)."},
                      {"FE_DATA_UINT4", "uint4", FE_DATA_UINT4, "4-bit unsigned integers, two to a byte."},
                      {"FE_DATA_COMPLEX_FP32", "complex_fp32", FE_DATA_COMPLEX_FP32,
                       "Complex numbers of two floats (real, imaginary), the operands and result of a matmul."}},
                     "Element types; not_set takes the graph's default."};

}  // namespace

const Enum &data_types() { return kDataType; }

std::vector<const Enum *> enums() {
    std::vector<const Enum *> out = {&kDataType};
    auto note = [&](const Enum *e) {
        if (e && std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
    };
    for (const Op *op : ops()) {
        note(op->kinds);
        for (const Param &p : op->params) note(p.enumeration);
        if (op->options)
            for (const Field &f : op->options->fields) note(f.enumeration);
    }
    return out;
}

const Enum *find_enum(const std::string &c_type) {
    for (const Enum *e : enums())
        if (c_type == e->c_type) return e;
    return nullptr;
}

const char *enum_name(const char *c_type, int32_t value) {
    static const std::map<std::string, const Enum *> by_type = [] {
        std::map<std::string, const Enum *> m;
        for (const Enum *e : enums()) m[e->c_type] = e;
        return m;
    }();
    auto it = by_type.find(c_type);
    const char *name = it == by_type.end() ? nullptr : it->second->json_name(value);
    return name ? name : "invalid";
}

namespace {

void write_default(json::Writer &out, const Field &f, const void *defaults) {
    switch (f.type) {
        case Type::flag: out.boolean(f.integer_of(defaults) != 0); break;
        case Type::integer:
        case Type::spatial_count:
        case Type::dims_count:
        case Type::tensor_count:
        case Type::list_count:
        case Type::flags:
        case Type::axes: out.integer(f.integer_of(defaults)); break;
        case Type::number: out.number(f.number_of(defaults)); break;
        case Type::data_type:
        case Type::enumeration: out.integer(f.integer_of(defaults)); break;
        case Type::spatial_array: out.integers(f.array_of(defaults), FE_MAX_SPATIAL_DIMS); break;
        case Type::dims_array: out.integers(f.array_of(defaults), FE_MAX_DIMS); break;
        case Type::name:
        case Type::tensor:
        case Type::tensor_array:
        case Type::enum_list:
        case Type::name_list:
        case Type::kernel_cache: out.null(); break;
    }
}

// The example options' attributes that differ from the defaults, as the graph JSON spells them.
void write_example_attributes(json::Writer &out, const Op &op) {
    out.key("example_attributes").begin_object();
    for (const Field &f : op.options->fields) {
        if (std::memcmp(static_cast<const unsigned char *>(op.example_options) + f.offset,
                        static_cast<const unsigned char *>(op.options->defaults) + f.offset, f.size) == 0)
            continue;
        out.key(f.name);
        if (f.type == Type::enumeration || f.type == Type::data_type) {
            const Enum &e = f.enumeration ? *f.enumeration : data_types();
            const char *name = e.json_name(static_cast<int32_t>(f.integer_of(op.example_options)));
            out.string(name ? name : "invalid");
        } else {
            write_default(out, f, op.example_options);
        }
    }
    out.end_object();
}

void write_ports(json::Writer &out, const char *key, const std::vector<Port> &ports, bool output) {
    out.key(key).begin_array();
    for (const Port &p : ports) {
        out.begin_object().field("name", p.name).field("argument", argument_name(p, output));
        if (p.when) out.field("when", p.when);
        if (!p.example.empty()) out.key("example").integers(p.example.data(), p.example.size());
        if (p.type != FE_DATA_NOT_SET) out.field("type", data_types().json_name(p.type));
        out.field("doc", p.doc).end_object();
    }
    out.end_array();
}

}  // namespace

std::string argument_name(const Port &port, bool output) {
    auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
    auto is_lower = [](char c) { return std::islower(static_cast<unsigned char>(c)) != 0; };
    auto is_upper = [](char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; };
    const std::string name = port.name;
    std::string words;
    size_t word_start = 0;
    for (size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '_') word_start = i + 1;
        // A new word starts at an upper-case letter between a lower-case one and another
        // ("InvVariance"), or after a lower-case word of two letters or more ("EqScaleDY": the
        // gradient prefix of "dQ" stays one word).
        bool capitalized = i + 1 < name.size() && is_lower(name[i + 1]);
        if (i > 0 && is_upper(name[i]) && is_lower(name[i - 1]) && (capitalized || i - word_start >= 2)) {
            words += '_';
            word_start = i;
        }
        words += lower(name[i]);
    }
    if (words == "do") words = "d_o";
    return output ? "out_" + words : words;
}

std::string to_json() {
    std::string text;
    json::Writer out(text);
    out.begin_object();
    out.key("enums").begin_array();
    std::vector<const Enum *> all = enums();
    for (const Enum *e : surface_enums()) all.push_back(e);
    for (const Enum *e : all) {
        out.begin_object().field("c_type", e->c_type).field("doc", e->doc);
        if (e->flags) out.field("flags", true);
        out.key("values").begin_array();
        for (const EnumValue &v : e->values) {
            out.begin_object().field("c_name", v.c_name).field("json_name", v.json_name).field("value", v.value);
            if (v.doc) out.field("doc", v.doc);
            out.end_object();
        }
        out.end_array().end_object();
    }
    out.end_array();
    out.key("structs").begin_array();
    std::vector<const Struct *> all_structs = structs();
    for (const Struct *s : surface_structs()) all_structs.push_back(s);
    for (const Struct *s : all_structs) {
        out.begin_object().field("c_type", s->c_type).field("size", static_cast<int64_t>(s->size)).field("doc", s->doc);
        out.key("fields").begin_array();
        for (const Field &f : s->fields) {
            out.begin_object().field("name", f.name).field("type", type_name(f.type));
            out.field("offset", static_cast<int64_t>(f.offset)).field("size", static_cast<int64_t>(f.size));
            if (f.enumeration) out.field("enum", f.enumeration->c_type);
            if (f.port) out.field("port", f.port);
            if (f.type == Type::data_type) out.field("enum", "fe_data_type");
            if (f.min > -1e308) out.field("min", f.min);
            if (f.max < 1e308) out.field("max", f.max);
            out.key("default");
            write_default(out, f, s->defaults);
            out.field("doc", f.doc).end_object();
        }
        out.end_array().end_object();
    }
    out.end_array();
    out.key("ops").begin_array();
    for (const Op *op : ops()) {
        out.begin_object().field("kind", op->kind).field("entry_point", op->entry_point).field("family", op->family);
        if (op->kinds) out.field("kinds", op->kinds->c_type);
        write_ports(out, "inputs", op->inputs, false);
        write_ports(out, "outputs", op->outputs, true);
        out.key("params").begin_array();
        for (const Param &p : op->params) {
            out.begin_object().field("name", p.name).field("type", type_name(p.type));
            if (p.enumeration) out.field("enum", p.enumeration->c_type);
            out.field("required", p.required).field("doc", p.doc).end_object();
        }
        out.end_array();
        if (op->options && op->example_options) write_example_attributes(out, *op);
        if (op->options) {
            out.field("options", op->options->c_type).key("takes").begin_array();
            for (const Field &f : op->options->fields)
                if (op->takes_field(f.name)) out.string(f.name);
            out.end_array();
        }
        if (op->scales) out.field("scales", op->scales->c_type);
        if (op->conveniences) {
            out.key("conveniences").begin_array();
            for (const Convenience &c : *op->conveniences) {
                out.begin_object().field("entry_point", c.entry_point).field("kind", op->kinds->json_name(c.kind_value));
                out.key("operands").begin_array();
                for (const char *operand : c.operands) out.string(operand);
                out.end_array().field("doc", c.doc).end_object();
            }
            out.end_array();
        }
        out.field("takes_compute_data_type", op->takes_compute_data_type).field("doc", op->doc).end_object();
    }
    out.end_array();
    out.end_object();
    return text;
}

}  // namespace fe::schema
