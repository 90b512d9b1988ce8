package dev.cudnnfe;

/** How attention is lowered: cuDNN's native operation, or a pattern of matmuls and pointwise operations. */
public enum SdpaImplementation {
    /** Native where it takes every option given and has an engine for the GPU, else composite. */
    AUTO(0),
    COMPOSITE(1),
    /** Fails at build, naming the option or version, when the native operation cannot take the graph. */
    NATIVE(2);

    public final int code;

    SdpaImplementation(int code) {
        this.code = code;
    }

    static SdpaImplementation of(int code) {
        for (SdpaImplementation value : values()) {
            if (value.code == code) return value;
        }
        throw new CudnnFeException(Status.INTERNAL, "unknown SdpaImplementation " + code);
    }
}
