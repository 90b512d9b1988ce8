#!/usr/bin/env python3
"""Write the C entry points of the described operations from the header.

An op's entry point does nothing its description (lib/ops/<op>.cpp) does not say: it finds the
description by its kind, and add_described (lib/api/described_entry.cpp) checks the pointers,
reads the options, adds the op and returns its outputs. So every function of include/cudnnfe.h
of that shape gets its body here, unless lib/api defines it by hand (the entry points that take
more than the description says: a mode, dims, the pointwise conveniences):

    fe_status fe_graph_<kind>(fe_graph *graph, fe_tensor *<input>...,
                              [size_t <count>, const int64_t *<array>...,] [fe_<enum> <param>...,]
                              [const fe_<x>_scales *scales,] const fe_<x>_options *options,
                              fe_tensor **out_<port>...);

Arrays after one count share it (slice's start and end), as the bindings' generators read the
description (bindings/schema_model.py).

The kind is the function's name without fe_graph_; a kind with no description is refused at the
call (FE_STATUS_INTERNAL) and by scripts/schema/check_entry_points.py in the test run.

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


def described_shape(params):
    """(inputs, params, scales, outputs) of a described entry point's parameters, or None: params
    as the C++ arguments that pass them (an array with its count, an enumeration's value)."""
    if not params or params[0] != ('fe_graph*', 'graph'):
        return None
    rest = params[1:]
    inputs = []
    while rest and rest[0][0] == 'fe_tensor*':
        inputs.append(rest.pop(0)[1])
    params = []
    while rest and rest[0][0] == 'size_t' and len(rest) > 1 and rest[1][0] == 'const int64_t*':
        count = rest.pop(0)[1]
        while rest and rest[0][0] == 'const int64_t*':
            params.append(f'ParamArgument::array_of({rest.pop(0)[1]}, {count}, "{count}")')
    while rest and re.fullmatch(r'fe_\w+', rest[0][0]) and not rest[0][0].endswith(('_options', '_scales')):
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
    return inputs, params, scales, outputs


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
        inputs, described, scales, outputs = shape
        kind = name[len('fe_graph_'):]
        signature = ', '.join(f'{t[:-1]} *{n}' if t.endswith('*') and not t.endswith('**') else
                              f'{t[:-2]} **{n}' if t.endswith('**') else f'{t} {n}' for t, n in params)
        arguments = (f'DescribedArguments{{{{{", ".join(inputs)}}}, {{{", ".join(described)}}}, {scales or "nullptr"}}}'
                     if scales or described else '{' + ', '.join(inputs) + '}')
        body += [f'FE_EXPORT fe_status {name}({signature}) {{',
                 f'    static const schema::Op *op = schema::find_op("{kind}");',
                 f'    return add_described(op, "{name}", graph, {arguments}, options, {{{", ".join(outputs)}}});',
                 '}', '']
    pathlib.Path(output).write_text('\n'.join(body))


if __name__ == '__main__':
    main()
