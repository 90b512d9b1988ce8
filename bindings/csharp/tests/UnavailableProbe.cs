using System;
using System.IO;

namespace CudnnFe.Tests
{
    /// <summary>
    /// The child process of UnavailableTests and DevicelessBuildTests. With no argument: prints the
    /// status and message of a call that needs cuDNN, then whether a graph still validates. With
    /// "answers": what a deviceless build answers on this machine (Answers).
    /// </summary>
    public static class UnavailableProbe
    {
        public static int Main(string[] args)
        {
            if (args.Length == 1 && args[0] == "answers")
            {
                string path = Environment.GetEnvironmentVariable("CUDNNFE_DEVICE_JSON");
                Console.WriteLine("answers: " + Answers(File.ReadAllText(path)));
                return 0;
            }
            try
            {
                Library.CudnnVersion();
                Console.WriteLine("cuDNN loaded");
            }
            catch (CudnnFeException e)
            {
                Console.WriteLine(e.Status + " " + e.Message);
            }
            using (var graph = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                graph.Relu(graph.Tensor("x", 4)).SetOutput(true);
                graph.Validate();
                Console.WriteLine("validated");
            }
            return 0;
        }

        /// <summary>A deviceless build's answers for a matmul (supported, its engines compile their
        /// kernels) and a standalone softmax (no engine runs it), described by json.</summary>
        public static string Answers(string json)
        {
            using (var matmul = new Graph(new GraphOptions { Name = "matmul", IoDataType = DataType.Half }))
            using (var softmax = new Graph(new GraphOptions { Name = "softmax", IoDataType = DataType.Half }))
            {
                matmul.Matmul(matmul.Tensor("A", 4, 64, 64), matmul.Tensor("B", 4, 64, 64)).SetOutput(true);
                softmax.Softmax(softmax.Tensor("x", 4, 128, 256), out Tensor stats).SetOutput(true);
                string check = StatusOf(() => Prepare(matmul, json).CheckSupport());
                string build = check == "Ok" ? StatusOf(() => matmul.BuildPlans(BuildPolicy.HeuristicsChoice)) : "not tried";
                string unsupported = StatusOf(() => Prepare(softmax, json).CheckSupport());
                return "matmul check " + check + " build " + build + "; softmax check " + unsupported;
            }
        }

        static Graph Prepare(Graph graph, string json)
        {
            graph.SetDeviceProperties(json);
            graph.Validate();
            graph.BuildOperationGraph(null);
            graph.CreateExecutionPlans();
            return graph;
        }

        static string StatusOf(Action call)
        {
            try
            {
                call();
                return "Ok";
            }
            catch (CudnnFeException e)
            {
                return e.Status.ToString();
            }
        }
    }
}
