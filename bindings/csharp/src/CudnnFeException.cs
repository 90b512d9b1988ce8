using System;

namespace CudnnFe
{
    /// <summary>
    /// A failed cudnnfe call: its status and the library's one-line message, which names the C
    /// function and the cause (e.g. "fe_graph_conv_fprop: weight has 32 input channels, image has 64").
    /// A status this binding does not know (from a newer library) keeps its numeric value.
    /// </summary>
    public class CudnnFeException : Exception
    {
        public Status Status { get; }

        public CudnnFeException(Status status, string message) : base(message)
        {
            Status = status;
        }
    }
}
