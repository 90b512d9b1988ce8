package dev.cudnnfe.bench;

import dev.cudnnfe.CudnnFe;
import dev.cudnnfe.DataType;
import dev.cudnnfe.DeviceBuffer;
import dev.cudnnfe.Graph;
import dev.cudnnfe.GraphOptions;
import dev.cudnnfe.Handle;
import dev.cudnnfe.Tensor;
import java.util.Arrays;

/**
 * Host time of one Graph.execute call through the Java binding: the graph, call pattern and output
 * line of bench/bindings/execute_overhead.c (a built 256x256x256 fp16 matmul, each call timed, the
 * stream drained untimed every 256 calls, the median of 100k calls).
 */
public final class ExecuteOverhead {
    private static final int DIM = 256, WARMUP_CALLS = 10_000, EXECUTE_CALLS = 100_000, DRAIN_EVERY = 256;

    public static void main(String[] args) {
        if (CudnnFe.deviceCount() == 0) {
            System.out.println("no GPU: the execute overhead benchmark needs one");
            System.exit(77);
        }
        try (Handle handle = new Handle(0);
             Graph graph = new Graph(new GraphOptions().name("execute_overhead").ioDataType(DataType.HALF))) {
            Tensor a = graph.tensor("A", DIM, DIM);
            Tensor b = graph.tensor("B", DIM, DIM);
            Tensor c = graph.matmul(a, b).setOutput(true);
            graph.build(handle);
            Tensor[] tensors = {a, b, c};
            DeviceBuffer[] buffers = new DeviceBuffer[3];
            long[] pointers = new long[3];
            try {
                for (int i = 0; i < 3; ++i) {
                    buffers[i] = DeviceBuffer.forTensor(0, tensors[i]);
                    buffers[i].fill((byte) 0);
                    pointers[i] = buffers[i].devicePointer();
                }
                // The warm-up also lets the JIT compile the call path.
                for (int i = 0; i < WARMUP_CALLS; ++i) {
                    if (i % DRAIN_EVERY == 0) handle.synchronize();
                    graph.execute(handle, tensors, pointers, 0);
                }
                long[] times = new long[EXECUTE_CALLS];
                for (int i = 0; i < EXECUTE_CALLS; ++i) {
                    if (i % DRAIN_EVERY == 0) handle.synchronize();
                    long start = System.nanoTime();
                    graph.execute(handle, tensors, pointers, 0);
                    times[i] = System.nanoTime() - start;
                }
                handle.synchronize();
                Arrays.sort(times);
                System.out.printf("execute_overhead java median_ns=%d p90_ns=%d calls=%d%n", times[EXECUTE_CALLS / 2],
                        times[EXECUTE_CALLS * 9 / 10], EXECUTE_CALLS);
            } finally {
                for (DeviceBuffer buffer : buffers) {
                    if (buffer != null) buffer.close();
                }
            }
        }
    }
}
