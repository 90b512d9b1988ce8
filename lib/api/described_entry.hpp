// The body of an op's C entry point, from its description (lib/schema). The entry points of the
// ops whose arguments are only their ports, scales and options are generated from the header
// (lib/api/generate_entry_points.py):
//
//   FE_EXPORT fe_status fe_graph_genstats(fe_graph *graph, fe_tensor *x,
//                                         const fe_genstats_options *options,
//                                         fe_tensor **out_sum, fe_tensor **out_sq_sum) {
//       static const DescribedEntry entry("fe_graph_genstats");
//       return add_described(entry, graph, {x}, options, {out_sum, out_sq_sum});
//   }
//
// Arrays with their count and enumeration values come as ParamArgument; a family's kind (the
// enumeration before the tensors) and inputs passed as an array with their count come as
// DescribedArguments' fields. A convenience (schema::Convenience: fe_graph_bias, one mode of the
// pointwise family) is generated the same way: its operands are the family's first ports, named
// its own way, its kind and its nodes' names are its description's.
//
// The header names the arguments after the description's ports (schema::argument_name: input
// X is `x`, output SUM is `out_sum`; scripts/schema/check_entry_points.py holds the header to
// it), which is how a NULL one is named in the message.
#pragma once

#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

#include "api/guard.hpp"
#include "schema/schema.hpp"

namespace fe {

// A parameter as an entry point received it: a value (an enumeration, an integer), or a C array of `count` values (the argument named `count_name`), which
// add_described checks (NULL, the count) and reads.
struct ParamArgument {
    schema::Call::Param given;
    const int64_t *array = nullptr;
    size_t count = 0;
    const char *count_name = nullptr;

    ParamArgument(schema::Call::Param param) : given(std::move(param)) {}
    ParamArgument(int64_t value) : given{{}, value} {}
    static ParamArgument array_of(const int64_t *values, size_t count, const char *count_name) {
        ParamArgument a(schema::Call::Param{});
        a.array = values;
        a.count = count;
        a.count_name = count_name;
        return a;
    }
};

struct DescribedArguments {
    std::initializer_list<fe_tensor *> inputs;  // Op::inputs, in order
    std::vector<ParamArgument> params;           // Op::params but flags, in order
    const void *scales = nullptr;                // the caller's scales struct (Op::scales)
    // A family of kinds (Op::kinds): the kind the caller chose (pointwise's mode).
    std::optional<int32_t> kind = std::nullopt;
    // Inputs passed as a C array (the argument `input_array_name`) of `input_count`, for an op
    // that takes more than its ports (Op::more_inputs: concatenate); `inputs` is then empty.
    const char *input_array_name = nullptr;
    fe_tensor *const *input_array = nullptr;
    size_t input_count = 0;
};

// Checks the pointers, reads the caller's options (nullable) and scales over the struct's
// defaults with read_options' struct_size rules, adds the op through its add function and
// returns the outputs the entry point returns. An output whose port has a `when` is nullable.
fe_status add_described(const schema::Op &op, fe_graph *graph, const DescribedArguments &arguments,
                        const void *options, std::initializer_list<fe_tensor **> outputs) noexcept;

inline fe_status add_described(const schema::Op &op, fe_graph *graph, std::initializer_list<fe_tensor *> inputs,
                               const void *options, std::initializer_list<fe_tensor **> outputs) noexcept {
    return add_described(op, graph, DescribedArguments{inputs, {}, nullptr}, options, outputs);
}

// What a generated entry point adds (lib/api/generate_entry_points.py): the description of the op
// whose entry point, or whose convenience's, `function` is; none is FE_STATUS_INTERNAL at the call.
struct DescribedEntry {
    explicit DescribedEntry(const char *function)
        : function(function), op(schema::find_entry_point(function, &convenience)) {}
    const char *function;
    const schema::Convenience *convenience = nullptr;  // declared before `op`, whose lookup sets it
    const schema::Op *op;
};

fe_status add_described(const DescribedEntry &entry, fe_graph *graph, const DescribedArguments &arguments,
                        const void *options, std::initializer_list<fe_tensor **> outputs) noexcept;

inline fe_status add_described(const DescribedEntry &entry, fe_graph *graph, std::initializer_list<fe_tensor *> inputs,
                               const void *options, std::initializer_list<fe_tensor **> outputs) noexcept {
    return add_described(entry, graph, DescribedArguments{inputs, {}, nullptr}, options, outputs);
}

}  // namespace fe
