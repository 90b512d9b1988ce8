// The op schema: each operation of the C API described once, as data, next to its
// implementation (in the op's own file, lib/ops/<op>.cpp, or for the normalizations and attention
// beside the node their ops share, lib/ops/norm.cpp and attention.cpp): its kind, its entry point, its input and output
// ports (with the option that makes a conditional one exist), the option struct it takes and,
// for every field of that struct, its type, default (read from the struct's _INIT macro), range,
// enum names and documentation.
//
// What reads it: the graph JSON codec (attributes written and read field by field,
// lib/schema/option_fields.cpp, lib/serial/option_reader.cpp), the names ops give their modes, fe_op_schema_json and
// `cudnnfe schema` (every description as JSON, for tools and bindings), the op sections of
// docs/graph-json.md (rendered from that JSON by scripts/schema/render_docs.py and compared with
// the committed text in the test run), and the every-op tests (tests/unit/schema_*.cpp).
// Shape inference, validation and lowering stay hand-written in the op files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cudnnfe.h"

namespace fe::schema {

// How a field is stored in its C struct and spelled in the graph JSON.
enum class Type {
    name,           // const char *: the op's name (a JSON op member of its own, not an attribute)
    flag,           // int32_t 0/1: a JSON boolean
    integer,        // int32_t, int64_t or size_t (by the field's size)
    number,         // double
    data_type,      // fe_data_type: "half", "not_set", ...
    enumeration,    // an FE_ENUM_BASE enum: one of its JSON names
    axes,           // uint32_t bit mask of dims: a JSON array of dim indexes
    spatial_count,  // size_t: how many entries the spatial arrays have (0: from the image)
    spatial_array,  // int64_t[FE_MAX_SPATIAL_DIMS]: one entry per spatial dim
    dims_count,     // size_t: how many entries a dims array of the same struct has
    dims_array,     // int64_t[FE_MAX_DIMS]: its count is the struct's dims_count field
    tensor,         // fe_tensor *: a JSON input (port named like the field), not an attribute
    tensor_count,   // size_t: how many entries the struct's tensor array has
    tensor_array,   // fe_tensor *[N], set through its C setter (<struct>_set_<field>): JSON
                    // inputs <field>_0, <field>_1, ... up to the count
    // Only in the structs around the ops (fe_build_options), never in the graph JSON:
    enum_list,      // const <enum> *: values of the field's enum, counted by the list_count after it
    list_count,     // size_t: how many values the enum_list before it has
    flags,          // int64_t: a mask of the bits of the field's flags enum
    name_list,      // const char *: names separated by commas
    kernel_cache,   // fe_kernel_cache *
};

const char *type_name(Type type);

struct EnumValue {
    const char *c_name;     // FE_CAUSAL_MASK_TOP_LEFT
    const char *json_name;  // top_left
    int32_t value;
    const char *doc = nullptr;  // what the value means, where its name does not say it all
};

struct Enum {
    const char *c_type;  // fe_causal_mask
    std::vector<EnumValue> values;
    const char *doc;
    bool flags = false;  // one bit each: the values combine into an int64 mask

    // The JSON name of a value, or nullptr when the value is not one of the enum's.
    const char *json_name(int32_t value) const;
    // The value of a JSON name; false when no value has that name.
    bool value_of(const std::string &json_name, int32_t *out) const;
};

// The top of an integer range open above: over every int64.
constexpr double kNoMaximum = 9.3e18;

struct Field {
    const char *name;  // the C member, and the JSON attribute or input port
    Type type;
    size_t offset;
    size_t size;
    const Enum *enumeration;  // for Type::enumeration
    double min, max;          // inclusive range of integers and numbers
    const char *doc;
    const char *port = nullptr;  // Type::tensor: the JSON input port when it differs from `name`

    const char *json_name() const { return port ? port : name; }

    // The field of a struct instance, by its type.
    int64_t integer_of(const void *options) const;
    void set_integer(void *options, int64_t value) const;
    double number_of(const void *options) const;
    void set_number(void *options, double value) const;
    const int64_t *array_of(const void *options) const;
    int64_t *array_of(void *options) const;
    fe_tensor *tensor_of(const void *options) const;
    void set_tensor(void *options, fe_tensor *tensor) const;
    // Type::tensor_array: how many entries it has room for, and entry i.
    size_t capacity() const { return size / sizeof(fe_tensor *); }
    fe_tensor *tensor_at(const void *options, size_t i) const;
    void set_tensor_at(void *options, size_t i, fe_tensor *tensor) const;
};

struct Struct {
    const char *c_type;    // fe_conv_options
    size_t size;           // sizeof
    const void *defaults;  // an instance initialized with the struct's _INIT macro
    std::vector<Field> fields;
    const char *doc;

    const Field *field(const std::string &name) const;
};

// A port of an op: an input (a tensor argument of the entry point, or a tensor field of its
// options) or an output.
struct Port {
    const char *name;  // the port name in the JSON and in "<op name>::<port>"
    // nullptr: always there. "optional": the caller may leave it out. Otherwise the name of the
    // option (a flag or tensor field) that makes it exist, e.g. "generate_stats".
    const char *when;
    const char *doc;
    // An input's dims in a small graph the op accepts with its default options (empty: none).
    // When every required input has them, the round-trip test builds that graph from the
    // description alone, so the op needs no hand-written case there.
    std::vector<int64_t> example = {};
    // An output's data type whatever the inputs' (float statistics, E8M0 scales); the caller may
    // still set another. FE_DATA_NOT_SET: the graph's io type.
    fe_data_type type = FE_DATA_NOT_SET;
};

// The entry point's argument for a port: the port's name in snake case ("InvVariance":
// inv_variance, "dQ": dq, "dO": d_o, since `do` is a C keyword), "out_" first for an output.
std::string argument_name(const Port &port, bool output);

// An entry-point argument that is neither a tensor nor in the options struct (conv_dgrad's
// dx_dims, a reduction's mode, a transpose's perm): a JSON attribute of its own.
struct Param {
    const char *name;
    Type type;  // integer, dims_array or enumeration
    const Enum *enumeration;
    bool required;
    const char *doc;
    int64_t fallback = 0;  // the value of an optional integer, enumeration or flag left out
};

struct Op;

// One call of an op, in the order of its description: what the C entry point or the graph JSON
// reader received, and what the op's add function (Registration) reads.
struct Call {
    struct Param {
        std::vector<int64_t> dims;  // dims_array: empty when absent
        int64_t value = 0;          // integer, enumeration or flag
    };
    const Op *op = nullptr;             // what is called
    int32_t kind_value = 0;             // a family described by `kinds`: the mode
    std::vector<fe_tensor *> inputs;    // Op::inputs; nullptr for an optional input left out
    std::vector<Param> params;          // Op::params
    const void *scales = nullptr;       // Op::scales' struct
    const void *options = nullptr;      // Op::options' struct, the defaults under the caller's fields
    // The prefix of automatic node names when it is not the kind's (a convenience's: "bias").
    const char *automatic_name = nullptr;

    template <typename Options>
    const Options &options_as() const { return *static_cast<const Options *>(options); }
    template <typename Scales>
    const Scales &scales_as() const { return *static_cast<const Scales *>(scales); }
};

// Adds an op to a graph from a call (lib/ops/graph_ops.hpp's functions, through a few lines
// per op): the one way both the C entry points and the graph JSON reader add it.
using AddFunction = const std::vector<fe_tensor *> &(*)(fe_graph &graph, const Call &call);

// Fields of a family's options that only some of its kinds take (elu_alpha: elu, elu_backward).
struct KindFields {
    std::vector<int32_t> kinds;
    std::vector<const char *> fields;
};

// An entry point of its own for one kind of a family of kinds (fe_graph_bias: pointwise's add),
// its operands named for it and its nodes after it. Its entry point is generated from the
// header as an op's is (lib/api/generate_entry_points.py), and so are its bindings' methods.
struct Convenience {
    const char *entry_point;             // "fe_graph_bias"
    int32_t kind_value;                  // FE_POINTWISE_ADD
    std::vector<const char *> operands;  // the argument names of the family's first ports
    const char *automatic_name;          // nodes "bias_<n>"; nullptr: the kind's name
    const char *doc;                     // one sentence, for the bindings
};

// A call's kind where an op is not a family of kinds (or the kind does not matter).
constexpr int32_t kAnyKind = INT32_MIN;

struct Op {
    const char *kind;         // Node::kind() and the JSON "op"
    const char *entry_point;  // fe_graph_conv_fprop
    const char *family;       // the section of docs/graph-json.md
    std::vector<Port> inputs;
    std::vector<Port> outputs;
    std::vector<Param> params;
    const Struct *options;  // nullptr: the entry point takes none
    // The fields of `options` this op takes (empty: all of them); the others must keep their
    // defaults.
    std::vector<const char *> takes;
    bool takes_compute_data_type;
    const char *doc;
    // Set for a family with one op kind per value of an enum (pointwise: "relu", "add", ...):
    // each value's JSON name is a kind described by this entry, whose `kind` names the family.
    const Enum *kinds = nullptr;
    // A second struct argument of tensors (FP8 scales): each field is an input port.
    const Struct *scales = nullptr;
    // For a family of kinds: the fields only some kinds take; every kind takes the others.
    std::vector<KindFields> kind_fields = {};
    // The options and params a graph written by cudnnfe always holds (resampling's mode, window
    // and stride), though a C call may leave them at their defaults: the graph JSON reader refuses
    // a graph without them, as not one cudnnfe wrote.
    std::vector<const char *> always_written = {};
    // Where the inputs go on past the listed ports, the prefix of the further ones, numbered on
    // from the ports' count (concatenate: "X" for X2, X3, ...); nullptr: no more inputs.
    const char *more_inputs = nullptr;
    // Set when the options may not be NULL (no default makes a call): why, for the message
    // "argument 'options' is NULL: <why>".
    const char *options_required = nullptr;
    // Set by the op's Registration: how a call adds it, from C or from the graph JSON (every
    // registered op has one).
    mutable AddFunction add = nullptr;
    // Set by the Registration: options (of `options`' struct) for the example graph when the
    // defaults do not make one (a required count); see Port::example.
    mutable const void *example_options = nullptr;
    // Set by the Registration: the family's conveniences (nullptr: none).
    mutable const std::vector<Convenience> *conveniences = nullptr;

    // Whether a call of `kind` (kAnyKind: of any) takes the field.
    bool takes_field(const char *field, int32_t kind = kAnyKind) const;
};

// Refuses (FE_STATUS_INVALID_ARGUMENT) a field of `options` (op.options' struct) that the op
// takes and that lies outside its described range: "options.<field> is <value>; it must be <min>
// to <max> (<its doc>)". The one range check of every call, from C or from the graph JSON.
void check_ranges(const Op &op, const void *options, int32_t kind = kAnyKind);
// Refuses (FE_STATUS_INVALID_ARGUMENT) a value that is none of the enum's: "<what> is <value>, not
// an <c_type> (<its JSON names>)". Enumeration options (check_ranges) and parameters.
void check_enum_value(const Enum &e, int64_t value, const std::string &what);

// Every op, ordered by family and then as registered in its family's file; every struct and
// enum the ops name.
const std::vector<const Op *> &ops();
// The description of an op kind (for a family described by `kinds`, the family's entry).
const Op *find_op(const std::string &kind);
// The op whose entry point, or one of whose conveniences', is `entry_point` (nullptr: none), and
// that convenience (nullptr: the op's own entry point).
const Op *find_entry_point(const std::string &entry_point, const Convenience **convenience);
std::vector<const Struct *> structs();
std::vector<const Enum *> enums();
// The enums of the API around the ops (heuristics modes, build policy, log level, mismatch
// policy): in the printed schema after the ops' enums, for the bindings to generate.
std::vector<const Enum *> surface_enums();
// The option structs of the API around the ops (a graph's, loading a serialized graph's): in the
// printed schema after the ops' structs, for the bindings to generate.
std::vector<const Struct *> surface_structs();
// fe_data_type's values and JSON names (data_type fields).
const Enum &data_types();
// An enum the ops name, by its C type ("fe_resample_mode"); nullptr when none does.
const Enum *find_enum(const std::string &c_type);
// The JSON name of `value` of the enum `c_type`, or "invalid": how the ops name their modes in
// descriptions and the graph JSON, from the one list of names.
const char *enum_name(const char *c_type, int32_t value);

// Adds an op at static initialization (one per op, beside its description). Within a family, ops
// are listed in registration order: the order of the library's sources in meson.build.
struct Registration {
    explicit Registration(const Op &op, AddFunction add = nullptr, const void *example_options = nullptr,
                          const std::vector<Convenience> *conveniences = nullptr);
};

// All of it as JSON (what `cudnnfe schema` prints, through fe_schema_json).
std::string to_json();

// The defaults of options struct S: an instance initialized with its _INIT macro, kept for the
// program's life (FE_SCHEMA_OPTIONS).
template <typename S>
const S *defaults_of(const S &init) {
    static const S defaults = init;
    return &defaults;
}

}  // namespace fe::schema

// An options struct's description: its C name, size, defaults (INIT: its _INIT macro) and fields.
#define FE_SCHEMA_OPTIONS(S, INIT, doc, ...) \
    ::fe::schema::Struct { #S, sizeof(S), ::fe::schema::defaults_of<S>(S INIT), {__VA_ARGS__}, doc }
// The two fields most options structs have, described once.
#define FE_SCHEMA_NAME_FIELD(S) FE_SCHEMA_FIELD(S, name, name, "The op's name; automatic when absent.")
#define FE_SCHEMA_COMPUTE_FIELD(S) FE_SCHEMA_FIELD(S, compute_data_type, data_type, "Math type; not_set: the graph's.")
// A field of struct S: its name, type, offset and size, checked against the member's C type.
#define FE_SCHEMA_FIELD(S, member, type, doc)                                                           \
    ::fe::schema::Field {                                                                               \
        #member, ::fe::schema::Type::type, offsetof(S, member), sizeof(S::member), nullptr, -1e308, 1e308, doc \
    }
#define FE_SCHEMA_RANGE(S, member, type, lo, hi, doc)                                                    \
    ::fe::schema::Field {                                                                               \
        #member, ::fe::schema::Type::type, offsetof(S, member), sizeof(S::member), nullptr, lo, hi, doc \
    }
#define FE_SCHEMA_TENSOR(S, member, port, doc)                                                          \
    ::fe::schema::Field {                                                                               \
        #member, ::fe::schema::Type::tensor, offsetof(S, member), sizeof(S::member), nullptr, -1e308, 1e308, doc, \
            port                                                                                        \
    }
// A field of the enum `names` stored as `type` (enum_list, flags).
#define FE_SCHEMA_ENUM_AS(S, member, type, names, doc)                                                  \
    ::fe::schema::Field {                                                                               \
        #member, ::fe::schema::Type::type, offsetof(S, member), sizeof(S::member), &names, -1e308, 1e308, doc \
    }
#define FE_SCHEMA_ENUM(S, member, names, doc)                                                           \
    ::fe::schema::Field {                                                                               \
        #member, ::fe::schema::Type::enumeration, offsetof(S, member), sizeof(S::member), &names,       \
            -1e308, 1e308, doc                                                                          \
    }
