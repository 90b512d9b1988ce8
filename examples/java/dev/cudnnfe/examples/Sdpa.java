package dev.cudnnfe.examples;

import dev.cudnnfe.CausalMask;
import dev.cudnnfe.DataType;
import dev.cudnnfe.DeviceBuffer;
import dev.cudnnfe.Graph;
import dev.cudnnfe.GraphOptions;
import dev.cudnnfe.Handle;
import dev.cudnnfe.SdpaOptions;
import dev.cudnnfe.Tensor;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Attention for inference (flash attention through cuDNN's fused engines):
 *
 * <pre>O = softmax(Q.K^T / sqrt(d) + causal mask) V,   Q, K, V, O: 2 x 4 heads x 128 tokens x 64</pre>
 *
 * fp16 in and out, fp32 softmax. On a GPU it checks O against a CPU reference in double; without
 * one it takes the build to the support check for an H100 description.
 */
public final class Sdpa {
    private static final int B = 2, H = 4, S = 128, D = 64;

    public static void main(String[] args) {
        Example.main(() -> {
            try (Graph graph = new Graph(new GraphOptions().name("sdpa").ioDataType(DataType.HALF)
                    .intermediateDataType(DataType.FLOAT).computeDataType(DataType.FLOAT))) {
                Tensor q = graph.tensor("Q", B, H, S, D);
                Tensor k = graph.tensor("K", B, H, S, D);
                Tensor v = graph.tensor("V", B, H, S, D);
                Tensor o = graph.sdpa(q, k, v, new SdpaOptions().attnScale(1.0 / Math.sqrt(D))
                        .causalMask(CausalMask.TOP_LEFT)).o.setOutput(true);

                try (Handle handle = Example.handle()) {
                    if (handle == null) return Example.buildDeviceless(graph, args);
                    graph.build(handle);
                    System.out.println("plan " + graph.engineTag());

                    float[][] qh = new float[1][], kh = new float[1][], vh = new float[1][];
                    try (DeviceBuffer qb = Example.input(q, qh); DeviceBuffer kb = Example.input(k, kh);
                         DeviceBuffer vb = Example.input(v, vh); DeviceBuffer ob = Example.output(o)) {
                        Map<Tensor, DeviceBuffer> buffers = new LinkedHashMap<>();
                        buffers.put(q, qb);
                        buffers.put(k, kb);
                        buffers.put(v, vb);
                        buffers.put(o, ob);
                        graph.execute(handle, buffers);
                        handle.synchronize();
                        return Example.compare("causal attention 2x4x128x64", o, Example.download(ob, o),
                                reference(qh[0], kh[0], vh[0]), 1e-2, 1e-2);
                    }
                }
            }
        });
    }

    /** Row by row: scores of the keys up to the query (top-left causal), softmax, weighted sum of V. */
    private static double[] reference(float[] q, float[] k, float[] v) {
        double[] o = new double[B * H * S * D];
        double scale = 1.0 / Math.sqrt(D);
        double[] p = new double[S];
        for (int bh = 0; bh < B * H; ++bh) {
            int base = bh * S * D;
            for (int i = 0; i < S; ++i) {
                double max = Double.NEGATIVE_INFINITY;
                for (int j = 0; j <= i; ++j) {
                    double s = 0;
                    for (int x = 0; x < D; ++x) s += (double) q[base + i * D + x] * k[base + j * D + x];
                    p[j] = s * scale;
                    max = Math.max(max, p[j]);
                }
                double sum = 0;
                for (int j = 0; j <= i; ++j) sum += p[j] = Math.exp(p[j] - max);
                for (int x = 0; x < D; ++x) {
                    double acc = 0;
                    for (int j = 0; j <= i; ++j) acc += p[j] * v[base + j * D + x];
                    o[base + i * D + x] = acc / sum;
                }
            }
        }
        return o;
    }
}
