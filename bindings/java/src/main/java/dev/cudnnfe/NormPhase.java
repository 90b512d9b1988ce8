package dev.cudnnfe;

/** Whether a normalization also returns the statistics its backward pass reads. */
public enum NormPhase {
    /** y only. */
    INFERENCE(0),
    /** y and the statistics. */
    TRAINING(1);

    public final int code;

    NormPhase(int code) {
        this.code = code;
    }

    static NormPhase of(int code) {
        for (NormPhase value : values()) {
            if (value.code == code) return value;
        }
        throw new CudnnFeException(Status.INTERNAL, "unknown NormPhase " + code);
    }
}
