package dev.cudnnfe;

/** A graph's name and default data types. Unset fields keep the library's defaults. */
public final class GraphOptions {
    private String name;
    private DataType ioDataType;
    private DataType intermediateDataType;
    private DataType computeDataType;

    public GraphOptions name(String name) {
        this.name = name;
        return this;
    }

    /** Default of inputs and outputs (unset: each tensor carries its own type). */
    public GraphOptions ioDataType(DataType type) {
        this.ioDataType = type;
        return this;
    }

    /** Default of virtual tensors (float unless set). */
    public GraphOptions intermediateDataType(DataType type) {
        this.intermediateDataType = type;
        return this;
    }

    /** Default math precision of operations (float unless set). */
    public GraphOptions computeDataType(DataType type) {
        this.computeDataType = type;
        return this;
    }

    fe_graph_options toNative() {
        fe_graph_options o = new fe_graph_options();
        if (name != null) o.setName(name);
        if (ioDataType != null) o.setIo_data_type(ioDataType.code);
        if (intermediateDataType != null) o.setIntermediate_data_type(intermediateDataType.code);
        if (computeDataType != null) o.setCompute_data_type(computeDataType.code);
        return o;
    }
}
