// The graph JSON reader of every op whose description has an add function: its inputs,
// parameters, scales and options read as the schema lists them, then the op added through that
// function, the one its C entry point calls. An op needs a reader of its own (lib/serial/readers)
// only for what its description cannot say.
#include <cctype>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "schema/option_fields.hpp"
#include "serial/option_reader.hpp"
#include "serial/readers/readers.hpp"

namespace fe {

namespace {

// "The first index of each dim." -> "the first index of each dim"
std::string clause(const char *doc) {
    std::string s = doc;
    if (!s.empty() && s.back() == '.') s.pop_back();
    if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
    return s;
}

schema::Call::Param read_param(OpReader &r, const schema::Param &p) {
    schema::Call::Param value;
    if (p.required && !r.has(p.name)) r.fail(p.name, "missing (" + clause(p.doc) + ")");
    switch (p.type) {
        case schema::Type::dims_array:
            r.integers(p.name, &value.dims, FE_MAX_DIMS);
            break;
        case schema::Type::enumeration:
            value.value = read_enum(r, p.name, *p.enumeration, static_cast<int32_t>(p.fallback));
            break;
        case schema::Type::flag:
            value.value = r.flag(p.name, p.fallback != 0);
            break;
        default:
            value.value = r.integer(p.name, p.fallback);
            break;
    }
    return value;
}

// A struct's bytes, starting from its defaults (aligned for any member).
class StructBuffer {
  public:
    explicit StructBuffer(const schema::Struct *s) {
        if (!s) return;
        bytes_.resize((s->size + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t));
        std::memcpy(bytes_.data(), s->defaults, s->size);
    }
    void *data() { return bytes_.empty() ? nullptr : bytes_.data(); }

  private:
    std::vector<std::max_align_t> bytes_;
};

}  // namespace

void read_described_op(OpReader &r) {
    const schema::Op &op = op_schema(r.kind().c_str());
    for (const char *key : op.always_written)
        if (!r.has(key)) r.fail(key, std::string("missing (a written ") + op.kind + " always has it)");
    schema::Call call;
    call.op = &op;
    if (op.kinds && !op.kinds->value_of(r.kind(), &call.kind_value))
        FE_FAIL(FE_STATUS_INTERNAL, "%s is not a kind of %s", r.kind().c_str(), op.kind);
    for (const schema::Port &port : op.inputs) {
        bool optional = port.when && std::string(port.when) == "optional";
        call.inputs.push_back(optional ? r.optional_input(port.name) : r.input(port.name));
    }
    // Further inputs up to the first absent one (a graph JSON has at most kMaxMoreInputs).
    constexpr size_t kMaxMoreInputs = 64;
    for (size_t i = op.inputs.size(); op.more_inputs && i < kMaxMoreInputs; ++i) {
        fe_tensor *x = r.optional_input((op.more_inputs + std::to_string(i)).c_str());
        if (!x) break;
        call.inputs.push_back(x);
    }
    for (const schema::Param &p : op.params) call.params.push_back(read_param(r, p));
    StructBuffer scales(op.scales), options(op.options);
    if (op.scales)
        for (const schema::Field &f : op.scales->fields) f.set_tensor(scales.data(), r.input(f.json_name()));
    const int32_t kind = op.kinds ? call.kind_value : schema::kAnyKind;
    if (op.options) read_option_fields(r, op, options.data(), kind);
    call.scales = scales.data();
    call.options = options.data();
    r.add([&](fe_graph &g) {
        schema::check_ranges(op, call.options, kind);
        op.add(g, call);
    });
}

}  // namespace fe
