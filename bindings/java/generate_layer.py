#!/usr/bin/env python3
"""Write the Java layer that the op schema describes: an options class (or scales class) per struct,
GraphOps (one graph method per op, which Graph inherits), a result class for an op whose returned
outputs no existing result type holds, and an enum for a schema enum with no hand-written one.

The conventions common to every language come from bindings/schema_model.py; what is Java's own
(names, types, the result types that exist) is here.

usage: generate_layer.py SCHEMA_JSON OUT_DIR LIST_FILE HANDWRITTEN_DIR
"""
import pathlib
import sys
import textwrap

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import schema_model  # noqa: E402
import surface  # noqa: E402
from schema_model import camel, pascal  # noqa: E402

PACKAGE = 'dev.cudnnfe'
HEADER = ('// Generated from the op schema (cudnnfe schema) by bindings/java/generate_layer.py; '
          'do not edit.\n')

# The result types that exist, by the outputs they hold (the returned ports, in order; None: a
# field that port list does not fill). An op returning other outputs gets <Op>Result.
RESULT_TYPES = {
    ('Y', 'Stats'): ('TensorPair', ('Y', 'Stats')),
    ('C', 'Amax'): ('TensorPair', ('C', 'Amax')),
    ('SUM', 'SQ_SUM'): ('TensorPair', ('SUM', 'SQ_SUM')),
    ('Y', 'Scale'): ('TensorPair', ('Y', 'Scale')),
    ('Y', 'Index'): ('TensorPair', ('Y', 'Index')),
    ('Y', 'Mean', 'InvVariance'): ('NormResult', ('Y', 'Mean', 'InvVariance')),
    ('Y', 'InvRms'): ('NormResult', ('Y', None, 'InvRms')),
    ('Y', 'Mean', 'InvVariance', 'NextRunningMean', 'NextRunningVar'):
        ('BatchnormResult', ('Y', 'Mean', 'InvVariance', 'NextRunningMean', 'NextRunningVar')),
    ('DX', 'DScale', 'DBias'): ('NormGradients', ('DX', 'DScale', 'DBias')),
    ('O', 'Stats'): ('SdpaResult', ('O', 'Stats')),
    ('dQ', 'dK', 'dV'): ('SdpaGradients', ('dQ', 'dK', 'dV')),
    ('O', 'Stats', 'Amax_S', 'Amax_O'): ('SdpaFp8Result', ('O', 'Stats', 'Amax_S', 'Amax_O')),
    ('dQ', 'dK', 'dV', 'Amax_dQ', 'Amax_dK', 'Amax_dV', 'Amax_dP'):
        ('SdpaFp8Gradients', ('dQ', 'dK', 'dV', 'Amax_dQ', 'Amax_dK', 'Amax_dV', 'Amax_dP')),
}

# Setters of the public API that set fields which go together, for every struct that has them all.
GROUPED_SETTERS = [
    ('paddingMask', ('seq_len_q', 'seq_len_kv'), 'Padding mask: per-batch sequence lengths, int32 [b, 1, 1, 1] each.'),
    ('dropoutMask', ('dropout_mask', 'dropout_scale'), "Dropout with a caller's 0/1 mask, kept values scaled by scale."),
    ('dropout', ('dropout_probability', 'dropout_seed', 'dropout_offset'),
     'Dropout drawn by cuDNN (Philox) with one-element int64 seed and offset tensors.'),
    ('pagedCache', ('page_table_k', 'page_table_v', 'max_seq_len_kv'),
     'Paged K/V caches: the page tables of K and V and the longest sequence.'),
    ('runningStatistics', ('running_mean', 'running_var'),
     'Running statistics (float [1, C, 1, ...]): the call then also returns the updated ones.'),
    ('deselectNotes', ('deselect_numerical_notes', 'deselect_behavior_notes'),
     'Engines with any of these notes are not built (e.g. NONDETERMINISTIC for repeatable results).'),
    ('requireNotes', ('require_numerical_notes', 'require_behavior_notes'),
     'Only engines with all of these notes are built (e.g. SUPPORTS_CUDA_GRAPH_NATIVE_API).'),
]

KEYWORDS = {'abstract', 'boolean', 'byte', 'char', 'class', 'default', 'double', 'final', 'float',
            'int', 'long', 'new', 'package', 'private', 'public', 'return', 'short', 'static', 'switch',
            'this', 'throw', 'void', 'in', 'do', 'if', 'for', 'case', 'const', 'goto', 'native'}


def ident(snake):
    name = camel(snake)
    return name + '_' if name in KEYWORDS else name


def doc_text(text):
    return (text.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')
            .replace('*/', '*&#47;').replace('@', '&#64;'))


def javadoc(text, indent='    ', width=120):
    text = doc_text(text.strip())
    if not text:
        return []
    if len(indent) + len(text) + 7 <= width:
        return [f'{indent}/** {text} */']
    body = textwrap.wrap(text, width - len(indent) - 3)
    return [f'{indent}/**'] + [f'{indent} * {line}' for line in body] + [f'{indent} */']


def enum_class(c_type):
    return pascal(c_type[len('fe_'):])


# ---- options and scales classes -----------------------------------------------------------------

def java_type(struct, field):
    """(boxed storage type, setter parameter type) of a field."""
    t = field.type
    if t == 'name':
        return 'String', 'String'
    if t == 'flag':
        return 'Boolean', 'boolean'
    if t == 'number':
        return 'Double', 'double'
    if t == 'integer':
        return ('Integer', 'int') if field_size(struct, field) == 4 else ('Long', 'long')
    if t in ('spatial_count',):
        return 'Long', 'long'
    if t == 'enum':
        return enum_class(field.enum), enum_class(field.enum)
    if t == 'data_type':
        return 'DataType', 'DataType'
    if t == 'tensor':
        return 'Tensor', 'Tensor'
    if t in ('spatial_array', 'dims_array'):
        return 'long[]', 'long...'
    if t == 'tensor_array':
        return 'Tensor[]', 'Tensor...'
    if t == 'axes':
        return 'Long', 'int...'
    if t == 'enum_list':
        return enum_class(field.enum) + '[]', enum_class(field.enum) + '...'
    if t == 'flags':
        return f'Set<{enum_class(field.enum)}>', f'Set<{enum_class(field.enum)}>'
    if t == 'name_list':  # kept joined, as C takes it
        return 'String', 'String...'
    if t == 'kernel_cache':
        return 'KernelCache', 'KernelCache'
    raise SystemExit(f'generate_layer.py: no Java type for field type {t} ({field.name})')


def field_size(struct, field):
    """Bytes of a struct field: an integer of 4 bytes is a Java int."""
    return field.size


def store(field, value):
    """The statement that puts a set value into the native struct o."""
    setter = 'o.set' + field.name[0].upper() + field.name[1:]
    t = field.type
    if t == 'flag':
        return f'{setter}({value} ? 1 : 0);'
    if t in ('enum', 'data_type'):
        return f'{setter}({value}.code);'
    if t in ('tensor', 'kernel_cache'):
        return f'{setter}({value}.pointer());'
    if t == 'flags':
        return f'{setter}({enum_class(field.enum)}.mask({value}));'
    if t == 'enum_list':
        return f'o.set_{field.name}(Arrays.stream({value}).mapToInt(v -> v.code).toArray(), {value}.length);'
    if t == 'spatial_array':
        return f'Check.ok(NativeApi.{field.c_setter}(o, {value}.length, {value}));'
    if t == 'tensor_array':
        # As concatenate's inputs: a null entry goes as NULL, which the C setter names.
        return (f'long[] pointers = new long[{value}.length];\n'
                f'                for (int i = 0; i < {value}.length; ++i) pointers[i] = GraphBase.optional({value}[i]);\n'
                f'                Check.ok(NativeApi.{field.c_setter}(o, pointers.length, pointers));')
    return f'{setter}({value});'


def count_of(struct, array):
    """The dims_count field that gives a dims_array field's length: the nearest one before it."""
    index = struct.fields.index(array)
    for f in reversed(struct.fields[:index]):
        if f.type == 'dims_count':
            return f
    raise SystemExit(f'generate_layer.py: {struct.c_type}.{array.name} has no count field')


def options_class(struct):
    cls = struct.class_name
    storage = {}  # field name -> Java member name
    for f in struct.fields:
        if f.type not in ('dims_count', 'tensor_count', 'list_count'):  # a count is set with its array
            storage[f.name] = ident(f.name)
    lines = [HEADER, f'package {PACKAGE};', '']
    imports = (['import java.util.Arrays;'] if any(f.type in ('dims_array', 'enum_list') for f in struct.fields) else []) + \
        (['import java.util.List;'] if any(f.type == 'name_list' for f in struct.fields) else []) + \
        (['import java.util.Set;'] if any(f.type == 'flags' for f in struct.fields) else [])
    if imports:
        lines += imports + ['']
    lines += ['/**', f' * {doc_text(struct.doc)}',
              f' * Fields not set keep the C defaults ({struct.c_type.upper()}_INIT).',
              ' */', f'public final class {cls} {{']
    for f in struct.fields:
        if f.name in storage:
            lines.append(f'    private {java_type(struct, f)[0]} {storage[f.name]};')
    for f in struct.fields:
        if f.name not in storage:
            continue
        member = storage[f.name]
        method = ident(f.overload_of) if f.overload_of else member
        _, param = java_type(struct, f)
        lines.append('')
        lines += javadoc(f.doc + struct.array_note(f))
        if f.type == 'axes':
            lines += axes_setter(struct, f, member, method)
            continue
        if f.type == 'name_list':  # the names, or a list of them
            for param in ('String...', 'List<String>'):
                lines += [f'    public {cls} {method}({param} {member}) {{',
                          f'        this.{member} = {member} == null ? null : String.join(",", {member});',
                          '        return this;', '    }', '']
            lines.pop()
            continue
        value = f'{member}.clone()' if param.endswith('...') else member
        lines += [f'    public {cls} {method}({param} {member}) {{',
                  f'        this.{member} = {value};', '        return this;', '    }']
    for pair in struct.pairs:
        first, second = (storage[n] for n in pair.fields)
        lines += ['', f'    /** The same {doc_text(pair.name)} before and after. */',
                  f'    public {cls} {ident(pair.name)}(long... {ident(pair.name)}) {{',
                  f'        this.{first} = {ident(pair.name)}.clone();',
                  f'        this.{second} = {ident(pair.name)}.clone();', '        return this;', '    }']
    names = {f.name: f for f in struct.fields}
    for method, fields, doc in GROUPED_SETTERS:
        if not all(n in names for n in fields):
            continue
        params = ', '.join(f'{java_type(struct, names[n])[1]} {storage[n]}' for n in fields)
        lines += ['', f'    /** {doc_text(doc)} */', f'    public {cls} {method}({params}) {{']
        lines += [f'        this.{storage[n]} = {storage[n]};' for n in fields]
        lines += ['        return this;', '    }']
    if any(f.type == 'spatial_array' for f in struct.fields):
        lines += ['', '    /**',
                  '     * The native struct with the set fields; its arrays go through the C setters, so the C',
                  "     * rule holds (one value for every spatial dim, or one per dim) with the C library's message.",
                  '     */']
    elif any(f.c_setter for f in struct.fields):
        lines += ['', '    /**',
                  '     * The native struct with the set fields; its arrays go through the C setters, so the C',
                  "     * rules hold (how many, none null) with the C library's message.",
                  '     */']
    else:
        lines += ['', '    /** The native struct with the set fields. */']
    lines += [
              f'    {struct.c_type} toNative() {{', f'        {struct.c_type} o = new {struct.c_type}();',
              '        try {']
    for f in struct.fields:
        if f.name not in storage:
            continue
        member = storage[f.name]
        if f.type == 'dims_array':
            count = count_of(struct, f)
            capacity = len(f.default)
            lines += [f'            if ({member} != null) {{',
                      f'                if ({member}.length > {capacity}) {{',
                      '                    throw new InvalidArgumentException(',
                      f'                            "{cls}: " + {member}.length + " {f.name}, at most {capacity}");',
                      '                }',
                      f'                o.set{cap(count.name)}({member}.length);',
                      f'                o.set{cap(f.name)}(Arrays.copyOf({member}, {capacity}));',
                      '            }']
        elif f.type == 'tensor_array':
            lines += [f'            if ({member} != null) {{', f'                {store(f, member)}', '            }']
        else:
            line = f'            if ({member} != null) {store(f, member)}'
            if len(line) > 120:
                line = f'            if ({member} != null) {{\n                {store(f, member)}\n            }}'
            lines.append(line)
    lines += ['            return o;', '        } catch (RuntimeException e) {', '            o.close();',
              '            throw e;', '        }', '    }', '}']
    return '\n'.join(lines) + '\n'


def axes_setter(struct, field, member, method):
    cls = struct.class_name
    bits = 8 * field_size(struct, field)
    return [f'    public {cls} {method}(int... axes) {{',
            '        long mask = 0;',
            '        for (int axis : axes) {',
            f'            if (axis < 0 || axis >= {bits}) {{',
            '                throw new InvalidArgumentException(',
            f'                        "{cls}: axis " + axis + " is out of range");',
            '            }',
            '            mask |= 1L << axis;',
            '        }',
            f'        this.{member} = mask;',
            '        return this;',
            '    }']


def cap(name):
    return name[0].upper() + name[1:]


def scale_member(field):
    """descale_do -> descaleDO: the scale's role, then what it scales in capitals."""
    words = field.name.split('_')
    return words[0] + ''.join(w.upper() for w in words[1:])


def scales_class(struct):
    cls = struct.class_name
    lines = [HEADER, f'package {PACKAGE};', '', f'/**', f' * {doc_text(struct.doc)}', ' * An unset one passes NULL, which the library names in its error.', ' */',
             f'public final class {cls} {{']
    for f in struct.fields:
        if f.type != 'tensor':
            raise SystemExit(f'generate_layer.py: scales field {struct.c_type}.{f.name} is not a tensor')
        lines += javadoc(f.doc)
        lines.append(f'    public Tensor {scale_member(f)};')
    lines += ['', f'    {struct.c_type} toNative() {{', f'        {struct.c_type} s = new {struct.c_type}();']
    for f in struct.fields:
        lines.append(f'        s.set{cap(f.name)}(GraphBase.optional({scale_member(f)}));')
    lines += ['        return s;', '    }', '}']
    return '\n'.join(lines) + '\n'


# ---- graph methods ------------------------------------------------------------------------------

def name_only(struct):
    """An options struct that holds only the op's name is passed as the name."""
    return struct is not None and [f.name for f in struct.fields] == ['name']


def result_type(op, returned):
    key = tuple(p.name for p in returned)
    if len(returned) == 1:
        return 'Tensor', None
    if key in RESULT_TYPES:
        return RESULT_TYPES[key]
    return pascal(op.kind) + 'Result', key


def graph_method(op, model):
    returned = [p for p in op.outputs if op.returned(p)]
    flags = {p.name: p for p in op.params if p.type == 'flag'}
    rtype, order = result_type(op, returned)
    params, tail, docs, tail_docs, call, before = [], [], [], [], [], []
    arrays = []  # dims arrays sharing one count: (count name, [array names])
    for role, name, what in op.c_arguments():
        if role == 'mode':
            params.append(f'{enum_class(what)} mode')
            call.append(f'Check.notNull(mode, "Graph.{camel(op.kind)}", "mode").code')
        elif role == 'inputs':
            params.append('Tensor[] inputs')
            docs.append(f'inputs ({", ".join(p.name for p in what)}, ...): {what[0].doc}')
            before.append(f'long[] pointers = new long[Check.notNull(inputs, "Graph.{camel(op.kind)}", "inputs").length];')
            before.append('for (int i = 0; i < inputs.length; ++i) pointers[i] = optional(inputs[i]);')
            call.append('pointers')
        elif role == 'count':
            if name == 'count':
                call.append('pointers.length')
            else:
                arrays.append((name, []))
                call.append(None)  # filled once the arrays are known
        elif role == 'input':
            params.append(f'Tensor {ident(name)}')
            docs.append(f'{ident(name)} {"(nullable) " if what.optional else ""}{what.doc}')
            # A required input: a null one throws NullPointerException naming it.
            call.append(f'optional({ident(name)})' if what.optional
                        else f'required({ident(name)}, "{camel(op.kind)}", "{ident(name)}")')
        elif role == 'param':
            p = what
            if p.type == 'dims_array':
                params.append(f'long[] {ident(name)}')
                arrays[-1][1].append((ident(name), p.required))
                call.append(ident(name))
            elif p.type == 'enum':
                params.append(f'{enum_class(p.enum)} {ident(name)}')
                call.append(f'Check.notNull({ident(name)}, "Graph.{camel(op.kind)}", "{ident(name)}").code')
            elif p.type == 'integer':
                params.append(f'long {ident(name)}')
                call.append(ident(name))
            elif p.type == 'number':
                params.append(f'double {ident(name)}')
                call.append(ident(name))
            else:
                raise SystemExit(f'generate_layer.py: no Java type for parameter {op.kind}.{name} ({p.type})')
            docs.append(f'{ident(name)} {"" if p.type != "dims_array" or p.required else "(nullable) "}{p.doc}')
        elif role == 'scales':
            tail.append(f'{what.class_name} scales')
            tail_docs.append(f'scales {what.doc}')
            call.append('nativeScales')
        elif role == 'options':
            if name_only(what):
                tail.append('String name')
                tail_docs.append("name (nullable) the op's name; automatic when null")
            elif what is not None:
                tail.append(f'{what.class_name} options')
                tail_docs.append('options (nullable) the C defaults when null')
            call.append('nativeOptions')
        elif role == 'output':
            call.append(f'out{pascal(name)}')
    # A flag parameter has no C argument (it says whether a nullable output is asked for); it
    # comes after the other parameters.
    for p in op.params:
        if p.type == 'flag':
            params.append(f'boolean {ident(p.name)}')
            docs.append(f'{ident(p.name)} {p.doc}')
    params += tail
    docs += tail_docs
    # Counts of dims arrays.
    checks = []
    slots = iter(arrays)
    for i, c in enumerate(call):
        if c is None:
            _, members = next(slots)
            first, required = members[0]
            call[i] = f'{first}.length' if required else f'{first} == null ? 0 : {first}.length'
            for other, _ in members[1:]:
                checks.append(f'sameLength("{camel(op.kind)}", {first}.length, "{first} entries", '
                              f'{other}.length, "{other} entries");')
    lines = ['', '    /**', f'     * {doc_text(op.doc)}']
    if any(p.when for p in returned):
        lines.append('     * A conditional output is null when not produced.')
    for d in docs:
        lines.append(f'     * @param {doc_text(d)}')
    for i, p in enumerate(returned):
        lead = '@return' if i == 0 else '       '
        lines.append(f'     * {lead} {doc_text(p.name + ": " + p.doc)}')
    lines.append('     */')
    lines += wrap(f'    public {rtype} {camel(op.kind)}(', params, ') {')
    body = checks + before
    for p in returned:
        if p.when in flags:
            body.append(f'long[] out{pascal(p.name)} = {ident(p.when)} ? new long[1] : null;')
        else:
            body.append(f'long[] out{pascal(p.name)} = new long[1];')
    resources = []
    if op.scales is not None:
        resources.append(f'{op.scales.c_type} nativeScales = scales == null ? null : scales.toNative()')
    if name_only(op.options):
        resources.append(f'{op.options.c_type} nativeOptions = name == null ? null\n'
                         f'                     : new {op.options.class_name}().name(name).toNative()')
    elif op.options is not None:
        resources.append(f'{op.options.c_type} nativeOptions = options == null ? null : options.toNative()')
    indent = '            ' if resources else '        '
    invoke = wrap(f'{indent}Check.ok(NativeApi.{op.entry_point}(', ['pointer()'] + call, '));')
    lines += [f'        {b}' for b in body]
    if resources:
        lines.append(f'        try ({(";" + chr(10) + "             ").join(resources)}) {{')
        lines += invoke
        lines.append('        }')
    else:
        lines += invoke

    def value(port_name):
        if port_name is None:
            return 'null'
        p = next(x for x in returned if x.name == port_name)
        out = f'out{pascal(p.name)}'
        if p.when in flags:
            return f'{out} == null ? null : wrap({out}[0])'
        return f'wrap({out}[0])' if p.when else f'result({out}[0])'

    if rtype == 'Tensor':
        lines.append(f'        return {value(returned[0].name)};')
    else:
        lines += wrap(f'        return new {rtype}(', [value(n) for n in order], ');')
    lines.append('    }')
    return lines


def wrap(start, items, end, width=120, sep=', '):
    """start + items joined by sep + end, broken after a separator where a line would pass width; the
    continuation lines are indented 8 more than the first."""
    indent = ' ' * (len(start) - len(start.lstrip()) + 8)
    lines, line = [], start
    for i, item in enumerate(items):
        piece = item + (sep if i + 1 < len(items) else end)
        if len(line) + len(piece.rstrip()) > width and line.strip() and not line.endswith('('):
            lines.append(line.rstrip())
            line = indent
        line += piece
    if not items:
        line += end
    lines.append(line)
    return lines


def graph_ops(model):
    lines = [HEADER, f'package {PACKAGE};', '', '/**',
             ' * One method per op of the schema, in C argument order: inputs, parameters, scales, options',
             ' * (nullable: the C defaults), returning the outputs the entry point returns. Each result is',
             ' * virtual until setOutput(true).', ' */',
             'abstract class GraphOps extends GraphBase {',
             '    GraphOps(long pointer) {', '        super(pointer);', '    }']
    for op in model.ops:
        lines += graph_method(op, model)
    lines.append('}')
    return '\n'.join(lines) + '\n'


# The result classes RESULT_TYPES shares between ops: their docs and fields (constructor order).
SHARED_RESULTS = {
    'TensorPair': ('Two results of one operation: softmax (y, stats; stats null unless asked for), block scale '
                   'quantize (y, scale), FP8 matmul (y, amax), genstats (sum, sum of squares).', ['first', 'second']),
    'NormResult': ('A normalization\'s outputs: y, and in training the float statistics (null in inference). For '
                   'rmsnorm, mean is null and invVariance is the inverse RMS.', ['y', 'mean', 'invVariance']),
    'BatchnormResult': ('Batchnorm\'s outputs; the next running statistics are null without running statistics.',
                        ['y', 'mean', 'invVariance', 'nextRunningMean', 'nextRunningVar']),
    'NormGradients': ('A normalization backward\'s outputs; dbias is null where the forward had no bias.',
                      ['dx', 'dscale', 'dbias']),
    'SdpaResult': ('Attention forward\'s outputs: O, and the softmax stats when asked for (else null).',
                   ['o', 'stats']),
    'SdpaGradients': ('Attention backward\'s outputs.', ['dq', 'dk', 'dv']),
    'SdpaFp8Result': ('FP8 attention forward\'s outputs: O, the stats (null unless asked for), and the float amax '
                      'of S and O.', ['o', 'stats', 'amaxS', 'amaxO']),
    'SdpaFp8Gradients': ('FP8 attention backward\'s outputs: dQ, dK, dV and the float amax of each and of dP.',
                         ['dq', 'dk', 'dv', 'amaxDq', 'amaxDk', 'amaxDv', 'amaxDp']),
}


def shared_result_class(cls):
    doc, fields = SHARED_RESULTS[cls]
    lines = [HEADER, f'package {PACKAGE};', ''] + [line[4:] for line in javadoc(doc)]
    lines += [f'public final class {cls} {{'] + [f'    public final Tensor {f};' for f in fields]
    lines += ['', f'    {cls}({", ".join(f"Tensor {f}" for f in fields)}) {{']
    lines += [f'        this.{f} = {f};' for f in fields] + ['    }', '}']
    return '\n'.join(lines) + '\n'


def result_class(op, returned):
    cls = pascal(op.kind) + 'Result'
    lines = [HEADER, f'package {PACKAGE};', '', f'/** The outputs of {doc_text(op.kind)}; a conditional one is null when not produced. */',
             f'public final class {cls} {{']
    for p in returned:
        lines += javadoc(p.doc)
        lines.append(f'    public final Tensor {ident(p.name)};')
    args = ', '.join(f'Tensor {ident(p.name)}' for p in returned)
    lines += ['', f'    {cls}({args}) {{']
    lines += [f'        this.{ident(p.name)} = {ident(p.name)};' for p in returned]
    lines += ['    }', '}']
    return '\n'.join(lines) + '\n'


# The element type's own methods: its size, bits and name come from the C library.
DATA_TYPE_METHODS = [
    '', '    /** Bytes per element (0 for NOT_SET and the 4-bit types). */', '    public long size() {',
    '        return NativeApi.fe_data_type_size(code);', '    }', '',
    '    /** Bits per element: 4 for INT4 and UINT4 (0 for NOT_SET). */', '    public long bits() {',
    '        return NativeApi.fe_data_type_bits(code);', '    }', '',
    '    /** The C library\'s name of the type ("half", "bfloat16", ...). */', '    public String libraryName() {',
    '        return NativeApi.fe_data_type_string(code);', '    }',
]


STATUS_METHODS = [
    '', '    /** The C library\'s name of the status ("FE_STATUS_NOT_SUPPORTED", ...). */',
    '    public String libraryName() {', '        return NativeApi.fe_status_string(code);', '    }',
]


def flags_source(enum):
    """An enum of one bit each, taken and returned as a Set of its constants."""
    cls = enum_class(enum.c_type)
    lines = [HEADER, f'package {PACKAGE};', '', 'import java.util.EnumSet;', 'import java.util.Set;', '',
             f'/** {doc_text(enum.doc)} */', f'public enum {cls} {{']
    for i, (suffix, (c_name, _, value)) in enumerate(zip(schema_model.value_suffixes(enum), enum.values)):
        lines += javadoc(enum.value_docs.get(c_name, ''))
        lines.append(f'    {suffix}({value}){"," if i + 1 < len(enum.values) else ";"}')
    lines += ['', '    public final long bit;', '', f'    {cls}(long bit) {{', '        this.bit = bit;', '    }', '',
              f'    static long mask(Set<{cls}> values) {{', '        long mask = 0;',
              f'        for ({cls} value : values) mask |= value.bit;', '        return mask;', '    }', '',
              f'    static Set<{cls}> of(long mask) {{', f'        Set<{cls}> values = EnumSet.noneOf({cls}.class);',
              f'        for ({cls} value : values()) if ((mask & value.bit) != 0) values.add(value);',
              '        return values;', '    }', '}']
    return '\n'.join(lines) + '\n'


def enum_source(enum):
    if enum.flags:
        return flags_source(enum)
    cls = enum_class(enum.c_type)
    status = enum.c_type == 'fe_status'
    lines = [HEADER, f'package {PACKAGE};', '', f'/** {doc_text(enum.doc)} */', f'public enum {cls} {{']
    for i, (suffix, (c_name, _, value)) in enumerate(zip(schema_model.value_suffixes(enum), enum.values)):
        end = ',' if i + 1 < len(enum.values) or status else ';'
        lines += javadoc(enum.value_docs.get(c_name, ''))
        lines.append(f'    {suffix}({value}){end}')
    if status:
        # A status from a newer library than this binding knows is still a status.
        lines += javadoc('A code this binding does not know (from a newer library); see {@link CudnnFeException#code()}.')
        lines.append('    UNKNOWN(-1);')
    lines += ['', '    public final int code;', '', f'    {cls}(int code) {{', '        this.code = code;', '    }']
    if enum.c_type == 'fe_data_type':
        lines += DATA_TYPE_METHODS
    if status:
        lines += STATUS_METHODS
    unknown = '        return UNKNOWN;' if status else \
        f'        throw new InvalidArgumentException("unknown {cls} " + code);'
    lines += ['', f'    /** The constant of a value the C library returned. */', f'    static {cls} of(int code) {{',
              f'        for ({cls} value : values()) {{', '            if (value.code == code) return value;', '        }',
              unknown, '    }', '}']
    return '\n'.join(lines) + '\n'


# ---- the objects beside the ops (bindings/surface.py) -----------------------------------------------

def surface_doc(text, indent='    '):
    rendered = surface.render(
        text, lambda cls, member: f'{{@link\u00a0{cls}#{surface.camel(member)}}}', lambda status: status,
        {'close': 'close()', 'closes': 'closes', 'thread': 'thread', 'threads': 'threads', 'null': 'null',
         'no_text': 'null'})
    # Rendered links are markup, not text to escape.
    # A link is not broken across lines (its space is a no-break one until the text is wrapped).
    body = [line.replace('\u00a0', ' ') for line in
            textwrap.wrap(rendered.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;'), 100 - len(indent) - 3)]
    if len(body) == 1 and len(indent) + len(body[0]) + 7 <= 100:
        return [f'{indent}/** {body[0]} */']
    return [f'{indent}/**'] + [f'{indent} * {line}' for line in body] + [f'{indent} */']


# Each kind of value: its Java type, and the C arguments made of it ({n}: its name).
SURFACE_TYPES = {
    'int32': ('int', ['{n}']), 'int64': ('long', ['{n}']), 'stream': ('long', ['{n}']), 'address': ('long', ['{n}']),
    'double': ('double', ['{n}']),
    'byte': ('byte', ['(short) ({n} & 0xFF)']), 'bool': ('boolean', ['{n} ? 1 : 0']),
    'tensor': lambda p: ('Tensor', ['{n} == null ? 0 : {n}.pointer()' if p.nullable
                                    else 'Check.notNull({n}, "{m}", "{n}").pointer()']),
    'handle': lambda p: ('Handle', ['{n} == null ? 0 : {n}.pointer()' if p.nullable
                                    else 'Check.notNull({n}, "{m}", "{n}").pointer()']),
    'text': ('String', ['{n}']),
    'text_with_length': ('String', ['{n}', '{n} == null ? 0 : {n}.getBytes(StandardCharsets.UTF_8).length']),
    'kernel_cache': ('KernelCache', ['{n} == null ? 0 : {n}.pointer()']),
    'enum': lambda p: (enum_class(p.enum), ['Check.notNull({n}, "{m}", "{n}").code']),
    'tensors': ('Tensor[]', ['pointers({n}, "{m}", "{n}")']),
    'buffers': ('DeviceBuffer[]', ['pointers({n}, "{m}", "{n}")']),
    'addresses': ('long[]', ['Check.notNull({n}, "{m}", "{n}")']),
    'int64s': ('long[]', ['Check.notNull({n}, "{m}", "{n}")']),
    'bytes': ('byte[]', ['Check.notNull({n}, "{m}", "{n}")', '{n}.length']),
    'options': lambda p: (pascal(p.struct[len('fe_'):]), ['o']),
    'enums': lambda p: (enum_class(p.enum) + ('...' if p.variadic else '[]'),
                        ['Arrays.stream(Check.notNull({n}, "{m}", "{n}")).mapToInt(v -> v.code).toArray()']),
    'flags': lambda p: (f'Set<{enum_class(p.enum)}>', [f'{enum_class(p.enum)}.mask(Check.notNull({{n}}, "{{m}}", "{{n}}"))']),
    'names': lambda p: ('String' + ('...' if p.variadic else '[]'), ['String.join(",", Check.notNull({n}, "{m}", "{n}"))']),
    # One array per field of the record.
    'records': lambda p: (p.record + ('...' if p.variadic else '[]'),
                          [f'Arrays.stream(Check.notNull({{n}}, "{{m}}", "{{n}}")).{record_stream(f)}(v -> v.{surface.camel(f.name)}).toArray()'
                           for f in surface.record(p.record).fields]),
    # The arrays' common length: one array's own, or the one count_check found.
    'count': lambda arrays: f'{arrays[0][0]}.length' if len(arrays) == 1 else 'count',
}


def count_check(params, member):
    """The statement that checks arrays going together to be of one length, before any other check."""
    arrays = [p for p in params if p.kind in surface.ARRAYS]
    if len(arrays) < 2:
        return []
    pairs = ', '.join(f'{surface.camel(p.name)}, "{" ".join(surface.words(p.name))}"' for p in arrays)
    return [f'        int count = count("{member}", {pairs});']

# The helpers of the calls that take arrays, in the class of their calls.
ARRAY_HELPERS = [
    '', '    /** The pointers of the objects, none null. */',
    '    static long[] pointers(Tensor[] tensors, String method, String parameter) {',
    '        long[] pointers = new long[Check.notNull(tensors, method, parameter).length];',
    '        for (int i = 0; i < pointers.length; ++i) {',
    '            // The element\'s name is made only for its error: an execute builds no string.',
    '            if (tensors[i] == null) Check.notNull(null, method, parameter + "[" + i + "]");',
    '            pointers[i] = tensors[i].pointer();', '        }',
    '        return pointers;', '    }', '',
    '    static long[] pointers(DeviceBuffer[] buffers, String method, String parameter) {',
    '        long[] pointers = new long[Check.notNull(buffers, method, parameter).length];',
    '        for (int i = 0; i < pointers.length; ++i) {',
    '            // The element\'s name is made only for its error: an execute builds no string.',
    '            if (buffers[i] == null) Check.notNull(null, method, parameter + "[" + i + "]");',
    '            pointers[i] = buffers[i].pointer();', '        }',
    '        return pointers;', '    }', '',
    '    /** The common length of two arrays that go together (a null one is refused by its own check). */',
    '    static int count(String method, Object first, String what, Object second, String other) {',
    '        if (first == null || second == null) return 0;',
    '        sameLength(method, Array.getLength(first), what, Array.getLength(second), other);',
    '        return Array.getLength(first);', '    }',
]


def record_stream(field):
    return {'int32': 'mapToInt', 'int64': 'mapToLong'}[field.kind]


# A record field's Java type, its C out-parameter's element type, and what turns a C value into it.
RECORD_TYPES = {'text': ('String', 'String', '{}'), 'int32': ('int', 'int', '{}'), 'int64': ('long', 'long', '{}'),
                'bool': ('boolean', 'int', '{} != 0')}


def record_type(field):
    if field.kind == 'flags':
        cls = enum_class(field.enum)
        return f'Set<{cls}>', 'long', f'{cls}.of({{}})'
    return RECORD_TYPES[field.kind]


def record_class(rec, handwritten):
    """A record: public final fields, compared by value."""
    idioms = (pathlib.Path(handwritten) / f'{rec.name}.members').read_text().splitlines() if rec.idioms else []
    names = [surface.camel(f.name) for f in rec.fields]
    types = [record_type(f)[0] for f in rec.fields]
    lines = ['// Generated from bindings/surface.py by bindings/java/generate_layer.py; do not edit.\n',
             f'package {PACKAGE};', '', 'import java.util.Collections;', 'import java.util.Objects;',
             'import java.util.Set;', ''] + surface_doc(rec.doc + ' Immutable.', '') + [f'public final class {rec.name} {{']
    for f, name, t in zip(rec.fields, names, types):
        lines += surface_doc(f.doc) + [f'    public final {t} {name};']
    visibility = 'public ' if rec.public else ''
    lines += ['', *wrap(f'    {visibility}{rec.name}(', [f'{t} {n}' for t, n in zip(types, names)], ') {')]
    lines += [f'        this.{n} = ' + (f'Collections.unmodifiableSet({n});' if f.kind == 'flags' else f'{n};')
              for f, n in zip(rec.fields, names)]
    lines += ['    }', '', '    @Override', '    public boolean equals(Object other) {',
              f'        if (!(other instanceof {rec.name})) return false;', f'        {rec.name} o = ({rec.name}) other;',
              *wrap('        return ', [f'Objects.equals({n}, o.{n})' for n in names], ';', sep=' && '), '    }', '',
              '    @Override', '    public int hashCode() {', *wrap('        return Objects.hash(', names, ');'), '    }', '',
              '    @Override', '    public String toString() {',
              *wrap(f'        return "{rec.name}{{" + ', [f'"{n}=" + {n}' for n in names], ' + "}";', sep=' + ", " + '),
              '    }']
    return '\n'.join(lines + ([''] + idioms if idioms else []) + ['}']) + '\n'


def with_options(params, statements):
    """The statements, inside a try that makes (and frees) the native struct of an 'options' parameter."""
    options = [p for p in params if p.kind == 'options']
    if not options:
        return statements
    p = options[0]
    return ([f'        try ({p.struct} o = {surface.camel(p.name)} == null ? null : {surface.camel(p.name)}.toNative()) {{'] +
            ['    ' + line for line in statements] + ['        }'])


def without_defaults(call, name, cls):
    """Java has no default arguments: the overload without the trailing ones that default to null."""
    params = list(call.params)
    dropped = []
    while params and params[-1].default == 'null':
        dropped.append(params.pop())
    if not dropped or call.kind not in ('method', 'tensor_query', 'query', 'factory'):
        return []
    declared, _ = surface_arguments(params)
    names = [surface.camel(p.name) for p in params if p.kind != 'count'] + ['null'] * len(dropped)
    returns = {'method': 'void', 'tensor_query': 'Tensor', 'factory': f'static {cls}'}.get(
        call.kind, enum_class(call.enum) if call.returns == 'enum' else SURFACE_TYPES.get(call.returns, ('',))[0])
    body = f'{name}({", ".join(names)});'
    return ['', f'    public {returns} {name}({", ".join(declared)}) {{',
            f'        {"" if returns == "void" else "return "}{body}', '    }']


def list_overload(call, name):
    """The overload of a method whose variable arguments (names, records) may also be given as a List."""
    last = [p for p in call.params if p.kind != 'count'][-1] if call.params else None
    if not last or not last.variadic or last.kind not in ('names', 'records'):
        return []
    element = 'String' if last.kind == 'names' else last.record
    declared, _ = surface_arguments([p for p in call.params if p.kind != 'count' and p is not last])
    names = [surface.camel(p.name) for p in call.params if p.kind != 'count' and p is not last]
    n = surface.camel(last.name)
    return ['', f'    public void {name}({", ".join(declared + [f"List<{element}> {n}"])}) {{',
            f'        {name}({", ".join(names + [f"Check.notNull({n}, {chr(34)}Graph.{name}{chr(34)}, {chr(34)}{n}{chr(34)}).toArray(new {element}[0])"])});',
            '    }']


def call_lines(function, args, indent='        '):
    """Check.ok(NativeApi.function(args)); broken after a comma where long."""
    return wrap(f'{indent}Check.ok(NativeApi.{function}(', args, '));')
# A getter's result kinds beyond the values above: (Java type, the out-parameter's element type,
# what turns the element into the result).
SURFACE_RESULTS = {'bool': ('boolean', 'int', '{} != 0'), 'borrowed_text': ('String', 'String', '{}')}


def surface_arguments(params_of, member=''):
    """(Java parameters, C arguments before the out-parameter)."""
    return surface.arguments(params_of, SURFACE_TYPES, surface.camel, member)


def surface_class(obj, handwritten):
    cls = obj.name
    # The object's members in Java's own idiom, written by hand (their imports first).
    idioms = (pathlib.Path(handwritten) / f'{cls}.members').read_text().splitlines() if obj.idioms else []
    imports = [line for line in idioms if line.startswith('import ')]
    if any(p.kind == 'text_with_length' for c in obj.calls for p in c.params):
        imports.append('import java.nio.charset.StandardCharsets;')
    if any(p.kind in surface.ARRAYS for c in obj.calls for p in c.params):
        imports.append('import java.lang.reflect.Array;')
    if any(c.kind in ('tensor_list', 'record_list') or any(p.variadic for p in c.params) for c in obj.calls):
        imports += ['import java.util.ArrayList;', 'import java.util.List;']
    if any(p.kind in ('enums', 'records') for c in obj.calls for p in c.params):
        imports.append('import java.util.Arrays;')
    if any(p.kind == 'flags' for c in obj.calls for p in c.params):
        imports.append('import java.util.Set;')
    lines = ['// Generated from bindings/surface.py by bindings/java/generate_layer.py; do not edit.\n',
             f'package {PACKAGE};', '']
    lines += sorted(set(imports)) + ([''] if imports else [])
    if obj.calls_only and obj.java_base:  # the calls, between the generated base and the hand-written class
        lines += [f'/** {cls}\'s calls described in bindings/surface.py; {cls} extends this class. */',
                  f'abstract class {cls}Calls extends {obj.java_base} {{', f'    {cls}Calls(long pointer) {{',
                  '        super(pointer);', '    }']
    elif obj.calls_only:  # the calls, in a base of the hand-written class, which gives the pointer
        lines += [f'/** {cls}\'s calls described in bindings/surface.py; {cls} extends this class. */',
                  f'abstract class {cls}Calls {{', '    abstract long pointer();']
    else:
        lines += surface_doc(obj.doc, '') + [f'public final class {cls} extends NativeObject {{']
    if obj.create:
        params, args = surface_arguments(obj.create_params)
        defaults = [str(p.default) for p in obj.create_params if p.default is not None]
        if defaults and len(defaults) == len(params):  # the constructor without arguments fills in the defaults
            lines += surface_doc(f'{obj.create_doc[:-1]}, with {", ".join(f"{p.name} {p.default}" for p in obj.create_params)}.')
            lines += [f'    public {cls}() {{', f'        this({", ".join(defaults)});', '    }', '']
        lines += surface_doc(obj.create_doc) + [f'    public {cls}({", ".join(params)}) {{',
                                                f'        super(create({", ".join(args)}), "{cls}");', '    }', '']
    if any(c.kind == 'factory' for c in obj.calls) and not obj.calls_only:
        lines += ['    /** Take ownership of one the library made. */', f'    private {cls}(long pointer) {{',
                  f'        super(pointer, "{cls}");', '    }', '']
    if obj.create:
        lines += [f'    private static long create({", ".join(params)}) {{', '        long[] made = new long[1];',
                  f'        Check.ok(NativeApi.{obj.create}({", ".join(args + ["made"])}));', '        return made[0];',
                  '    }', '']
    if not obj.calls_only:
        lines += ['    @Override', '    void destroy(long pointer) {', f'        NativeApi.{obj.destroy}(pointer);', '    }']
    for call in obj.calls:
        name = call.names.get('java', surface.camel(call.name))
        params, args = surface_arguments(call.params, f'{cls}.{name}')
        lines += [''] + surface_doc(call.doc)
        if call.kind == 'tensor_list':  # the graph's tensors, counted, then each by its index
            lines += [f'    public List<Tensor> {name}() {{', '        long[] count = new long[1];',
                      f'        Check.ok(NativeApi.{call.count_function}(pointer(), count));',
                      '        List<Tensor> tensors = new ArrayList<>();', '        long[] tensor = new long[1];',
                      '        for (long i = 0; i < count[0]; ++i) {',
                      f'            Check.ok(NativeApi.{call.c_function}(pointer(), i, tensor));',
                      '            tensors.add(result(tensor[0]));', '        }', '        return tensors;', '    }']
        elif call.kind == 'bytes_method':
            lines += [f'    public byte[] {name}() {{', '        long self = pointer();',
                      f'        return CudnnFe.Text.readBytes((buffer, length) -> NativeApi.{call.c_function}(self, buffer,',
                      '                buffer == null ? 0 : buffer.length, length));', '    }']
        elif call.kind == 'static_text':
            lines += [f'    public static String {name}({", ".join(params)}) {{',
                      *wrap(f'        return CudnnFe.Text.read((buffer, length) -> NativeApi.{call.c_function}(',
                            args + ['buffer', 'buffer == null ? 0 : buffer.length', 'length'], '));'), '    }']
        elif call.kind == 'text_method':
            lines += [f'    public String {name}() {{', '        long self = pointer();',
                      f'        return CudnnFe.Text.read((buffer, length) -> NativeApi.{call.c_function}(self, buffer,',
                      '                buffer == null ? 0 : buffer.length, length));', '    }']
        elif call.kind == 'tensor_query':  # a tensor of this graph
            lines += [f'    public Tensor {name}({", ".join(params)}) {{', '        long[] tensor = new long[1];',
                      *with_options(call.params, call_lines(call.c_function, ['pointer()'] + args + ['tensor'])),
                      '        return result(tensor[0]);', '    }']
        elif call.kind == 'record_query':  # a record read from the C struct the call fills
            rec = surface.record(call.record)
            values = [record_type(f)[2].format(f'out.get{f.name[0].upper()}{f.name[1:]}()') for f in rec.fields]
            lines += [f'    public {rec.name} {name}({", ".join(params)}) {{',
                      f'        try ({rec.c_struct} out = new {rec.c_struct}()) {{',
                      *call_lines(call.c_function, ['pointer()'] + args + ['out'], '            '),
                      *wrap(f'            return new {rec.name}(', values, ');'), '        }', '    }']
        elif call.kind == 'record_outs':  # a record of the call's out-parameters, one per field
            rec = surface.record(call.record)
            outs = [surface.camel(f.name) for f in rec.fields]
            lines += [f'    public {rec.name} {name}({", ".join(params)}) {{']
            lines += [f'        {record_type(f)[1]}[] {o} = new {record_type(f)[1]}[1];' for f, o in zip(rec.fields, outs)]
            lines += [*call_lines(call.c_function, ['pointer()'] + args + outs),
                      *wrap(f'        return new {rec.name}(',
                            [record_type(f)[2].format(f'{o}[0]') for f, o in zip(rec.fields, outs)], ');'), '    }']
        elif call.kind == 'record_list':  # records in one array per field: counted, then filled
            rec = surface.record(call.record)
            outs = [surface.camel(f.name) for f in rec.fields]
            lines += [f'    public List<{rec.name}> {name}({", ".join(params)}) {{', '        long[] count = new long[1];',
                      *wrap(f'        int status = NativeApi.{call.c_function}(',
                            ['pointer()'] + args + ['null'] * len(outs) + ['0', 'count'], ');'),
                      '        if (status != Status.BUFFER_TOO_SMALL.code) Check.ok(status);', '        int n = (int) count[0];']
            lines += [f'        {record_type(f)[1]}[] {o} = new {record_type(f)[1]}[n];' for f, o in zip(rec.fields, outs)]
            lines += [*call_lines(call.c_function, ['pointer()'] + args + outs + ['n', 'count']),
                      f'        List<{rec.name}> values = new ArrayList<>();',
                      *wrap('        for (int i = 0; i < (int) count[0]; ++i) values.add(new ' + rec.name + '(',
                            [record_type(f)[2].format(f'{o}[i]') for f, o in zip(rec.fields, outs)], '));'),
                      '        return values;', '    }']
        elif call.kind == 'query' and call.returns == 'enum':
            value = enum_class(call.enum)
            lines += [f'    public {value} {name}({", ".join(params)}) {{', '        int[] value = new int[1];',
                      *call_lines(call.c_function, ['pointer()'] + args + ['value']),
                      f'        return {value}.of(value[0]);', '    }']
        elif call.kind == 'query':
            value = SURFACE_TYPES[call.returns][0]
            call_line = f'        Check.ok(NativeApi.{call.c_function}({", ".join(["pointer()"] + args + ["value"])}));'
            if len(call_line) > 120:
                call_line = (f'        Check.ok(NativeApi.{call.c_function}(pointer(),\n'
                             f'                {", ".join(args + ["value"])}));')
            lines += [f'    public {value} {name}({", ".join(params)}) {{', f'        {value}[] value = new {value}[1];',
                      call_line, '        return value[0];', '    }']
        elif call.kind == 'setter':  # returns the object, for chained calls
            lines += [f'    public {cls} {name}({", ".join(params)}) {{',
                      f'        Check.ok(NativeApi.{call.c_function}({", ".join(["pointer()"] + args)}));',
                      f'        return ({cls}) this;', '    }']
        elif call.kind == 'getter' and call.returns == 'enum':
            value = enum_class(call.enum)
            lines += [f'    public {value} {name}() {{', '        int[] value = new int[1];',
                      f'        Check.ok(NativeApi.{call.c_function}(pointer(), value));',
                      f'        return {value}.of(value[0]);', '    }']
        elif call.kind == 'getter':
            value, element, result = (SURFACE_RESULTS[call.returns] if call.returns in SURFACE_RESULTS
                                      else (SURFACE_TYPES[call.returns][0],) * 2 + ('{}',))
            lines += [f'    public {value} {name}() {{', f'        {element}[] value = new {element}[1];',
                      f'        Check.ok(NativeApi.{call.c_function}(pointer(), value));',
                      f'        return {result.format("value[0]")};', '    }']
        elif call.kind == 'method':
            lines += [f'    public void {name}({", ".join(params)}) {{', *count_check(call.params, f'{cls}.{name}'),
                      *with_options(call.params, call_lines(call.c_function, ['pointer()'] + args)), '    }']
        else:  # factory
            arguments = args + ['made']
            made = [f'        Check.ok(NativeApi.{call.c_function}({", ".join(arguments)}));']
            if len(made[0]) > 100:  # the first argument, then the rest on a line of their own
                made = [f'        Check.ok(NativeApi.{call.c_function}({arguments[0]},',
                        f'                {", ".join(arguments[1:])}));']
            if len(made[-1]) > 120:
                made = call_lines(call.c_function, arguments)
            lines += [f'    public static {cls} {name}({", ".join(params)}) {{', '        long[] made = new long[1];',
                      *with_options(call.params, made), f'        return new {cls}(made[0]);', '    }']
        lines += without_defaults(call, name, cls) + list_overload(call, name)
    if any(p.kind in surface.ARRAYS for c in obj.calls for p in c.params):
        lines += ARRAY_HELPERS
    body = [line for line in idioms if not line.startswith('import ')]
    while body and not body[0].strip():
        body.pop(0)
    return '\n'.join(lines + ([''] + body if body else []) + ['}']) + '\n'


def module_class(module):
    """CudnnFeCalls: the library's functions described in surface.py, static methods CudnnFe inherits."""
    lines = ['// Generated from bindings/surface.py by bindings/java/generate_layer.py; do not edit.\n',
             f'package {PACKAGE};', '',
             '/** The library\'s functions described in bindings/surface.py; CudnnFe extends this class. */',
             'abstract class CudnnFeCalls {', '    CudnnFeCalls() {}']
    for call in module.calls:
        name = call.names.get('java', surface.camel(call.name))
        params, args = surface_arguments(call.params, f'CudnnFe.{name}')
        lines += [''] + surface_doc(call.doc)
        if call.kind == 'getter':
            value = SURFACE_TYPES[call.returns][0]
            lines += [f'    public static {value} {name}() {{', f'        {value}[] value = new {value}[1];',
                      f'        Check.ok(NativeApi.{call.c_function}(value));', '        return value[0];', '    }']
        elif call.kind == 'text_method':
            lines += [f'    public static String {name}({", ".join(params)}) {{',
                      f'        return CudnnFe.Text.read((buffer, length) -> NativeApi.{call.c_function}('
                      + ''.join(a + ', ' for a in args) + 'buffer,',
                      '                buffer == null ? 0 : buffer.length, length));', '    }']
        else:  # method
            lines += [f'    public static void {name}({", ".join(params)}) {{',
                      f'        Check.ok(NativeApi.{call.c_function}({", ".join(args)}));', '    }']
    return '\n'.join(lines + ['}']) + '\n'


def exception_classes(model):
    """One exception class a status, under CudnnFeException, and StatusExceptions.of, which makes the
    class of a status."""
    status = model.enums['fe_status']
    files, cases = {}, []
    for suffix, (c_name, _, value) in zip(schema_model.value_suffixes(status), status.values):
        cls = surface.exception_name(suffix)
        if cls is None:
            continue
        doc = status.value_docs.get(c_name, '')
        files[cls] = '\n'.join([
            '// Generated from the op schema (cudnnfe schema) by bindings/java/generate_layer.py; do not edit.\n',
            f'package {PACKAGE};', '', f'/** A call that failed with {suffix}: {doc_text(doc[0].lower() + doc[1:])} */',
            f'public class {cls} extends CudnnFeException {{', '    private static final long serialVersionUID = 1L;', '',
            f'    {cls}(int code, String function, String method, String reason) {{',
            '        super(code, function, method, reason);', '    }', '',
            f'    {cls}(String message) {{', f'        super({value}, "", "", message);', '    }', '}']) + '\n'
        cases.append(f'            case {value}: return new {cls}(code, function, method, reason);')
    files['StatusExceptions'] = '\n'.join([
        '// Generated from the op schema (cudnnfe schema) by bindings/java/generate_layer.py; do not edit.\n',
        f'package {PACKAGE};', '', '/** The exception class of each status. */', 'final class StatusExceptions {',
        '    private StatusExceptions() {}', '',
        '    /** The exception of a failed call of status code (CudnnFeException itself for a code this binding does not know). */',
        '    static CudnnFeException of(int code, String function, String method, String reason) {',
        '        switch (code) {', *cases,
        '            default: return new CudnnFeException(code, function, method, reason);', '        }', '    }', '}']) + '\n'
    return files


def api_names_class():
    """ApiNames: the Java names of the C functions (bindings/surface.py's rule, the described calls, the table)."""
    described = {c.c_function: f'{obj.name}.{c.names.get("java", surface.camel(c.name))}'
                 for obj in surface.OBJECTS for c in obj.calls}
    described.update({obj.create: f'new {obj.name}' for obj in surface.OBJECTS if obj.create})
    described.update({c.c_function: f'CudnnFe.{c.names.get("java", surface.camel(c.name))}'
                      for c in surface.MODULE.calls})
    names = surface.api_names('java', surface.camel, described)
    entries = ',\n'.join(f'            Map.entry("{f}", "{n}")' for f, n in sorted(names.items()))
    pattern = '\n            + '.join('"' + piece.replace('\\', '\\\\') + '"' for piece in surface.advice_pattern())
    return f"""// Generated from bindings/surface.py by bindings/java/generate_layer.py; do not edit.

package {PACKAGE};

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Java names of the C functions: an error names the method the caller called (Graph.convFprop,
 * not fe_graph_conv_fprop), and advice in a message names the Java method to call instead.
 */
final class ApiNames {{
    private ApiNames() {{}}

    private static final Map<String, String> METHODS = Map.ofEntries(
{entries});

    // The functions the library's advice names: only these are translated inside a message.
    private static final Pattern ADVICE = Pattern.compile(
            {pattern});

    /** The Java method that calls the C function: "Graph.convFprop" for fe_graph_conv_fprop. */
    static String method(String function) {{
        return METHODS.getOrDefault(function, function);
    }}

    /** The message with the C functions its advice names replaced by their Java methods. */
    static String translate(String text) {{
        Matcher m = ADVICE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) m.appendReplacement(out, Matcher.quoteReplacement(method(m.group())));
        m.appendTail(out);
        return out.toString();
    }}
}}
"""


def main():
    schema, out_dir, list_file, handwritten = sys.argv[1:]
    model = schema_model.load(schema)
    surface.add_conveniences(model)
    out = pathlib.Path(out_dir) / 'dev' / 'cudnnfe'
    if out.exists():
        for stale in out.glob('*.java'):
            stale.unlink()
    out.mkdir(parents=True, exist_ok=True)
    files = {}
    scales = {op.scales.c_type for op in model.ops if op.scales is not None}
    for s in model.structs.values():
        files[s.class_name] = scales_class(s) if s.c_type in scales else options_class(s)
    files['GraphOps'] = graph_ops(model)
    for op in model.ops:
        returned = [p for p in op.outputs if op.returned(p)]
        if len(returned) > 1 and tuple(p.name for p in returned) not in RESULT_TYPES:
            files[pascal(op.kind) + 'Result'] = result_class(op, returned)
    existing = {p.stem for p in pathlib.Path(handwritten).glob('*.java')}
    for enum in model.enums.values():
        if enum_class(enum.c_type) in existing:
            raise SystemExit(f'generate_layer: {enum_class(enum.c_type)}.java is written by hand; every schema enum '
                             'is generated')
        files[enum_class(enum.c_type)] = enum_source(enum)
    for obj in surface.OBJECTS:
        name = obj.name + 'Calls' if obj.calls_only else obj.name
        if name in existing:
            raise SystemExit(f'generate_layer: {name}.java is written by hand; it is described in surface.py')
        files[name] = surface_class(obj, handwritten)
    for cls in SHARED_RESULTS:
        if cls in existing:
            raise SystemExit(f'generate_layer: {cls}.java is written by hand; it is generated (SHARED_RESULTS)')
        files[cls] = shared_result_class(cls)
    for rec in surface.RECORDS:
        if rec.name in existing:
            raise SystemExit(f'generate_layer: {rec.name}.java is written by hand; it is described in surface.py')
        files[rec.name] = record_class(rec, handwritten)
    for cls, text in exception_classes(model).items():
        if cls in existing:
            raise SystemExit(f'generate_layer: {cls}.java is written by hand; the statuses\' exceptions are generated')
        files[cls] = text
    if 'ApiNames' in existing:
        raise SystemExit('generate_layer: ApiNames.java is written by hand; the names are described in surface.py')
    files['ApiNames'] = api_names_class()
    files['CudnnFeCalls'] = module_class(surface.MODULE)
    paths = []
    for name, text in sorted(files.items()):
        path = out / f'{name}.java'
        path.write_text(text)
        paths.append(path.resolve())
    pathlib.Path(list_file).write_text(''.join(f'{p}\n' for p in paths))


if __name__ == '__main__':
    main()
