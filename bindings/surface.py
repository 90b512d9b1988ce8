"""The C API's objects beside the ops, described once for the three bindings: each object's C type,
the function that makes it and the one that releases it, and its calls, each with the shape of its
arguments and result; every binding's generator (bindings/<language>/generate_layer.py) writes the
object's class in its language's idiom from this. Only what a language cannot say in its idiom is
written by hand beside it.

Docs are written once with a little markup that each language renders in its own terms:
  [Class.member]    a link to a member (Java {@link Class#member}, C# <see cref="Class.Member"/>, Go
                    Class.Member), the member named in snake case
  {STATUS}          a status (Java BAD_STATE, C# BadState, Go StatusBadState)
  {close}           releasing an object (Java close(), C# Dispose, Go Close)
  {closes}          the caller releases it (closes, disposes, closes)
  {thread} {threads} a concurrent caller, callers (thread, thread, goroutine)
  {null}            no object (null, null, nil)
  {no_text}         no text (null, null, "")
"""
import dataclasses
import pathlib
import re


# The kinds of values: 'handle' an fe_handle (nullable or not); 'tensor' an fe_tensor (required);
# 'kernel_cache' an fe_kernel_cache (nullable or not); 'text' a string; 'text_with_length' a
# string and its length; 'int32', 'int64', 'byte'; 'stream' a cudaStream_t and 'address' a device
# address (Java long, C# IntPtr, Go uintptr); 'enum' a value of the C enum `enum` (the language's
# generated enum); 'bool' (an int32 flag); 'double'; 'bytes' a byte array and its length; 'options' an
# options struct of the schema (`struct`, nullable: the C defaults). Arrays: 'tensors' (none null),
# 'buffers' (device buffers, none null), 'addresses', 'int64s', each followed in C by 'count': their
# common length, which a binding takes from the arrays (checked to be one). Results only:
# 'borrowed_text' (a string the library keeps, returned through a const char **).
@dataclasses.dataclass
class Param:
    name: str
    kind: str
    nullable: bool = False
    default: object = None  # the value a language with default arguments fills in
    enum: str = ''          # the C enum of an 'enum' value (fe_build_policy)
    struct: str = ''        # the C struct of an 'options' value (fe_deserialize_options)
    doc: str = ''           # a record's field: what it holds
    variadic: bool = False  # the last parameter, taken as a language's variable arguments where it has them
    record: str = ''        # a 'records' value: the Record (KnobChoice), one C array per field


@dataclasses.dataclass
class Call:
    name: str             # the member's name in snake case (serialize, load)
    c_function: str
    kind: str             # 'method': on the object; 'text_method': returns text; 'factory': makes an object;
    #                       'getter': returns the value of kind `returns` (a property where the language has them);
    #                       'setter': a method that returns the object, for chained calls (Go: the error only);
    #                       'query': takes arguments and returns the value of kind `returns` (a method everywhere);
    #                       'tensor_query': the graph's tensor the call makes or finds; 'tensor_list': the
    #                       graph's tensors, counted by `count_function`, each by its index; 'bytes_method':
    #                       returns bytes; 'static_text': text from the arguments, no object (Go: a function)
    params: list
    doc: str
    returns: str = ''
    names: dict = dataclasses.field(default_factory=dict)  # a language's own name ('go': 'NewDeviceBuffer')
    enum: str = ''        # the C enum a getter of kind 'enum' returns
    csharp_property: bool = False  # a setter C# folds into its getter's property (set), with no method
    count_function: str = ''  # a tensor_list's C function that counts its tensors
    record: str = ''      # the Record a 'record_query', 'record_outs' or 'record_list' returns


@dataclasses.dataclass
class ConveniencesOf:
    """Where an op family's conveniences (schema::Convenience: fe_graph_bias, one mode of pointwise)
    go among an object's calls: add_conveniences puts one tensor_query each in its place, from the op
    schema (their operands, options and doc are the description's)."""
    family_entry_point: str


@dataclasses.dataclass
class Object:
    c_type: str           # fe_kernel_cache
    name: str             # KernelCache
    doc: str
    create: str           # the C function that makes one (its arguments, then the out-parameter); '': none
    create_doc: str
    destroy: str
    calls: list
    create_params: list = dataclasses.field(default_factory=list)
    close_doc: str = 'Releases the caller\'s reference; closing again does nothing.'
    # Members in a language's own idiom written by hand beside the generated ones: Java's in
    # bindings/java/src/main/java/dev/cudnnfe/<Name>.members (spliced into the class), C#'s in a
    # partial class of src/<Name>.cs, Go's as methods in any file of the package.
    idioms: bool = False
    # The class itself is written by hand (with the op layer beside it); only the calls are
    # generated: Java's in an abstract class <Name>Calls extending `java_base` that the hand-written
    # class extends, C#'s in a partial class, Go's as methods of the hand-written type.
    calls_only: bool = False
    java_base: str = ''
    # The library's functions, with no object: Java's static methods of CudnnFe (in CudnnFeCalls,
    # which it extends), C#'s of the static class Library (a partial class), Go's package functions.
    module: bool = False


@dataclasses.dataclass
class Record:
    """A value the library returns (or, public, that callers make): immutable, compared by value. Its
    fields are Params of kinds text, int32, int64, bool and flags (a set of the flags enum `enum`)."""
    name: str
    doc: str
    fields: list
    c_struct: str = ''     # the C struct a 'record_query' fills (its members named as the fields)
    public: bool = False   # callers make them (a public constructor)
    idioms: bool = False   # members written by hand beside it, as an Object's


RECORDS = [
    Record('ConfigInfo', 'What an engine config is: a candidate of the plan search ([Graph.candidate_info]) or a '
           'built plan ([Graph.plan_info]).',
           [Param('tag', 'text', doc='The engine and its knobs, e.g. "eng6_k24=26".'),
            Param('engine_index', 'int64', doc='cuDNN\'s global engine index.'),
            Param('workspace_bytes', 'int64', doc='The workspace cuDNN asks for (without cudnnfe\'s own part).'),
            Param('shared_memory_bytes', 'int64',
                  doc='Shared memory per block, as cuDNN reports it; -1 where it does not (cuDNN 9.19 reports it for '
                      'runtime-compiled engines only).'),
            Param('numerical_notes', 'flags', enum='fe_numerical_note', doc='The engine\'s numerical notes.'),
            Param('behavior_notes', 'flags', enum='fe_behavior_note', doc='The engine\'s behaviour notes.'),
            Param('viable', 'bool', doc='False when deselected or refused (a plan is always viable).')],
           c_struct='fe_config_info'),
    Record('CandidateNotes', 'A candidate engine config\'s tag and its engine\'s notes.',
           [Param('tag', 'text', doc='The engine and its knobs, e.g. "eng6_k24=26".'),
            Param('numerical', 'flags', enum='fe_numerical_note', doc='The engine\'s numerical notes.'),
            Param('behavior', 'flags', enum='fe_behavior_note', doc='The engine\'s behaviour notes.')]),
    Record('KnobRange', 'One knob of an engine ([Graph.engine_knobs]): its type (cuDNN\'s cudnnBackendKnobType_t '
           'value) and the values it takes, min to max in steps of stride.',
           [Param('type', 'int32', doc='The knob\'s type.'), Param('min', 'int64', doc='The smallest value.'),
            Param('max', 'int64', doc='The largest value.'), Param('stride', 'int64', doc='The step between values.')],
           idioms=True),
    Record('KnobChoice', 'One knob setting of a candidate (to add one with its knobs): a knob type (as a knob range\'s) '
           'and its value.',
           [Param('type', 'int32', doc='The knob\'s type.'), Param('value', 'int64', doc='Its value.')], public=True),
]

KERNEL_CACHE = Object(
    'fe_kernel_cache', 'KernelCache',
    'Compiled kernels that dynamic-shape builds share: a graph built with a kernel cache '
    '([BuildOptions.kernel_cache] or [Graph.set_kernel_cache]) is built with dynamic shapes, so a later graph '
    'of the same structure (operations, data types, layouts) with other dims builds from the cache without '
    'compiling again. cuDNN 9.5 or later ({NOT_SUPPORTED} otherwise). A cache may be shared by graphs of '
    'several structures and used by several {threads}. {close} releases this object\'s reference only: graphs '
    'built with the cache keep theirs and go on working.',
    'fe_kernel_cache_create', 'An empty kernel cache.', 'fe_kernel_cache_destroy',
    [
        Call('serialize', 'fe_kernel_cache_serialize', 'text_method', [],
             'cuDNN\'s JSON form of the cache (cuDNN 9.10), for another process on the same kind of GPU with the '
             'same cuDNN. {BAD_STATE} for a cache no graph has been built with yet.'),
        Call('deserialize', 'fe_kernel_cache_deserialize', 'factory', [Param('json', 'text_with_length')],
             'A kernel cache from [KernelCache.serialize]\'s text (untrusted: checked to be a JSON object of at '
             'most 256 MiB before cuDNN reads it; anything else is {INVALID_ARGUMENT}). The caller {closes} it.'),
        Call('store', 'fe_kernel_cache_store', 'method',
             [Param('handle', 'handle', nullable=True), Param('name', 'text')],
             'Store the cache in the handle\'s persistent cache directory ([Handle.set_cache_directory] or '
             '$CUDNNFE_CACHE_DIR) under name (letters, digits, \'-\', \'_\' and \'.\', at most 64; anything else is '
             '{INVALID_ARGUMENT}), keyed by the GPU kind and the cuDNN version. The handle may be {null} '
             '($CUDNNFE_CACHE_DIR only); {BAD_STATE} when there is no directory or the cache holds no kernels.'),
        Call('load', 'fe_kernel_cache_load', 'factory', [Param('handle', 'handle'), Param('name', 'text')],
             'The cache stored under name for the handle\'s GPU and cuDNN; {NOT_FOUND} when there is none (or it '
             'was rejected as corrupt, and removed). The caller {closes} it.'),
    ])

HANDLE = Object(
    'fe_handle', 'Handle',
    'A GPU, a CUDA stream, a cuDNN handle and a workspace that grows on demand. One {thread} at a time may use a '
    'handle; a built graph may run on several {threads}, each with its own handle.',
    'fe_handle_create', 'A handle on a CUDA device.', 'fe_handle_destroy',
    [
        Call('set_stream', 'fe_handle_set_stream', 'method', [Param('stream', 'stream')],
             'Set the CUDA stream (a cudaStream_t; 0 is the legacy default stream).'),
        Call('stream', 'fe_handle_get_stream', 'getter', [], 'The CUDA stream executions are enqueued on.',
             returns='stream'),
        Call('device', 'fe_handle_get_device', 'getter', [], 'The handle\'s CUDA device.', returns='int32'),
        Call('synchronize', 'fe_handle_synchronize', 'method', [],
             'Wait until the work enqueued on the handle\'s stream has finished.'),
        Call('reorder_filter_int8x32', 'fe_handle_reorder_filter_int8x32', 'method',
             [Param('filter', 'tensor'), Param('values', 'address'), Param('reordered', 'address')],
             'Write an INT8x32 filter\'s values (an int8 tensor vectorized in 32 along dim 1, packed) from the device '
             'address values to the device address reordered (not overlapping) in the order cuDNN\'s INT8x32 kernels '
             'read ([Tensor.set_reordering]), on the handle\'s stream. {NOT_SUPPORTED} when the loaded cuDNN lacks '
             'cudnnReorderFilterAndBias.'),
        Call('workspace_size', 'fe_handle_workspace_size', 'getter', [],
             'The bytes of workspace the handle holds now.', returns='int64'),
        Call('set_cache_directory', 'fe_handle_set_cache_directory', 'method', [Param('directory', 'text')],
             'Store plans built with this handle in a directory shared by processes, from which identical graphs\' '
             'plans are loaded; {no_text} turns it off (else $CUDNNFE_CACHE_DIR, when set, is used).'),
        Call('set_cache_limit', 'fe_handle_set_cache_limit', 'method', [Param('max_bytes', 'int64')],
             'Set the bytes the cache directory may hold before its oldest entries are removed (default 1 GiB).'),
    ],
    create_params=[Param('device', 'int32', default=0)],
    close_doc='Frees the handle and its workspace; closing again does nothing.')

DEVICE_BUFFER = Object(
    'fe_buffer', 'DeviceBuffer',
    'Device memory allocated by cudnnfe. Transfers are synchronous for the host and ordered with the legacy '
    'default stream; with a non-blocking stream on a handle, synchronize the handle '
    '([Handle.synchronize]) before reading results.',
    '', '', 'fe_buffer_destroy',
    [
        Call('allocate', 'fe_buffer_create', 'factory', [Param('device', 'int32'), Param('bytes', 'int64')],
             'A buffer of that many bytes on the device.', names={'go': 'NewDeviceBuffer'}),
        Call('for_tensor', 'fe_buffer_create_for_tensor', 'factory', [Param('device', 'int32'), Param('tensor', 'tensor')],
             'A buffer on the device large enough for the tensor\'s elements at its strides.',
             names={'csharp': 'For', 'go': 'NewDeviceBufferFor'}),
        Call('device_pointer', 'fe_buffer_device_pointer', 'getter', [],
             'The device address, to execute a graph with.', returns='address'),
        Call('size', 'fe_buffer_size', 'getter', [], 'The buffer\'s size in bytes.', returns='int64'),
        Call('fill', 'fe_buffer_fill_bytes', 'method', [Param('value', 'byte')],
             'Set every byte of the buffer to value (to poison outputs before a test, say).'),
    ],
    close_doc='Frees the device memory; closing again does nothing.', idioms=True)

COUNT = Param('count', 'count')
EXECUTE_PARAMS = [Param('handle', 'handle'), Param('tensors', 'tensors'), Param('device_pointers', 'addresses'), COUNT]

GRAPH = Object(
    'fe_graph', 'Graph', '', '', '', 'fe_graph_destroy',
    [
        Call('name', 'fe_graph_get_name', 'getter', [], 'The graph\'s name.', returns='borrowed_text'),
        Call('tensor_like', 'fe_graph_tensor_like', 'tensor_query', [Param('like', 'tensor'), Param('name', 'text')],
             'An input with that name and the dims, strides and data type of the tensor given (of this graph or of '
             'another one); not its name, uid or output flag.'),
        Call('scalar', 'fe_graph_scalar', 'tensor_query',
             [Param('name', 'text'), Param('value', 'double'), Param('type', 'enum', enum='fe_data_type')],
             'A host value passed to cuDNN at every execution, broadcast by the pointwise operation that uses it.'),
        Call('constant', 'fe_graph_constant', 'tensor_query',
             [Param('name', 'text'), Param('value', 'double'), Param('type', 'enum', enum='fe_data_type')],
             'A compile-time constant: a scalar whose value cuDNN compiles into the plan\'s kernels (another value '
             'needs another build). Needs cuDNN 9.22; earlier versions refuse the build, naming it.'),
        Call('tensor_by_name', 'fe_graph_tensor_by_name', 'tensor_query', [Param('name', 'text')],
             'The graph\'s tensor of that name ({NOT_FOUND} when it has none).'),
        Call('tensor_by_uid', 'fe_graph_tensor_by_uid', 'tensor_query', [Param('uid', 'int64')],
             'The graph\'s tensor with that uid, set or (once built) assigned by the build ({NOT_FOUND} when none '
             'has it).', names={'go': 'TensorByUID'}),
        Call('set_device_properties', 'fe_graph_set_device_properties', 'method', [Param('json', 'text')],
             'Make the build target the GPU this cuDNN device JSON describes (captured on that GPU): the graph is '
             'then built without one.'),
        Call('validate', 'fe_graph_validate', 'method', [], 'Infer every shape, stride and type and check them.'),
        Call('build_operation_graph', 'fe_graph_build_operation_graph', 'method',
             [Param('handle', 'handle', nullable=True)],
             'Lower the graph to cuDNN\'s operation graph; the handle may be {null} for a graph with device '
             'properties.'),
        Call('deselect_workspace_greater_than', 'fe_graph_deselect_workspace_greater_than', 'method',
             [Param('max_bytes', 'int64')], 'Drop the candidates that need more than that many bytes of workspace.'),
        Call('deselect_shared_memory_greater_than', 'fe_graph_deselect_shared_memory_greater_than', 'method',
             [Param('max_bytes', 'int64')],
             'Drop the candidates whose engine config uses more than that many bytes (0 or more) of shared memory '
             'per block, as cuDNN reports it; a config it reports none for (-1) is kept.'),
        Call('check_support', 'fe_graph_check_support', 'method', [],
             'Check that a candidate is viable: {NOT_SUPPORTED}, with cuDNN\'s reason, when none is.'),
        Call('build_plans', 'fe_graph_build_plans', 'method', [Param('policy', 'enum', enum='fe_build_policy')],
             'Finalize plans from the viable candidates, as the policy says.'),
        Call('build_plans_on_threads', 'fe_graph_build_plans_on_threads', 'method',
             [Param('policy', 'enum', enum='fe_build_policy'), Param('threads', 'int32')],
             'Build plans as [Graph.build_plans] does, with up to that many plans finalized at the same time (1 to '
             '64): for the policy that builds every candidate, whose plans\' kernels may each be compiled; the plans '
             'and their order are the same.'),
        Call('build_plan_at_index', 'fe_graph_build_plan_at_index', 'method', [Param('candidate_index', 'int64')],
             'Build the plan of that candidate only (after [Graph.check_support], or after other plans were built: '
             'it is added after them). {NOT_SUPPORTED}, with cuDNN\'s reason, when it does not build; '
             '{INVALID_ARGUMENT} for a deselected candidate or one built already. The first plan built executes until '
             '[Graph.select_plan] says otherwise.'),
        Call('select_plan', 'fe_graph_select_plan', 'method', [Param('plan_index', 'int64')],
             'Make that built plan the one that executes (and that populating a CUDA graph, warmup, the workspace '
             'size and serialization use).'),
        Call('set_kernel_cache', 'fe_graph_set_kernel_cache', 'method', [Param('cache', 'kernel_cache', nullable=True)],
             'Build the graph with dynamic shapes from this kernel cache ({null}: without), before '
             '[Graph.build_operation_graph]. The graph keeps its own reference: {close} on the cache afterwards does '
             'not affect it.'),
        Call('engine_count', 'fe_graph_engine_count', 'getter', [],
             'How many engines cuDNN has for the operation graph (global indices from 0; not every one runs it), '
             'after [Graph.build_operation_graph].', returns='int64'),
        Call('candidate_count', 'fe_graph_candidate_count', 'getter', [],
             'The number of candidates: heuristics\' and those added.', returns='int64'),
        Call('viable_count', 'fe_graph_viable_count', 'getter', [],
             'The number of candidates left after the support check.', returns='int64'),
        Call('plan_count', 'fe_graph_plan_count', 'getter', [], 'The number of plans built.', returns='int64'),
        Call('workspace_size', 'fe_graph_workspace_size', 'getter', [],
             'The bytes of workspace the chosen plan needs.', returns='int64'),
        Call('engine_index', 'fe_graph_engine_index', 'getter', [],
             'cuDNN\'s global index of the chosen plan\'s engine.', returns='int64'),
        Call('engine_tag', 'fe_graph_engine_tag', 'getter', [],
             'The chosen engine and its knobs, e.g. "eng12_k2=3_k3=0".', returns='borrowed_text'),
        Call('is_built', 'fe_graph_is_built', 'getter', [], 'True when the graph has a plan that can execute.',
             returns='bool'),
        Call('background_state', 'fe_graph_background_state', 'getter', [],
             'Where the background static build (the build option background_static) stands: executes switch to '
             'its plan once it is ready, outside a stream capture and when their workspace holds it.',
             returns='enum', enum='fe_background_state'),
        Call('wait_background', 'fe_graph_wait_background', 'method', [],
             'Wait until the background static build has ended (at once without one); its failure\'s status '
             'when it failed.'),
        Call('describe', 'fe_graph_describe', 'text_method', [],
             'A readable description, a line each: the tensors, the operations and, once built, the engine and '
             'the workspace.'),
        Call('to_json', 'fe_graph_to_json', 'text_method', [],
             'The graph as JSON text: defaults, tensors with uids, operations with every attribute, outputs.',
             names={'go': 'ToJSON'}),
        Call('key', 'fe_graph_key', 'text_method', [],
             'The graph\'s key: 64 hex digits, the SHA-256 of its JSON less the described GPU; the same graph has '
             'the same key in every process and on every machine, whatever its build options or target.'),
        Call('autotune', 'fe_graph_autotune', 'query',
             [Param('handle', 'handle'), Param('warmup', 'int32', default=-1), Param('iterations', 'int32', default=0)],
             'Time every built plan (built with the policy that builds them all, or with autotuning) on the handle\'s '
             'GPU, the fastest then the one that executes; returns its median in microseconds. A warmup below 0: 3; '
             'iterations 0 or less: 10.', returns='double'),
        Call('plan_time_us', 'fe_graph_plan_time_us', 'query', [Param('index', 'int64')],
             'The median time of that built plan from the last autotune (index 0 executes).', returns='double'),
        Call('warmup', 'fe_graph_warmup', 'method', [Param('handle', 'handle')],
             'Perform the first execute\'s one-time work now (the handle\'s workspace grown), before executes are '
             'captured into a CUDA graph.'),
        # The C library's pointwise conveniences (fe_graph_bias, ...), each its own entry point (the op's
        # generated method, pointwise, takes any mode), as the op schema describes them.
        ConveniencesOf('fe_graph_pointwise'),
        Call('attention_implementation', 'fe_graph_attention_implementation', 'query',
             [Param('node_name', 'text', default='null')],
             'How the attention node of that name ({null}: the first) was lowered, once its operation graph exists.',
             returns='enum', enum='fe_sdpa_implementation'),
        # Building in one call, and the steps' engine control.
        Call('build', 'fe_graph_build', 'method',
             [Param('handle', 'handle', nullable=True),
              Param('options', 'options', nullable=True, struct='fe_build_options', default='null')],
             'Validate, lower, query heuristics (a, then fallback unless the options say otherwise), check support and '
             'build a plan. The handle may be {null} when the options (or [Graph.set_device_properties]) give a '
             'device description: the plan is then built for that GPU.'),
        Call('create_execution_plans', 'fe_graph_create_execution_plans', 'method',
             [Param('modes', 'enums', enum='fe_heur_mode', variadic=True), COUNT],
             'Query heuristics in each mode (none: a, then fallback), collecting the candidates.'),
        Call('select_by_notes', 'fe_graph_select_by_notes', 'method',
             [Param('deselect_numerical', 'flags', enum='fe_numerical_note'),
              Param('deselect_behavior', 'flags', enum='fe_behavior_note'),
              Param('require_numerical', 'flags', enum='fe_numerical_note'),
              Param('require_behavior', 'flags', enum='fe_behavior_note')],
             'Drop the candidates whose engine has any deselected note or lacks any required one.'),
        Call('deselect_engines', 'fe_graph_deselect_engines', 'method', [Param('names', 'names', variadic=True)],
             'Drop the candidates of the engines named: engine names ("eng6": every knob setting of engine 6) and '
             'engine-config tags ("eng6_k24=26": that setting only), e.g. to avoid an engine known to be slow or '
             'wrong for a shape. A name of another form is {INVALID_ARGUMENT}; one no candidate has is no error.'),
        Call('candidate_notes', 'fe_graph_candidate_notes', 'record_outs', [Param('index', 'int64')],
             'Candidate index\'s tag and engine notes, in heuristics\' rank order (no plan needed).',
             record='CandidateNotes', names={'csharp': 'GetCandidateNotes'}),
        Call('candidate_info', 'fe_graph_candidate_info', 'record_query', [Param('index', 'int64')],
             'Candidate index (in heuristics\' rank order, before any plan is built, also without a GPU): its tag, '
             'engine, workspace, shared memory, notes and whether it is still viable.',
             record='ConfigInfo', names={'csharp': 'GetCandidateInfo'}),
        Call('plan_info', 'fe_graph_plan_info', 'record_query', [Param('plan_index', 'int64')],
             'Built plan plan_index (0 to the plan count - 1; after autotuning, fastest first).',
             record='ConfigInfo', names={'csharp': 'GetPlanInfo'}),
        Call('engine_knobs', 'fe_swig_engine_knobs', 'record_list', [Param('engine', 'int64')],
             'The knobs the engine has for this graph, by type; {NOT_SUPPORTED}, with cuDNN\'s reason, if the '
             'engine does not run the graph.', record='KnobRange'),
        Call('add_candidate', 'fe_swig_add_candidate', 'method',
             [Param('engine', 'int64'), Param('knobs', 'records', record='KnobChoice', variadic=True), COUNT],
             'Add the engine with these knob settings (knobs left out keep the engine\'s defaults) as a candidate: '
             'after [Graph.build_operation_graph] (the candidates are then only those added) or '
             '[Graph.create_execution_plans] (after the heuristics\' ones), before [Graph.check_support]. '
             '{NOT_SUPPORTED}, with cuDNN\'s reason, if cuDNN refuses the setting; {INVALID_ARGUMENT} for a knob set '
             'twice, an unknown knob type or a duplicate of a candidate the graph has.'),
        Call('inputs', 'fe_graph_input', 'tensor_list', [],
             'The inputs in creation order (the order of [Graph.execute_positional]).',
             count_function='fe_graph_input_count'),
        Call('outputs', 'fe_graph_output', 'tensor_list', [],
             'The outputs in the order they were marked (after the inputs in positional execution).',
             count_function='fe_graph_output_count'),
        # Execution: every non-virtual tensor bound once to a 16-byte-aligned device address; the plan is
        # enqueued on the handle's stream; a workspace of 0 is the handle's own.
        Call('execute', 'fe_graph_execute', 'method', EXECUTE_PARAMS + [Param('workspace', 'address', default=0)],
             'Bind the tensors to device addresses (16-byte aligned), then enqueue the plan on the handle\'s stream '
             '(workspace 0: the handle\'s own).'),
        Call('execute_buffers', 'fe_graph_execute_buffers', 'method',
             [Param('handle', 'handle'), Param('tensors', 'tensors'), Param('buffers', 'buffers'), COUNT,
              Param('workspace', 'address', default=0)],
             'Bind the tensors to device buffers (each checked to be large enough), then enqueue the plan.'),
        Call('execute_by_uid', 'fe_graph_execute_by_uid', 'method',
             [Param('handle', 'handle'), Param('uids', 'int64s'), Param('device_pointers', 'addresses'), COUNT,
              Param('workspace', 'address', default=0)],
             'Bind the tensors, named by uid, to device addresses, then enqueue the plan.', names={'go': 'ExecuteByUID'}),
        Call('execute_positional', 'fe_graph_execute_positional', 'method',
             [Param('handle', 'handle'), Param('device_pointers', 'addresses'), COUNT,
              Param('workspace', 'address', default=0)],
             'Bind [Graph.inputs] in order, then [Graph.outputs], to device addresses, then enqueue the plan.'),
        Call('populate_cuda_graph', 'fe_graph_populate_cuda_graph', 'method',
             EXECUTE_PARAMS + [Param('workspace', 'address'), Param('cuda_graph', 'address')],
             'Add the graph\'s work, the tensors bound to the addresses as an execute binds them, to an empty CUDA graph '
             '(a cudaGraph_t); the '
             'workspace, when the graph needs one, must be given and outlive the CUDA graph.',
             names={'go': 'PopulateCUDAGraph'}),
        Call('update_cuda_graph', 'fe_graph_update_cuda_graph', 'method',
             EXECUTE_PARAMS + [Param('workspace', 'address'), Param('cuda_graph', 'address')],
             'Rebind a CUDA graph populated by [Graph.populate_cuda_graph] to new addresses, in place.',
             names={'go': 'UpdateCUDAGraph'}),
        # Plans that last: serialized bytes, JSON text and the caller's cache keys.
        Call('serialize', 'fe_graph_serialize', 'bytes_method', [],
             'The built graph as self-contained, versioned bytes (the graph, the chosen plan, the uid layout, the '
             'library and cuDNN versions, the GPU\'s fingerprint and a checksum).'),
        Call('deserialize', 'fe_graph_deserialize', 'factory',
             [Param('handle', 'handle', nullable=True), Param('data', 'bytes'),
              Param('options', 'options', nullable=True, struct='fe_deserialize_options', default='null')],
             'A graph ready to execute from [Graph.serialize]\'s bytes, with no heuristics and no compilation. The '
             'handle may be {null} when the options carry device properties; the options may be {null}. Corrupted '
             'bytes are {INVALID_ARGUMENT}; a version or GPU mismatch under the policy that refuses is '
             '{NOT_SUPPORTED}, naming it. The caller {closes} it.', names={'go': 'Deserialize'}),
        Call('describe_serialized', 'fe_serialized_describe', 'static_text', [Param('data', 'bytes')],
             'A readable description of serialized bytes (header, graph, engine) without loading the plan.'),
        Call('from_json', 'fe_graph_from_json', 'factory', [Param('json', 'text_with_length')],
             'A new graph from JSON text; errors name the line and the field. The caller {closes} it.',
             names={'go': 'GraphFromJSON'}),
        Call('from_cache', 'fe_graph_from_cache', 'factory',
             [Param('handle', 'handle', nullable=True), Param('cache_key', 'text')],
             'A built graph ready to execute, registered by a build with [BuildOptions.cache_key]; {NOT_FOUND} if '
             'none. The handle may be {null} (deviceless graphs). The caller {closes} it.',
             names={'go': 'GraphFromCache'}),
    ],
    calls_only=True, java_base='GraphOps')

TENSOR = Object(
    'fe_tensor', 'Tensor', '', '', '', '',
    [
        Call('name', 'fe_tensor_get_name', 'getter', [], 'The tensor\'s name ("<op name>::<port>" for the results of operations).', returns='borrowed_text'),
        Call('set_name', 'fe_tensor_set_name', 'setter', [Param('name', 'text')],
             'Rename the tensor (names are unique in a graph).', csharp_property=True),
        Call('data_type', 'fe_tensor_get_data_type', 'getter', [],
             'The tensor\'s data type (a result\'s once the graph is validated).', returns='enum', enum='fe_data_type'),
        Call('set_data_type', 'fe_tensor_set_data_type', 'setter', [Param('type', 'enum', enum='fe_data_type')],
             'Set the data type (a result\'s instead of the graph\'s io or intermediate type).'),
        Call('uid', 'fe_tensor_get_uid', 'getter', [], 'The uid: the one set, or after the build the one assigned; {BAD_STATE} before that.',
             returns='int64', names={'go': 'UID'}),
        Call('set_uid', 'fe_tensor_set_uid', 'setter', [Param('uid', 'int64')],
             'Set the uid, 0 to 2^62 - 1 ({INVALID_ARGUMENT} outside it), unique in the graph ({DUPLICATE} otherwise); without one, the build assigns uids that do not collide with the ones set.',
             names={'go': 'SetUID'}),
        Call('set_alignment', 'fe_tensor_set_alignment', 'setter', [Param('bytes', 'int64')],
             'Promise that every address bound to the tensor is aligned to that many bytes (a power of two from 16 to 4096): cuDNN may choose kernels that rely on it; an execution refuses an address that breaks the promise ({MISALIGNED}).'),
        Call('set_vectorization', 'fe_tensor_set_vectorization', 'method', [Param('count', 'int32'), Param('dim', 'int32')],
             'Store an int8 graph input in vectors of count (4: INT8x4, 32: INT8x32) values of dim (1, the '
             'channels), cuDNN\'s NCHW_VECT_C layouts: its dims and strides then count vectors along that dim. A '
             'forward convolution of a vectorized image and filter gives a result vectorized alike; such tensors '
             'belong to that convolution alone, int8 in and out. 1 removes it; another count, or a dim other than 1 '
             'of a rank-4 or rank-5 tensor, is {INVALID_ARGUMENT}.'),
        Call('set_reordering', 'fe_tensor_set_reordering', 'setter',
             [Param('reordering', 'enum', enum='fe_tensor_reordering')],
             'Declare that an INT8x32 filter (vectorized in 32 values along dim 1) holds its values in the order '
             'cuDNN\'s INT8x32 kernels read, as [Handle.reorder_filter_int8x32] writes them; NONE undoes it. '
             '{INVALID_ARGUMENT} on a tensor not so vectorized.'),
        Call('reordering', 'fe_tensor_get_reordering', 'getter', [],
             'The order the tensor\'s values are stored in.', returns='enum', enum='fe_tensor_reordering'),
        Call('vector_count', 'fe_tensor_get_vector_count', 'getter', [],
             'Values a vector of the tensor holds: 1, 4 or 32.', returns='int32'),
        Call('vector_dim', 'fe_tensor_get_vector_dim', 'getter', [],
             'The dim the tensor is vectorized along, or -1.', returns='int32'),
        Call('set_ragged_offset', 'fe_tensor_set_ragged_offset', 'setter', [Param('offsets', 'tensor', nullable=True)],
             'Lay the tensor out packed (ragged): batch i starts at element offsets[i] of its buffer, offsets an int32 or int64 graph input [b + 1, 1, 1, 1] (exclusive prefix sums of the batches\' sizes); {null} removes it.'),
        Call('set_output', 'fe_tensor_set_output', 'setter', [Param('is_output', 'bool')],
             'Mark an operation\'s result as a graph output (one with memory of its own) or, given false, as '
             'virtual again.'),
        Call('is_output', 'fe_tensor_is_output', 'getter', [], 'True when the tensor is an output of the graph.',
             returns='bool'),
        Call('is_virtual', 'fe_tensor_is_virtual', 'getter', [],
             'True when the tensor has no memory of its own (a result between operations).', returns='bool'),
        Call('size_bytes', 'fe_tensor_size_bytes', 'getter', [],
             'The bytes a buffer for the tensor needs (its largest reachable element + 1, times its size).', returns='int64'),
    ],
    calls_only=True)

LIBRARY = Object(
    '', 'Library', '', '', '', '',
    [
        Call('cudnn_version', 'fe_cudnn_version', 'getter', [], 'The cuDNN version (e.g. 91900); loads cuDNN.',
             returns='int64'),
        Call('cuda_runtime_version', 'fe_cuda_runtime_version', 'getter', [],
             'The CUDA runtime version (e.g. 13000); loads the CUDA runtime.', returns='int32'),
        Call('device_count', 'fe_device_count', 'getter', [],
             'The number of CUDA devices (0 on a machine with the runtime and no GPU).', returns='int32'),
        Call('enable_peer_access', 'fe_device_enable_peer_access', 'method',
             [Param('device', 'int32'), Param('peer', 'int32')],
             'Let kernels on the device read and write memory allocated on the peer (synchronized batchnorm\'s '
             'buffers need it between every pair of its GPUs); enabling it again is no error. {NOT_SUPPORTED} when '
             'the GPUs cannot reach each other.'),
        Call('captured_device_properties', 'fe_device_properties_capture', 'text_method', [Param('device', 'int32')],
             'cuDNN\'s JSON description of a live GPU, for deviceless builds elsewhere.'),
        Call('device_properties_for_sm', 'fe_device_properties_for_sm', 'text_method', [Param('sm_version', 'int32')],
             'A GPU description for deviceless builds where none was captured: the usual GPU of that compute '
             'capability as the library carries it (90: an H100 80GB HBM3, SXM); another is {NOT_SUPPORTED}.',
             names={'go': 'DevicePropertiesForSM'}),
        Call('op_schema_json', 'fe_op_schema_json', 'text_method', [],
             'Every operation\'s description as JSON (the op schema: ports, option fields with their types, '
             'defaults and ranges, enum names). Needs no cuDNN.'),
        Call('set_log_level', 'fe_log_set_level', 'method', [Param('level', 'enum', enum='fe_log_level')],
             'Change the library\'s log level (CUDNNFE_LOG_LEVEL sets it at load).'),
    ],
    module=True)

OBJECTS = [KERNEL_CACHE, HANDLE, DEVICE_BUFFER, GRAPH, TENSOR]
MODULE = LIBRARY


def add_conveniences(model):
    """Put the op schema's conveniences in place of each ConveniencesOf among the objects' calls
    (every generator calls it once the schema is loaded)."""
    for obj in OBJECTS + [MODULE]:
        calls = []
        for call in obj.calls:
            if not isinstance(call, ConveniencesOf):
                calls.append(call)
                continue
            op = next(o for o in model.ops if o.entry_point == call.family_entry_point)
            options = Param('options', 'options', nullable=True, struct=op.options.c_type, default='null')
            calls += [Call(c.entry_point[len('fe_graph_'):], c.entry_point, 'tensor_query',
                           [Param(operand, 'tensor') for operand in c.operands] + [options], c.doc)
                      for c in op.conveniences]
        obj.calls = calls


def arguments(params, types, name_of, member=''):
    """(parameter declarations, C argument expressions) of `params` in a language whose `types` map
    each kind of value to (its type, the C arguments made of it, each a format of {n}, the name, and
    {m}, the member's name for a message), or to a function of the Param that gives that pair."""
    declarations, args, arrays = [], [], []
    for p in params:
        name = name_of(p.name)
        if p.kind == 'count':  # no parameter: the length of the arrays before it
            args.append(types['count'](arrays).format(m=member))
            continue
        entry = types[p.kind]
        language_type, made = entry(p) if callable(entry) else entry
        declarations.append(f'{language_type} {name}')
        args += [expression.format(n=name, m=member) for expression in made]
        if p.kind in ARRAYS:
            arrays.append((name, ' '.join(words(p.name))))
    return declarations, args


# The kinds of arrays, whose common length a 'count' passes.
ARRAYS = ('tensors', 'buffers', 'addresses', 'int64s', 'enums', 'records')


def record(name):
    return next(r for r in RECORDS if r.name == name)


def words(snake):
    return snake.split('_')


def camel(snake):
    first, *rest = words(snake)
    return first + ''.join(w.capitalize() for w in rest)


def pascal(snake):
    return ''.join(w.capitalize() for w in words(snake))


def render(doc, link, status, terms):
    """The doc with its markup in one language's terms: link(class, member_snake) and status(NAME)
    give a link and a status; terms maps close, closes, thread(s), null and no_text."""
    doc = re.sub(r'\[(\w+)\.(\w+)\]', lambda m: link(m.group(1), m.group(2)), doc)
    doc = re.sub(r'\{([A-Z_]+)\}', lambda m: status(m.group(1)), doc)
    return re.sub(r'\{(close|closes|threads|thread|null|no_text)\}', lambda m: terms[m.group(1)], doc)


# ---- the exceptions of Java and C#: one class a status, under the binding's base class ----------------
# A failed call throws the class of its status (all of them the base class CudnnFeException, which
# carries the status), so that callers catch what they can act on. The class of a status is named by
# its words (INVALID_ARGUMENT: InvalidArgumentException) unless this table names it otherwise.
EXCEPTION_NAMES = {'OK': None, 'NULL_POINTER': 'NullArgumentException', 'INTERNAL': 'InternalErrorException'}


def exception_name(status_suffix):
    """The exception class of a status (its suffix: NOT_SUPPORTED), None for OK."""
    if status_suffix in EXCEPTION_NAMES:
        return EXCEPTION_NAMES[status_suffix]
    return pascal(status_suffix.lower()) + 'Exception'


# ---- the names each language gives the C functions, for its error messages ------------------------
# An error names the method the caller called (Graph.convFprop, not fe_graph_conv_fprop), and advice
# in a message ("mark a result with fe_tensor_set_output") names the method to call instead. A C
# function is named by its object (fe_graph_ -> Graph, ...; the library's functions otherwise) and the
# rest as the language names members (a getter without its get_; an option struct's setter
# fe_conv_options_set_stride by its struct and field); the calls described above as the generators
# name them; the table below holds the hand-written members named otherwise.

OWNERS = [('graph_', 'Graph'), ('tensor_', 'Tensor'), ('handle_', 'Handle'), ('buffer_', 'DeviceBuffer'),
          ('kernel_cache_', 'KernelCache'), ('plan_cache_', 'PlanCache')]
MODULES = {'java': 'CudnnFe', 'csharp': 'Library', 'go': 'cudnnfe'}
LANGUAGES = ('java', 'csharp', 'go')

# Hand-written members whose names the rule does not give, per language (None: the rule's).
HAND_NAMES = {
    'fe_buffer_download_float': ('DeviceBuffer.download', 'DeviceBuffer.Download', 'DeviceBuffer.DownloadFloat32'),
    'fe_buffer_upload_float': ('DeviceBuffer.upload', 'DeviceBuffer.Upload', 'DeviceBuffer.UploadFloat32'),
    'fe_data_type_bits': ('DataType.bits', 'DataType.Bits', 'DataType.Bits'),
    'fe_data_type_size': ('DataType.size', 'DataType.Size', 'DataType.Size'),
    'fe_data_type_string': ('DataType.libraryName', 'DataType.LibraryName', 'DataType.String'),
    'fe_status_string': ('Status.libraryName', 'Status.LibraryName', 'Status.String'),
    'fe_log_set_callback': ('Logging.routeTo', 'Logging.RouteTo', 'cudnnfe.SetLogger'),
    'fe_graph_create': ('new Graph', 'new Graph', 'cudnnfe.NewGraph'),
    'fe_graph_candidate_info': (None, 'Graph.GetCandidateInfo', None),
    'fe_graph_candidate_notes': (None, 'Graph.GetCandidateNotes', None),
    'fe_graph_plan_info': (None, 'Graph.GetPlanInfo', None),
    'fe_plan_cache_stats': (None, None, 'cudnnfe.PlanCacheCounters'),
    'fe_plan_cache_evictions': ('PlanCache.stats', 'PlanCache.Stats', 'cudnnfe.PlanCacheCounters'),
    'fe_plan_cache_clear': (None, None, 'cudnnfe.ClearPlanCache'),
    'fe_tensor_get_ndims': ('Tensor.rank', 'Tensor.Rank', 'Tensor.Rank'),
    'fe_tensor_get_uid': (None, None, 'Tensor.UID'),
    'fe_tensor_set_uid': (None, None, 'Tensor.SetUID'),
    'fe_tensor_set_name': (None, 'Tensor.Name', None),
}

# The functions the library's advice names: only these are translated inside a message, so that the
# names of structs and fields (fe_conv_options, ...) stay as they are.
ADVICE = (['fe_tensor_set_' + f for f in ('output', 'strides', 'data_type', 'dims', 'name', 'uid', 'alignment',
                                          'ragged_offset')] +
          ['fe_graph_' + f for f in ('build', 'build_operation_graph', 'build_plans', 'build_plan_at_index', 'validate',
                                     'check_support', 'create_execution_plans', 'set_device_properties', 'select_plan',
                                     'autotune', 'warmup', 'execute', 'describe', 'set_kernel_cache', 'serialize',
                                     'deserialize', 'tensor', 'scalar', 'constant')] +
          ['fe_handle_create', 'fe_handle_set_stream', 'fe_handle_set_cache_directory', 'fe_buffer_create',
           'fe_buffer_create_for_tensor', 'fe_log_set_level', 'fe_log_set_callback', 'fe_device_enable_peer_access',
           'fe_strides_packed', 'fe_strides_channels_last'])


def header_functions():
    """The functions include/cudnnfe.h declares."""
    header = pathlib.Path(__file__).resolve().parent.parent / 'include' / 'cudnnfe.h'
    return sorted(set(re.findall(r'FE_API[^;(]*?\b(fe_\w+)\s*\(', header.read_text())))


def api_names(language, member_name, described):
    """Every function of the header -> the name of what calls it in `language`: `described` (the
    generator's names of the calls above), HAND_NAMES, else the rule with `member_name` (snake case
    to the language's member name)."""
    described = dict(described)
    for c in (c for obj in OBJECTS for c in obj.calls if c.count_function):  # counted as the list is read
        described[c.count_function] = described[c.c_function]
    names = {}
    for function in header_functions():
        hand = HAND_NAMES.get(function, (None,) * 3)[LANGUAGES.index(language)]
        if function in described or hand:
            names[function] = described.get(function) or hand
            continue
        rest, owner = function[len('fe_'):], MODULES[language]
        for prefix, name in OWNERS:
            if rest.startswith(prefix):
                owner, rest = name, rest[len(prefix):]
                break
        at = rest.find('_options_set_')
        if owner == MODULES[language] and at > 0:
            owner, rest = pascal(rest[:at]) + 'Options', rest[at + len('_options_set_'):]
        names[function] = f'{owner}.{member_name(rest[len("get_"):] if rest.startswith("get_") else rest)}'
    return names


def advice_pattern(width=90):
    """A regular expression (Java, .NET and Go alike) of the advised functions, longest first, in
    pieces of at most about `width` characters, each ending after a '|', for a source's lines."""
    alternatives = sorted((f[len('fe_'):] for f in ADVICE), key=lambda f: (-len(f), f))
    pieces, piece = [], r'\bfe_(?:'
    for i, name in enumerate(alternatives):
        item = name + ('|' if i + 1 < len(alternatives) else r')\b')
        if len(piece) + len(item) > width:
            pieces.append(piece)
            piece = ''
        piece += item
    return pieces + [piece]
