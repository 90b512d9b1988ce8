package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Normalization, convolution backward and a static plan built in the background on a GPU, checked
 * against CPU references.
 */
class GpuOperationsTest {
    private static void needGpu() {
        assumeTrue(TestSupport.cudnnAvailable() && TestSupport.gpuAvailable(), "needs a GPU");
    }

    private static float[] random(int n, long seed) {
        Random random = new Random(seed);
        float[] values = new float[n];
        for (int i = 0; i < n; ++i) values[i] = random.nextFloat() * 2 - 1;
        return values;
    }

    private static DeviceBuffer upload(Tensor t, float[] values) {
        DeviceBuffer buffer = DeviceBuffer.forTensor(0, t);
        buffer.upload(values, DataType.FLOAT);
        return buffer;
    }

    private static DeviceBuffer output(Tensor t) {
        DeviceBuffer buffer = DeviceBuffer.forTensor(0, t);
        buffer.fill((byte) 0xFF);
        return buffer;
    }

    private static void assertClose(String what, double[] want, float[] got, double tolerance) {
        assertEquals(want.length, got.length, what);
        for (int i = 0; i < want.length; ++i) {
            if (!(Math.abs(got[i] - want[i]) <= tolerance * (1 + Math.abs(want[i])))) {
                throw new AssertionError(what + "[" + i + "] is " + got[i] + ", expected " + want[i]);
            }
        }
    }

    @Test
    void layernormTrainingMatchesTheCpu() {
        needGpu();
        int rows = 64, hidden = 128;
        try (Handle handle = new Handle(0); Graph g = new Graph(new GraphOptions().ioDataType(DataType.FLOAT))) {
            Tensor x = g.tensor("x", rows, hidden);
            Tensor scale = g.tensor("scale", 1, hidden);
            Tensor bias = g.tensor("bias", 1, hidden);
            NormResult r = g.layernorm(x, scale, bias, new NormOptions().phase(NormPhase.TRAINING).epsilon(1e-5));
            r.y.setOutput(true);
            r.mean.setOutput(true);
            r.invVariance.setOutput(true);
            g.build(handle);
            float[] xh = random(rows * hidden, 1), sh = random(hidden, 2), bh = random(hidden, 3);
            try (DeviceBuffer xb = upload(x, xh); DeviceBuffer sb = upload(scale, sh); DeviceBuffer bb = upload(bias, bh);
                 DeviceBuffer yb = output(r.y); DeviceBuffer mb = output(r.mean); DeviceBuffer ib = output(r.invVariance)) {
                Map<Tensor, DeviceBuffer> buffers = new LinkedHashMap<>();
                buffers.put(x, xb);
                buffers.put(scale, sb);
                buffers.put(bias, bb);
                buffers.put(r.y, yb);
                buffers.put(r.mean, mb);
                buffers.put(r.invVariance, ib);
                g.execute(handle, buffers);
                handle.synchronize();
                double[] y = new double[rows * hidden], mean = new double[rows], inv = new double[rows];
                for (int i = 0; i < rows; ++i) {
                    double sum = 0, squares = 0;
                    for (int j = 0; j < hidden; ++j) sum += xh[i * hidden + j];
                    mean[i] = sum / hidden;
                    for (int j = 0; j < hidden; ++j) squares += Math.pow(xh[i * hidden + j] - mean[i], 2);
                    inv[i] = 1 / Math.sqrt(squares / hidden + 1e-5);
                    for (int j = 0; j < hidden; ++j) y[i * hidden + j] = (xh[i * hidden + j] - mean[i]) * inv[i] * sh[j] + bh[j];
                }
                assertClose("y", y, yb.downloadFloats(rows * hidden, DataType.FLOAT), 1e-4);
                assertClose("mean", mean, mb.downloadFloats(rows, DataType.FLOAT), 1e-4);
                assertClose("inv_variance", inv, ib.downloadFloats(rows, DataType.FLOAT), 1e-4);
            }
        }
    }

    @Test
    void convDgradMatchesTheCpu() {
        needGpu();
        int n = 2, k = 8, c = 4, h = 8, w = 8, r = 3, s = 3;
        try (Handle handle = new Handle(0); Graph g = new Graph(new GraphOptions().ioDataType(DataType.FLOAT))) {
            Tensor dy = g.tensor("dy", n, k, h, w);
            Tensor weight = g.tensor("w", k, c, r, s);
            Tensor dx = g.convDgrad(dy, weight, new long[] {n, c, h, w}, new ConvOptions().padding(1, 1));
            dx.setOutput(true);
            g.build(handle);
            float[] dyh = random(n * k * h * w, 4), wh = random(k * c * r * s, 5);
            try (DeviceBuffer dyb = upload(dy, dyh); DeviceBuffer wb = upload(weight, wh); DeviceBuffer dxb = output(dx)) {
                Map<Tensor, DeviceBuffer> buffers = new LinkedHashMap<>();
                buffers.put(dy, dyb);
                buffers.put(weight, wb);
                buffers.put(dx, dxb);
                g.execute(handle, buffers);
                handle.synchronize();
                // dx[n,c,y,x] = sum over k, r, s of dy[n,k,y-r+1,x-s+1] * w[k,c,r,s] (padding 1).
                double[] want = new double[n * c * h * w];
                for (int b = 0; b < n; ++b)
                    for (int ci = 0; ci < c; ++ci)
                        for (int y = 0; y < h; ++y)
                            for (int x = 0; x < w; ++x) {
                                double acc = 0;
                                for (int ki = 0; ki < k; ++ki)
                                    for (int ri = 0; ri < r; ++ri)
                                        for (int si = 0; si < s; ++si) {
                                            int oy = y - ri + 1, ox = x - si + 1;
                                            if (oy < 0 || oy >= h || ox < 0 || ox >= w) continue;
                                            acc += (double) dyh[((b * k + ki) * h + oy) * w + ox] * wh[((ki * c + ci) * r + ri) * s + si];
                                        }
                                want[((b * c + ci) * h + y) * w + x] = acc;
                            }
                // TF32 math is allowed for float convolutions: about 1e-3 relative.
                assertClose("dx", want, dxb.downloadFloats(want.length, DataType.FLOAT), 5e-3);
            }
        }
    }

    /** A float matmul [1, m, k] x [1, k, n] of random values, c against the CPU (TF32 allowed). */
    private static void executeMatmulAndCheck(Handle handle, Graph g, Tensor a, Tensor b, Tensor c, int m, int k,
                                              int n, long seed) {
        float[] ah = random(m * k, seed), bh = random(k * n, seed + 1);
        try (DeviceBuffer ab = upload(a, ah); DeviceBuffer bb = upload(b, bh); DeviceBuffer cb = output(c)) {
            Map<Tensor, DeviceBuffer> buffers = new LinkedHashMap<>();
            buffers.put(a, ab);
            buffers.put(b, bb);
            buffers.put(c, cb);
            g.execute(handle, buffers);
            handle.synchronize();
            double[] want = new double[m * n];
            for (int i = 0; i < m; ++i)
                for (int j = 0; j < n; ++j)
                    for (int l = 0; l < k; ++l) want[i * n + j] += (double) ah[i * k + l] * bh[l * n + j];
            assertClose("c", want, cb.downloadFloats(m * n, DataType.FLOAT), 2e-2);
        }
    }

    @Test
    void aStaticPlanBuiltInTheBackgroundTakesOverAndStaysRight() {
        needGpu();
        int m = 96, k = 64, n = 32;
        try (Handle handle = new Handle(0); KernelCache cache = new KernelCache();
             Graph g = new Graph(new GraphOptions().ioDataType(DataType.FLOAT))) {
            Tensor a = g.tensor("a", 1, m, k), b = g.tensor("b", 1, k, n);
            Tensor c = g.matmul(a, b, null);
            c.setOutput(true);
            g.build(handle, new BuildOptions().kernelCache(cache).backgroundStatic(true).usePlanCache(false));
            executeMatmulAndCheck(handle, g, a, b, c, m, k, n, 30);
            g.waitBackground();
            executeMatmulAndCheck(handle, g, a, b, c, m, k, n, 40);
            assertEquals(BackgroundState.SWITCHED, g.backgroundState());
        }
    }
}
