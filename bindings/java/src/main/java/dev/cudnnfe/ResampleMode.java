package dev.cudnnfe;

/** Resampling modes: pooling and upsampling of the spatial dims. */
public enum ResampleMode {
    MAXPOOL(0),
    /** The padding counts in the average's divisor. */
    AVGPOOL_INCLUDE_PADDING(1),
    /** Only the window's elements inside x count. */
    AVGPOOL_EXCLUDE_PADDING(2),
    NEAREST(3),
    BILINEAR(4);

    public final int code;

    ResampleMode(int code) {
        this.code = code;
    }
}
