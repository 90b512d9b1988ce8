package dev.cudnnfe;

/** Convolution or cross-correlation (the default, as in deep-learning frameworks). */
public enum ConvMode {
    CONVOLUTION(0),
    CROSS_CORRELATION(1);

    public final int code;

    ConvMode(int code) {
        this.code = code;
    }
}
