package dev.cudnnfe;

/** The status of a failed cudnnfe call (the C library's fe_status). */
public enum Status {
    OK(0),
    INVALID_ARGUMENT(1),
    NULL_POINTER(2),
    BAD_STATE(3),
    NOT_FOUND(4),
    DUPLICATE(5),
    VALIDATION(6),
    BUFFER_TOO_SMALL(7),
    MISALIGNED(8),
    NOT_SUPPORTED(9),
    LIBRARY_UNAVAILABLE(10),
    CUDNN_ERROR(11),
    CUDA_ERROR(12),
    OUT_OF_MEMORY(13),
    NO_DEVICE(14),
    INTERNAL(15),
    /** A code this binding does not know (from a newer library); see {@link CudnnFeException#code()}. */
    UNKNOWN(-1);

    /** The C library's value. */
    public final int code;

    Status(int code) {
        this.code = code;
    }

    /** The C library's name of the status ("FE_STATUS_NOT_SUPPORTED", ...). */
    public String libraryName() {
        return NativeApi.fe_status_string(code);
    }

    static Status of(int code) {
        for (Status s : values()) {
            if (s.code == code) return s;
        }
        return UNKNOWN;
    }
}
