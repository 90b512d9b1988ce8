using System;

namespace CudnnFe.Examples
{
    /// <summary>
    /// The build, one step at a time, and execution by uid.
    ///
    /// Graph.Build is validate -> build the operation graph -> create execution plans (heuristics) ->
    /// check support -> build plans. Doing the steps yourself lets you see the candidates, limit the
    /// workspace, or build every plan. Tensors get fixed uids (0..3) and are bound by uid, so code
    /// that only keeps the uids can run the graph.
    /// </summary>
    public static class StepByStep
    {
        private const int B = 16, M = 128, N = 128, K = 512;
        private const long UidA = 0, UidB = 1, UidD = 2, UidC = 3;

        public static int Main(string[] args) => Example.Run(() =>
        {
            using (var graph = new Graph(new GraphOptions { Name = "step_by_step", IoDataType = DataType.Half }))
            {
                Tensor a = graph.Tensor("A", B, M, K).SetUid(UidA);
                Tensor b = graph.Tensor("B", B, K, N).SetUid(UidB);
                Tensor d = graph.Tensor("D", 1, M, N).SetUid(UidD);
                Tensor c = graph.Bias(graph.Matmul(a, b), d).SetOutput(true).SetUid(UidC);

                using (Handle handle = Example.Handle())
                {
                    if (handle == null) return Example.BuildDeviceless(graph, args); // the same steps, for an H100
                    graph.Validate();
                    graph.BuildOperationGraph(handle);
                    graph.CreateExecutionPlans(HeurMode.A, HeurMode.Fallback);
                    graph.CheckSupport();
                    graph.BuildPlans(BuildPolicy.All);
                    long workspace = graph.WorkspaceSize;
                    Console.WriteLine("{0} candidates, {1} viable, {2} plans built; using {3} with {4} bytes of workspace",
                                      graph.CandidateCount, graph.ViableCount, graph.PlanCount, graph.EngineTag, workspace);
                    float[] ah, bh, dh;
                    using (DeviceBuffer ab = Example.Input(a, out ah), bb = Example.Input(b, out bh),
                                        db = Example.Input(d, out dh), cb = Example.Output(c),
                                        // Our own workspace this time, of the size the plan asked for.
                                        wb = workspace > 0 ? DeviceBuffer.Allocate(0, workspace) : null)
                    {
                        long[] uids = { UidA, UidB, UidD, UidC };
                        IntPtr[] pointers = { ab.DevicePointer, bb.DevicePointer, db.DevicePointer, cb.DevicePointer };
                        graph.ExecuteByUid(handle, uids, pointers, wb == null ? IntPtr.Zero : wb.DevicePointer);
                        handle.Synchronize();
                        double[] want = Example.MatmulBias(ah, bh, dh, B, M, N, K);
                        return Example.Compare("step-by-step C = A x B + D, bound by uid", c, Example.Download(cb, c), want,
                                               2e-2, 1e-2);
                    }
                }
            }
        });
    }
}
