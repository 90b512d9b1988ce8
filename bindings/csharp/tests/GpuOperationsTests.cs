using System;
using System.Collections.Generic;
using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>Normalization, convolution backward and a static plan built in the background on a GPU,
    /// checked against CPU references.</summary>
    [TestFixture]
    public class GpuOperationsTests
    {
        [SetUp]
        public void NeedGpu()
        {
            if (!TestSupport.CudnnAvailable()) Assert.Ignore("cuDNN is not loadable here");
            TestSupport.NeedGpu();
        }

        private static float[] Random(int n, int seed)
        {
            var random = new Random(seed);
            var values = new float[n];
            for (int i = 0; i < n; ++i) values[i] = (float)(random.NextDouble() * 2 - 1);
            return values;
        }

        private static DeviceBuffer Upload(Tensor t, float[] values)
        {
            DeviceBuffer buffer = DeviceBuffer.For(0, t);
            buffer.Upload(values, DataType.Float);
            return buffer;
        }

        private static DeviceBuffer Output(Tensor t)
        {
            DeviceBuffer buffer = DeviceBuffer.For(0, t);
            buffer.Fill(0xFF);
            return buffer;
        }

        private static void AssertClose(string what, double[] want, float[] got, double tolerance)
        {
            Assert.AreEqual(want.Length, got.Length, what);
            for (int i = 0; i < want.Length; ++i)
                if (!(Math.Abs(got[i] - want[i]) <= tolerance * (1 + Math.Abs(want[i]))))
                    Assert.Fail(what + "[" + i + "] is " + got[i] + ", expected " + want[i]);
        }

        [Test]
        public void LayernormTrainingMatchesTheCpu()
        {
            const int rows = 64, hidden = 128;
            using (var handle = new Handle(0))
            using (var g = new Graph(new GraphOptions { IoDataType = DataType.Float }))
            {
                Tensor x = g.Tensor("x", rows, hidden), scale = g.Tensor("scale", 1, hidden), bias = g.Tensor("bias", 1, hidden);
                NormResult r = g.Layernorm(x, scale, bias, new NormOptions { Phase = NormPhase.Training, Epsilon = 1e-5 });
                r.Y.SetOutput(true);
                r.Mean.SetOutput(true);
                r.InvVariance.SetOutput(true);
                g.Build(handle);
                float[] xh = Random(rows * hidden, 1), sh = Random(hidden, 2), bh = Random(hidden, 3);
                using (DeviceBuffer xb = Upload(x, xh), sb = Upload(scale, sh), bb = Upload(bias, bh),
                       yb = Output(r.Y), mb = Output(r.Mean), ib = Output(r.InvVariance))
                {
                    g.Execute(handle, new Dictionary<Tensor, DeviceBuffer>
                    {
                        { x, xb }, { scale, sb }, { bias, bb }, { r.Y, yb }, { r.Mean, mb }, { r.InvVariance, ib },
                    });
                    handle.Synchronize();
                    double[] y = new double[rows * hidden], mean = new double[rows], inv = new double[rows];
                    for (int i = 0; i < rows; ++i)
                    {
                        double sum = 0, squares = 0;
                        for (int j = 0; j < hidden; ++j) sum += xh[i * hidden + j];
                        mean[i] = sum / hidden;
                        for (int j = 0; j < hidden; ++j) squares += Math.Pow(xh[i * hidden + j] - mean[i], 2);
                        inv[i] = 1 / Math.Sqrt(squares / hidden + 1e-5);
                        for (int j = 0; j < hidden; ++j) y[i * hidden + j] = (xh[i * hidden + j] - mean[i]) * inv[i] * sh[j] + bh[j];
                    }
                    AssertClose("y", y, yb.DownloadFloats(rows * hidden, DataType.Float), 1e-4);
                    AssertClose("mean", mean, mb.DownloadFloats(rows, DataType.Float), 1e-4);
                    AssertClose("inv_variance", inv, ib.DownloadFloats(rows, DataType.Float), 1e-4);
                }
            }
        }

        [Test]
        public void ConvDgradMatchesTheCpu()
        {
            const int n = 2, k = 8, c = 4, h = 8, w = 8, r = 3, s = 3;
            using (var handle = new Handle(0))
            using (var g = new Graph(new GraphOptions { IoDataType = DataType.Float }))
            {
                Tensor dy = g.Tensor("dy", n, k, h, w), weight = g.Tensor("w", k, c, r, s);
                Tensor dx = g.ConvDgrad(dy, weight, new long[] { n, c, h, w }, new ConvOptions { Padding = new long[] { 1, 1 } });
                dx.SetOutput(true);
                g.Build(handle);
                float[] dyh = Random(n * k * h * w, 4), wh = Random(k * c * r * s, 5);
                using (DeviceBuffer dyb = Upload(dy, dyh), wb = Upload(weight, wh), dxb = Output(dx))
                {
                    g.Execute(handle, new Dictionary<Tensor, DeviceBuffer> { { dy, dyb }, { weight, wb }, { dx, dxb } });
                    handle.Synchronize();
                    // dx[n,c,y,x] = sum over k, r, s of dy[n,k,y-r+1,x-s+1] * w[k,c,r,s] (padding 1).
                    var want = new double[n * c * h * w];
                    for (int b = 0; b < n; ++b)
                        for (int ci = 0; ci < c; ++ci)
                            for (int y = 0; y < h; ++y)
                                for (int x = 0; x < w; ++x)
                                {
                                    double acc = 0;
                                    for (int ki = 0; ki < k; ++ki)
                                        for (int ri = 0; ri < r; ++ri)
                                            for (int si = 0; si < s; ++si)
                                            {
                                                int oy = y - ri + 1, ox = x - si + 1;
                                                if (oy < 0 || oy >= h || ox < 0 || ox >= w) continue;
                                                acc += (double)dyh[((b * k + ki) * h + oy) * w + ox] * wh[((ki * c + ci) * r + ri) * s + si];
                                            }
                                    want[((b * c + ci) * h + y) * w + x] = acc;
                                }
                    // TF32 math is allowed for float convolutions: about 1e-3 relative.
                    AssertClose("dx", want, dxb.DownloadFloats(want.Length, DataType.Float), 5e-3);
                }
            }
        }
    
        // A float matmul [1, m, k] x [1, k, n] of random values, c against the CPU (TF32 allowed).
        private static void ExecuteMatmulAndCheck(Handle handle, Graph g, Tensor a, Tensor b, Tensor c, int m, int k, int n, int seed)
        {
            float[] ah = Random(m * k, seed), bh = Random(k * n, seed + 1);
            using (DeviceBuffer ab = Upload(a, ah), bb = Upload(b, bh), cb = Output(c))
            {
                g.Execute(handle, new Dictionary<Tensor, DeviceBuffer> { { a, ab }, { b, bb }, { c, cb } });
                handle.Synchronize();
                var want = new double[m * n];
                for (int i = 0; i < m; ++i)
                    for (int j = 0; j < n; ++j)
                        for (int l = 0; l < k; ++l) want[i * n + j] += (double)ah[i * k + l] * bh[l * n + j];
                AssertClose("c", want, cb.DownloadFloats(m * n, DataType.Float), 2e-2);
            }
        }

        [Test]
        public void AStaticPlanBuiltInTheBackgroundTakesOverAndStaysRight()
        {
            const int m = 96, k = 64, n = 32;
            using (var handle = new Handle(0))
            using (var cache = new KernelCache())
            using (var g = new Graph(new GraphOptions { IoDataType = DataType.Float }))
            {
                Tensor a = g.Tensor("a", 1, m, k), b = g.Tensor("b", 1, k, n);
                Tensor c = g.Matmul(a, b);
                c.SetOutput(true);
                g.Build(handle, new BuildOptions { KernelCache = cache, BackgroundStatic = true, UsePlanCache = false });
                ExecuteMatmulAndCheck(handle, g, a, b, c, m, k, n, 30);
                g.WaitBackground();
                ExecuteMatmulAndCheck(handle, g, a, b, c, m, k, n, 40);
                Assert.AreEqual(BackgroundState.Switched, g.BackgroundState);
            }
        }
    }
}
