using System;
using System.Collections.Generic;
using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>Execution on a GPU against a CPU reference (ignored without a GPU).</summary>
    [TestFixture]
    public class ExecuteTests
    {
        private const int B = 2, M = 32, K = 64, N = 16;

        [Test]
        public void MatmulWithBiasMatchesTheCpuEveryWayItIsBound()
        {
            TestSupport.NeedGpu();
            var random = new Random();
            using (var handle = new Handle(0))
            using (var graph = new Graph(new GraphOptions { Name = "matmul_bias", IoDataType = DataType.Half }))
            {
                Tensor a = graph.Tensor("A", B, M, K).SetUid(1), b = graph.Tensor("B", B, K, N).SetUid(2);
                Tensor d = graph.Tensor("D", 1, M, N).SetUid(3);
                Tensor c = graph.Bias(graph.Matmul(a, b), d).SetOutput(true).SetUid(4);
                graph.Build(handle);
                Tensor[] tensors = { a, b, d, c };
                var buffers = new Dictionary<Tensor, DeviceBuffer>();
                try
                {
                    foreach (Tensor t in tensors) buffers[t] = DeviceBuffer.For(0, t);
                    float[] ah = Upload(buffers[a], B * M * K, random), bh = Upload(buffers[b], B * K * N, random);
                    float[] dh = Upload(buffers[d], M * N, random);
                    double[] want = Reference(ah, bh, dh);
                    IntPtr[] pointers = Array.ConvertAll(tensors, t => buffers[t].DevicePointer);
                    var runs = new Dictionary<string, Action>
                    {
                        { "buffers", () => graph.Execute(handle, buffers) },
                        { "pointers", () => graph.Execute(handle, tensors, pointers) },
                        { "uids", () => graph.ExecuteByUid(handle, new long[] { 1, 2, 3, 4 }, pointers) },
                        { "positional", () => graph.ExecutePositional(handle, pointers) },
                    };
                    foreach (var run in runs)
                    {
                        buffers[c].Fill(0xFF);
                        run.Value();
                        handle.Synchronize();
                        float[] got = buffers[c].DownloadFloats(B * M * N, DataType.Half);
                        for (int i = 0; i < want.Length; ++i)
                            Assert.LessOrEqual(Math.Abs(got[i] - want[i]), 2e-2 + 1e-2 * Math.Abs(want[i]),
                                               run.Key + ": element " + i);
                    }
                }
                finally
                {
                    foreach (DeviceBuffer buffer in buffers.Values) buffer.Dispose();
                }
            }
        }

        [Test]
        public void ExecutingBeforeBuildingIsBadState()
        {
            TestSupport.NeedGpu();
            using (var handle = new Handle(0))
            using (var graph = new Graph())
            {
                TestSupport.AssertFails(Status.BadState, "Graph.Execute", () => graph.ExecutePositional(handle, new IntPtr[0]));
                Assert.AreEqual(0, handle.Device);
                handle.Stream = IntPtr.Zero;
                Assert.AreEqual(IntPtr.Zero, handle.Stream);
            }
        }

        /// <summary>The CUDA-graph calls pass their arguments as C takes them: an unbuilt graph is
        /// BadState, a NULL CUDA graph is refused naming the call, and warming up a built graph works.</summary>
        [Test]
        public void CudaGraphCallsCheckTheirArguments()
        {
            TestSupport.NeedGpu();
            using (var handle = new Handle(0))
            using (var graph = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                TestSupport.AssertFails(Status.BadState, "Graph.Warmup", () => graph.Warmup(handle));
                var x = graph.Tensor("x", 64, 64);
                var y = graph.Relu(x).SetOutput(true);
                graph.Build(handle);
                graph.Warmup(handle);
                using (var input = DeviceBuffer.For(0, x))
                using (var output = DeviceBuffer.For(0, y))
                {
                    var tensors = new[] { x, y };
                    var pointers = new[] { input.DevicePointer, output.DevicePointer };
                    TestSupport.AssertNullArgument("cudaGraph", "Graph.PopulateCudaGraph: cudaGraph is null",
                        () => graph.PopulateCudaGraph(handle, tensors, pointers, IntPtr.Zero, IntPtr.Zero));
                    TestSupport.AssertNullArgument("cudaGraph", "Graph.UpdateCudaGraph: cudaGraph is null",
                        () => graph.UpdateCudaGraph(handle, tensors, pointers, IntPtr.Zero, IntPtr.Zero));
                }
            }
        }

        /// <summary>Uniform values in [-1, 1) uploaded as half, returned as the device holds them.</summary>
        private static float[] Upload(DeviceBuffer buffer, int count, Random random)
        {
            var values = new float[count];
            for (int i = 0; i < count; ++i) values[i] = (float)(random.NextDouble() * 2 - 1);
            buffer.Upload(values, DataType.Half);
            buffer.Download(values, DataType.Half);
            return values;
        }

        private static double[] Reference(float[] a, float[] b, float[] d)
        {
            var c = new double[B * M * N];
            for (int i = 0; i < B; ++i)
                for (int m = 0; m < M; ++m)
                    for (int n = 0; n < N; ++n)
                    {
                        double acc = d[m * N + n];
                        for (int k = 0; k < K; ++k) acc += (double)a[(i * M + m) * K + k] * b[(i * K + k) * N + n];
                        c[(i * M + m) * N + n] = acc;
                    }
            return c;
        }
    }
}
