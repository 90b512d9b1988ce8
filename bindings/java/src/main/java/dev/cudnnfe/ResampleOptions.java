package dev.cudnnfe;

/**
 * Options of resampling (pooling): the window is required; the stride defaults to 1, the padding
 * to 0, the mode to max pooling.
 */
public final class ResampleOptions {
    private String name;
    private ResampleMode mode;
    private long[] window;
    private long[] stride;
    private long[] prePadding;
    private long[] postPadding;
    private DataType computeDataType;
    private Boolean generateIndex;

    public ResampleOptions name(String name) { this.name = name; return this; }

    public ResampleOptions mode(ResampleMode mode) { this.mode = mode; return this; }

    /** The window per spatial dim (2 or 3 of them). */
    public ResampleOptions window(long... window) { this.window = window.clone(); return this; }

    public ResampleOptions stride(long... stride) { this.stride = stride.clone(); return this; }

    /** The same padding before and after. */
    public ResampleOptions padding(long... padding) {
        this.prePadding = padding.clone();
        this.postPadding = padding.clone();
        return this;
    }

    public ResampleOptions computeDataType(DataType type) { this.computeDataType = type; return this; }

    /** Max pooling for training: also return which element of each window was the largest. */
    public ResampleOptions generateIndex(boolean generate) { this.generateIndex = generate; return this; }

    fe_resample_options toNative() {
        fe_resample_options o = new fe_resample_options();
        try {
            if (name != null) o.setName(name);
            if (mode != null) o.setMode(mode.code);
            if (window != null) o.setWindow(overlay(o.getWindow(), window, "window"));
            if (stride != null) o.setStride(overlay(o.getStride(), stride, "stride"));
            if (prePadding != null) o.setPre_padding(overlay(o.getPre_padding(), prePadding, "padding"));
            if (postPadding != null) o.setPost_padding(overlay(o.getPost_padding(), postPadding, "padding"));
            if (computeDataType != null) o.setCompute_data_type(computeDataType.code);
            if (generateIndex != null) o.setGenerate_index(generateIndex ? 1 : 0);
            return o;
        } catch (RuntimeException e) {
            o.close();
            throw e;
        }
    }

    private static long[] overlay(long[] defaults, long[] values, String what) {
        if (values.length > defaults.length) {
            throw new CudnnFeException(Status.INVALID_ARGUMENT,
                    "ResampleOptions: " + values.length + " " + what + " values, at most " + defaults.length);
        }
        System.arraycopy(values, 0, defaults, 0, values.length);
        return defaults;
    }
}
