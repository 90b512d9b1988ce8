// add_described: an op's entry point from its description.
#include "api/described_entry.hpp"

#include <cctype>
#include <cstddef>
#include <cstring>
#include <string>

#include "graph/graph.hpp"

namespace fe {

namespace {

std::string lower(const char *port) {
    std::string s = port;
    for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

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

// Whether an output with a condition exists: its option (a flag, an enum like phase, a tensor)
// is set, or, for a condition the options do not hold, the caller asked for it.
bool produced(const schema::Op &op, const schema::Port &port, const void *options, bool asked) {
    if (!port.when) return true;
    const schema::Field *f = op.options ? op.options->field(port.when) : nullptr;
    if (!f) return asked;
    if (f->type == schema::Type::tensor) return f->tensor_of(options) != nullptr;
    return f->integer_of(options) != 0;
}

}  // namespace

fe_status add_described(const schema::Op &op, fe_graph *graph, const DescribedArguments &arguments,
                        const void *options, std::initializer_list<fe_tensor **> outputs) noexcept {
    return guard(op.entry_point, [&] {
        FE_REQUIRE(graph);
        FE_CHECK(arguments.inputs.size() == op.inputs.size(), FE_STATUS_INTERNAL, "%zu inputs given, %zu described",
                 arguments.inputs.size(), op.inputs.size());
        schema::Call call;
        size_t i = 0;
        for (fe_tensor *input : arguments.inputs) {
            const schema::Port &port = op.inputs[i++];
            bool optional = port.when && std::strcmp(port.when, "optional") == 0;
            FE_CHECK(input || optional, FE_STATUS_NULL_POINTER, "argument '%s' is NULL", lower(port.name).c_str());
            call.inputs.push_back(input);
        }
        std::vector<const schema::Port *> returned;
        for (const schema::Port &port : op.outputs) returned.push_back(&port);
        FE_CHECK(outputs.size() == returned.size(), FE_STATUS_INTERNAL, "%zu outputs given, %zu described",
                 outputs.size(), returned.size());
        i = 0;
        for (fe_tensor **out : outputs) {
            const schema::Port &port = *returned[i++];
            FE_CHECK(out || port.when, FE_STATUS_NULL_POINTER, "argument 'out_%s' is NULL", lower(port.name).c_str());
        }
        call.params = arguments.params;
        CallerStruct scales(op.scales, arguments.scales), caller_options(op.options, options);
        call.scales = scales.data();
        call.options = caller_options.data();
        const std::vector<fe_tensor *> &results = op.add(*graph, call);
        size_t next = 0;
        i = 0;
        for (fe_tensor **out : outputs) {
            const schema::Port &port = *returned[i++];
            fe_tensor *result = produced(op, port, call.options, out != nullptr) ? results.at(next++) : nullptr;
            if (out) *out = result;
        }
    });
}

}  // namespace fe
