package dev.cudnnfe.examples;

import dev.cudnnfe.ConvOptions;
import dev.cudnnfe.CudnnFe;
import dev.cudnnfe.DataType;
import dev.cudnnfe.DeviceBuffer;
import dev.cudnnfe.Graph;
import dev.cudnnfe.GraphOptions;
import dev.cudnnfe.Handle;
import dev.cudnnfe.Tensor;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The first graph: one 2-D convolution, as in the cuDNN frontend's introduction.
 *
 * <pre>image 8x64x56x56 * weight 32x64x3x3, padding 1, stride 1 -> 8x32x56x56</pre>
 *
 * fp16 inputs and outputs, fp32 math, channels-last (NHWC) memory. On a GPU it runs and checks
 * every output against a CPU reference; without one it builds the plan for an H100 description.
 */
public final class FirstGraph {
    private static final int N = 8, C = 64, H = 56, W = 56, K = 32, R = 3, S = 3;

    public static void main(String[] args) {
        Example.main(() -> {
            try (Graph graph = new Graph(new GraphOptions().name("first_graph").ioDataType(DataType.HALF)
                    .computeDataType(DataType.FLOAT))) {
                // Logical dims are N, C, H, W; the strides make the memory NHWC.
                long[] xDims = {N, C, H, W};
                long[] wDims = {K, C, R, S};
                Tensor x = graph.tensor("image", xDims, CudnnFe.stridesChannelsLast(xDims), DataType.NOT_SET);
                Tensor w = graph.tensor("weight", wDims, CudnnFe.stridesChannelsLast(wDims), DataType.NOT_SET);
                Tensor y = graph.convFprop(x, w, new ConvOptions().padding(1, 1)); // dims and layout inferred
                y.setOutput(true);                                                  // else y stays virtual

                try (Handle handle = Example.handle()) {
                    if (handle == null) return Example.buildDeviceless(graph, args);
                    graph.build(handle); // heuristics A, then FALLBACK
                    System.out.println("plan " + graph.engineTag());

                    float[][] xh = new float[1][];
                    float[][] wh = new float[1][];
                    try (DeviceBuffer xb = Example.input(x, xh); DeviceBuffer wb = Example.input(w, wh);
                         DeviceBuffer yb = Example.output(y)) {
                        Map<Tensor, DeviceBuffer> buffers = new LinkedHashMap<>();
                        buffers.put(x, xb);
                        buffers.put(w, wb);
                        buffers.put(y, yb);
                        graph.execute(handle, buffers);
                        handle.synchronize();
                        double[] want = reference(x, xh[0], w, wh[0]);
                        // 576 fp16 products summed in fp32, rounded to fp16: about 1e-3 relative.
                        return Example.compare("conv 8x64x56x56 * 32x64x3x3", y, Example.download(yb, y), want, 2e-2, 1e-2);
                    }
                }
            }
        });
    }

    /** y[n,k,h,w] = sum over c, r, s of x[n,c,h+r-1,w+s-1] * w[k,c,r,s] (zero padding of 1). */
    private static double[] reference(Tensor x, float[] xh, Tensor w, float[] wh) {
        long[] xs = x.strides();
        long[] ws = w.strides();
        double[] y = new double[N * K * H * W];
        for (int n = 0; n < N; ++n)
            for (int k = 0; k < K; ++k)
                for (int h = 0; h < H; ++h)
                    for (int v = 0; v < W; ++v) {
                        double acc = 0;
                        for (int c = 0; c < C; ++c)
                            for (int r = 0; r < R; ++r)
                                for (int s = 0; s < S; ++s) {
                                    int ih = h + r - 1, iw = v + s - 1;
                                    if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                    acc += (double) xh[(int) (n * xs[0] + c * xs[1] + ih * xs[2] + iw * xs[3])]
                                            * wh[(int) (k * ws[0] + c * ws[1] + r * ws[2] + s * ws[3])];
                                }
                        y[((n * K + k) * H + h) * W + v] = acc;
                    }
        return y;
    }
}
