package dev.cudnnfe;

/** Options of {@link Graph#deserialize}. Unset: refuse a mismatch, load for the handle's GPU. */
public final class DeserializeOptions {
    private MismatchPolicy onMismatch;
    private String devicePropertiesJson;

    public DeserializeOptions onMismatch(MismatchPolicy policy) {
        this.onMismatch = policy;
        return this;
    }

    /**
     * Deviceless: load the plan for the GPU this cuDNN device JSON describes (the handle may then
     * be null); the graph can be inspected and serialized again, not executed.
     */
    public DeserializeOptions devicePropertiesJson(String json) {
        this.devicePropertiesJson = json;
        return this;
    }

    fe_deserialize_options toNative() {
        fe_deserialize_options o = new fe_deserialize_options();
        if (onMismatch != null) o.setOn_mismatch(onMismatch.code);
        if (devicePropertiesJson != null) o.setDevice_properties_json(devicePropertiesJson);
        return o;
    }
}
