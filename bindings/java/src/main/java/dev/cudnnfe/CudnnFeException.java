package dev.cudnnfe;

/**
 * A failed cudnnfe call: its status and a one-line message that names the Java method and the cause
 * (e.g. {@code "Graph.convFprop: weight has 32 input channels, image has 64"}). The C function that
 * failed is {@link #function()}; where the cause is an error cuDNN reported, cuDNN's text is part of
 * {@link #reason()}.
 */
public class CudnnFeException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final Status status;
    private final int code;
    private final String function;
    private final String method;
    private final String reason;

    CudnnFeException(int code, String function, String method, String reason) {
        super(method.isEmpty() ? reason : method + ": " + reason);
        this.status = Status.of(code);
        this.code = code;
        this.function = function;
        this.method = method;
        this.reason = reason;
    }

    CudnnFeException(int code, String message) {
        this(code, "", "", message);
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

    /** The C function that failed ("fe_graph_conv_fprop"); empty when the failure is the binding's own. */
    public String function() {
        return function;
    }

    /** The Java method named first in the message ("Graph.convFprop"); empty when none is. */
    public String method() {
        return method;
    }

    /** The cause: the message without the method it names. */
    public String reason() {
        return reason;
    }
}
