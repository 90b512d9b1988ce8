using System;
using System.Collections.Generic;

namespace CudnnFe.Examples
{
    /// <summary>
    /// Attention for inference (flash attention through cuDNN's fused engines):
    ///
    ///   O = softmax(Q.K^T / sqrt(d) + causal mask) V,   Q, K, V, O: 2 x 4 heads x 128 tokens x 64
    ///
    /// fp16 in and out, fp32 softmax. On a GPU it checks O against a CPU reference in double; without
    /// one it takes the build to the support check for an H100 description.
    /// </summary>
    public static class Sdpa
    {
        private const int B = 2, H = 4, S = 128, D = 64;

        public static int Main(string[] args) => Example.Run(() =>
        {
            var options = new GraphOptions
            {
                Name = "sdpa", IoDataType = DataType.Half, IntermediateDataType = DataType.Float,
                ComputeDataType = DataType.Float,
            };
            using (var graph = new Graph(options))
            {
                Tensor q = graph.Tensor("Q", B, H, S, D), k = graph.Tensor("K", B, H, S, D), v = graph.Tensor("V", B, H, S, D);
                Tensor o = graph.Sdpa(q, k, v, new SdpaOptions { AttnScale = 1.0 / Math.Sqrt(D), CausalMask = CausalMask.TopLeft })
                                .O.SetOutput(true);

                using (Handle handle = Example.Handle())
                {
                    if (handle == null) return Example.BuildDeviceless(graph, args);
                    graph.Build(handle);
                    Console.WriteLine("plan " + graph.EngineTag);
                    float[] qh, kh, vh;
                    using (DeviceBuffer qb = Example.Input(q, out qh), kb = Example.Input(k, out kh),
                                        vb = Example.Input(v, out vh), ob = Example.Output(o))
                    {
                        graph.Execute(handle, new Dictionary<Tensor, DeviceBuffer> { { q, qb }, { k, kb }, { v, vb }, { o, ob } });
                        handle.Synchronize();
                        return Example.Compare("causal attention 2x4x128x64", o, Example.Download(ob, o), Reference(qh, kh, vh),
                                               1e-2, 1e-2);
                    }
                }
            }
        });

        /// <summary>Row by row: scores of the keys up to the query (top-left causal), softmax, weighted sum of V.</summary>
        private static double[] Reference(float[] q, float[] k, float[] v)
        {
            var o = new double[B * H * S * D];
            double scale = 1.0 / Math.Sqrt(D);
            var p = new double[S];
            for (int bh = 0; bh < B * H; ++bh)
            {
                int baseIndex = bh * S * D;
                for (int i = 0; i < S; ++i)
                {
                    double max = double.NegativeInfinity;
                    for (int j = 0; j <= i; ++j)
                    {
                        double dot = 0;
                        for (int x = 0; x < D; ++x) dot += (double)q[baseIndex + i * D + x] * k[baseIndex + j * D + x];
                        p[j] = dot * scale;
                        max = Math.Max(max, p[j]);
                    }
                    double sum = 0;
                    for (int j = 0; j <= i; ++j) sum += p[j] = Math.Exp(p[j] - max);
                    for (int x = 0; x < D; ++x)
                    {
                        double acc = 0;
                        for (int j = 0; j <= i; ++j) acc += p[j] * v[baseIndex + j * D + x];
                        o[baseIndex + i * D + x] = acc / sum;
                    }
                }
            }
            return o;
        }
    }
}
