using System;

namespace CudnnFe
{
    /// <summary>
    /// A failed cudnnfe call: its status and a one-line message that names the C# method and the
    /// cause (e.g. "Graph.ConvFprop: weight has 32 input channels, image has 64"). The C function
    /// that failed is <see cref="Function"/>; where the cause is an error cuDNN reported, cuDNN's
    /// text is part of <see cref="Reason"/>. A status this binding does not know (from a newer
    /// library) keeps its numeric value.
    /// </summary>
    public class CudnnFeException : Exception
    {
        public Status Status { get; }

        /// <summary>The C function that failed ("fe_graph_conv_fprop"); empty when the failure is the binding's own.</summary>
        public string Function { get; }

        /// <summary>The C# method named first in the message ("Graph.ConvFprop"); empty when none is.</summary>
        public string Method { get; }

        /// <summary>The cause: the message without the method it names.</summary>
        public string Reason { get; }

        public CudnnFeException(Status status, string message) : this(status, "", "", message) { }

        internal CudnnFeException(Status status, string function, string method, string reason)
            : base(method.Length == 0 ? reason : method + ": " + reason)
        {
            Status = status;
            Function = function;
            Method = method;
            Reason = reason;
        }
    }
}
