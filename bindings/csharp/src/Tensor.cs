using System;

namespace CudnnFe
{
    /// <summary>
    /// A tensor of a graph. The graph owns it: it lives as long as the graph is undisposed, and a
    /// tensor keeps its graph reachable. Setters return the tensor, for chaining, and are allowed
    /// until the graph is built. Tensors are equal when they are the same tensor of the same graph.
    /// </summary>
    public sealed class Tensor : IEquatable<Tensor>
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

        public string Name
        {
            get
            {
                var name = new string[1];
                Check.Ok(NativeApi.fe_tensor_get_name(Pointer, name));
                return name[0];
            }
            set => Check.Ok(NativeApi.fe_tensor_set_name(Pointer, value));
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

        /// <summary>The element type (NotSet until validation resolves the graph's default).</summary>
        public DataType DataType
        {
            get
            {
                var type = new int[1];
                Check.Ok(NativeApi.fe_tensor_get_data_type(Pointer, type));
                return (DataType)type[0];
            }
        }

        public Tensor SetDataType(DataType type)
        {
            Check.Ok(NativeApi.fe_tensor_set_data_type(Pointer, (fe_data_type)type));
            return this;
        }

        /// <summary>The uid set, or the one the build assigned; BadState before either.</summary>
        public long Uid
        {
            get
            {
                var uid = new long[1];
                Check.Ok(NativeApi.fe_tensor_get_uid(Pointer, uid));
                return uid[0];
            }
        }

        public Tensor SetUid(long uid)
        {
            Check.Ok(NativeApi.fe_tensor_set_uid(Pointer, uid));
            return this;
        }

        /// <summary>Promise that every pointer bound to this tensor is aligned to <paramref name="bytes"/>
        /// (a power of two, 16 to 4096); execution refuses one that is not.</summary>
        public Tensor SetAlignment(long bytes)
        {
            Check.Ok(NativeApi.fe_tensor_set_alignment(Pointer, bytes));
            return this;
        }

        /// <summary>Packed variable-length layout: batch i starts at element offsets[i] (null removes it).</summary>
        public Tensor SetRaggedOffset(Tensor offsets)
        {
            Check.Ok(NativeApi.fe_tensor_set_ragged_offset(Pointer, offsets == null ? IntPtr.Zero : offsets.Pointer));
            return this;
        }

        /// <summary>Make an operation's result a graph output (non-virtual), or undo it.</summary>
        public Tensor SetOutput(bool isOutput)
        {
            Check.Ok(NativeApi.fe_tensor_set_output(Pointer, isOutput ? 1 : 0));
            return this;
        }

        public bool IsOutput => Flag(NativeApi.fe_tensor_is_output);

        public bool IsVirtual => Flag(NativeApi.fe_tensor_is_virtual);

        /// <summary>Bytes a buffer for this tensor needs.</summary>
        public long SizeBytes
        {
            get
            {
                var bytes = new long[1];
                Check.Ok(NativeApi.fe_tensor_size_bytes(Pointer, bytes));
                return bytes[0];
            }
        }

        private bool Flag(Func<IntPtr, int[], fe_status> query)
        {
            var flag = new int[1];
            Check.Ok(query(Pointer, flag));
            return flag[0] != 0;
        }

        public bool Equals(Tensor other) => other != null && other.Graph == Graph && other.pointer == pointer;

        public override bool Equals(object other) => Equals(other as Tensor);

        public override int GetHashCode() => pointer.GetHashCode();

        public override string ToString() =>
            Graph.IsDisposed ? "Tensor(disposed graph)" : "Tensor(" + Name + " [" + string.Join(", ", Dims) + "])";
    }
}
