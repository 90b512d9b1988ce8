package dev.cudnnfe;

/** Options of the one-call build. Unset: heuristics A then FALLBACK, the first plan that builds. */
public final class BuildOptions {
    private HeurMode[] heurModes;
    private BuildPolicy policy;
    private Long maxWorkspaceBytes;
    private String devicePropertiesJson;

    public BuildOptions heurModes(HeurMode... modes) {
        this.heurModes = modes.clone();
        return this;
    }

    public BuildOptions policy(BuildPolicy policy) {
        this.policy = policy;
        return this;
    }

    /** Skip plans that need more workspace (negative: no limit). */
    public BuildOptions maxWorkspaceBytes(long bytes) {
        this.maxWorkspaceBytes = bytes;
        return this;
    }

    /** Deviceless: build for the GPU this cuDNN device JSON describes; the handle may be null. */
    public BuildOptions devicePropertiesJson(String json) {
        this.devicePropertiesJson = json;
        return this;
    }

    fe_build_options toNative() {
        fe_build_options o = new fe_build_options();
        if (heurModes != null) o.set_heur_modes(HeurMode.codes(heurModes), heurModes.length);
        if (policy != null) o.setPolicy(policy.code);
        if (maxWorkspaceBytes != null) o.setMax_workspace_bytes(maxWorkspaceBytes);
        if (devicePropertiesJson != null) o.setDevice_properties_json(devicePropertiesJson);
        return o;
    }
}
