using System;

namespace CudnnFe
{
    /// <summary>
    /// A tensor of a graph. The graph owns it: it lives as long as the graph is undisposed, and a
    /// tensor keeps its graph reachable. Setters return the tensor, for chaining, and are allowed
    /// until the graph is built. Tensors are equal when they are the same tensor of the same graph.
    /// </summary>
    public sealed partial class Tensor : IEquatable<Tensor>
    {
        private readonly IntPtr pointer;

        internal Tensor(Graph graph, IntPtr pointer)
        {
            Graph = graph;
            this.pointer = pointer;
        }

        public Graph Graph { get; }

        /// <summary>The C pointer; throws if the graph is disposed (the tensor died with it).</summary>
        internal IntPtr Pointer
        {
            get
            {
                IntPtr alive = Graph.Pointer;
                return pointer;
            }
        }

        public int Rank
        {
            get
            {
                var rank = new long[1];
                Check.Ok(NativeApi.fe_tensor_get_ndims(Pointer, rank));
                return (int)rank[0];
            }
        }

        public long[] Dims
        {
            get
            {
                var dims = new long[Rank];
                Check.Ok(NativeApi.fe_tensor_get_dims(Pointer, dims, dims.Length));
                return dims;
            }
        }

        public long[] Strides
        {
            get
            {
                var strides = new long[Rank];
                Check.Ok(NativeApi.fe_tensor_get_strides(Pointer, strides, strides.Length));
                return strides;
            }
        }

        public Tensor SetDims(params long[] dims)
        {
            Check.Ok(NativeApi.fe_tensor_set_dims(Pointer, dims.Length, dims));
            return this;
        }

        public Tensor SetStrides(params long[] strides)
        {
            Check.Ok(NativeApi.fe_tensor_set_strides(Pointer, strides.Length, strides));
            return this;
        }

        public bool Equals(Tensor other) => other != null && other.Graph == Graph && other.pointer == pointer;

        public override bool Equals(object other) => Equals(other as Tensor);

        public override int GetHashCode() => pointer.GetHashCode();

        public override string ToString() =>
            Graph.IsDisposed ? "Tensor(disposed graph)" : "Tensor(" + Name + " [" + string.Join(", ", Dims) + "])";
    }
}
