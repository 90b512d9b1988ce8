package dev.cudnnfe;

/**
 * Options of resampling (pooling): the window is required; the stride defaults to 1, the padding
 * to 0, the mode to max pooling. Each array takes one value for every spatial dim (as in PyTorch)
 * or one per spatial dim (2 or 3), as in C.
 */
public final class ResampleOptions {
    private String name;
    private ResampleMode mode;
    private ResamplePadding paddingMode;
    private Long spatialDims;
    private long[] window;
    private long[] stride;
    private long[] prePadding;
    private long[] postPadding;
    private DataType computeDataType;
    private Boolean generateIndex;
    private DataType indexDataType;

    public ResampleOptions name(String name) { this.name = name; return this; }

    public ResampleOptions mode(ResampleMode mode) { this.mode = mode; return this; }

    /** What the padding holds (default AUTO: -infinity for max pooling, zero otherwise). */
    public ResampleOptions paddingMode(ResamplePadding paddingMode) { this.paddingMode = paddingMode; return this; }

    /** 0 (the default) takes the number of spatial dims from x's rank. */
    public ResampleOptions spatialDims(long spatialDims) { this.spatialDims = spatialDims; return this; }

    /** The window: one value for every spatial dim, or one per spatial dim. */
    public ResampleOptions window(long... window) { this.window = window.clone(); return this; }

    public ResampleOptions stride(long... stride) { this.stride = stride.clone(); return this; }

    /** The same padding before and after. */
    public ResampleOptions padding(long... padding) {
        this.prePadding = padding.clone();
        this.postPadding = padding.clone();
        return this;
    }

    public ResampleOptions prePadding(long... padding) { this.prePadding = padding.clone(); return this; }

    public ResampleOptions postPadding(long... padding) { this.postPadding = padding.clone(); return this; }

    public ResampleOptions computeDataType(DataType type) { this.computeDataType = type; return this; }

    /** Max pooling for training: also return which element of each window was the largest. */
    public ResampleOptions generateIndex(boolean generate) { this.generateIndex = generate; return this; }

    /** The index's type (default int8). */
    public ResampleOptions indexDataType(DataType type) { this.indexDataType = type; return this; }

    /** The native struct, its arrays filled through the C setters (the same rule as in C). */
    fe_resample_options toNative() {
        fe_resample_options o = new fe_resample_options();
        try {
            if (name != null) o.setName(name);
            if (mode != null) o.setMode(mode.code);
            if (paddingMode != null) o.setPadding_mode(paddingMode.code);
            if (spatialDims != null) o.setSpatial_dims(spatialDims);
            if (window != null) Check.ok(NativeApi.fe_resample_options_set_window(o, window.length, window));
            if (stride != null) Check.ok(NativeApi.fe_resample_options_set_stride(o, stride.length, stride));
            if (prePadding != null) {
                Check.ok(NativeApi.fe_resample_options_set_pre_padding(o, prePadding.length, prePadding));
            }
            if (postPadding != null) {
                Check.ok(NativeApi.fe_resample_options_set_post_padding(o, postPadding.length, postPadding));
            }
            if (computeDataType != null) o.setCompute_data_type(computeDataType.code);
            if (generateIndex != null) o.setGenerate_index(generateIndex ? 1 : 0);
            if (indexDataType != null) o.setIndex_data_type(indexDataType.code);
            return o;
        } catch (RuntimeException e) {
            o.close();
            throw e;
        }
    }
}
