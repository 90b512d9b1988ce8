package dev.cudnnfe;

/** Options of a reduction: the axes to reduce (at least one) and the math type. */
public final class ReductionOptions {
    private String name;
    private DataType computeDataType;
    private long axesMask;

    public ReductionOptions name(String name) {
        this.name = name;
        return this;
    }

    public ReductionOptions computeDataType(DataType type) {
        this.computeDataType = type;
        return this;
    }

    /** Dimensions reduced to 1. */
    public ReductionOptions reduceAxes(int... axes) {
        axesMask = 0;
        for (int axis : axes) {
            if (axis < 0 || axis >= 32) {
                throw new CudnnFeException(Status.INVALID_ARGUMENT, "ReductionOptions: axis " + axis + " is out of range");
            }
            axesMask |= 1L << axis;
        }
        return this;
    }

    fe_reduction_options toNative() {
        fe_reduction_options o = new fe_reduction_options();
        if (name != null) o.setName(name);
        if (computeDataType != null) o.setCompute_data_type(computeDataType.code);
        o.setReduce_axes(axesMask);
        return o;
    }
}
