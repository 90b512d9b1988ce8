/*
 * Java: the patterns of cudnnfe.i as JNI typemaps. The generated classes are package-private in
 * dev.cudnnfe; only the hand-written classes there are public.
 */
%include "enumtypeunsafe.swg" /* enums are ints; dev.cudnnfe has the public enum types */
%javaconst(1);

%pragma(java) moduleclassmodifiers="final class"
%pragma(java) jniclassclassmodifiers="final class"
%pragma(java) jniclasscode=%{
  static {
    NativeLoader.load();
  }
%}
%typemap(javaclassmodifiers) SWIGTYPE "final class"
%typemap(javaclassmodifiers) enum SWIGTYPE "final class"
/* Option structs are released by try-with-resources, never by a finalizer. */
%typemap(javafinalize) SWIGTYPE ""
%typemap(javainterfaces) SWIGTYPE "AutoCloseable"
%typemap(javacode) SWIGTYPE %{
  public void close() {
    delete();
  }
%}

%{
#include <stdint.h>

/* Handles and device pointers travel as jlong. */
typedef char fe_java_pointer_is_a_jlong[sizeof(void *) == sizeof(jlong) ? 1 : -1];

/* The elements of a Java primitive array, copied into `small` when they fit, else into malloc'ed
 * memory. NULL for a null array; `small` (possibly with no elements) otherwise. */
static void *fe_java_array_in(JNIEnv *env, jarray array, size_t element_size, void *small,
                              size_t small_bytes, jsize *out_length) {
  *out_length = 0;
  if (!array) return NULL;
  jsize length = (*env)->GetArrayLength(env, array);
  size_t bytes = (size_t)length * element_size;
  void *data = bytes <= small_bytes ? small : malloc(bytes);
  if (!data) return NULL;
  if (bytes) {
    void *elements = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
    if (!elements) {
      if (data != small) free(data);
      return NULL;
    }
    memcpy(data, elements, bytes);
    (*env)->ReleasePrimitiveArrayCritical(env, array, elements, JNI_ABORT);
  }
  *out_length = length;
  return data;
}

/* Copy `bytes` back into the Java array (the call's outputs). */
static void fe_java_array_out(JNIEnv *env, jarray array, const void *data, size_t bytes) {
  if (!array || !data || !bytes) return;
  void *elements = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
  if (!elements) return;
  memcpy(elements, data, bytes);
  (*env)->ReleasePrimitiveArrayCritical(env, array, elements, 0);
}

static void fe_java_array_free(void *data, void *small) {
  if (data != small) free(data);
}
%}

/* Opaque objects and device pointers: a long. T **: a long[] whose first element receives the
 * object (null for a nullable output). T *const *: a long[] of objects. */
%define FE_OPAQUE(TYPE)
%typemap(jni) TYPE *, const TYPE * "jlong"
%typemap(jtype) TYPE *, const TYPE * "long"
%typemap(jstype) TYPE *, const TYPE * "long"
%typemap(javain) TYPE *, const TYPE * "$javainput"
%typemap(javaout) TYPE *, const TYPE * { return $jnicall; }
%typemap(in) TYPE *, const TYPE * %{ $1 = ($1_ltype)(intptr_t)$input; %}
%typemap(out) TYPE *, const TYPE * %{ $result = (jlong)(intptr_t)$1; %}

%typemap(jni) TYPE ** "jlongArray"
%typemap(jtype) TYPE ** "long[]"
%typemap(jstype) TYPE ** "long[]"
%typemap(javain) TYPE ** "$javainput"
%typemap(in) TYPE ** (TYPE *value = 0) {
  $1 = NULL;
  if ($input) {
    if ((*jenv)->GetArrayLength(jenv, $input) < 1) {
      SWIG_JavaThrowException(jenv, SWIG_JavaIndexOutOfBoundsException, "an output array needs one element");
      return $null;
    }
    $1 = &value;
  }
}
%typemap(argout) TYPE ** {
  if ($input) {
    jlong object = (jlong)(intptr_t)value$argnum;
    (*jenv)->SetLongArrayRegion(jenv, $input, 0, 1, &object);
  }
}

%typemap(jni) TYPE *const *, const TYPE *const * "jlongArray"
%typemap(jtype) TYPE *const *, const TYPE *const * "long[]"
%typemap(jstype) TYPE *const *, const TYPE *const * "long[]"
%typemap(javain) TYPE *const *, const TYPE *const * "$javainput"
%typemap(in) TYPE *const * (jlong small[16], jsize length = 0),
              const TYPE *const * (jlong small[16], jsize length = 0) {
  $1 = ($1_ltype)fe_java_array_in(jenv, $input, sizeof(jlong), small, sizeof small, &length);
  if ($input && !$1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "copying an array");
    return $null;
  }
}
%typemap(argout) TYPE *const *, const TYPE *const * ""
%typemap(freearg) TYPE *const *, const TYPE *const * { fe_java_array_free((void *)$1, small$argnum); }
%enddef

/* Numbers through a pointer: a Java array, copied in, and copied back unless const. */
%define FE_JAVA_NUMBERS(CTYPE, JNIARRAY, JAVATYPE)
%typemap(jni) CTYPE *, const CTYPE * "JNIARRAY"
%typemap(jtype) CTYPE *, const CTYPE * "JAVATYPE[]"
%typemap(jstype) CTYPE *, const CTYPE * "JAVATYPE[]"
%typemap(javain) CTYPE *, const CTYPE * "$javainput"
%typemap(in) CTYPE * (jlong small[16], jsize length = 0),
              const CTYPE * (jlong small[16], jsize length = 0) {
  $1 = ($1_ltype)fe_java_array_in(jenv, $input, sizeof(*$1), small, sizeof small, &length);
  if ($input && !$1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "copying an array");
    return $null;
  }
}
%typemap(argout) CTYPE * { fe_java_array_out(jenv, $input, $1, (size_t)length$argnum * sizeof(*$1)); }
%typemap(argout) const CTYPE * ""
%typemap(freearg) CTYPE *, const CTYPE * { fe_java_array_free((void *)$1, small$argnum); }
%enddef

FE_JAVA_NUMBERS(int64_t, jlongArray, long)
FE_JAVA_NUMBERS(size_t, jlongArray, long)
FE_JAVA_NUMBERS(int32_t, jintArray, int)
FE_JAVA_NUMBERS(float, jfloatArray, float)
FE_JAVA_NUMBERS(double, jdoubleArray, double)
FE_JAVA_NUMBERS(enum SWIGTYPE, jintArray, int)
/* char *buf: a byte[] that receives text (char * elsewhere is a String). */
%typemap(jni) char *buf "jbyteArray"
%typemap(jtype) char *buf "byte[]"
%typemap(jstype) char *buf "byte[]"
%typemap(javain) char *buf "$javainput"
%typemap(in) char *buf (jlong small[16], jsize length = 0) {
  $1 = (char *)fe_java_array_in(jenv, $input, 1, small, sizeof small, &length);
  if ($input && !$1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "copying an array");
    return $null;
  }
}
%typemap(argout) char *buf { fe_java_array_out(jenv, $input, $1, (size_t)length$argnum); }
%typemap(freearg) char *buf { fe_java_array_free($1, small$argnum); }

/* const char **out: a String[] whose first element receives the library's string (written on
 * success only; the library keeps ownership, the Java string is a copy). */
%typemap(jni) const char ** "jobjectArray"
%typemap(jtype) const char ** "String[]"
%typemap(jstype) const char ** "String[]"
%typemap(javain) const char ** "$javainput"
%typemap(in) const char ** (const char *value = 0) {
  $1 = NULL;
  if ($input) {
    if ((*jenv)->GetArrayLength(jenv, $input) < 1) {
      SWIG_JavaThrowException(jenv, SWIG_JavaIndexOutOfBoundsException, "an output array needs one element");
      return $null;
    }
    $1 = ($1_ltype)&value;
  }
}
%typemap(argout) const char ** {
  if ($input && value$argnum) {
    jstring text = (*jenv)->NewStringUTF(jenv, value$argnum);
    if (text) (*jenv)->SetObjectArrayElement(jenv, $input, 0, text);
  }
}

/* Serialized graphs: void *buf receives the bytes (the same buffer protocol as char *buf) and
 * const void *data gives them; both are a byte[]. */
%typemap(jni) void *buf, const void *data "jbyteArray"
%typemap(jtype) void *buf, const void *data "byte[]"
%typemap(jstype) void *buf, const void *data "byte[]"
%typemap(javain) void *buf, const void *data "$javainput"
%typemap(in) void *buf (jlong small[16], jsize length = 0), const void *data (jlong small[16], jsize length = 0) {
  $1 = ($1_ltype)fe_java_array_in(jenv, $input, 1, small, sizeof small, &length);
  if ($input && !$1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "copying an array");
    return $null;
  }
}
%typemap(argout) void *buf { fe_java_array_out(jenv, $input, $1, (size_t)length$argnum); }
%typemap(argout) const void *data ""
%typemap(freearg) void *buf, const void *data { fe_java_array_free((void *)$1, small$argnum); }

/* Host memory: a direct ByteBuffer, from its position. */
%typemap(jni) void *host, const void *host "jobject"
%typemap(jtype) void *host, const void *host "java.nio.ByteBuffer"
%typemap(jstype) void *host, const void *host "java.nio.ByteBuffer"
%typemap(javain) void *host, const void *host "$javainput"
%typemap(in) void *host, const void *host {
  $1 = NULL;
  if ($input) {
    $1 = (*jenv)->GetDirectBufferAddress(jenv, $input);
    if (!$1) {
      SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "host memory must be a direct ByteBuffer");
      return $null;
    }
  }
}

/* Fixed-size array members (conv padding, stride, dilation): long[] of exactly that size. */
%typemap(jni) int64_t [ANY] "jlongArray"
%typemap(jtype) int64_t [ANY] "long[]"
%typemap(jstype) int64_t [ANY] "long[]"
%typemap(javain) int64_t [ANY] "$javainput"
%typemap(javaout) int64_t [ANY] { return $jnicall; }
%typemap(in) int64_t [ANY] (int64_t values[$1_dim0]) {
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) != $1_dim0) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "expected an array of $1_dim0 values");
    return $null;
  }
  (*jenv)->GetLongArrayRegion(jenv, $input, 0, $1_dim0, (jlong *)values);
  $1 = values;
}
%typemap(memberin) int64_t [ANY] %{ memcpy($1, $input, sizeof($1)); %}
%typemap(out) int64_t [ANY] {
  $result = (*jenv)->NewLongArray(jenv, $1_dim0);
  if ($result) (*jenv)->SetLongArrayRegion(jenv, $result, 0, $1_dim0, (const jlong *)$1);
}
