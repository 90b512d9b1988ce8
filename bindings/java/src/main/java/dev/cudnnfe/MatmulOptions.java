package dev.cudnnfe;

/** Options of a matmul. */
public final class MatmulOptions {
    private String name;
    private DataType computeDataType;

    public MatmulOptions name(String name) {
        this.name = name;
        return this;
    }

    public MatmulOptions computeDataType(DataType type) {
        this.computeDataType = type;
        return this;
    }

    fe_matmul_options toNative() {
        fe_matmul_options o = new fe_matmul_options();
        if (name != null) o.setName(name);
        if (computeDataType != null) o.setCompute_data_type(computeDataType.code);
        return o;
    }
}
