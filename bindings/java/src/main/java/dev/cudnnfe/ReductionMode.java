package dev.cudnnfe;

/** How a reduction combines elements. */
public enum ReductionMode {
    ADD(0),
    MUL(1),
    MIN(2),
    MAX(3),
    AMAX(4),
    AVG(5),
    NORM1(6),
    NORM2(7),
    /** The product of the non-zero elements. */
    MUL_NO_ZEROS(8);

    public final int code;

    ReductionMode(int code) {
        this.code = code;
    }
}
