package dev.cudnnfe;

/**
 * Options of a convolution (forward, data and weight gradients, transposed), per spatial dimension (up to 3). Unset fields keep the
 * library's defaults: no padding, stride 1, dilation 1, cross-correlation, the graph's math type.
 */
public final class ConvOptions {
    private String name;
    private Long spatialDims;
    private long[] prePadding;
    private long[] postPadding;
    private long[] stride;
    private long[] dilation;
    private ConvMode mode;
    private DataType computeDataType;
    private Long groups;
    private long[] outputPadding;

    public ConvOptions name(String name) {
        this.name = name;
        return this;
    }

    /** 0 (the default) takes the number of spatial dims from the image's rank. */
    public ConvOptions spatialDims(long spatialDims) {
        this.spatialDims = spatialDims;
        return this;
    }

    /**
     * The same padding before and after: one value for every spatial dim (as in PyTorch), or one
     * per spatial dim. The same rule holds for every array option here.
     */
    public ConvOptions padding(long... padding) {
        this.prePadding = padding.clone();
        this.postPadding = padding.clone();
        return this;
    }

    public ConvOptions prePadding(long... padding) {
        this.prePadding = padding.clone();
        return this;
    }

    public ConvOptions postPadding(long... padding) {
        this.postPadding = padding.clone();
        return this;
    }

    public ConvOptions stride(long... stride) {
        this.stride = stride.clone();
        return this;
    }

    public ConvOptions dilation(long... dilation) {
        this.dilation = dilation.clone();
        return this;
    }

    public ConvOptions mode(ConvMode mode) {
        this.mode = mode;
        return this;
    }

    public ConvOptions computeDataType(DataType type) {
        this.computeDataType = type;
        return this;
    }

    /** Grouped convolution: the weight is [K, C / groups, filter...]; depthwise: groups = C. */
    public ConvOptions groups(long groups) {
        this.groups = groups;
        return this;
    }

    /** Transposed convolution only: extra result size on the far side of each spatial dim. */
    public ConvOptions outputPadding(long... padding) {
        this.outputPadding = padding.clone();
        return this;
    }

    /**
     * The native struct, filled through the C setters so that every value means what it means in C:
     * one value applies to every spatial dim, one per spatial dim (2 or 3) fixes their count, and
     * any other count is refused with the C library's message.
     */
    fe_conv_options toNative() {
        fe_conv_options o = new fe_conv_options();
        try {
            if (name != null) o.setName(name);
            if (spatialDims != null) o.setSpatial_dims(spatialDims);
            if (prePadding != null) Check.ok(NativeApi.fe_conv_options_set_pre_padding(o, prePadding.length, prePadding));
            if (postPadding != null) Check.ok(NativeApi.fe_conv_options_set_post_padding(o, postPadding.length, postPadding));
            if (stride != null) Check.ok(NativeApi.fe_conv_options_set_stride(o, stride.length, stride));
            if (dilation != null) Check.ok(NativeApi.fe_conv_options_set_dilation(o, dilation.length, dilation));
            if (mode != null) o.setMode(mode.code);
            if (computeDataType != null) o.setCompute_data_type(computeDataType.code);
            if (groups != null) o.setGroups(groups);
            if (outputPadding != null) {
                Check.ok(NativeApi.fe_conv_options_set_output_padding(o, outputPadding.length, outputPadding));
            }
            return o;
        } catch (RuntimeException e) {
            o.close();
            throw e;
        }
    }
}
