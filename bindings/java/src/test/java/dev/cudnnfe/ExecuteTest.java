package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Execution on a GPU against a CPU reference (skipped without a GPU). */
class ExecuteTest {
    private static final int B = 2, M = 32, K = 64, N = 16;

    @Test
    void matmulWithBiasMatchesTheCpuEveryWayItIsBound() {
        assumeTrue(TestSupport.gpuAvailable(), "no GPU here");
        Random random = new Random();
        try (Handle handle = new Handle(0);
             Graph graph = new Graph(new GraphOptions().name("matmul_bias").ioDataType(DataType.HALF))) {
            Tensor a = graph.tensor("A", B, M, K).setUid(1);
            Tensor b = graph.tensor("B", B, K, N).setUid(2);
            Tensor d = graph.tensor("D", 1, M, N).setUid(3);
            Tensor c = graph.bias(graph.matmul(a, b), d).setOutput(true).setUid(4);
            graph.build(handle);
            assertTrue(graph.isBuilt());

            Map<Tensor, DeviceBuffer> buffers = new LinkedHashMap<>();
            try {
                for (Tensor t : new Tensor[] {a, b, d, c}) buffers.put(t, DeviceBuffer.forTensor(0, t));
                float[] ah = upload(buffers.get(a), B * M * K, random);
                float[] bh = upload(buffers.get(b), B * K * N, random);
                float[] dh = upload(buffers.get(d), M * N, random);
                double[] want = reference(ah, bh, dh);

                buffers.get(c).fill((byte) 0xFF);
                graph.execute(handle, buffers);
                handle.synchronize();
                compare(want, buffers.get(c).downloadFloats(B * M * N, DataType.HALF));

                long[] pointers = new long[4];
                int i = 0;
                for (DeviceBuffer buffer : buffers.values()) pointers[i++] = buffer.devicePointer();
                buffers.get(c).fill((byte) 0xFF);
                graph.execute(handle, new Tensor[] {a, b, d, c}, pointers, 0);
                handle.synchronize();
                compare(want, buffers.get(c).downloadFloats(B * M * N, DataType.HALF));

                buffers.get(c).fill((byte) 0xFF);
                graph.executeByUid(handle, new long[] {1, 2, 3, 4}, pointers, 0);
                handle.synchronize();
                compare(want, buffers.get(c).downloadFloats(B * M * N, DataType.HALF));

                buffers.get(c).fill((byte) 0xFF);
                long workspace = graph.workspaceSize();
                try (DeviceBuffer own = workspace > 0 ? DeviceBuffer.allocate(0, workspace) : null) {
                    graph.executePositional(handle, pointers, own == null ? 0 : own.devicePointer());
                }
                handle.synchronize();
                compare(want, buffers.get(c).downloadFloats(B * M * N, DataType.HALF));
            } finally {
                for (DeviceBuffer buffer : buffers.values()) buffer.close();
            }
        }
    }

    @Test
    void aBufferTooSmallIsRefused() {
        assumeTrue(TestSupport.gpuAvailable(), "no GPU here");
        try (Handle handle = new Handle(0);
             Graph graph = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor x = graph.tensor("x", 64, 64);
            Tensor y = graph.relu(x).setOutput(true);
            graph.build(handle);
            try (DeviceBuffer small = DeviceBuffer.allocate(0, 16); DeviceBuffer out = DeviceBuffer.forTensor(0, y)) {
                TestSupport.assertFails(Status.BUFFER_TOO_SMALL, "Graph.executeBuffers",
                        () -> graph.executeBuffers(handle, new Tensor[] {x, y}, new DeviceBuffer[] {small, out}, 0));
            }
        }
    }

    @Test
    void executingBeforeBuildingIsBadState() {
        assumeTrue(TestSupport.gpuAvailable(), "no GPU here");
        try (Handle handle = new Handle(0); Graph graph = new Graph()) {
            TestSupport.assertFails(Status.BAD_STATE, "Graph.execute", () -> graph.executePositional(handle, new long[0], 0));
            assertEquals(0, handle.device());
            handle.setStream(0);
            assertEquals(0, handle.stream());
        }
    }

    /** The CUDA-graph calls pass their arguments as C takes them: an unbuilt graph is BAD_STATE, a
     *  NULL CUDA graph is refused naming the call, and warming up a built graph works. */
    @Test
    void cudaGraphCallsCheckTheirArguments() {
        assumeTrue(TestSupport.gpuAvailable(), "no GPU here");
        try (Handle handle = new Handle(0);
             Graph graph = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            TestSupport.assertFails(Status.BAD_STATE, "Graph.warmup", () -> graph.warmup(handle));
            Tensor x = graph.tensor("x", 64, 64);
            Tensor y = graph.relu(x).setOutput(true);
            graph.build(handle);
            graph.warmup(handle);
            try (DeviceBuffer in = DeviceBuffer.forTensor(0, x); DeviceBuffer out = DeviceBuffer.forTensor(0, y)) {
                Tensor[] tensors = {x, y};
                long[] pointers = {in.devicePointer(), out.devicePointer()};
                TestSupport.assertNullArgument("Graph.populateCudaGraph: cudaGraph is null",
                        () -> graph.populateCudaGraph(handle, tensors, pointers, 0, 0));
                TestSupport.assertNullArgument("Graph.updateCudaGraph: cudaGraph is null",
                        () -> graph.updateCudaGraph(handle, tensors, pointers, 0, 0));
            }
        }
    }

    /** Uniform values in [-1, 1) uploaded as half, returned as the device holds them. */
    private static float[] upload(DeviceBuffer buffer, int count, Random random) {
        float[] values = new float[count];
        for (int i = 0; i < count; ++i) values[i] = random.nextFloat() * 2 - 1;
        buffer.upload(values, DataType.HALF);
        buffer.download(values, DataType.HALF);
        return values;
    }

    private static double[] reference(float[] a, float[] b, float[] d) {
        double[] c = new double[B * M * N];
        for (int i = 0; i < B; ++i)
            for (int m = 0; m < M; ++m)
                for (int n = 0; n < N; ++n) {
                    double acc = d[m * N + n];
                    for (int k = 0; k < K; ++k) acc += (double) a[(i * M + m) * K + k] * b[(i * K + k) * N + n];
                    c[(i * M + m) * N + n] = acc;
                }
        return c;
    }

    private static void compare(double[] want, float[] got) {
        assertEquals(want.length, got.length);
        for (int i = 0; i < want.length; ++i) {
            assertTrue(Math.abs(got[i] - want[i]) <= 2e-2 + 1e-2 * Math.abs(want[i]),
                    "element " + i + " is " + got[i] + ", expected " + want[i]);
        }
    }
}
