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

    /** The same padding before and after. */
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

    fe_conv_options toNative() {
        fe_conv_options o = new fe_conv_options();
        try {
            if (name != null) o.setName(name);
            if (spatialDims != null) o.setSpatial_dims(spatialDims);
            if (prePadding != null) o.setPre_padding(overlay(o.getPre_padding(), prePadding, "padding"));
            if (postPadding != null) o.setPost_padding(overlay(o.getPost_padding(), postPadding, "padding"));
            if (stride != null) o.setStride(overlay(o.getStride(), stride, "stride"));
            if (dilation != null) o.setDilation(overlay(o.getDilation(), dilation, "dilation"));
            if (mode != null) o.setMode(mode.code);
            if (computeDataType != null) o.setCompute_data_type(computeDataType.code);
            if (groups != null) o.setGroups(groups);
            if (outputPadding != null) o.setOutput_padding(overlay(o.getOutput_padding(), outputPadding, "output padding"));
            return o;
        } catch (RuntimeException e) {
            o.close();
            throw e;
        }
    }

    /** The given values over the first entries of the defaults. */
    private static long[] overlay(long[] defaults, long[] values, String what) {
        if (values.length > defaults.length) {
            throw new CudnnFeException(Status.INVALID_ARGUMENT,
                    "ConvOptions: " + values.length + " " + what + " values, at most " + defaults.length);
        }
        System.arraycopy(values, 0, defaults, 0, values.length);
        return defaults;
    }
}
