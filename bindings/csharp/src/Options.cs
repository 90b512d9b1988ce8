using System;

namespace CudnnFe
{
    // The build's options (an op's, a graph's and loading's options classes are generated from the
    // schema): properties left null keep the library's defaults (the C header's _INIT macros).

    /// <summary>Options of the one-call build. Unset: heuristics A then Fallback, the first plan that builds.</summary>
    public sealed class BuildOptions
    {
        public HeurMode[] HeurModes { get; set; }
        public BuildPolicy? Policy { get; set; }
        /// <summary>Skip plans that need more workspace (negative: no limit).</summary>
        public long? MaxWorkspaceBytes { get; set; }
        /// <summary>Deviceless: build for the GPU this cuDNN device JSON describes; the handle may be null.</summary>
        public string DevicePropertiesJson { get; set; }
        /// <summary>Reuse the plan of an identical graph built before in this process (default true).</summary>
        public bool? UsePlanCache { get; set; }
        /// <summary>Also register the built graph under this key, for <see cref="Graph.FromCache"/>.</summary>
        public string CacheKey { get; set; }
        /// <summary>Time the candidates on the handle's GPU and keep the fastest (needs a GPU).</summary>
        public bool? Autotune { get; set; }
        /// <summary>How many plans autotuning builds and times (0 or less: 8).</summary>
        public int? AutotuneCandidates { get; set; }
        /// <summary>Autotuning also times the configs one knob away from the fastest plans, for up to this many rounds (0: off).</summary>
        public int? AutotuneKnobSearch { get; set; }
        /// <summary>Engines with any of these notes are not built (e.g. Nondeterministic for repeatable results).</summary>
        public NumericalNote DeselectNumericalNotes { get; set; }
        public BehaviorNote DeselectBehaviorNotes { get; set; }
        /// <summary>Only engines with all of these notes are built (e.g. SupportsCudaGraphNativeApi).</summary>
        public NumericalNote RequireNumericalNotes { get; set; }
        public BehaviorNote RequireBehaviorNotes { get; set; }
        /// <summary>
        /// Engines not to build: engine names ("eng6": every knob setting of engine 6) and
        /// engine-config tags ("eng6_k24=26": that setting only), as <see cref="Graph.DeselectEngines(string[])"/>
        /// takes them. A name of another form makes the build throw InvalidArgument.
        /// </summary>
        public string[] DeselectEngines { get; set; }
        /// <summary>
        /// Engine configs that use more than this many bytes of shared memory per block are not built
        /// (0: no limit), as <see cref="Graph.DeselectSharedMemoryGreaterThan"/>; configs cuDNN reports
        /// none for are kept.
        /// </summary>
        public long? MaxSharedMemoryBytes { get; set; }
        /// <summary>Only engines that give bitwise-repeatable results (the same as deselecting Nondeterministic).</summary>
        public bool? Deterministic { get; set; }
        /// <summary>
        /// Threads that finalize plans at the same time when several are built (<see cref="BuildPolicy.All"/>,
        /// autotuning): 0 or 1 one at a time, n > 1 up to n (at most 64), as
        /// <see cref="Graph.BuildPlansOnThreads"/>. The plans and their order do not depend on it.
        /// </summary>
        public int? BuildThreads { get; set; }
        /// <summary>
        /// Build with dynamic shapes from this kernel cache (null: without), sharing compiled kernels
        /// with the other graphs built with it; the graph keeps its own reference to the cache.
        /// </summary>
        public KernelCache KernelCache { get; set; }
        /// <summary>
        /// An SM carveout: n > 0 asks heuristics for engine configs that run on n SMs, leaving the
        /// others to work running beside the graph (a normalization next to a communication kernel,
        /// say); cuDNN's norm engines honour it. 0: every SM. Not with <see cref="KernelCache"/> (its
        /// configs were chosen for every SM): the build throws InvalidArgument, as it does for a
        /// negative count.
        /// </summary>
        public int? SmCountTarget { get; set; }

        internal fe_build_options ToNative()
        {
            IntPtr cache = KernelCache == null ? IntPtr.Zero : KernelCache.Pointer; // throws for a disposed cache
            var o = new fe_build_options();
            if (HeurModes != null) o.set_heur_modes(Array.ConvertAll(HeurModes, m => (int)m), HeurModes.Length);
            if (Policy.HasValue) o.policy = (fe_build_policy)Policy.Value;
            if (MaxWorkspaceBytes.HasValue) o.max_workspace_bytes = MaxWorkspaceBytes.Value;
            if (DevicePropertiesJson != null) o.device_properties_json = DevicePropertiesJson;
            if (UsePlanCache.HasValue) o.use_plan_cache = UsePlanCache.Value ? 1 : 0;
            if (CacheKey != null) o.cache_key = CacheKey;
            if (Autotune.HasValue) o.autotune = Autotune.Value ? 1 : 0;
            if (AutotuneCandidates.HasValue) o.autotune_candidates = AutotuneCandidates.Value;
            if (AutotuneKnobSearch.HasValue) o.autotune_knob_search = AutotuneKnobSearch.Value;
            o.deselect_numerical_notes = (long)DeselectNumericalNotes;
            o.deselect_behavior_notes = (long)DeselectBehaviorNotes;
            o.require_numerical_notes = (long)RequireNumericalNotes;
            o.require_behavior_notes = (long)RequireBehaviorNotes;
            if (DeselectEngines != null) o.deselect_engines = string.Join(",", DeselectEngines);
            if (MaxSharedMemoryBytes.HasValue) o.max_shared_memory_bytes = MaxSharedMemoryBytes.Value;
            if (Deterministic.HasValue) o.deterministic = Deterministic.Value ? 1 : 0;
            if (BuildThreads.HasValue) o.build_threads = BuildThreads.Value;
            if (cache != IntPtr.Zero) o.kernel_cache = cache;
            if (SmCountTarget.HasValue) o.sm_count_target = SmCountTarget.Value;
            return o;
        }
    }
}
