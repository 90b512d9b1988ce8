package dev.cudnnfe.examples;

import dev.cudnnfe.BuildOptions;
import dev.cudnnfe.DataType;
import dev.cudnnfe.DeviceBuffer;
import dev.cudnnfe.Graph;
import dev.cudnnfe.GraphOptions;
import dev.cudnnfe.Handle;
import dev.cudnnfe.HeurMode;
import dev.cudnnfe.Tensor;

/**
 * Batched matmul with a bias, as in the cuDNN frontend's graph API notebook:
 *
 * <pre>C[b] = A[b] x B[b] + D,   A 16x128x512, B 16x512x128, D 1x128x128 (broadcast over b)</pre>
 *
 * fp16 in and out, fp32 intermediate and math. The matmul's result is virtual: cuDNN fuses the bias
 * into the matmul's epilogue, one kernel.
 */
public final class MatmulBias {
    private static final int B = 16, M = 128, N = 128, K = 512;

    public static void main(String[] args) {
        Example.main(() -> {
            try (Graph graph = new Graph(new GraphOptions().name("matmul_bias").ioDataType(DataType.HALF)
                    .intermediateDataType(DataType.FLOAT).computeDataType(DataType.FLOAT))) {
                Tensor a = graph.tensor("A", B, M, K); // packed strides
                Tensor b = graph.tensor("B", B, K, N);
                Tensor d = graph.tensor("D", 1, M, N);
                Tensor c = graph.bias(graph.matmul(a, b), d).setOutput(true);

                try (Handle handle = Example.handle()) {
                    if (handle == null) return Example.buildDeviceless(graph, args);
                    graph.build(handle, new BuildOptions().heurModes(HeurMode.A));
                    System.out.println("plan " + graph.engineTag());

                    float[][] ah = new float[1][], bh = new float[1][], dh = new float[1][];
                    try (DeviceBuffer ab = Example.input(a, ah); DeviceBuffer bb = Example.input(b, bh);
                         DeviceBuffer db = Example.input(d, dh); DeviceBuffer cb = Example.output(c)) {
                        // Bound by device pointer, as code with its own CUDA memory would.
                        graph.execute(handle, new Tensor[] {a, b, d, c},
                                new long[] {ab.devicePointer(), bb.devicePointer(), db.devicePointer(), cb.devicePointer()}, 0);
                        handle.synchronize();
                        double[] want = Example.matmulBias(ah[0], bh[0], dh[0], B, M, N, K);
                        return Example.compare("C = A x B + D", c, Example.download(cb, c), want, 2e-2, 1e-2);
                    }
                }
            }
        });
    }
}
