using System.Collections.Generic;

namespace CudnnFe.Examples
{
    /// <summary>
    /// A convolution layer's training step: the forward pass, the data gradient (dgrad, what the layer
    /// below receives) and the weight gradient (wgrad, what the optimizer applies), each one graph.
    ///
    ///   x 2x8x12x12 * w 16x8x3x3, padding 1 -> y 2x16x12x12; dy -> dx 2x8x12x12 and dw 16x8x3x3
    ///
    /// On a GPU each runs and is checked against a CPU reference; without one each plan is built for
    /// an H100 description.
    /// </summary>
    public static class ConvTraining
    {
        private const int N = 2, C = 8, K = 16, H = 12, W = 12, R = 3, S = 3;

        private static ConvOptions Layer() => new ConvOptions { Padding = new long[] { 1, 1 } };

        private static GraphOptions Options(string name) =>
            new GraphOptions { Name = name, IoDataType = DataType.Float, ComputeDataType = DataType.Float };

        public static int Main(string[] args) => Example.Run(() =>
        {
            using (Handle handle = Example.Handle())
            using (Graph fprop = new Graph(Options("conv_fprop")), dgrad = new Graph(Options("conv_dgrad")), wgrad = new Graph(Options("conv_wgrad")))
            {
                Tensor x = fprop.Tensor("x", N, C, H, W), w = fprop.Tensor("w", K, C, R, S);
                Tensor y = fprop.ConvFprop(x, w, Layer()).SetOutput(true);

                Tensor dy = dgrad.Tensor("dy", N, K, H, W), wd = dgrad.Tensor("w", K, C, R, S);
                Tensor dx = dgrad.ConvDgrad(dy, wd, new long[] { N, C, H, W }, Layer()).SetOutput(true);

                Tensor xw = wgrad.Tensor("x", N, C, H, W), dyw = wgrad.Tensor("dy", N, K, H, W);
                Tensor dw = wgrad.ConvWgrad(xw, dyw, null, Layer()).SetOutput(true); // 3x3 inferred at stride 1

                if (handle == null)
                {
                    foreach (Graph graph in new[] { fprop, dgrad, wgrad })
                    {
                        int code = Example.BuildDeviceless(graph, args);
                        if (code != 0) return code;
                    }
                    return 0;
                }
                foreach (Graph graph in new[] { fprop, dgrad, wgrad }) graph.Build(handle);

                float[] xh, wh, dyh;
                using (DeviceBuffer xb = Example.Input(x, out xh), wb = Example.Input(w, out wh), dyb = Example.Input(dy, out dyh),
                       yb = Example.Output(y), dxb = Example.Output(dx), dwb = Example.Output(dw))
                {
                    fprop.Execute(handle, new Dictionary<Tensor, DeviceBuffer> { { x, xb }, { w, wb }, { y, yb } });
                    dgrad.Execute(handle, new Dictionary<Tensor, DeviceBuffer> { { dy, dyb }, { wd, wb }, { dx, dxb } });
                    wgrad.Execute(handle, new Dictionary<Tensor, DeviceBuffer> { { xw, xb }, { dyw, dyb }, { dw, dwb } });
                    handle.Synchronize();
                    double[] yr, dxr, dwr;
                    Reference(xh, wh, dyh, out yr, out dxr, out dwr);
                    // Float data, TF32 or float math: about 1e-3 relative.
                    int failures = Example.Compare("conv fprop", y, Example.Download(yb, y), yr, 1e-2, 1e-2)
                                   + Example.Compare("conv dgrad", dx, Example.Download(dxb, dx), dxr, 1e-2, 1e-2)
                                   + Example.Compare("conv wgrad", dw, Example.Download(dwb, dw), dwr, 5e-2, 1e-2);
                    return failures == 0 ? 0 : 1;
                }
            }
        });

        /// <summary>The three results on the CPU, from one loop over every (image, output, filter) triple.</summary>
        private static void Reference(float[] x, float[] w, float[] dy, out double[] y, out double[] dx, out double[] dw)
        {
            y = new double[N * K * H * W];
            dx = new double[N * C * H * W];
            dw = new double[K * C * R * S];
            for (int n = 0; n < N; ++n)
                for (int k = 0; k < K; ++k)
                    for (int h = 0; h < H; ++h)
                        for (int v = 0; v < W; ++v)
                            for (int c = 0; c < C; ++c)
                                for (int r = 0; r < R; ++r)
                                    for (int s = 0; s < S; ++s)
                                    {
                                        int ih = h + r - 1, iw = v + s - 1;
                                        if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                        int xi = ((n * C + c) * H + ih) * W + iw, wi = ((k * C + c) * R + r) * S + s;
                                        int yi = ((n * K + k) * H + h) * W + v;
                                        y[yi] += (double)x[xi] * w[wi];
                                        dx[xi] += (double)dy[yi] * w[wi];
                                        dw[wi] += (double)dy[yi] * x[xi];
                                    }
        }
    }
}
