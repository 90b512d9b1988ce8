#!/usr/bin/env python3
"""Write the C# binding's generated layer from the op schema: one options class per option or
scales struct, and the graph method of every op (partial classes beside the hand-written ones).

The conventions (names, pre/post pairs, the entry points' argument order) are schema_model's; what
is C#'s is here: the property and parameter types, and the few names and result types that
predate the generator and stay for the callers that use them (COMPATIBLE_NAMES, RESULTS).

The integer fields' C# types are read from SWIG's proxy classes (the list file SWIG's step writes),
because the schema says 'integer' for int32_t and int64_t alike.

usage: generate_layer.py OP_SCHEMA_JSON SWIG_LIST OUT_DIR LIST_FILE
"""
import pathlib
import re
import shutil
import sys
import textwrap

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import schema_model  # noqa: E402
import surface  # noqa: E402

WIDTH = 120
HEADER = '// Generated from the op schema by bindings/csharp/generate_layer.py; do not edit.\n'

# C# names that differ from the regular PascalCase of the C field, kept for existing callers.
COMPATIBLE_NAMES = {
    ('fe_reduction_options', 'reduce_axes'): 'Axes',
    ('fe_sdpa_fp8_backward_scales', 'descale_do'): 'DescaleDO',
    ('fe_sdpa_fp8_backward_scales', 'descale_dp'): 'DescaleDP',
    ('fe_sdpa_fp8_backward_scales', 'scale_dp'): 'ScaleDP',
    ('fe_sdpa_fp8_backward_scales', 'scale_dq'): 'ScaleDQ',
    ('fe_sdpa_fp8_backward_scales', 'scale_dk'): 'ScaleDK',
    ('fe_sdpa_fp8_backward_scales', 'scale_dv'): 'ScaleDV',
}

# How an op with several returned outputs gives them back, where a type or form existed before
# the schema: a result class shared by several ops (written once) and its property per port, or
# OUT: the first output returned, the others out parameters after the options. Any other op gets
# a generated <Op>Result class with one property per returned output.
OUT = 'out'
_NORM = {'Y': 'Y', 'Mean': 'Mean', 'InvVariance': 'InvVariance'}
_NORM_GRADIENTS = {'DX': 'DX', 'DScale': 'DScale', 'DBias': 'DBias'}
RESULTS = {
    'layernorm': ('NormResult', _NORM),
    'instancenorm': ('NormResult', _NORM),
    'adalayernorm': ('NormResult', _NORM),
    'rmsnorm': ('NormResult', {'Y': 'Y', 'InvRms': 'InvVariance'}),
    'batchnorm': ('BatchnormResult', {'Y': 'Y', 'Mean': 'Mean', 'InvVariance': 'InvVariance',
                                      'NextRunningMean': 'NextRunningMean',
                                      'NextRunningVar': 'NextRunningVar'}),
    'layernorm_backward': ('NormGradients', _NORM_GRADIENTS),
    'rmsnorm_backward': ('NormGradients', _NORM_GRADIENTS),
    'instancenorm_backward': ('NormGradients', _NORM_GRADIENTS),
    'adalayernorm_backward': ('NormGradients', _NORM_GRADIENTS),
    'batchnorm_backward': ('NormGradients', _NORM_GRADIENTS),
    'sdpa': ('SdpaResult', {'O': 'O', 'Stats': 'Stats'}),
    'sdpa_backward': ('SdpaGradients', {'dQ': 'DQ', 'dK': 'DK', 'dV': 'DV'}),
    'sdpa_fp8': ('SdpaFp8Result', {'O': 'O', 'Stats': 'Stats', 'Amax_S': 'AmaxS', 'Amax_O': 'AmaxO'}),
    'sdpa_fp8_backward': ('SdpaFp8Gradients', {'dQ': 'DQ', 'dK': 'DK', 'dV': 'DV', 'Amax_dQ': 'AmaxDQ',
                                               'Amax_dK': 'AmaxDK', 'Amax_dV': 'AmaxDV',
                                               'Amax_dP': 'AmaxDP'}),
    'genstats': OUT,
    'resample': OUT,
    'softmax': OUT,
    'matmul_fp8': OUT,
    'block_scale_quantize': OUT,
}

KEYWORDS = {'abstract', 'as', 'base', 'bool', 'break', 'byte', 'case', 'catch', 'char', 'checked',
            'class', 'const', 'continue', 'decimal', 'default', 'delegate', 'do', 'double', 'else',
            'enum', 'event', 'explicit', 'extern', 'false', 'finally', 'fixed', 'float', 'for',
            'foreach', 'goto', 'if', 'implicit', 'in', 'int', 'interface', 'internal', 'is', 'lock',
            'long', 'namespace', 'new', 'null', 'object', 'operator', 'out', 'override', 'params',
            'private', 'protected', 'public', 'readonly', 'ref', 'return', 'sbyte', 'sealed',
            'short', 'sizeof', 'stackalloc', 'static', 'string', 'struct', 'switch', 'this',
            'throw', 'true', 'try', 'typeof', 'uint', 'ulong', 'unchecked', 'unsafe', 'ushort',
            'using', 'virtual', 'void', 'volatile', 'while'}


def enum_name(c_type):
    """fe_resample_padding -> ResamplePadding, the hand-written enum of the same values."""
    return schema_model.pascal(c_type[len('fe_'):])


def identifier(snake):
    name = schema_model.camel(snake)
    return '@' + name if name in KEYWORDS else name


def xml(text):
    return text.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')


def summary(text, indent):
    return f'{indent}/// <summary>{xml(text)}</summary>\n' if text else ''


def wrap(indent, head, items, tail, width=WIDTH):
    """head + items joined by ', ' + tail, broken into lines of at most width where it can be, the
    continuation lines aligned under the first item."""
    lines, line = [], indent + head
    for i, item in enumerate(items):
        text = item + (', ' if i + 1 < len(items) else tail)
        if len(line) + len(text.rstrip()) > width and line.strip() != head.strip():
            lines.append(line.rstrip())
            line = ' ' * len(indent + head)
        line += text
    if not items:
        line += tail
    return '\n'.join(lines + [line]) + '\n'


def statement(indent, text, width=WIDTH):
    """One line, or an 'if (...)' and its statement on the next line when it is too long."""
    if len(indent) + len(text) > width and text.startswith('if ('):
        depth = 0
        for i, ch in enumerate(text):
            depth += {'(': 1, ')': -1}.get(ch, 0)
            if ch == ')' and depth == 0:
                return f'{indent}{text[:i + 1]}\n{indent}    {text[i + 2:]}\n'
    return f'{indent}{text}\n'


def proxy_types(swig_list):
    """{(c struct, field): C# type} from SWIG's proxy classes."""
    types = {}
    for line in pathlib.Path(swig_list).read_text().split():
        path = pathlib.Path(line)
        for c_type, field in re.findall(r'public (\w+(?:\[\])?) (\w+) \{', path.read_text()):
            types[(path.stem, field)] = c_type
    return types


def write(out_dir, name, body, header=HEADER):
    path = out_dir / name
    path.write_text(header + 'using System;\n\nnamespace CudnnFe\n{\n' + body + '}\n')
    return path


# Options classes ---------------------------------------------------------------------------------

def property_name(struct, field):
    return COMPATIBLE_NAMES.get((struct.c_type, field.name), schema_model.pascal(field.name))


def counted_array(struct, field):
    """The dims_array field whose length a dims_count field holds: the next one."""
    later = struct.fields[struct.fields.index(field) + 1:]
    return next(f for f in later if f.type == 'dims_array')


def property_type(struct, field, proxies):
    if field.type == 'name':
        return 'string'
    if field.type in ('integer', 'spatial_count'):
        return proxies[(struct.c_type, field.name)] + '?'
    if field.type == 'number':
        return 'double?'
    if field.type == 'flag':
        return 'bool?' if field.default else 'bool'
    if field.type == 'enum':
        return enum_name(field.enum) + '?'
    if field.type == 'data_type':
        return 'DataType?'
    if field.type == 'tensor':
        return 'Tensor'
    if field.type in ('spatial_array', 'dims_array'):
        return 'long[]'
    if field.type == 'axes':
        return 'int[]'
    if field.type == 'tensor_array':
        return 'Tensor[]'
    if field.type == 'enum_list':
        return enum_name(field.enum) + '[]'
    if field.type == 'flags':
        return enum_name(field.enum)
    if field.type == 'name_list':
        return 'string[]'
    if field.type == 'kernel_cache':
        return 'KernelCache'
    raise SystemExit(f'generate_layer.py: no C# type for {struct.c_type}.{field.name} ({field.type})')


def field_doc(struct, field):
    doc = field.doc
    if field.overload_of:
        doc += f' Replaces {property_name(struct, struct.field(field.overload_of))}.'
    if field.type == 'axes':
        doc += ' Each from 0 to 31.'
    return doc + struct.array_note(field)


def assignment(struct, field, pairs):
    """The ToNative lines that set one field, from its property (or its pair's)."""
    p, c = property_name(struct, field), field.name
    if field.type == 'name':
        return [f'if ({p} != null) o.{c} = {p};']
    if field.type in ('integer', 'number', 'spatial_count'):
        return [f'if ({p}.HasValue) o.{c} = {p}.Value;']
    if field.type == 'flag':
        if field.default:
            return [f'if ({p}.HasValue) o.{c} = {p}.Value ? 1 : 0;']
        return [f'if ({p}) o.{c} = 1;']
    if field.type in ('enum', 'data_type'):
        return [f'if ({p}.HasValue) o.{c} = ({field.enum}){p}.Value;']
    if field.type == 'tensor':
        return [f'if ({p} != null) o.{c} = {p}.Pointer;']
    if field.type == 'axes':
        return [f'if ({p} != null) o.{c} = OptionValues.AxisMask({p}, "{struct.class_name}.{p}");']
    if field.type == 'dims_count':
        array = counted_array(struct, field)
        a = property_name(struct, array)
        return [f'if ({a} != null) o.{c} = {a}.Length;']
    if field.type == 'dims_array':
        size = len(field.default)
        return [f'if ({p} != null) o.{c} = OptionValues.Fixed({p}, {size}, "{struct.class_name}.{p}");']
    if field.type == 'spatial_array':
        pair = pairs.get(field.name)
        if pair is None:
            return [f'if ({p} != null) Check.Ok(NativeApi.{field.c_setter}(o, {p}.Length, {p}));']
        local = identifier(field.name)
        return [f'long[] {local} = {p} ?? {schema_model.pascal(pair.name)};',
                f'if ({local} != null) Check.Ok(NativeApi.{field.c_setter}(o, {local}.Length, {local}));']
    if field.type == 'tensor_array':
        local = identifier(field.name)
        return [f'if ({p} != null)', '{', f'    IntPtr[] {local} = OptionValues.Pointers({p});',
                f'    Check.Ok(NativeApi.{field.c_setter}(o, {local}.Length, {local}));', '}']
    if field.type in ('tensor_count', 'list_count'):
        return []  # set with its array
    if field.type == 'enum_list':
        return [f'if ({p} != null) o.set_{c}(Array.ConvertAll({p}, v => (int)v), {p}.Length);']
    if field.type == 'flags':
        return [f'if ({p} != 0) o.{c} = (long){p};']
    if field.type == 'name_list':
        return [f'if ({p} != null) o.{c} = string.Join(",", {p});']
    if field.type == 'kernel_cache':
        return [f'if ({p} != null) o.{c} = {p}.Pointer;']
    raise SystemExit(f'generate_layer.py: cannot set {struct.c_type}.{field.name} ({field.type})')


def options_class(struct, proxies):
    pairs = {name: pair for pair in struct.pairs for name in pair.fields}
    lines = [summary(struct.doc, '    '),
             '    /// <remarks>Properties left unset keep the C defaults.</remarks>\n',
             f'    public sealed partial class {struct.class_name}\n    {{\n']
    for field in struct.fields:
        if field.type in ('dims_count', 'tensor_count', 'list_count'):
            continue  # the length of its array
        lines.append(summary(field_doc(struct, field), '        '))
        lines.append(f'        public {property_type(struct, field, proxies)} '
                     f'{property_name(struct, field)} {{ get; set; }}\n')
    for pair in struct.pairs:
        names = ' and '.join(property_name(struct, struct.field(f)) for f in pair.fields)
        lines.append(summary(f'Sets {names} alike; each of them overrides it.', '        '))
        lines.append(f'        public long[] {schema_model.pascal(pair.name)} {{ get; set; }}\n')
    body = [line for field in struct.fields for line in assignment(struct, field, pairs)]
    lines.append(f'\n        internal {struct.c_type} ToNative()\n        {{\n'
                 f'            var o = new {struct.c_type}();\n            try\n            {{\n')
    lines += [statement(' ' * 16, line) for line in body]
    lines.append('                return o;\n            }\n            catch\n            {\n'
                 '                o.Dispose();\n                throw;\n            }\n        }\n    }\n')
    return ''.join(lines)


# Graph methods -----------------------------------------------------------------------------------

class Method:
    """One op's C# method: its parameters, the C call's arguments and how it returns."""

    def __init__(self, op):
        self.op = op
        self.returned = [p for p in op.outputs if op.returned(p)]
        self.flags = {p.name: identifier(p.name) for p in op.params if p.type == 'flag'}
        self.result = RESULTS.get(op.kind)
        if self.result is None and len(self.returned) > 1:
            self.result = (schema_model.pascal(op.kind) + 'Result',
                           {p.name: schema_model.pascal(p.name) for p in self.returned})

    @property
    def name(self):
        return schema_model.pascal(self.op.kind)

    def return_type(self):
        return 'Tensor' if len(self.returned) == 1 or self.result == OUT else self.result[0]

    def parameters(self):
        """(type, name, default or None, doc) in C# order."""
        params = []
        for role, name, what in self.op.c_arguments():
            if role == 'mode':
                params.append((enum_name(what), 'mode', None, 'The operation.'))
            elif role == 'input':
                params.append(('Tensor', identifier(name), 'null' if what.optional else None,
                               what.doc + (' (may be null)' if what.optional else '')))
            elif role == 'inputs':
                params.append(('Tensor[]', 'inputs', None, ', '.join(p.doc for p in what)))
            elif role == 'param':
                params.append(self.param(what))
            elif role == 'scales':
                params.append((what.class_name, 'scales', None, what.doc))
            elif role == 'options':
                params.append((what.class_name, 'options', 'null', 'Null: the C defaults.'))
        # A flag asks for a nullable output; it goes after the other parameters.
        at = next(i for i, q in enumerate(params) if q[1] in ('scales', 'options'))
        params[at:at] = [('bool', self.flags[p.name], None, p.doc) for p in self.op.params if p.type == 'flag']
        if self.result == OUT:
            params += [('out Tensor', identifier(p.name), None, p.doc) for p in self.returned[1:]]
        # Only trailing parameters can have defaults.
        trailing = True
        for i in reversed(range(len(params))):
            trailing = trailing and params[i][2] is not None
            if not trailing:
                params[i] = params[i][:2] + (None,) + params[i][3:]
        return params

    def param(self, p):
        if p.type == 'dims_array':
            return ('long[]', identifier(p.name), None if p.required else 'null', p.doc)
        if p.type == 'enum':
            return (enum_name(p.enum), identifier(p.name), None, p.doc)
        if p.type == 'integer':
            return ('long', identifier(p.name), None, p.doc)
        if p.type == 'number':
            return ('double', identifier(p.name), None, p.doc)
        raise SystemExit(f'generate_layer.py: no C# parameter for {self.op.kind}.{p.name} ({p.type})')

    def arguments(self):
        args, counted = ['Pointer'], None
        for role, name, what in self.op.c_arguments():
            if role == 'mode':
                args.append(f'({what})mode')
            elif role == 'input':
                # A required input: a null one throws ArgumentNullException naming it.
                args.append(f'Optional({identifier(name)})' if what.optional
                            else f'Check.NotNull({identifier(name)}, "Graph.{self.name}", "{identifier(name).lstrip("@")}").Pointer')
            elif role == 'count' and name == 'count':
                args.append(f'Check.NotNull(inputs, "Graph.{self.name}", "inputs").Length')
            elif role == 'inputs':
                args.append(f'Pointers(inputs, "Graph.{self.name}", "inputs")')
            elif role == 'count':
                counted = identifier(name)
                args.append(f'{counted}?.Length ?? 0')
            elif role == 'param':
                args.append(f'({what.enum}){identifier(name)}' if what.type == 'enum' else identifier(name))
            elif role == 'scales':
                args.append('nativeScales')
            elif role == 'options':
                args.append('nativeOptions')
            elif role == 'output':
                args.append(out_local(name))
        return args

    def shared_counts(self):
        """Arrays that share the count of the array before them (slice's start and end)."""
        checks, first = [], None
        for role, name, what in self.op.c_arguments():
            if role == 'count' and name != 'count':
                first = name
            elif role == 'param' and what.type == 'dims_array' and first and name != first:
                checks.append((identifier(first), identifier(name)))
        return checks

    def code(self):
        op, params = self.op, self.parameters()
        lines = [summary(op.doc, '        ')]
        lines += [f'        /// <param name="{name.lstrip("@")}">{xml(doc)}</param>\n'
                  for _, name, _, doc in params if doc]
        signature = [f'{t} {n}' + (f' = {d}' if d is not None else '') for t, n, d, _ in params]
        lines.append(wrap(' ' * 8, f'public {self.return_type()} {self.name}(', signature, ')'))
        lines.append('        {\n')
        for first, other in self.shared_counts():
            lines.append(f'            OptionValues.SameCount("{self.name}", "{first.lstrip("@")}", {first}, '
                         f'"{other.lstrip("@")}", {other});\n')
        for p in self.returned:
            local = out_local(p.name)
            if p.when in self.flags:
                lines.append(f'            IntPtr[] {local} = {self.flags[p.when]} ? new IntPtr[1] : null;\n')
            else:
                lines.append(f'            var {local} = new IntPtr[1];\n')
        if op.scales is not None:
            lines.append(f'            using ({op.scales.c_type} nativeScales = scales?.ToNative())\n')
        lines.append(f'            using ({op.options.c_type} nativeOptions = options?.ToNative())\n')
        lines.append(wrap(' ' * 16, f'Check.Ok(NativeApi.{op.entry_point}(', self.arguments(), '));'))
        lines += self.returns()
        lines.append('        }\n')
        return ''.join(lines)

    def returns(self):
        def wrapped(p):
            local = out_local(p.name)
            if p.when in self.flags:
                return f'{local} == null ? null : Wrap({local}[0])'
            return f'Wrap({local}[0])'
        if len(self.returned) == 1:
            return [f'            return {wrapped(self.returned[0])};\n']
        if self.result == OUT:
            lines = [f'            {identifier(p.name)} = {wrapped(p)};\n' for p in self.returned[1:]]
            return lines + [f'            return {wrapped(self.returned[0])};\n']
        class_name, properties = self.result
        values = [f'{properties[p.name]} = {wrapped(p)}' for p in self.returned]
        return [wrap(' ' * 12, f'return new {class_name} {{ ', values, ' };')]


def out_local(port):
    return 'out' + schema_model.pascal(port)


def result_class(method):
    class_name, properties = method.result
    lines = [summary(f'The outputs of {method.name}.', '    '),
             f'    public sealed class {class_name}\n    {{\n']
    for p in method.returned:
        doc = p.doc + ('; null when not asked for' if p.when else '')
        lines.append(summary(doc, '        '))
        lines.append(f'        public Tensor {properties[p.name]} {{ get; internal set; }}\n')
    lines.append('    }\n')
    return ''.join(lines)


def shared_result_classes():
    """The result classes RESULTS shares between ops, each once: its properties in the order the
    mappings give them, every op that returns it named."""
    classes = {}
    for kind, result in RESULTS.items():
        if result == OUT:
            continue
        class_name, properties = result
        ops, names = classes.setdefault(class_name, ([], []))
        ops.append(kind)
        names += [n for n in properties.values() if n not in names]
    return {class_name: (summary(f'The outputs of {", ".join(ops)}; an output not produced is null.', '    ') +
                         f'    public sealed class {class_name}\n    {{\n' +
                         ''.join(f'        public Tensor {n} {{ get; internal set; }}\n' for n in names) + '    }\n')
            for class_name, (ops, names) in classes.items()}


def graph_file(family, methods):
    body = '\n'.join(m.code() for m in methods)
    return (f'    // {family}: each result is virtual until SetOutput(true), named "<op name>::<port>".\n'
            f'    public sealed partial class Graph\n    {{\n{body}    }}\n')


def hand_written_enums():
    """The enums bindings/csharp/src declares (the non-op surface's)."""
    names = set()
    for source in (pathlib.Path(__file__).resolve().parent / 'src').glob('*.cs'):
        names.update(re.findall(r'\bpublic enum (\w+)', source.read_text()))
    return names


# Members whose C# names were published before they were generated, where the C name's words
# would give another casing (UINT8 -> Uint8).
MEMBER_NAMES = {'UINT8': 'UInt8', 'BFLOAT16': 'BFloat16', 'FP8_E4M3': 'Fp8E4M3', 'FP8_E5M2': 'Fp8E5M2',
                'FP8_E8M0': 'Fp8E8M0', 'UINT4': 'UInt4', 'MAXPOOL': 'MaxPool',
                'AVGPOOL_INCLUDE_PADDING': 'AvgPoolIncludePadding', 'AVGPOOL_EXCLUDE_PADDING': 'AvgPoolExcludePadding'}


def member_names(enum):
    """Each value's name in PascalCase (FE_CAUSAL_MASK_TOP_LEFT -> TopLeft)."""
    return [MEMBER_NAMES.get(s, schema_model.pascal(s.lower())) for s in schema_model.value_suffixes(enum)]


def enum_source(enum):
    """A schema enum, its values the C library's; an enum of one bit each is a [Flags] long."""
    lines = [f'    public enum {enum_name(enum.c_type)}', '    {']
    if enum.flags:
        lines = ['    [System.Flags]', f'    public enum {enum_name(enum.c_type)} : long', '    {', '        None = 0,']
    for name, (c_name, _, value) in zip(member_names(enum), enum.values):
        lines.append(summary(enum.value_docs.get(c_name, ''), '        ').rstrip('\n'))
        lines.append(f'        {name} = {value},')
    lines = [line for line in lines if line] + ['    }']
    return summary(enum.doc, '    ') + '\n'.join(lines) + '\n'


# ---- the objects beside the ops (bindings/surface.py) -----------------------------------------------

def member_name(cls, member):
    """The C# name of a described call (its own where the description gives one)."""
    for obj in surface.OBJECTS + [surface.MODULE]:
        for call in obj.calls:
            if obj.name == cls and call.name == member:
                return call.names.get('csharp', surface.pascal(member))
    return surface.pascal(member)


def surface_doc(text, indent='        '):
    rendered = surface.render(
        xml(text), lambda cls, member: f'<see\u00a0cref="{cls}.{member_name(cls, member)}"/>',
        lambda status: schema_model.pascal(status.lower()),
        {'close': 'Dispose', 'closes': 'disposes', 'thread': 'thread', 'threads': 'threads', 'null': 'null',
         'no_text': 'null'})
    # A link is not broken across lines (its space is a no-break one until the text is wrapped).
    lines = [line.replace('\u00a0', ' ') for line in textwrap.wrap(rendered, 100 - len(indent) - 4)]
    if len(lines) == 1 and len(indent) + len(lines[0]) + 25 <= 100:
        return f'{indent}/// <summary>{lines[0]}</summary>\n'
    return (f'{indent}/// <summary>\n' + ''.join(f'{indent}/// {line}\n' for line in lines) +
            f'{indent}/// </summary>\n')


# Each kind of value: its C# type, and the C arguments made of it ({n}: its name).
SURFACE_TYPES = {
    'int32': ('int', ['{n}']), 'int64': ('long', ['{n}']), 'stream': ('IntPtr', ['{n}']), 'address': ('IntPtr', ['{n}']),
    'double': ('double', ['{n}']),
    'byte': ('byte', ['{n}']), 'bool': ('bool', ['{n} ? 1 : 0']),
    'tensor': lambda p: ('Tensor', ['{n} == null ? IntPtr.Zero : {n}.Pointer' if p.nullable
                                    else 'Check.NotNull({n}, "{m}", nameof({n})).Pointer']),
    'handle': lambda p: ('Handle', ['{n} == null ? IntPtr.Zero : {n}.Pointer' if p.nullable
                                    else 'Check.NotNull({n}, "{m}", nameof({n})).Pointer']),
    'kernel_cache': ('KernelCache', ['{n} == null ? IntPtr.Zero : {n}.Pointer']),
    'enum': lambda p: (enum_name(p.enum), [f'({p.enum}){{n}}']),
    'text': ('string', ['{n}']),
    'text_with_length': ('string', ['{n}', 'System.Text.Encoding.UTF8.GetByteCount({n})']),
    'tensors': ('Tensor[]', ['Pointers({n}, "{m}", nameof({n}))']),
    'buffers': ('DeviceBuffer[]', ['Pointers({n}, "{m}", nameof({n}))']),
    'addresses': ('IntPtr[]', ['Check.NotNull({n}, "{m}", nameof({n}))']),
    'int64s': ('long[]', ['Check.NotNull({n}, "{m}", nameof({n}))']),
    'bytes': ('byte[]', ['Check.NotNull({n}, "{m}", nameof({n}))', '{n}.Length']),
    'options': lambda p: (schema_model.pascal(p.struct[len('fe_'):]), ['native']),
    'enums': lambda p: (('params ' if p.variadic else '') + enum_name(p.enum) + '[]',
                        ['Array.ConvertAll(Check.NotNull({n}, "{m}", nameof({n})), v => (int)v)']),
    'flags': lambda p: (enum_name(p.enum), ['(long){n}']),
    'names': lambda p: (('params ' if p.variadic else '') + 'string[]',
                        ['string.Join(",", Check.NotNull({n}, "{m}", nameof({n})))']),
    # One array per field of the record.
    'records': lambda p: (('params ' if p.variadic else '') + p.record + '[]',
                          [f'Array.ConvertAll(Check.NotNull({{n}}, "{{m}}", nameof({{n}})), v => v.{schema_model.pascal(f.name)})'
                           for f in surface.record(p.record).fields]),
    # The arrays' common length: one array's own, or the one count_check found.
    'count': lambda arrays: f'{arrays[0][0]}.Length' if len(arrays) == 1 else 'count',
}


def count_check(params, member):
    """The statement that checks arrays going together to be of one length, before any other check."""
    arrays = [p for p in params if p.kind in surface.ARRAYS]
    if len(arrays) < 2:
        return ''
    pairs = ', '.join(f'{surface.camel(p.name)}, "{" ".join(surface.words(p.name))}"' for p in arrays)
    return f'            long count = Count("{member}", {pairs});\n'

# The helpers of the calls that take arrays, in the class of their calls.
ARRAY_HELPERS = '''
        private static IntPtr[] Pointers(Tensor[] tensors, string method = "Graph", string parameter = "tensors") =>
            Pointers(tensors, t => t.Pointer, ref tensorScratch, method, parameter);

        private static IntPtr[] Pointers(DeviceBuffer[] buffers, string method, string parameter) =>
            Pointers(buffers, b => b.Pointer, ref bufferScratch, method, parameter);

        // The arrays of pointers the calls pass: one of each kind a thread, reused call after call
        // (an execute allocates nothing), at least as long as the objects; the C side reads the
        // count it is given, during the call.
        [ThreadStatic] private static IntPtr[] tensorScratch;
        [ThreadStatic] private static IntPtr[] bufferScratch;

        /// <summary>The pointers of the objects, none null, in the thread's scratch array.</summary>
        private static IntPtr[] Pointers<T>(T[] objects, Func<T, IntPtr> pointer, ref IntPtr[] scratch, string method,
                                            string parameter)
            where T : class
        {
            int n = Check.NotNull(objects, method, parameter).Length;
            if (scratch == null || scratch.Length < n) scratch = new IntPtr[Math.Max(n, 8)];
            for (int i = 0; i < n; ++i)
            {
                T o = objects[i];
                if (o == null) throw Check.NullArgumentException(method, parameter + "[" + i + "]");
                scratch[i] = pointer(o);
            }
            return scratch;
        }

        /// <summary>The common length of two arrays that go together (a null one is refused by its own check).</summary>
        private static long Count(string method, Array first, string what, Array second, string other)
        {
            if (first == null || second == null) return 0;
            if (first.Length != second.Length)
                throw Check.Invalid(method + ": " + first.Length + " " + what + " but " + second.Length + " " + other);
            return first.Length;
        }
'''


# A record field's C# type, its C out-parameter's element type, and what turns a C value into it.
RECORD_TYPES = {'text': ('string', 'string', '{}'), 'int32': ('int', 'int', '{}'), 'int64': ('long', 'long', '{}'),
                'bool': ('bool', 'int', '{} != 0')}


def record_type(field):
    if field.kind == 'flags':
        return enum_name(field.enum), 'long', f'({enum_name(field.enum)}){{}}'
    return RECORD_TYPES[field.kind]


def record_class(rec):
    """A record: readonly fields, compared by value."""
    names = [schema_model.pascal(f.name) for f in rec.fields]
    types = [record_type(f)[0] for f in rec.fields]
    partial = 'partial ' if rec.idioms else ''
    body = surface_doc(rec.doc + ' Immutable.', '    ')
    body += f'    public sealed {partial}class {rec.name} : IEquatable<{rec.name}>\n    {{\n'
    for f, n, t in zip(rec.fields, names, types):
        body += surface_doc(f.doc) + f'        public readonly {t} {n};\n'
    visibility = 'public' if rec.public else 'internal'
    body += '\n' + wrap('        ', f'{visibility} {rec.name}(', [f'{t} {surface.camel(f.name)}' for f, t in zip(rec.fields, types)], ')')
    body += '        {\n' + ''.join(f'            {n} = {surface.camel(f.name)};\n' for f, n in zip(rec.fields, names))
    body += '        }\n\n'
    body += (f'        public bool Equals({rec.name} other) =>\n            other != null && ' +
             ' &&\n                '.join(f'object.Equals({n}, other.{n})' for n in names) + ';\n\n')
    body += f'        public override bool Equals(object other) => Equals(other as {rec.name});\n\n'
    body += ('        public override int GetHashCode()\n        {\n            unchecked\n            {\n'
             '                int hash = 17;\n' +
             ''.join(f'                hash = hash * 31 + ({n}{"?" if t == "string" else ""}.GetHashCode(){" ?? 0" if t == "string" else ""});\n'
                     for n, t in zip(names, types)) +
             '                return hash;\n            }\n        }\n\n')
    body += (f'        public override string ToString() =>\n            "{rec.name}{{" + ' +
             ' + ", " +\n                '.join(f'"{n}=" + {n}' for n in names) + ' + "}";\n')
    return body + '    }\n'


def enumerable_overload(call, name):
    """The overload of a method whose variable arguments (names, records) may also be given as a sequence."""
    given = [p for p in call.params if p.kind != 'count']
    if not given or not given[-1].variadic or given[-1].kind not in ('names', 'records'):
        return ''
    last = given[-1]
    element = 'string' if last.kind == 'names' else last.record
    params, _, _ = surface_arguments(given[:-1], '')
    n = surface.camel(last.name)
    names = [surface.camel(p.name) for p in given[:-1]]
    return (f'\n        public void {name}({", ".join(params + [f"System.Collections.Generic.IEnumerable<{element}> {n}"])}) =>\n'
            f'            {name}({", ".join(names + [f"new System.Collections.Generic.List<{element}>(Check.NotNull({n}, {chr(34)}Graph.{name}{chr(34)}, nameof({n}))).ToArray()"])});\n')


def with_options(params, statement):
    """The statement, inside a using that makes (and frees) the native struct of an 'options' parameter."""
    options = [p for p in params if p.kind == 'options']
    if not options:
        return statement
    p = options[0]
    return (f'            using ({p.struct} native = {surface.camel(p.name)}?.ToNative())\n'
            + '    ' + statement)


# A getter's result kinds beyond the values above: (C# type, the out-parameter's element type, what
# turns the element into the result).
SURFACE_RESULTS = {'bool': ('bool', 'int', '{} != 0'), 'borrowed_text': ('string', 'string', '{}')}


def surface_arguments(params_of, method):
    """(C# parameters, with their defaults; checks; C arguments before the out-parameter)."""
    params, args = surface.arguments(params_of, SURFACE_TYPES, surface.camel, method)
    declared = [p for p in params_of if p.kind != 'count']  # a count is taken from its arrays
    params = [d + ('' if p.default is None else ' = default(IntPtr)' if p.kind == 'address' else f' = {p.default}')
              for d, p in zip(params, declared)]
    # A counted text's length is taken here, so a null one is refused first.
    checks = [f'            if ({surface.camel(p.name)} == null) throw Check.NullArgumentException("{method}", '
              f'nameof({surface.camel(p.name)}));\n' for p in params_of if p.kind == 'text_with_length']
    return params, checks, args


def surface_class(obj):
    cls = obj.name
    # An object with members in C#'s own idiom is a partial class; they are in src/<Name>.cs.
    partial = 'partial ' if obj.idioms or obj.calls_only else ''
    if obj.calls_only:  # the calls only, in a part of the hand-written class
        body = f'    public sealed partial class {cls}\n    {{\n'
    else:
        body = surface_doc(obj.doc, '    ') + f'    public sealed {partial}class {cls} : NativeObject\n    {{\n'
    if obj.create:
        params, _, args = surface_arguments(obj.create_params, cls)
        create_params = [p.split(' = ')[0] for p in params]
        body += (surface_doc(obj.create_doc) +
                 f'        public {cls}({", ".join(params)}) : base(Create({", ".join(args)}), "{cls}") {{ }}\n\n')
    if any(c.kind == 'factory' for c in obj.calls) and not obj.calls_only:
        body += ('        /// <summary>Take ownership of one the library made.</summary>\n'
                 f'        private {cls}(IntPtr pointer) : base(pointer, "{cls}") {{ }}\n\n')
    if obj.create:
        body += (f'        private static IntPtr Create({", ".join(create_params)})\n        {{\n'
                 '            var made = new IntPtr[1];\n'
                 f'            Check.Ok(NativeApi.{obj.create}({", ".join(args + ["made"])}));\n'
                 '            return made[0];\n        }\n\n')
    if not obj.calls_only:
        body += f'        internal override void Destroy(IntPtr pointer) => NativeApi.{obj.destroy}(pointer);\n'
    getters = {c.name for c in obj.calls if c.kind == 'getter'}
    # A getter's property takes its set_ call as its setter: a plain method's, or a chained setter's
    # that says so.
    setters = {c.name[len('set_'):]: c for c in obj.calls
               if (c.kind == 'method' or (c.kind == 'setter' and c.csharp_property)) and c.name.startswith('set_')
               and c.name[len('set_'):] in getters}
    for call in obj.calls:
        name = call.names.get('csharp', surface.pascal(call.name))
        if call.kind in ('method', 'setter') and setters.get(call.name[len('set_'):]) is call:
            continue  # the setter of a property
        params, checks, args = surface_arguments(call.params, f'{cls}.{name}')
        body += '\n' + surface_doc(call.doc)
        if call.kind == 'getter' and call.returns == 'enum':
            value = enum_name(call.enum)
            body += (f'        public {value} {name}\n        {{\n            get\n            {{\n'
                     '                var value = new int[1];\n'
                     f'                Check.Ok(NativeApi.{call.c_function}(Pointer, value));\n'
                     f'                return ({value})value[0];\n            }}\n        }}\n')
        elif call.kind == 'tensor_list':  # the graph's tensors, counted, then each by its index
            body += (f'        public System.Collections.Generic.IList<Tensor> {name}\n        {{\n            get\n'
                     '            {\n                var count = new long[1];\n'
                     f'                Check.Ok(NativeApi.{call.count_function}(Pointer, count));\n'
                     '                var tensors = new System.Collections.Generic.List<Tensor>();\n'
                     '                for (long i = 0; i < count[0]; ++i)\n'
                     f'                    tensors.Add(Output(o => NativeApi.{call.c_function}(Pointer, i, o)));\n'
                     '                return tensors;\n            }\n        }\n')
        elif call.kind == 'bytes_method':
            body += (f'        public byte[] {name}()\n        {{\n            IntPtr self = Pointer;\n'
                     '            return Library.ReadBytes((buffer, length) =>\n'
                     f'                NativeApi.{call.c_function}(self, buffer, buffer == null ? 0 : buffer.Length, '
                     'length));\n        }\n')
        elif call.kind == 'static_text':
            body += (f'        public static string {name}({", ".join(params)}) =>\n'
                     '            Library.ReadText((buffer, length) =>\n'
                     f'                NativeApi.{call.c_function}(' + ''.join(a + ', ' for a in args) +
                     'buffer, buffer == null ? 0 : buffer.Length, length));\n')
        elif call.kind == 'tensor_query' and any(p.kind == 'options' for p in call.params):
            body += (f'        public Tensor {name}({", ".join(params)})\n        {{\n' +
                     with_options(call.params, f'            return Output(o => NativeApi.{call.c_function}('
                                  f'{", ".join(["Pointer"] + args + ["o"])}));\n') + '        }\n')
        elif call.kind == 'tensor_query':  # a tensor of this graph
            body += (f'        public Tensor {name}({", ".join(params)}) =>\n'
                     f'            Output(o => NativeApi.{call.c_function}({", ".join(["Pointer"] + args + ["o"])}));\n')
        elif call.kind == 'record_query':  # a record read from the C struct the call fills
            rec = surface.record(call.record)
            values = [record_type(f)[2].format(f'info.{f.name}') for f in rec.fields]
            body += (f'        public {rec.name} {name}({", ".join(params)})\n        {{\n'
                     f'            using (var info = new {rec.c_struct}())\n            {{\n'
                     f'                Check.Ok(NativeApi.{call.c_function}({", ".join(["Pointer"] + args + ["info"])}));\n' +
                     wrap('                ', f'return new {rec.name}(', values, ');') + '            }\n        }\n')
        elif call.kind == 'record_outs':  # a record of the call's out-parameters, one per field
            rec = surface.record(call.record)
            outs = [surface.camel(f.name) for f in rec.fields]
            body += (f'        public {rec.name} {name}({", ".join(params)})\n        {{\n' +
                     ''.join(f'            var {o} = new {record_type(f)[1]}[1];\n' for f, o in zip(rec.fields, outs)) +
                     f'            Check.Ok(NativeApi.{call.c_function}({", ".join(["Pointer"] + args + outs)}));\n' +
                     wrap('            ', f'return new {rec.name}(',
                          [record_type(f)[2].format(f'{o}[0]') for f, o in zip(rec.fields, outs)], ');') + '        }\n')
        elif call.kind == 'record_list':  # records in one array per field: counted, then filled
            rec = surface.record(call.record)
            outs = [surface.camel(f.name) for f in rec.fields]
            body += (f'        public System.Collections.Generic.IList<{rec.name}> {name}({", ".join(params)})\n        {{\n'
                     '            var count = new long[1];\n'
                     f'            fe_status status = NativeApi.{call.c_function}('
                     f'{", ".join(["Pointer"] + args + ["null"] * len(outs) + ["0", "count"])});\n'
                     '            if (status != fe_status.FE_STATUS_BUFFER_TOO_SMALL) Check.Ok(status);\n'
                     '            long n = count[0];\n' +
                     ''.join(f'            var {o} = new {record_type(f)[1]}[n];\n' for f, o in zip(rec.fields, outs)) +
                     f'            Check.Ok(NativeApi.{call.c_function}({", ".join(["Pointer"] + args + outs + ["n", "count"])}));\n'
                     f'            var values = new System.Collections.Generic.List<{rec.name}>();\n'
                     '            for (long i = 0; i < count[0]; ++i)\n' +
                     wrap('                ', f'values.Add(new {rec.name}(',
                          [record_type(f)[2].format(f'{o}[i]') for f, o in zip(rec.fields, outs)], '));') +
                     '            return values;\n        }\n')
        elif call.kind == 'query' and call.returns == 'enum':
            value = enum_name(call.enum)
            body += (f'        public {value} {name}({", ".join(params)})\n        {{\n'
                     '            var value = new int[1];\n'
                     f'            Check.Ok(NativeApi.{call.c_function}({", ".join(["Pointer"] + args + ["value"])}));\n'
                     f'            return ({value})value[0];\n        }}\n')
        elif call.kind == 'query':
            value = SURFACE_TYPES[call.returns][0]
            body += (f'        public {value} {name}({", ".join(params)})\n        {{\n'
                     f'            var value = new {value}[1];\n'
                     f'            Check.Ok(NativeApi.{call.c_function}({", ".join(["Pointer"] + args + ["value"])}));\n'
                     '            return value[0];\n        }\n')
        elif call.kind == 'setter':  # returns the object, for chained calls
            body += (f'        public {cls} {name}({", ".join(params)})\n        {{\n'
                     f'            Check.Ok(NativeApi.{call.c_function}({", ".join(["Pointer"] + args)}));\n'
                     '            return this;\n        }\n')
        elif call.kind == 'getter':
            value, element, result = (SURFACE_RESULTS[call.returns] if call.returns in SURFACE_RESULTS
                                      else (SURFACE_TYPES[call.returns][0],) * 2 + ('{}',))
            body += (f'        public {value} {name}\n        {{\n            get\n            {{\n'
                     f'                var value = new {element}[1];\n'
                     f'                Check.Ok(NativeApi.{call.c_function}(Pointer, value));\n'
                     f'                return {result.format("value[0]")};\n            }}\n')
            if call.name in setters:
                body += f'            set => Check.Ok(NativeApi.{setters[call.name].c_function}(Pointer, value));\n'
            body += '        }\n'
        elif call.kind == 'text_method':
            body += (f'        public string {name}()\n        {{\n            IntPtr self = Pointer;\n'
                     '            return Library.ReadText((buffer, length) =>\n'
                     f'                NativeApi.{call.c_function}(self, buffer, buffer == null ? 0 : buffer.Length, '
                     'length));\n        }\n')
        elif call.kind == 'method' and any(p.kind == 'options' for p in call.params):
            body += (f'        public void {name}({", ".join(params)})\n        {{\n' +
                     with_options(call.params, f'            Check.Ok(NativeApi.{call.c_function}('
                                  f'{", ".join(["Pointer"] + args)}));\n') + '        }\n')
        elif call.kind == 'method' and count_check(call.params, ''):
            body += (f'        public void {name}({", ".join(params)})\n        {{\n' +
                     count_check(call.params, f'{cls}.{name}') +
                     wrap('            ', f'Check.Ok(NativeApi.{call.c_function}(', ['Pointer'] + args, '));') +
                     '        }\n')
        elif call.kind == 'method':
            body += (f'        public void {name}({", ".join(params)}) =>\n'
                     f'            Check.Ok(NativeApi.{call.c_function}({", ".join(["Pointer"] + args)}));\n')
        else:  # factory
            body += (f'        public static {cls} {name}({", ".join(params)})\n        {{\n' + ''.join(checks) +
                     '            var made = new IntPtr[1];\n' +
                     with_options(call.params, f'            Check.Ok(NativeApi.{call.c_function}({", ".join(args + ["made"])}));\n') +
                     f'            return new {cls}(made[0]);\n        }}\n')
    for call in obj.calls:
        body += enumerable_overload(call, call.names.get('csharp', surface.pascal(call.name)))
    if any(p.kind in surface.ARRAYS for c in obj.calls for p in c.params):
        body += ARRAY_HELPERS
    if obj.calls_only:
        body = body.replace('{\n\n', '{\n', 1)
    return body + '    }\n'


def module_class(module):
    """The library's functions described in surface.py: static methods of the partial class Library."""
    body = '    public static partial class Library\n    {\n'
    for i, call in enumerate(module.calls):
        name = call.names.get('csharp', surface.pascal(call.name))
        params, _, args = surface_arguments(call.params, f'Library.{name}')
        body += ('\n' if i else '') + surface_doc(call.doc)
        if call.kind == 'getter':
            value = SURFACE_TYPES[call.returns][0]
            body += (f'        public static {value} {name}()\n        {{\n            var value = new {value}[1];\n'
                     f'            Check.Ok(NativeApi.{call.c_function}(value));\n            return value[0];\n        }}\n')
        elif call.kind == 'text_method':
            body += (f'        public static string {name}({", ".join(params)}) =>\n'
                     '            ReadText((buffer, length) =>\n'
                     f'                NativeApi.{call.c_function}(' + ''.join(a + ', ' for a in args) +
                     'buffer, buffer == null ? 0 : buffer.Length, length));\n')
        else:  # method
            body += (f'        public static void {name}({", ".join(params)}) =>\n'
                     f'            Check.Ok(NativeApi.{call.c_function}({", ".join(args)}));\n')
    return body + '    }\n'


def exception_classes(model):
    """One exception class a status, under CudnnFeException, and StatusExceptions.Of, which makes the
    class of a status."""
    status = model.enums['fe_status']
    names = dict(zip(schema_model.value_suffixes(status), member_names(status)))
    body, cases = '', ''
    for suffix, (c_name, _, value) in zip(schema_model.value_suffixes(status), status.values):
        cls = surface.exception_name(suffix)
        if cls is None:
            continue
        doc = status.value_docs.get(c_name, '')
        body += (f'    /// <summary>A call that failed with {xml(suffix)}: {xml(doc[0].lower() + doc[1:])}</summary>\n'
                 f'    public class {cls} : CudnnFeException\n    {{\n'
                 f'        internal {cls}(string function, string method, string reason)\n'
                 f'            : base(Status.{names[suffix]}, function, method, reason) {{ }}\n\n'
                 f'        internal {cls}(string message) : base(Status.{names[suffix]}, message) {{ }}\n    }}\n\n')
        cases += f'                case Status.{names[suffix]}: return new {cls}(function, method, reason);\n'
    body += ('    /// <summary>The exception class of each status.</summary>\n    internal static class StatusExceptions\n    {\n'
             '        /// <summary>The exception of a failed call (CudnnFeException itself for a status this binding does\n'
             '        /// not know).</summary>\n'
             '        internal static CudnnFeException Of(Status status, string function, string method, string reason)\n'
             '        {\n            switch (status)\n            {\n' + cases +
             '                default: return new CudnnFeException(status, function, method, reason);\n'
             '            }\n        }\n    }\n')
    return body


def api_names_class():
    """ApiNames: the C# names of the C functions (bindings/surface.py's rule, the described calls, the table)."""
    described = {}
    for obj in surface.OBJECTS:
        if obj.create:
            described[obj.create] = f'new {obj.name}'
        getters = {c.name for c in obj.calls if c.kind == 'getter'}
        for c in obj.calls:
            name = c.names.get('csharp', surface.pascal(c.name))
            if c.kind == 'method' and c.name.startswith('set_') and c.name[len('set_'):] in getters:
                name = surface.pascal(c.name[len('set_'):])  # the setter of a property
            described[c.c_function] = f'{obj.name}.{name}'
    described.update({c.c_function: f'Library.{c.names.get("csharp", surface.pascal(c.name))}'
                      for c in surface.MODULE.calls})
    names = surface.api_names('csharp', surface.pascal, described)
    entries = ''.join(f'            ["{f}"] = "{n}",\n' for f, n in sorted(names.items()))
    pattern = '\n            + '.join(f'@"{piece}"' for piece in surface.advice_pattern())
    return ('    /// <summary>\n'
            '    /// The C# names of the C functions: an error names the method the caller called\n'
            '    /// (Graph.ConvFprop, not fe_graph_conv_fprop), and advice in a message names the C# method\n'
            '    /// to call instead.\n'
            '    /// </summary>\n'
            '    internal static class ApiNames\n    {\n'
            '        private static readonly System.Collections.Generic.Dictionary<string, string> Methods =\n'
            '            new System.Collections.Generic.Dictionary<string, string>\n        {\n'
            f'{entries}        }};\n\n'
            '        // The functions the library\'s advice names: only these are translated inside a message.\n'
            '        private static readonly System.Text.RegularExpressions.Regex Advice =\n'
            f'            new System.Text.RegularExpressions.Regex(\n            {pattern});\n\n'
            '        internal static string Method(string function) =>\n'
            '            Methods.TryGetValue(function, out string known) ? known : function;\n\n'
            '        internal static string Translate(string text) => Advice.Replace(text, m => Method(m.Value));\n'
            '    }\n')


def main():
    schema, swig_list, out_dir, list_file = sys.argv[1:]
    model = schema_model.load(schema)
    surface.add_conveniences(model)
    proxies = proxy_types(swig_list)
    out = pathlib.Path(out_dir)
    shutil.rmtree(out, ignore_errors=True)  # no stale file of an op the schema dropped
    out.mkdir(parents=True)
    written = [write(out, s.class_name + '.g.cs', options_class(s, proxies)) for s in model.structs.values()]
    existing = hand_written_enums()
    for e in model.enums.values():
        if enum_name(e.c_type) in existing:
            raise SystemExit(f'generate_layer: enum {enum_name(e.c_type)} is written by hand in src/; every schema '
                             'enum is generated')
    written += [write(out, enum_name(e.c_type) + '.g.cs', enum_source(e)) for e in model.enums.values()]
    for obj in surface.OBJECTS:
        if not obj.idioms and not obj.calls_only and (pathlib.Path(__file__).resolve().parent / 'src' /
                                                      f'{obj.name}.cs').exists():
            raise SystemExit(f'generate_layer: {obj.name}.cs is written by hand; it is described in surface.py')
        file_name = obj.name + ('.Calls' if obj.calls_only else '') + '.g.cs'
        written.append(write(out, file_name, surface_class(obj),
                             '// Generated from bindings/surface.py by bindings/csharp/generate_layer.py; do not edit.\n'))
    if (pathlib.Path(__file__).resolve().parent / 'src' / 'ApiNames.cs').exists():
        raise SystemExit('generate_layer: ApiNames.cs is written by hand; the names are described in surface.py')
    for rec in surface.RECORDS:
        written.append(write(out, rec.name + '.g.cs', record_class(rec),
                             '// Generated from bindings/surface.py by bindings/csharp/generate_layer.py; do not edit.\n'))
    written.append(write(out, 'Library.g.cs', module_class(surface.MODULE),
                         '// Generated from bindings/surface.py by bindings/csharp/generate_layer.py; do not edit.\n'))
    written.append(write(out, 'Exceptions.g.cs', exception_classes(model)))
    written.append(write(out, 'ApiNames.g.cs', api_names_class(),
                         '// Generated from bindings/surface.py by bindings/csharp/generate_layer.py; do not edit.\n'))
    written += [write(out, class_name + '.g.cs', text) for class_name, text in shared_result_classes().items()]
    families = {}
    for op in model.ops:
        families.setdefault(op.family, []).append(Method(op))
    for family, methods in families.items():
        file_name = 'Graph.' + ''.join(schema_model.pascal(w) for w in re.findall(r'\w+', family)) + '.g.cs'
        written.append(write(out, file_name, graph_file(family, methods)))
        for m in methods:
            if m.result not in (None, OUT) and m.op.kind not in RESULTS:
                written.append(write(out, m.result[0] + '.g.cs', result_class(m)))
    pathlib.Path(list_file).write_text(''.join(f'{p.resolve()}\n' for p in sorted(written)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
