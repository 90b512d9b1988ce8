using System.Collections.Generic;

namespace CudnnFe
{
    // Building: in one call, or step by step; and what the build reports.
    public sealed partial class Graph
    {
        /// <summary>
        /// Validate, lower, query heuristics (A, then Fallback unless the options say otherwise),
        /// check support and build a plan. handle may be null when the options (or
        /// SetDeviceProperties) give a device description: the plan is then built for that GPU.
        /// </summary>
        public void Build(Handle handle, BuildOptions options = null)
        {
            using (fe_build_options native = options?.ToNative())
                Check.Ok(NativeApi.fe_graph_build(Pointer, Optional(handle), native));
        }

        /// <summary>Query heuristics in each mode (none: A, then Fallback).</summary>
        public void CreateExecutionPlans(params HeurMode[] modes)
        {
            int[] codes = modes.Length == 0 ? null : System.Array.ConvertAll(modes, m => (int)m);
            Check.Ok(NativeApi.fe_graph_create_execution_plans(Pointer, codes, modes.Length));
        }

        /// <summary>Candidate <paramref name="index"/>'s tag and engine notes, in heuristics' rank
        /// order (no plan needed).</summary>
        public CandidateNotes GetCandidateNotes(long index)
        {
            var tag = new string[1];
            long[] numerical = { 0 }, behavior = { 0 };
            Check.Ok(NativeApi.fe_graph_candidate_notes(Pointer, index, tag, numerical, behavior));
            return new CandidateNotes(tag[0], (NumericalNote)numerical[0], (BehaviorNote)behavior[0]);
        }

        /// <summary>Drop the candidates whose engine has any deselected note or lacks any required one.</summary>
        public void SelectByNotes(NumericalNote deselectNumerical, BehaviorNote deselectBehavior,
                                  NumericalNote requireNumerical, BehaviorNote requireBehavior) =>
            Check.Ok(NativeApi.fe_graph_select_by_notes(Pointer, (long)deselectNumerical, (long)deselectBehavior,
                                                        (long)requireNumerical, (long)requireBehavior));

        /// <summary>
        /// Drop the candidates of the engines named: engine names ("eng6": every knob setting of
        /// engine 6) and engine-config tags ("eng6_k24=26": that setting only), e.g. to avoid an
        /// engine known to be slow or wrong for a shape. A name of another form throws
        /// InvalidArgument; one no candidate has is not an error.
        /// </summary>
        public void DeselectEngines(params string[] names) => DeselectEngines((IEnumerable<string>)names);

        public void DeselectEngines(IEnumerable<string> names)
        {
            if (names == null) throw Check.NullArgumentException("Graph.DeselectEngines", nameof(names));
            Check.Ok(NativeApi.fe_graph_deselect_engines(Pointer, string.Join(",", names)));
        }

        /// <summary>
        /// Candidate <paramref name="index"/> (in heuristics' rank order, before any plan is built,
        /// also without a GPU): its tag, engine, workspace, shared memory, notes and whether it is
        /// still viable.
        /// </summary>
        public ConfigInfo GetCandidateInfo(long index)
        {
            using (var info = new fe_config_info())
            {
                Check.Ok(NativeApi.fe_graph_candidate_info(Pointer, index, info));
                return ConfigInfo.Of(info);
            }
        }

        /// <summary>Built plan <paramref name="planIndex"/> (0 to PlanCount - 1; after autotuning, fastest first).</summary>
        public ConfigInfo GetPlanInfo(long planIndex)
        {
            using (var info = new fe_config_info())
            {
                Check.Ok(NativeApi.fe_graph_plan_info(Pointer, planIndex, info));
                return ConfigInfo.Of(info);
            }
        }

        /// <summary>The knobs engine <paramref name="engine"/> has for this graph, by type; NotSupported if it does not run the graph.</summary>
        public IList<KnobRange> EngineKnobs(long engine)
        {
            var count = new long[1];
            fe_status status = NativeApi.fe_swig_engine_knobs(Pointer, engine, null, null, null, null, 0, count);
            if (status != fe_status.FE_STATUS_BUFFER_TOO_SMALL) Check.Ok(status);
            long n = count[0];
            int[] types = new int[n];
            long[] minValues = new long[n], maxValues = new long[n], strides = new long[n];
            Check.Ok(NativeApi.fe_swig_engine_knobs(Pointer, engine, types, minValues, maxValues, strides, n, count));
            var knobs = new List<KnobRange>();
            for (long i = 0; i < count[0]; ++i) knobs.Add(new KnobRange(types[i], minValues[i], maxValues[i], strides[i]));
            return knobs;
        }

        /// <summary>
        /// Add engine <paramref name="engine"/> with these knob settings (knobs left out keep the
        /// engine's defaults) as a candidate: after <see cref="BuildOperationGraph"/> (the candidates
        /// are then only those added) or <see cref="CreateExecutionPlans"/> (after the heuristics'
        /// ones), before <see cref="CheckSupport"/>. NotSupported, with cuDNN's reason, if cuDNN
        /// refuses the setting; InvalidArgument for a knob set twice, an unknown knob type or a
        /// duplicate of a candidate the graph has.
        /// </summary>
        public void AddCandidate(long engine, params KnobChoice[] knobs) => AddCandidate(engine, (IEnumerable<KnobChoice>)knobs);

        public void AddCandidate(long engine, IEnumerable<KnobChoice> knobs)
        {
            var choices = new List<KnobChoice>(knobs);
            int[] types = choices.ConvertAll(k => k.Type).ToArray();
            long[] values = choices.ConvertAll(k => k.Value).ToArray();
            Check.Ok(NativeApi.fe_swig_add_candidate(Pointer, engine, types, values, types.Length));
        }
    }
}
