/*
 * C#: the patterns of cudnnfe.i as P/Invoke typemaps. The generated classes are internal to the
 * CudnnFe assembly; only the hand-written classes of namespace CudnnFe are public.
 *
 * Arrays of blittable types are pinned by the marshaller and passed as their address, so the C
 * side reads and writes them in place with no copy.
 */
%pragma(csharp) moduleclassmodifiers="internal static class"
%pragma(csharp) imclassclassmodifiers="internal class"
%typemap(csclassmodifiers) SWIGTYPE "internal class"
/* Option structs are released by using blocks, never by a finalizer. */
%typemap(csdispose) SWIGTYPE %{
  public void Dispose() {
    Dispose(true);
  }
%}
%typemap(csclassmodifiers) enum SWIGTYPE "internal enum"
%csconst(1);

/* size_t is 64-bit here; SWIG's default (uint) would truncate it. */
%apply long long { size_t };

%define FE_CS_IN_OUT "[global::System.Runtime.InteropServices.In, global::System.Runtime.InteropServices.Out]" %enddef

/* Opaque objects and device pointers: IntPtr. T **: an IntPtr[] whose first element receives the
 * object (null for a nullable output). T *const *: an IntPtr[] of objects. */
%define FE_OPAQUE(TYPE)
%typemap(ctype) TYPE *, const TYPE * "void *"
%typemap(imtype) TYPE *, const TYPE * "global::System.IntPtr"
%typemap(cstype) TYPE *, const TYPE * "global::System.IntPtr"
%typemap(csin) TYPE *, const TYPE * "$csinput"
%typemap(csout) TYPE *, const TYPE * { return $imcall; }
%typemap(csvarin) TYPE *, const TYPE * %{ set { $imcall; } %}
%typemap(csvarout) TYPE *, const TYPE * %{ get { return $imcall; } %}
%typemap(in) TYPE *, const TYPE * %{ $1 = ($1_ltype)$input; %}
%typemap(out) TYPE *, const TYPE * %{ $result = (void *)$1; %}

%typemap(ctype) TYPE **, TYPE *const *, const TYPE *const * "void *"
%typemap(imtype, inattributes=FE_CS_IN_OUT) TYPE **, TYPE *const *, const TYPE *const * "global::System.IntPtr[]"
%typemap(cstype) TYPE **, TYPE *const *, const TYPE *const * "global::System.IntPtr[]"
%typemap(csin) TYPE **, TYPE *const *, const TYPE *const * "$csinput"
%typemap(in) TYPE **, TYPE *const *, const TYPE *const * %{ $1 = ($1_ltype)$input; %}
%enddef

/* Numbers through a pointer: an array, read and written in place. */
%define FE_CS_NUMBERS(CTYPE, CSTYPE)
%typemap(ctype) CTYPE *, const CTYPE * "void *"
%typemap(imtype, inattributes=FE_CS_IN_OUT) CTYPE *, const CTYPE * "CSTYPE[]"
%typemap(cstype) CTYPE *, const CTYPE * "CSTYPE[]"
%typemap(csin) CTYPE *, const CTYPE * "$csinput"
%typemap(in) CTYPE *, const CTYPE * %{ $1 = ($1_ltype)$input; %}
%enddef

FE_CS_NUMBERS(int64_t, long)
FE_CS_NUMBERS(size_t, long)
FE_CS_NUMBERS(int32_t, int)
FE_CS_NUMBERS(float, float)
FE_CS_NUMBERS(double, double)
FE_CS_NUMBERS(enum SWIGTYPE, int)

/* char *buf: a byte[] that receives text (char * elsewhere is a string). */
%typemap(ctype) char *buf "void *"
%typemap(imtype, inattributes=FE_CS_IN_OUT) char *buf "byte[]"
%typemap(cstype) char *buf "byte[]"
%typemap(csin) char *buf "$csinput"
%typemap(in) char *buf %{ $1 = (char *)$input; %}

/* const char **out: a string[] whose first element receives a copy of the library's string
 * (written on success only). The C side writes the pointer into a one-element IntPtr[]. */
%typemap(ctype) const char ** "void *"
%typemap(imtype, inattributes=FE_CS_IN_OUT) const char ** "global::System.IntPtr[]"
%typemap(cstype) const char ** "string[]"
%typemap(csin,
         pre="    global::System.IntPtr[] pointer_$csinput = $csinput == null ? null : new global::System.IntPtr[1];",
         post="      if ($csinput != null && pointer_$csinput[0] != global::System.IntPtr.Zero)\n"
              "        $csinput[0] = global::System.Runtime.InteropServices.Marshal.PtrToStringAnsi(pointer_$csinput[0]);")
    const char ** "pointer_$csinput"
%typemap(in) const char ** %{ $1 = ($1_ltype)$input; %}

/* Serialized graphs: void *buf receives the bytes (the same buffer protocol as char *buf) and
 * const void *data gives them; both are a byte[], pinned for the call. */
%typemap(ctype) void *buf, const void *data "void *"
%typemap(imtype, inattributes=FE_CS_IN_OUT) void *buf "byte[]"
%typemap(imtype) const void *data "byte[]"
%typemap(cstype) void *buf, const void *data "byte[]"
%typemap(csin) void *buf, const void *data "$csinput"
%typemap(in) void *buf, const void *data %{ $1 = ($1_ltype)$input; %}

/* Fixed-size array members (conv padding, stride, dilation): a long[] of exactly that size (the
 * C side cannot see a managed array's length; the idiomatic layer always passes a full array). The
 * getter returns the address of the struct's array, which is copied at once. */
%typemap(ctype) int64_t [ANY] "void *"
%typemap(imtype, out="global::System.IntPtr") int64_t [ANY] "long[]"
%typemap(cstype) int64_t [ANY] "long[]"
%typemap(csin) int64_t [ANY] "$csinput"
%typemap(in) int64_t [ANY] %{ $1 = ($1_ltype)$input; %}
%typemap(memberin) int64_t [ANY] %{ memcpy($1, $input, sizeof($1)); %}
%typemap(out) int64_t [ANY] %{ $result = (void *)$1; %}
%typemap(csvarin) int64_t [ANY] %{ set { $imcall; } %}
%typemap(csvarout) int64_t [ANY] %{
    get {
      long[] values = new long[$1_dim0];
      global::System.Runtime.InteropServices.Marshal.Copy($imcall, values, 0, $1_dim0);
      return values;
    }
%}
