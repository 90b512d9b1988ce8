package dev.cudnnfe.examples;

import dev.cudnnfe.ConvOptions;
import dev.cudnnfe.DataType;
import dev.cudnnfe.DeviceBuffer;
import dev.cudnnfe.Graph;
import dev.cudnnfe.GraphOptions;
import dev.cudnnfe.Handle;
import dev.cudnnfe.Tensor;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A convolution layer's training step: the forward pass, the data gradient (dgrad, what the layer
 * below receives) and the weight gradient (wgrad, what the optimizer applies), each one graph.
 *
 * <pre>x 2x8x12x12 * w 16x8x3x3, padding 1 -> y 2x16x12x12; dy -> dx 2x8x12x12 and dw 16x8x3x3</pre>
 *
 * On a GPU each runs and is checked against a CPU reference; without one each plan is built for an
 * H100 description.
 */
public final class ConvTraining {
    private static final int N = 2, C = 8, K = 16, H = 12, W = 12, R = 3, S = 3;
    private static final ConvOptions LAYER = new ConvOptions().padding(1, 1);

    public static void main(String[] args) {
        Example.main(() -> {
            try (Handle handle = Example.handle();
                 Graph fprop = new Graph(options("conv_fprop"));
                 Graph dgrad = new Graph(options("conv_dgrad"));
                 Graph wgrad = new Graph(options("conv_wgrad"))) {
                Tensor x = fprop.tensor("x", N, C, H, W);
                Tensor w = fprop.tensor("w", K, C, R, S);
                Tensor y = fprop.convFprop(x, w, LAYER).setOutput(true);

                Tensor dy = dgrad.tensor("dy", N, K, H, W);
                Tensor wd = dgrad.tensor("w", K, C, R, S);
                Tensor dx = dgrad.convDgrad(dy, wd, new long[] {N, C, H, W}, LAYER).setOutput(true);

                Tensor xw = wgrad.tensor("x", N, C, H, W);
                Tensor dyw = wgrad.tensor("dy", N, K, H, W);
                Tensor dw = wgrad.convWgrad(xw, dyw, null, LAYER).setOutput(true); // 3x3 inferred at stride 1

                if (handle == null) {
                    for (Graph graph : new Graph[] {fprop, dgrad, wgrad}) {
                        int code = Example.buildDeviceless(graph, args);
                        if (code != 0) return code;
                    }
                    return 0;
                }
                for (Graph graph : new Graph[] {fprop, dgrad, wgrad}) graph.build(handle);

                float[][] xh = new float[1][], wh = new float[1][], dyh = new float[1][];
                try (DeviceBuffer xb = Example.input(x, xh); DeviceBuffer wb = Example.input(w, wh);
                     DeviceBuffer dyb = Example.input(dy, dyh); DeviceBuffer yb = Example.output(y);
                     DeviceBuffer dxb = Example.output(dx); DeviceBuffer dwb = Example.output(dw)) {
                    run(handle, fprop, x, xb, w, wb, y, yb);
                    run(handle, dgrad, dy, dyb, wd, wb, dx, dxb);
                    run(handle, wgrad, xw, xb, dyw, dyb, dw, dwb);
                    handle.synchronize();
                    Reference ref = new Reference(xh[0], wh[0], dyh[0]);
                    // Float data, TF32 or float math: about 1e-3 relative.
                    int failures = Example.compare("conv fprop", y, Example.download(yb, y), ref.y, 1e-2, 1e-2)
                            + Example.compare("conv dgrad", dx, Example.download(dxb, dx), ref.dx, 1e-2, 1e-2)
                            + Example.compare("conv wgrad", dw, Example.download(dwb, dw), ref.dw, 5e-2, 1e-2);
                    return failures == 0 ? 0 : 1;
                }
            }
        });
    }

    private static GraphOptions options(String name) {
        return new GraphOptions().name(name).ioDataType(DataType.FLOAT).computeDataType(DataType.FLOAT);
    }

    private static void run(Handle handle, Graph graph, Tensor a, DeviceBuffer ab, Tensor b, DeviceBuffer bb, Tensor out,
                            DeviceBuffer outb) {
        Map<Tensor, DeviceBuffer> buffers = new LinkedHashMap<>();
        buffers.put(a, ab);
        buffers.put(b, bb);
        buffers.put(out, outb);
        graph.execute(handle, buffers);
    }

    /** The three results on the CPU, from one loop over every (image, output, filter) triple. */
    private static final class Reference {
        final double[] y = new double[N * K * H * W];
        final double[] dx = new double[N * C * H * W];
        final double[] dw = new double[K * C * R * S];

        Reference(float[] x, float[] w, float[] dy) {
            for (int n = 0; n < N; ++n)
                for (int k = 0; k < K; ++k)
                    for (int h = 0; h < H; ++h)
                        for (int v = 0; v < W; ++v)
                            for (int c = 0; c < C; ++c)
                                for (int r = 0; r < R; ++r)
                                    for (int s = 0; s < S; ++s) {
                                        int ih = h + r - 1, iw = v + s - 1;
                                        if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                        int xi = ((n * C + c) * H + ih) * W + iw;
                                        int wi = ((k * C + c) * R + r) * S + s;
                                        int yi = ((n * K + k) * H + h) * W + v;
                                        y[yi] += (double) x[xi] * w[wi];
                                        dx[xi] += (double) dy[yi] * w[wi];
                                        dw[wi] += (double) dy[yi] * x[xi];
                                    }
        }
    }
}
