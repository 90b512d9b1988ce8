using System;
using System.IO;

namespace CudnnFe.Examples
{
    /// <summary>
    /// What the examples share: the GPU-or-deviceless choice, random inputs, poisoned outputs and the
    /// comparison with a CPU reference. Each example stays about its graph. Exit codes: 0 verified or
    /// built devicelessly, 1 failure, 77 skipped (no cuDNN).
    /// </summary>
    internal static class Example
    {
        internal const int Skip = 77;
        private static readonly Random random = new Random();

        /// <summary>Run an example's body; a library error prints its status and message.</summary>
        internal static int Run(Func<int> body)
        {
            try
            {
                return body();
            }
            catch (CudnnFeException e)
            {
                Console.Error.WriteLine("failed: " + e.Status + ": " + e.Message);
                return e.Status == Status.LibraryUnavailable ? Skip : 1;
            }
        }

        /// <summary>A handle on GPU 0, or null (having said why) when this machine has none.</summary>
        internal static Handle Handle()
        {
            try
            {
                Library.CudnnVersion();
            }
            catch (CudnnFeException e)
            {
                Console.WriteLine("cuDNN is not available: " + e.Message);
                Environment.Exit(Skip);
            }
            try
            {
                return Library.DeviceCount() == 0 ? null : new Handle(0);
            }
            catch (CudnnFeException e)
            {
                Console.WriteLine("no usable GPU: " + e.Message);
                return null;
            }
        }

        /// <summary>
        /// No GPU: take the build's steps for the H100 description (args[0], $CUDNNFE_DEVICE_JSON, or
        /// ../shared/devices/h100-sxm-80gb.json), say how far a machine with no GPU gets, and return the
        /// exit code.
        /// </summary>
        /// <summary>The H100 description's text, or null (having said why) when it is not there.</summary>
        internal static string DeviceJson(string[] args)
        {
            string path = args.Length > 0 ? args[0]
                : Environment.GetEnvironmentVariable("CUDNNFE_DEVICE_JSON") ?? "../shared/devices/h100-sxm-80gb.json";
            if (File.Exists(path)) return File.ReadAllText(path);
            Console.WriteLine("no GPU and no device description at " + path + ": nothing to do");
            return null;
        }

        internal static int BuildDeviceless(Graph graph, string[] args)
        {
            string path = args.Length > 0 ? args[0]
                : Environment.GetEnvironmentVariable("CUDNNFE_DEVICE_JSON") ?? "../shared/devices/h100-sxm-80gb.json";
            if (!File.Exists(path))
            {
                Console.WriteLine("no GPU and no device description at " + path + ": nothing to do");
                return Skip;
            }
            graph.SetDeviceProperties(File.ReadAllText(path));
            graph.Validate();
            graph.BuildOperationGraph(null);
            graph.CreateExecutionPlans();
            long viable = graph.ViableCount;
            if (viable == 0)
            {
                Console.WriteLine("no GPU: graph '" + graph.Name + "' lowered for the H100 description, but cuDNN lists no " +
                                  "engine for it without a CUDA driver library (libcuda.so.1); not executed");
                return 0;
            }
            graph.CheckSupport();
            try
            {
                graph.BuildPlans(BuildPolicy.HeuristicsChoice);
            }
            catch (CannotTellException e)
            {
                Console.WriteLine("no GPU: graph '" + graph.Name + "' is supported for the H100 description (" + viable +
                                  " viable engine configs); its kernels are compiled when it is built on a GPU (" +
                                  e.Message + "); not executed");
                return 0;
            }
            Console.WriteLine("no GPU: built plan " + graph.EngineTag + " (workspace " + graph.WorkspaceSize +
                              " bytes) devicelessly for the H100 description; not executed");
            return 0;
        }

        /// <summary>Elements a buffer for the tensor spans (its largest reachable offset + 1).</summary>
        private static int Span(Tensor tensor) => (int)(tensor.SizeBytes / tensor.DataType.Size());

        /// <summary>A buffer of fresh uniform values in [-1, 1), rounded to the tensor's type on the
        /// device; host receives the rounded values, indexed by offset.</summary>
        internal static DeviceBuffer Input(Tensor tensor, out float[] host)
        {
            DeviceBuffer buffer = DeviceBuffer.For(0, tensor);
            host = new float[Span(tensor)];
            for (int i = 0; i < host.Length; ++i) host[i] = (float)(random.NextDouble() * 2 - 1);
            buffer.Upload(host, tensor.DataType);
            buffer.Download(host, tensor.DataType);
            return buffer;
        }

        /// <summary>A buffer for an output, poisoned (all bits set: NaN) so unwritten elements show.</summary>
        internal static DeviceBuffer Output(Tensor tensor)
        {
            DeviceBuffer buffer = DeviceBuffer.For(0, tensor);
            buffer.Fill(0xFF);
            return buffer;
        }

        internal static float[] Download(DeviceBuffer buffer, Tensor tensor) =>
            buffer.DownloadFloats(Span(tensor), tensor.DataType);

        /// <summary>
        /// Compare got (indexed by offset under the tensor's strides) with want (logical row-major
        /// order): print the largest error and return 0 if every element is finite and within
        /// atol + rtol * |want|, else 1.
        /// </summary>
        internal static int Compare(string what, Tensor tensor, float[] got, double[] want, double atol, double rtol)
        {
            long[] dims = tensor.Dims, strides = tensor.Strides;
            var index = new long[dims.Length];
            long bad = 0;
            double maxAbs = 0;
            for (int e = 0; e < want.Length; ++e)
            {
                long offset = 0;
                for (int d = 0; d < dims.Length; ++d) offset += index[d] * strides[d];
                double g = got[offset], err = Math.Abs(g - want[e]);
                if (double.IsNaN(g) || double.IsInfinity(g) || err > atol + rtol * Math.Abs(want[e]))
                {
                    if (bad++ == 0) Console.Error.WriteLine(what + ": element " + e + " is " + g + ", expected " + want[e]);
                }
                else if (err > maxAbs)
                {
                    maxAbs = err;
                }
                for (int d = dims.Length - 1; d >= 0; --d)
                {
                    if (++index[d] < dims[d]) break;
                    index[d] = 0;
                }
            }
            if (bad > 0)
            {
                Console.Error.WriteLine(what + ": " + bad + " of " + want.Length + " elements wrong");
                return 1;
            }
            Console.WriteLine("verified on GPU: {0}, {1} elements, max abs err {2:G3}", what, want.Length, maxAbs);
            return 0;
        }

        /// <summary>C[b] = A[b] x B[b] + D, D broadcast over b (the matmul examples' reference).</summary>
        internal static double[] MatmulBias(float[] a, float[] b, float[] d, int batch, int m, int n, int k)
        {
            var c = new double[batch * m * n];
            for (int i = 0; i < batch; ++i)
                for (int r = 0; r < m; ++r)
                    for (int col = 0; col < n; ++col)
                    {
                        double acc = d[r * n + col];
                        for (int x = 0; x < k; ++x) acc += (double)a[(i * m + r) * k + x] * b[(i * k + x) * n + col];
                        c[(i * m + r) * n + col] = acc;
                    }
            return c;
        }
    }
}
