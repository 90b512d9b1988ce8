package dev.cudnnfe;

/** What resampling's padding holds. */
public enum ResamplePadding {
    /** -infinity for max pooling, zero otherwise. */
    AUTO(0),
    ZERO(1),
    NEG_INF(2),
    /** Repeat the edge value. */
    EDGE(3);

    public final int code;

    ResamplePadding(int code) {
        this.code = code;
    }
}
