using System;
using System.Runtime.InteropServices;
using CudnnFe;

/// <summary>
/// Host time of one Graph.Execute call through the C# binding: the graph, call pattern and output
/// line of bench/bindings/execute_overhead.c (a built 256x256x256 fp16 matmul, each call timed, the
/// stream drained untimed every 256 calls, the median of 100k calls).
/// </summary>
public static class ExecuteOverhead
{
    private const int Dim = 256, WarmupCalls = 10000, ExecuteCalls = 100000, DrainEvery = 256;

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
        using (var graph = new Graph(new GraphOptions { Name = "execute_overhead", IoDataType = DataType.Half }))
        {
            Tensor a = graph.Tensor("A", Dim, Dim), b = graph.Tensor("B", Dim, Dim);
            Tensor c = graph.Matmul(a, b).SetOutput(true);
            graph.Build(handle);
            Tensor[] tensors = { a, b, c };
            var buffers = new DeviceBuffer[3];
            var pointers = new IntPtr[3];
            try
            {
                for (int i = 0; i < 3; ++i)
                {
                    buffers[i] = DeviceBuffer.For(0, tensors[i]);
                    buffers[i].Fill(0);
                    pointers[i] = buffers[i].DevicePointer;
                }
                // The warm-up also lets the JIT compile the call path.
                for (int i = 0; i < WarmupCalls; ++i)
                {
                    if (i % DrainEvery == 0) handle.Synchronize();
                    graph.Execute(handle, tensors, pointers);
                }
                var times = new long[ExecuteCalls];
                for (int i = 0; i < ExecuteCalls; ++i)
                {
                    if (i % DrainEvery == 0) handle.Synchronize();
                    long start = NowNs();
                    graph.Execute(handle, tensors, pointers);
                    times[i] = NowNs() - start;
                }
                handle.Synchronize();
                Array.Sort(times);
                Console.WriteLine("execute_overhead csharp median_ns={0} p90_ns={1} calls={2}",
                                  times[ExecuteCalls / 2], times[ExecuteCalls * 9 / 10], ExecuteCalls);
            }
            finally
            {
                foreach (DeviceBuffer buffer in buffers) buffer?.Dispose();
            }
        }
        return 0;
    }
}
