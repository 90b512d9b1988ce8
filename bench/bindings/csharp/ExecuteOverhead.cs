using System;
using System.Runtime.InteropServices;
using CudnnFe;

/// <summary>
/// Host time of one Graph.Execute call through the C# binding: the graphs, call pattern and
/// output line of bench/bindings/execute_overhead.c (a built [1,256,256] fp16 matmul, each call
/// timed, in blocks of 256 issued while the GPU is busy with an untimed blocker, the median of
/// 102400 calls).
/// </summary>
public static class ExecuteOverhead
{
    private const int Dim = 256, WarmupCalls = 10240, ExecuteCalls = 102400, BlockCalls = 256;
    private const int BlockerBatch = 8, BlockerDim = 8192;

    // C = A x B over [batch, n, n] fp16, built and bound to zero-filled buffers.
    private sealed class Bound : IDisposable
    {
        private readonly Graph graph;
        private readonly Tensor[] tensors;
        private readonly DeviceBuffer[] buffers = new DeviceBuffer[3];
        private readonly IntPtr[] pointers = new IntPtr[3];

        public Bound(Handle handle, string name, long batch, long n)
        {
            graph = new Graph(new GraphOptions { Name = name, IoDataType = DataType.Half });
            Tensor a = graph.Tensor("A", batch, n, n), b = graph.Tensor("B", batch, n, n);
            tensors = new[] { a, b, graph.Matmul(a, b).SetOutput(true) };
            graph.Build(handle);
            for (int i = 0; i < 3; ++i)
            {
                buffers[i] = DeviceBuffer.For(0, tensors[i]);
                buffers[i].Fill(0);
                pointers[i] = buffers[i].DevicePointer;
            }
        }

        public void Execute(Handle handle)
        {
            graph.Execute(handle, tensors, pointers);
        }

        public void Dispose()
        {
            foreach (DeviceBuffer buffer in buffers) buffer?.Dispose();
            graph.Dispose();
        }
    }

    // The C benchmark's clock (CLOCK_MONOTONIC). Stopwatch would do, but it lives in System.dll,
    // which would triple the size of the bundled executable; this needs only mscorlib.
    [StructLayout(LayoutKind.Sequential)]
    private struct Timespec
    {
        public long Seconds, Nanoseconds;
    }

    [DllImport("libc.so.6")]
    private static extern int clock_gettime(int clock, out Timespec time);

    private static long NowNs()
    {
        Timespec t;
        clock_gettime(1, out t);
        return t.Seconds * 1000000000 + t.Nanoseconds;
    }

    public static int Main()
    {
        if (Library.DeviceCount() == 0)
        {
            Console.WriteLine("no GPU: the execute overhead benchmark needs one");
            return 77;
        }
        using (var handle = new Handle(0))
        using (var measured = new Bound(handle, "execute_overhead", 1, Dim))
        using (var blocker = new Bound(handle, "blocker", BlockerBatch, BlockerDim))
        {
            blocker.Execute(handle);
            handle.Synchronize();
            long started = NowNs();
            blocker.Execute(handle);
            handle.Synchronize();
            long blockerNs = NowNs() - started;
            // The warm-up also lets the JIT compile the call path.
            var times = new long[ExecuteCalls];
            int unheldBlocks = 0;
            long blockStart = 0;
            for (int i = 0; i < WarmupCalls + ExecuteCalls; ++i)
            {
                if (i % BlockCalls == 0)
                {
                    if (i > 0 && NowNs() - blockStart > blockerNs) ++unheldBlocks;
                    handle.Synchronize();
                    blocker.Execute(handle);
                    blockStart = NowNs();
                }
                long start = NowNs();
                measured.Execute(handle);
                if (i >= WarmupCalls) times[i - WarmupCalls] = NowNs() - start;
            }
            if (NowNs() - blockStart > blockerNs) ++unheldBlocks;
            handle.Synchronize();
            Array.Sort(times);
            Console.WriteLine("execute_overhead csharp median_ns={0} p90_ns={1} calls={2} blocker_us={3} unheld_blocks={4}",
                              times[ExecuteCalls / 2], times[ExecuteCalls * 9 / 10], ExecuteCalls, blockerNs / 1000,
                              unheldBlocks);
        }
        return 0;
    }
}
