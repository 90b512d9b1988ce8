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
 * Host time of one Graph.execute call through the Java binding: the graphs, call pattern and
 * output line of bench/bindings/execute_overhead.c (a built [1,256,256] fp16 matmul, each call
 * timed, in blocks of 256 issued while the GPU is busy with an untimed blocker, the median of
 * 102400 calls).
 */
public final class ExecuteOverhead {
    private static final int DIM = 256, WARMUP_CALLS = 10_240, EXECUTE_CALLS = 102_400, BLOCK_CALLS = 256;
    private static final int BLOCKER_BATCH = 8, BLOCKER_DIM = 8192;

    /** C = A x B over [batch, n, n] fp16, built and bound to zero-filled buffers. */
    private static final class Bound implements AutoCloseable {
        final Graph graph;
        final Tensor[] tensors;
        final DeviceBuffer[] buffers = new DeviceBuffer[3];
        final long[] pointers = new long[3];

        Bound(Handle handle, String name, long batch, long n) {
            graph = new Graph(new GraphOptions().name(name).ioDataType(DataType.HALF));
            Tensor a = graph.tensor("A", batch, n, n);
            Tensor b = graph.tensor("B", batch, n, n);
            tensors = new Tensor[] {a, b, graph.matmul(a, b).setOutput(true)};
            graph.build(handle);
            for (int i = 0; i < 3; ++i) {
                buffers[i] = DeviceBuffer.forTensor(0, tensors[i]);
                buffers[i].fill((byte) 0);
                pointers[i] = buffers[i].devicePointer();
            }
        }

        void execute(Handle handle) {
            graph.execute(handle, tensors, pointers, 0);
        }

        @Override
        public void close() {
            for (DeviceBuffer buffer : buffers) {
                if (buffer != null) buffer.close();
            }
            graph.close();
        }
    }

    public static void main(String[] args) {
        if (CudnnFe.deviceCount() == 0) {
            System.out.println("no GPU: the execute overhead benchmark needs one");
            System.exit(77);
        }
        try (Handle handle = new Handle(0);
             Bound measured = new Bound(handle, "execute_overhead", 1, DIM);
             Bound blocker = new Bound(handle, "blocker", BLOCKER_BATCH, BLOCKER_DIM)) {
            blocker.execute(handle);
            handle.synchronize();
            long started = System.nanoTime();
            blocker.execute(handle);
            handle.synchronize();
            final long blockerNs = System.nanoTime() - started;
            // The warm-up also lets the JIT compile the call path.
            long[] times = new long[EXECUTE_CALLS];
            int unheldBlocks = 0;
            long blockStart = 0;
            for (int i = 0; i < WARMUP_CALLS + EXECUTE_CALLS; ++i) {
                if (i % BLOCK_CALLS == 0) {
                    if (i > 0 && System.nanoTime() - blockStart > blockerNs) ++unheldBlocks;
                    handle.synchronize();
                    blocker.execute(handle);
                    blockStart = System.nanoTime();
                }
                long start = System.nanoTime();
                measured.execute(handle);
                if (i >= WARMUP_CALLS) times[i - WARMUP_CALLS] = System.nanoTime() - start;
            }
            if (System.nanoTime() - blockStart > blockerNs) ++unheldBlocks;
            handle.synchronize();
            Arrays.sort(times);
            System.out.printf("execute_overhead java median_ns=%d p90_ns=%d calls=%d blocker_us=%d unheld_blocks=%d%n",
                    times[EXECUTE_CALLS / 2], times[EXECUTE_CALLS * 9 / 10], EXECUTE_CALLS, blockerNs / 1000,
                    unheldBlocks);
        }
    }
}
