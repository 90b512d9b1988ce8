#!/usr/bin/env python3
"""Write the C entry points of the described operations from the header.

An op's entry point does nothing its description (lib/ops/<op>.cpp) does not say: it finds the
description by its own name (DescribedEntry: the op's, or the convenience's of a family, such as
fe_graph_bias, one mode of pointwise), and add_described (lib/api/described_entry.cpp) checks the
pointers, reads the options, adds the op and returns its outputs. So every function of
include/cudnnfe.h of that shape gets its body here, unless lib/api defines it by hand:

    fe_status fe_graph_<kind>(fe_graph *graph, [fe_<enum> mode,]
                              fe_tensor *<input>... | size_t <count>, fe_tensor *const *<inputs>,
                              [size_t <count>, const int64_t *<array>...,]
                              [fe_<enum> <param>... | int64_t <param>...,]
                              [const fe_<x>_scales *scales,] const fe_<x>_options *options,
                              fe_tensor **out_<port>...);

An enumeration before the tensors is the kind of a family of kinds (pointwise's mode); tensors
as an array with their count are the inputs of an op that takes more than its ports
(concatenate). Arrays after one count share it (slice's start and end), as the bindings'
generators read the description (bindings/schema_model.py).

A function with no description (neither an op's entry point nor a convenience's) is refused at
the call (FE_STATUS_INTERNAL) and by scripts/schema/check_entry_points.py in the test run.

usage: generate_entry_points.py HEADER OUTPUT HAND_WRITTEN.cpp...
"""
import pathlib
import re
import sys

DECLARATION = re.compile(r'FE_API\s+fe_status\s+(fe_graph_\w+)\s*\(([^;]*?)\)\s*;', re.S)
PARAM = re.compile(r'^(?P<type>.*?[\s*])(?P<name>\w+)$')


def params_of(text):
    out = []
    for raw in text.split(','):
        m = PARAM.match(' '.join(raw.split()))
        if not m:
            return None
        out.append((' '.join(m.group('type').replace('*', ' * ').split()).replace(' *', '*'), m.group('name')))
    return out


def is_enum(type_name):
    return re.fullmatch(r'fe_\w+', type_name) and not type_name.endswith(('_options', '_scales'))


def described_shape(params):
    """(inputs, params, scales, outputs, kind, input_array) of a described entry point's
    parameters, or None: params as the C++ arguments that pass them (an array with its count, an
    enumeration's value, an integer), input_array the (name, count) of inputs passed as an array."""
    if not params or params[0] != ('fe_graph*', 'graph'):
        return None
    rest = params[1:]
    kind = None
    if len(rest) > 1 and is_enum(rest[0][0]) and rest[1][0] == 'fe_tensor*':
        kind = rest.pop(0)[1]
    inputs, input_array = [], None
    if len(rest) > 1 and rest[0][0] == 'size_t' and rest[1][0] == 'fe_tensor* const*':
        input_array = (rest[1][1], rest[0][1])
        rest = rest[2:]
    while rest and rest[0][0] == 'fe_tensor*':
        inputs.append(rest.pop(0)[1])
    params = []
    while rest and rest[0][0] == 'size_t' and len(rest) > 1 and rest[1][0] == 'const int64_t*':
        count = rest.pop(0)[1]
        while rest and rest[0][0] == 'const int64_t*':
            params.append(f'ParamArgument::array_of({rest.pop(0)[1]}, {count}, "{count}")')
    while rest and (is_enum(rest[0][0]) or rest[0][0] == 'int64_t'):
        params.append(rest.pop(0)[1])
    scales = None
    if rest and re.fullmatch(r'const fe_\w+_scales\*', rest[0][0]) and rest[0][1] == 'scales':
        scales = rest.pop(0)[1]
    if not rest or not re.fullmatch(r'const fe_\w+_options\*', rest[0][0]) or rest[0][1] != 'options':
        return None
    rest.pop(0)
    outputs = [name for _, name in rest]
    if not outputs or any(t != 'fe_tensor**' or not n.startswith('out_') for t, n in rest):
        return None
    return inputs, params, scales, outputs, kind, input_array


def c_parameter(type_name, name):
    """A parameter as the header declares it, from its normalized type."""
    if type_name == 'fe_tensor* const*':
        return f'fe_tensor *const *{name}'
    if type_name.endswith('**'):
        return f'{type_name[:-2]} **{name}'
    if type_name.endswith('*'):
        return f'{type_name[:-1]} *{name}'
    return f'{type_name} {name}'


def main():
    header, output, *hand = sys.argv[1:]
    defined = set()
    for path in hand:
        defined.update(re.findall(r'FE_EXPORT\s+fe_status\s+(fe_\w+)\s*\(', pathlib.Path(path).read_text()))
    body = ['// Generated from include/cudnnfe.h by lib/api/generate_entry_points.py; do not edit.',
            '// The entry points of the described operations (see the generator for the shape).',
            '#include "api/described_entry.hpp"', '', 'using namespace fe;', '']
    for name, text in DECLARATION.findall(pathlib.Path(header).read_text()):
        params = params_of(text)
        shape = described_shape(params) if params and name not in defined else None
        if shape is None:
            continue
        inputs, described, scales, outputs, mode, input_array = shape
        signature = ', '.join(c_parameter(t, n) for t, n in params)
        if scales or described or mode or input_array:
            fields = [f'{{{", ".join(inputs)}}}', f'{{{", ".join(described)}}}', scales or 'nullptr']
            if mode or input_array:
                fields.append(mode or 'std::nullopt')
            if input_array:
                fields += [f'"{input_array[0]}"', input_array[0], input_array[1]]
            arguments = f'DescribedArguments{{{", ".join(fields)}}}'
        else:
            arguments = '{' + ', '.join(inputs) + '}'
        body += [f'FE_EXPORT fe_status {name}({signature}) {{',
                 f'    static const DescribedEntry entry("{name}");',
                 f'    return add_described(entry, graph, {arguments}, options, {{{", ".join(outputs)}}});',
                 '}', '']
    pathlib.Path(output).write_text('\n'.join(body))


if __name__ == '__main__':
    main()
