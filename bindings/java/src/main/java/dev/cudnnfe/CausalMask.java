package dev.cudnnfe;

/** Causal masks of attention. */
public enum CausalMask {
    NONE(0),
    /** Query i sees keys 0..i. */
    TOP_LEFT(1),
    /** Aligned to the last key: query i sees keys 0..i + s_kv - s_q. */
    BOTTOM_RIGHT(2);

    public final int code;

    CausalMask(int code) {
        this.code = code;
    }
}
