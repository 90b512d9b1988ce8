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
  {threads}         concurrent callers (threads, threads, goroutines)
  {null}            no object (null, null, nil)
"""
import dataclasses
import re


@dataclasses.dataclass
class Param:
    name: str
    kind: str             # 'handle': an fe_handle; 'text': a string; 'text_with_length': a string and its length
    nullable: bool = False


@dataclasses.dataclass
class Call:
    name: str             # the member's name in snake case (serialize, load)
    c_function: str
    kind: str             # 'method': on the object; 'text_method': returns text; 'factory': makes an object
    params: list
    doc: str


@dataclasses.dataclass
class Object:
    c_type: str           # fe_kernel_cache
    name: str             # KernelCache
    doc: str
    create: str           # the C function that makes an empty one (out-parameter only)
    create_doc: str
    destroy: str
    calls: list


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

OBJECTS = [KERNEL_CACHE]


def words(snake):
    return snake.split('_')


def camel(snake):
    first, *rest = words(snake)
    return first + ''.join(w.capitalize() for w in rest)


def pascal(snake):
    return ''.join(w.capitalize() for w in words(snake))


def render(doc, link, status, terms):
    """The doc with its markup in one language's terms: link(class, member_snake) and status(NAME)
    give a link and a status; terms maps close, closes, threads and null."""
    doc = re.sub(r'\[(\w+)\.(\w+)\]', lambda m: link(m.group(1), m.group(2)), doc)
    doc = re.sub(r'\{([A-Z_]+)\}', lambda m: status(m.group(1)), doc)
    return re.sub(r'\{(close|closes|threads|null)\}', lambda m: terms[m.group(1)], doc)
