package dev.cudnnfe;

/** Which plans a build finalizes. */
public enum BuildPolicy {
    /** Build candidates in order; keep the first that builds. */
    HEURISTICS_CHOICE(0),
    /** Build every supported candidate; use the first. */
    ALL(1);

    public final int code;

    BuildPolicy(int code) {
        this.code = code;
    }
}
