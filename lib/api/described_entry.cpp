// add_described: an op's entry point from its description.
#include "api/described_entry.hpp"

#include <cctype>
#include <cstddef>
#include <cstring>
#include <string>

#include "graph/graph.hpp"

namespace fe {

namespace {

// A struct of the description's type: its defaults under the caller's bytes.
class CallerStruct {
  public:
    CallerStruct(const schema::Struct *s, const void *given) {
        if (!s) return;
        bytes_.resize((s->size + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t));
        read_struct(s->c_type, s->size, s->defaults, given, bytes_.data());
    }
    const void *data() const { return bytes_.empty() ? nullptr : bytes_.data(); }

  private:
    std::vector<std::max_align_t> bytes_;
};

// The option that makes an output exist (a flag, an enum like phase, a tensor), or nullptr when
// its condition is not in the options (a flag parameter: whether the caller passes the output).
const schema::Field *condition_field(const schema::Op &op, const schema::Port &port) {
    return port.when && op.options ? op.options->field(port.when) : nullptr;
}

// A value outside an enum asks for nothing here: adding the op refuses it with its own message.
bool option_set(const schema::Field &f, const void *options) {
    if (f.type == schema::Type::tensor) return f.tensor_of(options) != nullptr;
    int64_t value = f.integer_of(options);
    if (f.enumeration) return value != 0 && f.enumeration->json_name(static_cast<int32_t>(value)) != nullptr;
    return value != 0;
}

// A field the op does not take (Op::takes), or its kind does not (Op::kind_fields), must keep its
// default: another op or kind of the same options struct uses it, this one would ignore it.
void refuse_fields_not_taken(const schema::Op &op, const void *options, int32_t kind) {
    for (const schema::Field &f : op.options->fields) {
        if (op.takes_field(f.name, kind) || f.type == schema::Type::name) continue;
        const unsigned char *given = static_cast<const unsigned char *>(options) + f.offset;
        const unsigned char *by_default = static_cast<const unsigned char *>(op.options->defaults) + f.offset;
        FE_CHECK(std::memcmp(given, by_default, f.size) == 0, FE_STATUS_INVALID_ARGUMENT,
                 "options.%s is not taken by %s; leave it at its default", f.name,
                 op.kinds ? op.kinds->json_name(kind) : op.kind);
    }
}

bool is_optional(const schema::Port &port) { return port.when && std::strcmp(port.when, "optional") == 0; }

// A description's sentence inside a message: its first letter lowercase, its final period gone.
std::string lowercase_first(std::string text) {
    if (!text.empty() && text.back() == '.') text.pop_back();
    if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
    return text;
}

// A parameter's value: a C array read once its count is checked (NULL: left out).
schema::Call::Param param_value(const ParamArgument &argument) {
    if (!argument.count_name || !argument.array) return argument.given;
    FE_CHECK(argument.count >= 1 && argument.count <= FE_MAX_DIMS, FE_STATUS_INVALID_ARGUMENT,
             "%s is %zu; 1 to %d allowed", argument.count_name, argument.count, FE_MAX_DIMS);
    return {std::vector<int64_t>(argument.array, argument.array + argument.count), 0};
}

// Which of the entry point's outputs the op produces. Every output is required but those with a
// condition: one the options ask for is required, one they do not ask for is returned as NULL,
// and one whose condition is a flag parameter is computed when the caller passes it.
std::vector<bool> produced_outputs(const schema::Op &op, const std::vector<const schema::Port *> &returned,
                                   std::initializer_list<fe_tensor **> outputs, const void *options) {
    std::vector<bool> produced;
    size_t i = 0;
    for (fe_tensor **out : outputs) {
        const schema::Port &port = *returned[i++];
        std::string argument = schema::argument_name(port, true);
        if (!port.when) {
            FE_CHECK(out, FE_STATUS_NULL_POINTER, "argument '%s' is NULL", argument.c_str());
            produced.push_back(true);
        } else if (const schema::Field *f = condition_field(op, port)) {
            bool asked = option_set(*f, options);
            FE_CHECK(out || !asked, FE_STATUS_NULL_POINTER, "options.%s asks for the %s output, but %s is NULL", port.when,
                     port.name, argument.c_str());
            produced.push_back(asked);
        } else {
            produced.push_back(out != nullptr);
        }
    }
    return produced;
}

// The call's parameters: those the caller passed, checked, and the flags, set by whether the
// caller passes the output each one names.
void read_params(const schema::Op &op, const DescribedArguments &arguments,
                 const std::vector<const schema::Port *> &returned, const std::vector<bool> &produced,
                 schema::Call *call) {
    size_t given = 0;
    for (const schema::Param &p : op.params) {
        if (p.type != schema::Type::flag) {
            call->params.push_back(param_value(arguments.params.at(given++)));
            if (p.type == schema::Type::enumeration && p.enumeration)
                schema::check_enum_value(*p.enumeration, call->params.back().value, p.name);
            continue;
        }
        schema::Call::Param flag;
        for (size_t k = 0; k < returned.size(); ++k)
            if (returned[k]->when && std::strcmp(returned[k]->when, p.name) == 0) flag.value = produced[k];
        call->params.push_back(flag);
    }
}

// `convenience`: one of the op's, whose operands are the op's first ports (the others left out),
// its kind and its nodes' names fixed.
fe_status add_described(const schema::Op &op, const schema::Convenience *convenience, fe_graph *graph,
                        const DescribedArguments &arguments, const void *options,
                        std::initializer_list<fe_tensor **> outputs) noexcept {
    return guard(convenience ? convenience->entry_point : op.entry_point, [&] {
        if (convenience) {  // its operands first, by their own names
            for (size_t k = 0; k < arguments.inputs.size() && k < convenience->operands.size(); ++k)
                FE_CHECK(arguments.inputs.begin()[k], FE_STATUS_NULL_POINTER, "argument '%s' is NULL",
                         convenience->operands[k]);
        }
        FE_REQUIRE(graph);
        std::vector<const schema::Port *> returned;
        for (const schema::Port &port : op.outputs)
            if (!condition_field(op, port) || std::strncmp(port.when, "output_", 7) != 0) returned.push_back(&port);
        const bool array = arguments.input_array_name != nullptr;
        const size_t inputs = arguments.inputs.size();
        const bool inputs_described = array ? op.more_inputs != nullptr
                                            : (convenience ? convenience->operands.size() == inputs && inputs <= op.inputs.size()
                                                           : inputs == op.inputs.size());
        const bool kind_described = convenience ? op.kinds != nullptr && !arguments.kind.has_value()
                                                : arguments.kind.has_value() == (op.kinds != nullptr);
        FE_CHECK(inputs_described && outputs.size() == returned.size() && kind_described, FE_STATUS_INTERNAL,
                 "%s: the entry point's inputs, outputs or kind are not the described ones", op.kind);
        schema::Call call;
        call.op = &op;
        if (op.kinds) {
            const int32_t kind = convenience ? convenience->kind_value : *arguments.kind;
            FE_CHECK(op.kinds->json_name(kind) != nullptr, FE_STATUS_INVALID_ARGUMENT, "mode %d is not an %s",
                     static_cast<int>(kind), op.kinds->c_type);
            call.kind_value = kind;
        }
        if (convenience) call.automatic_name = convenience->automatic_name;
        size_t i = 0;
        if (array) {
            FE_CHECK(arguments.input_array, FE_STATUS_NULL_POINTER, "argument '%s' is NULL", arguments.input_array_name);
            for (size_t k = 0; k < arguments.input_count; ++k) {
                FE_CHECK(arguments.input_array[k], FE_STATUS_NULL_POINTER, "%s[%zu] is NULL", arguments.input_array_name, k);
                call.inputs.push_back(arguments.input_array[k]);
            }
        }
        for (fe_tensor *input : arguments.inputs) {
            const schema::Port &port = op.inputs[i++];
            FE_CHECK(input || is_optional(port), FE_STATUS_NULL_POINTER, "argument '%s' is NULL",
                     schema::argument_name(port, false).c_str());
            call.inputs.push_back(input);
        }
        for (; convenience && i < op.inputs.size(); ++i) {  // the ports a convenience leaves out
            FE_CHECK(is_optional(op.inputs[i]), FE_STATUS_INTERNAL, "%s: leaves out the required port %s",
                     convenience->entry_point, op.inputs[i].name);
            call.inputs.push_back(nullptr);
        }
        if (op.scales) FE_CHECK(arguments.scales, FE_STATUS_NULL_POINTER, "argument 'scales' is NULL");
        FE_CHECK(options || !op.options_required, FE_STATUS_NULL_POINTER, "argument 'options' is NULL: %s",
                 op.options_required);
        std::vector<const schema::Param *> given_params;  // those the caller passes: all but the flags
        for (const schema::Param &p : op.params)
            if (p.type != schema::Type::flag) given_params.push_back(&p);
        FE_CHECK(arguments.params.size() == given_params.size(), FE_STATUS_INTERNAL,
                 "%s: %zu parameters given, %zu described", op.kind, arguments.params.size(), given_params.size());
        for (size_t k = 0; k < given_params.size(); ++k)
            FE_CHECK(!arguments.params[k].count_name || arguments.params[k].array || !given_params[k]->required,
                     FE_STATUS_NULL_POINTER, "argument '%s' is NULL: %s", given_params[k]->name,
                     lowercase_first(given_params[k]->doc).c_str());
        CallerStruct scales(op.scales, arguments.scales), caller_options(op.options, options);
        call.scales = scales.data();
        call.options = caller_options.data();
        const int32_t kind = op.kinds ? call.kind_value : schema::kAnyKind;
        if (op.options && call.options) refuse_fields_not_taken(op, call.options, kind);
        std::vector<bool> produced = produced_outputs(op, returned, outputs, call.options);
        read_params(op, arguments, returned, produced, &call);
        // Values after pointers: a NULL argument is named whatever the options hold.
        schema::check_ranges(op, call.options, kind);
        const std::vector<fe_tensor *> &results = op.add(*graph, call);
        size_t next = 0;
        i = 0;
        for (fe_tensor **out : outputs) {
            fe_tensor *result = produced[i++] ? results.at(next++) : nullptr;
            if (out) *out = result;
        }
    });
}

}  // namespace

fe_status add_described(const schema::Op &op, fe_graph *graph, const DescribedArguments &arguments,
                        const void *options, std::initializer_list<fe_tensor **> outputs) noexcept {
    return add_described(op, nullptr, graph, arguments, options, outputs);
}

fe_status add_described(const DescribedEntry &entry, fe_graph *graph, const DescribedArguments &arguments,
                        const void *options, std::initializer_list<fe_tensor **> outputs) noexcept {
    if (entry.op) return add_described(*entry.op, entry.convenience, graph, arguments, options, outputs);
    return guard(entry.function, [&] { FE_FAIL(FE_STATUS_INTERNAL, "the operation has no description"); });
}

}  // namespace fe
