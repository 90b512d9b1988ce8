/*
 * The one SWIG interface of cudnnfe for Java, C# and Go.
 *
 * It wraps include/cudnnfe.h as it is (%include, no function listed here), so functions added to
 * the header appear in every binding's low-level layer with no change to this file. What makes
 * that work is that the header's parameters follow a few patterns, and each pattern has one
 * typemap per language (in typemaps_<language>.i):
 *
 *   fe_graph *, fe_tensor *, fe_handle *, fe_buffer *, fe_kernel_cache *, void *
 *                                 an integer (long / IntPtr / uintptr)
 *   fe_x **out                    a one-element array of such integers, written on success
 *   fe_x *const *items            an array of such integers
 *   int64_t *, int32_t *, size_t *, float *, enum *   an array of numbers (in, out or both)
 *   char *buf                     a byte array (the describe/capture buffer protocol)
 *   void *host                    host memory: a direct ByteBuffer (Java), []byte (Go), IntPtr (C#)
 *   const char *                  a string
 *   const char **out              a string output: String[1] / string[1] / *string
 *   int64_t member[N]             an array of exactly N numbers (conv padding, stride, dilation)
 *   fe_tensor *member[N]          with its size_t member_count: hidden, set by the header's
 *                                 <struct>_set_member (an array of objects, as above)
 *   option structs                a class with a field per member, defaults from its _INIT macro
 *                                 (the list of structs is generated from the header); an
 *                                 output struct with an _INIT macro (fe_config_info) is made the
 *                                 same way, so it reaches the library with its struct_size set
 *
 * Arrays of structs (the engine knobs) are the one exception: the functions that take them are
 * replaced by helpers at the end of this file that take the members as arrays of numbers.
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
FE_OPAQUE(fe_kernel_cache)
FE_OPAQUE(void)

/* The log callback (a function pointer) is an integer too: each binding passes the address of a
 * C function that hands the line to its own logger (Java: the trampoline below; C#: a delegate
 * marshalled as a function pointer; Go: a cgo export). */
%apply void * { fe_log_callback };

#if defined(SWIGJAVA)
%{
#include <jni.h>
/* Java's log trampoline: calls the static dev.cudnnfe.Logging.deliver(int, String) on the thread
 * that logs, attaching it to the JVM for the call if it is not a Java thread. */
static JavaVM *fe_swig_java_vm;
static jclass fe_swig_logging_class;
static jmethodID fe_swig_logging_deliver;

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
  (void)reserved;
  fe_swig_java_vm = vm;
  return JNI_VERSION_1_6;
}

static void fe_swig_java_log(fe_log_level level, const char *message, void *user_data) {
  JNIEnv *env = NULL;
  int attached = 0;
  (void)user_data;
  if (!fe_swig_java_vm || !fe_swig_logging_class) return;
  if ((*fe_swig_java_vm)->GetEnv(fe_swig_java_vm, (void **)&env, JNI_VERSION_1_6) == JNI_EDETACHED) {
    if ((*fe_swig_java_vm)->AttachCurrentThreadAsDaemon(fe_swig_java_vm, (void **)&env, NULL) != JNI_OK) return;
    attached = 1;
  }
  if (!env) return;
  /* An exception pending on this thread (the library was called from a JNI frame that threw)
   * would make the upcall undefined: the line is dropped. */
  if (!(*env)->ExceptionCheck(env)) {
    jstring text = (*env)->NewStringUTF(env, message);
    if (text) {
      (*env)->CallStaticVoidMethod(env, fe_swig_logging_class, fe_swig_logging_deliver, (jint)level, text);
      (*env)->DeleteLocalRef(env, text);
    }
    /* A logger that throws must not unwind into the library. */
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
  }
  if (attached) (*fe_swig_java_vm)->DetachCurrentThread(fe_swig_java_vm);
}
%}

%inline %{
/* The address of the Java log trampoline, for fe_log_set_callback; 0 when dev.cudnnfe.Logging
 * cannot be found. Called from Java (dev.cudnnfe.Logging), so FindClass sees its class loader. */
void *fe_swig_java_log_callback(void) {
  JNIEnv *env = NULL;
  if (!fe_swig_java_vm ||
      (*fe_swig_java_vm)->GetEnv(fe_swig_java_vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK)
    return NULL;
  if (!fe_swig_logging_class) {
    jclass local = (*env)->FindClass(env, "dev/cudnnfe/Logging");
    if (!local) return NULL;
    fe_swig_logging_deliver = (*env)->GetStaticMethodID(env, local, "deliver", "(ILjava/lang/String;)V");
    if (!fe_swig_logging_deliver) return NULL;
    fe_swig_logging_class = (jclass)(*env)->NewGlobalRef(env, local);
    (*env)->DeleteLocalRef(env, local);
  }
  return (void *)fe_swig_java_log;
}
%}
#endif

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

/* A fixed-size array of tensors and its count (fe_tensor *FIELD[N], size_t COUNT): hidden, so that
 * they are set only together, through the header's own setter (<struct>_set_FIELD, which takes a
 * fe_tensor *const * like any array of objects and refuses a count the array cannot hold). */
%define FE_OPTIONS_TENSORS(TYPE, FIELD, COUNT)
%ignore TYPE::FIELD;
%ignore TYPE::COUNT;
%enddef

/* One FE_OPTIONS (and FE_OPTIONS_ARRAY, FE_OPTIONS_TENSORS) line per option struct of the header,
 * generated at build time by option_structs.py, so a struct added to the header needs no change
 * here. */
%include "option_structs.i"

/* Arrays of structs (fe_knob_range, fe_knob_choice) fit none of the patterns: the functions that
 * take them are replaced by the helpers below, which take each member as an array of numbers
 * (element i of every array is struct i). */
%ignore fe_knob_range;
%ignore fe_knob_choice;
%ignore fe_knob_range::type; /* and their members, which Go would rename (type is a keyword) */
%ignore fe_knob_choice::type;
%ignore fe_graph_engine_knobs;
%ignore fe_graph_add_candidate;

%include "cudnnfe.h"

%inline %{
/* The header version this glue library was compiled with: a binding compares it with its own and
 * with the loaded libcudnnfe's (fe_version) before the first call, so mismatched files fail at
 * load naming both versions. */
int fe_swig_glue_version(void) { return FE_VERSION; }
%}

%inline %{
/* fe_graph_engine_knobs into four arrays of capacity elements each (all nullable when capacity
 * is 0), with the same protocol: FE_STATUS_BUFFER_TOO_SMALL and out_count set when capacity is
 * less than the count. A missing array is passed on as NULL, for the library to name. */
fe_status fe_swig_engine_knobs(const fe_graph *graph, int64_t engine_index, int32_t *types,
                               int64_t *min_values, int64_t *max_values, int64_t *strides,
                               size_t capacity, size_t *out_count) {
  fe_knob_range small[16];
  fe_knob_range *ranges = NULL;
  if (capacity > 0 && types && min_values && max_values && strides) {
    ranges = capacity <= 16 ? small : (fe_knob_range *)malloc(capacity * sizeof(*ranges));
    if (!ranges) return FE_STATUS_OUT_OF_MEMORY;
  }
  fe_status status = fe_graph_engine_knobs(graph, engine_index, ranges, capacity, out_count);
  if (status == FE_OK && ranges) {
    size_t count = *out_count < capacity ? *out_count : capacity;
    for (size_t i = 0; i < count; ++i) {
      types[i] = ranges[i].type;
      min_values[i] = ranges[i].min_value;
      max_values[i] = ranges[i].max_value;
      strides[i] = ranges[i].stride;
    }
  }
  if (ranges != small) free(ranges);
  return status;
}

/* fe_graph_add_candidate with knob i of type types[i] set to values[i]. */
fe_status fe_swig_add_candidate(fe_graph *graph, int64_t engine_index, const int32_t *types,
                                const int64_t *values, size_t num_knobs) {
  fe_knob_choice small[16];
  fe_knob_choice *knobs = NULL;
  if (num_knobs > 0 && types && values) {
    knobs = num_knobs <= 16 ? small : (fe_knob_choice *)malloc(num_knobs * sizeof(*knobs));
    if (!knobs) return FE_STATUS_OUT_OF_MEMORY;
    for (size_t i = 0; i < num_knobs; ++i) {
      knobs[i].type = types[i];
      knobs[i].value = values[i];
    }
  }
  fe_status status = fe_graph_add_candidate(graph, engine_index, knobs, num_knobs);
  if (knobs != small) free(knobs);
  return status;
}
%}
