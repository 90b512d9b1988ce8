package dev.cudnnfe;

/** Options of a pointwise operation; the parameters apply to the modes that name them. */
public final class PointwiseOptions {
    private String name;
    private DataType computeDataType;
    private Double reluLowerClip;
    private Double reluUpperClip;
    private Double reluLowerClipSlope;
    private Double eluAlpha;
    private Double softplusBeta;
    private Double swishBeta;
    private Long axis;

    public PointwiseOptions name(String name) {
        this.name = name;
        return this;
    }

    public PointwiseOptions computeDataType(DataType type) {
        this.computeDataType = type;
        return this;
    }

    public PointwiseOptions reluLowerClip(double value) {
        this.reluLowerClip = value;
        return this;
    }

    public PointwiseOptions reluUpperClip(double value) {
        this.reluUpperClip = value;
        return this;
    }

    public PointwiseOptions reluLowerClipSlope(double value) {
        this.reluLowerClipSlope = value;
        return this;
    }

    public PointwiseOptions eluAlpha(double value) {
        this.eluAlpha = value;
        return this;
    }

    public PointwiseOptions softplusBeta(double value) {
        this.softplusBeta = value;
        return this;
    }

    public PointwiseOptions swishBeta(double value) {
        this.swishBeta = value;
        return this;
    }

    /** GEN_INDEX: the dimension whose index is generated. */
    public PointwiseOptions axis(long axis) {
        this.axis = axis;
        return this;
    }

    fe_pointwise_options toNative() {
        fe_pointwise_options o = new fe_pointwise_options();
        if (name != null) o.setName(name);
        if (computeDataType != null) o.setCompute_data_type(computeDataType.code);
        if (reluLowerClip != null) o.setRelu_lower_clip(reluLowerClip);
        if (reluUpperClip != null) o.setRelu_upper_clip(reluUpperClip);
        if (reluLowerClipSlope != null) o.setRelu_lower_clip_slope(reluLowerClipSlope);
        if (eluAlpha != null) o.setElu_alpha(eluAlpha);
        if (softplusBeta != null) o.setSoftplus_beta(softplusBeta);
        if (swishBeta != null) o.setSwish_beta(swishBeta);
        if (axis != null) o.setAxis(axis);
        return o;
    }
}
