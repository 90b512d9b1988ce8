/*
 * The one SWIG interface of cudnnfe for Java, C# and Go.
 *
 * It wraps include/cudnnfe.h as it is (%include, no function listed here), so functions added to
 * the header appear in every binding's low-level layer with no change to this file. What makes
 * that work is that the header's parameters follow a few patterns, and each pattern has one
 * typemap per language (in typemaps_<language>.i):
 *
 *   fe_graph *, fe_tensor *, fe_handle *, fe_buffer *, void *   an integer (long / IntPtr / uintptr)
 *   fe_x **out                    a one-element array of such integers, written on success
 *   fe_x *const *items            an array of such integers
 *   int64_t *, int32_t *, size_t *, float *, enum *   an array of numbers (in, out or both)
 *   char *buf                     a byte array (the describe/capture buffer protocol)
 *   void *host                    host memory: a direct ByteBuffer (Java), []byte (Go), IntPtr (C#)
 *   const char *                  a string
 *   int64_t member[N]             an array of exactly N numbers (conv padding, stride, dilation)
 *   option structs                a class with a field per member, defaults from its _INIT macro
 *                                 (the list of structs is generated from the header)
 *
 * The low-level layer is internal to each binding; the idiomatic layer (exceptions or errors,
 * Close/Dispose, arrays) is written by hand on top of it.
 */
#if defined(SWIGGO)
%module capi
#else
%module NativeApi
#endif

%{
#include <stdlib.h>
#include <string.h>
#include "cudnnfe.h"
#include "owned_memory.h"
%}

/* Fixed-width integers by value take the typemaps of the builtin types of the same width. They are
 * not declared as typedefs to SWIG, so the generated C keeps the header's own types (int64_t is
 * long on LP64, not the long long that SWIG's stdint.i assumes). */
%apply long long { int64_t };
%apply int { int32_t };
%apply unsigned int { uint32_t };
%apply unsigned char { uint8_t };

/* Option structs are built only through FE_OPTIONS below, so that every one starts from its
 * _INIT macro (struct_size set) and frees what its fields own. */
%nodefaultctor;
%nodefaultdtor;
%immutable struct_size;

#if defined(SWIGJAVA)
%include "typemaps_java.i"
#elif defined(SWIGCSHARP)
%include "typemaps_csharp.i"
#elif defined(SWIGGO)
%include "typemaps_go.i"
#else
#error "cudnnfe.i supports Java, C# and Go"
#endif

/* Opaque objects, and void * (device pointers, streams): plain integers in every language. A new
 * opaque type of the header would need its line here. */
FE_OPAQUE(fe_handle)
FE_OPAQUE(fe_graph)
FE_OPAQUE(fe_tensor)
FE_OPAQUE(fe_buffer)
FE_OPAQUE(void)

/* String members of option structs keep a copy that the struct owns (see owned_memory.h). */
%typemap(memberin) const char * {
  $1 = (const char *)fe_swig_own((const void *)&$1, fe_swig_strdup($input));
}

/* An option struct: a constructor that starts from the _INIT macro, a destructor that frees the
 * copies its fields own. */
%define FE_OPTIONS(TYPE, INIT)
%extend TYPE {
  TYPE() {
    static const TYPE defaults = INIT;
    TYPE *options = (TYPE *)malloc(sizeof(TYPE));
    if (options) *options = defaults;
    return options;
  }
  ~TYPE() {
    fe_swig_release($self, sizeof(TYPE));
    free($self);
  }
}
%enddef

/* A pointer + count pair of members (an array the struct points at): hidden, and set together
 * by set_<FIELD>(values, count), which keeps a copy the struct owns. */
%define FE_OPTIONS_ARRAY(TYPE, FIELD, COUNT, ELEMENT)
%ignore TYPE::FIELD;
%ignore TYPE::COUNT;
%extend TYPE {
  void set_ ## FIELD(const ELEMENT *values, size_t count) {
    $self->FIELD = fe_swig_own(&$self->FIELD, fe_swig_memdup(values, count * sizeof(*values)));
    $self->COUNT = $self->FIELD ? count : 0;
  }
}
%enddef

/* One FE_OPTIONS (and FE_OPTIONS_ARRAY) line per option struct of the header, generated at build
 * time by option_structs.py, so a struct added to the header needs no change here. */
%include "option_structs.i"

%include "cudnnfe.h"
