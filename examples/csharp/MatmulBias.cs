using System;

namespace CudnnFe.Examples
{
    /// <summary>
    /// Batched matmul with a bias, as in the cuDNN frontend's graph API notebook:
    ///
    ///   C[b] = A[b] x B[b] + D,   A 16x128x512, B 16x512x128, D 1x128x128 (broadcast over b)
    ///
    /// fp16 in and out, fp32 intermediate and math. The matmul's result is virtual: cuDNN fuses the
    /// bias into the matmul's epilogue, one kernel.
    /// </summary>
    public static class MatmulBias
    {
        private const int B = 16, M = 128, N = 128, K = 512;

        public static int Main(string[] args) => Example.Run(() =>
        {
            var options = new GraphOptions
            {
                Name = "matmul_bias", IoDataType = DataType.Half, IntermediateDataType = DataType.Float,
                ComputeDataType = DataType.Float,
            };
            using (var graph = new Graph(options))
            {
                Tensor a = graph.Tensor("A", B, M, K); // packed strides
                Tensor b = graph.Tensor("B", B, K, N);
                Tensor d = graph.Tensor("D", 1, M, N);
                Tensor c = graph.Bias(graph.Matmul(a, b), d).SetOutput(true);

                using (Handle handle = Example.Handle())
                {
                    if (handle == null) return Example.BuildDeviceless(graph, args);
                    graph.Build(handle, new BuildOptions { HeurModes = new[] { HeurMode.A } });
                    Console.WriteLine("plan " + graph.EngineTag);
                    float[] ah, bh, dh;
                    using (DeviceBuffer ab = Example.Input(a, out ah), bb = Example.Input(b, out bh),
                                        db = Example.Input(d, out dh), cb = Example.Output(c))
                    {
                        // Bound by device pointer, as code with its own CUDA memory would.
                        graph.Execute(handle, new[] { a, b, d, c },
                                      new[] { ab.DevicePointer, bb.DevicePointer, db.DevicePointer, cb.DevicePointer });
                        handle.Synchronize();
                        double[] want = Example.MatmulBias(ah, bh, dh, B, M, N, K);
                        return Example.Compare("C = A x B + D", c, Example.Download(cb, c), want, 2e-2, 1e-2);
                    }
                }
            }
        });
    }
}
