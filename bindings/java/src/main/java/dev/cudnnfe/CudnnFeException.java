package dev.cudnnfe;

/**
 * A failed cudnnfe call: its status and the library's one-line message, which names the C function
 * and the cause (e.g. {@code "fe_graph_conv_fprop: weight has 32 input channels, image has 64"}).
 */
public class CudnnFeException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final Status status;
    private final int code;

    CudnnFeException(int code, String message) {
        super(message);
        this.status = Status.of(code);
        this.code = code;
    }

    CudnnFeException(Status status, String message) {
        this(status.code, message);
    }

    public Status status() {
        return status;
    }

    /** The raw status code (differs from {@code status().code} only for {@link Status#UNKNOWN}). */
    public int code() {
        return code;
    }
}
