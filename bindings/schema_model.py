"""The op schema ('cudnnfe schema', bindings/op_schema.json) as the bindings' generators read it.

One place for the conventions every language follows, so that an option means the same in each:
- an options struct becomes an options class named after the struct (fe_conv_options -> Conv
  Options), one setter per field; unset fields keep the C defaults (the _INIT macro's values);
- a per-spatial-dim array (type spatial_array) is set through its C setter
  (<struct>_set_<field>), which holds the one-value-for-every-dim rule and refuses other counts;
- a pre_X / post_X pair of spatial arrays also gets a setter X that sets both;
- an array of tensors (type tensor_array, its length in a tensor_count field) gets one setter that
  takes the tensors in order, each language's variadic or array form, and sets them through the
  C setter (<struct>_set_<field>), which holds the count's range and refuses a null entry with the
  C library's message (a null entry is passed on as NULL for it to name); the count gets no setter
  of its own. Left unset, the array keeps its C default (no tensors);
- a tensor field X_tensor beside a number field X is an overload of X taking a tensor;
- a graph method per op: the op's inputs (optional ones nullable), its parameters, then its
  options (nullable); its outputs come back in port order, a conditional one null when its
  option did not ask for it.

usage from a generator: model = schema_model.load(path); model.structs, model.ops, model.enums
"""
import dataclasses
import json
import re
from typing import Optional


def words(snake: str) -> list:
    """'sq_sum' -> ['sq', 'sum']; port names like 'Amax_dQ' or 'InvVariance' split too."""
    parts = []
    for chunk in snake.split('_'):
        parts += re.findall(r'[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+|[A-Z]', chunk) or [chunk]
    return [p.lower() for p in parts if p]


def pascal(snake: str) -> str:
    return ''.join(w.capitalize() for w in words(snake))


def camel(snake: str) -> str:
    p = pascal(snake)
    return p[:1].lower() + p[1:]


@dataclasses.dataclass
class Field:
    name: str               # C member name
    type: str               # schema type: name, integer, number, flag, enum, data_type, tensor,
                            # spatial_array, spatial_count, dims_array, dims_count, axes,
                            # tensor_array, tensor_count
    enum: Optional[str]     # C enum type of enum and data_type fields
    doc: str
    default: object
    minimum: Optional[float]
    maximum: Optional[float]
    c_setter: Optional[str]  # the C function that sets this field, when it has one
    size: int = 0            # bytes in the C struct: an integer of 4 is 32-bit
    overload_of: Optional[str] = None  # a tensor field that is another form of this field
    count_of: Optional[str] = None     # a tensor_count field: the tensor_array whose length it is


@dataclasses.dataclass
class Pair:
    """A setter that sets a pre_X and a post_X array together."""
    name: str
    fields: tuple


@dataclasses.dataclass
class Struct:
    c_type: str
    class_name: str
    doc: str
    fields: list
    pairs: list

    def field(self, name):
        return next(f for f in self.fields if f.name == name)

    def array_note(self, field) -> str:
        """What the setter of a tensor array adds to its field's doc: the C setter's limits."""
        if field.type != 'tensor_array':
            return ''
        count = next(f for f in self.fields if f.count_of == field.name)
        return f' At most {count.maximum:g}, in order; none clears them.'


@dataclasses.dataclass
class Port:
    name: str
    doc: str
    optional: bool = False   # an input that may be null
    when: Optional[str] = None  # an output present only when this option asks for it
    argument: str = ''       # the entry point's argument (schema::argument_name)


@dataclasses.dataclass
class Param:
    name: str
    type: str
    enum: Optional[str]
    required: bool
    doc: str


@dataclasses.dataclass
class Convenience:
    """An entry point of its own for one kind of a family (fe_graph_bias: pointwise's add): its
    operands are the family's first ports, named its own way (schema::Convenience)."""
    entry_point: str
    kind: str
    operands: list
    doc: str


@dataclasses.dataclass
class Op:
    kind: str
    entry_point: str
    family: str
    doc: str
    inputs: list
    outputs: list
    params: list
    options: Optional[Struct]
    scales: Optional[Struct]
    takes: list
    kinds: Optional[str]     # pointwise: the enum whose values are the op kinds
    conveniences: list = dataclasses.field(default_factory=list)

    @property
    def method(self) -> str:
        """The op's snake_case name, which each language cases its own way."""
        return self.kind

    def returned(self, port: Port) -> bool:
        """Whether the entry point returns this output. An output asked for by an output_* flag
        of the options struct is not returned: the caller finds it by name (<node>::<port>)."""
        return not (port.when and port.when.startswith('output_') and self.options is not None
                    and any(f.name == port.when for f in self.options.fields))

    def c_arguments(self) -> list:
        """The entry point's arguments after the graph, as (role, name, what) in C order: role is
        'input', 'inputs' (a counted array), 'mode' (the op kind's enum), 'count', 'param',
        'scales', 'options' or 'output'. Inputs, parameters, scales, options, then the returned
        outputs; a dims_array parameter is a count and a pointer, and arrays that follow one
        another share the first one's count (slice's start and end); a flag parameter is how
        the caller passes a nullable output, so it has no argument of its own."""
        args = []
        if self.kinds:
            args.append(('mode', 'mode', self.kinds))
        if self.kind == 'concatenate':
            args += [('count', 'count', None), ('inputs', 'inputs', self.inputs)]
        else:
            args += [('input', p.name, p) for p in self.inputs]
        counted = False
        for p in self.params:
            if p.type == 'flag':
                continue
            if p.type == 'dims_array':
                if not counted:
                    args.append(('count', p.name, p))
                counted = True
            args.append(('param', p.name, p))
        if self.scales is not None:
            args.append(('scales', 'scales', self.scales))
        args.append(('options', 'options', self.options))
        args += [('output', p.name, p) for p in self.outputs if self.returned(p)]
        return args


@dataclasses.dataclass
class Enum:
    c_type: str
    doc: str
    values: list             # (c_name, json_name, value)
    value_docs: dict = dataclasses.field(default_factory=dict)  # c_name -> what the value means
    flags: bool = False      # one bit each: the values combine into an int64 mask


def value_suffixes(enum):
    """Each value's C name without the enum's common prefix (FE_CAUSAL_MASK_TOP_LEFT -> TOP_LEFT),
    the names every language's constants are made from."""
    names = [c for c, _, _ in enum.values]
    prefix = names[0]
    for n in names[1:]:
        while not n.startswith(prefix):
            prefix = prefix[:prefix.rstrip('_').rfind('_') + 1] if '_' in prefix.rstrip('_') else ''
    if len(names) == 1:
        prefix = prefix[:prefix.rstrip('_').rfind('_') + 1]
    # A value named after the enum's type (FE_STATUS_NOT_FOUND of fe_status, beside FE_OK) loses
    # that longer prefix.
    type_prefix = enum.c_type.upper() + '_'
    return [n[len(type_prefix):] if n.startswith(type_prefix) and len(type_prefix) > len(prefix) else n[len(prefix):]
            for n in names]


@dataclasses.dataclass
class Model:
    enums: dict
    structs: dict
    ops: list


def _struct(raw) -> Struct:
    fields = []
    for f in raw['fields']:
        setter = (f"{raw['c_type']}_set_{f['name']}" if f['type'] in ('spatial_array', 'tensor_array')
                  else None)
        fields.append(Field(f['name'], f['type'], f.get('enum'), f.get('doc', ''), f.get('default'),
                            f.get('min'), f.get('max'), setter, f.get('size', 0)))
    names = {f.name: f for f in fields}
    for f in fields:
        if f.type == 'tensor' and f.name.endswith('_tensor'):
            base = names.get(f.name[:-len('_tensor')])
            if base is not None and base.type == 'number':
                f.overload_of = base.name
    for i, f in enumerate(fields):
        if f.type == 'tensor_count':
            array = next((a for a in fields[i + 1:] if a.type == 'tensor_array'), None)
            if array is None:
                raise SystemExit(f"schema_model: {raw['c_type']}.{f.name} counts no tensor_array after it")
            f.count_of = array.name
    pairs = []
    for f in fields:
        if f.name.startswith('pre_') and f.type == 'spatial_array':
            rest = f.name[len('pre_'):]
            post = names.get('post_' + rest)
            if post is not None and post.type == 'spatial_array' and rest not in names:
                pairs.append(Pair(rest, (f.name, post.name)))
    class_name = pascal(raw['c_type'][len('fe_'):])
    return Struct(raw['c_type'], class_name, raw.get('doc', ''), fields, pairs)


def load(path) -> Model:
    with open(path) as f:
        raw = json.load(f)
    enums = {e['c_type']: Enum(e['c_type'], e.get('doc', ''),
                               [(v['c_name'], v['json_name'], v['value']) for v in e['values']],
                               {v['c_name']: v['doc'] for v in e['values'] if v.get('doc')},
                               e.get('flags', False))
             for e in raw['enums']}
    structs = {s['c_type']: _struct(s) for s in raw['structs']}
    ops = []
    for o in raw['ops']:
        inputs = [Port(p['name'], p.get('doc', ''), optional=p.get('when') == 'optional',
                       argument=p.get('argument', '')) for p in o['inputs']]
        outputs = [Port(p['name'], p.get('doc', ''), when=p.get('when'), argument=p.get('argument', ''))
                   for p in o['outputs']]
        params = [Param(p['name'], p['type'], p.get('enum'), p.get('required', False), p.get('doc', ''))
                  for p in o['params']]
        ops.append(Op(o['kind'], o['entry_point'], o.get('family', ''), o.get('doc', ''), inputs,
                      outputs, params, structs.get(o.get('options')), structs.get(o.get('scales')),
                      o.get('takes', []), o.get('kinds'),
                      [Convenience(c['entry_point'], c['kind'], c['operands'], c.get('doc', ''))
                       for c in o.get('conveniences', [])]))
    return Model(enums, structs, ops)


if __name__ == '__main__':
    import sys
    model = load(sys.argv[1])
    for s in model.structs.values():
        print(s.class_name, [f.name for f in s.fields], [p.name for p in s.pairs],
              [(f.name, f.overload_of) for f in s.fields if f.overload_of])
    for op in model.ops:
        print(op.method, [p.name for p in op.inputs], [p.name for p in op.outputs])
