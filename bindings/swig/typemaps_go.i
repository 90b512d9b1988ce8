/*
 * Go: the patterns of cudnnfe.i as cgo typemaps. The generated package (internal/capi) is used
 * only by the public package cudnnfe, which turns statuses into errors.
 *
 * Slices go to C as their address (cgo pins Go memory for the duration of a call, and the slices
 * hold no Go pointers), so arrays are neither copied nor retained.
 */

/* The library comes from pkg-config (meson's uninstalled cudnnfe-uninstalled.pc in a build
 * directory, or an installed cudnnfe.pc); CGO_CFLAGS / CGO_LDFLAGS can point elsewhere. */
%insert(cgo_comment_typedefs) %{
#cgo pkg-config: cudnnfe
%}

/* Opaque objects and device pointers: uintptr. T **: a []uintptr whose first element receives the
 * object (nil for a nullable output). T *const *: a []uintptr of objects. */
%define FE_OPAQUE(TYPE)
%typemap(gotype) TYPE *, const TYPE * "uintptr"
%typemap(in) TYPE *, const TYPE * %{ $1 = ($1_ltype)$input; %}
%typemap(out) TYPE *, const TYPE * %{ $result = $1; %}

%typemap(gotype) TYPE ** "[]uintptr"
%typemap(in) TYPE ** %{ $1 = $input.len > 0 ? ($1_ltype)$input.array : NULL; %}
%typemap(argout) TYPE ** ""

%typemap(gotype) TYPE *const *, const TYPE *const * "[]uintptr"
%typemap(in) TYPE *const *, const TYPE *const * %{ $1 = ($1_ltype)$input.array; %}
%typemap(argout) TYPE *const *, const TYPE *const * ""
%enddef

/* Numbers through a pointer: a slice, read and written in place. */
%define FE_GO_NUMBERS(CTYPE, GOTYPE)
%typemap(gotype) CTYPE *, const CTYPE * "[]GOTYPE"
%typemap(in) CTYPE *, const CTYPE * %{ $1 = ($1_ltype)$input.array; %}
%typemap(argout) CTYPE *, const CTYPE * ""
%enddef

FE_GO_NUMBERS(int64_t, int64)
FE_GO_NUMBERS(size_t, int64)
FE_GO_NUMBERS(int32_t, int32)
FE_GO_NUMBERS(float, float32)
FE_GO_NUMBERS(double, float64)
FE_GO_NUMBERS(enum SWIGTYPE, int32)

/* char *buf: a []byte that receives text (char * elsewhere is a string). */
%typemap(gotype) char *buf "[]byte"
%typemap(in) char *buf %{ $1 = (char *)$input.array; %}
%typemap(freearg) char *buf ""
%typemap(argout) char *buf ""

/* const char **out: a *string that receives a copy of the library's string (written on success
 * only; always a fresh C allocation that swigCopyString frees, "" when there is none). */
%typemap(gotype) const char ** "*string"
%typemap(in) const char ** (const char *value = 0) %{ $1 = $input ? ($1_ltype)&value : NULL; %}
%typemap(argout, fragment="AllocateString") const char ** %{
  if ($input) *$input = Swig_AllocateString(value$argnum ? value$argnum : "", value$argnum ? strlen(value$argnum) : 0);
%}
%typemap(goargout, fragment="CopyString") const char ** %{
  if $input != nil {
    *$1 = swigCopyString(*$input)
  }
%}

/* Host memory: a []byte. */
%typemap(gotype) void *host, const void *host "[]byte"
%typemap(in) void *host, const void *host %{ $1 = ($1_ltype)$input.array; %}

/* Serialized graphs: void *buf receives the bytes (the same buffer protocol as char *buf) and
 * const void *data gives them; both are a []byte. */
%typemap(gotype) void *buf, const void *data "[]byte"
%typemap(in) void *buf, const void *data %{ $1 = ($1_ltype)$input.array; %}
%typemap(argout) void *buf, const void *data ""

/* Nullable strings (the directory of fe_handle_set_cache_directory, the node name of
 * fe_graph_attention_implementation): "" passes NULL, since a Go string cannot be nil. */
%typemap(in) const char *directory, const char *node_name %{
  $1 = NULL;
  if ($input.n > 0) {
    $1 = (char *)malloc((size_t)$input.n + 1);
    if ($1) {
      memcpy($1, $input.p, (size_t)$input.n);
      $1[$input.n] = '\0';
    }
  }
%}
%typemap(freearg) const char *directory, const char *node_name %{ free($1); %}

/* Fixed-size array members (conv padding, stride, dilation): a []int64 of exactly that size. */
%typemap(gotype) int64_t [ANY] "[]int64"
%typemap(in) int64_t [ANY] {
  if ($input.len != $1_dim0) {
    _swig_gopanic("expected a slice of $1_dim0 values");
  }
  $1 = ($1_ltype)$input.array;
}
%typemap(memberin) int64_t [ANY] %{ memcpy($1, $input, sizeof($1)); %}
/* The getter hands Go a slice over the struct's own array, which Go copies at once. */
%typemap(out) int64_t [ANY] %{
  $result.array = $1;
  $result.len = $1_dim0;
  $result.cap = $1_dim0;
%}
%typemap(goout) int64_t [ANY] %{ $result = append([]int64(nil), ($1)[:]...) %}
