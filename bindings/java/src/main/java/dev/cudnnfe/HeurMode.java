package dev.cudnnfe;

/** cuDNN heuristic modes that propose engine configurations. */
public enum HeurMode {
    INSTANT(0),
    B(1),
    FALLBACK(2),
    A(3);

    public final int code;

    HeurMode(int code) {
        this.code = code;
    }

    static int[] codes(HeurMode[] modes) {
        int[] codes = new int[modes.length];
        for (int i = 0; i < modes.length; ++i) codes[i] = modes[i].code;
        return codes;
    }
}
