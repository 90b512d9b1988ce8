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
import re


# The kinds of values: 'handle' an fe_handle (nullable or not); 'tensor' an fe_tensor (required);
# 'text' a string; 'text_with_length' a string and its length; 'int32', 'int64', 'byte'; 'stream'
# a cudaStream_t and 'address' a device address (Java long, C# IntPtr, Go uintptr).
@dataclasses.dataclass
class Param:
    name: str
    kind: str
    nullable: bool = False
    default: object = None  # the value a language with default arguments fills in


@dataclasses.dataclass
class Call:
    name: str             # the member's name in snake case (serialize, load)
    c_function: str
    kind: str             # 'method': on the object; 'text_method': returns text; 'factory': makes an object;
    #                       'getter': returns the value of kind `returns` (a property where the language has them)
    params: list
    doc: str
    returns: str = ''
    names: dict = dataclasses.field(default_factory=dict)  # a language's own name ('go': 'NewDeviceBuffer')


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

OBJECTS = [KERNEL_CACHE, HANDLE, DEVICE_BUFFER]


def arguments(params, types, name_of, member=''):
    """(parameter declarations, C argument expressions) of `params` in a language whose `types` map
    each kind of value to (its type, the C arguments made of it, each a format of {n}, the name, and
    {m}, the member's name for a message)."""
    declarations, args = [], []
    for p in params:
        name = name_of(p.name)
        language_type, made = types[p.kind]
        declarations.append(f'{language_type} {name}')
        args += [expression.format(n=name, m=member) for expression in made]
    return declarations, args


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
