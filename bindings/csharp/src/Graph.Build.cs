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

        /// <summary>Build for the GPU this cuDNN device JSON describes.</summary>
        public void SetDeviceProperties(string json) => Check.Ok(NativeApi.fe_graph_set_device_properties(Pointer, json));

        public void Validate() => Check.Ok(NativeApi.fe_graph_validate(Pointer));

        /// <summary>Lower to cuDNN's operation graph; handle may be null.</summary>
        public void BuildOperationGraph(Handle handle) =>
            Check.Ok(NativeApi.fe_graph_build_operation_graph(Pointer, Optional(handle)));

        /// <summary>Query heuristics in each mode (none: A, then Fallback).</summary>
        public void CreateExecutionPlans(params HeurMode[] modes)
        {
            int[] codes = modes.Length == 0 ? null : System.Array.ConvertAll(modes, m => (int)m);
            Check.Ok(NativeApi.fe_graph_create_execution_plans(Pointer, codes, modes.Length));
        }

        public void DeselectWorkspaceGreaterThan(long maxBytes) =>
            Check.Ok(NativeApi.fe_graph_deselect_workspace_greater_than(Pointer, maxBytes));

        /// <summary>Throws NotSupported, with cuDNN's reason, if no candidate is viable.</summary>
        public void CheckSupport() => Check.Ok(NativeApi.fe_graph_check_support(Pointer));

        public void BuildPlans(BuildPolicy policy) => Check.Ok(NativeApi.fe_graph_build_plans(Pointer, (fe_build_policy)policy));

        public long CandidateCount => Count(NativeApi.fe_graph_candidate_count);

        public long ViableCount => Count(NativeApi.fe_graph_viable_count);

        public long PlanCount => Count(NativeApi.fe_graph_plan_count);

        /// <summary>Workspace bytes the chosen plan needs.</summary>
        public long WorkspaceSize => Count(NativeApi.fe_graph_workspace_size);

        public long EngineIndex => Count(NativeApi.fe_graph_engine_index);

        /// <summary>The chosen engine and its knobs, e.g. "eng12_k2=3_k3=0".</summary>
        public string EngineTag => NativeApi.fe_graph_engine_tag(Pointer);

        public bool IsBuilt
        {
            get
            {
                var flag = new int[1];
                Check.Ok(NativeApi.fe_graph_is_built(Pointer, flag));
                return flag[0] != 0;
            }
        }

        private long Count(System.Func<System.IntPtr, long[], fe_status> query)
        {
            var value = new long[1];
            Check.Ok(query(Pointer, value));
            return value[0];
        }
    }
}
