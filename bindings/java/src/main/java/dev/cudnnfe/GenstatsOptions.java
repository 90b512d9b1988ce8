package dev.cudnnfe;

/** Options of genstats (batch normalization's per-channel sum and sum of squares). */
public final class GenstatsOptions {
    private String name;
    private DataType computeDataType;

    public GenstatsOptions name(String name) {
        this.name = name;
        return this;
    }

    public GenstatsOptions computeDataType(DataType type) {
        this.computeDataType = type;
        return this;
    }

    fe_genstats_options toNative() {
        fe_genstats_options o = new fe_genstats_options();
        if (name != null) o.setName(name);
        if (computeDataType != null) o.setCompute_data_type(computeDataType.code);
        return o;
    }
}
