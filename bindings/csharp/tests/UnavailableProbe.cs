using System;

namespace CudnnFe.Tests
{
    /// <summary>
    /// The child process of UnavailableTests: prints the status and message of a call that needs
    /// cuDNN, then whether a graph still validates.
    /// </summary>
    public static class UnavailableProbe
    {
        public static int Main()
        {
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
    }
}
