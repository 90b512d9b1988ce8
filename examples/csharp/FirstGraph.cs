using System.Collections.Generic;

namespace CudnnFe.Examples
{
    /// <summary>
    /// The first graph: one 2-D convolution, as in the cuDNN frontend's introduction.
    ///
    ///   image 8x64x56x56 * weight 32x64x3x3, padding 1, stride 1 -> 8x32x56x56
    ///
    /// fp16 inputs and outputs, fp32 math, channels-last (NHWC) memory. On a GPU it runs and checks
    /// every output against a CPU reference; without one it builds the plan for an H100 description.
    /// </summary>
    public static class FirstGraph
    {
        private const int N = 8, C = 64, H = 56, W = 56, K = 32, R = 3, S = 3;

        public static int Main(string[] args) => Example.Run(() =>
        {
            using (var graph = new Graph(new GraphOptions { Name = "first_graph", IoDataType = DataType.Half, ComputeDataType = DataType.Float }))
            {
                // Logical dims are N, C, H, W; the strides make the memory NHWC.
                long[] xDims = { N, C, H, W }, wDims = { K, C, R, S };
                Tensor x = graph.Tensor("image", xDims, Library.StridesChannelsLast(xDims), DataType.NotSet);
                Tensor w = graph.Tensor("weight", wDims, Library.StridesChannelsLast(wDims), DataType.NotSet);
                Tensor y = graph.ConvFprop(x, w, new ConvOptions { Padding = new long[] { 1, 1 } }); // dims and layout inferred
                y.SetOutput(true);                                                                   // else y stays virtual

                using (Handle handle = Example.Handle())
                {
                    if (handle == null) return Example.BuildDeviceless(graph, args);
                    graph.Build(handle); // heuristics A, then Fallback
                    System.Console.WriteLine("plan " + graph.EngineTag);
                    float[] xh, wh;
                    using (DeviceBuffer xb = Example.Input(x, out xh), wb = Example.Input(w, out wh), yb = Example.Output(y))
                    {
                        graph.Execute(handle, new Dictionary<Tensor, DeviceBuffer> { { x, xb }, { w, wb }, { y, yb } });
                        handle.Synchronize();
                        // 576 fp16 products summed in fp32, rounded to fp16: about 1e-3 relative.
                        return Example.Compare("conv 8x64x56x56 * 32x64x3x3", y, Example.Download(yb, y),
                                               Reference(x, xh, w, wh), 2e-2, 1e-2);
                    }
                }
            }
        });

        /// <summary>y[n,k,h,w] = sum over c, r, s of x[n,c,h+r-1,w+s-1] * w[k,c,r,s] (zero padding of 1).</summary>
        private static double[] Reference(Tensor x, float[] xh, Tensor w, float[] wh)
        {
            long[] xs = x.Strides, ws = w.Strides;
            var y = new double[N * K * H * W];
            for (int n = 0; n < N; ++n)
                for (int k = 0; k < K; ++k)
                    for (int h = 0; h < H; ++h)
                        for (int v = 0; v < W; ++v)
                        {
                            double acc = 0;
                            for (int c = 0; c < C; ++c)
                                for (int r = 0; r < R; ++r)
                                    for (int s = 0; s < S; ++s)
                                    {
                                        int ih = h + r - 1, iw = v + s - 1;
                                        if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                        acc += (double)xh[n * xs[0] + c * xs[1] + ih * xs[2] + iw * xs[3]] *
                                               wh[k * ws[0] + c * ws[1] + r * ws[2] + s * ws[3]];
                                    }
                            y[((n * K + k) * H + h) * W + v] = acc;
                        }
            return y;
        }
    }
}
