package dev.cudnnfe;

/**
 * Options of the one-call build. Unset: heuristics A then FALLBACK, the first plan that builds, the
 * in-process plan cache on, no autotuning.
 */
public final class BuildOptions {
    private HeurMode[] heurModes;
    private BuildPolicy policy;
    private Long maxWorkspaceBytes;
    private String devicePropertiesJson;
    private Boolean usePlanCache;
    private String cacheKey;
    private Boolean autotune;
    private Integer autotuneCandidates;
    private Integer autotuneKnobSearch;
    private java.util.Set<NumericalNote> deselectNumericalNotes, requireNumericalNotes;
    private java.util.Set<BehaviorNote> deselectBehaviorNotes, requireBehaviorNotes;
    private String deselectEngines;
    private Long maxSharedMemoryBytes;
    private Boolean deterministic;
    private Integer buildThreads;
    private KernelCache kernelCache;
    private Integer smCountTarget;

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

    /** Reuse the plan of an identical graph built before in this process (on by default). */
    public BuildOptions usePlanCache(boolean use) {
        this.usePlanCache = use;
        return this;
    }

    /** Also register the built graph under this key, for {@link Graph#fromCache}. */
    public BuildOptions cacheKey(String key) {
        this.cacheKey = key;
        return this;
    }

    /** Time the candidates on the handle's GPU and keep the fastest (needs a GPU). */
    public BuildOptions autotune(boolean autotune) {
        this.autotune = autotune;
        return this;
    }

    /** How many plans autotuning builds and times (0 or less: 8). */
    public BuildOptions autotuneCandidates(int candidates) {
        this.autotuneCandidates = candidates;
        return this;
    }

    /** Autotuning also times the configs one knob away from the fastest plans, for up to this many rounds (0: off). */
    public BuildOptions autotuneKnobSearch(int rounds) {
        this.autotuneKnobSearch = rounds;
        return this;
    }

    /** Engines with any of these notes are not built (e.g. NONDETERMINISTIC for repeatable results). */
    public BuildOptions deselectNotes(java.util.Set<NumericalNote> numerical, java.util.Set<BehaviorNote> behavior) {
        this.deselectNumericalNotes = numerical;
        this.deselectBehaviorNotes = behavior;
        return this;
    }

    /** Only engines with all of these notes are built (e.g. SUPPORTS_CUDA_GRAPH_NATIVE_API). */
    public BuildOptions requireNotes(java.util.Set<NumericalNote> numerical, java.util.Set<BehaviorNote> behavior) {
        this.requireNumericalNotes = numerical;
        this.requireBehaviorNotes = behavior;
        return this;
    }

    /**
     * Engines not to build: engine names ("eng6": every knob setting of engine 6) and engine-config
     * tags ("eng6_k24=26": that setting only), as {@link Graph#deselectEngines} takes them. A name of
     * another form makes the build throw INVALID_ARGUMENT.
     */
    public BuildOptions deselectEngines(String... names) {
        this.deselectEngines = names == null ? null : String.join(",", names);
        return this;
    }

    public BuildOptions deselectEngines(java.util.List<String> names) {
        this.deselectEngines = names == null ? null : String.join(",", names);
        return this;
    }

    /**
     * Engine configs that use more than this many bytes of shared memory per block are not built
     * (0: no limit), as {@link Graph#deselectSharedMemoryGreaterThan}; configs cuDNN reports none for
     * are kept.
     */
    public BuildOptions maxSharedMemoryBytes(long bytes) {
        this.maxSharedMemoryBytes = bytes;
        return this;
    }

    /** Only engines that give bitwise-repeatable results (the same as deselecting NONDETERMINISTIC). */
    public BuildOptions deterministic(boolean deterministic) {
        this.deterministic = deterministic;
        return this;
    }

    /**
     * Threads that finalize plans at the same time when several are built ({@link BuildPolicy#ALL},
     * autotuning): 0 or 1 one at a time, n > 1 up to n (at most 64), as
     * {@link Graph#buildPlansOnThreads}. The plans and their order do not depend on it.
     */
    public BuildOptions buildThreads(int threads) {
        this.buildThreads = threads;
        return this;
    }

    /**
     * Build with dynamic shapes from this kernel cache (null: without), sharing compiled kernels
     * with the other graphs built with it; the graph keeps its own reference to the cache.
     */
    public BuildOptions kernelCache(KernelCache cache) {
        this.kernelCache = cache;
        return this;
    }

    /**
     * An SM carveout: n > 0 asks heuristics for engine configs that run on n SMs, leaving the others
     * to work running beside the graph (a normalization next to a communication kernel, say); cuDNN's
     * norm engines honour it. 0: every SM. Not with {@link #kernelCache} (its configs were chosen for
     * every SM): the build throws INVALID_ARGUMENT, as it does for a negative count.
     */
    public BuildOptions smCountTarget(int sms) {
        this.smCountTarget = sms;
        return this;
    }

    /** The C values of heuristics modes, in order. */
    static int[] heurCodes(HeurMode[] modes) {
        int[] codes = new int[modes.length];
        for (int i = 0; i < modes.length; ++i) codes[i] = modes[i].code;
        return codes;
    }

    fe_build_options toNative() {
        long cache = kernelCache == null ? 0 : kernelCache.pointer(); // throws for a closed cache
        fe_build_options o = new fe_build_options();
        if (heurModes != null) o.set_heur_modes(heurCodes(heurModes), heurModes.length);
        if (policy != null) o.setPolicy(policy.code);
        if (maxWorkspaceBytes != null) o.setMax_workspace_bytes(maxWorkspaceBytes);
        if (devicePropertiesJson != null) o.setDevice_properties_json(devicePropertiesJson);
        if (usePlanCache != null) o.setUse_plan_cache(usePlanCache ? 1 : 0);
        if (cacheKey != null) o.setCache_key(cacheKey);
        if (autotune != null) o.setAutotune(autotune ? 1 : 0);
        if (autotuneCandidates != null) o.setAutotune_candidates(autotuneCandidates);
        if (autotuneKnobSearch != null) o.setAutotune_knob_search(autotuneKnobSearch);
        if (deselectNumericalNotes != null) o.setDeselect_numerical_notes(NumericalNote.mask(deselectNumericalNotes));
        if (deselectBehaviorNotes != null) o.setDeselect_behavior_notes(BehaviorNote.mask(deselectBehaviorNotes));
        if (requireNumericalNotes != null) o.setRequire_numerical_notes(NumericalNote.mask(requireNumericalNotes));
        if (requireBehaviorNotes != null) o.setRequire_behavior_notes(BehaviorNote.mask(requireBehaviorNotes));
        if (deselectEngines != null) o.setDeselect_engines(deselectEngines);
        if (maxSharedMemoryBytes != null) o.setMax_shared_memory_bytes(maxSharedMemoryBytes);
        if (deterministic != null) o.setDeterministic(deterministic ? 1 : 0);
        if (buildThreads != null) o.setBuild_threads(buildThreads);
        if (cache != 0) o.setKernel_cache(cache);
        if (smCountTarget != null) o.setSm_count_target(smCountTarget);
        return o;
    }
}
