package dev.cudnnfe;

/** What deserializing does with bytes made for another cuDNN version or GPU. */
public enum MismatchPolicy {
    /** Fail with NOT_SUPPORTED, naming the mismatch. */
    REFUSE(0),
    /** Rebuild the plan from the graph the bytes carry (heuristics, compilation). */
    REBUILD(1);

    public final int code;

    MismatchPolicy(int code) {
        this.code = code;
    }
}
